"""trec_eval's measures over one query's adapted labels and grades (pure functions).

Relevance is the adapter's label (the relevance level is applied when the qrels
are prepared); graded measures use ``Adapted.grades`` and ``Adapted.pool``.

The arithmetic is trec_eval's, not only its algebra: every sum adds its terms left to
right in doubles in trec_eval's order (:func:`running_sum`), discounts are the C
library's ``log2`` (:func:`log2_discounts`), powers are repeated products, and each
division has trec_eval's operands.  A value whose exact result sits on a 4th-decimal
boundary then prints the digit trec_eval prints.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Label
from segeval.measures.arithmetic import log2_discounts, lround, running_sum


def _relevant(a: Adapted) -> npt.NDArray[np.bool_]:
    return a.relevant


def _precision_at_relevant(a: Adapted, cutoff: int | None = None) -> list[float]:
    ranks = np.flatnonzero(_relevant(a)[:cutoff]) + 1
    return [found / rank for found, rank in enumerate(ranks.tolist(), start=1)]


def map_at(a: Adapted, k: int) -> float:
    """Average precision counting only relevant results in the top k (divided by num_rel)."""
    if a.num_rel == 0:
        return 0.0
    return running_sum(_precision_at_relevant(a, k)) / a.num_rel


def r_precision(a: Adapted) -> float:
    """Precision at rank R = num_rel; 0 when nothing is relevant."""
    return int(_relevant(a)[: a.num_rel].sum()) / a.num_rel if a.num_rel else 0.0


def reciprocal_rank(a: Adapted) -> float:
    """1 / rank of the first relevant result; 0 when none is retrieved."""
    ranks = np.flatnonzero(_relevant(a))
    return 1.0 / (int(ranks[0]) + 1) if len(ranks) else 0.0


def recall_at(a: Adapted, k: int) -> float:
    """Relevant results in the top k over num_rel; 0 when nothing is relevant."""
    return int(_relevant(a)[:k].sum()) / a.num_rel if a.num_rel else 0.0


def success_at(a: Adapted, k: int) -> float:
    """1 when a relevant result is in the top k, else 0."""
    return 1.0 if bool(_relevant(a)[:k].any()) else 0.0


def iprec_cutoff(level: float, num_rel: int, version: str = "10") -> int:
    """The relevant results interpolated precision at ``level`` needs: trec_eval 10's ``lround(level * R)``,
    or 9.0.8's ``(long)(level * R + 0.9)`` (in doubles, so 0.7 * 3 + 0.9 = 2.9999999999999996 needs 2)."""
    return lround(level * num_rel) if version == "10" else int(level * num_rel + 0.9)


def iprec_at_recall(a: Adapted, level: float) -> float:
    """Interpolated precision at a recall level: the best precision at a rank that has found
    ``lround(level * num_rel)`` relevant results (trec_eval 10's rounding of the cut-off)."""
    return _iprec(a, iprec_cutoff(level, a.num_rel))


def iprec_at_recall_9(a: Adapted, level: float) -> float:
    """trec_eval 9.0.8's variant: the cut-off is ``int(level * num_rel + 0.9)`` relevant results."""
    return _iprec(a, iprec_cutoff(level, a.num_rel, "9"))


def _iprec(a: Adapted, needed: int) -> float:
    if a.num_rel == 0:
        return 0.0
    found = a.found
    ranks = np.arange(1, len(found) + 1)
    reached = found >= needed
    if not reached.any():
        return 0.0
    return float((found / ranks)[reached].max())


def num_nonrel_judged_ret(a: Adapted) -> int:
    """Retrieved results judged non-relevant."""
    return int((a.labels == Label.NONRELEVANT).sum())


def bpref(a: Adapted) -> float:
    """Binary preference: relevant results penalised by judged non-relevant ones above them."""
    big_r = a.num_rel
    if big_r == 0:
        return 0.0
    big_n = _judged_nonrelevant(a)
    above = _nonrelevant_above_relevant(a)
    bound = min(big_r, big_n)
    # min(above, R) / min(R, N) as trec_eval; for documents above <= N, while segment runs can hold more
    # non-relevant results than the qrels' N, so the count is capped at min(R, N) to keep bpref in [0, 1]
    penalties = np.where(above > 0, np.minimum(above, bound) / max(bound, 1), 0.0)
    return running_sum(1.0 - penalties) / big_r


def _judged_nonrelevant(a: Adapted) -> int:
    """Judged non-relevant units of the query (negative grades do not count)."""
    pool = a.pool if a.pool is not None else np.zeros(0)
    return int((pool >= 0).sum()) - a.num_rel


def _nonrelevant_above_relevant(a: Adapted) -> npt.NDArray[np.int64]:
    """For each retrieved relevant unit, the judged non-relevant units ranked above it."""
    nonrel_so_far = np.cumsum(a.labels == Label.NONRELEVANT)
    return np.asarray(nonrel_so_far[a.relevant], dtype=np.int64)


def dcg(gains: npt.NDArray[np.float64]) -> float:
    """trec_eval's DCG of gains in rank order (log2(rank + 1) discounts)."""
    return running_sum(gains / log2_discounts(len(gains)))


def gains(a: Adapted) -> npt.NDArray[np.float64]:
    """Per unit, its gain: the grade when above 0, else 0."""
    grades = a.grades if a.grades is not None else np.zeros(len(a.labels))
    return np.where(np.nan_to_num(grades) > 0, np.nan_to_num(grades), 0.0)


def ideal_gains(a: Adapted) -> npt.NDArray[np.float64]:
    """The query's positive pool grades, best first (the ideal ranking's gains)."""
    pool = a.pool if a.pool is not None else np.zeros(0)
    return np.sort(pool[pool > 0])[::-1]


def ndcg(a: Adapted) -> float:
    """Normalised DCG over the whole ranking: gain = grade (> 0), discount log2(rank + 1)."""
    ideal = dcg(ideal_gains(a))
    return dcg(gains(a)) / ideal if ideal > 0 else 0.0


def ndcg_at(a: Adapted, k: int) -> float:
    """nDCG of the top k against the ideal top k."""
    ideal = dcg(ideal_gains(a)[:k])
    return dcg(gains(a)[:k]) / ideal if ideal > 0 else 0.0


# ---------------------------------------------------------------- beyond trec_eval

def rankeff(a: Adapted) -> float:
    """RankEff (Ahlgren & Grönqvist): like bpref, but against all |J| - |R| judged non-relevant units.

    (1/R) * sum over retrieved relevant r of (1 - judged non-relevant above r / (|J| - |R|));
    relevant units not retrieved contribute 0 (ranked at infinity).
    """
    big_r = a.num_rel
    if big_r == 0:
        return 0.0
    big_n = _judged_nonrelevant(a)
    above = _nonrelevant_above_relevant(a)
    capped = np.minimum(above, big_n)  # segment runs can hold more non-relevant results than the qrels' N
    return float(np.sum(1.0 - (capped / big_n if big_n else 0.0 * above))) / big_r


def f_at(a: Adapted, k: int) -> float:
    """F measure at cut-off k: the harmonic mean of P@k and recall@k (0 when either is 0)."""
    from segeval.measures.labels import precision_at

    p, r = precision_at(a, k), recall_at(a, k)
    return 2 * p * r / (p + r) if p > 0 and r > 0 else 0.0


def e_at(a: Adapted, k: int) -> float:
    """E measure at cut-off k with b = 1: 1 - F@k (van Rijsbergen; textbook form)."""
    return 1.0 - f_at(a, k)


def _dcg_jk(gains: npt.NDArray[np.float64], base: float = 2.0) -> float:
    ranks = np.arange(1, len(gains) + 1, dtype=np.float64)
    discount = np.where(ranks < base, 1.0, np.log(np.maximum(ranks, base)) / math.log(base))
    return float(np.sum(gains / discount))


def dcg_jk_at(a: Adapted, k: int) -> float:
    """Järvelin-Kekäläinen DCG at k: gains undiscounted before rank b = 2, then divided by log_b(rank)."""
    return _dcg_jk(gains(a)[:k])


def ndcg_jk_at(a: Adapted, k: int) -> float:
    """Järvelin-Kekäläinen DCG at k over the ideal DCG at k (from the judged grades)."""
    ideal = _dcg_jk(ideal_gains(a)[:k])
    return dcg_jk_at(a, k) / ideal if ideal > 0 else 0.0
