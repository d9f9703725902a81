"""Every measure declared once (name, function named by module so that no NumPy loads, description, kind,
parameter, ir_measures spellings) and the named sets; docs/measures.md is generated from them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, TypedDict

from segeval.core.domains import NONNEGATIVE, RANKS, UNIT, Key
from segeval.core.errors import ParameterError
from segeval.measures import catalogue
from segeval.measures import jumpin as JUMPIN_KEYS
from segeval.measures import params as P
from segeval.measures import quesst as QUESST
from segeval.measures.declaration import Aggregate, Deferred, Family, Format, KeyedFamily, Param, Scope
from segeval.measures.registry import Ecosystem, Option, Registry


class _Functions:
    """A measure module's functions as :class:`Deferred` references (``TR.bpref``)."""

    def __init__(self, module: str) -> None:
        self.module = f"segeval.measures.{module}"

    def __getattr__(self, name: str) -> Deferred:
        if name.startswith("_"):  # copy, pickle and friends probe dunder names: not measures
            raise AttributeError(name)
        return Deferred(self.module, name)


ADR, B, SAMPLED = _Functions("adr"), _Functions("batch"), _Functions("sampled")
S = _Functions("segments")
J = _Functions("jumpin")
QT = _Functions("trials")
TR, TG = _Functions("trec_ranks"), _Functions("trec_gains")
ECO = _Functions("ecosystem")  # ir_measures' and ranx's measures beyond trec_eval

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(step / 10 for step in range(11))  # iprec_at_recall's, as doubles (0.1 = atof("0.1"))
RPREC_MULTIPLES = tuple(step / 10 for step in range(2, 21, 2))


class _Kind(TypedDict, total=False):
    """A kind of value several families share: its aggregate, format, direction and bounds."""

    aggregator: Aggregate
    fmt: Format
    higher_is_better: bool | None
    lower: float
    upper: float
    over_upper: bool


class _Param(_Kind):
    param: Param
    example: str
    defaults: tuple[int | float, ...]
    pairs: tuple[Key, ...]


class _Keys(_Kind):
    keys: tuple[Key, ...]
    pairs: tuple[Key, ...]
    example: str


class _Timed(TypedDict):
    scope: Scope
    times: bool


def _param(
    kind: _Kind, param: Param, example: str, defaults: tuple[int | float, ...] = (), pairs: tuple[Key, ...] = ()
) -> _Param:
    """Values of ``kind`` and a parameter; with ``defaults``, the family named alone means them (no plain form)."""
    return _Param(**kind, param=param, example=example, defaults=defaults, pairs=pairs)


def _cutoffs(kind: _Kind, example: str, defaults: tuple[int, ...] = ()) -> _Param:
    return _param(kind, "cutoff", example, defaults)


def _keys(kind: _Kind, keys: tuple[Key, ...], example: str) -> _Keys:
    """Values of ``kind`` and a :class:`KeyedFamily`'s keys."""
    return _Keys(**kind, keys=keys, pairs=keys, example=example)


def _sharing(fields: Mapping[str, Any], *families: Family) -> tuple[Family, ...]:
    """``families``, each with ``fields``."""
    return tuple(replace(f, **fields) for f in families)


_TIMED = _Timed(scope="segments", times=True)  # over each result's and judgement's time span
_COUNT = _Kind(aggregator="sum", fmt="count", higher_is_better=None, lower=0.0)
_FOUND = _Kind(aggregator="sum", fmt="count", lower=0.0)  # a count of relevant results found
_STAT = _Kind(fmt="stat", higher_is_better=None, lower=0.0)
_TEXT = _Kind(aggregator="none", fmt="text", higher_is_better=None)
_UNBOUNDED = _Kind()
_GAIN = _Kind(lower=0.0)  # a sum of gains: >= 0, unbounded
#: a score in [0, 1]; _OVER: above 1 possible when one relevant unit is credited several times
_SCORE = _Kind(lower=0.0, upper=1.0)
_OVER = _Kind(lower=0.0, upper=1.0, over_upper=True)
_GM = _Kind(aggregator="gm", lower=0.0, upper=1.0, over_upper=True)
_FRACTION = _Kind(higher_is_better=None, lower=0.0, upper=1.0)  # a diagnostic fraction: neither direction is better
_LOWER_BETTER = _Kind(higher_is_better=False, lower=0.0, upper=1.0)

#: C/W/L user models as cwl_eval computes them (gains: grades clipped to [min_rel, max_rel], scaled to [0, 1]): each
#: one's keys beside min_rel and max_rel, and its description; its example sets them as below, and max_rel=3
_CWL = {
    "inst": (
        ("T",),
        "INST (Moffat et al. 2015), T = 1, gains min_rel = 0 to max_rel = 1 unless given "
        "(ir_measures' INST(T=2,max_rel=3))",
    ),
    "insq": (("T",), "INSQ, T = 1 (ir_measures' INSQ(max_rel=3))"),
    "sdcg": (("k",), "scaled DCG at k: DCG over the sum of the discounts (ir_measures' SDCG(max_rel=3)@10)"),
    "nerr8": (("k",), "NERR, equation 8 of Azzopardi et al. 2021, at k (ir_measures' NERR8(max_rel=3)@10)"),
    "nerr9": (("k",), "NERR, equation 9, at k (ir_measures' NERR9(max_rel=3)@10)"),
    "nerr10": (("p",), "NERR, equation 10, p = 0.9 (ir_measures' NERR10(p=0.8,max_rel=3))"),
    "nerr11": (("T",), "NERR, equation 11, T = 1 (ir_measures' NERR11(T=2,max_rel=3))"),
    "bpm": (
        ("T", "k"),
        "static Bejeweled Player Model (Zhang et al. 2017), T = 1, k = 10 (ir_measures' BPM(T=2,max_rel=3)@10)",
    ),
}
_CWL_EXAMPLE = {"T": "2", "k": "10", "p": "0.8"}
CWL = tuple(
    Family(
        name,
        getattr(ECO, name),
        text,
        **_param(
            _SCORE,
            "gains",
            f"{name}_{''.join(f'{k}={_CWL_EXAMPLE[k]},' for k in keys)}max_rel=3",
            pairs=P.pairs(*keys, "min_rel", "max_rel"),
        ),
    )
    for name, (keys, text) in _CWL.items()
)

FAMILIES: tuple[Family, ...] = (
    Family("videos_ret", S.videos_ret, "distinct videos among the results", scope="segments", **_STAT),
    Family("videos_rel", S.videos_rel, "videos with a relevant segment", scope="segments", **_STAT),
    Family("avglength_ret", S.avglength_ret, "mean result length (s)", **_TIMED, **_STAT),
    Family("avglength_rel", S.avglength_rel, "mean merged relevant segment length (s)", **_TIMED, **_STAT),
    Family("num_rel", B.num_rel, "relevant units (merged segments, bins)", **_COUNT, aliases=("NumRel",)),
    Family("num_ret", B.num_ret, "ranked units (results, bins)", **_COUNT, aliases=("NumRet",)),
    Family("num_rel_ret", B.num_rel_ret, "units labelled relevant", **_FOUND, aliases=("NumRelRet",)),
    Family(
        "map",
        B.average_precision,
        "average precision; above 1 possible with the overlap adapter",
        **_OVER,
        aliases=("AP", "MAP"),
    ),
    Family(
        "ap_interp",
        Deferred("segeval.protocols.detection.ap", "ap_interp"),
        "all-point interpolated average precision (VOC 2011), ActivityNet's eval_detection.py "
        "arithmetic; with -a tiou-best:θ its AP per class at θ",
        **_OVER,
    ),
    Family("P", B.precision_at, "precision at cut-off n", **_cutoffs(_SCORE, "P_10", CUTOFFS)),
    Family(
        "P_judged",
        TR.precision_judged_at,
        "P@n(j) (Büttcher et al. 2007): relevant among the first n judged units over n, unjudged "
        "skipped (as P_n under trec_eval -J); also written P@n(j)",
        **_cutoffs(_SCORE, "P_judged_20", (10, 20)),
    ),
    Family(
        "Judged",
        B.judged_at,
        "judged units in the top n divided by n (as the MediaEval script; ir_measures' Judged@n "
        "divides by min(n, retrieved) and counts negative grades as judged)",
        **_cutoffs(_FRACTION, "Judged_10", (10, 20, 30)),
    ),
    Family("relString", TR.relstring, "the labels in rank order and their count", **_TEXT),
    Family("num_rel_secs", S.num_rel_secs, "seconds of relevant content", **_TIMED, **_COUNT),
    Family("num_ret_secs", S.num_ret_secs, "seconds watched by the MAiSP user", **_TIMED, **_COUNT),
    Family("num_rel_ret_secs", S.num_rel_ret_secs, "relevant seconds watched by the MAiSP user", **_TIMED, **_FOUND),
    Family(
        "maisp",
        S.maisp,
        "mean average interpolated segment precision; maisp_p: interpolated segment precision "
        "at recall-point position p, written p/100",
        **_TIMED,
        **_param(_SCORE, "recall", "maisp_0.10"),
    ),
    # trec_eval
    Family(
        "gm_map",
        B.average_precision,
        "geometric mean of average precision (floor 1e-5), summary only",
        **_GM,
        per_query=False,
    ),
    Family("Rprec", B.r_precision, "precision at rank R (R = num_rel)", **_SCORE, aliases=("R-Prec",)),
    Family(
        "bpref",
        B.bpref,
        "binary preference: relevant results penalised by judged non-relevant ones above them",
        **_OVER,
        aliases=("Bpref",),
    ),
    Family("gm_bpref", B.bpref, "geometric mean of bpref (floor 1e-5), summary only", **_GM, per_query=False),
    Family(
        "recip_rank",
        B.reciprocal_rank,
        "1 / rank of the first relevant result",
        **_SCORE,
        aliases=("RR",),
    ),
    Family(
        "iprec_at_recall",
        B.iprec_at_recall,
        "interpolated precision at recall level r, written r with two decimals",
        empty=TR.iprec_empty,
        **_param(_SCORE, "level", "iprec_at_recall_0.10", RECALL_LEVELS),
        family_aliases=("IPrec",),
    ),
    Family(
        "recall",
        B.recall_at,
        "relevant results in the top n over num_rel",
        **_cutoffs(_OVER, "recall_100", CUTOFFS),
        family_aliases=("R",),
    ),
    Family(
        "ndcg",
        B.ndcg,
        "normalised DCG, gain = qrels grade, discount log2(rank+1); ndcg.1=3,2=9: gains per level",
        **_param(_OVER, "gains", "ndcg_1=3,2=9"),
        aliases=("nDCG",),
    ),
    Family(
        "ndcg_cut",
        B.ndcg_at,
        "nDCG of the top n",
        **_cutoffs(_OVER, "ndcg_cut_10", CUTOFFS),
        family_aliases=("nDCG",),
    ),
    Family(
        "map_cut",
        B.average_precision,
        "average precision counting the top n only",
        **_cutoffs(_OVER, "map_cut_10", CUTOFFS),
        family_aliases=("AP",),
    ),
    Family(
        "success",
        B.success_at,
        "1 if a relevant result is in the top n",
        **_cutoffs(_SCORE, "success_10", (1, 5, 10)),
        family_aliases=("Success",),
    ),
    Family("num_nonrel_judged_ret", TR.num_nonrel_judged_ret, "retrieved results judged non-relevant", **_COUNT),
    Family(
        "relstring",
        TR.trec_relstring,
        "grades of the first 10 (relstring_n: n) results: digits, '>' above 9, '-' not in the "
        "qrels, '.' negative grade",
        **_param(_TEXT, "reals", "relstring_20"),
    ),
    Family("infAP", TR.infap, "inferred average precision (Yilmaz & Aslam)", **_OVER),
    Family(
        "Rprec_mult",
        B.rprec_mult,
        "precision at rank int(x * R + 0.9), written x with two decimals",
        **_param(_SCORE, "level", "Rprec_mult_0.20", RPREC_MULTIPLES),
    ),
    Family(
        "utility",
        TR.utility,
        "rel_ret - nonrel_ret; utility.p1,p2,p3,p4: p1 rel_ret + p2 nonrel_ret + p3 rel_missed + p4 nonrel_missed",
        **_param(_UNBOUNDED, "reals", "utility_2,-1,0,0"),
        count=4,
    ),
    Family(
        "11pt_avg",
        TR.eleven_pt_avg,
        "mean interpolated precision at recall 0, 0.1, ..., 1 (11pt_avg.l1,l2,...: at those levels)",
        empty=TR.eleven_pt_empty,
        **_param(_SCORE, "reals", "11pt_avg_.25,.5,.75"),
    ),
    Family("binG", TG.bin_g, "binary gain discounted by log2(2 + non-relevant above)", **_OVER),
    Family(
        "G",
        TG.g_measure,
        "graded gain discounted by the ideal cumulated cost (G.1=3,2=9: gains per level)",
        **_param(_OVER, "gains", "G_1=3,2=9"),
    ),
    Family(
        "dcg",
        TG.dcg_gains,
        "discounted cumulated gain, log2(rank+1) discounts, not normalised (dcg.1=3: gains)",
        **_param(_UNBOUNDED, "gains", "dcg_1=3,2=9"),
    ),
    Family(
        "ideal_dcg",
        TG.ideal_dcg,
        "the DCG of the ideal ranking of the judged grades (ideal_dcg.1=3: gains)",
        **_param(_Kind(higher_is_better=None), "gains", "ideal_dcg_1=3,2=9"),
    ),
    Family(
        "ndcg_rel",
        TG.ndcg_rel,
        "nDCG averaged over the retrieved relevant ranks (ndcg_rel.1=3: gains per level)",
        **_param(_OVER, "gains", "ndcg_rel_1=3"),
    ),
    Family(
        "Rndcg",
        TG.rndcg,
        "nDCG averaged over the ranks where the ideal gain drops (Rndcg.1=3: gains per level)",
        **_param(_OVER, "gains", "Rndcg_1=3"),
    ),
    Family(
        "relative_P",
        TR.relative_p_at,
        "relevant in the top n over min(n, R)",
        **_cutoffs(_OVER, "relative_P_10", CUTOFFS),
    ),
    Family("set_P", TR.set_p, "relevant retrieved over retrieved", **_SCORE, aliases=("SetP",)),
    Family("set_relative_P", TR.set_relative_p, "relevant retrieved over min(retrieved, R)", **_OVER),
    Family("set_recall", TR.set_recall, "relevant retrieved over R", **_OVER, aliases=("SetR",)),
    Family("set_map", TR.set_map, "set_P times set_recall", **_OVER),
    Family(
        "set_F",
        TR.set_f,
        "harmonic mean of set_P and set_recall (set_F.x: weighted by x)",
        aliases=("SetF",),
        **_param(_OVER, "reals", "set_F_0.5"),
        values=NONNEGATIVE,
    ),
    Family(
        "rbp",
        TG.rbp,
        "rank-biased precision, p = 0.9, gains scaled into [0, 1] (rbp.p=0.8,1=3: persistence and gains)",
        **_param(_SCORE, "gains", "rbp_p=0.8", pairs=P.pairs("p")),
    ),
    Family(
        "rbp_resid",
        TG.rbp_resid,
        "RBP residual from unjudged results, p = 0.9 (rbp_resid.p=0.8)",
        **_param(_FRACTION, "gains", "rbp_resid_p=0.8", pairs=P.pairs("p")),
    ),
    Family("unj", TR.unjudged_at, "unjudged results in the top n over n", **_cutoffs(_FRACTION, "unj_10", (5, 10, 20))),
    # beyond trec_eval
    Family(
        "adr", ADR.adr, "average dynamic recall over the first n ranks (grades order the ground-truth groups)", **_SCORE
    ),
    Family(
        "adr_cut",
        ADR.adr,
        "average dynamic recall over the first k ranks",
        **_cutoffs(_SCORE, "adr_cut_10", (10,)),
        cutoffs=RANKS,
    ),
    Family(
        "adr_tb",
        ADR.adr_tiebreak,
        "ADR tie-breaker (inverted ground truth over the problematic items): lower breaks ties in "
        "favour; adr_tb.standin: the stand-in filler instead of the paper's",
        **_param(_LOWER_BETTER, "raw", "adr_tb_standin"),
    ),
    Family(
        "RankEff", TR.rankeff, "RankEff: bpref against all judged non-relevant units (Ahlgren & Grönqvist)", **_OVER
    ),
    Family(
        "F",
        B.f_at,
        "F measure at cut-off n: harmonic mean of P@n and recall@n",
        **_cutoffs(_OVER, "F_10", (5, 10, 20)),
    ),
    Family(
        "E",
        B.e_at,
        "E measure at cut-off n with b = 1 (1 - F@n)",
        **_cutoffs(_LOWER_BETTER, "E_10", (5, 10, 20)),
    ),
    Family(
        "dcg_jk_cut",
        TG.dcg_jk_at,
        "Järvelin-Kekäläinen DCG at n: gain / log2(rank) from rank 2 on, rank 1 undiscounted",
        **_cutoffs(_GAIN, "dcg_jk_cut_10", (5, 10, 15, 20)),
    ),
    Family(
        "ndcg_jk_cut",
        TG.ndcg_jk_at,
        "Järvelin-Kekäläinen DCG at n over the ideal DCG at n",
        **_cutoffs(_OVER, "ndcg_jk_cut_10", (5, 10, 15, 20)),
    ),
    # sampled judgements (stratified qrels; docs/sampled.md)
    Family(
        "xinfAP",
        SAMPLED.xinf_ap,
        "extended inferred AP on stratified qrels (Yilmaz, Kanoulas & Aslam 2008), as NIST's sample_eval.pl",
        **_SCORE,
        stratified=True,
    ),
    Family(
        "xinfNDCG",
        SAMPLED.xinf_ndcg,
        "inferred nDCG on stratified qrels, as sample_eval.pl's infNDCG",
        **_SCORE,
        stratified=True,
    ),
    # ir_measures' and ranx's measures that trec_eval lacks (issue 24; their names: ECOSYSTEM below)
    Family(
        "ERR",
        ECO.err_at,
        "expected reciprocal rank at n, gdeval's (ir_measures' ERR@n): stop probability (2^grade - 1) / 2^4 (gdeval's "
        "fixed largest grade 4; a larger grade is refused, as gdeval.pl refuses it)",
        **_cutoffs(_SCORE, "ERR_20", (20,)),
    ),
    Family(
        "ndcg_exp_cut",
        ECO.ndcg_exp_at,
        "nDCG at n with gain 2^grade - 1, gdeval's (ir_measures' nDCG(dcg='exp-log2')@n, ranx's ndcg_burges@n)",
        **_cutoffs(_OVER, "ndcg_exp_cut_10", (10,)),
    ),
    Family(
        "dcg_cut",
        ECO.dcg_at,
        "DCG of the top n: grade / log2(rank + 1), not normalised (ranx's dcg@n)",
        **_cutoffs(_GAIN, "dcg_cut_10", (10,)),
    ),
    Family(
        "dcg_exp_cut",
        ECO.dcg_exp_at,
        "DCG of the top n with gain 2^grade - 1, not normalised (ranx's dcg_burges@n)",
        **_cutoffs(_GAIN, "dcg_exp_cut_10", (10,)),
    ),
    Family(
        "recip_rank_cut",
        B.reciprocal_rank,
        "1 / rank of the first relevant result in the top n, else 0 (ir_measures' RR@n, ranx's mrr@n)",
        **_cutoffs(_SCORE, "recip_rank_cut_10", (10,)),
    ),
    Family(
        "hits",
        ECO.hits_at,
        "relevant results in the top n (all ranks without n; ranx's hits@n)",
        **_cutoffs(_GAIN, "hits_10"),
    ),
    Family(
        "rbp_bin",
        ECO.rbp_binary,
        "rank-biased precision of binary relevance, p = 0.8, all ranks unless k (ir_measures' "
        "RBP(p=0.8)@k); rbp_bin.p=0.9,k=10",
        **_param(_SCORE, "gains", "rbp_bin_p=0.8,k=10", pairs=P.pairs("p", "k")),
    ),
    Family(
        "ndcg_gain_cut",
        ECO.ndcg_gains_at,
        "nDCG with the qrels' grades mapped by a gain table first (grades not listed keep theirs), "
        "at k when given (ir_measures' nDCG(gains={2:3})@10)",
        **_param(_OVER, "gains", "ndcg_gain_cut_k=10,2=3", pairs=P.pairs("k")),
    ),
    Family(
        "accuracy",
        ECO.accuracy_at,
        "share of (relevant, non-relevant) pairs of the top n ranked relevant first (all ranks without n; ir_measures' "
        "Accuracy@n, which reports nothing for a query without a relevant result: 0 here)",
        **_cutoffs(_SCORE, "accuracy_10"),
    ),
    Family(
        "compat",
        ECO.compat,
        "compatibility (Clarke et al. 2021): rank-biased overlap with the ideal ranking, p = 0.95, "
        "normalised (compat.p=0.9,normalize=0; ir_measures' Compat(p=0.9))",
        **_param(_SCORE, "gains", "compat_p=0.9", pairs=P.pairs("p", "normalize")),
    ),
    *CWL,
    Family(
        "rbp_grade",
        ECO.rbp_graded,
        "rank-biased precision with the relevant results' grades as gains, unscaled, p = 0.8 (ranx's rbp.80)",
        **_param(_GAIN, "gains", "rbp_grade_p=0.95", pairs=P.pairs("p")),
    ),
)


#: jump-in point measures (docs/speech.md, "Jump-in points"): results judged by their start time
JUMP_IN: tuple[Family, ...] = _sharing(
    _TIMED,
    KeyedFamily(
        "mgap",
        J.mgap,
        "mean generalized average precision (Liu & Oard 2006, CLEF CL-SR): each result's credit falls linearly with "
        "the distance from its start to a relevant onset, 0.1 per whole 15 s step (mgap.window=150,step=15,match=once: "
        "the defaults; step=0: no steps; match=all: every result near an onset scores, so above 1 possible)",
        **_keys(_OVER, JUMPIN_KEYS.MGAP_KEYS, "mgap_window=60,step=0"),
    ),
    Family(
        "mrr_window",
        J.reciprocal_rank_window,
        "reciprocal rank of the first result starting within n seconds of a relevant onset of "
        "its video (MediaEval RSR 2011, S&H 2012: 10, 30 and 60 s)",
        **_cutoffs(_SCORE, "mrr_window_60", JUMPIN_KEYS.MRR_WINDOWS),
    ),
    KeyedFamily(
        "masp",
        J.masp,
        "mean average segment precision (Eskevich, Magdy & Jones 2012): relevant seconds over "
        "seconds watched, averaged over the ranks holding relevant content (norm=retrieved; "
        "norm=qrels: over the relevant segments, above 1 possible)",
        **_keys(_OVER, JUMPIN_KEYS.MASP_KEYS, "masp_norm=qrels"),
    ),
    KeyedFamily(
        "masdwp",
        J.masdwp,
        "mean average segment distance-weighted precision (Eskevich, Magdy & Jones 2012): masp with each rank weighted "
        "by mgap's credit for its start (window, step, norm as mgap and masp)",
        **_keys(_OVER, JUMPIN_KEYS.MASDWP_KEYS, "masdwp_window=60,step=0"),
    ),
)
FAMILIES += JUMP_IN

DIV = _Functions("diversity")
_DIV_CUTOFFS = (5, 10, 20)  # ndeval's
#: ndeval's defaults: alpha, beta and its depth (the largest cut-off it computes); the keys of alpha_dcg and
#: alpha_ndcg (``k=20,alpha=0.5``), of nrbp and nnrbp (``alpha=0.5,beta=0.5``)
ALPHA, BETA, DEPTH = 0.5, 0.5, 20
CUT_KEYS = (Key("k", DEPTH, RANKS), Key("alpha", ALPHA, UNIT))
RBP_KEYS = (Key("alpha", ALPHA, UNIT), Key("beta", BETA, UNIT))
#: NIST ndeval's novelty and diversity measures over subtopic qrels (docs/measures.md, "Subtopic qrels")
DIVERSITY: tuple[Family, ...] = _sharing(
    {"subtopics": True},
    Family(
        "err_ia",
        DIV.err_ia,
        "intent-aware ERR at n with ndeval's novelty gains (alpha = 0.5) over its ideal-ideal "
        "normalisation (ndeval's ERR-IA@n; at n = 1 not normalised, as ndeval)",
        cutoffs=RANKS,
        **_cutoffs(_GAIN, "err_ia_20", _DIV_CUTOFFS),
        family_aliases=("ERR_IA",),
    ),
    Family(
        "nerr_ia",
        DIV.nerr_ia,
        "ERR-IA at n over the greedy ideal ranking's (ndeval's nERR-IA@n)",
        cutoffs=RANKS,
        **_cutoffs(_SCORE, "nerr_ia_20", _DIV_CUTOFFS),
        family_aliases=("nERR_IA",),
    ),
    KeyedFamily(
        "alpha_dcg",
        DIV.alpha_dcg,
        "alpha-DCG at k (k = 20, alpha = 0.5 unless given) over ndeval's ideal-ideal "
        "normalisation (ndeval's alpha-DCG@k; at k = 1 not normalised, as ndeval)",
        **_keys(_GAIN, CUT_KEYS, "alpha_dcg_k=10,alpha=0.3"),
        family_aliases=("alpha_DCG", "α_DCG"),
    ),
    KeyedFamily(
        "alpha_ndcg",
        DIV.alpha_ndcg,
        "alpha-nDCG at k (Clarke et al. 2008): alpha-DCG over ndeval's greedy ideal "
        "ranking's; k = 20, alpha = 0.5 unless given (ir_measures' alpha_nDCG(alpha=0.5)@20)",
        **_keys(_SCORE, CUT_KEYS, "alpha_ndcg_k=10,alpha=0.3"),
        family_aliases=("alpha_nDCG", "α_nDCG"),
    ),
    KeyedFamily(
        "nrbp",
        DIV.nrbp,
        "novelty- and rank-biased precision (Clarke et al. 2009) over every rank, alpha = "
        "beta = 0.5 unless given (ndeval's NRBP)",
        **_keys(_SCORE, RBP_KEYS, "nrbp_alpha=0.3,beta=0.8"),
        aliases=("NRBP",),
    ),
    KeyedFamily(
        "nnrbp",
        DIV.nnrbp,
        "NRBP over the ideal ranking's; NaN for a query without a relevant subtopic (ndeval's nNRBP, its 0/0)",
        **_keys(_SCORE, RBP_KEYS, "nnrbp_alpha=0.3,beta=0.8"),
        aliases=("nNRBP",),
    ),
    Family(
        "map_ia",
        DIV.map_ia,
        "intent-aware average precision: the mean over the subtopics of their average precision (ndeval's MAP-IA)",
        **_SCORE,
        aliases=("AP_IA", "MAP_IA"),
    ),
    Family(
        "P_ia",
        DIV.p_ia,
        "intent-aware precision at n: relevant (result, subtopic) pairs in the top n over n "
        "times the subtopics (ndeval's P-IA@n)",
        **_cutoffs(_SCORE, "P_ia_20", _DIV_CUTOFFS),
        family_aliases=("P_IA",),
    ),
    Family(
        "strec",
        DIV.strec,
        "subtopic recall at n: the subtopics with a relevant result in the top n over the subtopics (ndeval's strec@n)",
        **_cutoffs(_SCORE, "strec_20", _DIV_CUTOFFS),
        family_aliases=("StRecall",),
    ),
)
FAMILIES += DIVERSITY

_KEYS = (
    "parameters p_target (0.0008), cost_miss (100), cost_fa (1), default_score (lowest: an unreported "
    "trial scores the run's lowest score, with NO)"
)
#: query by example (docs/speech.md, "Query by example"): trials are the key's (query, utterance) pairs, scores
#: LLRs; each figure is one formula over trials: per query on its own, the all line on every query's pooled
QUESST_FIGURES: tuple[Family, ...] = _sharing(
    {"scope": "trials"},
    KeyedFamily(
        "actCnxe",
        QT.act_cnxe,
        "normalized cross-entropy of the scores as LLRs (MediaEval QUESST): Cxe at the prior over the prior's entropy, "
        f"all trials pooled (not a mean over queries); prior: effective (of the costs) or a probability; {_KEYS}",
        **_keys(_Kind(aggregator="pooled", higher_is_better=False, lower=0.0), QUESST.CNXE_KEYS, "actCnxe_prior=0.5"),
    ),
    KeyedFamily(
        "minCnxe",
        QT.min_cnxe,
        "actCnxe after the best monotone recalibration (PAV), all trials pooled; parameters as actCnxe",
        **_keys(
            _Kind(aggregator="pooled", higher_is_better=False, lower=0.0, upper=1.0),
            QUESST.CNXE_KEYS,
            "minCnxe_prior=0.5",
        ),
    ),
    KeyedFamily(
        "actTWV",
        QT.act_twv,
        "actual term-weighted value (MediaEval QUESST): 1 − mean over queries with a target of "
        "(P_miss + β·P_FA), β = (C_fa/C_miss)(1 − P_target)/P_target, at the run's YES decisions "
        "(decisions=given; bayes: score >= ln β, for TREC runs); " + _KEYS,
        **_keys(_Kind(aggregator="pooled", upper=1.0), QUESST.ACT_TWV_KEYS, "actTWV_decisions=bayes"),
    ),
    KeyedFamily(
        "maxTWV",
        QT.max_twv,
        "maximum term-weighted value: TWV at the best global score threshold (per query: at its own best); " + _KEYS,
        **_keys(_Kind(aggregator="pooled", lower=0.0, upper=1.0), QUESST.TWV_KEYS, "maxTWV_cost_fa=2"),
    ),
    KeyedFamily(
        "maxTWV_threshold",
        QT.max_twv_threshold,
        "the score threshold of maxTWV (YES when the score is at least it; inf: rejecting "
        "every trial); parameters as maxTWV",
        **_keys(_Kind(aggregator="pooled", higher_is_better=None), QUESST.TWV_KEYS, "maxTWV_threshold_cost_fa=2"),
    ),
)
FAMILIES += QUESST_FIGURES

PF = _Functions("prefs")
_PREFS_COUNTS = {
    "num_prefs_poss": "preferences the judgements express (summary: their sum)",
    "num_prefs_ful": "preferences the ranking fulfils, a missing document ranking below a retrieved "
    "one (summary: their sum)",
    "num_prefs_ful_ret": "preferences between retrieved documents the ranking fulfils (summary: their sum)",
}
_OF = {
    "": "every preference (a pair of missing documents unfulfilled)",
    "_ret": "the preferences between retrieved documents",
    "_imp": "the preferences with a retrieved document",
}
_PREFS = {
    **{f"simp{k}": f"fulfilled over possible preferences, over {v}" for k, v in _OF.items()},
    **{
        f"pair{k}": f"mean over document pairs of the share of groups preferring the better-ranked one, over {v}"
        for k, v in _OF.items()
    },
    **{
        f"avgjg{k}": f"fulfilled over possible preferences of each judgement group, averaged over the groups, over {v}"
        for k, v in _OF.items()
    },
    "avgjg_Rnonrel": "prefs_avgjg with each group's non-relevant documents (level 0) cut or padded to as many "
    "as its relevant ones (as bpref)",
    "avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over the retrieved documents",
}
#: trec_eval's measures of other judgements (-R): preferences, then judgement groups
TREC_REL_INFO: tuple[Family, ...] = (
    *(Family(f"prefs_{k}", getattr(PF, k), v, scope="prefs", **_COUNT) for k, v in _PREFS_COUNTS.items()),
    *(Family(f"prefs_{k}", getattr(PF, k.lower()), v, scope="prefs", **_SCORE) for k, v in _PREFS.items()),
    Family(
        "map_avgjg",
        PF.map_avgjg,
        "average precision on each judgement group's qrels, averaged over the groups",
        scope="groups",
        **_SCORE,
    ),
    Family(
        "P_avgjg",
        PF.p_avgjg,
        "P_n averaged over the judgement groups",
        scope="groups",
        **_cutoffs(_SCORE, "P_avgjg_10", CUTOFFS),
    ),
    Family(
        "Rprec_mult_avgjg",
        PF.rprec_mult_avgjg,
        "Rprec_mult_x averaged over the judgement groups",
        scope="groups",
        **_param(_SCORE, "level", "Rprec_mult_avgjg_0.20", RPREC_MULTIPLES),
    ),
)
FAMILIES += TREC_REL_INFO

#: trec_eval 9.0.8's versions of families whose definition changed in 10 (not separate names)
TREC_EVAL_9 = {
    "iprec_at_recall": replace(
        next(f for f in FAMILIES if f.name == "iprec_at_recall"),
        func=B.iprec_at_recall_9,
        empty=TR.iprec_empty_9,
        description="interpolated precision at recall level r (trec_eval 9: cut-off rounded up)",
    ),
    "11pt_avg": replace(
        next(f for f in FAMILIES if f.name == "11pt_avg"),
        func=TR.eleven_pt_avg_9,
        empty=TR.eleven_pt_empty_9,
        description="mean interpolated precision at recall 0, 0.1, ..., 1 (trec_eval 9: cut-offs rounded up)",
    ),
}
#: the trec_eval measures new in 10.0: not in 9.0.8's all_trec, and refused by ``--trec-eval 9``
NEW_IN_10 = ("rbp", "rbp_resid", "unj", "dcg", "ideal_dcg")


def for_trec_eval(names: Sequence[str], version: str) -> list[str]:
    """The measure names as trec_eval ``version`` reads them: for 9.0.8, its sets (without the measures
    new in 10.0) and a ParameterError naming a measure it does not have."""
    if version != "9":
        return list(names)
    out: list[str] = []
    for name in names:
        if name in SETS:
            out += [m for m in SETS[name] if m not in NEW_IN_10]
            continue
        missing = sorted({m.family.name for m in expand(name)} & set(NEW_IN_10))
        if missing:
            raise ParameterError(
                f"The 'measure' parameter must be a measure trec_eval 9.0.8 has (--trec-eval 9); "
                f"{missing[0]!r} is new in trec_eval 10. Got {name!r} instead."
            )
        out.append(name)
    return out


#: trec_eval's measure sets (runid and num_q are printed by the report, not computed)
_ALL_TREC = (
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unj",
)
SETS = {
    "official": _ALL_TREC[:10],  # trec_eval's default: the first ten
    "set": (*_ALL_TREC[:3], "utility", *(m for m in _ALL_TREC if m.startswith("set_"))),
    "all_trec": _ALL_TREC,
    #: the measures of Büttcher, Clarke, Yeung & Soboroff (SIGIR 2007), Tables 2, 3, 7 and 8, in their order
    "paper": ("recip_rank", "P_10", "P_20", "ndcg_cut_20", "map", "bpref", "P_judged_20", "RankEff"),
    "quesst": tuple(f.name for f in QUESST_FIGURES if f.higher_is_better is not None),  # not the threshold
    "all_prefs": tuple(f.name for f in TREC_REL_INFO if f.scope == "prefs"),
    "prefs": tuple(f"prefs_{k}" for k in (*_PREFS_COUNTS, "simp", "pair", "avgjg")),
    "qrels_jg": tuple(f.name for f in TREC_REL_INFO if f.scope == "groups"),
}
SET_DESCRIPTIONS = {
    "official": "trec_eval's default set (what trec_eval prints without -m); segeval eval's default",
    "set": "trec_eval -m set: measures of the retrieved set, ignoring ranks",
    "all_trec": "trec_eval -m all_trec: every trec_eval measure",
    "paper": "Büttcher, Clarke, Yeung & Soboroff (SIGIR 2007), Tables 2, 3, 7 and 8",
    "all_prefs": "trec_eval -m all_prefs: every preference measure (-R prefs or qrels_prefs)",
    "prefs": "trec_eval -m prefs: its main preference measures (-R prefs or qrels_prefs)",
    "qrels_jg": "trec_eval -m qrels_jg: the measures averaged over judgement groups (-R qrels_jg)",
    "quesst": "MediaEval QUESST's figures (segeval qbe): actual and minimum Cnxe, actual and maximum TWV (the "
    "threshold, a statistic that can be inf, by its name maxTWV_threshold)",
}

_PAIRS = {f.name: f.pair_names for f in FAMILIES}
#: ir_measures' and ranx's names for segeval's measures beyond the families' aliases (issue 24)
ECOSYSTEM = Ecosystem(
    names={
        "BPref": "bpref",
        "RPrec": "Rprec",
        "MRR": "recip_rank",
        "NDCG": "ndcg",
        "SetAP": "set_map",
        "SetRelP": "set_relative_P",
        "Accuracy": "accuracy",
        "Compat": "compat",
        "INST": "inst",
        "INSQ": "insq",
        "NERR10": "nerr10",
        "NERR11": "nerr11",
        "BPM": "bpm",
        "RBP": "rbp_bin",
        # ranx
        "mrr": "recip_rank",
        "r-precision": "Rprec",
        "r_precision": "Rprec",
        "precision": "set_P",
        "f1": "set_F",
    },
    at_names={
        "NDCG": "ndcg_cut",
        "MAP": "map_cut",
        "Precision": "P",
        "Recall": "recall",
        "RR": "recip_rank_cut",
        "MRR": "recip_rank_cut",
        "RBP": "rbp_bin",
        "Accuracy": "accuracy",
        "SDCG": "sdcg",
        "NERR8": "nerr8",
        "NERR9": "nerr9",
        "BPM": "bpm",
        # ranx
        "ndcg": "ndcg_cut",
        "ndcg_burges": "ndcg_exp_cut",
        "dcg": "dcg_cut",
        "dcg_burges": "dcg_exp_cut",
        "precision": "P",
        "hit_rate": "success",
        "f1": "F",
        "map": "map_cut",
        "mrr": "recip_rank_cut",
    },
    dotted={"rbp": "rbp_grade"},
    options=(
        Option("ndcg_cut", "dcg", "log2"),
        Option("ndcg_cut", "dcg", "exp-log2", family="ndcg_exp_cut"),
        Option("ndcg_exp_cut", "dcg", "exp-log2"),
        Option("ndcg", "dcg", "log2"),
        Option("ndcg", "gains", param="gains"),
        Option("ndcg_cut", "gains", family="ndcg_gain_cut", param="gains"),
        Option("set_P", "relative", False),
        Option("set_P", "relative", True, family="set_relative_P"),
        Option("set_relative_P", "relative", True),
        Option("set_F", "beta", param="{}"),
        Option("rbp_bin", "p", param="p="),
        Option("compat", "p", param="p="),
        Option("compat", "normalize", True),
        Option("compat", "normalize", False, param="normalize=0"),
        Option("num_ret", "rel", family="num_rel_ret"),
        *(Option(f, o, param=f"{o}=") for f in _CWL for o in ("T", "p", "min_rel", "max_rel") if o in _PAIRS[f]),
        Option("sdcg", "dcg", "log2"),
        *(Option(f.name, k, param=f"{k}=") for f in DIVERSITY for k in f.pair_names if k in ("alpha", "beta")),
    ),
    missing={
        "NumQ": "the number of queries is the report's num_q, not a measure (in the API: ev['num_q'])",
        "num_q": "the number of queries is the report's num_q, not a measure (in the API: ev['num_q'])",
        "runid": "trec_eval's report prints the run file's tag as runid; it is no measure, and an evaluation "
        "of a table has none",
        "hit_rate": "ranx's hit_rate without @k (the whole list) is not computed: hit_rate@k is trec_eval's success_k",
        "ndcg_burges": "ranx's ndcg_burges without @k (the whole list) is not computed: ndcg_burges@k is "
        "gdeval's ndcg_exp_cut_k",
        "dcg_burges": "ranx's dcg_burges without @k (the whole list) is not computed: dcg_burges@k is dcg_exp_cut_k",
    },
    run_queries=("NumRel",),
)

REGISTRY = Registry(FAMILIES, SETS, SET_DESCRIPTIONS, ECOSYSTEM)
measure = REGISTRY.measure
expand = REGISTRY.expand
resolve = REGISTRY.resolve
measure_table = partial(catalogue.table, REGISTRY)
