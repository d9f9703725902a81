"""Measures of ir_measures and ranx that trec_eval lacks (one query's adapted labels and grades), and the
per-measure options ir_measures gives any measure: ``rel`` (its own relevance level) and ``judged_only``.

Each function states its peer: gdeval (ir_measures' ERR and ``nDCG(dcg='exp-log2')``), ranx
(``hits``, ``dcg``, ``dcg_burges``), cwl_eval (``RBP``),
ir_measures' msmarco provider and ranx (``RR@k``).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Label, judged_only
from segeval.measures.params import Params

#: gdeval.pl's ``$MAX_JUDGMENT``: ERR's gain is (2^grade - 1) / 2^4 whatever the qrels' largest grade
GDEVAL_MAX_GRADE = 4


def at_level(a: Adapted, level: int) -> Adapted:
    """The ranking as relevance level ``level`` labels it (ir_measures' ``rel=``, ranx's ``-lN``): a judged
    unit is relevant when its grade reaches ``level``, and num_rel counts the query's qrels grades that reach
    it; positive grades below the level gain 0 (ranx drops them from its qrels: ``ndcg@10-l2``).  Units the
    adapter marked unjudged or already credited keep their label."""
    raw = a.grades if a.grades is not None else np.zeros(len(a.labels))
    grades = np.nan_to_num(raw, nan=-math.inf)
    pool = a.pool if a.pool is not None else np.zeros(0)
    labels = a.labels.copy()
    judged = (labels == Label.RELEVANT) | (labels == Label.NONRELEVANT)
    labels[judged & (grades >= level)] = Label.RELEVANT
    labels[judged & (grades < level)] = Label.NONRELEVANT
    truth = a.truth if a.truth is not None else np.zeros(0)
    return Adapted(labels, int((truth >= level).sum()), a.match_offsets, a.match_rows, a.source,
                   np.where((raw > 0) & (raw < level), 0.0, raw), np.where((pool > 0) & (pool < level), 0.0, pool),
                   a.match_grades, a.truth, a.match_strata, a.truth_strata)


def with_options(a: Adapted, level: int | None, judged: bool) -> Adapted:
    """``a`` with a measure's own options applied: its relevance level, then trec_eval's ``-J``."""
    if level is not None:
        a = at_level(a, level)
    return judged_only(a) if judged else a


def _positive_grades(a: Adapted) -> npt.NDArray[np.float64]:
    grades = np.nan_to_num(a.grades if a.grades is not None else np.zeros(len(a.labels)), nan=0.0)
    return np.where(grades > 0, grades, 0.0)


def _ideal(a: Adapted) -> npt.NDArray[np.float64]:
    pool = a.pool if a.pool is not None else np.zeros(0)
    return np.sort(pool[pool > 0])[::-1]


def _dcg_exp(gains: npt.NDArray[np.float64]) -> float:
    """sum of (2^g - 1) / ln(rank + 1), as gdeval.pl (its natural log cancels in nDCG)."""
    total = 0.0
    for i, g in enumerate(gains.tolist()):
        total += (2.0**g - 1) / math.log(i + 2)
    return total


def ndcg_exp_at(a: Adapted, k: int) -> float:
    """gdeval's nDCG@k (ir_measures' ``nDCG(dcg='exp-log2')@k``, ranx's ``ndcg_burges@k``): gain 2^grade - 1,
    discount log(rank + 1), over the ideal ordering of the query's positive grades; 0 without one."""
    ideal = _dcg_exp(_ideal(a)[:k])
    return _dcg_exp(_positive_grades(a)[:k]) / ideal if ideal > 0 else 0.0


def dcg_exp_at(a: Adapted, k: int) -> float:
    """ranx's ``dcg_burges@k``: sum of (2^grade - 1) / log2(rank + 1) over the top k."""
    g = _positive_grades(a)[:k]
    return float(np.sum((2.0**g - 1) / np.log2(np.arange(2, len(g) + 2))))


def dcg_at(a: Adapted, k: int) -> float:
    """ranx's ``dcg@k``: sum of grade / log2(rank + 1) over the top k (positive grades)."""
    g = _positive_grades(a)[:k]
    return float(np.sum(g / np.log2(np.arange(2, len(g) + 2))))


def err_at(a: Adapted, k: int) -> float:
    """gdeval's ERR@k: sum over ranks i of R_i / i times the product of (1 - R_j) above it, with
    R = (2^grade - 1) / 2^4 (gdeval's fixed largest grade)."""
    score, decay = 0.0, 1.0
    for i, g in enumerate(_positive_grades(a)[:k].tolist()):
        r = (2.0**g - 1) / 2.0**GDEVAL_MAX_GRADE
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def reciprocal_rank_at(a: Adapted, k: int) -> float:
    """1 / rank of the first relevant unit within the top k, else 0 (MS MARCO's MRR@k, ranx's mrr@k)."""
    ranks = np.flatnonzero(a.relevant[:k])
    return 1.0 / (int(ranks[0]) + 1) if len(ranks) else 0.0


def hits_at(a: Adapted, k: int | None = None) -> float:
    """ranx's ``hits@k``: relevant units in the top k (all ranks without k)."""
    return float(a.relevant[:k].sum())


def rbp_binary(a: Adapted, params: Params | None = None) -> float:
    """ir_measures' ``RBP(p=)@k`` (``rbp_bin.p=0.8,k=10``): (1 - p) times the sum of p^(i-1) over the
    relevant units among the top k (all ranks without k); p = 0.8 unless given."""
    p = 0.8 if params is None else params.named("p", 0.8)
    k = None if params is None or not any(n == "k" for n, _ in params.pairs) else int(params.named("k", 0))
    total = 0.0
    for i in np.flatnonzero(a.relevant[:k]).tolist():
        total += p**i
    return (1 - p) * total


def rbp_graded(a: Adapted, params: Params | None = None) -> float:
    """ranx's ``rbp.NN`` (``rbp_grade.p=0.NN``): (1 - p) times the sum of grade * p^(i-1) over the relevant
    units (their grade unscaled), all ranks."""
    p = 0.8 if params is None else params.named("p", 0.8)
    grades = _positive_grades(a)
    total = 0.0
    for i in np.flatnonzero(a.relevant).tolist():
        total += float(grades[i]) * p**i
    return (1 - p) * total


def ndcg_gains_at(a: Adapted, params: Params) -> float:
    """nDCG over grades mapped by ``params``' ``level=gain`` pairs (a grade not listed keeps its value), as
    ir_measures' ``nDCG(gains=...)@k`` maps the qrels before trec_eval's ndcg_cut: top k (``k=``) or all."""
    from segeval.measures.trec_gains import dcg

    table = dict(params.gain_levels())
    k = int(params.named("k", 0)) or None

    def mapped(grades: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        out = np.array([table.get(int(g), g) if g == g and float(g).is_integer() else g for g in grades.tolist()],
                       dtype=np.float64)
        return np.where(np.nan_to_num(out) > 0, np.nan_to_num(out), 0.0)

    pool = a.pool if a.pool is not None else np.zeros(0)
    ideal = dcg(np.sort(mapped(pool))[::-1][:k])
    return dcg(mapped(a.grades if a.grades is not None else np.zeros(len(a.labels)))[:k]) / ideal if ideal > 0 else 0.0


def accuracy_at(a: Adapted, k: int | None = None) -> float:
    """ir_measures' ``Accuracy@k``: the share of (relevant, non-relevant) pairs of the top k (all ranks without
    k; unjudged results count as non-relevant) that the ranking orders relevant first, 1 - (sum over relevant
    results of the non-relevant ones above) / (relevant * non-relevant).  ir_measures reports no value for a
    query without a relevant result (0 here) and fails on one without a non-relevant result (1 here)."""
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


def compat(a: Adapted, params: Params | None = None) -> float:
    """ir_measures' ``Compat(p=0.95, normalize=True)`` (Clarke, Vtyurina & Smucker 2021): the rank-biased
    overlap of the ranking with the ideal ranking (the query's positive grades, best first; within a grade
    the retrieved ones first, in rank order), over the ideal's own overlap when ``normalize`` is not 0."""
    p = 0.95 if params is None else params.named("p", 0.95)
    normalize = True if params is None else params.named("normalize", 1.0) != 0
    grades = np.nan_to_num(a.grades if a.grades is not None else np.zeros(len(a.labels)), nan=0.0)
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
    score = _rbo(ranking, ideal, p, depth)
    if normalize:
        best = _rbo(ideal, ideal, p, depth)
        if best > 0.0:
            score /= best
    return score
