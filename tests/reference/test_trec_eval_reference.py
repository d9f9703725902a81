"""`segeval eval` against trec_eval's own test suite outputs (../shared/data/trec_eval; CI).

Each case is the command the shared README gives for the expected file; the whole
output must equal trec_eval's byte for byte.
"""

from __future__ import annotations

import pytest

from tests.conftest import run_cli, shared

pytestmark = pytest.mark.reference

CASES = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    # -c with a truncated run whose lines carry extra fields, which trec_eval ignores
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    # graded qrels with -1 grades, relevance level 2, a parameterised relstring
    "out.test.aql": ["-m", "all_trec", "-m", "relstring.20", "-q", "-l", "2", "qrels.rel_level", "results.test"],
    "out.test.meas_params": [
        "-q", "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4", "-m", "success.2,5,20", "qrels.test", "results.test"],
}


@pytest.mark.parametrize("expected", sorted(CASES))
def test_equals_trec_eval_byte_for_byte(expected: str) -> None:
    args = [str(shared("trec_eval", a)) if a.startswith(("qrels", "results")) else a for a in CASES[expected]]
    code, out, err = run_cli("eval", *args)
    assert code == 0, err
    assert out == shared("trec_eval", expected).read_text()
