"""The public API (segeval/__init__): every accepted input shape gives the numbers of the same data
read from files; Settings are checked once with clear messages; bad shapes name the argument."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import namedtuple
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import segeval
from segeval import Evaluator, ParameterError, Segment, Settings, evaluate
from segeval.core.settings import EngineOptions, Job, OutputOptions
from tests.conftest import ROOT, run_cli
from tests.support.reference import require_module

DOC_MEASURES = ["map", "P_5", "P_10", "ndcg", "bpref", "recip_rank", "num_rel_ret", "Rprec"]
SEG_MEASURES = ["map", "P_5", "P_10", "maisp"]
SEG_ADAPTERS = ["overlap", "binned:60", "tolerance:15"]

# ir_measures' records (ir_measures.Qrel / ir_measures.ScoredDoc, as its readers and ir_datasets yield them)
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])


class RanxLike:
    """What segeval uses of ranx's Qrels and Run: to_dataframe() with columns q_id, doc_id, score."""

    def __init__(self, data: dict[str, dict[str, float]], name: str = "") -> None:
        self.data, self.name = data, name

    def to_dataframe(self) -> pd.DataFrame:
        rows = [(q, d, s) for q, docs in self.data.items() for d, s in docs.items()]
        return pd.DataFrame(rows, columns=["q_id", "doc_id", "score"])


class DictOnly:
    """An object that only has to_dict() (as ranx's Qrels/Run also do)."""

    def __init__(self, data: dict[str, dict[str, float]]) -> None:
        self.data = data

    def to_dict(self) -> dict[str, dict[str, float]]:
        return self.data


def doc_case(seed: int, n_queries: int = 12) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Random document qrels and run with tied scores, queries only in one side, grades -1..3."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = list(dict.fromkeys(f"d{rng.randint(0, 50):03d}" for _ in range(30)))
        if q < 2 or rng.random() < 0.9:
            qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in rng.sample(docs, k=min(12, len(docs)))}
        if q < 2 or rng.random() < 0.9:
            run[qid] = {d: (round(rng.uniform(0, 3), 1) if rng.random() < 0.3 else rng.uniform(0, 3)) for d in docs}
    return qrels, run


def write_docs(tmp_path: Path, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
               tag: str = "r") -> tuple[Path, Path]:
    qp, rp = tmp_path / "qrels", tmp_path / f"run_{tag}"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    rp.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} {tag}\n" for q, docs in run.items()
                          for i, (d, s) in enumerate(docs.items())))
    return qp, rp


def same(a: segeval.Evaluation, b: segeval.Evaluation) -> None:
    """Same queries, names and values (exactly: the same arithmetic on the same data)."""
    assert a.queries == b.queries
    assert [r.name for r in a.requests] == [r.name for r in b.requests]
    pd.testing.assert_frame_equal(a.frame(), b.frame())
    assert a.summary == b.summary
    assert a.unevaluated == b.unevaluated


def doc_shapes(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, tuple[Any, Any]]:
    q_rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    r_rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return {
        "dict of dicts": (qrels, run),
        "ir_measures frames": (pd.DataFrame([(*x, "0") for x in q_rows],
                                            columns=["query_id", "doc_id", "relevance", "iteration"]),
                               pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"])),
        "ranx frames": (pd.DataFrame(q_rows, columns=["q_id", "doc_id", "score"]),
                        pd.DataFrame(r_rows, columns=["q_id", "doc_id", "score"])),
        "ir_measures records": ([Qrel(*x, "0") for x in q_rows], iter([ScoredDoc(*x) for x in r_rows])),
        "ranx objects": (RanxLike({q: {d: float(g) for d, g in docs.items()} for q, docs in qrels.items()}),
                         RanxLike(run, "r")),
        "to_dict objects": (DictOnly(qrels), DictOnly(run)),
        "run with ranks only": (qrels, pd.DataFrame(
            [(q, d, i + 1) for q, docs in run.items()
             for i, (d, _) in enumerate(sorted(docs.items(), key=lambda x: (-x[1], tuple(-ord(c) for c in x[0]))))],
            columns=["query", "docno", "rank"])),
    }


@pytest.mark.parametrize("seed", range(3))
def test_document_shapes_give_the_files_numbers(tmp_path: Path, seed: int) -> None:
    qrels, run = doc_case(seed)
    qp, rp = write_docs(tmp_path, qrels, run)
    from_files = evaluate(qp, rp, DOC_MEASURES)
    assert len(from_files.queries) >= 2
    for name, (q, r) in doc_shapes(qrels, run).items():
        try:
            same(evaluate(q, r, DOC_MEASURES), from_files)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_document_dict_gives_the_cli_numbers(tmp_path: Path) -> None:
    qrels, run = doc_case(7)
    qp, rp = write_docs(tmp_path, qrels, run)
    code, out, _ = run_cli("eval", "-o", "json", *(f"-m{m}" for m in DOC_MEASURES), str(qp), str(rp))
    assert code == 0
    summary = json.loads(out)["summary"]
    ours = evaluate(qrels, run, DOC_MEASURES).summary
    assert set(summary) == set(ours) and all(summary[k] == pytest.approx(ours[k], abs=1e-12) for k in ours)


def mmss(seconds: int) -> str:
    return f"{seconds // 60}.{seconds % 60:02d}"


def segment_case(seed: int) -> tuple[list[tuple[str, str, int, int, int]], list[tuple[str, str, int, int, int, float]]]:
    """Random segment qrels (query, video, start, end, rel) and run (query, video, start, end, rank, score)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(8):
        qid = f"item_{q}"
        for _ in range(rng.randint(1, 6)):
            s = rng.randint(0, 1200)
            qrels.append((qid, f"v{rng.randint(0, 3)}", s, s + rng.randint(0, 180), rng.choice([0, 1, 1])))
        for rank in range(1, rng.randint(3, 15)):
            s = rng.randint(0, 1200)
            run.append((qid, f"v{rng.randint(0, 3)}", s, s + rng.randint(0, 120), rank, 100.0 - rank))
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_segment_shapes_give_the_files_numbers(tmp_path: Path, seed: int) -> None:
    qrels, run = segment_case(seed)
    qp, rp = tmp_path / "qrels", tmp_path / "run"
    qp.write_text("".join(f"{q} Q0 {v} {mmss(s)} {mmss(e)} {g}\n" for q, v, s, e, g in qrels))
    rp.write_text("".join(f"{q} Q0 {v} {mmss(s)} {mmss(e)} {k} {sc} r\n" for q, v, s, e, k, sc in run))
    from_files = evaluate(qp, rp, SEG_MEASURES, SEG_ADAPTERS)
    assert {"map", "map_bin", "map_tol", "maisp"} <= set(from_files.summary)
    q_frame = pd.DataFrame(qrels, columns=["query_id", "video", "start", "end", "relevance"])
    r_frame = pd.DataFrame(run, columns=["query_id", "video", "start", "end", "rank", "score"])
    q_dict: dict[str, dict[Segment, int]] = {}
    for q, v, s, e, g in qrels:
        q_dict.setdefault(q, {})[Segment(v, s, e)] = max(g, q_dict.get(q, {}).get(Segment(v, s, e), g))
    r_dict: dict[str, dict[tuple[str, int, int], float]] = {}
    for q, v, s, e, _, sc in run:
        r_dict.setdefault(q, {}).setdefault((v, s, e), sc)
    shapes = {"segment frames": (q_frame, r_frame),
              "ranked by score (no rank column)": (q_frame, r_frame.drop(columns="rank"))}
    for name, (q, r) in shapes.items():
        try:
            same(evaluate(q, r, SEG_MEASURES, SEG_ADAPTERS), from_files)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None
    # dicts keep one entry per key: compare them with files of the same (deduplicated) lines
    qp.write_text("".join(f"{q} Q0 {k.video} {mmss(int(k.start))} {mmss(int(k.end))} {g}\n"
                          for q, d in q_dict.items() for k, g in d.items()))
    rp.write_text("".join(f"{q} Q0 {v} {mmss(s)} {mmss(e)} {i + 1} {sc} r\n"
                          for q, d in r_dict.items() for i, ((v, s, e), sc) in enumerate(d.items())))
    same(evaluate(q_dict, r_dict, SEG_MEASURES, SEG_ADAPTERS), evaluate(qp, rp, SEG_MEASURES, SEG_ADAPTERS))


def test_evaluator_agrees_with_pytrec_eval_on_50_queries() -> None:
    pytrec_eval = require_module("pytrec_eval", why="pip install -e '.[test]'")
    qrels, run = doc_case(11, n_queries=50)
    names = ["map", "P_5", "P_10", "recall_10", "ndcg", "ndcg_cut_10", "bpref", "recip_rank", "Rprec", "num_rel"]
    ev = Evaluator(qrels, names, Settings(trec_eval="9")).evaluate(run)
    wanted = {"map", "P.5,10", "recall.10", "ndcg", "ndcg_cut.10", "bpref", "recip_rank", "Rprec", "num_rel"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, wanted).evaluate(run)
    assert set(ev.queries) == set(reference) and len(ev.queries) >= 40
    frame = ev.frame()
    diffs = [abs(float(frame.loc[q, n]) - float(reference[q][n])) for q in ev.queries for n in names]
    assert len(diffs) >= 400 and max(diffs) <= 1e-9


def test_evaluator_reuse_equals_separate_calls(tmp_path: Path) -> None:
    qrels, _ = doc_case(3)
    runs = [doc_case(3 + k)[1] for k in range(3)]
    settings = Settings(missing_queries="zero", max_results=20)
    evaluator = Evaluator(qrels, DOC_MEASURES, settings)
    for run in runs:
        same(evaluator.evaluate(run), evaluate(qrels, run, DOC_MEASURES, settings=settings))
        same(evaluator.evaluate(run), evaluate(qrels, run, DOC_MEASURES, missing_queries="zero", max_results=20))
    qp, rp = write_docs(tmp_path, qrels, runs[0])
    same(Evaluator(qp, DOC_MEASURES, settings).evaluate(rp), evaluator.evaluate(runs[0]))


def test_single_names_and_ir_measures_frames_work() -> None:
    # each of these failed before: per-character measures, AttributeError for an adapter name, KeyError('start')
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"], "score": [2.0, 1.0, 5.0]})
    ev = evaluate(qrels, run, "map", adapters=["exact"])
    # query 1: 'a' (relevant) at rank 2: AP 1/2; query 2: 'c' at rank 1: AP 1
    assert list(ev.summary) == ["map"] and ev.summary["map"] == pytest.approx(0.75)
    assert evaluate(qrels, run, "map", "exact").summary == ev.summary
    assert evaluate(qrels, run, "P_1", adapter=segeval.make_adapter("exact")).summary == {"P_1": 0.5}


def test_report_and_long_tables() -> None:
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    run = {"1": {"b": 2.0, "a": 1.0}, "2": {"c": 5.0}}
    ev = evaluate(qrels, run, ["map", "P_1", "gm_map"])
    report = ev.report()
    assert list(report.index) == ["1", "2", "all"] and list(report.columns) == ["map", "P_1"]  # gm_map: summary only
    assert report.loc["all", "map"] == ev.summary["map"] == pytest.approx(0.75)
    assert len(ev.long()) == 4 and set(ev.long()["measure"]) == {"map", "P_1"}


BAD_SHAPES = [
    ({"qrels": 42}, "'qrels' parameter must be a file path"),
    ({"run": 3.5}, "'run' parameter must be a file path"),
    ({"run": "", "qrels": None}, "'qrels' parameter must be a file path"),
    ({"qrels": pd.DataFrame({"a": [1], "b": [2]})}, "'qrels' parameter must have a query column"),
    ({"qrels": pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]})}, "'qrels' parameter must have a relevance"),
    ({"run": pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]})}, "'run' parameter must have a score or a rank"),
    ({"qrels": {"1": ["a", "b"]}}, "'qrels' parameter must map each query to a dict"),
    ({"qrels": pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]})},
     "relevance column must hold integers. Got 0.5 in row 1"),
    ({"run": pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", None], "score": [1.0, 2.0]})},
     "doc_id column must hold an id on every row. Got a missing value in row 2"),
    ({"run": pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["high"]})},
     "score column must hold finite numbers. Got 'high' in row 1"),
    ({"run": pd.DataFrame({"query_id": ["1"], "video": ["v"], "start": [3.0], "score": [1.0]})},
     "must have both start and end columns"),
    ({"run": {"1": {("v", 1.0): 2.0}}}, "segment keys must be Segment objects or (video, start, end) tuples"),
    ({"run": {"1": {"a": 1.0, ("v", 0.0, 1.0): 2.0}}}, "must hold documents or segments, not both"),
    ({"run": pd.DataFrame({"query_id": [], "doc_id": [], "score": []})}, "'run' parameter must hold at least one row"),
    ({"measures": 5}, "'measures' parameter must be a measure name"),
    ({"measures": ["map", 3]}, "'measures' parameter must be a measure name"),
    ({"measures": "mapp"}, "mapp"),
    ({"adapters": 5}, "'adapters' parameter must be an adapter name"),
    ({"adapters": ["overlap", 1]}, "'adapter' parameter must be an adapter name"),
    ({"adapters": "binned:x"}, "'adapter' parameter 'binned:x': the bin size B"),
    ({"adapters": "exact", "adapter": "exact"}, "cannot both be given"),
    ({"settings": "fast"}, "'settings' parameter must be a segeval.Settings"),
    ({"settings": {"tolerence": 5}}, "'tolerence' parameter is not a setting"),
    ({"order": "best"}, "'order' parameter must be one of 'rank', 'score', 'file'. Got 'best' instead."),
]


@pytest.mark.parametrize(("given", "message"), BAD_SHAPES)
def test_bad_shapes_raise_a_clear_error(given: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"qrels": {"1": {"a": 1}}, "run": {"1": {"a": 1.0}}, "measures": "map"} | given
    with pytest.raises(ParameterError) as info:
        evaluate(**args)
    assert message in str(info.value)


def test_row_problems_name_the_table_and_row() -> None:
    run = pd.DataFrame({"query": ["1", "1"], "video": ["v", "v"], "start": [5.0, 9.0], "end": [6.0, 2.0],
                        "rank": [1, 2]})
    with pytest.raises(segeval.InputError) as info:
        evaluate({"1": {Segment("v", 0, 10): 1}}, run, "map")
    assert str(info.value).startswith("<run>, line 2: the end time (2 s) is earlier than the start time (9 s)")
    with pytest.raises(segeval.InputError, match="<run>, line 2: document 'a' appears again"):
        evaluate({"1": {"a": 1}}, pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1, 2]}), "map")


SETTINGS_ERRORS = [
    ({"tolerance": -5}, "The 'tolerance' parameter must be an integer >= 0. Got -5 instead."),
    ({"bin_size": 0}, "The 'bin_size' parameter must be an integer >= 1. Got 0 instead."),
    ({"bin_size": 2.5}, "The 'bin_size' parameter must be an integer >= 1. Got 2.5 instead."),
    ({"max_results": 0}, "The 'max_results' parameter (-M) must be an integer >= 1 (trec_eval's -M 0 evaluates empty "
                         "rankings; segeval refuses it, docs/trec_eval-semantics.md). Got 0 instead."),
    ({"order": "best"}, "The 'order' parameter must be one of 'rank', 'score', 'file'. Got 'best' instead."),
    ({"time_format": "ms"}, "The 'time_format' parameter must be one of 'mmss', 'seconds', 'hms'. Got 'ms' instead."),
    ({"missing_queries": "drop"}, "The 'missing_queries' parameter must be one of 'skip', 'zero'. Got 'drop' "
                                  "instead."),
    ({"trec_eval": 9}, "The 'trec_eval' parameter must be one of '10', '9'. Got 9 instead."),
    ({"predicted": "no"}, "The 'predicted' parameter must be one of 'use', 'ignore'. Got 'no' instead."),
    ({"judged_only": "yes"}, "The 'judged_only' parameter must be True or False. Got 'yes' instead."),
    ({"relevance_level": 1.5}, "The 'relevance_level' parameter must be an integer. Got 1.5 instead."),
    ({"tiou": 1.5}, "The 'tiou' parameter must be a number in (0, 1]. Got 1.5 instead."),
    ({"bin_assign": "end"}, "The 'bin_assign' parameter must be one of 'span', 'start'. Got 'end' instead."),
    ({"queries": "q1"}, "The 'queries' parameter must be a list of query ids (strings). Got 'q1' instead."),
]


ENGINE_ERRORS = [
    ({"chunk_lines": 0}, "The 'chunk_lines' parameter must be an integer >= 1. Got 0 instead."),
    ({"memory": "ram"}, "The 'memory' parameter must be one of 'auto', 'chunked', 'in-memory'. Got 'ram' instead."),
    ({"jobs": 0}, "The 'jobs' parameter must be an integer >= 1. Got 0 instead."),
    ({"engine": "spark"}, "The 'engine' parameter must be one of 'processes', 'dask'. Got 'spark' instead."),
    ({"scheduler": "tcp://h:1"}, "The 'scheduler' parameter needs --engine dask. Got --engine processes instead."),
    ({"engine": "dask", "memory": "chunked"}, "The 'memory' parameter must be 'auto' or 'in-memory' with --engine "
                                              "dask (its workers read each run whole). Got 'chunked' instead."),
]
OUTPUT_ERRORS = [({"format": "xml"}, "The 'output' parameter must be one of 'trec', 'json', 'csv'. Got 'xml' instead.")]
JOB_ERRORS = [
    ({"settings": "fast"}, "The 'settings' parameter must be a segeval.Settings. Got 'fast' instead."),
    ({"lenient": 1}, "The 'lenient' parameter must be True or False. Got 1 instead."),
    ({"engine": None}, "The 'engine' parameter must be a segeval.core.settings.EngineOptions. Got None instead."),
]


@pytest.mark.parametrize(("kind", "given", "message"), [(Settings, g, m) for g, m in SETTINGS_ERRORS]
                         + [(EngineOptions, g, m) for g, m in ENGINE_ERRORS]
                         + [(OutputOptions, g, m) for g, m in OUTPUT_ERRORS]
                         + [(Job, g, m) for g, m in JOB_ERRORS])
def test_settings_are_checked_when_made(kind: Any, given: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError) as info:
        kind(**given)
    assert str(info.value) == message


def test_settings_defaults_are_the_ones_everything_uses() -> None:
    from segeval.adapters import BinnedAdapter, TiouAdapter, ToleranceAdapter
    from segeval.core.settings import CHUNK_LINES
    from segeval.readers.formats import TIME_FORMATS

    s = Settings()
    assert (s.bin_size, s.tolerance, s.tiou, s.time_format) == (300, 15, 0.5, "mmss")
    assert (BinnedAdapter().bin_size, ToleranceAdapter().tolerance, TiouAdapter().theta) == (300, 15, 0.5)
    assert EngineOptions().chunk_lines == CHUNK_LINES == 100_000
    assert TIME_FORMATS == segeval.core.settings.TIME_FORMATS  # read.py keeps a copy until it moves into io/
    assert (s.order_for(True), s.order_for(False)) == ("score", "rank")
    assert segeval.make_adapter("binned", Settings(bin_size=60)).spec == "binned:60"
    assert segeval.make_adapter("tolerance", Settings(tolerance=5)).spec == "tolerance:5"
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.tolerance = 5  # type: ignore[misc]
    assert Settings(queries=["q2", "q1"]).queries == ("q2", "q1") and hash(Settings()) == hash(Settings())


def test_prepare_orders_document_runs_by_score_by_default() -> None:
    from segeval.readers.frames import qrels_frame, run_frame
    from segeval.readers.from_tables import prepare

    # the rank column says b, a; the scores say a (2.0), b (1.0): documents follow the scores (trec_eval)
    run = run_frame(pd.DataFrame({"query": ["1", "1"], "doc_id": ["b", "a"], "rank": [1, 2], "score": [1.0, 2.0]}))
    data = prepare(qrels_frame({"1": {"a": 1}}), run)
    assert list(data.items[data.run["icode"].to_numpy()]) == ["a", "b"]


def test_compare_on_tables_equals_compare_on_files(tmp_path: Path) -> None:
    qrels, _ = doc_case(21, n_queries=10)
    runs = {f"r{k}": doc_case(21 + k, n_queries=10)[1] for k in range(3)}
    paths = [write_docs(tmp_path, qrels, run, name)[1] for name, run in runs.items()]
    on_files = segeval.compare(tmp_path / "qrels", paths, ["map", "P_10"], permutations=200)
    on_tables = segeval.compare(qrels, runs, ["map", "P_10"], permutations=200)
    assert on_tables.measures == on_files.measures and on_tables.queries == on_files.queries >= 5
    for (name, row), path in zip(on_tables.cells.items(), paths, strict=True):
        for m, cell in row.items():
            other = on_files.cells[path.name][m]
            assert (cell.mean, cell.diff, cell.p, cell.ci) == (other.mean, other.diff, other.p, other.ci), (name, m)


def test_correlate_takes_lists_or_dicts() -> None:
    # x ranks a > b > c, y ranks a > c > b: one of three pairs swapped, tau = (2 - 1) / 3
    result = segeval.correlate({"a": 0.3, "b": 0.2, "c": 0.1}, {"c": 0.15, "b": 0.1, "a": 0.4})
    assert result["kendall_tau_b"] == pytest.approx(1 / 3) and result["swapped_pairs"] == 1
    assert segeval.correlate([0.3, 0.2, 0.1], [0.4, 0.1, 0.15]) == result
    assert segeval.correlate([1.0, 1.0], [1.0, 2.0])["kendall_tau_b"] is None
    with pytest.raises(ParameterError, match="same systems"):
        segeval.correlate({"a": 1.0}, {"b": 1.0})


def test_public_names() -> None:
    expected = {"evaluate", "Evaluator", "Evaluation", "compare", "correlate", "make_adapter", "measure", "Settings",
                "EngineOptions", "Segment", "SegevalError", "InputError", "ParameterError", "__version__"}
    assert set(segeval.__all__) == expected
    for name in expected:
        assert getattr(segeval, name) is not None
    assert issubclass(segeval.InputError, segeval.SegevalError) and issubclass(ParameterError, segeval.SegevalError)
    with pytest.raises(AttributeError):
        segeval.no_such_name  # noqa: B018


def test_docs_python_example_uses_only_public_names() -> None:
    import re

    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("## Example", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "from segeval" not in code and "import segeval." not in code
    used = set(re.findall(r"segeval\.(\w+)", section))
    assert used and used <= set(segeval.__all__)


def test_ir_measures_objects_and_values() -> None:
    """ir_measures' own records and measure objects in, ir_measures' values out (it averages over every qrels
    query, a query missing from the run scoring 0: segeval's missing_queries="zero"; pytrec_eval underneath:
    trec_eval 9.0.8)."""
    ir_measures = require_module("ir_measures", why="pip install -e '.[test]'")
    from ir_measures import AP, RR, Bpref, P, R, Rprec, nDCG

    qrels, run = doc_case(11, n_queries=50)
    measures = [AP, P @ 10, nDCG @ 10, RR, R @ 10, Rprec, Bpref, nDCG]
    ev = evaluate([ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                  (ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()),
                  measures, settings=Settings(missing_queries="zero", trec_eval="9"))
    names = dict(zip(measures, [r.name for r in ev.requests], strict=True))
    assert list(names.values()) == ["map", "P_10", "ndcg_cut_10", "recip_rank", "recall_10", "Rprec", "bpref", "ndcg"]
    reference = ir_measures.calc_aggregate(measures, qrels, run)
    assert all(ev.summary[names[m]] == pytest.approx(v, abs=1e-12) for m, v in reference.items())
    frame = ev.frame()
    per_query = [(frame.loc[m.query_id, names[m.measure]], m.value)
                 for m in ir_measures.iter_calc(measures, qrels, run)]
    assert len(per_query) >= 300 and max(abs(a - b) for a, b in per_query) <= 1e-9


def test_run_without_ranks_is_ranked_by_score_as_pandas_ranks_first_descending() -> None:
    # differential: pandas' groupby rank(method="first", ascending=False) on ties, -0.0 and 0.0, mixed queries
    import numpy as np

    from segeval.readers.tables import ranks_by_score

    rng = np.random.default_rng(5)
    for n in (1, 2, 50, 3000):
        query = np.array([f"q{i}" for i in rng.integers(0, 7, n)], dtype=object)
        score = rng.integers(-2, 3, n).astype(float)
        score[rng.random(n) < 0.2] = -0.0
        expected = pd.Series(score).groupby(pd.Series(query)).rank(method="first", ascending=False)
        assert ranks_by_score(query, score).tolist() == expected.astype(int).tolist()
    # hand-derived: q1 scores 0.5, 0.9, 0.5 -> ranks 2, 1, 3 (the tie keeps row order)
    assert ranks_by_score(np.array(["q1", "q1", "q2", "q1"], dtype=object),
                           np.array([0.5, 0.9, 1.0, 0.5])).tolist() == [2, 1, 1, 3]


@pytest.mark.parametrize("bad", ["", "a b", "a\u00a0b", "a\x1cb", "tab\t"])
def test_ids_with_white_space_name_their_row(bad: str) -> None:
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["d1", bad, "d3"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(ParameterError, match=r"doc_id column must hold ids without white space\. Got .* in row 2"):
        evaluate({"q1": {"d1": 1}}, run, "map")


def test_trec_eval_9_mode_is_the_same_measure_set_in_the_api_and_the_cli(tmp_path: Path) -> None:
    """evaluate(..., trec_eval="9") and Evaluator(..., Settings(trec_eval="9")) take 9.0.8's all_trec (no rbp,
    rbp_resid, unj) and refuse its missing measures, as ``segeval eval --trec-eval 9`` does (pipeline.plan)."""
    from segeval.reports.trec import render
    from tests.support import trec_boundary as TB

    qrels, run = TB.parity_collection(0, "plain")
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    q, r = str(tmp_path / "qrels"), str(tmp_path / "run")
    code, cli, _ = run_cli("eval", "--trec-eval", "9", *TB.PARITY_FLAGS["9"]["q"], q, r)
    assert code == 0 and cli == TB.stored_parity("9")[TB.parity_key("plain", 0, "q")][1]  # trec_eval 9.0.8's bytes
    frame = pd.read_csv(r, sep=" ", header=None, names=["query", "q0", "docno", "rank", "score", "tag"],
                        dtype={"query": str, "docno": str})[["query", "docno", "score"]]
    for ev in (evaluate(q, r, "all_trec", trec_eval="9"), Evaluator(q, "all_trec", Settings(trec_eval="9")).evaluate(r),
               Evaluator(q, "all_trec", Settings(trec_eval="9")).evaluate(frame)):
        assert not any(n.startswith(("rbp", "unj")) for n in ev.summary)
        assert render(ev, "run1", per_query=True) == cli
    assert any(n.startswith("rbp") for n in evaluate(q, r, "all_trec").summary)  # 10.0's set has them
    for measure in ("rbp", ["map", "unj"]):
        with pytest.raises(ParameterError, match="new in trec_eval 10"):
            evaluate(q, r, measure, trec_eval="9")
        with pytest.raises(ParameterError, match="new in trec_eval 10"):
            Evaluator(q, measure, Settings(trec_eval="9"))


# ------------------------------------------------------------------ where users stop (issue 38, item 8)

LINKING = [str(ROOT / "examples" / "mediaeval" / name) for name in ("linking.qrels", "linking_run.txt")]


def test_compare_takes_several_adapters_as_evaluate_does() -> None:
    q, r = LINKING
    by_file = segeval.compare(q, [r, r], "map", adapters=["overlap", "binned"], permutations=10)
    by_table = segeval.compare(q, {"a": r, "b": r}, "map", adapters=["overlap", "binned"], permutations=10)
    for c in (by_file, by_table):
        # the measures of both adapters, each the value evaluate gives with that adapter
        assert list(c.to_dataframe()["measure"].unique()) == ["map", "map_bin"]
    ev = evaluate(q, r, "map", adapters=["overlap", "binned"])
    cells = json.loads(by_file.to_json())["cells"]
    assert [cells[by_file.baseline][m]["mean"] for m in ("map", "map_bin")] == [ev["map"], ev["map_bin"]]
    with pytest.raises(ParameterError, match="'adapter' and 'adapters' parameters cannot both be given"):
        segeval.compare(q, [r, r], "map", adapter="overlap", adapters=["binned"])


def test_pyterrier_columns_are_read() -> None:
    # PyTerrier's qrels: qid, docno, label; its results: qid, docno, score (rank) -> AP = (1/1 + 2/3) / 2
    qrels = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["d1", "d2", "d3"], "label": [1, 0, 1]})
    run = pd.DataFrame({"qid": ["1"] * 3, "docno": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]})
    assert evaluate(qrels, run, "map")["map"] == pytest.approx((1 + 2 / 3) / 2)


def test_segment_records_without_times_say_so() -> None:
    qrels = [{"query": "q1", "video": "v1", "rel": 1}, {"query": "q1", "video": "v1", "rel": 0}]
    run = [{"query": "q1", "video": "v1", "start": 1.0, "end": 2.0, "score": 1.0}]
    with pytest.raises(ParameterError, match="The 'qrels' parameter needs start and end columns: the run is a "
                                             "segment run"):
        evaluate(qrels, run, "map")
    frame = pd.DataFrame(qrels).rename(columns={"video": "doc_id", "rel": "relevance"})
    with pytest.raises(ParameterError, match="needs start and end columns"):  # before: 'judged again'
        evaluate(frame, pd.DataFrame(run), "map")


def test_ir_measures_path_reads_a_video_column() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    qrels = pd.DataFrame({"query_id": ["q1"], "video": ["v1"], "start": [60.0], "end": [120.0], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "video": ["v9", "v1"], "start": [0.0, 70.0], "end": [5.0, 80.0],
                        "score": [2.0, 1.0]})
    m = segeval.measure("map", adapter="overlap")
    # the one relevant segment found at rank 2: AP 1/2, as evaluate gives it with the video column
    assert ir_measures.calc_aggregate([m], qrels, run)[m] == evaluate(qrels, run, "map", adapter="overlap")["map"] \
        == 0.5


def test_per_query_tables_in_natural_order() -> None:
    names = ["q1", "q10", "q11", "q2", "Q3", "q2b"]
    qrels = {q: {"d1": 1} for q in names}
    run = {q: {"d1": 1.0, "d2": 0.5} for q in names}
    ev = evaluate(qrels, run, "P_1")
    assert ev.queries == sorted(names)  # trec_eval's order, as -q prints
    natural = ["Q3", "q1", "q2", "q2b", "q10", "q11"]
    assert list(ev.frame().index) == natural and list(ev.report().index) == [*natural, "all"]
    assert list(dict.fromkeys(ev.long()["query"])) == natural
