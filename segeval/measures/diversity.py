"""NIST ndeval's novelty and diversity measures over subtopic qrels, with its arithmetic (docs/measures.md,
"Subtopic qrels"): a gain's factors multiplied in turn in subtopic order, sums one term at a time in rank
order; nERR-IA and alpha-nDCG are 0 when the run's value is 0."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from functools import partial

import numpy as np

from segeval.adapters.base import Adapted
from segeval.adapters.subtopics import Rows, Subtopics
from segeval.core.arrays import FloatArray
from segeval.core.domains import Key
from segeval.core.errors import ParameterError
from segeval.measures.declaration import settings
from segeval.measures.definitions import ALPHA, CUT_KEYS, RBP_KEYS


def _subtopics(a: Adapted) -> tuple[Subtopics, int]:
    """The ranking's subtopics and :func:`actual`'s count."""
    if a.subtopics is None:
        raise ParameterError(
            "The diversity measures need subtopic qrels (qid subtopic docno rel) of documents, "
            "judged by the exact adapter. Got a ranking without them instead."
        )
    return a.subtopics, actual(a.subtopics)


def gains(ranked: Rows, alpha: float) -> FloatArray:
    """Each rank's novelty gain: over the subtopics the result is relevant to, in subtopic order, the sum of
    the subtopic's gain, which starts at 1 and is multiplied by 1 - alpha after each result relevant to it."""
    gain: dict[int, float] = {}
    score = np.zeros(len(ranked))
    for i, topics in enumerate(ranked):
        total = 0.0
        for s in topics:
            total += gain.get(s, 1.0)
        score[i] = total
        for s in topics:  # one factor at a time, as ndeval
            gain[s] = gain.get(s, 1.0) * (1.0 - alpha)
    return score


def ideal(sub: Subtopics, alpha: float) -> FloatArray:
    """The novelty gains of ndeval's greedy ideal ranking (``idealResult``): at each rank the unplaced judged
    document of largest gain, ties to the larger docno, until none gains anything."""
    if alpha in sub.ideals:
        return sub.ideals[alpha]
    judged = sub.judged
    gain: dict[int, float] = {}

    def current(d: int) -> float:
        total = 0.0
        for s in judged[d]:
            total += gain.get(s, 1.0)
        return total

    heap = [(-current(d), d) for d in range(len(judged))]
    heapq.heapify(heap)
    out: list[float] = []
    while heap:
        stale, d = heapq.heappop(heap)
        score = current(d)
        if -score != stale and heap and (-score, d) > heap[0]:
            heapq.heappush(heap, (-score, d))
            continue
        if not score > 0.0:
            break
        out.append(score)
        for s in judged[d]:
            gain[s] = gain.get(s, 1.0) * (1.0 - alpha)
    sub.ideals[alpha] = np.array(out, dtype=np.float64)
    return sub.ideals[alpha]


def actual(sub: Subtopics) -> int:
    """ndeval's ``actualSubtopics``: the query's subtopics with a relevant document."""
    return len({s for topics in sub.judged for s in topics})


def _discount(i: int) -> float:
    """ndeval's discount of 0-based rank i: 1 at the top, else log(2) / log(i + 2)."""
    return 1.0 if i == 0 else math.log(2.0) / math.log(i + 2.0)


def _normalised(score: FloatArray, k: int, subtopics: int, alpha: float, weight: str) -> float:
    """ndeval's cumulated gain at cut-off k over its "ideal ideal" (every subtopic at every rank), with the
    weight of 0-based rank i: ``dcg`` its discount, ``err`` 1 / (i + 1); at k = 1 not divided."""
    total, best, ideal_gain = 0.0, 0.0, float(subtopics)
    for i in range(k):
        if i >= len(score) and ideal_gain == 0.0:
            break  # every later term adds 0
        w = _discount(i) if weight == "dcg" else 1.0
        g = float(score[i]) if i < len(score) else 0.0
        total += g * w if weight == "dcg" else g / (i + 1.0)
        best += ideal_gain * w if weight == "dcg" else ideal_gain / (i + 1.0)
        ideal_gain *= 1.0 - alpha
    return total if k == 1 else total / best


def _cut(sub: Subtopics, n: int, k: int, alpha: float, weight: str, normalise: bool) -> float:
    if n == 0:
        return 0.0
    value = _normalised(gains(sub.ranked[:k], alpha), k, n, alpha, weight)
    if not normalise or value == 0.0:
        return value
    return value / _normalised(ideal(sub, alpha)[:k], k, n, alpha, weight)


def _err_ia(a: Adapted, k: int, normalise: bool = False) -> float:
    """ERR-IA@k (Chapelle et al. 2009, intent-aware with ndeval's novelty gains): the sum of each rank's gain
    over the rank, over the same sum for the ideal ideal, or (nERR-IA) the ideal ranking's."""
    return _cut(*_subtopics(a), k, ALPHA, "err", normalise)


def _keyed(params: str | None, keys: tuple[Key, ...]) -> dict[str, float]:
    return {name: float(value) for name, value in settings(keys, params).items()}


def _alpha_dcg(a: Adapted, params: str | None = None, normalise: bool = False) -> float:
    """alpha-DCG@k (Clarke et al. 2008) over ndeval's ideal ideal, or (alpha-nDCG) the greedy ideal's."""
    p = _keyed(params, CUT_KEYS)
    return _cut(*_subtopics(a), int(p["k"]), p["alpha"], "dcg", normalise)


err_ia, nerr_ia = partial(_err_ia, normalise=False), partial(_err_ia, normalise=True)
alpha_dcg, alpha_ndcg = partial(_alpha_dcg, normalise=False), partial(_alpha_dcg, normalise=True)


def _nrbp(score: FloatArray, subtopics: int, alpha: float, beta: float) -> float:
    if subtopics == 0:
        return 0.0
    total, decay = 0.0, 1.0
    for g in score.tolist():
        total += g * decay
        decay *= beta
    return total * ((1 - (1 - alpha) * beta) / subtopics)


def nrbp(a: Adapted, params: str | None = None) -> float:
    """NRBP (Clarke, Kolla & Vechtomova 2009) over every rank: the gains weighted by beta^(rank - 1), times
    (1 - (1 - alpha) beta) / subtopics; alpha = beta = 0.5 unless given (nrbp.alpha=0.3,beta=0.8)."""
    (sub, n), p = _subtopics(a), _keyed(params, RBP_KEYS)
    return _nrbp(gains(sub.ranked, p["alpha"]), n, p["alpha"], p["beta"])


def nnrbp(a: Adapted, params: str | None = None) -> float:
    (sub, n), p = _subtopics(a), _keyed(params, RBP_KEYS)
    best = _nrbp(ideal(sub, p["alpha"]), n, p["alpha"], p["beta"])
    return _nrbp(gains(sub.ranked, p["alpha"]), n, p["alpha"], p["beta"]) / best if best else math.nan


def p_ia(a: Adapted, k: int) -> float:
    """P-IA@k (Agrawal et al. 2009): the (result, subtopic) relevant pairs of the top k over k times the subtopics."""
    sub, n = _subtopics(a)
    return sum(map(len, sub.ranked[:k])) / (k * n) if n else 0.0


def strec(a: Adapted, k: int) -> float:
    sub, n = _subtopics(a)
    return len({s for topics in sub.ranked[:k] for s in topics}) / n if n else 0.0


def map_ia(a: Adapted) -> float:
    sub, n = _subtopics(a)
    if n == 0:
        return 0.0
    relevant = Counter(s for topics in sub.judged for s in topics)
    found: Counter[int] = Counter()
    totals: dict[int, float] = {}
    for rank, topics in enumerate(sub.ranked):
        for s in topics:
            found[s] += 1
            totals[s] = totals.get(s, 0.0) + found[s] / (rank + 1.0)
    value = 0.0
    for s in sorted(totals):
        value += totals[s] / relevant[s]
    return value / n
