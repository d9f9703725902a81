"""The checks every block read passes (:class:`segeval.readers.files._Checks`) decide as they would on the file
read whole, wherever the blocks split it: a byte-order mark after the start, a NUL byte, white space only."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from segeval.core.errors import InputError
from segeval.readers.files import read_blocks

MARK = b"\xef\xbb\xbf"


def _outcome(path: Path, block: int) -> tuple[str, int | None] | bytes:
    try:
        return b"".join(read_blocks(path, max_bytes=None, block=block))
    except InputError as exc:
        return exc.kind, exc.line  # (the text shown is cut at a block start when blocks are tiny)


@pytest.mark.parametrize("seed", range(40))
def test_blocks_decide_as_the_whole_file(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    lines = [b"q%d 0 doc%d %d" % (i % 3, i, i % 2) for i in range(rng.randint(1, 12))]
    what = rng.choice(["mark", "mark", "nul", "none", "blank"])
    if what == "blank":
        lines = [rng.choice([b"", b" ", b"\t"]) for _ in lines]
    elif what != "none":
        at = rng.randrange(len(lines))
        pos = rng.randint(0, len(lines[at]))
        lines[at] = lines[at][:pos] + (MARK if what == "mark" else b"\x00") + lines[at][pos:]
    data = (MARK if rng.random() < 0.3 else b"") + b"\n".join(lines) + rng.choice([b"\n", b""])
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    whole = _outcome(path, len(data) + 1)
    for block in (1, 2, 3, 4, 5, 7, 16):
        assert _outcome(path, block) == whole, (block, data)
    if what == "mark" and data.count(MARK) > int(data.startswith(MARK)):  # one after the start
        assert isinstance(whole, tuple) and whole[0] == "byte-order mark", data
    if what == "nul":
        assert isinstance(whole, tuple) and whole[0] == "NUL byte", data
