"""Results out of an Evaluation, as the ecosystem reads them: ``ev["map"]``, pytrec_eval's
``{query: {measure: value}}`` (checked against pytrec_eval itself), ``to_dataframe``."""

from __future__ import annotations

import random

import pytest

from segeval import Evaluator, ParameterError
from tests.support.reference import require_module

QRELS = {"q1": {"d1": 2, "d2": 1, "d9": 0}, "q2": {"d3": 1, "d4": 3}}
RUN = {"q1": {"d2": 3.0, "d1": 2.0, "d5": 1.0}, "q2": {"d3": 3.0, "d4": 1.0}}


def test_getitem_and_frames() -> None:
    ev = Evaluator(QRELS, ["map", "P_2", "ndcg"]).evaluate(RUN)
    # q1: relevant d2 at 1, d1 at 2: AP (1/1 + 2/2) / 2 = 1; q2: d3 at 1, d4 at 2: 1; P_2 = 2/2 for both
    assert ev["map"] == 1.0 and ev["P_2"] == 1.0 and "ndcg" in ev and "map_bin" not in ev
    assert ev.keys() == ["map", "P_2", "ndcg"]
    with pytest.raises(ParameterError, match="must be one of the evaluated measures"):
        ev["P_10"]
    # the ecosystem's spellings and objects read the same values; num_q is trec_eval's report row
    ir_measures = require_module("ir_measures", "ir_measures' measure objects as keys")
    assert (ev["AP"], ev["P@2"], ev[ir_measures.AP], ev[ir_measures.P @ 2], ev["nDCG"]) == (1.0, 1.0, 1.0, 1.0,
                                                                                          ev["ndcg"])
    assert ev["num_q"] == 2 and "AP" in ev and "P@10" not in ev
    with pytest.raises(ParameterError, match="report prints the run file's tag"):
        ev["runid"]
    with pytest.raises(ParameterError, match="several of them"):
        Evaluator(QRELS, ["P_2", "P_5"]).evaluate(RUN)["P@2,5"]
    frame = ev.to_dataframe()
    assert list(frame.index) == ["all"] and frame.loc["all", "map"] == 1.0
    assert list(ev.to_dataframe(per_query=True).index) == ["q1", "q2", "all"]


@pytest.mark.parametrize("seed", range(5))
def test_to_dict_is_pytrec_evals(seed: int) -> None:
    pytrec_eval = require_module("pytrec_eval", "the pytrec_eval differential check")
    rng = random.Random(seed)
    qrels = {f"q{i}": {f"d{j}": rng.choice([-1, 0, 1, 2]) for j in rng.sample(range(30), 12)} for i in range(6)}
    run = {f"q{i}": {f"d{j}": rng.choice([0.5, 1.0, 1.5, 2.0]) for j in rng.sample(range(30), 15)} for i in range(6)}
    measures = ["map", "P_5", "recip_rank", "bpref", "ndcg", "num_rel_ret", "num_ret", "num_rel"]
    mine = Evaluator(qrels, measures, {"trec_eval": "9"}).evaluate(run).to_dict()  # pytrec_eval wraps 9.0.8
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5", "recip_rank", "bpref", "ndcg",
                                                    "num_rel_ret", "num_ret", "num_rel"}).evaluate(run)
    assert set(mine) == set(theirs)
    for q, values in mine.items():
        assert values == pytest.approx({m: theirs[q][m] for m in measures}, abs=1e-12), q
        assert {m: type(v) for m, v in values.items()} == {m: type(theirs[q][m]) for m in measures}  # counts float
