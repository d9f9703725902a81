"""The rest of trec_eval's all_trec measures over one query's adapted labels and grades: infAP,
utility, 11pt_avg, binG, G, ndcg_rel, Rndcg, the set measures, rbp, unj, relstring, nDCG with gains.

Same arithmetic as :mod:`segeval.measures.trec` (:mod:`segeval.measures.arithmetic`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Label
from segeval.measures.arithmetic import log2_discounts, running_sum
from segeval.measures.trec import dcg, iprec_cutoff

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


def eleven_pt_avg(a: Adapted, levels: tuple[float, ...] = ELEVEN_LEVELS, version: str = "10") -> float:
    """Mean of the interpolated precisions at the given recall levels (trec_eval 10 cut-offs).

    As trec_eval: walking up from the last rank, each level's precision is added when the walk
    reaches its cut-off (the last level first; levels out of reach at the end of the list add
    nothing, the others left add the final precision), then the sum is divided by the number of
    levels.  For ascending levels this is the mean of :func:`iprec_at_recall`.  ``version`` 9:
    trec_eval 9.0.8's cut-offs (:func:`segeval.measures.trec.iprec_cutoff`).
    """
    if not levels:
        return math.nan
    cutoffs = [iprec_cutoff(x, a.num_rel, version) for x in levels]
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


def g_measure(a: Adapted, levels: GainLevels = ()) -> float:
    """trec_eval's G: gains discounted by log2(2 + ideal cumulated cost - gains so far)."""
    table = gain_table(a, levels)
    ideal = table.ideal
    total_ideal = running_sum(ideal)
    if total_ideal <= 0:
        return 0.0
    g = table.gains
    n, lp = len(g), len(ideal)
    cost = np.ones(n)
    m = min(n, lp)
    cost[:m] = np.where(ideal[:m] >= 1, ideal[:m], 1.0)
    s_cum, c_cum = np.cumsum(g), np.cumsum(cost)  # running sums, in order
    nz = g != 0
    left = (2 + c_cum[nz] - s_cum[nz]).tolist()
    return running_sum([_over_c_log2(x, y) for x, y in zip(g[nz].tolist(), left, strict=True)]) / total_ideal


def _over_c_log2(x: float, y: float) -> float:
    """``x / log2(y)`` in C doubles (x != 0): log2 is -inf at 0 and NaN below, x / 0 is +-inf (a unit
    credited several times, or a gain table, can bring G's cost minus gain down there)."""
    if y <= 0:
        return -0.0 * x if y == 0 else math.nan
    log = math.log2(y)
    return x / log if log else math.copysign(math.inf, x)


def _dcg_prefix(g: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """DCG after each rank: trec_eval's running sum."""
    return np.cumsum(g / log2_discounts(len(g))) if len(g) else np.zeros(0)


def ndcg_rel(a: Adapted, levels: GainLevels = ()) -> float:
    """trec_eval's ndcg_rel: nDCG averaged over the ranks of retrieved positive-gain units."""
    table = gain_table(a, levels)
    ideal = table.ideal
    lp = len(ideal)
    if lp == 0:
        return 0.0
    g = table.gains
    dcg, idcg = _dcg_prefix(g), _dcg_prefix(ideal)
    ranks = np.flatnonzero(g > 0)
    total = running_sum(dcg[ranks] / idcg[np.minimum(ranks, lp - 1)])
    dcg_n = float(dcg[-1]) if len(dcg) else 0.0
    total += (lp - len(ranks)) * dcg_n / float(idcg[-1])
    return total / lp if total > 0 else 0.0


def rndcg(a: Adapted, levels: GainLevels = ()) -> float:
    """trec_eval's Rndcg: nDCG at the ranks where the ideal gain drops, averaged."""
    if a.num_rel == 0:
        return 0.0
    table = gain_table(a, levels)
    ideal = table.ideal
    lp = len(ideal)
    g = table.gains
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


def _powers(p: float, n: int) -> npt.NDArray[np.float64]:
    """1, p, p * p, ... (n + 1 values) by repeated multiplication, as trec_eval (not ``p ** i``)."""
    factors = np.full(n + 1, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def rbp(a: Adapted, p: float = 0.9, levels: GainLevels = ()) -> float:
    """Rank-biased precision (Moffat & Zobel): the gain table scaled into [0, 1] when a gain lies
    outside (g -> (g - min) / (max - min)); units without a table entry gain 0."""
    table = gain_table(a, levels)
    low, high = min(table.table, default=0.0), max(table.table, default=0.0)
    g = table.gains
    if low < 0 or high > 1:
        g = np.where(table.listed, (g - low) / (high - low), 0.0)
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


GainLevels = tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class GainTable:
    """trec_eval's gain table of one query (``setup_gains``) and what follows from it."""

    #: the table's gains in its sorted order
    table: tuple[float, ...]
    #: per ranked unit, its table gain (0 without an entry)
    gains: npt.NDArray[np.float64]
    #: per ranked unit, True when its level has a table entry
    listed: npt.NDArray[np.bool_]
    #: the ideal ranking's gains: the table walked from its last entry, each gain as many times as the
    #: level has judged units, up to the first gain <= 0
    ideal: npt.NDArray[np.float64]


def _sorted_gains(entries: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """glibc's ``qsort`` (a stable top-down merge sort: halves of n // 2 and the rest, the left one
    taken when the comparison is <= 0) with trec_eval's comparator, the gain difference cut to an
    int: gains less than 1 apart compare equal."""
    if len(entries) <= 1:
        return entries
    left, right = _sorted_gains(entries[: len(entries) // 2]), _sorted_gains(entries[len(entries) // 2:])
    out: list[tuple[int, float, int]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if math.trunc(left[i][1] - right[j][1]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def gain_table(a: Adapted, levels: GainLevels = ()) -> GainTable:
    """The query's gain table: one entry per given ``(level, gain)`` in order, then each judged level
    v >= 0 not given with gain v; each with the number of judged units at its level; sorted as
    trec_eval sorts it (:func:`_sorted_gains`).  A ranked unit's level is its grade, -1 when it is not
    in the qrels and -2 when its grade is negative (so ``-1=g`` gives unjudged units a gain, as in
    trec_eval)."""
    pool = a.pool if a.pool is not None else np.zeros(0)
    judged = pool[pool >= 0].astype(np.int64)
    counts = np.bincount(judged).tolist() if len(judged) else []
    entries = [(level, gain, 0) for level, gain in levels]
    given = len(entries)
    for v, count in enumerate(counts):
        at = next((j for j in range(given) if entries[j][0] == v), None)
        if at is None:
            entries.append((v, float(v), count))
        else:
            entries[at] = (v, entries[at][1], count)
    table = _sorted_gains(entries)
    lookup: dict[int, float] = {}
    for level, gain, _ in table:
        lookup.setdefault(level, gain)
    grades = _grades(a)
    ranked = np.where(np.isnan(grades), -1, np.where(grades < 0, -2, np.nan_to_num(grades))).astype(np.int64)
    listed = np.array([level in lookup for level in ranked.tolist()], dtype=bool)
    gains = np.array([lookup.get(level, 0.0) for level in ranked.tolist()], dtype=np.float64)
    ideal: list[float] = []
    cur = len(table) - 1
    gain = table[cur][1] if cur >= 0 else 0.0
    at_level = 0
    while gain > 0:  # trec_eval's walk down the table (m_ndcg.c)
        at_level += 1
        while cur >= 0 and at_level > table[cur][2]:
            at_level = 1
            cur -= 1
            gain = table[cur][1] if cur >= 0 else 0.0
        if gain > 0:
            ideal.append(gain)
    return GainTable(tuple(g for _, g, _ in table), gains, listed, np.array(ideal, dtype=np.float64))


def ndcg_gains(a: Adapted, levels: GainLevels = ()) -> float:
    """nDCG with trec_eval's gain table (``ndcg.1=3,2=9``): DCG over the ideal DCG, 0 when that is <= 0."""
    table = gain_table(a, levels)
    best = dcg(table.ideal)
    return dcg(table.gains) / best if best > 0 else 0.0


def dcg_gains(a: Adapted, levels: GainLevels = ()) -> float:
    """trec_eval's dcg: the DCG of the ranking's table gains."""
    return dcg(gain_table(a, levels).gains)


def ideal_dcg_gains(a: Adapted, levels: GainLevels = ()) -> float:
    """trec_eval's ideal_dcg: the DCG of the ideal ranking's table gains."""
    return dcg(gain_table(a, levels).ideal)
