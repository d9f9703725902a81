"""Rank correlation of two rankings' scores (higher is better; docs/cli.md, 'segeval correlate')."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import ParameterError


def _scores(x: Sequence[float], y: Sequence[float]) -> tuple[FloatArray, FloatArray]:
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ParameterError(f"The two rankings must score the same items. Got {a.size} and {b.size} scores instead.")
    for name, v in (("first", a), ("second", b)):
        bad = np.flatnonzero(np.isnan(v))
        if len(bad):
            raise ParameterError(
                f"The {name} ranking's scores must be numbers. Got nan for item {int(bad[0])} instead."
            )
    return a, b


def _no_order(v: FloatArray) -> bool:
    return len(v) < 2 or bool(np.all(v == v[0]))


def notes(x: Sequence[float], y: Sequence[float], names: tuple[str, str] = ("setting 1", "setting 2")) -> list[str]:
    """Why the coefficients of ``x`` and ``y`` are undefined (NaN), if they are."""
    a, b = _scores(x, y)
    if len(a) < 2:
        return [f"fewer than two items ({len(a)}): no ranking to correlate; the coefficients are undefined (null)"]
    return [
        f"{name} gives every item the same score ({v[0]:g}): it has no order, so Kendall's tau-b, Spearman's "
        f"rho and tau_AP are undefined (null); the ties-agree tau counts its tied pairs as agreeing"
        for name, v in zip(names, (a, b), strict=True)
        if _no_order(v)
    ]


def _pairs(x: Sequence[float], y: Sequence[float]) -> tuple[int, int, int, int, int]:
    """(concordant, discordant, tied in x only, tied in y only, tied in both) over item pairs."""
    a, b = _scores(x, y)
    i, j = np.triu_indices(len(a), k=1)
    sx, sy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    return (
        int(np.sum(sx * sy > 0)),
        int(np.sum(sx * sy < 0)),
        int(np.sum((sx == 0) & (sy != 0))),
        int(np.sum((sx != 0) & (sy == 0))),
        int(np.sum((sx == 0) & (sy == 0))),
    )


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b, as SciPy's ``kendalltau``; NaN when either ranking has no order."""
    c, d, tx, ty, _ = _pairs(x, y)
    denominator = math.sqrt((c + d + tx) * (c + d + ty))
    return (c - d) / denominator if denominator else math.nan


def kendall_tau_ties_agree(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau counting a pair tied in either ranking as agreeing (Büttcher et al. 2007)."""
    c, d, tx, ty, both = _pairs(x, y)
    total = c + d + tx + ty + both
    return (c + tx + ty + both - d) / total if total else math.nan


def swapped_pairs(x: Sequence[float], y: Sequence[float]) -> int:
    """Pairs ordered one way by x and the other way by y."""
    return _pairs(x, y)[1]


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho, as SciPy's ``spearmanr``; NaN when either ranking has no order."""
    from scipy import stats

    a, b = _scores(x, y)
    if _no_order(a) or _no_order(b):
        return math.nan
    rx, ry = stats.rankdata(-a), stats.rankdata(-b)
    return float(np.corrcoef(rx, ry)[0, 1])


def tau_ap(truth: Sequence[float], other: Sequence[float]) -> float:
    """Yilmaz et al.'s AP correlation of ``other`` against ``truth`` (τ_AP,a for ties in ``other``)."""
    t, o = _scores(truth, other)
    n = len(t)
    if _no_order(t) or _no_order(o):
        return math.nan
    total = 0.0
    above = 0  # items in the groups ``other`` ranks higher
    for level in np.unique(o)[::-1]:
        members = np.flatnonzero(o == level)
        size = len(members)
        if above:  # each member lands on position above + 1 + k, k = 0..size-1, with equal chance
            weight = sum(1.0 / (above + k) for k in range(size)) / size
            better = t[o > level]
            total += weight * sum(int(np.sum(better >= t[i])) for i in members)
        if size > 1:  # a pair inside the group: the lower of the two is on position above + 1 + k with
            # chance k / (size choose 2); it is right half the time, always when ``truth`` ties them
            pairs = size * (size - 1) / 2
            weight = sum(k / (above + k) for k in range(1, size)) / pairs
            tied = sum(int(np.sum(t[members[j + 1 :]] == t[members[j]])) for j in range(size - 1))
            total += weight * (tied + 0.5 * (pairs - tied))
        above += size
    return 2.0 * total / (n - 1) - 1.0


def rms_error(x: Sequence[float], y: Sequence[float]) -> float:
    """Root mean squared difference between the two score lists."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(np.sqrt(np.mean((a - b) ** 2))) if len(a) else 0.0


def coefficients(x: Sequence[float], y: Sequence[float]) -> dict[str, float | int | None]:
    """Every coefficient of two settings' scores (same system order), by name; None where undefined."""
    values: dict[str, float | int] = {
        "kendall_tau_b": kendall_tau(x, y),
        "kendall_tau_ties_agree": kendall_tau_ties_agree(x, y),
        "spearman_rho": spearman_rho(x, y),
        "tau_ap": tau_ap(x, y),
        "swapped_pairs": swapped_pairs(x, y),
        "rms_error": rms_error(x, y),
    }
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in values.items()}
