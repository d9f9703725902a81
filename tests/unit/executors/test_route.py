"""``segeval eval --route``: the route (reader + executor) named for every kind of input, and the numbers
unchanged by asking for it."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pandas as pd
import pytest

from segeval import Evaluator
from segeval.core.settings import EngineOptions, Job, Settings
from segeval.executors import route as R
from tests.conftest import FIXTURES, run_cli

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 1\nq2 0 d4 0\n"
RUN = "q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\nq2 Q0 d3 1 3.0 t\nq2 Q0 d4 2 1.0 t\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return str(tmp_path / "q"), str(tmp_path / "r")


def routed(*args: str) -> tuple[list[str], str]:
    """The route lines ``segeval eval --route ARGS`` writes on stderr, and its stdout."""
    code, out, err = run_cli("eval", "--route", *args)
    assert code == 0, err
    return [line for line in err.splitlines() if line.startswith("route: ")], out


def test_plain_trec_file(files: tuple[str, str]) -> None:
    lines, out = routed(*files)
    assert len(lines) == 1 and lines[0].startswith("route: scanner+whole (a plain TREC job; --memory auto: a file of")
    assert out == run_cli("eval", *files)[1]  # asking for the route changes nothing else


def test_gzip_file(files: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gz = tmp_path / "r.gz"
    gz.write_bytes(gzip.compress(RUN.encode()))
    lines, _ = routed(files[0], str(gz))
    assert lines[0].startswith("route: scanner+whole") and "a gzip file of" in lines[0]
    monkeypatch.setattr(R, "SCANNER_AUTO_BYTES", 4 * gz.stat().st_size)  # a gzip file counts four times its size
    lines, out = routed(files[0], str(gz))
    assert lines[0].startswith("route: scanner+chunks") and out == run_cli("eval", *files)[1]


def test_pipe(files: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    class Stdin(io.TextIOWrapper):
        pass

    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(RUN.encode())))
    lines, out = routed(files[0], "-")
    assert lines == ["route: scanner+chunks (a plain TREC job; --memory auto: a pipe or standard input, of unknown "
                     "size, read in chunks)"]
    assert out == run_cli("eval", *files)[1]


def sparse_run(path: Path, mib: float) -> str:
    """A sparse file of ``mib`` MiB on paper, its first lines a TREC run."""
    with open(path, "wb") as fh:
        fh.write(RUN.encode())
        fh.truncate(int(mib * 2**20))
    return str(path)


def test_a_200_mib_file(files: tuple[str, str], tmp_path: Path) -> None:
    big = sparse_run(tmp_path / "big.run", 200)
    got = R.route(files[0], [big], Job())
    assert got.name == "scanner+chunks" and "a file of 200.0 MiB (chunks from 2 MiB)" in got.reason
    assert not got.whole_if_ungrouped  # from 128 MiB an ungrouped run is read in chunks by the strict reader
    assert R.route(files[0], [big], Job(engine=EngineOptions("in-memory"))).name == "scanner+whole"


def test_the_scanner_reads_documents_in_chunks_from_2_mib(files: tuple[str, str], tmp_path: Path) -> None:
    """``--memory auto``: a plain TREC run the scanner takes is read in chunks from SCANNER_AUTO_BYTES (2 MiB),
    any other run from AUTO_BYTES (128 MiB); one below AUTO_BYTES that turns out not to be grouped by query is
    then read whole by the scanner (and by the strict reader, if the scanner gives up)."""
    assert R.SCANNER_AUTO_BYTES == 2 * 2**20 and R.AUTO_BYTES == 128 * 2**20
    just_below, at = sparse_run(tmp_path / "below.run", 2 - 2**-20), sparse_run(tmp_path / "at.run", 2)
    assert R.route(files[0], [just_below], Job()) == R.Route(
        "scanner", "whole", "a plain TREC job; --memory auto: a file of 2.0 MiB (chunks from 2 MiB)")
    got = R.route(files[0], [at], Job())
    assert got == R.Route("scanner", "chunks", "a plain TREC job; --memory auto: a file of 2.0 MiB (chunks from "
                                               "2 MiB); whole if not grouped by query", whole_if_ungrouped=True)
    assert got.fallback("why") == R.Route("table", "whole", "why")
    refused = R.route(files[0], [at], Job(settings=Settings(judged_only=True)))
    assert refused == R.Route("table", "whole", "-J; --memory auto: a file of 2.0 MiB (chunks from 128 MiB)")


def test_an_ungrouped_run_in_the_scanner_chunks(files: tuple[str, str], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run chunked from SCANNER_AUTO_BYTES but not grouped by query: the scanner reads it whole (no note, no
    strict reader), with the numbers of reading it whole; with ``--memory chunked``, the strict reader notes it."""
    ungrouped = tmp_path / "ungrouped"
    ungrouped.write_text("".join(RUN.splitlines(keepends=True)[i] for i in (0, 2, 1, 3)))  # q1 q2 q1 q2
    monkeypatch.setattr(R, "SCANNER_AUTO_BYTES", 10)
    code, out, err = run_cli("eval", "--route", "-q", files[0], str(ungrouped))
    assert code == 0 and err == ("route: scanner+chunks (a plain TREC job; --memory auto: a file of 0.0 MiB (chunks "
                                 "from 9.53674e-06 MiB); whole if not grouped by query)\n")
    assert out == run_cli("eval", "-q", "--memory", "in-memory", files[0], str(ungrouped))[1]
    code, same, err = run_cli("eval", "--route", "-q", "--memory", "chunked", files[0], str(ungrouped))
    assert same == out and "route: table+chunks (the scanner gave up" in err and "not grouped by query" in err


SEGMENTS = (str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run"))


def test_segment_run() -> None:
    lines, out = routed(*SEGMENTS, "-m", "map", "-q")
    assert lines == ["route: segments+whole (a MediaEval linking run (segments); --memory auto: a file of 0.1 MiB "
                     "(chunks from 128 MiB))"]
    chunked, same = routed(*SEGMENTS, "-m", "map", "-q", "--memory", "chunked", "--chunk-lines", "7")
    assert chunked == ["route: segments+chunks (a MediaEval linking run (segments); --memory chunked)"] and same == out
    refused, same = routed(*SEGMENTS, "-m", "map", "-q", "--order", "score", "--memory", "in-memory")
    assert refused == ["route: table+whole (a MediaEval linking run (segments): --order score; --memory in-memory)"]


def test_the_segment_scanner_gives_up(tmp_path: Path) -> None:
    """A run line the scanner does not take (an end before its start): the strict reader reads the same file
    and says what is wrong, with the same executor."""
    bad = tmp_path / "bad.run"
    bad.write_text(Path(SEGMENTS[1]).read_text() + "anchor_1 Q0 v1 3.00 2.00 151 0.1 synthetic\n")
    for memory, executor in (("auto", "whole"), ("chunked", "chunks")):
        code, _, err = run_cli("eval", "--route", "--memory", memory, SEGMENTS[0], str(bad))
        assert code == 2 and f"route: segments+{executor}" in err and "earlier than the start time" in err
        assert f"route: table+{executor} (the scanner gave up on the files; the strict reader reads them)" in err


def test_the_scanner_routes_need_no_pandas(files: tuple[str, str]) -> None:
    """``segments+whole``, ``segments+chunks`` (every adapter), ``scanner+whole``, ``scanner+chunks`` and ``segeval
    me13sh`` read, label and measure without importing pandas, nor NumPy's masked arrays (``numpy.ma``, about
    10 ms, which the plain form of ``np.unique`` imports: ``segeval.core.prepared.distinct`` instead)."""
    import json
    import subprocess
    import sys

    from tests.support.routes import ADAPTERS

    jobs = [["eval", "-a", a, "--memory", m, *SEGMENTS] for a in ADAPTERS for m in ("in-memory", "chunked")]
    jobs += [["eval", "--memory", m, *files] for m in ("in-memory", "chunked")]
    jobs += [["me13sh", str(FIXTURES / "gen_linking.qrels"), SEGMENTS[1]],
             ["me13sh", "--kind", "search", str(FIXTURES / "gen_search.qrels"), str(FIXTURES / "gen_search.run.gz")]]
    code = ("import json, sys\nfrom segeval.cli.run import main\n"
            "codes = [main(job) for job in json.loads(sys.argv[1])]\n"
            "print(codes, 'pandas' in sys.modules, 'numpy.ma' in sys.modules, file=sys.stderr)")
    got = subprocess.run([sys.executable, "-c", code, json.dumps(jobs)], capture_output=True, text=True, check=False)
    assert got.returncode == 0 and got.stderr.splitlines()[-1] == f"{[0] * len(jobs)} False False", got.stderr


def test_distinct_is_np_unique() -> None:
    import numpy as np

    from segeval.core.prepared import distinct

    rng = np.random.default_rng(3)
    for values in (rng.integers(-5, 5, 40), rng.integers(0, 3, 0), np.array([2.0, np.nan, -0.0, 0.0, np.nan, 1.5]),
                   np.array([b"b", b"a", b"b"]), [3, 1, 3]):
        want, got = np.unique(values), distinct(values)
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=want.dtype.kind == "f")


def test_options_the_scanner_does_not_take(files: tuple[str, str]) -> None:
    lines, _ = routed(*files, "-J", "-o", "json")
    assert lines[0].startswith("route: table+whole (-o json, -J;")


def test_the_scanner_gives_up(files: tuple[str, str], tmp_path: Path) -> None:
    (tmp_path / "dup").write_text(RUN + "q1 Q0 d2 3 0.5 t\n")  # a document twice: the strict reader says so
    code, _, err = run_cli("eval", "--route", files[0], str(tmp_path / "dup"))
    assert code == 2 and "route: scanner+whole" in err
    assert "route: table+whole (the scanner gave up on the files; the strict reader reads them)" in err


def test_two_runs_with_two_jobs(files: tuple[str, str], tmp_path: Path) -> None:
    (tmp_path / "r2").write_text(RUN)
    lines, _ = routed(files[0], files[1], str(tmp_path / "r2"), "-j", "2")
    assert lines == ["route: table+processes (2 runs, 2 worker processes; each worker reads a run whole or in chunks "
                     "by --memory auto)"]
    lines, _ = routed(files[0], files[1], str(tmp_path / "r2"), "-j", "1")
    assert lines == ["route: table+whole (2 runs, one process (-j 1))"]


def test_dask(files: tuple[str, str]) -> None:
    got = R.route(files[0], [files[1]], Job(engine=EngineOptions(engine="dask")))
    assert got.name == "table+dask" and got.reason == "--engine dask: 1 run in (run, query-partition) tasks"


def test_dask_leaves_runs_read_whole_to_processes(files: tuple[str, str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """QUESST's figures pool every trial of a run: the route and the engine that runs both refuse Dask's
    query partitions (it once said ``processes`` and ran Dask, whose partitions each took their own default
    score)."""
    (tmp_path / "r2").write_text(RUN)
    runs = [files[1], str(tmp_path / "r2")]
    job = Job(("actCnxe",), engine=EngineOptions(engine="dask", jobs=1))
    got = R.route(files[0], runs, job)
    assert got.name == "table+whole" and not R.on_dask(runs, job)
    assert R.on_dask(runs, Job(("map",), engine=EngineOptions(engine="dask", jobs=1)))

    def no_dask(*args: object) -> None:
        raise AssertionError("Dask ran")

    monkeypatch.setattr("segeval.executors.dask.map_runs_dask", no_dask)
    code, out, err = run_cli("eval", "--engine", "dask", "-j", "1", "-m", "actCnxe", files[0], *runs)
    assert code == 0 and out.count("actCnxe") == 2, err


def test_api(files: tuple[str, str]) -> None:
    ev = Evaluator(files[0], "map")
    assert ev.evaluate(files[1]).route == "table+whole"
    frame = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    assert ev.evaluate(frame).route == "frame+whole"
    assert Evaluator(files[0], "map", Settings(judged_only=True)).evaluate(frame).route == "frame+whole"
