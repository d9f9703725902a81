"""The sed readers' two routes (the byte scanner and the line parser) and the operating points' shared codes give
the same tables; the composite sort key of the overlap check gives lexsort's order (seeded sweeps)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from segeval.protocols.sed import measures
from segeval.protocols.sed.read import Events, Shared, read_events, read_score_folder, read_scores

HEAD = "filename\tonset\toffset\tevent_label\n"


def _fields(e: Events) -> tuple[object, ...]:
    return (e.names, e.clip.tolist(), e.onset.tolist(), e.offset.tolist(), e.labels, e.label.tolist(), e.line.tolist())


def _table(rng: random.Random) -> list[str]:
    rows = []
    for _ in range(rng.randrange(1, 12)):
        clip = f"c{rng.randrange(4)}.wav"
        if rng.random() < 0.1:
            rows.append(f"{clip}\t\t\t")  # a clip without events: the line parser's route
            continue
        on = round(rng.uniform(0, 9), rng.choice([0, 1, 3]))
        rows.append(f"{clip}\t{on}\t{round(on + rng.choice([0, 0.5, 1.25]), 3)}\t{rng.choice(['Dog', 'Cat', 'Bird'])}")
    return rows


def test_scanner_line_parser_and_shared_codes_read_the_same(tmp_path: Path) -> None:
    rng = random.Random(39)
    shared = Shared()
    for k in range(60):
        rows = _table(rng)
        plain, crlf = tmp_path / f"p{k}.tsv", tmp_path / f"r{k}.tsv"
        plain.write_text(HEAD + "\n".join(rows) + "\n")
        crlf.write_bytes((HEAD + "\n".join(rows) + "\n").replace("\n", "\r\n").encode())  # the line parser
        alone = _fields(read_events(str(plain)))
        assert alone == _fields(read_events(str(crlf))) == _fields(read_events(str(plain), shared)), rows


def test_score_tables_read_together_as_one_by_one(tmp_path: Path) -> None:
    rng = random.Random(7)
    paths = []
    for k in range(30):
        frames = rng.randrange(1, 6)
        lines = [f"{t * 0.5:.3f}\t{(t + 1) * 0.5:.3f}\t{rng.random():.4f}\t{rng.choice(['0', '1e-3', '0.25'])}"
                 for t in range(frames)]
        (tmp_path / f"s{k}.tsv").write_text("onset\toffset\tDog\tCat\n" + "\n".join(lines) + "\n")
        paths.append(str(tmp_path / f"s{k}.tsv"))
    classes, tables = read_score_folder(paths)
    assert classes == ["Dog", "Cat"]
    for path, (bounds, values) in zip(paths, tables, strict=True):
        _, b, v = read_scores(path)
        assert bounds.tolist() == b.tolist() and values.tolist() == v.tolist()


@pytest.mark.parametrize("limit", [2**63, 50])
def test_overlap_check_orders_as_lexsort(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    # the composite key (clip, label, onset rank, offset rank) and, past KEY_LIMIT, lexsort itself
    monkeypatch.setattr(measures, "KEY_LIMIT", limit)
    rng = np.random.default_rng(39)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        clip, label = rng.integers(0, 4, n), rng.integers(0, 3, n)
        on = rng.choice([0.0, 0.5, 1.0, 2.0, 7.5], n)
        off = on + rng.choice([0.0, 0.5], n)  # touching or repeated, never intersecting
        table = Events("t", ["a", "b", "c", "d"], clip, on, off, ["x", "y", "z"], label, np.arange(2, n + 2))
        order = measures.refuse_overlaps(table)
        assert order.tolist() == np.lexsort((off, on, label, clip)).tolist()
