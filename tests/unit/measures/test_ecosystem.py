"""ir_measures' and ranx's measure names (issue 24): name resolution, the measures added for them
(hand-derived values), and a differential sweep over ir_measures' measure registry and ranx's metric
names on generated graded data with ties: each name equals the peer's value or is a documented exception."""

from __future__ import annotations

import math
import os
import random
from typing import Any

import pandas as pd
import pytest

import segeval
from segeval.core.errors import ParameterError
from segeval.measures.catalogue import DOC
from segeval.measures.definitions import ECOSYSTEM, REGISTRY
from tests.conftest import full_only, run_cli
from tests.support.reference import require_binary, require_module

FULL = os.environ.get("SEGEVAL_FULL") == "1"


def _tiny() -> tuple[pd.DataFrame, pd.DataFrame]:
    """q1: d1 grade 2, d2 grade 0, d3 grade 1, d4 grade 3 (not retrieved); ranked d2, d1, d3."""
    qrels = pd.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["d1", "d2", "d3", "d4"], "relevance": [2, 0, 1, 3]})
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["d2", "d1", "d3"], "score": [3.0, 2.0, 1.0]})
    return qrels, run


def _value(name: str, qrels: pd.DataFrame, run: pd.DataFrame) -> float:
    ev = segeval.evaluate(qrels, run, measures=[name])
    (key,) = ev.per_query
    return float(ev.per_query[key][0])


@pytest.mark.parametrize(("name", "expected"), [
    # ERR@3: stop probabilities (2^g - 1)/16 = 0, 3/16, 1/16: 3/16 * 1 / 2 + 1/16 * 13/16 / 3 = 85/768
    ("ERR@3", 85 / 768),
    # nDCG exp-log2: (3/ln 3 + 1/ln 4) over the ideal 7/ln 2 + 3/ln 3 + 1/ln 4 (grades 3, 2, 1)
    ("nDCG(dcg='exp-log2')@3", (3 / math.log(3) + 1 / math.log(4)) / (7 / math.log(2) + 3 / math.log(3)
                                                                         + 1 / math.log(4))),
    ("ndcg_burges@3", (3 / math.log(3) + 1 / math.log(4)) / (7 / math.log(2) + 3 / math.log(3) + 1 / math.log(4))),
    ("dcg@3", 2 / math.log2(3) + 1 / 2),  # grades 0, 2, 1 over log2(rank + 1)
    ("dcg_burges@3", 3 / math.log2(3) + 1 / 2),  # gains 0, 3, 1
    ("RR@1", 0.0), ("mrr@2", 0.5),  # the first relevant result is at rank 2
    ("hits@2", 1.0), ("hits", 2.0),
    ("RBP(p=0.5)", 0.5 * (0.5 + 0.25)),  # relevant at ranks 2 and 3: (1 - p)(p + p^2)
    ("RBP(p=0.5)@2", 0.5 * 0.5),
    ("rbp.50", 0.5 * (2 * 0.5 + 1 * 0.25)),  # ranx's: grades as gains
    ("P(rel=2)@3", 1 / 3), ("R(rel=2)@3", 0.0 + 1 / 2),  # grade >= 2: d1 (retrieved) and d4 (not)
    ("RR(rel=2)", 0.5), ("NumRel(rel=3)", 1.0), ("NumRet(rel=1)", 2.0),
    ("ndcg@3-l2", (2 / math.log2(3)) / (3 + 2 / math.log2(3))),  # ranx: gains below 2 dropped: 0, 2, 0 over 3, 2
    ("P(judged_only=True)@2", 0.5),  # all judged: the same as P@2
    # relevant at grade 2: d1 only, one of the two non-relevant (d2) above it: 1 - 1/(1 * 2)
    ("Accuracy(rel=2)", 0.5), ("Accuracy", 0.0),  # d1 and d3 both below d2: 1 - 2/(2 * 1)
    # ideal [d4, d1, d3] against [d2, d1, d3], p = 0.5: (0 + 0.5 * 1/2 + 0.25 * 2/3) / (1 + 0.5 + 0.25) = 5/21
    ("Compat(p=0.5)", 5 / 21), ("Compat(p=0.5,normalize=False)", 5 / 21),
    # C/W/L, max_rel=2: gains 0, 1, 0.5.  SDCG@2: C = (1/log2 3, 0): W = (1, 1/log2 3) / (1 + 1/log2 3)
    ("SDCG(max_rel=2)@2", 1 / (math.log2(3) + 1)),
    ("NERR8(max_rel=2)@2", 0.5),  # C_1 = 1 - 0, then 0: W = (1/2, 1/2) -> (0 + 1) / 2
    ("BPM(max_rel=2)@3", 0.5),  # cumulative gain 0, 1 (= T): C = (1, 0): W = (1/2, 1/2) -> (0 + 1) / 2
    ("NERR10(p=0.5,max_rel=2)", 1 / 3),  # C = 0.5 (1 - g) = (0.5, 0, ...): W = (1, 0.5) / 1.5 -> 0.5 / 1.5
    # gains 2 -> 5: DCG 5/log2(3) + 1/2 over the ideal 5 (d1), 3 (d4), 1: 5 + 3/log2(3) + 1/2
    ("nDCG(gains={2:5})@3", (5 / math.log2(3) + 1 / 2) / (5 + 3 / math.log2(3) + 1 / 2)),
])
def test_added_measures_hand_derived(name: str, expected: float) -> None:
    qrels, run = _tiny()
    assert _value(name, qrels, run) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("name", "canonical"), [
    ("ndcg@10", "ndcg_cut_10"), ("P(rel=2)@5", "P_5(rel=2)"), ("RR(rel=2)", "recip_rank(rel=2)"),
    ("nDCG(judged_only=True)@10", "ndcg_cut_10(judged_only=True)"), ("nDCG(dcg='exp-log2')@10", "ndcg_exp_cut_10"),
    ("nDCG(dcg='log2')@10", "ndcg_cut_10"), ("map@10", "map_cut_10"), ("MRR", "recip_rank"),
    ("MRR@10", "recip_rank_cut_10"), ("SetF(beta=0.5)", "set_F_0.5"), ("SetP(relative=True)", "set_relative_P"),
    ("nDCG(gains={0:0,1:1,2:3})", "ndcg_0=0,1=1,2=3"), ("ndcg@10-l2", "ndcg_cut_10(rel=2)"),
    ("r-precision", "Rprec"), ("f1@5", "F_5"), ("hit_rate@5", "success_5"), ("precision@5", "P_5"),
    ("rbp.95", "rbp_grade_p=0.95"), ("RBP(p=0.9)@10", "rbp_bin_k=10,p=0.9"), ("NumRet(rel=1)", "num_rel_ret(rel=1)"),
    ("P(rel=2,judged_only=True)@5", "P_5(rel=2,judged_only=True)"), ("ERR@20", "ERR_20"),
])
def test_ecosystem_names(name: str, canonical: str) -> None:
    assert [m.name for m in REGISTRY.expand(name)] == [canonical]


def test_options_are_per_measure() -> None:
    """rel=2 on one measure leaves the others at the run's level."""
    qrels, run = _tiny()
    ev = segeval.evaluate(qrels, run, measures=["P(rel=2)@3", "P@3"])
    assert ev.summary == {"P_3(rel=2)": pytest.approx(1 / 3), "P_3": pytest.approx(2 / 3)}


@pytest.mark.parametrize(("name", "says"), [
    ("P(foo=1)@5", "Got foo=1"), ("P(rel=-1)@5", "rel=N (an integer >= 0)"), ("P(rel=2", "Name(option=value"),
    ("P(rel=)@5", "name=value options"), ("ERR_IA(alpha=0.3)@20", "Got alpha=0.3"),
    ("alpha_nDCG(alpha=0.3,beta=1)@20", "Got beta=1"),
    ("ndcgg@10", "did you mean nDCG@10"), ("utility@2", "did you mean"), ("nDCG(gains=[2])@10", "gains"),
])
def test_refusals_name_the_fix(name: str, says: str) -> None:
    with pytest.raises(ParameterError, match=None) as e:
        REGISTRY.expand(name)
    assert says in str(e.value)


def test_cli_takes_ecosystem_names(tmp_path: Any) -> None:
    qrels, run = _tiny()
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} {i} {s} x\n" for i, (q, d, s) in
                                        enumerate(run.itertuples(index=False))))
    code, out, err = run_cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "ndcg@10", "-m", "P(rel=2)@5",
                             "-m", "P@5")
    assert code == 0, err
    values = {line.split()[0]: line.split()[-1] for line in out.splitlines()}
    # P@5: d1, d3 relevant at level 1 (2/5); at rel=2 only d1 (1/5), whichever route reads the files
    assert (values["P_5(rel=2)"], values["P_5"]) == ("0.2000", "0.4000") and "ndcg_cut_10" in values
    code, _, err = run_cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "ndcgg@10")
    assert code == 2 and "did you mean" in err


def test_ir_measures_objects_in_the_api() -> None:
    ir_measures = require_module("ir_measures")
    qrels, run = _tiny()
    ev = segeval.evaluate(qrels, run, measures=[ir_measures.P(rel=2) @ 3, ir_measures.nDCG @ 3])
    assert ev["P_3(rel=2)"] == pytest.approx(1 / 3)


# ---- the differential sweep --------------------------------------------------------------------------------

def generated(seed: int, n_q: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Graded qrels (grades -1..3; some queries 0..2) and runs whose scores tie often."""
    rng = random.Random(seed)
    q, r = [], []
    for qi in range(n_q):
        docs = [f"d{j:02d}" for j in range(30)]
        grades = [0, 0, 1, 1, 2, 3, -1] if qi % 3 else [0, 1, 2]
        q += [(str(101 + qi), d, rng.choice(grades)) for d in rng.sample(docs, 18)]
        r += [(str(101 + qi), d, float(rng.randint(0, 6))) for d in rng.sample(docs, rng.randint(3, 22))]
    return (pd.DataFrame(q, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(r, columns=["query_id", "doc_id", "score"]))


def untied(run: pd.DataFrame) -> pd.DataFrame:
    """The run with trec_eval's tie order (score, then docno descending) made explicit in distinct scores."""
    run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    return run.assign(score=[float(len(run) - i) for i in range(len(run))])


#: documented exceptions (docs/measures.md, "ir_measures and ranx"): name prefix -> (why, how checked)
#: "untied": equal once score ties are broken as trec_eval does; "trec_eval 9": equal under --trec-eval 9;
#: "rounded": the peer prints 5 decimals; "differs": a different definition, not compared
EXCEPTIONS = {
    "IPrec": "trec_eval 9",  # pytrec_eval is trec_eval 9.0.8: its interpolation cut-off rounds up
    "RR@": "untied", "MRR@": "untied",  # ir_measures' msmarco provider breaks ties by docno ascending
    "RR(rel=2)@": "untied",
    **dict.fromkeys(("RBP", "INST", "INSQ", "SDCG", "NERR", "BPM"), "untied"),  # cwl_eval's own tie order
    "ERR@": "rounded", "nDCG(dcg='exp-log2')": "rounded",  # gdeval prints %.5f
    "Judged": "differs",  # segeval's Judged@n is MediaEval's (over n; negative grades unjudged)
    "Compat": "untied",  # ties by docno ascending
    "Accuracy": "untied",  # its own tie order; it reports only queries with a relevant result: compared on those
    # pyndeval (ndeval) breaks ties by docno ascending; these qrels have one subtopic (tests/unit/measures/
    # test_diversity.py compares several)
    **dict.fromkeys(("ERR_IA", "nERR_IA", "alpha_", "α_", "NRBP", "nNRBP", "AP_IA", "MAP_IA", "P_IA", "StRecall"),
                    "untied"),
}
RANX_EXCEPTIONS = {"bpref": "differs"}  # ranx counts negative grades as judged non-relevant
MISSING = set(ECOSYSTEM.missing)
#: ir_measures' options beside rel/judged_only/cutoff, one example value each (its docs' examples)
EXAMPLES: dict[str, list[object]] = {
    "rel": [2], "judged_only": [True], "dcg": ["log2", "exp-log2"], "gains": [{0: 0, 1: 1, 2: 3, 3: 5}],
    "p": [0.5], "beta": [0.5], "normalize": [False], "relative": [True], "recall": [0.2], "T": [2], "max_rel": [3],
    "alpha": [0.5]}


def ir_names(ir_measures: Any) -> list[str]:
    """Every ir_measures registry name, alone, @5, and with each option's example (cut-off 10)."""
    out = []
    for name, m in ir_measures.measures.registry.items():
        keys = list(m.SUPPORTED_PARAMS)
        out += [name] + ([f"{name}@5"] if "cutoff" in keys else [])
        for key in keys:
            for value in EXAMPLES.get(key, []):
                kw: dict[str, object] = {key: value}
                kw |= {"cutoff": 10} if "cutoff" in keys and key != "cutoff" else {}
                kw |= {"max_rel": 3} if "max_rel" in keys and key != "max_rel" else {}
                kw |= {"rel": 1} if name == "RBP" and key != "rel" else {}  # cwl_eval's RBP requires rel
                try:
                    out.append(str(m(**kw)))
                except (AssertionError, TypeError, ValueError):  # an option the measure refuses there
                    continue
    return list(dict.fromkeys(out))


def _ours(name: str, qrels: pd.DataFrame, run: pd.DataFrame, **kw: Any) -> dict[str, float]:
    ev = segeval.evaluate(qrels, run, measures=[name], **kw)
    (key,) = ev.per_query
    return {q: float(v) for q, v in zip(ev.queries, ev.per_query[key], strict=True)}


def _gap(a: float, b: float) -> float:
    return 0.0 if math.isnan(a) and math.isnan(b) else abs(a - b)


def _largest(ours: dict[str, float], theirs: dict[str, float]) -> float:
    assert set(theirs) <= set(ours)
    return max((_gap(ours[q], v) for q, v in theirs.items()), default=0.0)


def with_missing(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run without its first query, and the qrels with a query that no run ranks and no document is relevant
    to: the queries ir_measures scores 0 and segeval's missing_queries="zero" (-c) adds."""
    extra = pd.DataFrame({"query_id": ["999", "999"], "doc_id": ["d00", "d01"], "relevance": [0, -1]})
    return pd.concat([qrels, extra], ignore_index=True), run[run["query_id"] != run["query_id"].iloc[0]]


#: ir_measures' names whose all line is segeval's default (the run's queries), not -c's (docs/measures.md)
RUN_QUERIES_ONLY = ECOSYSTEM.run_queries
#: its all line averages the queries it reports, those with a relevant result (docs/measures.md): per query only
PER_QUERY_ONLY = ("Accuracy",)


def test_every_ir_measures_name_equals_its_provider() -> None:
    """Per query and the all line (ir_measures' calc_aggregate: every qrels query, those missing from the run
    0), on a run missing qrels queries: the all line equals segeval's under missing_queries="zero" (-c), or for
    RUN_QUERIES_ONLY the default, as docs/measures.md says."""
    ir_measures = require_module("ir_measures")
    require_module("cwl", why="cwl-eval, ir_measures' provider of RBP, INST, INSQ, SDCG, NERR and BPM")
    require_module("pyndeval", why="ir_measures' provider of the diversity measures")
    require_binary("perl", why="ir_measures runs gdeval.pl for ERR and nDCG(dcg='exp-log2')")
    qrels, run = with_missing(*generated(0, 8 if not FULL else 40))
    compared, excepted, missing, largest, heads = 0, 0, 0, 0.0, set()
    for name in ir_names(ir_measures):
        m = ir_measures.parse_measure(name)
        head = name.split("(")[0].split("@")[0]
        if head in MISSING:  # refused, saying why
            with pytest.raises(ParameterError, match="segeval computes"):
                segeval.evaluate(qrels, run, measures=[name])
            missing += 1
            continue
        how = next((v for k, v in EXCEPTIONS.items() if name.startswith(k)), "")
        if how == "differs":
            excepted += 1
            continue
        given = untied(run) if how == "untied" else run
        try:
            theirs = ir_measures.calc([m], qrels, given)
        except (ValueError, AssertionError, TypeError):
            continue  # no provider installed here, or a required option absent: ir_measures refuses it too
        except ZeroDivisionError:  # ir_measures' Accuracy on a query without a non-relevant result
            assert name.startswith("Accuracy"), name
            continue
        complete = head not in RUN_QUERIES_ONLY
        ev = segeval.evaluate(qrels, given, [name], missing_queries="zero" if complete else "skip",
                              **({"trec_eval": "9"} if how == "trec_eval 9" else {}))
        (key,) = ev.per_query
        ours = {q: float(v) for q, v in zip(ev.queries, ev.per_query[key], strict=True)}
        per_query = {x.query_id: float(x.value) for x in theirs.per_query if complete or x.query_id in ours}
        diff = _largest(ours, per_query)
        if head not in PER_QUERY_ONLY:
            diff = max(diff, _gap(float(ev.summary[key]), float(theirs.aggregated[m])))
        assert diff <= (5e-6 if how == "rounded" else 1e-9), (name, diff)
        largest = max(largest, diff if how != "rounded" else 0.0)
        compared, heads = compared + 1, heads | {head}
    # every provider took part (a provider ir_measures cannot run raises, and the name is passed over)
    assert {"AP", "ERR", "nDCG", "SDCG", "INST", "BPM", "alpha_nDCG", "Compat", "Accuracy", "RR"} <= heads  # RBP: below
    print(f"ir_measures names: {compared} equal, {excepted} documented exceptions, {missing} refused as missing; "
          f"largest difference {largest:.3g}")
    assert compared >= 60 and largest <= 1e-12, (compared, excepted, missing, largest)


@pytest.mark.parametrize("name", ["RBP(rel=1)", "RBP(rel=1,p=0.5)", "RBP(rel=2)"])
def test_rbp_equals_cwl_eval(name: str) -> None:
    """ir_measures computes RBP with cwl_eval (the test extra's cwl-eval).  cwl_eval
    orders score ties its own way: compared with trec_eval's tie order made explicit."""
    ir_measures = require_module("ir_measures")
    require_module("cwl", why="cwl-eval, ir_measures' provider for RBP")
    qrels, run = generated(2, 8)
    run = untied(run)
    theirs = {x.query_id: float(x.value) for x in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, run)}
    assert _largest(_ours(name, qrels, run), theirs) <= 1e-12


RANX_NAMES = ["hits", "hits@5", "hit_rate@5", "precision@5", "precision", "recall@10", "recall", "f1@5", "f1",
              "r-precision", "mrr", "mrr@5", "map", "map@10", "dcg", "dcg@10", "dcg_burges@10", "ndcg", "ndcg@10",
              "ndcg_burges@10", "bpref", "rbp.80", "ndcg@10-l2", "precision@5-l2", "map@10-l2", "mrr-l2"]
#: ranx names segeval reads as trec_eval does, beside the segeval name of ranx's meaning (docs/measures.md)
RANX_AS = {"recall": "set_recall"}


def _ranx_dicts(frame: pd.DataFrame, column: str, kind: type) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in frame[["query_id", "doc_id", column]].itertuples(index=False):
        out.setdefault(q, {})[d] = kind(v)
    return out


@full_only  # ranx compiles its measures with numba first (~20 s)
def test_every_ranx_name_equals_ranx() -> None:
    """Per query, and the mean ranx gives with make_comparable=True on a run missing qrels queries (segeval's
    missing_queries="zero").  ranx breaks score ties its own way: compared with trec_eval's tie order made
    explicit."""
    ranx = require_module("ranx")
    qrels, run = generated(1, 8 if not FULL else 40)
    run = untied(run)
    fewer_qrels, fewer = with_missing(qrels, run)
    ranx_qrels, ranx_run = ranx.Qrels(_ranx_dicts(qrels, "relevance", int)), ranx.Run(_ranx_dicts(run, "score", float))
    for name in RANX_NAMES:
        if name in RANX_EXCEPTIONS:
            continue
        ours = RANX_AS.get(name, name)
        values = ranx.evaluate(ranx_qrels, ranx_run, name, return_mean=False, make_comparable=True)
        theirs = dict(zip(ranx_run.get_query_ids(), map(float, values), strict=True))
        assert _largest(_ours(ours, qrels, run), theirs) <= 1e-12, name
        mean = ranx.evaluate(ranx.Qrels(_ranx_dicts(fewer_qrels, "relevance", int)),
                             ranx.Run(_ranx_dicts(fewer, "score", float)), name, make_comparable=True)
        summary = segeval.evaluate(fewer_qrels, fewer, [ours], missing_queries="zero").summary
        assert next(iter(summary.values())) == pytest.approx(float(mean), abs=1e-12), name


@pytest.mark.parametrize(("name", "says"), [("hit_rate", "success_k"), ("ndcg_burges", "ndcg_exp_cut_k"),
                                            ("dcg_burges", "dcg_exp_cut_k"), ("hit_rate-l2", "success_k"),
                                            ("runid", "run file's tag"), ("num_q", "ev['num_q']")])
def test_ranx_whole_list_names_are_refused_naming_the_family(name: str, says: str) -> None:
    with pytest.raises(ParameterError, match="segeval computes") as e:
        REGISTRY.expand(name)
    assert says in str(e.value)
    assert [m.name for m in REGISTRY.expand("recall")][:2] == ["recall_5", "recall_10"]  # trec_eval's family


def test_documented_exceptions_are_the_tested_ones() -> None:
    """Each name the sweep treats as an exception is in docs/measures.md's list of differences."""
    documented = DOC.read_text(encoding="utf-8").split("Documented differences from the peers:")[1].split("\n\n")[1]
    for prefix in (*EXCEPTIONS, *PER_QUERY_ONLY):  # RUN_QUERIES_ONLY is the declaration docs/measures.md prints
        assert prefix.rstrip("@(_").split("(")[0] in documented, prefix


def test_err_refuses_grades_above_gdevals_4() -> None:
    """gdeval.pl refuses a qrels grade above 4 (its largest, $MAX_JUDGMENT); ERR's stop probability
    (2^6 - 1) / 16 would pass 1."""
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [6, 4]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d2"], "score": [1.0]})
    with pytest.raises(ParameterError, match=r"at most 4.*Got a grade 6"):
        segeval.evaluate(qrels, run, ["ERR@1"])
    assert _value("ERR@1", qrels.iloc[1:], run) == 15 / 16  # grade 4: (2^4 - 1) / 2^4


def test_bounded_measures_stay_within_their_bounds_on_large_grades() -> None:
    """Every label measure with declared bounds, on documents graded up to 9 (the exact adapter credits each
    relevant document once): within its bounds, or refused saying why (ERR: gdeval's grades)."""
    from tests.properties.test_registry_invariants import concrete

    rng = random.Random(3)
    q, r = [], []
    for qi in range(4):
        docs = [f"d{j}" for j in range(20)]
        q += [(str(qi), d, rng.choice([0, 1, 5, 6, 9, -1])) for d in rng.sample(docs, 12)]
        r += [(str(qi), d, float(rng.randint(0, 4))) for d in rng.sample(docs, rng.randint(1, 15))]
    qrels = pd.DataFrame(q, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(r, columns=["query_id", "doc_id", "score"])
    checked, refused = 0, []
    for f in REGISTRY.families:
        if f.scope != "labels" or f.stratified or f.fmt == "text" or f.upper is None:
            continue
        for m in concrete(f):
            try:
                values = [v for v in _ours(m.name, qrels, run).values() if not math.isnan(v)]
            except ParameterError:
                refused.append(m.name)
                continue
            assert all((f.lower is None or v >= f.lower - 1e-12) and v <= f.upper + 1e-12 for v in values), m.name
            checked += 1
    assert refused == ["ERR_20"] and checked > 100, (refused, checked)


# ---- segeval's measures inside ir_measures (and PyTerrier) ---------------------------------------------------

def _segments() -> tuple[pd.DataFrame, pd.DataFrame]:
    """q1: relevant v1 0-30 (1) and 50-80 (2), v2 10-40 (1); q2: v1 0-20 judged 0, v3 5-25 (1)."""
    qrels = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["v1", "v1", "v2", "v1", "v3"],
                          "start": [0.0, 50.0, 10.0, 0.0, 5.0], "end": [30.0, 80.0, 40.0, 20.0, 25.0],
                          "relevance": [1, 2, 1, 0, 1]})
    run = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["v1", "v2", "v1", "v3", "v1"],
                        "start": [5.0, 12.0, 60.0, 0.0, 0.0], "end": [25.0, 38.0, 70.0, 30.0, 20.0],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    return qrels, run


def test_segeval_measure_in_ir_measures_with_a_segment_adapter() -> None:
    """tIoU >= 0.5: q1's results meet v1 0-30 (IoU 20/30), v2 10-40 (26/30), v1 50-80 (10/30: no) -> AP
    (1/1 + 2/2) / 3 = 2/3; q2's first result v3 0-30 meets v3 5-25 (20/30) -> AP 1; the mean 5/6."""
    ir_measures = require_module("ir_measures")
    qrels, run = _segments()
    m = segeval.measure("map", adapter="tiou:0.5")
    assert ir_measures.calc_aggregate([m], qrels, run)[m] == pytest.approx(5 / 6)
    per_query = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
    assert per_query == {"q1": pytest.approx(2 / 3), "q2": pytest.approx(1.0)}
    assert str(m) == "segeval:map[adapter=tiou:0.5]"


def _label_measures() -> list[str]:
    """Every registered label measure's concrete names on documents (plain, defaults or example)."""
    from tests.properties.test_registry_invariants import concrete

    return [m.name for f in REGISTRY.families if f.scope == "labels" and not f.stratified
            and f.aggregator not in ("none", "pooled") for m in concrete(f)]


@pytest.mark.parametrize("seed", [5, 6] if FULL else [5])
def test_segeval_measure_inside_ir_measures_gives_segevals_all_line(seed: int) -> None:
    """Every registered label measure inside ir_measures' calc_aggregate equals segeval's own all line (its
    aggregate: sums, means, geometric means) on a run missing qrels queries, under both missing_queries;
    iter_calc gives a query segeval did not evaluate ir_measures' 0."""
    ir_measures = require_module("ir_measures")
    qrels, run = with_missing(*generated(seed, 7))
    names = _label_measures()
    diverse = [n for n in names if REGISTRY.measure(n).family.subtopics]  # asked alone
    for policy in ("skip", "zero"):
        ours = {n: segeval.measure(n, missing_queries=policy) for n in names}
        got = ir_measures.calc_aggregate(list(ours.values()), qrels, run)
        summary = segeval.evaluate(qrels, run, diverse, missing_queries=policy).summary
        summary |= segeval.evaluate(qrels, run, [n for n in names if n not in diverse],
                                    missing_queries=policy).summary
        assert len(ours) > 150 and all(_gap(got[m], summary[n]) == 0 for n, m in ours.items())
    per_query = {x.query_id: x.value for x in ir_measures.iter_calc([segeval.measure("map")], qrels, run)}
    assert per_query["999"] == 0 and len(per_query) == qrels["query_id"].nunique()


def test_segeval_measure_names_carry_the_adapter_and_settings() -> None:
    """Every setting away from its default, and each adapter, makes a distinct name and a distinct ir_measures
    identity (ir_measures compares measures by name); the same settings given either way are one measure."""
    ir_measures = require_module("ir_measures")
    from dataclasses import fields

    examples = {"order": "file", "time_format": "seconds", "relevance_level": 2, "missing_queries": "zero",
                "max_results": 5, "judged_only": True, "trec_eval": "9", "predicted": "ignore", "queries": ("101",),
                "bin_size": 60, "bin_assign": "start", "tolerance": 5, "tiou": 0.7, "t_collar": 0.5,
                "percentage_of_length": 0.5}
    assert set(examples) == {f.name for f in fields(segeval.Settings)}  # a new setting needs an example here
    adapters = ("overlap", "binned:60", "binned:300", "tiou:0.5", "tiou:0.7")
    made = [segeval.measure("map"), *(segeval.measure("map", **{k: v}) for k, v in examples.items()),
            *(segeval.measure("map", adapter=a) for a in adapters)]
    assert len({str(m) for m in made}) == len({hash(m) for m in made}) == len(set(made)) == len(made)
    assert all(str(m).startswith("segeval:map") for m in made)  # never a peer's name (pt.Experiment's "map")
    assert segeval.measure("map", settings=segeval.Settings(relevance_level=2)) == made[3]
    qrels, run = generated(3, 6)
    got = ir_measures.calc_aggregate([made[0], made[3]], qrels, run)
    assert (got[made[0]], got[made[3]]) == (segeval.evaluate(qrels, run, ["map"]).summary["map"],
                                            segeval.evaluate(qrels, run, ["map"], relevance_level=2).summary["map"])
    assert got[made[0]] != got[made[3]]
    with pytest.raises(ParameterError, match="number per query"):
        segeval.measure("relstring")


def test_a_measure_level_is_refused_with_a_segment_adapter() -> None:
    qrels, run = _segments()
    with pytest.raises(ParameterError, match="-l N"):
        segeval.evaluate(qrels, run, ["P(rel=2)@5"], adapter="overlap")
    # judged_only is per measure under any adapter: q1's two results meet relevant segments (1), q2's first meets
    # v3 5-25 and its second only v1 0-20, judged 0 (1/2): the mean 3/4
    ev = segeval.evaluate(qrels, run, ["P(judged_only=True)@2"], adapter="overlap")
    assert ev["P_2(judged_only=True)"] == 0.75


def test_segeval_measure_on_documents_equals_ir_measures_own() -> None:
    ir_measures = require_module("ir_measures")
    qrels, run = generated(3, 8)
    ours = segeval.measure("P(rel=2)@5")
    got = ir_measures.calc_aggregate([ours, ir_measures.P(rel=2) @ 5], qrels, run)
    assert got[ours] == pytest.approx(got[ir_measures.P(rel=2) @ 5], abs=1e-12)
    with pytest.raises(ParameterError, match="one measure"):
        segeval.measure("official")


def test_segeval_measure_in_pyterrier() -> None:
    """pt.Experiment with segeval measures beside PyTerrier's own "map" and "num_rel_ret" (pytrec_eval): their
    own columns.  PyTerrier averages the per-query values itself over its topics (a topic without results 0:
    segeval's missing_queries="zero"), summing only its own count names: segeval's num_rel_ret shows as a mean
    there (docs/api.md)."""
    require_module("ir_measures")
    pt = require_module("pyterrier")
    qrels, run = with_missing(*generated(4, 6))
    topics = pd.DataFrame({"qid": sorted(set(qrels["query_id"])), "query": "x"})
    results = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    ours = [segeval.measure(n, missing_queries="zero") for n in ("map", "num_rel_ret")]
    table = pt.Experiment([results], topics, pt_qrels, eval_metrics=[*ours, "map", "num_rel_ret"], names=["r"])
    assert {str(m) for m in ours} | {"map", "num_rel_ret"} <= set(table.columns)
    assert float(table[str(ours[0])].iloc[0]) == pytest.approx(float(table["map"].iloc[0]), abs=1e-12)
    mean = float(table["num_rel_ret"].iloc[0]) / len(topics)
    assert float(table[str(ours[1])].iloc[0]) == pytest.approx(mean, abs=1e-12)


def test_segeval_segment_measure_in_pyterrier() -> None:
    """pt.Experiment on segment results (start/end columns kept in its frames): map under tIoU >= 0.5 is
    5/6 as derived in test_segeval_measure_in_ir_measures_with_a_segment_adapter."""
    require_module("ir_measures")
    pt = require_module("pyterrier")
    qrels, run = _segments()
    topics = pd.DataFrame({"qid": ["q1", "q2"], "query": "x"})
    results = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    ours = segeval.measure("map", adapter="tiou:0.5")
    table = pt.Experiment([results], topics, pt_qrels, eval_metrics=[ours], names=["r"])
    assert float(table[str(ours)].iloc[0]) == pytest.approx(5 / 6)
