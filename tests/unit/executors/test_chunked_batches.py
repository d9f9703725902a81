"""Chunks gathered into batches: any ``--chunk-lines`` (1 to 10^6) with any batch size gives the
in-memory output, errors and line numbers (the differential of issue 18, item 5)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from segeval.executors import chunks as chunked
from segeval.readers.blocks import open_blocks
from tests.conftest import full_only, run_cli, sliced
from tests.support.scripts import load_script

#: (batch bytes, chunk lines): one chunk per batch (one-line chunks: test_chunked.py), a few hundred
#: bytes (several lines), the default (the whole file here)
SIZES = [(0, 7), (0, 1000), *((300, n) for n in (1, 7, 1000, 10**6)), (chunked.BATCH_BYTES, 1),
         (chunked.BATCH_BYTES, 10**6)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A TREC run and a gzip linking run whose queries (about 60 lines each) span chunk edges."""
    gen = load_script("generate_data")
    d = tmp_path_factory.mktemp("batches")
    gen.generate_trec(d / "trec.qrels", d / "trec.run", queries=6, lines=300, judged=30, documents=200, seed=5)
    gen.generate(d / "link.qrels", d / "link.run.gz", queries=6, lines=360, videos=25, kind="linking", seed=6)
    return {p.name: p for p in d.iterdir()}


def _lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode().splitlines()


def _write(path: Path, lines: list[str]) -> Path:
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def _differential(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """The in-memory result of ``segeval eval ARGS``, checked equal to the chunked one for every chunk and
    batch size."""
    whole = run_cli("eval", *args, "--memory", "in-memory")
    for batch, size in SIZES:
        monkeypatch.setattr(chunked, "BATCH_BYTES", batch)
        got = run_cli("eval", *args, "--memory", "chunked", "--chunk-lines", str(size))
        assert got == whole, (batch, size)
    return whole


@pytest.mark.parametrize(("qrels", "run", "flags"), sliced([
    ("trec.qrels", "trec.run", ["-q", "-m", "all_trec"]),
    ("link.qrels", "link.run.gz", ["-q", "-c"]),
    ("link.qrels", "link.run.gz", ["-m", "official", "-a", "tolerance:15"]),
], 3, many=True))
def test_any_chunk_and_batch_size_gives_the_in_memory_output(runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                             qrels: str, run: str, flags: list[str]) -> None:
    code, out, _ = _differential(monkeypatch, *flags, str(runs[qrels]), str(runs[run]))
    assert code == 0 and out.count("\n") >= 2


@full_only
def test_errors_name_their_line_at_any_chunk_and_batch_size(runs: dict[str, Path], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(runs["link.run.gz"])
    f = lines[149].split()
    f[3], f[4] = "9.00", "1.00"  # end (60 s) before start (540 s) on line 150
    lines[149] = " ".join(f)
    bad = _write(tmp_path / "bad.run.gz", lines)
    code, _, err = _differential(monkeypatch, str(runs["link.qrels"]), str(bad))
    assert code == 2 and f"{bad}, line 150: the end time (60 s) is earlier than the start time (540 s)" in err
    lines[333] = "garbage"  # a malformed line wins over the earlier bad value
    bad = _write(tmp_path / "bad2.run.gz", lines)
    code, _, err = _differential(monkeypatch, str(runs["link.qrels"]), str(bad))
    assert code == 2 and f"{bad}, line 334: has 1 field" in err and "  line 334: garbage" in err
    code, _, err = _differential(monkeypatch, "--lenient", "-q", str(runs["link.qrels"]), str(bad))
    skipped = [x.split(", line ")[1].split(":")[0] for x in err.splitlines() if x.startswith("segeval: skipped")]
    assert code == 3 and skipped == ["334", "150"]
    trec = _lines(runs["trec.run"])
    g = trec[249].split()
    g[2] = trec[245].split()[2]  # a document again for the query, 4 lines later (line 250)
    assert trec[245].split()[0] == g[0]
    bad = _write(tmp_path / "dup.run", [*trec[:249], " ".join(g), *trec[250:]])
    code, _, err = _differential(monkeypatch, str(runs["trec.qrels"]), str(bad))
    assert code == 2
    assert f"{bad}, line 250: document '{g[2]}' appears again for query '{g[0]}' (first on line 246)" in err
    link = _lines(runs["link.run.gz"])
    h = link[100].split()
    assert link[95].split()[0] == h[0]
    h[2:5] = link[95].split()[2:5]  # a segment again for the query, 5 lines later: kept, as listed
    again = _write(tmp_path / "again.run.gz", [*link[:100], " ".join(h), *link[101:]])
    assert _differential(monkeypatch, "-q", str(runs["link.qrels"]), str(again))[0] == 0


@pytest.mark.parametrize("chunk_lines", [1, 3, 7, 50])
@pytest.mark.parametrize("min_bytes", [0, 1, 40, 333])
def test_batches_are_whole_chunks_reaching_the_budget(tmp_path: Path, chunk_lines: int, min_bytes: int) -> None:
    text = b"".join(b"line %d%s\n" % (i, b"x" * (i % 13)) for i in range(1, 201)) + b"last, no newline"
    path = tmp_path / "f.txt"
    path.write_bytes(text)
    for block in (10, 64, 10**6):
        got = list(chunked.batches(open_blocks(path, block=block), chunk_lines, min_bytes))
        assert b"".join(data for _, data in got) == text
        first = 1
        for at, (number, data) in enumerate(got):
            assert number == first and data.startswith(b"line %d" % number if number <= 200 else b"last")
            n = data.count(b"\n")
            if at < len(got) - 1:  # whole chunks, the fewest whose bytes reach the budget
                assert n % chunk_lines == 0 and n >= chunk_lines and len(data) >= min_bytes
                fewer = sum(len(x) + 1 for x in data.split(b"\n")[:n - chunk_lines])  # bytes of a chunk fewer
                assert n == chunk_lines or fewer < min_bytes
            first += n
    gz = tmp_path / "f.txt.gz"
    gz.write_bytes(gzip.compress(text))
    assert b"".join(d for _, d in chunked.batches(open_blocks(gz, block=16), chunk_lines, min_bytes)) == text


def test_data_lines_counts_non_blank_lines_up_to_wanted() -> None:
    import random

    rng = random.Random(7)
    for _ in range(2000):
        lines = [rng.choice([b"", b"  ", b"\t", b"a b", b"x"]) for _ in range(rng.randint(0, 30))]
        data = b"\n".join(lines) + rng.choice([b"", b"\n", b"\r\n"])
        wanted = rng.randint(1, 35)
        naive = sum(1 for line in data.split(b"\n") if line.strip())  # every line split and looked at
        assert chunked.data_lines(data, wanted) == min(wanted, naive), (data, wanted)
    assert chunked.data_lines(b"a\n" * 10**6, 1000) == 1000


@pytest.mark.parametrize(("heads", "done", "again"), [
    (["a", "b", "c"], set(), None),  # each query once
    (["c", "d"], {"a", "b"}, None),  # new queries after earlier chunks
    (["c", "a"], {"a", "b"}, 1),  # 'a' was finished in an earlier chunk
    (["a", "b", "a", "b"], set(), 2),  # the first query read before is named, not the second
    ([b"q1", b"q2", b"q1"], {b"q0"}, 2),  # the streaming lane's byte tokens
    ([], {"a"}, None),
])
def test_regrouped_finds_the_first_query_read_before(heads: list[str], done: set[str], again: int | None) -> None:
    from segeval.readers.blocks import regrouped

    assert regrouped(heads, done) == again


@pytest.mark.parametrize("seed", range(40))
def test_whole_queries_cut_batches_as_grouping_the_whole_run_would(seed: int) -> None:
    """Random query columns (grouped or not) cut into random batches: the chunk loop yields each query's rows
    whole, in file order, or names the first row whose query comes back (the batch's last query carried over
    included), as one pass over the whole column finds them."""
    import numpy as np

    from segeval.readers.blocks import Regrouped, run_starts, whole_queries

    rng = np.random.default_rng(seed)
    order = rng.permutation(5)[: int(rng.integers(1, 6))]
    column = np.repeat(order, rng.integers(1, 5, len(order)))
    if seed % 3 == 0:  # a query comes back
        column = np.append(column, rng.choice(column, int(rng.integers(1, 3))))
    rows = np.arange(len(column))
    edges = np.sort(rng.choice(np.arange(1, len(column) + 1), int(rng.integers(0, 4)), replace=True))
    parts = [p for p in np.split(rows, edges) if len(p)] + [rows[:0]]  # an empty batch too
    starts = run_starts(column)
    heads = column[starts].tolist()
    back = next((i for i, h in enumerate(heads) if h in heads[:i]), None)

    def runs(part: np.ndarray) -> tuple[list[int], np.ndarray]:
        s = run_starts(column[part])
        return column[part][s].tolist(), s

    got: list[tuple[list[int], list[int]]] = []
    try:
        for part, keys in whole_queries(parts, runs, lambda p, a, b: p[a:b], np.concatenate):
            got.append((part.tolist(), keys))
    except Regrouped as exc:
        assert back is not None and int(exc.rows[exc.row]) == int(starts[back]) and exc.key == heads[back]
    else:
        assert back is None
        assert [r for part, _ in got for r in part] == rows.tolist()
        assert [k for _, keys in got for k in keys] == heads
        assert all(sorted(set(column[part].tolist())) == sorted(keys) for part, keys in got)


@pytest.mark.parametrize("size", [1, 5, 64, 1 << 20])
def test_line_blocks_cut_after_line_ends(size: int, tmp_path: Path) -> None:
    """``io.chunks.line_blocks``: the file's text again, in blocks that each end a line (but the last, when the
    file does not), of about ``size`` bytes (a line longer than a block in one block), gzip or not."""
    from segeval.readers.blocks import line_blocks

    text = b"q1 0 d1 1\n\nq2 0 " + b"d" * 40 + b" 0\r\nq3 0 d3 2\nq4 0 d4 1"  # a long line, a blank one, no last LF
    for name, data in (("plain", text), ("run.gz", gzip.compress(text)), ("ends.txt", text + b"\n")):
        (tmp_path / name).write_bytes(data)
        blocks = list(line_blocks(str(tmp_path / name), size))
        whole = text + b"\n" if name == "ends.txt" else text
        assert b"".join(blocks) == whole and all(b.endswith(b"\n") for b in blocks[:-1]) and all(blocks)
        longest = max(len(line) + 1 for line in whole.split(b"\n"))
        assert all(len(b) <= size + longest for b in blocks) and len(blocks) >= min(len(whole) // (size + longest), 5)
