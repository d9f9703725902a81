"""The references' arithmetic, not only their algebra: trec_eval's sums left to right in doubles in its order, the C
library's ``log2``, powers as repeated products, C's ``lround`` (a value on a 4th-decimal boundary then prints
trec_eval's digit); numpy's pairwise sums of the Python tools, row by row."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray, IntArray


def running_sum(terms: npt.ArrayLike) -> float:
    """The terms added left to right in doubles from 0.0, as trec_eval's loops add (``np.sum``
    adds pairwise and ``math.fsum`` exactly, both of which can print another 4th decimal)."""
    values = np.asarray(terms, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if len(values) else 0.0  # cumsum accumulates in order


_LOG2: list[FloatArray] = [np.zeros(0)]


def log2_discounts(n: int) -> FloatArray:
    """``log2(i + 2)`` for i < n from the C library's ``log2`` (as trec_eval; NumPy's own
    ``log2`` differs from it in the last bit for some integers)."""
    table = _LOG2[0]
    if len(table) < n:
        size = max(n, 2 * len(table), 64)
        table = np.array([math.log2(i + 2) for i in range(size)], dtype=np.float64)
        _LOG2[0] = table
    return table[:n]


def lround(x: float) -> int:
    """C's ``lround`` for x >= 0: to the nearest integer, halves away from zero (exact, unlike
    ``floor(x + 0.5)``, which rounds 0.49999999999999994 up)."""
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


def pairwise_sums(values: FloatArray, counts: IntArray) -> FloatArray:
    """``np.add.reduce(values[r, :counts[r]])`` of every row ``r``, bit for bit (entries past a row's count are
    ignored)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(len(values))
    short = counts < 8
    for k in range(min(7, values.shape[1])):  # numpy adds fewer than 8 values left to right
        out = np.where(short & (k < counts), out + values[:, k], out)
    for r in np.flatnonzero(~short).tolist():
        out[r] = np.add.reduce(values[r, : counts[r]])
    return out
