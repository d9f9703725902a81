"""Paired significance tests, bootstrap intervals and corrections (docs/cli.md, 'segeval compare')."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.domains import OPEN_UNIT, SEED
from segeval.core.errors import ParameterError, check_choice, shown
from segeval.core.limits import check_count
from segeval.core.words import plural

#: the paired tests, with their names in ``compare -o latex``'s caption
TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "randomization test",
    "bootstrap": "bootstrap test",
    "tukey": "Tukey's HSD test",
}
TESTS = tuple(TEST_NAMES)
CORRECTIONS = ("holm", "bonferroni", "none")
#: tests whose p-values are already adjusted over all pairs of runs (no further correction)
ADJUSTED_TESTS = ("tukey",)
MIN_QUERIES = 2
#: random indices drawn per batch (8 bytes each)
BATCH_VALUES = 1 << 20
#: the signs of a randomization test's flips
SIGNS = np.array([-1.0, 1.0])
Scores = Sequence[float] | FloatArray


def _diff(a: Scores, b: Scores, runs: tuple[str, str] = ("a", "b"), queries: Sequence[str] | None = None) -> FloatArray:
    """b - a; a ParameterError names the run and query of a score that is not a number."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ParameterError(
            f"The paired scores must be two one-dimensional arrays of equal length. Got shapes "
            f"{x.shape} and {y.shape} instead."
        )
    for run, v in zip(runs, (x, y), strict=True):
        bad = np.flatnonzero(~np.isfinite(v))
        if len(bad):
            i = int(bad[0])
            query = queries[i] if queries is not None and i < len(queries) else f"#{i + 1}"
            raise ParameterError(
                f"The per-query scores must be finite numbers. Got {v[i]} for run {run!r}, query {query!r} instead."
            )
    return y - x


def _resampled_means(d: FloatArray, samples: int, seed: int, flip: bool = False) -> FloatArray:
    """Means of ``samples`` resamples of ``d``: queries drawn with replacement, or (``flip``) each query's sign
    flipped at random; drawn in even batches of rows that consume the generator as one draw of all rows would."""
    n = len(d)
    rng = np.random.default_rng(seed)
    rows = max(2, (BATCH_VALUES // max(n, 1)) // 2 * 2)
    means = []
    for done in range(0, samples, rows):
        k = min(rows, samples - done)
        drawn = rng.choice(SIGNS, size=(k, n)) * d if flip else d[rng.integers(0, n, size=(k, n))]
        means.append(drawn.mean(axis=1))
    return np.concatenate(means)


def p_value(
    a: Scores,
    b: Scores,
    test: str = "t",
    *,
    permutations: int = 10_000,
    seed: int = 0,
    runs: tuple[str, str] = ("a", "b"),
    queries: Sequence[str] | None = None,
) -> float:
    """Two-sided p-value of the paired ``test``; 1.0 with fewer than 2 queries or no difference."""
    check_choice("test", test, TESTS)
    if test in ("randomization", "bootstrap"):
        check_count("permutations", permutations)
        SEED.check("seed", seed)
    d = _diff(a, b, runs, queries)
    if len(d) < MIN_QUERIES or not np.any(d):
        return 1.0
    from scipy import stats

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if test == "t":
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # zero variance: t is infinite, p is 0
            p = float(stats.ttest_rel(y, x).pvalue)
        return 1.0 if math.isnan(p) else p
    if test == "tukey":
        return float(tukey_p_values([a, b])[0, 1])
    if test == "wilcoxon":
        return float(stats.wilcoxon(y, x, zero_method="wilcox", correction=False, method="auto").pvalue)
    if test == "randomization":  # Fisher's: flip the sign of each query's difference at random
        resampled = np.abs(_resampled_means(d, permutations, seed, flip=True))
    else:  # bootstrap: resample queries, test the mean difference against 0 with the centred distribution
        resampled = np.abs(_resampled_means(d, permutations, seed) - d.mean())
    extreme = int(np.sum(resampled >= abs(d.mean()) - 1e-12))
    return (extreme + 1) / (permutations + 1)


def bootstrap_ci(
    a: Scores,
    b: Scores,
    *,
    level: float = 0.95,
    samples: int = 10_000,
    seed: int = 0,
    runs: tuple[str, str] = ("a", "b"),
    queries: Sequence[str] | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference b - a; (nan, nan) with fewer than 2 queries."""
    OPEN_UNIT.check("level", level)
    check_count("samples", samples)
    SEED.check("seed", seed)
    d = _diff(a, b, runs, queries)
    if len(d) < MIN_QUERIES:
        return (math.nan, math.nan)
    means = _resampled_means(d, samples, seed)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail], overwrite_input=True)
    return float(low), float(high)


def tukey_p_values(scores: Sequence[Scores]) -> FloatArray:
    """Tukey's HSD p-values of every pair of score arrays (k x k), as ranx computes them."""
    from scipy import stats

    groups = [np.asarray(x, dtype=np.float64) for x in scores]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = np.array(stats.tukey_hsd(*groups).pvalue, dtype=np.float64)
    means = np.array([g.mean() for g in groups])
    same = means[:, None] == means[None, :]
    return np.where(np.isnan(p), np.where(same, 1.0, 0.0), p)


def resolve_correction(test: str, correction: str | None) -> str:
    """``correction`` checked against ``test``; None is holm, or none for Tukey's HSD (which refuses others)."""
    if correction is None:
        return "none" if test in ADJUSTED_TESTS else "holm"
    check_choice("correction", correction, CORRECTIONS)
    if test in ADJUSTED_TESTS and correction != "none":
        raise ParameterError(
            f"The 'correction' parameter must be 'none' with test {test!r} (Tukey's HSD adjusts "
            f"its p-values over all pairs of runs). Got {shown(correction)} instead."
        )
    return correction


def correct(p_values: Sequence[float], method: str = "holm") -> list[float]:
    """Adjusted p-values over all the given ones: Holm's step-down, Bonferroni, or unchanged."""
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


#: how each test computes its p-value (the resampling tests: :func:`describe_test`)
DESCRIPTIONS = {
    "t": "t: SciPy's paired t-test (ttest_rel), two-sided",
    "tukey": "tukey: Tukey's HSD (SciPy's tukey_hsd) on each measure, the runs' per-query scores taken as "
    "independent groups (as ranx), p adjusted over all pairs of runs",
    "wilcoxon": "wilcoxon: SciPy's signed-rank test, two-sided; zero differences are dropped (Wilcoxon's "
    "zero_method='wilcox'), tied absolute differences get average ranks; exact null distribution "
    "for n <= 50 without ties or zeros, exact permutation distribution for n <= 13 otherwise, else the "
    "normal approximation without continuity correction",
    "randomization": "sign flips of each query's difference (Fisher)",
    "bootstrap": "resampled queries, the centred distribution of the mean difference",
}


def describe_test(test: str, permutations: int, seed: int) -> str:
    """One sentence on how ``test`` computes its p-value, for the output of ``compare``."""
    check_choice("test", test, TESTS)
    if test not in ("randomization", "bootstrap"):
        return DESCRIPTIONS[test]
    return (
        f"{test}: two-sided, {permutations} {DESCRIPTIONS[test]}, seed {seed}; p = (b + 1) / (B + 1), b of the "
        f"B = {plural(permutations, 'resample')} at least as extreme as the observed mean difference"
    )
