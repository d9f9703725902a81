"""Property tests over generated qrels and runs (hypothesis, derandomized: fixed seeds)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import segeval
from tests.conftest import examples

SETTINGS = settings(derandomize=True, max_examples=examples(40), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BOUNDED = ["map", "P_1", "P_5", "P_10", "recall_5", "recall_10", "Rprec", "bpref", "recip_rank", "ndcg", "ndcg_cut_5",
           "map_cut_10", "success_5", "infAP", "set_P", "set_recall", "set_F", "rbp", "adr", "RankEff", "binG"]


def frames(qrels: list[tuple[str, str, int]], run: list[tuple[str, str, float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    q = pd.DataFrame({"query": [x[0] for x in qrels], "item": [x[1] for x in qrels], "start": np.nan, "end": np.nan,
                      "rel": np.array([x[2] for x in qrels], dtype=np.int64),
                      "line": np.arange(1, len(qrels) + 1, dtype=np.int64)})
    r = pd.DataFrame({"query": [x[0] for x in run], "item": [x[1] for x in run], "start": np.nan, "end": np.nan,
                      "jumpin": np.nan, "rank": np.arange(1, len(run) + 1, dtype=np.int64),
                      "score": np.array([x[2] for x in run], dtype=np.float64), "run": "r",
                      "line": np.arange(1, len(run) + 1, dtype=np.int64)})
    for df in (q, r):
        df["query"] = df["query"].astype(object)
        df["item"] = df["item"].astype(object)
    return q, r


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, float]]]:
    qrels, run = [], []
    for qi in range(draw(st.integers(1, 4))):
        docs = [f"d{i}" for i in range(12)]
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=8, unique=True)):
            qrels.append((f"q{qi}", d, draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3]))))
        for d in draw(st.lists(st.sampled_from(docs), max_size=10, unique=True)):
            run.append((f"q{qi}", d, draw(st.sampled_from([0.1, 0.2, 0.5, 0.5, 0.9, 1.3]))))
    if not run:
        run.append(("q0", "d0", 1.0))
    return qrels, run


def values(qrels: list[tuple[str, str, int]], run: list[tuple[str, str, float]], measures: list[str],
           **kw: object) -> segeval.core.pipeline.Evaluation:
    q, r = frames(qrels, run)
    return segeval.evaluate(q, r, measures, **kw)  # type: ignore[arg-type]


@SETTINGS
@given(cases())
def test_bounded_measures_stay_in_range(case: tuple[list, list]) -> None:  # type: ignore[type-arg]
    ev = values(*case, BOUNDED)
    for name, per_query in ev.per_query.items():
        assert all(0.0 <= v <= 1.0 + 1e-12 for v in per_query), name


@SETTINGS
@given(cases(), st.randoms(use_true_random=False))
def test_line_order_and_query_names_do_not_matter(case: tuple[list, list], rnd: object) -> None:  # type: ignore[type-arg]
    qrels, run = case
    base = values(qrels, run, ["map", "ndcg", "P_5", "bpref", "adr"]).frame()
    shuffled_q, shuffled_r = qrels[:], run[:]
    rnd.shuffle(shuffled_q)  # type: ignore[attr-defined]
    rnd.shuffle(shuffled_r)  # type: ignore[attr-defined]
    renamed = values([("x" + q, d, g) for q, d, g in shuffled_q], [("x" + q, d, s) for q, d, s in shuffled_r],
                     ["map", "ndcg", "P_5", "bpref", "adr"]).frame()
    renamed.index = [i[1:] for i in renamed.index]
    pd.testing.assert_frame_equal(base.sort_index(), renamed.sort_index(), check_names=False)


@SETTINGS
@given(cases())
def test_a_perfect_run_scores_one(case: tuple[list, list]) -> None:  # type: ignore[type-arg]
    qrels, _ = case
    perfect = []
    for q in sorted({x[0] for x in qrels}):
        relevant = sorted((x for x in qrels if x[0] == q and x[2] > 0), key=lambda x: -x[2])
        perfect += [(q, d, 100.0 - i) for i, (_, d, _) in enumerate(relevant)]
    if not perfect:
        return
    ev = values(qrels, perfect, ["Rprec", "map", "ndcg", "adr"])
    for name in ("Rprec", "map", "ndcg", "adr"):
        assert all(v == pytest.approx(1.0) for v in ev.per_query[name]), name


@SETTINGS
@given(cases(), st.integers(0, 12), st.sampled_from(["unjudged-a", "unjudged-b"]))
def test_an_unjudged_result_never_raises_precision(case: tuple[list, list], at: int, doc: str) -> None:  # type: ignore[type-arg]
    qrels, run = case
    q = run[0][0]
    ranked = sorted((x for x in run if x[0] == q), key=lambda x: (-x[2], x[1]))
    before = values(qrels, ranked, ["P_1", "P_5", "P_10"], order="file")
    extended = [*ranked[:at], (q, doc, 0.0), *ranked[at:]]
    after = values(qrels, extended, ["P_1", "P_5", "P_10"], order="file")
    for name in ("P_1", "P_5", "P_10"):
        i, j = before.queries.index(q) if q in before.queries else None, after.queries.index(q)
        if i is not None:
            assert after.per_query[name][j] <= before.per_query[name][i] + 1e-12


@SETTINGS
@given(cases())
def test_complete_equals_averaging_with_zeros(case: tuple[list, list]) -> None:  # type: ignore[type-arg]
    qrels, run = case
    plain = values(qrels, run, ["map", "P_5"])
    complete = values(qrels, run, ["map", "P_5"], missing_queries="zero")
    queries = sorted({x[0] for x in qrels})
    assert complete.queries == queries
    for name in ("map", "P_5"):
        got = dict(zip(plain.queries, plain.per_query[name], strict=True))
        expected = sum(got.get(q, 0.0) for q in queries) / len(queries)
        assert complete.summary[name] == pytest.approx(expected)


@st.composite
def segment_cases(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels, run = [], []
    for _ in range(draw(st.integers(1, 6))):
        s = draw(st.integers(0, 100))
        qrels.append(("q1", draw(st.sampled_from(["v1", "v2"])), s, s + draw(st.integers(0, 20)),
                      draw(st.sampled_from([0, 1]))))
    for _ in range(draw(st.integers(1, 10))):
        s = draw(st.integers(0, 110))
        run.append(("q1", draw(st.sampled_from(["v1", "v2"])), s, s + draw(st.integers(0, 20))))
    q = pd.DataFrame(qrels, columns=["query", "item", "start", "end", "rel"])
    q = q.drop_duplicates(["query", "item", "start", "end"]).reset_index(drop=True)  # one judgement per segment
    q["line"] = np.arange(1, len(q) + 1)
    r = pd.DataFrame(run, columns=["query", "item", "start", "end"])
    r["jumpin"], r["score"], r["run"] = np.nan, 0.0, "r"
    r["rank"] = np.arange(1, len(r) + 1)
    r["line"] = np.arange(1, len(r) + 1)
    for df in (q, r):
        df["start"] = df["start"].astype(np.float64)
        df["end"] = df["end"].astype(np.float64)
    return q, r


@SETTINGS
@given(segment_cases())
def test_overlap_once_never_scores_above_overlap(case: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    q, r = case
    if not (q["rel"] > 0).any():
        return
    once = segeval.evaluate(q, r, ["map", "P_5"], adapter="overlap-once")
    plain = segeval.evaluate(q, r, ["map", "P_5"], adapter="overlap")
    assert once.summary["map_once"] <= plain.summary["map"] + 1e-12
    assert once.summary["P_5_once"] <= plain.summary["P_5"] + 1e-12
    assert 0.0 <= once.summary["map_once"] <= 1.0  # credited once: MAP stays within [0, 1]


@SETTINGS
@given(segment_cases(), st.sampled_from(["overlap-once", "binned:10", "binned:10:start", "tolerance:5", "tiou:0.5"]))
def test_segment_measures_stay_in_range(case: tuple[pd.DataFrame, pd.DataFrame], adapter: str) -> None:
    # every adapter but plain overlap (the reference's, documented to exceed 1) keeps MAP and P within [0, 1]
    q, r = case
    ev = segeval.evaluate(q, r, ["map", "P_5", "ndcg", "adr"], adapter=adapter)
    for name, per_query in ev.per_query.items():
        assert all(0.0 <= v <= 1.0 + 1e-12 for v in per_query), (adapter, name)
