"""The reference report's layout (:func:`segeval.reports.me13sh.layout`) against Python 2's ``'%-*s'`` on byte
strings, written out here: each column padded with blanks to its widest cell in UTF-8 bytes, at most 20,
a longer cell never cut."""

from __future__ import annotations

import random

import pytest

from segeval.reports.me13sh import layout


def python2_layout(rows: list[tuple[str, str, str]]) -> bytes:
    cells = [[c.encode("utf-8", "surrogateescape") for c in r] for r in rows]
    widths = [min(20, max(len(r[i]) for r in cells)) for i in range(3)]
    return b"".join(b"\t".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + b"\n" for r in cells)


def test_widths_are_bytes_capped_at_20() -> None:
    # 'num_rel' is 7 bytes, 'é' 2 bytes (1 character): column 2 is 2 wide; column 3's widest cell has 25 bytes,
    # so it is 20 wide and that cell is not cut
    rows = [("num_rel", "é", "x" * 25), ("map", "q", "0.5000")]
    assert layout(rows) == "num_rel\té\t" + "x" * 25 + "\nmap    \tq \t0.5000" + " " * 14 + "\n"


@pytest.mark.parametrize("seed", range(10))
def test_layout_as_python2(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "abc_.0123456789" + ("éß€\udcff" if seed % 2 else "")  # odd seeds: non-ASCII ids (and a lone byte)

    def cell() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 5, 19, 20, 21, 30])))

    rows = [(cell(), cell(), cell()) for _ in range(rng.randint(1, 40))]
    assert layout(rows).encode("utf-8", "surrogateescape") == python2_layout(rows)
