"""trec_eval's gain-based measures (one query's adapted grades) and its gain table, with its arithmetic
(:mod:`segeval.measures.arithmetic`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from segeval.adapters.base import Adapted, Label
from segeval.core.arrays import BoolArray, FloatArray
from segeval.measures.arithmetic import log2_discounts, running_sum
from segeval.measures.params import NO_PARAMS, Params
from segeval.measures.trec_ranks import grade_values


def gains(a: Adapted) -> FloatArray:
    """Per unit, its gain: the grade when above 0, else 0."""
    grades = grade_values(a)
    return np.where(np.nan_to_num(grades) > 0, np.nan_to_num(grades), 0.0)


def ideal_gains(a: Adapted) -> FloatArray:
    """The query's positive pool grades, best first (the ideal ranking's gains)."""
    pool = a.pool if a.pool is not None else np.zeros(0)
    return np.sort(pool[pool > 0])[::-1]


def dcg(gains: FloatArray) -> float:
    """trec_eval's DCG of gains in rank order (log2(rank + 1) discounts)."""
    return running_sum(gains / log2_discounts(len(gains)))


def _dcg_jk(gains: FloatArray, base: float = 2.0) -> float:
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


def bin_g(a: Adapted) -> float:
    """Sum over retrieved relevant units of 1 / log2(2 + non-relevant ranked above), over R."""
    if a.num_rel == 0:
        return 0.0
    ranks = np.flatnonzero(a.relevant) + 1
    above = (ranks - a.found[ranks - 1]).tolist()
    return running_sum([1.0 / math.log2(2 + x) for x in above]) / a.num_rel


@dataclass(frozen=True)
class GainTable:
    """trec_eval's gain table of one query (``setup_gains``) and what follows from it."""

    #: the table's gains in its sorted order
    table: tuple[float, ...]
    #: per ranked unit, its table gain (0 without an entry)
    gains: FloatArray
    #: per ranked unit, True when its level has a table entry
    listed: BoolArray
    #: the ideal ranking's gains: the table walked from its last entry, each gain as many times as the
    #: level has judged units, up to the first gain <= 0
    ideal: FloatArray


def _sorted_gains(entries: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """glibc's ``qsort`` (a stable top-down merge sort: halves of n // 2 and the rest, the left one
    taken when the comparison is <= 0) with trec_eval's comparator, the gain difference cut to an
    int: gains less than 1 apart compare equal."""
    if len(entries) <= 1:
        return entries
    left, right = _sorted_gains(entries[: len(entries) // 2]), _sorted_gains(entries[len(entries) // 2 :])
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


def gain_table(grades: FloatArray, pool: FloatArray | None, params: Params | None = None) -> GainTable:
    """trec_eval's gain table of a query's ranked ``grades`` and its ``pool``: each ``level=gain`` of ``params``,
    then each judged level v >= 0 with gain v, with its judged units, sorted as trec_eval sorts it; a ranked
    unit's level is its grade, -1 when not in the qrels, -2 when negative (``-1=g`` gives unjudged units a gain,
    as trec_eval)."""
    pool = pool if pool is not None else np.zeros(0)
    judged = pool[pool >= 0].astype(np.int64)
    counts = np.bincount(judged).tolist() if len(judged) else []
    entries = [(level, gain, 0) for level, gain in (params.gain_levels() if params else ())]
    given = len(entries)
    for v, count in enumerate(counts):
        given_at = next((j for j in range(given) if entries[j][0] == v), None)
        if given_at is None:
            entries.append((v, float(v), count))
        else:
            entries[given_at] = (v, entries[given_at][1], count)
    table = _sorted_gains(entries)
    lookup: dict[int, float] = {}
    for level, gain, _ in table:
        lookup.setdefault(level, gain)  # trec_eval's get_gain: the first entry of the level in sorted order
    ranked = np.where(np.isnan(grades), -1, np.where(grades < 0, -2, np.nan_to_num(grades))).astype(np.int64)
    keys = np.array(sorted(lookup), dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, ranked), max(len(keys) - 1, 0))
    listed = keys[at] == ranked if len(keys) else np.zeros(len(ranked), dtype=bool)
    values = np.array([lookup[k] for k in keys.tolist()], dtype=np.float64)
    gains = np.where(listed, values[at], 0.0) if len(keys) else np.zeros(len(ranked))
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


def dcg_gains(a: Adapted, params: Params | None = None) -> float:
    """trec_eval's dcg: the DCG of the ranking's table gains."""
    return dcg(gain_table(grade_values(a), a.pool, params).gains)


def ideal_dcg(a: Adapted, params: Params | None = None) -> float:
    """trec_eval's ideal_dcg: the DCG of the ideal ranking's table gains."""
    return dcg(gain_table(grade_values(a), a.pool, params).ideal)


def g_measure(a: Adapted, params: Params | None = None) -> float:
    """trec_eval's G: gains discounted by log2(2 + ideal cumulated cost - gains so far)."""
    table = gain_table(grade_values(a), a.pool, params)
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


def _running_dcgs(a: Adapted, params: Params | None) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The table gains, the ideal ones, and the DCG after each rank of both (trec_eval's running sums)."""
    table = gain_table(grade_values(a), a.pool, params)
    dcg, idcg = (np.cumsum(g / log2_discounts(len(g))) if len(g) else np.zeros(0) for g in (table.gains, table.ideal))
    return table.gains, table.ideal, dcg, idcg


def ndcg_rel(a: Adapted, params: Params | None = None) -> float:
    """trec_eval's ndcg_rel: nDCG averaged over the ranks of retrieved positive-gain units."""
    g, ideal, dcg, idcg = _running_dcgs(a, params)
    lp = len(ideal)
    if lp == 0:
        return 0.0
    ranks = np.flatnonzero(g > 0)
    total = running_sum(dcg[ranks] / idcg[np.minimum(ranks, lp - 1)])
    dcg_n = float(dcg[-1]) if len(dcg) else 0.0
    total += (lp - len(ranks)) * dcg_n / float(idcg[-1])
    return total / lp if total > 0 else 0.0


def rndcg(a: Adapted, params: Params | None = None) -> float:
    """trec_eval's Rndcg: nDCG at the ranks where the ideal gain drops, averaged."""
    if a.num_rel == 0:
        return 0.0
    g, ideal, dcg, idcg = _running_dcgs(a, params)
    lp, n = len(ideal), len(g)
    terms = []
    for b in range(1, lp + 1):
        if (b == lp or ideal[b] != ideal[b - 1]) and idcg[b - 1] > 0:
            terms.append((float(dcg[min(b, n) - 1]) if n else 0.0) / float(idcg[b - 1]))
    if n >= lp + 2 and lp:
        terms.append(float(dcg[-1]) / float(idcg[lp - 1]))
    return running_sum(terms) / len(terms) if terms else math.nan


def _powers(p: float, n: int) -> FloatArray:
    """1, p, p * p, ... (n + 1 values) by repeated multiplication, as trec_eval (not ``p ** i``)."""
    factors = np.full(n + 1, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def rbp(a: Adapted, params: Params = NO_PARAMS) -> float:
    """Rank-biased precision (Moffat & Zobel), p = 0.9 unless ``p=``: the gain table scaled into [0, 1] when a
    gain lies outside (g -> (g - min) / (max - min)); units without a table entry gain 0."""
    p = params.named("p", 0.9)
    table = gain_table(grade_values(a), a.pool, params)
    low, high = min(table.table, default=0.0), max(table.table, default=0.0)
    g = table.gains
    if low < 0 or high > 1:
        g = np.where(table.listed, (g - low) / (high - low), 0.0)
    return (1.0 - p) * running_sum(g * _powers(p, len(g))[:-1])


def rbp_resid(a: Adapted, params: Params = NO_PARAMS) -> float:
    """RBP residual of the unjudged units: p^n + (1 - p) * sum of p^(i-1) over them (p = 0.9 unless ``p=``)."""
    p = params.named("p", 0.9)
    unjudged = a.labels == Label.UNJUDGED
    if not unjudged.any():
        return 0.0
    powers = _powers(p, len(a.labels))
    return float(powers[-1]) + (1 - p) * running_sum(powers[:-1][unjudged])
