"""ndeval's diversity measures over subtopic qrels (issue 24): hand-derived values, the qrels reader keeping the
subtopic column only when asked, the refusals, and a differential test against pyndeval (through ir_measures,
and directly for judged_only, which ir_measures 0.4.3 fails on) on generated graded subtopic qrels with ties
and unjudged results."""

from __future__ import annotations

import math
import os
import random
from pathlib import Path

import pandas as pd
import pytest

import segeval
from segeval.core.errors import ParameterError
from segeval.measures.definitions import REGISTRY, measure
from tests.conftest import run_cli
from tests.support.reference import require_module

FULL = os.environ.get("SEGEVAL_FULL") == "1"

#: q1's subtopics a and b have relevant documents, c none (so 2 subtopics count): d1 is relevant to a and b, d2
#: to a, d4 to b (not retrieved), d3 judged non-relevant; the run ranks d2, d9 (unjudged), d1.  q2 has no
#: relevant subtopic.
QRELS = [("q1", "a", "d1", 1), ("q1", "b", "d1", 1), ("q1", "a", "d2", 1), ("q1", "b", "d3", 0), ("q1", "c", "d3", 0),
         ("q1", "b", "d4", 1), ("q2", "a", "x", 0)]
RUN = [("q1", "d2", 3.0), ("q1", "d9", 2.0), ("q1", "d1", 1.0), ("q2", "x", 1.0), ("q2", "y", 0.5)]
# The run's novelty gains (alpha = 0.5): d2 covers a (1), d9 nothing, d1 covers a again (0.5) and b (1): 1, 0, 1.5.
# The greedy ideal: d1 (a + b = 2), then d2 and d4 tie at 0.5 (d4, the larger docno, first), then d2: 2, 0.5, 0.5.
# The ideal ideal (every subtopic at every rank): 2, 1, 0.5.
LOG3 = math.log2(3)
HAND = {
    "ERR_IA@1": 1.0,  # not normalised at rank 1 (as ndeval): d2's gain
    "ERR_IA@3": (1 + 0 + 1.5 / 3) / (2 + 1 / 2 + 0.5 / 3),  # 1.5 over the ideal ideal 8/3 = 9/16
    "nERR_IA@3": (9 / 16) / ((2 + 0.5 / 2 + 0.5 / 3) / (8 / 3)),  # over the ideal's 29/12 / (8/3) = 18/29
    "alpha_DCG@3": (1 + 1.5 / 2) / (2 + 1 / LOG3 + 0.5 / 2),  # discounts 1, 1/log2 3, 1/2
    "alpha_nDCG@3": (1 + 1.5 / 2) / (2 + 0.5 / LOG3 + 0.5 / 2),
    "alpha_nDCG@1": 1 / 2,  # d2's 1 over d1's 2
    "NRBP": (1 + 0 + 1.5 / 4) * (1 - 0.5 * 0.5) / 2,  # gains times 0.5^(rank-1), times (1 - (1 - a) b) / 2
    "nNRBP": (1 + 1.5 / 4) / (2 + 0.5 / 2 + 0.5 / 4),  # 11/19
    "NRBP(alpha=0,beta=1)": 0.0,  # (1 - (1 - 0) * 1) = 0
    "AP_IA": (((1 / 1 + 2 / 3) / 2) + (1 / 3) / 2) / 2,  # a: d2@1, d1@3 of 2; b: d1@3 of 2 (d4 missed)
    "P_IA@3": 3 / (3 * 2),  # (d2, a), (d1, a), (d1, b)
    "P_IA@5": 3 / (5 * 2),  # beyond the ranking: still over 5
    "StRecall@1": 1 / 2, "StRecall@3": 1.0,
    "P_IA(rel=2)@3": 0.0,  # no grade reaches 2
    "ERR_IA(judged_only=True)@2": (1 + 1.5 / 2) / (2 + 1 / 2),  # d9 dropped: d2, d1
    "alpha_nDCG@30": (1 + 1.5 / 2) / (2 + 0.5 / LOG3 + 0.5 / 2),  # beyond ndeval's depth 20: the same rule
}


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    return (pd.DataFrame(QRELS, columns=["query_id", "iteration", "doc_id", "relevance"]),
            pd.DataFrame(RUN, columns=["query_id", "doc_id", "score"]))


@pytest.mark.parametrize(("name", "expected"), HAND.items())
def test_hand_derived(name: str, expected: float) -> None:
    ev = segeval.evaluate(*_frames(), measures=[name])
    (key,) = ev.per_query
    assert ev.per_query[key][0] == pytest.approx(expected, rel=1e-15, abs=1e-15), name


@pytest.mark.parametrize(("name", "canonical"), [
    ("ERR_IA@20", "err_ia_20"), ("nERR_IA@5", "nerr_ia_5"), ("alpha_DCG@10", "alpha_dcg_k=10"),
    ("alpha_nDCG(alpha=0.3)@10", "alpha_ndcg_k=10,alpha=0.3"), ("α_nDCG@20", "alpha_ndcg_k=20"),
    ("NRBP(beta=0.8)", "nrbp_beta=0.8"), ("nNRBP(alpha=0.3,beta=0.8)", "nnrbp_alpha=0.3,beta=0.8"),
    ("AP_IA", "map_ia"), ("MAP_IA", "map_ia"), ("P_IA(rel=2)@10", "P_ia_10(rel=2)"), ("StRecall@20", "strec_20"),
    ("alpha_ndcg.alpha=0.3,k=10", "alpha_ndcg_k=10,alpha=0.3"),  # trec_eval's syntax, keys in any order
])
def test_names(name: str, canonical: str) -> None:
    assert [m.name for m in REGISTRY.expand(name)] == [canonical]


def test_a_family_alone_is_ndevals_cutoffs() -> None:
    assert [m.name for m in REGISTRY.expand("ERR_IA")] == ["err_ia_5", "err_ia_10", "err_ia_20"]
    assert [m.name for m in REGISTRY.expand("alpha_nDCG")] == ["alpha_ndcg"]  # k = 20 (ndeval's depth)
    ev = segeval.evaluate(*_frames(), measures=["alpha_nDCG", "alpha_nDCG@20"])
    assert ev.summary["alpha_ndcg"] == ev.summary["alpha_ndcg_k=20"]


def test_no_relevant_subtopic() -> None:
    """q2 has no relevant subtopic: every measure 0, nNRBP NaN (ndeval's 0/0), and the mean NaN with it."""
    ev = segeval.evaluate(*_frames(), measures=["nNRBP", "alpha_nDCG@5", "AP_IA"])
    assert [ev.per_query[k][1] for k in ("alpha_ndcg_k=5", "map_ia")] == [0.0, 0.0]
    assert math.isnan(ev.per_query["nnrbp"][1]) and math.isnan(ev.summary["nnrbp"])


def test_plain_qrels_are_one_subtopic() -> None:
    """Without a subtopic column every line is subtopic 0 (as ir_measures gives pyndeval such qrels): P_IA is
    precision and StRecall is success."""
    qrels, run = _frames()
    plain = qrels.drop(columns="iteration").drop_duplicates(["query_id", "doc_id"])  # d1 (a), d2, d3, d4, x
    ev = segeval.evaluate(plain, run, measures=["P_IA@3", "StRecall@1"])
    assert ev.per_query["P_ia_3"][0] == pytest.approx(2 / 3) and ev.per_query["strec_1"][0] == 1.0


def _write(tmp_path: Path, qrels: list[tuple[str, str, str, int]],
           run: list[tuple[str, str, float]]) -> tuple[str, str]:
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("".join(f"{a} {b} {c} {d}\n" for a, b, c, d in qrels))
    r.write_text("".join(f"{a} Q0 {b} {i + 1} {s} tag\n" for i, (a, b, s) in enumerate(run)))
    return str(q), str(r)


def test_cli_reads_the_subtopic_column(tmp_path: Path) -> None:
    q, r = _write(tmp_path, QRELS, RUN)
    code, out, err = run_cli("eval", q, r, "-m", "alpha_nDCG@3", "-m", "NRBP", "-m", "nERR_IA@3")
    assert code == 0, err
    values = {line.split()[0]: line.split()[-1] for line in out.splitlines()}
    assert values["alpha_ndcg_k=3"] == f"{HAND['alpha_nDCG@3'] / 2:.4f}"  # q2 scores 0
    assert values["nerr_ia_3"] == f"{18 / 29 / 2:.4f}" and values["nrbp"] == f"{HAND['NRBP'] / 2:.4f}"


def test_subtopic_qrels_refusals(tmp_path: Path) -> None:
    """A subtopic judged twice names both lines; other measures are refused beside the diversity ones (and a
    document judged once per subtopic is judged twice for them); segment runs are refused."""
    q, r = _write(tmp_path, [*QRELS, ("q1", "a", "d1", 0)], RUN)
    code, _, err = run_cli("eval", q, r, "-m", "alpha_nDCG@3")
    assert code == 2 and "line 8" in err and "subtopic 'a', document 'd1' is judged again" in err and "line 1" in err
    q, r = _write(tmp_path, QRELS, RUN)
    code, _, err = run_cli("eval", q, r, "-m", "alpha_nDCG@3", "-m", "map")
    assert code == 2 and "without other measures" in err and "map" in err
    code, _, err = run_cli("eval", q, r, "-m", "map")
    assert code == 2 and "judged again" in err  # read as plain qrels: d1 twice
    seg_q, seg_r = tmp_path / "sq", tmp_path / "sr"
    seg_q.write_text("v1 Q0 a 0.00 1.00 1\n")
    seg_r.write_text("v1 Q0 a 0.00 1.00 1 1.0 run\n")
    code, _, err = run_cli("eval", str(seg_q), str(seg_r), "-m", "ERR_IA@5")
    assert code == 2 and "a segment has no subtopic label" in err
    with pytest.raises(ParameterError, match=r"Got alpha=0\.3"):
        segeval.evaluate(*_frames(), measures=["ERR_IA(alpha=0.3)@5"])
    with pytest.raises(ParameterError, match=r"'alpha_ndcg\.k' parameter must be an integer in \[1, 100000\]"):
        segeval.evaluate(*_frames(), measures=["alpha_ndcg.k=2.5"])


# ---- against pyndeval ------------------------------------------------------------------------------------------

def generated(seed: int, n_q: int, shuffled: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Subtopic qrels (1 to 6 subtopics, grades -1..3, every fourth query without a relevant line; sorted by query,
    subtopic number and docno as NIST's, or ``shuffled`` with named subtopics) and runs with tied scores and
    unjudged documents."""
    rng = random.Random(seed)
    q: list[tuple[str, str, str, int]] = []
    r: list[tuple[str, str, float]] = []
    names = ["s3", "s1", "s10", "s2", "x", "é"] if shuffled else [str(n) for n in range(1, 7)]
    for qi in range(n_q):
        qid, docs = str(301 + qi), [f"d{j:02d}" for j in range(30)]
        topics = rng.sample(names, rng.randint(1, 6))
        grades = [0, 0, 1, 1, 2, 3, -1] if qi % 4 else [0, -1]
        for d in rng.sample(docs, 20):
            q += [(qid, t, d, rng.choice(grades)) for t in rng.sample(topics, rng.randint(1, len(topics)))]
        r += [(qid, d, float(rng.randint(0, 6))) for d in rng.sample(docs, rng.randint(1, 25))]
    if shuffled:
        rng.shuffle(q)
    else:
        q.sort(key=lambda line: (line[0], int(line[1]), line[2]))
    return (pd.DataFrame(q, columns=["query_id", "iteration", "doc_id", "relevance"]),
            pd.DataFrame(r, columns=["query_id", "doc_id", "score"]))


def untied(run: pd.DataFrame) -> pd.DataFrame:
    """trec_eval's order (score, then docno descending) in distinct scores: pyndeval breaks ties by docno
    ascending."""
    run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    return run.assign(score=[float(len(run) - i) for i in range(len(run))])


CUTOFFS = (1, 2, 3, 5, 10, 20)
NAMES = [
    *(f"{m}@{k}" for k in CUTOFFS for m in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "P_IA", "StRecall",
                                            "α_nDCG", "alpha_nDCG(alpha=0.3)", "alpha_DCG(alpha=0.8)",
                                            "nERR_IA(rel=2)", "alpha_nDCG(rel=2)", "P_IA(rel=3)")),
    "NRBP", "nNRBP", "NRBP(alpha=0.3,beta=0.8)", "nNRBP(alpha=0.2,beta=0.9)", "nNRBP(rel=2)", "AP_IA", "MAP_IA",
    "AP_IA(rel=2)", "NRBP(beta=0.99)"]


def _ours(names: list[str], qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, dict[str, float]]:
    ev = segeval.evaluate(qrels, run, measures=names)
    return {req.name: dict(zip(ev.queries, ev.per_query[req.name], strict=True)) for req in ev.requests}


def _differences(ours: dict[str, float], theirs: dict[str, float]) -> float:
    assert set(theirs) == set(ours)
    worst = 0.0
    for query, value in theirs.items():
        if math.isnan(value) or math.isnan(ours[query]):
            assert math.isnan(value) and math.isnan(ours[query]), query
            continue
        worst = max(worst, abs(ours[query] - value))
    return worst


@pytest.mark.parametrize("shuffled", [False, True], ids=["nist-order", "shuffled"])
def test_every_ir_measures_variant_equals_pyndeval(shuffled: bool) -> None:
    """Bit for bit, on qrels in NIST's order and on shuffled lines with named subtopics (both number subtopics by
    their first line over the whole qrels: numbered otherwise, nNRBP(alpha=0.2,beta=0.9) differed by 2e-4 here,
    a near tie in the greedy ideal ranking broken the other way)."""
    ir_measures = require_module("ir_measures")
    require_module("pyndeval")
    qrels, run = generated(1 + shuffled, 8 if not FULL else 80, shuffled)
    run = untied(run)
    ours = _ours(NAMES, qrels, run)
    largest, compared = 0.0, 0
    for name in NAMES:
        m = ir_measures.parse_measure(name)
        theirs = {x.query_id: float(x.value) for x in ir_measures.iter_calc([m], qrels, run)}  # one at a time:
        diff = _differences(ours[measure(name).name], theirs)  # ir_measures 0.4.3 feeds a second call nothing
        assert diff == 0.0, (name, diff)
        largest, compared = max(largest, diff), compared + len(theirs)
    print(f"diversity ({'shuffled' if shuffled else 'NIST order'}): {len(NAMES)} ir_measures names, {compared} "
          f"values compared with pyndeval's; largest difference {largest:.3g}")


def test_judged_only_equals_pyndeval_on_the_judged_results() -> None:
    """ir_measures 0.4.3 fails on judged_only=True (its filter indexes a generator): pyndeval is given the
    results with a qrels line, as that filter means to.  segeval drops the results the exact adapter leaves
    unjudged: those without a line, or whose every line has a negative grade (none here)."""
    pyndeval = require_module("pyndeval")
    qrels, run = generated(2, 12 if not FULL else 60)
    qrels = qrels[qrels["relevance"] >= 0]
    run = untied(run)
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    kept = run[[(q, d) in judged for q, d in zip(run["query_id"], run["doc_id"], strict=True)]]
    theirs = pyndeval.RelevanceEvaluator(list(qrels.itertuples(index=False, name=None)),
                                         ["ERR-IA@10", "alpha-nDCG@5", "P-IA@20", "MAP-IA", "nERR-IA@3"])
    values = theirs.evaluate(list(kept.itertuples(index=False, name=None)))
    names = {"ERR_IA(judged_only=True)@10": "ERR-IA@10", "alpha_nDCG(judged_only=True)@5": "alpha-nDCG@5",
             "P_IA(judged_only=True)@20": "P-IA@20", "AP_IA(judged_only=True)": "MAP-IA",
             "nERR_IA(judged_only=True)@3": "nERR-IA@3"}
    ev = segeval.evaluate(qrels, run, measures=list(names))
    for req, pynd in zip(ev.requests, names.values(), strict=True):
        ours = dict(zip(ev.queries, ev.per_query[req.name], strict=True))
        assert _differences({q: ours[q] for q in values}, {q: v[pynd] for q, v in values.items()}) == 0.0, pynd


def test_subtopic_column_only_when_asked(tmp_path: Path) -> None:
    """The qrels reader keeps the second field only for the diversity measures: other measures read the same
    frame and bytes as before."""
    from segeval.readers.tables import read_qrels

    q, _ = _write(tmp_path, [("q1", "0", "d1", 1), ("q1", "0", "d2", 0)], RUN[:1])
    plain, kept = read_qrels(q), read_qrels(q, subtopics=True)
    assert "subtopic" not in plain.columns and list(kept["subtopic"]) == ["0", "0"]
    pd.testing.assert_frame_equal(plain, kept.drop(columns="subtopic"))


def test_work_grows_with_the_judgements_not_documents_times_subtopics() -> None:
    """One query, 6000 judged documents over 3000 subtopics (one or two each; issue 36's 30k x 3k case scaled
    down): every diversity measure's peak memory stays far below one float per document and subtopic (144 MB
    here; the 30k x 3k case measured by hand: alpha_ndcg in 2.7 s and 116 MB for the whole command)."""
    import tracemalloc

    rng = random.Random(36)
    qrels = [("q", str(t), f"d{d}", rng.choice((0, 1, 2))) for d in range(6000)
             for t in rng.sample(range(3000), 1 + d % 2)]
    run = [("q", f"d{d}", float(-i)) for i, d in enumerate(rng.sample(range(6000), 6000))]
    frames = (pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"]),
              pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))
    tracemalloc.start()
    try:
        ev = segeval.evaluate(*frames, measures=["alpha_nDCG@20", "nERR_IA@20", "nNRBP", "AP_IA", "P_IA@20"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 0 < ev.summary["alpha_ndcg_k=20"] <= 1 and peak < 6000 * 3000 * 8 / 8, peak
