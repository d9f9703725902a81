"""The rest of trec_eval's all_trec measures over one query's adapted labels and grades: infAP,
utility, 11pt_avg, binG, G, ndcg_rel, Rndcg, the set measures, rbp, unj, relstring, nDCG with gains.

Same arithmetic as :mod:`segeval.measures.trec` (:mod:`segeval.measures.arithmetic`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Label
from segeval.measures.arithmetic import log2_discounts, lround, running_sum
from segeval.measures.trec import dcg, ideal_gains

# In trec_eval's terms a ranked unit with a NaN grade is "not in the pool" (-1) and one with a
# negative grade "in the pool but unjudged" (-2); both are unjudged here.

EPS = 1e-5


def _grades(a: Adapted) -> npt.NDArray[np.float64]:
    return a.grades if a.grades is not None else np.zeros(len(a.labels))


def _p_at(a: Adapted, k: int) -> float:
    return int(a.relevant[:k].sum()) / k if k > 0 else 0.0


def rprec_mult(a: Adapted, x: float) -> float:
    """P at rank int(x * R + 0.9) (trec_eval's truncation); 0 when that rank is 0."""
    return _p_at(a, int(x * a.num_rel + 0.9))


def relative_p_at(a: Adapted, k: int) -> float:
    """Relevant results in the top k over min(k, R); 0 when nothing is relevant."""
    return int(a.relevant[:k].sum()) / min(k, a.num_rel) if a.num_rel else 0.0


def infap(a: Adapted) -> float:
    """Inferred AP (Yilmaz & Aslam), as trec_eval computes it."""
    if a.num_rel == 0:
        return 0.0
    grades = _grades(a)
    labels = a.labels.tolist()
    r = nr = u = 0
    total = 0.0
    for j, label in enumerate(labels):
        g = grades[j]
        if label == Label.RELEVANT:
            r += 1
            if j == 0:
                total += 1.0
            else:
                total += 1 / (j + 1) + (j / (j + 1)) * ((r - 1 + nr + u) / j) * ((r - 1 + EPS) / (r - 1 + nr + 2 * EPS))
        elif label == Label.NONRELEVANT:
            nr += 1
        elif not np.isnan(g) and g < 0:
            u += 1
    return total / a.num_rel


def utility(a: Adapted, params: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0),
            collection: int = 0) -> float:
    """p1 * rel_ret + p2 * nonrel_ret + p3 * rel_not_ret + p4 * (N + rel_ret - ret - R)."""
    p1, p2, p3, p4 = params
    ret, rel_ret, big_r = len(a.labels), int(a.relevant.sum()), a.num_rel
    return p1 * rel_ret + p2 * (ret - rel_ret) + p3 * (big_r - rel_ret) + p4 * (collection + rel_ret - ret - big_r)


ELEVEN_LEVELS = tuple(step / 10 for step in range(11))


def eleven_pt_avg(a: Adapted, levels: tuple[float, ...] = ELEVEN_LEVELS) -> float:
    """Mean of the interpolated precisions at the given recall levels (trec_eval 10 cut-offs).

    As trec_eval: walking up from the last rank, each level's precision is added when the walk
    reaches its cut-off (the last level first; levels out of reach at the end of the list add
    nothing, the others left add the final precision), then the sum is divided by the number of
    levels.  For ascending levels this is the mean of :func:`iprec_at_recall`.
    """
    if not levels:
        return math.nan
    cutoffs = [lround(x * a.num_rel) for x in levels]
    ranks = (np.flatnonzero(a.relevant) + 1).tolist()
    found = len(ranks)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > found:
        current -= 1
    # the best precision at each rank or below it: the running maximum of the walk up
    precision = a.found / np.arange(1, len(a.labels) + 1)
    best = np.maximum.accumulate(precision[::-1])[::-1].tolist()
    total = 0.0
    for k in range(found, 0, -1):
        while current >= 0 and cutoffs[current] == k:
            total += best[ranks[k - 1] - 1]
            current -= 1
    final = best[ranks[0] - 1] if found else 0.0  # nothing relevant retrieved: precision 0
    while current >= 0:
        total += final
        current -= 1
    return total / len(levels)


def bin_g(a: Adapted) -> float:
    """Sum over retrieved relevant units of 1 / log2(2 + non-relevant ranked above), over R."""
    if a.num_rel == 0:
        return 0.0
    ranks = np.flatnonzero(a.relevant) + 1
    above = (ranks - a.found[ranks - 1]).tolist()
    return running_sum([1.0 / math.log2(2 + x) for x in above]) / a.num_rel


def g_measure(a: Adapted) -> float:
    """trec_eval's G: gains discounted by log2(2 + ideal cumulated cost - gains so far)."""
    ideal = ideal_gains(a)
    total_ideal = running_sum(ideal)
    if total_ideal <= 0:
        return 0.0
    g = _gains_signed(a)
    n, lp = len(g), len(ideal)
    cost = np.ones(n)
    m = min(n, lp)
    cost[:m] = np.where(ideal[:m] >= 1, ideal[:m], 1.0)
    s_cum, c_cum = np.cumsum(g), np.cumsum(cost)  # running sums, in order
    nz = g != 0
    left = (2 + c_cum[nz] - s_cum[nz]).tolist()
    return running_sum([x / math.log2(y) for x, y in zip(g[nz].tolist(), left, strict=True)]) / total_ideal


def _gains_signed(a: Adapted) -> npt.NDArray[np.float64]:
    grades = np.nan_to_num(_grades(a), nan=0.0)
    return np.where(grades >= 0, grades, 0.0)  # negative grades are not in the gain table


def _dcg_prefix(g: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """DCG after each rank: trec_eval's running sum."""
    return np.cumsum(g / log2_discounts(len(g))) if len(g) else np.zeros(0)


def ndcg_rel(a: Adapted) -> float:
    """trec_eval's ndcg_rel: nDCG averaged over the ranks of retrieved positive-gain units."""
    ideal = ideal_gains(a)
    lp = len(ideal)
    if lp == 0:
        return 0.0
    g = _gains_signed(a)
    dcg, idcg = _dcg_prefix(g), _dcg_prefix(ideal)
    ranks = np.flatnonzero(g > 0)
    total = running_sum(dcg[ranks] / idcg[np.minimum(ranks, lp - 1)])
    dcg_n = float(dcg[-1]) if len(dcg) else 0.0
    total += (lp - len(ranks)) * dcg_n / float(idcg[-1])
    return total / lp if total > 0 else 0.0


def rndcg(a: Adapted) -> float:
    """trec_eval's Rndcg: nDCG at the ranks where the ideal gain drops, averaged."""
    if a.num_rel == 0:
        return 0.0
    ideal = ideal_gains(a)
    lp = len(ideal)
    g = _gains_signed(a)
    n = len(g)
    dcg, idcg = _dcg_prefix(g), _dcg_prefix(ideal)
    terms = []
    for b in range(1, lp + 1):
        if (b == lp or ideal[b] != ideal[b - 1]) and idcg[b - 1] > 0:
            terms.append((float(dcg[min(b, n) - 1]) if n else 0.0) / float(idcg[b - 1]))
    if n >= lp + 2 and lp:
        terms.append(float(dcg[-1]) / float(idcg[lp - 1]))
    return running_sum(terms) / len(terms) if terms else math.nan


def set_p(a: Adapted) -> float:
    """Relevant retrieved over retrieved."""
    return int(a.relevant.sum()) / len(a.labels) if len(a.labels) else 0.0


def set_recall(a: Adapted) -> float:
    """Relevant retrieved over R."""
    return int(a.relevant.sum()) / a.num_rel if a.num_rel else 0.0


def set_relative_p(a: Adapted) -> float:
    """Relevant retrieved over min(retrieved, R)."""
    n = len(a.labels)
    return int(a.relevant.sum()) / min(n, a.num_rel) if n and a.num_rel else 0.0


def set_map(a: Adapted) -> float:
    """set_P times set_recall."""
    n, rr = len(a.labels), int(a.relevant.sum())
    return rr * rr / (n * a.num_rel) if n and a.num_rel else 0.0


def set_f(a: Adapted, x: float = 1.0) -> float:
    """(x + 1) P R / (x P + R) over the whole retrieved set; 0 when nothing relevant is retrieved."""
    p, r = set_p(a), set_recall(a)
    return (x + 1) * p * r / (x * p + r) if p > 0 and r > 0 else 0.0


def _rbp_gains(a: Adapted) -> npt.NDArray[np.float64]:
    g = _gains_signed(a)
    pool = a.pool if a.pool is not None else np.zeros(0)
    top = float(np.max(pool[pool >= 0], initial=0.0))
    return g / top if top > 1 else g  # the gain table 0..max level, scaled into [0, 1]


def _powers(p: float, n: int) -> npt.NDArray[np.float64]:
    """1, p, p * p, ... (n + 1 values) by repeated multiplication, as trec_eval (not ``p ** i``)."""
    factors = np.full(n + 1, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def rbp(a: Adapted, p: float = 0.9) -> float:
    """Rank-biased precision (Moffat & Zobel), graded gains scaled into [0, 1]."""
    g = _rbp_gains(a)
    return (1.0 - p) * running_sum(g * _powers(p, len(g))[:-1])


def rbp_resid(a: Adapted, p: float = 0.9) -> float:
    """The RBP residual from unjudged units: p^n + (1 - p) * sum of p^(i-1) over them; 0 when all are judged."""
    unjudged = a.labels == Label.UNJUDGED
    if not unjudged.any():
        return 0.0
    powers = _powers(p, len(a.labels))
    return float(powers[-1]) + (1 - p) * running_sum(powers[:-1][unjudged])


def unjudged_at(a: Adapted, k: int) -> float:
    """Unjudged units in the top k, over k."""
    return int((a.labels[:k] == Label.UNJUDGED).sum()) / k


def trec_relstring(a: Adapted, length: int = 10) -> str:
    """The grades of the first ``length`` units: digits, '>' above 9, '-' not in the qrels, '.' negative."""
    out = []
    for g in _grades(a)[:length].tolist():
        if math.isnan(g):
            out.append("-")
        elif g < 0:
            out.append(".")
        else:
            out.append(str(int(g)) if g <= 9 else ">")
    return "".join(out)


def gain_table(text: str) -> dict[float, float]:
    table: dict[float, float] = {}
    for item in text.split(","):
        level, _, gain = item.partition("=")
        table[float(level)] = float(gain)
    return table


def ndcg_gains(a: Adapted, gains: dict[float, float]) -> float:
    """nDCG with trec_eval's gain map (``ndcg.1=3,2=9``): level v has gain ``gains.get(v, v)``."""
    def gain(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        clean = np.where(np.isnan(values) | (values < 0), np.nan, values)
        mapped = np.array([0.0 if math.isnan(v) else gains.get(v, v) for v in clean.tolist()])
        return mapped

    pool = a.pool if a.pool is not None else np.zeros(0)
    ideal = np.sort(gain(pool))[::-1]
    ideal = ideal[ideal > 0]
    best = dcg(ideal)
    return dcg(gain(_grades(a))) / best if best > 0 else 0.0
