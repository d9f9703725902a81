"""Paired significance tests over per-query scores, bootstrap intervals, multiple-comparison corrections.

Every function takes two equally long arrays of per-query scores paired by
query (baseline ``a``, system ``b``) and is deterministic for a given ``seed``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from segeval.errors import check_choice

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "none")
FloatArray = npt.NDArray[np.float64]
Scores = Sequence[float] | FloatArray


def _diff(a: Scores, b: Scores) -> FloatArray:
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError("paired scores must be one-dimensional")
    return d


def p_value(a: Scores, b: Scores, test: str = "t", *, permutations: int = 10_000,
            seed: int = 0) -> float:
    """Two-sided p-value of the paired ``test``; 1.0 when every difference is 0."""
    check_choice("test", test, TESTS)
    d = _diff(a, b)
    if len(d) == 0 or not np.any(d):
        return 1.0
    if test == "t":
        from scipy import stats

        if len(d) < 2:  # one query: no variance, the test is undefined
            return 1.0
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # zero variance: t is infinite, p is 0
            p = float(stats.ttest_rel(np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)).pvalue)
        return 1.0 if math.isnan(p) else p
    if test == "wilcoxon":
        from scipy import stats

        return float(stats.wilcoxon(np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)).pvalue)
    rng = np.random.default_rng(seed)
    observed = abs(d.mean())
    if test == "randomization":  # Fisher's: flip the sign of each query's difference at random
        signs = rng.choice(np.array([-1.0, 1.0]), size=(permutations, len(d)))
        means = np.abs((signs * d).mean(axis=1))
        return float(np.mean(means >= observed - 1e-12))
    # bootstrap: resample queries, test the mean difference against 0 with the centred distribution
    samples = d[rng.integers(0, len(d), size=(permutations, len(d)))].mean(axis=1)
    return float(np.mean(np.abs(samples - d.mean()) >= observed - 1e-12))


def exact_randomization(a: Scores, b: Scores) -> float:
    """The randomization test's p-value by enumerating every sign assignment (small cases)."""
    d = _diff(a, b)
    if not np.any(d):
        return 1.0
    n = len(d)
    signs = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1)
    return float(np.mean(np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-12))


def bootstrap_ci(a: Scores, b: Scores, *, level: float = 0.95, samples: int = 10_000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference b - a over queries."""
    d = _diff(a, b)
    if len(d) == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(samples, len(d)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def correct(p_values: Sequence[float], method: str = "holm") -> list[float]:
    """Adjusted p-values: Holm's step-down, Bonferroni, or unchanged."""
    check_choice("correction", method, CORRECTIONS)
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if method == "none" or m == 0:
        return [float(x) for x in p]
    if method == "bonferroni":
        return [float(x) for x in np.minimum(1.0, p * m)]
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return [float(x) for x in adjusted]
