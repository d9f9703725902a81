"""trec_eval's measures over one query's adapted labels and grades (pure functions).

Relevance is the adapter's label (the relevance level is applied when the qrels
are prepared); graded measures use ``Adapted.grades`` and ``Adapted.pool``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Label


def _relevant(a: Adapted) -> npt.NDArray[np.bool_]:
    return a.relevant


def _precision_at_relevant(a: Adapted, cutoff: int | None = None) -> list[float]:
    ranks = np.flatnonzero(_relevant(a)[:cutoff]) + 1
    return [found / rank for found, rank in enumerate(ranks.tolist(), start=1)]


def map_at(a: Adapted, k: int) -> float:
    """Average precision counting only relevant results in the top k (divided by num_rel)."""
    if a.num_rel == 0:
        return 0.0
    return math.fsum(_precision_at_relevant(a, k)) / a.num_rel


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


def iprec_at_recall(a: Adapted, level: float) -> float:
    """Interpolated precision at a recall level: the best precision at a rank that has found
    ``floor(level * num_rel + 0.5)`` relevant results (trec_eval 10's rounding of the cut-off)."""
    return _iprec(a, math.floor(level * a.num_rel + 0.5))


def iprec_at_recall_9(a: Adapted, level: float) -> float:
    """trec_eval 9.0.8's variant: the cut-off is ``int(level * num_rel + 0.9)`` relevant results
    (in double arithmetic, so 0.7 * 3 + 0.9 = 2.9999999999999996 needs 2)."""
    return _iprec(a, int(level * a.num_rel + 0.9))


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
    penalties = np.where(above > 0, np.minimum(above, big_r) / max(bound, 1), 0.0)
    return float(np.sum(1.0 - penalties)) / big_r


def _judged_nonrelevant(a: Adapted) -> int:
    """Judged non-relevant units of the query (negative grades do not count)."""
    pool = a.pool if a.pool is not None else np.zeros(0)
    return int((pool >= 0).sum()) - a.num_rel


def _nonrelevant_above_relevant(a: Adapted) -> npt.NDArray[np.int64]:
    """For each retrieved relevant unit, the judged non-relevant units ranked above it."""
    nonrel_so_far = np.cumsum(a.labels == Label.NONRELEVANT)
    return np.asarray(nonrel_so_far[a.relevant], dtype=np.int64)


def _dcg(gains: npt.NDArray[np.float64]) -> float:
    if len(gains) == 0:
        return 0.0
    return float(np.sum(gains / np.log2(np.arange(2, len(gains) + 2))))


def _gains(a: Adapted) -> npt.NDArray[np.float64]:
    grades = a.grades if a.grades is not None else np.zeros(len(a.labels))
    return np.where(np.nan_to_num(grades) > 0, np.nan_to_num(grades), 0.0)


def _ideal(a: Adapted) -> npt.NDArray[np.float64]:
    pool = a.pool if a.pool is not None else np.zeros(0)
    return np.sort(pool[pool > 0])[::-1]


def ndcg(a: Adapted) -> float:
    """Normalised DCG over the whole ranking: gain = grade (> 0), discount log2(rank + 1)."""
    ideal = _dcg(_ideal(a))
    return _dcg(_gains(a)) / ideal if ideal > 0 else 0.0


def ndcg_at(a: Adapted, k: int) -> float:
    """nDCG of the top k against the ideal top k."""
    ideal = _dcg(_ideal(a)[:k])
    return _dcg(_gains(a)[:k]) / ideal if ideal > 0 else 0.0


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
    return float(np.sum(1.0 - (above / big_n if big_n else 0.0 * above))) / big_r


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
    return _dcg_jk(_gains(a)[:k])


def ndcg_jk_at(a: Adapted, k: int) -> float:
    """Järvelin-Kekäläinen DCG at k over the ideal DCG at k (from the judged grades)."""
    ideal = _dcg_jk(_ideal(a)[:k])
    return dcg_jk_at(a, k) / ideal if ideal > 0 else 0.0
