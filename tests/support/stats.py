"""An oracle for the paired tests: the randomization test's p-value by enumerating every sign assignment."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def exact_randomization(a: Sequence[float], b: Sequence[float]) -> float:
    """The p-value of every one of the 2^n sign assignments of the differences b - a (n <= 20 queries): the
    share whose |mean| reaches the observed one; 1.0 with fewer than 2 queries or when every difference is 0."""
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    n = len(d)
    assert n <= 20, "2^n assignments"
    if n < 2 or not np.any(d):
        return 1.0
    signs = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1)
    return float(np.mean(np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-12))
