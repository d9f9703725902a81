"""`segeval eval` against trec_eval's own test suite outputs (../shared/data/trec_eval; CI)."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli, shared

pytestmark = pytest.mark.reference

# measures implemented so far; every line segeval prints for them must equal trec_eval's
MEASURES = ["-m", "official", "-m", "recall", "-m", "success", "-m", "map_cut", "-m", "ndcg", "-m", "ndcg_cut",
            "-m", "gm_bpref", "-m", "num_nonrel_judged_ret"]


def _lines(text: str) -> dict[tuple[str, str], str]:
    return {(n, q): v for n, q, v in (line.split("\t") for line in text.splitlines())}


def _compare(expected_file: str, *args: str) -> int:
    code, out, _ = run_cli("eval", *args)
    assert code == 0
    expected = _lines(shared("trec_eval", expected_file).read_text())
    got = _lines(out)
    assert got, "nothing printed"
    mismatched = {k: (v, expected.get(k)) for k, v in got.items() if expected.get(k) != v}
    assert not mismatched
    return len(got)


def test_default_measures_byte_for_byte() -> None:
    code, out, _ = run_cli("eval", str(shared("trec_eval", "qrels.test")), str(shared("trec_eval", "results.test")))
    assert code == 0
    assert out == shared("trec_eval", "out.test").read_text()


def test_per_query_values_equal_out_test_aq() -> None:
    n = _compare("out.test.aq", "-q", *MEASURES, str(shared("trec_eval", "qrels.test")),
                 str(shared("trec_eval", "results.test")))
    # per query: 3 counts, map, Rprec, bpref, recip_rank, 11 iprec, 9 P, 9 recall, 3 success, 9 map_cut,
    # ndcg, 9 ndcg_cut, num_nonrel_judged_ret = 59, for 3 queries; summary: those 59 + runid, num_q, gm_map, gm_bpref
    assert n == 3 * 59 + 63


def test_complete_flag_equals_out_test_aqc() -> None:
    # results.trunc also checks that fields after the sixth are ignored, as trec_eval does
    n = _compare("out.test.aqc", "-q", "-c", *MEASURES, str(shared("trec_eval", "qrels.test")),
                 str(shared("trec_eval", "results.trunc")))
    assert n > 200


def test_relevance_level_equals_out_test_aql() -> None:
    # qrels.rel_level has -1 grades: neither relevant nor judged non-relevant (num_nonrel_judged_ret, bpref)
    n = _compare("out.test.aql", "-q", "-l", "2", *MEASURES, str(shared("trec_eval", "qrels.rel_level")),
                 str(shared("trec_eval", "results.test")))
    assert n > 200


def test_parameter_syntax_equals_out_test_meas_params() -> None:
    # the cut-off and recall-level families of trec_eval's parameter test (utility, 11pt_avg with levels,
    # Rprec_mult and ndcg gain maps are not implemented yet)
    n = _compare("out.test.meas_params", "-q", "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3",
                 "-m", "recall.20,2000", "-m", "ndcg_cut.10,20,23.4", "-m", "success.2,5,20",
                 str(shared("trec_eval", "qrels.test")), str(shared("trec_eval", "results.test")))
    assert n == 4 * 16  # 16 measures for 3 queries and the summary
