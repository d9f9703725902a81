"""The frame reader (segeval/readers/from_frames.py: runs in memory coded to the prepared form) gives the table
reader's Evaluation exactly, on generated runs with tied scores, non-ASCII docnos, documents and queries on one
side only; input outside it or not clean is read as a table (and worded by its error messages)."""

from __future__ import annotations

import math
import random
from typing import Any

import pandas as pd
import pytest

import segeval.core.ordering as ordering
from segeval import Evaluator, Settings
from segeval.core.errors import SegevalError
from segeval.core.pipeline import Evaluation, evaluate_part, finish
from segeval.readers.frames import load_run
from segeval.readers.from_frames import CodedQrels, frame_prepared
from segeval.readers.validate import validate_run
from tests.conftest import sliced

MEASURES = ["map", "P_1", "P_5", "P_10", "ndcg", "ndcg_cut_5", "ndcg_cut_10", "bpref", "recip_rank", "Rprec",
            "num_rel", "num_ret", "num_rel_ret", "recall_5", "success_1", "iprec_at_recall_0.50", "gm_map"]
# code-point order differs from a naive or locale order here: 'Z' < 'a' < 'é' (U+E9) < 'ā' (U+101) < 'ｚ'
# (U+FF5A) < '😀' (U+1F600); 'e\u0301' (e + combining accent) is another id than 'é'
NAMES = ["d", "Z", "a", "é", "e\u0301", "ā", "ß", "ｚ", "😀", "文書", "\ufffd", "dx"]
SETTINGS = [Settings(), Settings(relevance_level=2), Settings(missing_queries="zero"), Settings(max_results=4),
            Settings(trec_eval="9"), Settings(queries=("q1", "q2", "é"))]


def generated(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) frames: ties among few distinct scores (-0.0 and 0.0 too), non-ASCII ids, run
    documents no qrels line judges, queries in only one of the two."""
    rng = random.Random(seed)
    docs = [f"{rng.choice(NAMES)}{i}" if rng.random() < 0.5 else rng.choice(NAMES) + str(i % 3)
            for i in range(40)]
    docs = list(dict.fromkeys(docs))
    qrels_rows, run_rows = [], []
    queries = ["q1", "q2", "q10", "é", "Q3", "q4"]
    for n, qid in enumerate(queries):
        if n != 5:  # q4 has no qrels
            for d in rng.sample(docs, k=rng.randint(1, 12)):
                qrels_rows.append((qid, d, rng.choice([-1, 0, 0, 1, 1, 2, 3])))
        if n != 4:  # Q3 has no run
            scores = [0.0, -0.0, 1.0, 2.5, 1e-300] if rng.random() < 0.5 else None
            for d in rng.sample(docs, k=rng.randint(1, 25)):
                run_rows.append((qid, d, rng.choice(scores) if scores else round(rng.uniform(-2, 2), 1)))
    rng.shuffle(run_rows)
    if not qrels_rows:
        qrels_rows.append(("q1", docs[0], 1))
    return (pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]))


def general(ev: Evaluator, run: object) -> Evaluation:
    """The Evaluation the general path (load, validate, prepare, adapt, compute) gives."""
    r = validate_run(load_run(run))
    how = ev.plan(True)
    return finish(ev.qrels, how, *evaluate_part(ev.qrels, r, how, how.settings.queries))


def as_dicts(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for qid, doc, value in frame.itertuples(index=False):
        out.setdefault(qid, {})[doc] = value
    return out


def same(a: Evaluation, b: Evaluation) -> None:
    assert a.queries == b.queries
    assert a.unevaluated == b.unevaluated and a.notes == b.notes
    for name in b.per_query:
        assert [type(x) for x in a.per_query[name]] == [type(x) for x in b.per_query[name]], name
        assert a.per_query[name] == b.per_query[name], name  # exact
        x, y = a.summary[name], b.summary[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name


def coded(ev: Evaluator, run: object, settings: Settings | None = None) -> bool:
    """Whether the frame reader codes the run (else it is read as a table)."""
    return frame_prepared(CodedQrels.of(ev.qrels), run, settings or ev.settings) is not None


@pytest.mark.parametrize("path", ["sorted whole", "sorted query by query", "each query alone", "written rank by rank"])
@pytest.mark.parametrize("seed", sliced(range(6), 6))  # every path on one seed; all six in the full step
def test_frames_equal_tables(seed: int, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path in ("sorted query by query", "each query alone"):  # as long rankings are (in one padded matrix)
        monkeypatch.setattr(ordering, "SORT_EACH_FROM", 0)
    if path == "each query alone":  # rankings too uneven to pad
        monkeypatch.setattr(ordering, "PAD_CELLS", -10**9)
    qrels, run = generated(seed)
    if path == "written rank by rank":  # each query's rows together, scores not increasing (ties as they come)
        run = run.assign(first=run.groupby("query_id", sort=False).ngroup(), down=-run["score"])
        run = run.sort_values(["first", "down"], kind="stable").drop(columns=["first", "down"])
        qcode = run["query_id"].map({q: i for i, q in enumerate(sorted(set(run["query_id"])))}).to_numpy()
        assert ordering.ranked_as_listed(qcode, run["score"].to_numpy())
    for settings in SETTINGS:
        ev = Evaluator(qrels, MEASURES, settings)
        for given in (run, as_dicts(run)):
            assert coded(ev, given)
            same(ev.evaluate(given), general(ev, run))


def test_ties_by_code_point_descending() -> None:
    # equal scores: docno descending in code-point order (trec_eval's strcmp on UTF-8): '😀' > 'ｚ' > 'é' > 'a' > 'Z'
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["é"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"] * 5, "doc_id": ["a", "é", "Z", "😀", "ｚ"], "score": [1.0] * 5})
    ev = Evaluator(qrels, ["recip_rank", "P_2", "P_3"]).evaluate(run)
    assert ev.per_query == {"recip_rank": [1 / 3], "P_2": [0.0], "P_3": [1 / 3]}  # é is third


def test_ndcg_hand_derived() -> None:
    # ranking grades 2, 0, 1 (d9 unjudged at 4th); pool 2, 1, 1, 0, -1 (d4 not retrieved)
    # DCG = 2/log2(2) + 0 + 1/log2(4) = 2.5; ideal = 2 + 1/log2(3) + 1/2; @2: 2 / (2 + 1/log2(3))
    qrels = pd.DataFrame({"query_id": ["q"] * 5, "doc_id": ["d1", "d2", "d3", "d4", "d5"],
                          "relevance": [2, 0, 1, 1, -1]})
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d9": 0.5}}
    ev = Evaluator(qrels, ["ndcg", "ndcg_cut_2", "ndcg_cut_10"]).evaluate(run)
    ideal = 2.0 + 1.0 / math.log2(3) + 0.5
    assert ev.per_query["ndcg"] == [2.5 / ideal]
    assert ev.per_query["ndcg_cut_10"] == [2.5 / ideal]
    assert ev.per_query["ndcg_cut_2"] == [2.0 / (2.0 + 1.0 / math.log2(3))]


@pytest.mark.parametrize("bad", ["duplicate", "space", "missing", "nan"])
def test_bad_runs_take_the_general_path(bad: str) -> None:
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]})
    column, value = {"duplicate": ("doc_id", "d1"), "space": ("doc_id", "d 2"), "missing": ("query_id", None),
                     "nan": ("score", float("nan"))}[bad]
    run.loc[2, column] = value
    ev = Evaluator(qrels, ["map"])
    assert not coded(ev, run)
    with pytest.raises(SegevalError) as caught:
        ev.evaluate(run)
    assert "3" in str(caught.value)  # the row (or line) is named


def test_other_policies_same_numbers() -> None:
    # a gain table (nDCG per query only) and judged-only are coded, file order is read as a table: same numbers
    qrels, run = generated(3)
    for measures, settings in ((["ndcg.1=3,2=9", "map"], Settings()), (["P_5"], Settings(judged_only=True)),
                               (["map"], Settings(order="file"))):
        ev = Evaluator(qrels, measures, settings)
        same(ev.evaluate(run), general(ev, run))


@pytest.mark.parametrize("seed", range(4))
def test_rankings_of_one_length(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # every query the same number of results: sorted as the rows of one matrix
    monkeypatch.setattr(ordering, "SORT_EACH_FROM", 0)
    qrels, run = generated(seed)
    run = run.groupby("query_id", sort=False).head(int(run.groupby("query_id").size().min()))
    ev = Evaluator(qrels, MEASURES)
    assert coded(ev, run)
    same(ev.evaluate(run), general(ev, run))


def test_qrels_frames_keep_their_ids_as_categories() -> None:
    """Qrels given as a frame come out of load_qrels with Categorical ids in code-point order, and
    the frame reader takes their codes; unused categories (rows dropped) are hashed again."""
    from segeval.readers.frames import load_qrels
    from segeval.readers.validate import id_codes

    frame = pd.DataFrame({"query_id": ["q2", "q1", "é", "q1"], "doc_id": ["b", "a", "Z", "é"],
                          "relevance": [1, 0, 2, 1]})
    q = load_qrels(frame)
    assert list(q["query"].cat.categories) == ["q1", "q2", "é"]  # 'q1' < 'q2' < 'é' by code point
    assert list(q["item"].cat.categories) == ["Z", "a", "b", "é"]
    assert q["query"].astype(str).tolist() == ["q2", "q1", "é", "q1"]
    codes, names = id_codes(q["query"])
    assert codes.tolist() == [1, 0, 2, 0] and names.tolist() == ["q1", "q2", "é"]
    fewer = q["query"].iloc[:2]  # 'é' no longer used: factorised from the strings instead
    codes, names = id_codes(fewer)
    assert codes.tolist() == [0, 1] and names.tolist() == ["q2", "q1"]
    assert CodedQrels.of(q).queries.tolist() == ["q1", "q2", "é"]


@pytest.mark.parametrize("form", ["frame", "dicts"])
def test_ids_that_are_not_strings_take_the_general_path(form: str) -> None:
    """A document id given as a number is not hashed as a string by the frame reader: the table reader reads
    it (as its text) and evaluates."""
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d1", "7"], "relevance": [1, 1]})
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": pd.Series(["d1", 7], dtype=object), "score": [2.0, 1.0]})
    run: Any = frame if form == "frame" else {"q": {"d1": 2.0, 7: 1.0}}
    ev = Evaluator(qrels, ["map"])
    assert not coded(ev, run)
    assert ev.evaluate(run).per_query["map"] == [1.0]  # d1 at 1 and '7' at 2: both relevant
