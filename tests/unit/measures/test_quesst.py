"""QUESST's figures as registry measures (actCnxe, minCnxe, actTWV, maxTWV, maxTWV_threshold): every value
derived by hand, per query and pooled (the all line is the figure on every trial, not a mean of the
per-query values), with every parameter."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import segeval
from segeval.core.errors import ParameterError

LN3 = math.log(3)
LOG2_4_3 = math.log2(4 / 3)  # log2(1 + e^-ln3): a target at LLR ln 3, or a non-target at -ln 3, at prior 1/2
BETA = (1 / 100) * (1 - 0.0008) / 0.0008  # 12.49, the task's costs
# q1: target u1 at ln 3 (YES), non-target u2 at -ln 3 (NO); q2: target u3 and non-targets u4, u5, u6, all at 0,
# u3 and u4 YES
KEY = "q1 u1 1\nq1 u2 0\nq2 u3 1\nq2 u4 0\nq2 u5 0\nq2 u6 0\n"


def stdlist(terms: dict[str, list[tuple[str, float, str]]]) -> str:
    body = "".join(f'<detected_termlist termid="{q}">\n' + "".join(
        f'<term file="{u}" channel="1" tbeg="0" dur="1" score="{s!r}" decision="{d}"/>\n' for u, s, d in ts) +
        "</detected_termlist>\n" for q, ts in terms.items())
    return f'<?xml version="1.0"?>\n<stdlist system_id="sys">\n{body}</stdlist>\n'


RUN = stdlist({"q1": [("u1", LN3, "YES"), ("u2", -LN3, "NO")],
               "q2": [("u3", 0.0, "YES"), ("u4", 0.0, "YES"), ("u5", 0.0, "NO"), ("u6", 0.0, "NO")]})


def evaluate(tmp_path: Path, measures: list[str], key: str = KEY, run: str = RUN,
             **options: object) -> segeval.Evaluation:
    (tmp_path / "key").write_text(key)
    (tmp_path / "run.xml").write_text(run)
    return segeval.evaluate(tmp_path / "key", tmp_path / "run.xml", measures, **options)  # type: ignore[arg-type]


def values(ev: segeval.Evaluation, name: str) -> dict[str, float]:
    return {**dict(zip(ev.queries, map(float, ev.per_query[name]), strict=True)), "all": float(ev.summary[name])}


def test_act_cnxe_per_query_and_pooled(tmp_path: Path) -> None:
    got = values(evaluate(tmp_path, ["actCnxe.prior=0.5"]), "actCnxe_prior=0.5")
    assert got["q1"] == pytest.approx(LOG2_4_3, abs=1e-15)  # (½·log2(4/3) + ½·log2(4/3)) / H(½) = log2(4/3)
    assert got["q2"] == pytest.approx(1.0, abs=1e-15)  # every LLR 0: Cxe = ½·1 + ½·1 = H(½)
    # pooled: targets (ln3, 0), non-targets (-ln3, 0, 0, 0): ½·(a + 1)/2 + ½·(a + 3)/4 = .375a + .625, a =
    # log2(4/3); the mean of the per-query values would be (a + 1)/2
    assert got["all"] == pytest.approx(0.375 * LOG2_4_3 + 0.625, abs=1e-15)


def test_act_cnxe_default_prior_is_the_costs_effective_prior(tmp_path: Path) -> None:
    ev = evaluate(tmp_path, ["actCnxe", "actCnxe.p_target=0.5,cost_miss=1"])
    p = 0.0008 * 100 / (0.0008 * 100 + 0.9992)  # 0.0741: P_target·C_miss / (P_target·C_miss + (1 − P_target)·C_fa)
    h = -(p * math.log2(p) + (1 - p) * math.log2(1 - p))
    # q1, logit p = ln(1/β): a target at ln3 costs log2(1 + β/3), a non-target at -ln3 log2(1 + 1/(3β))
    expected = (p * math.log2(1 + BETA / 3) + (1 - p) * math.log2(1 + 1 / (3 * BETA))) / h
    assert values(ev, "actCnxe")["q1"] == pytest.approx(expected, rel=1e-14)
    # P_target ½, C_miss = C_fa = 1: the effective prior is ½, as in the test above
    assert values(ev, "actCnxe_p_target=0.5,cost_miss=1")["q1"] == pytest.approx(LOG2_4_3, abs=1e-15)


def test_min_cnxe_per_query_and_pooled(tmp_path: Path) -> None:
    got = values(evaluate(tmp_path, ["minCnxe.prior=0.5"]), "minCnxe_prior=0.5")
    assert got["q1"] == 0.0  # the scores separate the classes: PAV gives posteriors 0 and 1, LLRs -inf and +inf
    assert got["q2"] == pytest.approx(1.0, abs=1e-15)  # one tied block: posterior ¼ = the target share, LLR 0
    # pooled, by score: -ln3 (non) | 0 (1 target, 3 non) | ln3 (target): posteriors 0, ¼, 1; the target share
    # is 1/3, so the tied block's LLR is logit ¼ − logit ⅓ = ln(2/3): its target costs log2(1 + 3/2), its
    # non-targets log2(1 + 2/3); Cxe = ½·log2(2.5)/2 + ½·3·log2(5/3)/4
    assert got["all"] == pytest.approx(0.25 * math.log2(2.5) + 0.375 * math.log2(5 / 3), abs=1e-15)


def test_min_cnxe_of_one_class_is_zero(tmp_path: Path) -> None:
    # q1 has no non-target: recalibrating every score to +inf costs nothing
    ev = evaluate(tmp_path, ["minCnxe", "actCnxe.prior=0.5"], key="q1 u1 1\nq1 u2 1\n",
                  run=stdlist({"q1": [("u1", LN3, "YES"), ("u2", LN3, "NO")]}))
    assert values(ev, "minCnxe") == {"q1": 0.0, "all": 0.0}
    assert values(ev, "actCnxe_prior=0.5")["all"] == pytest.approx(0.5 * LOG2_4_3, abs=1e-15)  # ½·log2(4/3) / 1


def test_act_twv_given_and_bayes(tmp_path: Path) -> None:
    ev = evaluate(tmp_path, ["actTWV", "actTWV.decisions=bayes", "actTWV.decisions=bayes,p_target=0.5,cost_miss=1"])
    got = values(ev, "actTWV")
    assert got["q1"] == 1.0  # the target YES, the non-target NO
    assert got["q2"] == pytest.approx(1 - BETA / 3, abs=1e-13)  # P_miss 0, P_FA 1/3 (u4 YES)
    assert got["all"] == pytest.approx((1 + 1 - BETA / 3) / 2, abs=1e-13)  # the mean over the two queries
    # bayes: YES when the LLR is >= ln 12.49 = 2.52: no trial is, every target missed: 1 − 1 = 0
    assert values(ev, "actTWV_decisions=bayes") == {"q1": 0.0, "q2": 0.0, "all": 0.0}
    # β = (1/1)(½)/½ = 1, threshold ln 1 = 0: q1 as given (1); q2 all YES: 1 − (0 + 1·1) = 0
    assert values(ev, "actTWV_p_target=0.5,cost_miss=1,decisions=bayes") == {"q1": 1.0, "q2": 0.0, "all": 0.5}


def test_act_twv_leaves_out_queries_without_a_target(tmp_path: Path) -> None:
    # q3 (no target) accepts its non-target: -β on its own line (nothing to miss), not in the all line
    key = KEY + "q3 u1 0\n"
    run = RUN.replace("</stdlist>", '<detected_termlist termid="q3"><term file="u1" score="0" decision="YES"/>'
                                    "</detected_termlist>\n</stdlist>")
    got = values(evaluate(tmp_path, ["actTWV"], key=key, run=run), "actTWV")
    assert got["q3"] == pytest.approx(1 - BETA, abs=1e-13)
    assert got["all"] == pytest.approx((1 + 1 - BETA / 3) / 2, abs=1e-13)


def test_max_twv_and_threshold(tmp_path: Path) -> None:
    ev = evaluate(tmp_path, ["maxTWV", "maxTWV_threshold", "maxTWV.cost_fa=0.01", "maxTWV_threshold.cost_fa=0.01"])
    # q1: at ln3 the target alone is accepted: 1; q2: accepting all (threshold 0) gives 1 − β < 0, rejecting all 0
    assert values(ev, "maxTWV") == {"q1": 1.0, "q2": 0.0, "all": 0.5}
    # pooled (weights ½ a query): at ln3 q2's target is missed: 1 − ½ = 0.5; at 0 q2's three FAs cost β/2
    assert values(ev, "maxTWV_threshold") == {"q1": pytest.approx(LN3), "q2": math.inf, "all": pytest.approx(LN3)}
    # C_fa 0.01: β = 0.1249; q2 at 0: 1 − β = 0.8751; pooled at 0: q1's non-target rejected, q2's three FAs cost
    # 3·β/(3·2): 1 − β/2 = 0.93755
    beta = 0.01 / 100 * 0.9992 / 0.0008
    got = values(ev, "maxTWV_cost_fa=0.01")
    assert got == {"q1": 1.0, "q2": pytest.approx(1 - beta, abs=1e-13), "all": pytest.approx(1 - beta / 2, abs=1e-13)}
    assert values(ev, "maxTWV_threshold_cost_fa=0.01") == {"q1": pytest.approx(LN3), "q2": 0.0, "all": 0.0}


def test_default_score_of_unreported_trials(tmp_path: Path) -> None:
    key = "q1 u1 1\nq1 u2 0\nq1 u3 0\n"
    run = stdlist({"q1": [("u1", 1.0, "YES"), ("u2", -1.0, "NO")]})  # u3 unreported
    ev = evaluate(tmp_path, ["maxTWV", "maxTWV_threshold", "maxTWV.default_score=5", "maxTWV_threshold.default_score=5",
                             "actTWV", "actCnxe.prior=0.5,default_score=0"], key=key, run=run)
    # by default u3 scores -1 (the lowest reported score): at threshold 1 the target alone is accepted: 1
    assert values(ev, "maxTWV")["all"] == 1.0 and values(ev, "maxTWV_threshold")["all"] == 1.0
    # u3 at 5, above the target: threshold 1 accepts both (1 − β/2 < 0), threshold 5 u3 alone (1 − 1 − β/2):
    # rejecting all (threshold inf) is best, 0
    assert values(ev, "maxTWV_default_score=5")["all"] == 0.0
    assert values(ev, "maxTWV_threshold_default_score=5")["all"] == math.inf
    assert values(ev, "actTWV")["all"] == 1.0  # an unreported trial is NO
    # u3 at LLR 0 costs log2(2) = 1, u2 at -1 log2(1 + e^-1), the target at 1 log2(1 + e^-1), at prior ½:
    # ½·log2(1 + e^-1) + ½·(log2(1 + e^-1) + 1)/2
    b = math.log2(1 + math.exp(-1))
    assert values(ev, "actCnxe_prior=0.5,default_score=0")["all"] == pytest.approx(0.5 * b + 0.25 * (b + 1), abs=1e-15)


def test_trec_run_and_qrels(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {u} {r}\n" for q, u, r in (x.split() for x in KEY.splitlines())))
    (tmp_path / "run").write_text(f"q1 Q0 u1 1 {LN3!r} r\nq1 Q0 u2 2 {-LN3!r} r\n"
                                  "q2 Q0 u3 1 0 r\nq2 Q0 u4 2 0 r\nq2 Q0 u5 3 0 r\nq2 Q0 u6 4 0 r\n")
    trec = segeval.evaluate(tmp_path / "qrels", tmp_path / "run", ["actCnxe", "minCnxe", "maxTWV",
                                                                    "actTWV.decisions=bayes"])
    xml = evaluate(tmp_path, ["actCnxe", "minCnxe", "maxTWV", "actTWV.decisions=bayes"])
    assert trec.summary == xml.summary and trec.per_query == xml.per_query  # the same trials, the same values
    with pytest.raises(ParameterError, match=r"decisions=given .* actTWV.decisions=bayes"):
        segeval.evaluate(tmp_path / "qrels", tmp_path / "run", ["actTWV"])  # TREC lines carry no decision


def test_parameters_are_checked() -> None:
    for bad in ("actCnxe.prior=1", "actCnxe.prior=maybe", "actTWV.decisions=sometimes", "maxTWV.p_target=0",
                "maxTWV.cost_fa=-1", "minCnxe.decisions=bayes", "maxTWV.prior=0.5"):
        with pytest.raises(ParameterError, match=r"parameters must be key=value|The '\w+\.\w+' parameter must be"):
            segeval.measures.REGISTRY.expand(bad)


def test_tables_in_memory_give_the_same_values(tmp_path: Path) -> None:
    import pandas as pd

    rows = [x.split() for x in KEY.splitlines()]
    qrels = pd.DataFrame({"query_id": [q for q, _, _ in rows], "doc_id": [u for _, u, _ in rows],
                          "relevance": [int(r) for _, _, r in rows]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q2", "q2"],
                        "doc_id": ["u1", "u2", "u3", "u4", "u5", "u6"], "score": [LN3, -LN3, 0.0, 0.0, 0.0, 0.0]})
    names = ["actCnxe", "minCnxe", "maxTWV", "actTWV.decisions=bayes"]
    frames, files = segeval.evaluate(qrels, run, names), evaluate(tmp_path, names)
    assert frames.summary == files.summary and frames.per_query == files.per_query
    with pytest.raises(segeval.core.errors.InputError, match=r"<run>, line 2: query q3 in utterance u1 is not a trial"):
        segeval.evaluate(qrels, run.assign(query_id=["q1", "q3", "q2", "q2", "q2", "q2"], doc_id=["u1"] * 6), names)


def test_values_do_not_depend_on_the_order_of_lines(tmp_path: Path) -> None:
    """The trials are taken in utterance-id order, so every sum is the same bit for bit whatever the order of
    the key's and the run's lines (ranx objects, for one, give the key in another order)."""
    import random

    rng = random.Random(7)
    key = [f"q{q} 0 u{u} {int(rng.random() < 0.3)}\n" for q in range(3) for u in range(40)]
    run = [f"q{q} Q0 u{u} 1 {rng.uniform(-9, 9)!r} r\n" for q in range(3) for u in range(40) if rng.random() < 0.8]
    names = ["actCnxe", "minCnxe", "maxTWV", "maxTWV_threshold", "actTWV.decisions=bayes"]
    seen = set()
    for _ in range(4):  # floating-point sums of these 120 terms differ in the last bits when reordered
        rng.shuffle(key)
        rng.shuffle(run)
        (tmp_path / "qrels").write_text("".join(key))
        (tmp_path / "run").write_text("".join(run))
        ev = segeval.evaluate(tmp_path / "qrels", tmp_path / "run", names)
        seen.add(repr((ev.summary, ev.per_query)))
    assert len(seen) == 1
