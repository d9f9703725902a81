"""Measures of ir_measures and ranx that trec_eval lacks (each function names its peer), and the per-measure
options ir_measures gives any measure: ``rel`` (its own relevance level) and ``judged_only``."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial

import numpy as np

from segeval.adapters.base import Adapted, Label, judged_only
from segeval.core.arrays import FloatArray
from segeval.core.errors import ParameterError
from segeval.measures.arithmetic import running_sum
from segeval.measures.params import NO_PARAMS, Params
from segeval.measures.trec_gains import dcg, gains, ideal_gains
from segeval.measures.trec_ranks import grade_values

#: gdeval.pl's ``$MAX_JUDGMENT``: ERR's gain is (2^grade - 1) / 2^4 whatever the qrels' largest grade
GDEVAL_MAX_GRADE = 4


def at_level(a: Adapted, level: int) -> Adapted:
    """The ranking as relevance level ``level`` labels it (ir_measures' ``rel=``, ranx's ``-lN``): judged units
    relevant from ``level`` on, num_rel the qrels grades from it, positive grades below it gaining 0."""
    raw = grade_values(a)
    grades = np.nan_to_num(raw, nan=-math.inf)
    pool = a.pool if a.pool is not None else np.zeros(0)
    labels = a.labels.copy()
    judged = (labels == Label.RELEVANT) | (labels == Label.NONRELEVANT)
    labels[judged & (grades >= level)] = Label.RELEVANT
    labels[judged & (grades < level)] = Label.NONRELEVANT
    truth = a.truth if a.truth is not None else np.zeros(0)
    return replace(
        a,
        labels=labels,
        num_rel=int((truth >= level).sum()),
        grades=np.where((raw > 0) & (raw < level), 0.0, raw),
        pool=np.where((pool > 0) & (pool < level), 0.0, pool),
        subtopics=None if a.subtopics is None else a.subtopics.at(level),
    )


def with_options(a: Adapted, level: int | None, judged: bool) -> Adapted:
    """``a`` with a measure's own options applied: its relevance level, then trec_eval's ``-J``."""
    if level is not None:
        a = at_level(a, level)
    return judged_only(a) if judged else a


def _dcg_exp(gains: FloatArray) -> float:
    """sum of (2^g - 1) / ln(rank + 1), as gdeval.pl (its natural log cancels in nDCG)."""
    return running_sum([(2.0**g - 1) / math.log(i + 2) for i, g in enumerate(gains.tolist())])


def ndcg_exp_at(a: Adapted, k: int) -> float:
    """gdeval's nDCG@k: gain 2^grade - 1, discount log(rank + 1), over the ideal's; 0 without a positive grade."""
    ideal = _dcg_exp(ideal_gains(a)[:k])
    return _dcg_exp(gains(a)[:k]) / ideal if ideal > 0 else 0.0


def dcg_at(a: Adapted, k: int, exp: bool = False) -> float:
    """ranx's ``dcg@k`` (``exp``: its ``dcg_burges@k``, gain 2^grade - 1) over the top k's positive grades."""
    g = gains(a)[:k]
    return float(np.sum(((2.0**g - 1) if exp else g) / np.log2(np.arange(2, len(g) + 2))))


dcg_exp_at = partial(dcg_at, exp=True)


def err_at(a: Adapted, k: int) -> float:
    """gdeval's ERR@k: sum over ranks i of R_i / i times the product of (1 - R_j) above it, with
    R = (2^grade - 1) / 2^4 (gdeval's fixed largest grade); a grade above 4 is refused, as gdeval.pl does."""
    grades = gains(a)
    top = max(float(grades.max(initial=0.0)), float(ideal_gains(a).max(initial=0.0)))
    if top > GDEVAL_MAX_GRADE:
        raise ParameterError(
            f"The 'ERR_{k}' measure (gdeval's ERR@{k}) needs qrels grades of at most {GDEVAL_MAX_GRADE}: its stop "
            f"probability (2^grade - 1) / 2^{GDEVAL_MAX_GRADE} passes 1 above, and gdeval.pl refuses such qrels (map "
            f"the grades first). Got a grade {top:g} instead."
        )
    score, decay = 0.0, 1.0
    for i, g in enumerate(grades[:k].tolist()):
        r = (2.0**g - 1) / 2.0**GDEVAL_MAX_GRADE
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def hits_at(a: Adapted, k: int | None = None) -> float:
    """ranx's ``hits@k``: relevant units in the top k (all ranks without k)."""
    return float(a.relevant[:k].sum())


def rbp_binary(a: Adapted, params: Params = NO_PARAMS) -> float:
    """ir_measures' ``RBP(p=)@k``: RBP of binary relevance over the top k (all without k), p = 0.8 unless given."""
    return rbp_graded(a, params, np.ones(len(a.labels)))


def rbp_graded(a: Adapted, params: Params = NO_PARAMS, weights: FloatArray | None = None) -> float:
    """ranx's ``rbp.NN`` (``rbp_grade.p=0.NN``): RBP of the relevant units' grades (or ``weights``)."""
    p = params.named("p", 0.8)
    k = int(params.named("k", 0)) or None  # a cut-off is at least 1
    grades = gains(a) if weights is None else weights
    return (1 - p) * running_sum([float(grades[i]) * p**i for i in np.flatnonzero(a.relevant[:k]).tolist()])


def ndcg_gains_at(a: Adapted, params: Params = NO_PARAMS) -> float:
    """nDCG over grades mapped by ``params``' ``level=gain`` pairs (a grade not listed keeps its value), as
    ir_measures' ``nDCG(gains=...)@k`` maps the qrels before trec_eval's ndcg_cut: top k (``k=``) or all."""
    table = dict(params.gain_levels())
    k = int(params.named("k", 0)) or None

    def mapped(grades: FloatArray) -> FloatArray:
        out = np.array(
            [table.get(int(g), g) if g == g and float(g).is_integer() else g for g in grades.tolist()], dtype=np.float64
        )
        return np.where(np.nan_to_num(out) > 0, np.nan_to_num(out), 0.0)

    pool = a.pool if a.pool is not None else np.zeros(0)
    ideal = dcg(np.sort(mapped(pool))[::-1][:k])
    return dcg(mapped(grade_values(a))[:k]) / ideal if ideal > 0 else 0.0


def accuracy_at(a: Adapted, k: int | None = None) -> float:
    """ir_measures' ``Accuracy@k``: the share of (relevant, non-relevant) pairs of the top k (unjudged:
    non-relevant) ranked relevant first; 0 without a relevant result, 1 without a non-relevant one."""
    relevant = a.relevant[:k]
    found = int(relevant.sum())
    nonrel = len(relevant) - found
    if found == 0:
        return 0.0
    if nonrel == 0:
        return 1.0
    above = np.cumsum(~relevant)[relevant]
    return 1.0 - float(above.sum()) / (nonrel * found)


def _rbo(ranking: list[int], ideal: list[int], p: float, depth: int) -> float:
    """Rank-biased overlap of two rankings to ``depth``, over the sum of its weights (ir_measures' Compat)."""
    seen_r: set[int] = set()
    seen_i: set[int] = set()
    score, normalizer, weight = 0.0, 0.0, 1.0
    for i in range(depth):
        if i < len(ranking):
            seen_r.add(ranking[i])
        if i < len(ideal):
            seen_i.add(ideal[i])
        score += weight * len(seen_i & seen_r) / (i + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


def compat(a: Adapted, params: Params = NO_PARAMS) -> float:
    """ir_measures' ``Compat(p=0.95, normalize=True)`` (Clarke, Vtyurina & Smucker 2021): the rank-biased
    overlap with the ideal ranking (retrieved first within a grade), over the ideal's own when normalised."""
    p = params.named("p", 0.95)
    normalize = params.named("normalize", 1.0) != 0
    grades = np.nan_to_num(grade_values(a), nan=0.0)
    truth = a.truth if a.truth is not None else np.zeros(0)
    ranking = list(range(len(grades)))
    ideal: list[int] = []
    placeholder = len(grades)
    for g in sorted({float(x) for x in truth[truth > 0]}, reverse=True):
        retrieved = np.flatnonzero(grades == g).tolist()
        ideal += retrieved
        missing = int((truth == g).sum()) - len(retrieved)
        ideal += list(range(placeholder, placeholder + max(missing, 0)))
        placeholder += max(missing, 0)
    depth = max(len(ranking), len(ideal))
    if depth == 0:  # no result and no relevant document (a query -c adds): 0, as ir_measures scores it
        return 0.0
    score = _rbo(ranking, ideal, p, depth)
    if normalize:
        best = _rbo(ideal, ideal, p, depth)
        if best > 0.0:
            score /= best
    return score


#: cwl_eval's ranking depth (its ``max_n``): gains beyond are cut, shorter rankings padded with 0
CWL_DEPTH = 1000


def _cwl_gains(a: Adapted, params: Params) -> FloatArray:
    """cwl_eval's gains as ir_measures makes them: each grade clipped to [min_rel, max_rel] (0 and 1 unless
    given) and scaled into [0, 1]; unjudged results gain 0; padded or cut to :data:`CWL_DEPTH` ranks."""
    low, high = params.named("min_rel", 0.0), params.named("max_rel", 1.0)
    if not high > low:
        raise ParameterError(f"The '{params}' parameters must have max_rel above min_rel. Got {params!r} instead.")
    raw = grade_values(a)
    gains = np.where(np.isnan(raw), 0.0, (np.clip(np.nan_to_num(raw), low, high) - low) / (high - low))
    out = np.zeros(CWL_DEPTH)
    out[: min(len(gains), CWL_DEPTH)] = gains[:CWL_DEPTH]
    return out


def _cwl(gains: FloatArray, c: FloatArray) -> float:
    """The C/W/L expected utility per item: W from the continuation probabilities C (W_1 = 1 / sum of the
    products of C above each rank), summed against the gains."""
    reach = np.concatenate([[1.0], np.cumprod(c[:-1])])
    return float(np.dot(reach * (1.0 / np.sum(reach)), gains))


_RANKS = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)


def inst(a: Adapted, params: Params = NO_PARAMS) -> float:
    """INST (Moffat et al. 2015) as cwl_eval: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T minus the gain
    up to rank i; T = 1 unless given (inst.T=2,max_rel=3)."""
    gains = _cwl_gains(a, params)
    t = params.named("T", 1.0)
    left = t - np.cumsum(gains)
    i = _RANKS
    return _cwl(gains, ((i + t + left - 1.0) / (i + t + left)) ** 2.0)


def insq(a: Adapted, params: Params = NO_PARAMS) -> float:
    """INSQ as cwl_eval: C_i = ((i + 2T - 1) / (i + 2T))^2, T = 1 unless given."""
    t, i = params.named("T", 1.0), _RANKS
    return _cwl(_cwl_gains(a, params), ((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2.0)


def sdcg(a: Adapted, params: Params = NO_PARAMS) -> float:
    """Scaled DCG@k as cwl_eval: C_i = log2(i+1) / log2(i+2) before rank k, then 0; k = 10 unless given."""
    k = params.named("k", 10.0)
    c = np.array([math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0 for i in range(1, CWL_DEPTH + 1)])
    return _cwl(_cwl_gains(a, params), c)


def nerr(a: Adapted, params: Params = NO_PARAMS, equation: int = 8) -> float:
    """NERR (Azzopardi et al. 2021) as cwl_eval, by the paper's equation (8, 9, 10 or 11)."""
    gains = _cwl_gains(a, params)
    i = _RANKS
    before_k = i < params.named("k", 10.0)
    if equation == 8:
        c = np.where(before_k, 1.0 - gains, 0.0)
    elif equation == 9:
        c = np.where(before_k, i / (i + 1.0) * (1.0 - gains), 0.0)
    elif equation == 10:
        c = params.named("p", 0.9) * (1.0 - gains)
    else:
        t = params.named("T", 1.0)
        c = ((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2.0 * (1.0 - gains)
    return _cwl(gains, c)


nerr8, nerr9, nerr10, nerr11 = (partial(nerr, equation=e) for e in (8, 9, 10, 11))


def bpm(a: Adapted, params: Params = NO_PARAMS) -> float:
    """Static BPM (Zhang et al. 2017) as cwl_eval: C_i = 1 while the gain so far is below T and i below k, else 0."""
    gains = _cwl_gains(a, params)
    going = (np.cumsum(gains) < params.named("T", 1.0)) & (params.named("k", 10.0) > _RANKS)
    return _cwl(gains, going.astype(np.float64))
