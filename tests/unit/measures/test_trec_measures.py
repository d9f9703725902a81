"""trec_eval measures on hand-made rankings (derivations inline) and the `segeval eval` command."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from segeval.adapters.base import Adapted, judged_only
from segeval.core.aggregate import aggregate
from segeval.core.pipeline import evaluate
from segeval.measures import measure
from segeval.measures import trec_gains as TG
from segeval.measures import trec_ranks as TR
from tests.conftest import FIXTURES, run_cli


def ranked(labels: str, num_rel: int, grades: list[float] | None = None, pool: list[float] | None = None) -> Adapted:
    codes = np.frombuffer(labels.encode(), dtype=np.uint8).copy()
    n = len(codes)
    return Adapted(codes, num_rel, np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                   np.arange(n, dtype=np.int64),
                   None if grades is None else np.asarray(grades, dtype=np.float64),
                   None if pool is None else np.asarray(pool, dtype=np.float64))


#           ranks 123456
A = ranked("01-10-", num_rel=3, pool=[1, 1, 1, 0, 0])  # 3 relevant, 2 judged non-relevant in the qrels


def test_rprec_recip_rank_success() -> None:
    assert measure("Rprec")(A) == 1 / 3  # top R=3: ranks 1-3 hold one relevant (rank 2)
    assert measure("recip_rank")(A) == 1 / 2  # first relevant at rank 2
    assert (measure("success_1")(A), measure("success_2")(A)) == (0.0, 1.0)


def test_recall_and_map_cut() -> None:
    assert measure("recall_2")(A) == 1 / 3  # one of three relevant in the top 2
    assert measure("recall_10")(A) == 2 / 3  # ranks 2 and 4
    assert measure("map_cut_3")(A) == pytest.approx((1 / 2) / 3)  # only rank 2 counts: P@2 = 1/2, over R = 3
    assert measure("map_cut_10")(A) == pytest.approx((1 / 2 + 2 / 4) / 3)


def test_iprec_at_recall_rounds_the_cutoff_half_up() -> None:
    # recall 0.5 of R=3 -> floor(1.5 + 0.5) = 2 relevant needed: first reached at rank 4, P = 2/4
    assert measure("iprec_at_recall_0.5")(A) == 0.5
    # recall 0.4 -> floor(1.2 + 0.5) = 1 relevant: best precision from rank 2 on is max(1/2, 1/3, 2/4, ...) = 1/2
    assert measure("iprec_at_recall_0.4")(A) == 0.5
    assert measure("iprec_at_recall_1.0")(A) == 0.0  # the third relevant is never retrieved
    assert measure("iprec_at_recall_0.0")(A) == 0.5  # best precision anywhere


def test_bpref() -> None:
    # R = 3, N = 2 judged non-relevant, min(R, N) = 2. Rank 2: one non-relevant above -> 1 - 1/2;
    # rank 4: one non-relevant above (rank 3 is unjudged) -> 1 - 1/2. bpref = (0.5 + 0.5) / 3
    assert measure("bpref")(A) == pytest.approx(1 / 3)
    assert measure("bpref")(ranked("1", 1, pool=[1])) == 1.0  # no judged non-relevant documents at all


def test_bpref_and_rankeff_stay_in_range_when_a_segment_run_has_more_non_relevant_than_the_qrels() -> None:
    # R = 3, N = 1 qrels unit, but three non-relevant segments above the relevant one at rank 4: the count is
    # capped at min(R, N) = 1 -> penalty 1 -> bpref 0 (uncapped: (1 - 3) / 3 < 0); RankEff likewise 1 - 1/1 = 0
    many = ranked("0001", num_rel=3, pool=[1, 1, 1, 0])
    assert (measure("bpref")(many), TR.rankeff(many)) == (0.0, 0.0)
    two = ranked("0101", num_rel=3, pool=[1, 1, 1, 0, 0])  # N = 2: rank 2 -> 1 - 1/2, rank 4 -> 1 - 2/2
    assert measure("bpref")(two) == pytest.approx(0.5 / 3) and TR.rankeff(two) == pytest.approx(0.5 / 3)


def test_num_nonrel_judged_ret() -> None:
    assert TR.num_nonrel_judged_ret(A) == 2  # ranks 1 and 5


def test_ndcg_uses_grades_and_the_ideal_from_the_pool() -> None:
    a = ranked("101", 2, grades=[2, 0, 1], pool=[2, 1, 0])
    dcg = 2 / math.log2(2) + 1 / math.log2(4)  # grade 2 at rank 1, grade 1 at rank 3
    ideal = 2 / math.log2(2) + 1 / math.log2(3)  # grades 2, 1 at ranks 1, 2
    assert measure("ndcg")(a) == pytest.approx(dcg / ideal)
    assert measure("ndcg_cut_1")(a) == 1.0  # the best document first
    assert measure("ndcg")(ranked("0", 0, grades=[0], pool=[0])) == 0.0  # nothing relevant


def test_geometric_mean_has_trec_evals_floor() -> None:
    assert aggregate([0.5, 0.0], "gm") == pytest.approx(math.sqrt(0.5 * 1e-5))  # 0 counts as 1e-5
    assert aggregate([], "gm") == 0.0


def test_judged_only_drops_unjudged_results() -> None:
    j = judged_only(A)
    assert j.relstring == "0110"  # ranks 3 and 6 were unjudged
    assert j.num_rel == 3


# ---------------------------------------------------------------------------- command

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d9 1\nq3 0 x 1\n"
RUN = ("q1 Q0 d1 1 0.5 r1\nq1 Q0 d2 2 0.9 r1\nq1 Q0 d3 3 0.5 r1\nq1 Q0 d4 4 0.1 r1\n"
       "q2 Q0 d8 1 1.0 r1\nq2 Q0 d9 2 0.5 r1\n")


def _files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _rows(out: str) -> dict[tuple[str, str], str]:
    return {(n.strip(), q): v for n, q, v in (line.split("\t") for line in out.splitlines())}


def test_eval_orders_by_score_then_docno_descending(tmp_path: Path) -> None:
    code, out, err = run_cli("eval", "-q", "-m", "num_q", "-m", "map", "-m", "P_2", *_files(tmp_path))
    rows = _rows(out)
    # q1 order: d2 (0.9), then d3 and d1 tie at 0.5 -> docno descending: d3, d1; then d4 -> labels 0 1 1 -
    # map = (1/2 + 2/3) / 2 relevant
    assert rows[("map", "q1")] == f"{(1 / 2 + 2 / 3) / 2:.4f}"
    assert rows[("P_2", "q1")] == "0.5000"
    # q2: d8 (unjudged) then d9 (relevant): map = (1/2) / 1
    assert rows[("map", "q2")] == "0.5000"
    assert rows[("num_q", "all")] == "2"  # q3 has no results: not averaged without -c
    assert err == (f"note: {tmp_path / 'run'}: 1 qrels query has no results in the run and are not averaged "
                   f"(-c counts them as 0)\n")  # the note names the run file
    assert code == 0


def test_eval_c_averages_over_every_qrels_query(tmp_path: Path) -> None:
    code, out, _ = run_cli("eval", "-c", "-m", "num_q", "-m", "map", *_files(tmp_path))
    rows = _rows(out)
    assert code == 0
    assert rows[("num_q", "all")] == "3"
    assert rows[("map", "all")] == f"{((1 / 2 + 2 / 3) / 2 + 0.5 + 0.0) / 3:.4f}"  # q3 scores 0


def test_eval_level_max_results_and_judged_flags(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    rows = _rows(run_cli("eval", "-q", "-l", "2", "-m", "num_rel", qrels, run)[1])
    assert rows[("num_rel", "q1")] == "1"  # only d3 has grade >= 2
    rows = _rows(run_cli("eval", "-q", "-M", "1", "-m", "num_ret", qrels, run)[1])
    assert rows[("num_ret", "q1")] == "1"
    rows = _rows(run_cli("eval", "-q", "-J", "-m", "P_1", qrels, run)[1])
    assert rows[("P_1", "q2")] == "1.0000"  # d8 is unjudged and dropped: d9 comes first
    code, out, _ = run_cli("eval", "-n", "-q", "-m", "map", qrels, run)
    assert code == 0 and "\tall\t" not in out


def test_eval_layout_matches_trec_eval(tmp_path: Path) -> None:
    code, out, _ = run_cli("eval", "-m", "runid", "-m", "num_q", "-m", "num_ret", "-m", "map", *_files(tmp_path))
    assert code == 0
    assert out.splitlines()[:3] == ["runid                 \tall\tr1", "num_q                 \tall\t2",
                                    "num_ret               \tall\t6"]


def test_duplicate_documents_in_a_run_are_an_error(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    Path(run).write_text(RUN + "q1 Q0 d2 9 0.1 r1\n")
    code, out, err = run_cli("eval", qrels, run)
    assert code == 2 and out == ""
    assert err == (f"segeval: error: {run}, line 7: document 'd2' appears again for query 'q1' (first on line 2); "
                   f"expected each document once per query\n  line 7: q1 Q0 d2 9 0.1 r1\n")


@pytest.mark.parametrize("extra, line, doc, query, first", [
    ("q9 Q0 z 1 1.0 r1\nq9 Q0 z 2 0.5 r1\n", 8, "z", "q9", 7),  # a query the qrels do not have
    ("q2 Q0 d8 3 0.2 r1\n", 7, "d8", "q2", 5),  # same document, another score
])
@pytest.mark.parametrize("flags", [(), ("-M", "1"), ("-c",)])
def test_duplicate_documents_anywhere_are_an_error(tmp_path: Path, extra: str, line: int, doc: str, query: str,
                                                    first: int, flags: tuple[str, ...]) -> None:
    qrels, run = _files(tmp_path)
    Path(run).write_text(RUN + extra)
    code, out, err = run_cli("eval", *flags, qrels, run)
    assert code == 2 and out == ""
    assert err.startswith(f"segeval: error: {run}, line {line}: document '{doc}' appears again for query '{query}' "
                          f"(first on line {first}); expected each document once per query\n")


def test_unknown_adapter_is_a_parameter_error(tmp_path: Path) -> None:
    code, _, err = run_cli("eval", "-a", "fuzzy", *_files(tmp_path))
    assert code == 2
    from segeval.adapters.registry import ADAPTER_HELP

    # the kinds as the registry declares them, each with its parameters
    assert ADAPTER_HELP.startswith("exact, overlap, overlap-once, binned[:B[:start|span]], tolerance[:T], tiou[:theta")
    assert f"The 'adapter' parameter must name an adapter kind ({ADAPTER_HELP}). Got 'fuzzy' instead." in err


@pytest.mark.parametrize(("spec", "message"), [
    ("binned:x", "'binned:x': the bin size B (seconds) must be an integer >= 1. Got 'x' instead."),
    ("binned:0", "'binned:0': the bin size B (seconds) must be an integer >= 1. Got '0' instead."),
    ("binned:10:foo", "'binned:10:foo': the bin assignment must be one of 'span', 'start'. Got 'foo' instead."),
    ("binned:10:start:1", "'binned:10:start:1': binned must be followed by at most B and start|span "
                          "(binned[:B[:start|span]]). Got '10:start:1' instead."),
    ("tolerance:-3", "'tolerance:-3': the window T (seconds) must be an integer >= 0. Got '-3' instead."),
    ("tolerance:1.5", "'tolerance:1.5': the window T (seconds) must be an integer >= 0. Got '1.5' instead."),
    ("tiou:2", "'tiou:2': the IoU threshold theta must be a number in (0, 1]. Got '2' instead."),
    ("tiou:nan", "'tiou:nan': the IoU threshold theta must be a number in (0, 1]. Got 'nan' instead."),
    ("tiou:0.5:float32:strict", "'tiou:0.5:float32:strict': the flags after theta must be any of 'strict', "
                                "'empty0', 'best', 'float32', each once and in that order (e.g. 'strict:float32'). "
                                "Got 'float32:strict' instead."),
    ("overlap:5", "'overlap:5': overlap must be given without parameters. Got '5' instead."),
])
def test_adapter_errors_say_which_part_is_wrong(tmp_path: Path, spec: str, message: str) -> None:
    code, _, err = run_cli("eval", "-a", spec, *_files(tmp_path))
    assert (code, err) == (2, f"segeval: error: The 'adapter' parameter {message}\n")


def test_eval_json_and_csv_outputs(tmp_path: Path) -> None:
    import csv
    import io
    import json

    qrels, run = _files(tmp_path)
    code, out, _ = run_cli("eval", "-o", "json", "-m", "map", qrels, run)
    doc = json.loads(out)
    assert code == 0
    assert doc["per_query"]["q2"]["map"] == 0.5  # d8 unjudged, d9 relevant at rank 2
    assert doc["summary"]["map"] == pytest.approx(((1 / 2 + 2 / 3) / 2 + 0.5) / 2)
    assert doc["unevaluated_queries"] == ["q3"] and doc["num_q"] == 2
    code, out, _ = run_cli("eval", "-o", "csv", "-q", "-m", "map", qrels, run)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["query"], r["measure"]) for r in rows] == [("q1", "map"), ("q2", "map"), ("all", "num_q"),
                                                          ("all", "map")]
    assert run_cli("eval", "-o", "xml", qrels, run)[0] == 2


def test_api_long_frame(tmp_path: Path) -> None:
    import segeval
    from segeval.adapters import ExactAdapter

    qrels, run = _files(tmp_path)
    ev = segeval.evaluate(qrels, run, ["map", "P_2"], [ExactAdapter()], order="score")
    long = ev.long()
    assert list(long.columns) == ["query", "measure", "value"]
    assert long.set_index(["query", "measure"]).loc[("q2", "map"), "value"] == 0.5


# ------------------------------------------------------------------ beyond trec_eval

def test_rankeff() -> None:
    # A: R = 3, |J| - |R| = 2 judged non-relevant. Rank 2: 1 above -> 1 - 1/2; rank 4: 1 above (rank 3
    # unjudged) -> 1 - 1/2; the third relevant is not retrieved -> 0. (0.5 + 0.5 + 0) / 3
    assert TR.rankeff(A) == pytest.approx(1 / 3)
    # 5 judged non-relevant, 2 above the only relevant: 1 - 2/5
    assert TR.rankeff(ranked("001", 1, pool=[1, 0, 0, 0, 0, 0])) == pytest.approx(3 / 5)


def test_f_and_e_at_cutoff() -> None:
    # A at 4: P = 2/4, R = 2/3 -> F = 2 * (1/2) * (2/3) / (1/2 + 2/3) = 4/7; E = 3/7
    assert measure("F_4")(A) == pytest.approx(4 / 7)
    assert measure("E_4")(A) == pytest.approx(3 / 7)
    assert measure("F_1")(A) == 0.0  # nothing relevant at rank 1


def test_jarvelin_kekalainen_dcg_textbook_example() -> None:
    # Baeza-Yates & Ribeiro-Neto, chapter 4: G1 = (1,0,1,0,0,3,0,0,0,2,0,0,0,0,3) gives DCG1[15] = 4.2
    gains = [1, 0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 3]
    labels = "".join("1" if g else "0" for g in gains)
    a = ranked(labels, 5, grades=gains, pool=[3, 3, 2, 1, 1])
    # 1 + 1/log2(3) + 3/log2(6) + 2/log2(10) + 3/log2(15)
    assert TG.dcg_jk_at(a, 15) == pytest.approx(1 + 1 / math.log2(3) + 3 / math.log2(6) + 2 / math.log2(10)
                                               + 3 / math.log2(15))
    assert round(TG.dcg_jk_at(a, 15), 1) == 4.2
    assert [round(TG.dcg_jk_at(a, k), 1) for k in (1, 3, 6, 10)] == [1.0, 1.6, 2.8, 3.4]  # the book's DCG1
    # ideal from these judged grades: 3, 3, 2, 1, 1 -> 3 + 3 + 2/log2(3) + 1/log2(4) + 1/log2(5)
    ideal = 3 + 3 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert TG.ndcg_jk_at(a, 15) == pytest.approx(TG.dcg_jk_at(a, 15) / ideal)


def test_set_measures_relative_p_utility_unj() -> None:
    # A = "01-10-": 6 retrieved, 2 relevant retrieved, R = 3
    assert TR.set_p(A) == 2 / 6
    assert TR.set_recall(A) == 2 / 3
    assert TR.set_relative_p(A) == 2 / 3  # min(6, 3) = 3
    assert TR.set_map(A) == pytest.approx(2 * 2 / (6 * 3))
    assert TR.set_f(A) == pytest.approx(2 * (1 / 3) * (2 / 3) / (1 / 3 + 2 / 3))
    assert TR.relative_p_at(A, 2) == 1 / 2  # one relevant in the top 2, min(2, 3) = 2
    assert TR.utility(A) == 2 - 4  # rel_ret - nonrel_ret with the default (1, -1, 0, 0)
    assert TR.unjudged_at(A, 5) == 1 / 5  # rank 3 is unjudged
    assert measure("Rprec_mult_1.0")(A) == 1 / 3  # rank int(3 + 0.9) = 3: one relevant in the top 3


def test_trec_relstring_marks() -> None:
    a = ranked("10--0", 1, grades=[3, 0, float("nan"), -1, 12])
    assert TR.trec_relstring(a) == "30-.>"  # digit, digit, not in qrels, negative grade, above 9


def test_api_defaults_follow_the_input_kind(tmp_path: Path) -> None:
    import segeval
    from segeval.adapters import ExactAdapter
    from segeval.core.errors import ParameterError

    qrels, run = _files(tmp_path)
    ev = segeval.evaluate(qrels, run, ["map"])  # documents: exact adapter, score order
    assert ev.frame().loc["q1", "map"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    official = segeval.evaluate(qrels, run)  # the official set by default
    assert "P_10" in official.summary and "gm_map" in official.summary
    seg = segeval.evaluate(str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run"), ["map"],
                           adapter="binned:60")
    assert list(seg.summary) == ["map_bin"]
    with pytest.raises(ParameterError, match="cannot both be given"):
        segeval.evaluate(qrels, run, ["map"], [ExactAdapter()], adapter="exact")


def test_complete_num_rel_summary_counts_every_positive_qrels_line_as_trec_eval(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 2\n1 0 c 2\n2 0 a 1\n2 0 b 2\n2 0 c 0\n3 0 x 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n")
    ev = evaluate(q, r, ["num_rel"], missing_queries="zero", relevance_level=2)
    # per query with -l 2: q1 {b, c} 2, q2 {b} 1, q3 0; trec_eval 10's -c summary ignores -l and counts every
    # line with rel > 0: q1 3 + q2 2 + q3 1 = 6 (checked against the trec_eval binary)
    assert ev.per_query["num_rel"] == [2, 1, 0] and ev.summary["num_rel"] == 6
    assert evaluate(q, r, ["num_rel"], relevance_level=2).summary["num_rel"] == 2  # without -c: the sum


def test_judged_only_emptied_ranking_is_trec_evals_zero_over_zero(tmp_path: Path) -> None:
    """-J leaving q2 no result: trec_eval's precision num_rel_ret / num_ret is 0/0 (NaN), kept at the
    recall cut-offs needing 0 relevant results, 0 at the others; the same on every route and in JSON."""
    qrels = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 1\nq3 0 e 1\n"
    run = "q1 Q0 x 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 y 1 1 r\n"
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    frame = pd.DataFrame({"query": ["q1", "q1", "q2"], "docno": ["x", "a", "y"], "score": [2.0, 1.0, 1.0]})
    measures = ["iprec_at_recall", "11pt_avg", "11pt_avg.0.5,1"]
    for version in ("10", "9"):
        for given in (str(tmp_path / "run"), frame):
            ev = evaluate(str(tmp_path / "qrels"), given, measures[:2], judged_only=True, missing_queries="zero",
                          trec_eval=version)
            assert ev.queries == ["q1", "q2", "q3"]
            ip = {lvl: ev.per_query[f"iprec_at_recall_{lvl}"] for lvl in ("0.00", "0.10", "0.20", "0.30", "0.40",
                                                                         "0.50")}
            assert [ip[lvl][0] for lvl in ip] == [1.0] * 6  # q1: a judged relevant at rank 1 after -J
            # q2, R = 2: 10.0 needs lround(p * 2) relevant: 0 for p <= 0.2; 9.0.8 (long)(p * 2 + 0.9): 0 for p = 0
            emptied_q2 = ["0.00", "0.10", "0.20"] if version == "10" else ["0.00"]
            assert [lvl for lvl in ip if math.isnan(ip[lvl][1])] == emptied_q2
            assert all(ip[lvl][1] == 0.0 for lvl in ip if lvl not in emptied_q2)
            # q3 (added by -c), R = 1: trec_eval 10 ranks a dummy unjudged document, which -J drops: 0/0 where
            # lround(p) = 0 (p <= 0.4); 9.0.8 averages it in as 0 without evaluating it
            emptied_q3 = ["0.00", "0.10", "0.20", "0.30", "0.40"] if version == "10" else []
            assert [lvl for lvl in ip if math.isnan(ip[lvl][2])] == emptied_q3
            assert math.isnan(ev.per_query["11pt_avg"][1]) and math.isnan(ev.summary["11pt_avg"])  # cut-off 0 at p=0
            assert math.isnan(ev.summary["iprec_at_recall_0.00"])
            assert ev.summary["iprec_at_recall_0.50"] == pytest.approx(1 / 3)  # (1 + 0 + 0) / 3
    # every level needing a relevant result: 0, not NaN (q2: lround(0.5 * 2) = 1, q3: lround(0.5) = 1)
    ev = evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), measures[2:], judged_only=True,
                  missing_queries="zero")
    assert ev.per_query["11pt_avg_0.5,1"] == [1.0, 0.0, 0.0]
    code, out, _ = run_cli("eval", "-J", "-c", "-q", "-o", "json", "-m", "11pt_avg", str(tmp_path / "qrels"),
                           str(tmp_path / "run"))
    assert code == 0 and '"11pt_avg": null' in out
