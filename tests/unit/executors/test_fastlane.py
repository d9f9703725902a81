"""The eval fast lane against the usual path: every per-query value, the printed bytes and the notes.

The cases are generated: docnos of different lengths with shared prefixes (and non-ASCII ones),
tied scores written as 1e-3, -0, .5, +2 ..., tabs, runs of blanks, CRLF, blank lines, queries
only in the run or only in the qrels, negative grades.  Each must go through the lane (checked)
and give what the usual path gives; duplicates and other unusual files must leave the lane and
give the usual path's error.  The stored trec_eval outputs of tests/fixtures/trec_boundary must
come out of the lane too.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from segeval.core.pipeline import evaluate
from segeval.executors import lanes as fastlane
from segeval.executors.lanes import lane_values
from segeval.measures.definitions import FAMILIES
from segeval.reports.trec import render
from tests.conftest import run_cli, sliced
from tests.support import trec_boundary as TB
from tests.support.jobs import EvalCase

SCORES = ["0", "-0", "+0", "0.0", ".5", "0.50", "+2", "2.", "1e-3", "0.001", "1E+01", "10", "-1.25", "-1.250e0", "3"]
STEMS = ["D", "DOC-", "DOC-1", "doc-", "FBIS3-", "dé", "d\u4e2d-", "LA0101-"]


def docno(rng: random.Random) -> str:
    return rng.choice(STEMS) + str(rng.randint(0, 40)) * rng.randint(0, 2)


def blank(rng: random.Random) -> str:
    return rng.choice([" ", " ", " ", "\t", "  ", " \t "])


def case(seed: int) -> tuple[str, str]:
    """(qrels, run) text of a generated case."""
    rng = random.Random(seed)
    queries = [f"{rng.choice(['q', 'Q', '', 'topic-'])}{i}" for i in rng.sample(range(1, 60), rng.randint(1, 9))]
    sides = len(queries) // 3  # up to a third of the queries only in the qrels, a third only in the run
    only_qrels, only_run = queries[: rng.randint(0, sides)], queries[len(queries) - rng.randint(0, sides):]
    qrels_lines, run_lines = [], []
    for qid in queries:
        docs = list(dict.fromkeys(docno(rng) for _ in range(rng.randint(1, 40))))
        if qid not in only_run:
            for d in rng.sample(docs, rng.randint(1, len(docs))):
                qrels_lines.append(f"{qid}{blank(rng)}0{blank(rng)}{d}{blank(rng)}{rng.choice([-1, 0, 0, 1, 1, 2, 3])}")
        if qid not in only_qrels:
            for i, d in enumerate(rng.sample(docs, rng.randint(1, len(docs)))):
                run_lines.append(f"{qid}{blank(rng)}Q0{blank(rng)}{d}{blank(rng)}{i + 1}{blank(rng)}"
                                 f"{rng.choice(SCORES)}{blank(rng)}tag{seed}")
    if rng.random() < 0.3:
        rng.shuffle(run_lines)  # not grouped by query
    texts = []
    for lines in (qrels_lines, run_lines):
        end = "\r\n" if rng.random() < 0.2 else "\n"
        if rng.random() < 0.2:
            lines.insert(rng.randint(0, len(lines)), rng.choice(["", "  ", "\t"]))
        texts.append(end.join(lines) + end * rng.randint(0, 3))
    return texts[0], texts[1]


#: every family the lane computes (those with a vectorised form), from the registry: a new one is covered
LANE_FAMILIES = [f.name for f in FAMILIES if f.batch is not None]
JOBS: dict[str, tuple[EvalCase, dict[str, Any], list[str]]] = {
    "official": (EvalCase(["official"], per_query=True, header=("runid", "num_q")), {}, ["-q"]),
    "params, -l 2": (EvalCase(["map", "P.1,3,7", "bpref", "recip_rank", "iprec_at_recall..05,.5", "Rprec", "gm_map",
                          "num_rel", "num_rel_ret", "ndcg_cut.1,3,10"], per_query=True, relevance_level=2),
                     {"relevance_level": 2},
                     ["-q", "-l", "2", "-m", "map", "-m", "P.1,3,7", "-m", "bpref", "-m", "recip_rank", "-m",
                      "iprec_at_recall..05,.5", "-m", "Rprec", "-m", "gm_map", "-m", "num_rel", "-m", "num_rel_ret",
                      "-m", "ndcg_cut.1,3,10"]),
    "-c": (EvalCase(["official", *LANE_FAMILIES], per_query=True, header=("runid", "num_q"), complete=True),
           {"missing_queries": "zero"}, ["-q", "-c", "-m", "official", *(w for m in LANE_FAMILIES for w in ("-m", m))]),
    "-M 3 -n -l 0": (EvalCase(["official"], summary=False, per_query=True, relevance_level=0, max_results=3),
                     {"max_results": 3, "relevance_level": 0}, ["-q", "-n", "-M", "3", "-l", "0"]),
}
SEEDS = range(30)


def files(tmp_path: Path, seed: int) -> tuple[str, str]:
    qrels, run = case(seed)
    (tmp_path / "qrels").write_bytes(qrels.encode())
    (tmp_path / "run").write_bytes(run.encode())
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def lane_output(qrels: str, run: str, case: EvalCase) -> str:
    """What ``segeval eval`` prints from the in-memory lane's result (which must be the lane's)."""
    result = lane_values(qrels, run, case.job())
    assert result is not None and result.evaluation is not None
    out = case.out()
    return render(result.evaluation, result.runid, per_query=out.per_query, summary=out.summary, header=out.header)


def both_paths(monkeypatch: pytest.MonkeyPatch, *args: str, chunks: bool = False) -> tuple[tuple[int, str, str],
                                                                                       tuple[int, str, str], int]:
    """``segeval eval ARGS`` with the lanes, and with the lanes switched off; and how often the lane (the run read
    whole, or in ``chunks``) answered."""
    answered = []
    real = fastlane.lane_values

    def spy(*a: Any) -> Any:
        got = real(*a)
        if a[4] == chunks:
            answered.append(got is not None)
        return got

    monkeypatch.setattr(fastlane, "lane_values", spy)
    lane = run_cli("eval", *args)
    monkeypatch.setattr(fastlane, "lane_values", lambda *a: None)
    usual = run_cli("eval", *args)
    monkeypatch.undo()
    return lane, usual, sum(answered)


@pytest.mark.parametrize("job", sorted(JOBS))
@pytest.mark.parametrize("seed", sliced(SEEDS, 2))
def test_lane_values_equal_the_usual_path(tmp_path: Path, seed: int, job: str) -> None:
    qrels, run = files(tmp_path, seed)
    lane_job, options, _ = JOBS[job]
    result = lane_values(qrels, run, lane_job.job())
    assert result is not None and result.evaluation is not None, "the lane gave the job up"
    got = result.evaluation
    ev = evaluate(qrels, run, list(lane_job.measures), **options)
    assert got.queries == ev.queries
    assert [r.name for r in got.requests] == [r.name for r in ev.requests]
    for r in ev.requests:  # exactly equal: the same doubles, the same ints
        assert got.per_query[r.name] == ev.per_query[r.name], r.name
        assert type(got.summary[r.name]) is type(ev.summary[r.name]) and got.summary[r.name] == ev.summary[r.name]
    assert got.unevaluated == ([] if lane_job.complete else ev.unevaluated)


@pytest.mark.parametrize("measure", LANE_FAMILIES)
def test_each_family_alone_equals_the_usual_path(tmp_path: Path, measure: str) -> None:
    """Each family the lane computes, asked alone (-m ndcg alone once printed 0.0000 where it was right
    beside ndcg_cut), on a few generated cases."""
    for seed in SEEDS[:4]:
        qrels, run = files(tmp_path, seed)
        result = lane_values(qrels, run, EvalCase([measure], per_query=True).job())
        assert result is not None and result.evaluation is not None, "the lane gave the job up"
        got = result.evaluation
        ev = evaluate(qrels, run, [measure])
        assert got.queries == ev.queries
        for r in ev.requests:
            assert got.per_query[r.name] == ev.per_query[r.name], (seed, r.name)
            assert got.summary[r.name] == ev.summary[r.name], (seed, r.name)


@pytest.mark.parametrize("job", sorted(JOBS))
@pytest.mark.parametrize("seed", sliced(SEEDS[:12], 2))
def test_printed_bytes_equal_the_usual_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
                                            job: str) -> None:
    qrels, run = files(tmp_path, seed)
    lane, usual, answered = both_paths(monkeypatch, *JOBS[job][2], qrels, run)
    assert answered == 1
    assert lane == usual


def test_generated_cases_reach_their_corners(tmp_path: Path) -> None:
    """The generator makes what the lane must handle: ties, -0, exponents, CRLF, tabs, blank lines,
    non-ASCII docnos, queries on one side only, unjudged and negative grades."""
    text = "".join("".join(case(seed)) for seed in SEEDS)
    for needle in ("\r\n", "\t", "\n\n", " -0 ", "e-3", "E+01", " .5", " +2", "dé", " -1"):
        assert needle in text or needle.strip() in text, needle
    only = 0
    for seed in SEEDS:
        qrels, run = case(seed)
        qq = {line.split()[0] for line in qrels.splitlines() if line.strip()}
        rq = {line.split()[0] for line in run.splitlines() if line.strip()}
        only += bool(qq - rq) + bool(rq - qq)
    assert only >= 10


UNUSUAL = {
    "a document twice in a query": ("q1 0 a 1\n", "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq1 Q0 a 3 0 r\n"),
    "a document twice in a query the qrels lack": ("q1 0 a 1\n", "q1 Q0 a 1 2 r\nq9 Q0 b 1 2 r\nq9 Q0 b 2 1 r\n"),
    "a judgement twice": ("q1 0 a 1\nq1 0 b 0\nq1 0 a 0\n", "q1 Q0 a 1 2 r\n"),
    "a bad score": ("q1 0 a 1\n", "q1 Q0 a 1 2 r\nq1 Q0 b 2 x r\n"),
    "a bad grade": ("q1 0 a 1\nq1 0 b one\n", "q1 Q0 a 1 2 r\n"),
    "a lone CR": ("q1 0 a 1\n", "q1 Q0 a 1 2 r\rq1 Q0 b 2 1 r\n"),
    "segments": ("q1 Q0 v 1.00 2.00 1\n", "q1 Q0 v 1.00 2.00 1 0.5 r\n"),
    "ground-truth groups": ("q1 a,b | c\n", "q1 Q0 a 1 2 r\n"),
    "completed qrels": ("q1 0 a 1 human\n", "q1 Q0 a 1 2 r\n"),
    "extra run fields": ("q1 0 a 1\n", "q1 Q0 a 1 2 r extra\n"),
    "empty run": ("q1 0 a 1\n", "\n\n"),
}


@pytest.mark.parametrize("name", sorted(UNUSUAL))
def test_unusual_files_leave_the_lane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    qrels, run = UNUSUAL[name]
    (tmp_path / "qrels").write_text(qrels, newline="")
    (tmp_path / "run").write_text(run, newline="")
    assert lane_values(str(tmp_path / "qrels"), str(tmp_path / "run"), EvalCase(["official"]).job()) is None
    lane, usual, answered = both_paths(monkeypatch, str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert answered == 0 and lane == usual


def test_unusual_jobs_leave_the_lane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Options the lane does not take, and measures it does not batch, go the usual way."""
    qrels, run = files(tmp_path, 3)
    for args in (["-J"], ["-m", "ndcg_rel"], ["-m", "all_trec"], ["-o", "json"], ["--trec-eval", "9"], ["-M", "0"],
                 ["--order", "file"], ["--memory", "chunked"], ["-m", "nosuch"], ["-a", "overlap"]):
        lane, usual, answered = both_paths(monkeypatch, *args, qrels, run)
        assert answered == 0 and lane == usual, args


def test_a_duplicate_gives_todays_error(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2 r\nq1 Q0 a 2 1 r\n")
    code, out, err = run_cli("eval", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert code == 2 and out == ""
    assert "line 2" in err and "'a'" in err


@pytest.mark.parametrize("command", sorted(TB.COMMANDS))
@pytest.mark.parametrize("seed", sliced(TB.SEEDS, 2))
def test_trec_eval_boundary_outputs_through_the_lane(tmp_path: Path, seed: int, command: str) -> None:
    """trec_eval's stored outputs of the boundary cases, the lines of the measures the lane computes."""
    c = TB.generate(seed)
    (tmp_path / "qrels").write_text(c.qrels)
    (tmp_path / "run").write_text(c.run)
    measures = (["official", "ndcg_cut"] if command == "all_trec"
                else ["P.32,160", "iprec_at_recall..05,.15,.25,.33,.5", "ndcg_cut.32"])
    case = EvalCase(measures, per_query=True)
    got = lane_output(str(tmp_path / "qrels"), str(tmp_path / "run"), case)
    names = {line.split("\t")[0] for line in got.splitlines()}
    expected = [line for line in TB.stored_output(seed, command).splitlines(keepends=True)
                if line.split("\t")[0] in names]
    assert got == "".join(expected) and len(expected) >= 20


@pytest.mark.parametrize("flags", [[], ["-c"], ["-q", "-m", "ndcg_cut.5"]])
def test_no_common_query_goes_through_the_lane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                flags: list[str]) -> None:
    # no query in both files: zero queries averaged (all 0), and the note on the qrels queries
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 0\n")
    (tmp_path / "run").write_text("q3 Q0 a 1 2 r\n")
    lane, usual, answered = both_paths(monkeypatch, *flags, str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert answered == 1 and lane == usual and lane[0] == 0


TREC_EVAL_SUITE = {  # trec_eval's own test outputs (../shared/data/trec_eval, CI): expected file, lane job, files
    "out.test": (EvalCase(["official"], header=("runid", "num_q")), "qrels.test"),
    "out.test.aq": (EvalCase(["official", "ndcg_cut"], per_query=True), "qrels.test"),
    "out.test.aql": (EvalCase(["official", "ndcg_cut"], per_query=True, relevance_level=2), "qrels.rel_level"),
}


@pytest.mark.parametrize("expected", sorted(TREC_EVAL_SUITE))
def test_trec_eval_suite_through_the_lane(expected: str) -> None:
    """trec_eval's test-suite outputs, the lines of the measures the lane computes (runid and num_q
    only where asked)."""
    from tests.conftest import shared

    case, qrels = TREC_EVAL_SUITE[expected]
    got = lane_output(str(shared("trec_eval", qrels)), str(shared("trec_eval", "results.test")), case)
    names = {line.split("\t")[0] for line in got.splitlines()}
    lines = [line for line in shared("trec_eval", expected).read_text().splitlines(keepends=True)
             if line.split("\t")[0] in names]
    assert got == "".join(lines) and len(lines) > 25


@pytest.mark.parametrize("flags", [["-m", "num_q"], ["-m", "runid", "-m", "P.2"], ["-n"]])
def test_header_only_jobs_equal_the_usual_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               flags: list[str]) -> None:
    qrels, run = files(tmp_path, 5)
    lane, usual, answered = both_paths(monkeypatch, *flags, qrels, run)
    assert answered == 1 and lane == usual


def test_doc_keys_order_as_the_docnos() -> None:
    """``lanebatch.doc_keys``: the keys of both files' docnos compare as the docnos' bytes do (strcmp), equal
    exactly when the docnos are, whichever side is wider or empty, packed or coded (more than 8 bytes vary)."""
    import random

    import numpy as np

    from segeval.readers.scanner_documents import doc_keys

    def words(tokens: list[bytes], k: int) -> np.ndarray:  # the scanner's layout: zero-padded little-endian words
        out = np.zeros((len(tokens), 8 * k), dtype=np.uint8)
        for i, t in enumerate(tokens):
            out[i, : len(t)] = list(t)
        return out.view("<u8").reshape(len(tokens), k)

    rng = random.Random(5)
    for _ in range(300):
        alphabet = rng.choice([b"ab", b"az09-", bytes(range(33, 127))])

        def token(alphabet: bytes = alphabet) -> bytes:
            return rng.choice([b"", b"doc-"]) + bytes(rng.choices(alphabet, k=rng.randint(1, rng.choice([3, 9, 30]))))
        run = [token() for _ in range(rng.randint(0, 12))]
        qrels = [token() for _ in range(rng.randint(1, 12))] + run[: rng.randint(0, 3)]
        width = [max([1, *(-(-len(t) // 8) for t in side)]) for side in (run, qrels)]
        keys = np.concatenate(doc_keys(words(run, width[0]), words(qrels, width[1])))
        tokens = run + qrels
        assert [[a < b for b in tokens] for a in tokens] == [[x < y for y in keys] for x in keys]
        assert [[a == b for b in tokens] for a in tokens] == [[x == y for y in keys] for x in keys]
