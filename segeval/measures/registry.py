"""Every measure declared once: name, parameter, input, aggregator, format, description.

Canonical names follow trec_eval (``P_10``, ``map``); ir_measures spellings
(``P@10``, ``AP``, ``Judged@10``) are accepted on input.  Help text and the
README measure table are generated from :data:`FAMILIES`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from segeval.errors import ParameterError
from segeval.measures import adr as ADR
from segeval.measures import batch as B
from segeval.measures import labels as L
from segeval.measures import sampled as SAMPLED
from segeval.measures import segments as S
from segeval.measures import trec as T

Scope = Literal["labels", "segments"]
Aggregate = Literal["sum", "mean", "gm", "none"]
Format = Literal["count", "score", "text", "stat"]


@dataclass(frozen=True)
class Family:
    """A measure family; parameterised families (``P``) take one parameter (``P_10``)."""

    name: str
    scope: Scope
    func: Callable[..., Any]
    aggregate: Aggregate
    fmt: Format
    description: str
    param: Literal["int", "recall", "hundredths", "raw", None] = None
    example: str = ""
    #: parameters used when the family is named without one (``P`` -> P_5 ... P_1000)
    defaults: tuple[int, ...] = ()
    #: False for summary-only measures (gm_map is the geometric mean of map)
    per_query: bool = True
    #: all queries at once (:mod:`segeval.measures.batch`), equal to ``func`` query by query
    batch: Callable[..., list[Any]] | None = None

    def canonical(self, param: int | str | None) -> str:
        if self.param is None or param is None:
            return self.name
        if self.param in ("recall", "hundredths"):
            return f"{self.name}_{int(param) / 100:.2f}"
        return f"{self.name}_{param}"


@dataclass(frozen=True)
class Measure:
    """One concrete measure: a family with its parameter."""

    family: Family
    param: int | str | None = None

    @property
    def name(self) -> str:
        return self.family.canonical(self.param)

    @property
    def scope(self) -> Scope:
        return self.family.scope

    @property
    def aggregate(self) -> Aggregate:
        return self.family.aggregate

    @property
    def fmt(self) -> Format:
        return self.family.fmt

    def __call__(self, x: Any) -> Any:
        return self.family.func(x) if self.param is None else self.family.func(x, self.param)

    def batch(self, b: B.Batch) -> list[Any] | None:
        """Every query's value at once, or None when the family has no vectorised form."""
        f = self.family.batch
        if f is None:
            return None
        return f(b) if self.param is None else f(b, self.param)


CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(range(0, 101, 10))


def _iprec(a: Any, p: int) -> float:
    return T.iprec_at_recall(a, p / 100)


def _iprec_9(a: Any, p: int) -> float:
    return T.iprec_at_recall_9(a, p / 100)


def _numbers(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x)
    except ValueError:
        raise ParameterError(f"The measure parameters must be numbers separated by commas. Got {text!r} "
                             f"instead.") from None


def _utility(a: Any, params: str) -> float:
    values = _numbers(params)
    if len(values) != 4:
        raise ParameterError(f"The 'utility' parameters must be 4 numbers (p1,p2,p3,p4). Got {params!r} instead.")
    return T.utility(a, (values[0], values[1], values[2], values[3]))


def _ndcg_gains(a: Any, params: str) -> float:
    try:
        table = T._gain_table(params)
    except ValueError:
        raise ParameterError(f"The 'ndcg' parameters must be level=gain pairs such as 1=3,2=9. Got {params!r} "
                             f"instead.") from None
    return T.ndcg_gains(a, table)


def _eleven_pt(a: Any, params: str) -> float:
    return T.eleven_pt_avg(a, _numbers(params))


FAMILIES: tuple[Family, ...] = (
    Family("videos_ret", "segments", S.videos_ret, "mean", "stat", "distinct videos among the results"),
    Family("videos_rel", "segments", S.videos_rel, "mean", "stat", "videos with a relevant segment"),
    Family("avglength_ret", "segments", S.avglength_ret, "mean", "stat", "mean result length (s)"),
    Family("avglength_rel", "segments", S.avglength_rel, "mean", "stat",
           "mean merged relevant segment length (s)"),
    Family("num_rel", "labels", L.num_rel, "sum", "count", "relevant units (merged segments, bins)",
           batch=B.num_rel),
    Family("num_ret", "labels", L.num_ret, "sum", "count", "ranked units (results, bins)", batch=B.num_ret),
    Family("num_rel_ret", "labels", L.num_rel_ret, "sum", "count", "units labelled relevant", batch=B.num_rel_ret),
    Family("map", "labels", L.average_precision, "mean", "score",
           "average precision; above 1 possible with the overlap adapter", batch=B.average_precision),
    Family("P", "labels", L.precision_at, "mean", "score", "precision at cut-off n", "int", "P_10", CUTOFFS,
           batch=B.precision_at),
    Family("P_judged", "labels", L.precision_judged_at, "mean", "score",
           "P@n(j) (Büttcher et al. 2007): relevant among the first n judged units over n, unjudged skipped (as "
           "P_n under trec_eval -J); also written P@n(j)", "int", "P_judged_20", (10, 20)),
    Family("Judged", "labels", L.judged_at, "mean", "score",
           "judged units in the top n divided by n (as the MediaEval script; ir_measures' Judged@n divides by "
           "min(n, retrieved))", "int", "Judged_10", (10, 20, 30)),
    Family("relString", "labels", L.relstring, "none", "text", "the labels in rank order and their count"),
    Family("num_rel_secs", "segments", S.num_rel_secs, "sum", "count", "seconds of relevant content"),
    Family("num_ret_secs", "segments", S.num_ret_secs, "sum", "count", "seconds watched by the MAiSP user"),
    Family("num_rel_ret_secs", "segments", S.num_rel_ret_secs, "sum", "count",
           "relevant seconds watched by the MAiSP user"),
    Family("maisp", "segments", S.maisp, "mean", "score", "mean average interpolated segment precision"),
    # trec_eval
    Family("gm_map", "labels", L.average_precision, "gm", "score",
           "geometric mean of average precision (floor 1e-5), summary only", per_query=False,
           batch=B.average_precision),
    Family("Rprec", "labels", T.r_precision, "mean", "score", "precision at rank R (R = num_rel)",
           batch=B.r_precision),
    Family("bpref", "labels", T.bpref, "mean", "score",
           "binary preference: relevant results penalised by judged non-relevant ones above them", batch=B.bpref),
    Family("gm_bpref", "labels", T.bpref, "gm", "score", "geometric mean of bpref (floor 1e-5), summary only",
           per_query=False),
    Family("recip_rank", "labels", T.reciprocal_rank, "mean", "score", "1 / rank of the first relevant result",
           batch=B.reciprocal_rank),
    Family("iprec_at_recall", "labels", _iprec, "mean", "score",
           "interpolated precision at recall level r, written r with two decimals", "recall",
           "iprec_at_recall_0.10", RECALL_LEVELS, batch=B.iprec_at_recall),
    Family("recall", "labels", T.recall_at, "mean", "score", "relevant results in the top n over num_rel", "int",
           "recall_100", CUTOFFS),
    Family("ndcg", "labels", T.ndcg, "mean", "score", "normalised DCG, gain = qrels grade, discount log2(rank+1)"),
    Family("ndcg_cut", "labels", T.ndcg_at, "mean", "score", "nDCG of the top n", "int", "ndcg_cut_10", CUTOFFS),
    Family("map_cut", "labels", T.map_at, "mean", "score", "average precision counting the top n only", "int",
           "map_cut_10", CUTOFFS),
    Family("success", "labels", T.success_at, "mean", "score", "1 if a relevant result is in the top n", "int",
           "success_10", (1, 5, 10)),
    Family("num_nonrel_judged_ret", "labels", T.num_nonrel_judged_ret, "sum", "count",
           "retrieved results judged non-relevant"),
    Family("relstring", "labels", T.trec_relstring, "none", "text",
           "grades of the first 10 results: digits, '>' above 9, '-' not in the qrels, '.' negative grade"),
    Family("relstring", "labels", T.trec_relstring, "none", "text", "relstring of the first n results", "int",
           "relstring_20"),
    Family("infAP", "labels", T.infap, "mean", "score", "inferred average precision (Yilmaz & Aslam)"),
    Family("Rprec_mult", "labels", lambda a, p: T.rprec_mult(a, p / 100), "mean", "score",
           "precision at rank int(x * R + 0.9), written x with two decimals", "hundredths", "Rprec_mult_0.20",
           tuple(range(20, 201, 20))),
    Family("utility", "labels", T.utility, "mean", "score", "rel_ret - nonrel_ret (utility.p1,p2,p3,p4 for others)"),
    Family("utility", "labels", _utility, "mean", "score", "p1 rel_ret + p2 nonrel_ret + p3 rel_missed + p4 ...",
           "raw", "utility_2,-1,0,0"),
    Family("11pt_avg", "labels", T.eleven_pt_avg, "mean", "score",
           "mean interpolated precision at recall 0, 0.1, ..., 1"),
    Family("11pt_avg", "labels", _eleven_pt, "mean", "score", "mean interpolated precision at the given levels",
           "raw", "11pt_avg_.25,.5,.75"),
    Family("binG", "labels", T.bin_g, "mean", "score", "binary gain discounted by log2(2 + non-relevant above)"),
    Family("G", "labels", T.g_measure, "mean", "score", "graded gain discounted by the ideal cumulated cost"),
    Family("ndcg", "labels", _ndcg_gains, "mean", "score", "nDCG with gains per level (ndcg.1=3,2=9)", "raw",
           "ndcg_1=3,2=9"),
    Family("ndcg_rel", "labels", T.ndcg_rel, "mean", "score", "nDCG averaged over the retrieved relevant ranks"),
    Family("Rndcg", "labels", T.rndcg, "mean", "score", "nDCG averaged over the ranks where the ideal gain drops"),
    Family("relative_P", "labels", T.relative_p_at, "mean", "score", "relevant in the top n over min(n, R)", "int",
           "relative_P_10", CUTOFFS),
    Family("set_P", "labels", T.set_p, "mean", "score", "relevant retrieved over retrieved"),
    Family("set_relative_P", "labels", T.set_relative_p, "mean", "score",
           "relevant retrieved over min(retrieved, R)"),
    Family("set_recall", "labels", T.set_recall, "mean", "score", "relevant retrieved over R"),
    Family("set_map", "labels", T.set_map, "mean", "score", "set_P times set_recall"),
    Family("set_F", "labels", T.set_f, "mean", "score", "harmonic mean of set_P and set_recall"),
    Family("rbp", "labels", T.rbp, "mean", "score", "rank-biased precision, p = 0.9, gains scaled into [0, 1]"),
    Family("rbp_resid", "labels", T.rbp_resid, "mean", "score", "RBP residual from unjudged results, p = 0.9"),
    Family("unj", "labels", T.unjudged_at, "mean", "score", "unjudged results in the top n over n", "int", "unj_10",
           (5, 10, 20)),
    # beyond trec_eval
    Family("adr", "labels", ADR.adr, "mean", "score",
           "average dynamic recall over the first n ranks (grades order the ground-truth groups)"),
    Family("adr_cut", "labels", ADR.adr_at, "mean", "score", "average dynamic recall over the first k ranks",
           "int", "adr_cut_10", (10,)),
    Family("adr_tb", "labels", ADR.adr_tiebreak, "mean", "score",
           "ADR tie-breaker (inverted ground truth over the problematic items): lower breaks ties in favour"),
    Family("adr_tb", "labels", ADR.adr_tiebreak, "mean", "score",
           "adr_tb with a named filler: `paper` (the default, as adr_tb) or `standin` (adr_tb.standin)", "raw",
           "adr_tb_standin"),
    Family("RankEff", "labels", T.rankeff, "mean", "score",
           "RankEff: bpref against all judged non-relevant units (Ahlgren & Grönqvist)"),
    Family("F", "labels", T.f_at, "mean", "score", "F measure at cut-off n: harmonic mean of P@n and recall@n",
           "int", "F_10", (5, 10, 20)),
    Family("E", "labels", T.e_at, "mean", "score", "E measure at cut-off n with b = 1 (1 - F@n)", "int", "E_10",
           (5, 10, 20)),
    Family("dcg_jk_cut", "labels", T.dcg_jk_at, "mean", "score",
           "Järvelin-Kekäläinen DCG at n: gain / log2(rank) from rank 2 on, rank 1 undiscounted", "int",
           "dcg_jk_cut_10", (5, 10, 15, 20)),
    Family("ndcg_jk_cut", "labels", T.ndcg_jk_at, "mean", "score",
           "Järvelin-Kekäläinen DCG at n over the ideal DCG at n", "int", "ndcg_jk_cut_10", (5, 10, 15, 20)),
    Family("maisp", "segments", S.maisp_at, "mean", "score",
           "interpolated segment precision at recall-point position p, written p/100", "recall",
           "maisp_0.10"),
    # sampled judgements (stratified qrels; docs/sampled.md)
    Family("xinfAP", "labels", SAMPLED.xinf_ap, "mean", "score",
           "extended inferred AP on stratified qrels (Yilmaz, Kanoulas & Aslam 2008), as NIST's sample_eval.pl"),
    Family("xinfNDCG", "labels", SAMPLED.xinf_ndcg, "mean", "score",
           "inferred nDCG on stratified qrels, as sample_eval.pl's infNDCG"),
)
#: trec_eval 9.0.8's versions of families whose definition changed in 10
TREC_EVAL_9 = {
    "iprec_at_recall": Family("iprec_at_recall", "labels", _iprec_9, "mean", "score",
                              "interpolated precision at recall level r (trec_eval 9: cut-off rounded up)", "recall",
                              "iprec_at_recall_0.10", RECALL_LEVELS, batch=B.iprec_at_recall_9),
}
_PLAIN = {f.name: f for f in FAMILIES if f.param is None}
_WITH_PARAM = {f.name: f for f in FAMILIES if f.param is not None}

ALIASES = {"AP": "map", "MAP": "map", "NumRel": "num_rel", "NumRet": "num_ret", "NumRelRet": "num_rel_ret",
           "RR": "recip_rank", "nDCG": "ndcg", "Rprec": "Rprec", "R-Prec": "Rprec", "Bpref": "bpref"}
FAMILY_ALIASES = {"R": "recall", "nDCG": "ndcg_cut", "Success": "success"}

_PARAM = re.compile(r"(?P<family>[A-Za-z][A-Za-z_]*?)(?:_|@)(?P<value>[0-9]*(?:\.[0-9]+)?)\Z")


_JUDGED = re.compile(r"P@(?P<value>[0-9]+)\(j\)\Z")


def measure(name: str) -> Measure:
    """The :class:`Measure` for a canonical or ir_measures-style name (``P_10``, ``P@10``, ``AP``; the paper's
    ``P@20(j)`` for ``P_judged_20``)."""
    judged = _JUDGED.match(name)
    name = f"P_judged_{judged.group('value')}" if judged else ALIASES.get(name, name)
    if name in _PLAIN:
        return Measure(_PLAIN[name])
    m = _PARAM.match(name)
    family = FAMILY_ALIASES.get(m.group("family"), m.group("family")) if m else ""
    if m and family in _WITH_PARAM:
        fam = _WITH_PARAM[family]
        value = m.group("value")
        if not value or value == ".":
            pass
        elif fam.param == "recall":
            p = round(float(value) * 100) if "." in value else int(value)
            if 0 <= p <= 100:
                return Measure(fam, p)
        elif "." not in value and int(value) >= 1:
            return Measure(fam, int(value))
    known = ", ".join([*_PLAIN, *(f.example for f in _WITH_PARAM.values())])
    raise ParameterError(f"The 'measure' parameter must be a known measure ({known}). Got {name!r} instead.")


def expand(name: str) -> list[Measure]:
    """Concrete measures for a name: ``P_10``, ``P@10`` (``Success@1,5,10``: several), a family alone
    (``P``: its default cut-offs), or trec_eval's parameter syntax (``P.5,10``, ``iprec_at_recall..10,.25``;
    cut-offs are truncated to integers and sorted, as trec_eval prints them)."""
    if name in SETS:
        return [m for member in SETS[name] for m in expand(member)]
    if name in _WITH_PARAM and name not in _PLAIN:
        fam = _WITH_PARAM[name]
        return [Measure(fam, p) for p in fam.defaults]
    head, at, values_at = name.partition("@")
    if at and "," in values_at:  # ir_measures spelling with several cut-offs: Success@1,5,10
        found = {m.param: m for m in (measure(f"{head}@{v}") for v in values_at.split(","))}
        return [found[p] for p in sorted(found, key=lambda p: (str(type(p)), p))]
    family, dot, params = name.partition(".")
    if dot and family in _WITH_PARAM:
        fam = _WITH_PARAM[family]
        if fam.param == "raw":
            return [Measure(fam, params)]
        values: set[int] = set()
        for text in params.split(","):
            try:
                number = float(text)
            except ValueError:
                number = -1.0
            value = round(number * 100) if fam.param in ("recall", "hundredths") else int(number)
            if number < 0 or (fam.param == "recall" and value > 100) or (fam.param == "int" and value < 1):
                raise ParameterError(f"The '{family}' parameters must be {_PARAM_HELP[fam.param or 'int']}. "
                                     f"Got {params!r} instead.")
            values.add(value)
        return [Measure(fam, v) for v in sorted(values)]
    return [measure(name)]


#: trec_eval's measure sets (runid and num_q are printed by the report, not computed)
SETS = {
    "official": ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                 "iprec_at_recall", "P"),
    "set": ("num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_relative_P", "set_recall", "set_map",
            "set_F"),
    "all_trec": ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                 "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility",
                 "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
                 "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp",
                 "rbp_resid", "unj"),
    #: the measures of Büttcher, Clarke, Yeung & Soboroff (SIGIR 2007), Tables 2, 3, 7 and 8, in their order
    "paper": ("recip_rank", "P_10", "P_20", "ndcg_cut_20", "map", "bpref", "P_judged_20", "RankEff"),
}

_PARAM_HELP = {"int": "cut-offs >= 1 separated by commas (P.5,10)",
               "recall": "levels from 0 to 1 separated by commas (iprec_at_recall..1,.25)",
               "hundredths": "numbers >= 0 separated by commas (Rprec_mult.0.5,2)"}


def measure_table() -> str:
    """A Markdown table of the measure families, for the README and help text."""
    rows = ["| measure | input | aggregate | description |", "|---|---|---|---|"]
    for f in FAMILIES:
        label = f"`{f.name}`" if f.param is None else f"`{f.name}_n` (e.g. `{f.example}`)"
        rows.append(f"| {label} | {f.scope} | {f.aggregate} | {f.description} |")
    return "\n".join(rows)
