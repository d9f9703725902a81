"""The streaming lane (``--memory chunked``, and ``auto`` for big runs) against the in-memory lane and
the usual chunked path: every value, the printed bytes, the notes and the errors.

Batches are made tiny (``BATCH_BYTES`` 0, chunks of 1 to 5 lines), so the generated cases of
test_fastlane.py cross many batch edges: queries carried over several batches, blank lines alone
in a batch, CRLF.  A run not grouped by query, a malformed line in a late batch and a document
twice across a batch edge must leave the lane and give the usual path's output or error.
"""

from __future__ import annotations

import gzip
from functools import partial
from pathlib import Path

import pytest

from segeval.executors import lanes as streamlane
from segeval.executors.lanes import lane_values
from tests.conftest import run_cli, sliced
from tests.support.jobs import EvalCase
from tests.unit.executors.test_fastlane import JOBS, SEEDS, both_paths, files

stream_values = partial(lane_values, chunks=True)


@pytest.fixture(autouse=True)
def tiny_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    real = streamlane.batches  # batches of the chunk's lines, however few bytes
    monkeypatch.setattr(streamlane, "batches", lambda blocks, lines, _: real(blocks, lines, 0))


def grouped(run: str) -> bool:
    """Whether each query's lines are contiguous in the run text."""
    seen: list[str] = []
    for line in run.splitlines():
        if line.strip() and (not seen or seen[-1] != line.split()[0]):
            seen.append(line.split()[0])
    return len(seen) == len(set(seen))


#: ``segeval eval ARGS`` with the lanes, and with both switched off; and how often the streaming lane answered
lanes = partial(both_paths, chunks=True)


@pytest.mark.parametrize("chunk", [1, 4])
@pytest.mark.parametrize("job", sorted(JOBS))
@pytest.mark.parametrize("seed", sliced(SEEDS, 5))
def test_stream_values_equal_the_in_memory_lane(tmp_path: Path, seed: int, job: str, chunk: int) -> None:
    qrels, run = files(tmp_path, seed)
    lane_job = JOBS[job][0]
    got = stream_values(qrels, run, lane_job.job(chunk))
    if not grouped(Path(run).read_text()):
        assert got is None, "a run not grouped by query stays out of the streaming lane"
        return
    result = lane_values(qrels, run, lane_job.job())
    assert got is not None and result is not None and got.runid == result.runid
    got, whole = got.evaluation, result.evaluation
    assert got is not None and whole is not None
    assert got.queries == whole.queries and got.unevaluated == whole.unevaluated
    for r in whole.requests:  # exactly equal: the same doubles, the same ints, summed in the same order
        assert got.per_query[r.name] == whole.per_query[r.name], r.name
        assert type(got.summary[r.name]) is type(whole.summary[r.name]), r.name
        assert got.summary[r.name] == whole.summary[r.name], r.name


def test_generated_cases_include_grouped_and_not_grouped_runs(tmp_path: Path) -> None:
    kinds = [grouped(Path(files(tmp_path, seed)[1]).read_text()) for seed in SEEDS]
    assert kinds.count(True) >= 15 and kinds.count(False) >= 3


@pytest.mark.parametrize("job", sorted(JOBS))
@pytest.mark.parametrize("seed", sliced(SEEDS[:12], 2))
def test_printed_bytes_equal_the_usual_chunked_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
                                                    job: str) -> None:
    qrels, run = files(tmp_path, seed)
    lane, usual, answered = lanes(monkeypatch, *JOBS[job][2], "--memory", "chunked", "--chunk-lines", "2", qrels, run)
    assert answered == int(grouped(Path(run).read_text()))
    assert lane == usual


def test_values_across_batch_edges_by_hand(tmp_path: Path) -> None:
    """q1's three results come in three one-line batches, q2's two in two."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 1\nq2 0 c 1\nq2 0 d 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 b 3 1 r\nq2 Q0 d 1 2 r\nq2 Q0 c 2 1 r\n")
    result = stream_values(str(tmp_path / "qrels"), str(tmp_path / "run"), EvalCase(["map", "P.2", "num_ret"]).job(1))
    got = None if result is None else result.evaluation
    assert got is not None and got.queries == ["q1", "q2"]
    assert got.per_query["map"] == [(1 / 1 + 2 / 3) / 2, 1 / 2]  # q1: a at 1, b at 3; q2: c at 2 of 1 relevant
    assert got.per_query["P_2"] == [0.5, 0.5]  # one relevant in each query's first two
    assert got.per_query["num_ret"] == [3, 2]
    assert got.summary["map"] == ((1 / 1 + 2 / 3) / 2 + 1 / 2) / 2


UNUSUAL = {
    "not grouped by query": ("q1 0 a 1\nq2 0 b 1\n", "q1 Q0 a 1 2 r\nq2 Q0 b 1 2 r\nq1 Q0 c 2 1 r\n"),
    "a document twice across a batch edge": ("q1 0 a 1\n", "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 a 3 1 r\n"),
    "a malformed line in a late batch": ("q1 0 a 1\n", "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 a 3 r\n"),
    "a bad score in a late batch": ("q1 0 a 1\n", "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 a 3 x r\n"),
    "a judgement twice for a query the run lacks": ("q1 0 a 1\nq9 0 a 1\nq9 0 a 0\n", "q1 Q0 a 1 3 r\n"),
    "blank lines only": ("q1 0 a 1\n", "\n\n  \n"),
}


UNUSUAL_IN_PAIRS = {  # chunks of two lines: the blank line makes q1's first line a batch alone
    "a query coming back in the batch after it": ("q1 0 a 1\nq2 0 b 1\n",
                                                  "q1 Q0 a 1 3 r\n\nq2 Q0 b 1 2 r\nq1 Q0 c 2 1 r\n"),
}


@pytest.mark.parametrize("name", sorted(UNUSUAL) + sorted(UNUSUAL_IN_PAIRS))
def test_unusual_runs_leave_the_lane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    qrels, run = UNUSUAL[name] if name in UNUSUAL else UNUSUAL_IN_PAIRS[name]
    chunk = 1 if name in UNUSUAL else 2
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    assert stream_values(str(tmp_path / "qrels"), str(tmp_path / "run"), EvalCase(["official"]).job(chunk)) is None
    lane, usual, answered = lanes(monkeypatch, "--memory", "chunked", "--chunk-lines", str(chunk),
                                  str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert answered == 0 and lane == usual


@pytest.mark.parametrize("chunk", sliced([1, 2, 5, 1000], 2))
def test_a_long_query_across_many_batches(tmp_path: Path, chunk: int) -> None:
    """One query of 3,000 results read a few lines at a time, between two short ones: its rows are
    kept apart and joined once (not once per batch), and the values are the in-memory lane's."""
    qrels = "".join(f"q2 0 d{i} {i % 3}\n" for i in range(0, 3000, 7)) + "q1 0 d1 1\nq3 0 d5 1\n"
    run = ("q1 Q0 d1 1 9 r\n" + "".join(f"q2 Q0 d{i} {i + 1} {3000 - i // 2} r\n" for i in range(3000))
           + "q3 Q0 d5 1 1 r\nq3 Q0 d6 2 0 r\n")
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    job = EvalCase(["official", "ndcg_cut"]).job(chunk)
    streamed = stream_values(str(tmp_path / "qrels"), str(tmp_path / "run"), job)
    result = lane_values(str(tmp_path / "qrels"), str(tmp_path / "run"), job)
    got = None if streamed is None else streamed.evaluation
    whole = None if result is None else result.evaluation
    assert got is not None and whole is not None and got.queries == ["q1", "q2", "q3"]
    assert got.per_query == whole.per_query and got.summary == whole.summary


def test_not_grouped_run_gets_the_chunked_paths_note(tmp_path: Path) -> None:
    qrels, run = UNUSUAL["not grouped by query"]
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    code, out, err = run_cli("eval", "--memory", "chunked", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert code == 0 and "map" in out
    assert "is not grouped by query (query 'q1' appears again on line 3); reading it in memory" in err


def test_gzip_runs_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = files(tmp_path, 2)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(Path(run).read_bytes()))
    lane, usual, answered = lanes(monkeypatch, "-q", "--memory", "chunked", qrels, str(gz))
    assert answered == 1 and lane == usual and lane[0] == 0


def test_auto_streams_big_runs_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--memory auto`` reads a run in batches from AUTO_BYTES on, else whole; a pipe (unknown size) in
    batches unless --memory in-memory."""
    from segeval.executors import route

    _, run = files(tmp_path, 2)
    size = Path(run).stat().st_size
    monkeypatch.setattr(route, "AUTO_BYTES", size)
    assert route.read_in_chunks(run, "auto")[0]
    monkeypatch.setattr(route, "AUTO_BYTES", size + 1)
    assert not route.read_in_chunks(run, "auto")[0]
    assert not route.read_in_chunks(run, "in-memory")[0] and route.read_in_chunks(run, "chunked")[0]
    assert route.read_in_chunks("-", "chunked")[0] and route.read_in_chunks("-", "auto")[0]
    assert not route.read_in_chunks("-", "in-memory")[0]
