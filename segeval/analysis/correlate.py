"""Rank correlation between two rankings of the same items (systems, documents).

Scores are higher-is-better; ranks are derived from them.  All functions take
two equally long score arrays over the same items, in the same item order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def _pairs(x: Sequence[float], y: Sequence[float]) -> tuple[int, int, int, int, int]:
    """(concordant, discordant, tied in x only, tied in y only, tied in both) over item pairs."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("the two rankings must score the same items")
    i, j = np.triu_indices(len(a), k=1)
    sx, sy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    return (int(np.sum(sx * sy > 0)), int(np.sum(sx * sy < 0)), int(np.sum((sx == 0) & (sy != 0))),
            int(np.sum((sx != 0) & (sy == 0))), int(np.sum((sx == 0) & (sy == 0))))


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (ties in either ranking reduce the denominators); 1 - 2 * discordant / pairs without ties."""
    c, d, tx, ty, _ = _pairs(x, y)
    denominator = math.sqrt((c + d + tx) * (c + d + ty))
    return (c - d) / denominator if denominator else 1.0


def kendall_tau_ties_agree(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau where a pair tied in either ranking counts as agreeing (as in Buttcher et al. 2007)."""
    c, d, tx, ty, both = _pairs(x, y)
    total = c + d + tx + ty + both
    return (c + tx + ty + both - d) / total if total else 1.0


def swapped_pairs(x: Sequence[float], y: Sequence[float]) -> int:
    """Pairs ordered one way by x and the other way by y."""
    return _pairs(x, y)[1]


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson correlation of the ranks (average ranks for ties);
    1 - 6 * sum(d^2) / (K (K^2 - 1)) without ties."""
    from scipy import stats

    rx, ry = stats.rankdata(-np.asarray(x, dtype=np.float64)), stats.rankdata(-np.asarray(y, dtype=np.float64))
    if np.all(rx == rx[0]) or np.all(ry == ry[0]):
        return 1.0 if np.array_equal(rx, ry) else 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def tau_ap(truth: Sequence[float], other: Sequence[float]) -> float:
    """Yilmaz, Aslam & Robertson's AP correlation of ``other``'s ranking against ``truth``'s
    (top-weighted; ties in ``other`` broken by item order)."""
    t, o = np.asarray(truth, dtype=np.float64), np.asarray(other, dtype=np.float64)
    n = len(t)
    if n < 2:
        return 1.0
    order = np.argsort(-o, kind="stable")
    total = 0.0
    for i in range(1, n):
        above = order[:i]
        total += float(np.sum(t[above] > t[order[i]])) / i
    return 2.0 * total / (n - 1) - 1.0


def rms_error(x: Sequence[float], y: Sequence[float]) -> float:
    """Root mean squared difference between the two score lists."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(np.sqrt(np.mean((a - b) ** 2))) if len(a) else 0.0
