"""numpy's float64 summation of a 1-D array for many rows of different lengths at once, bit for bit."""

from __future__ import annotations

import numpy as np

from segeval.core.arrays import FloatArray, IntArray

BLOCK = 128  # numpy's PW_BLOCKSIZE: longer arrays are split in two halves


def pairwise_sums(values: FloatArray, counts: IntArray) -> FloatArray:
    """``np.add.reduce(values[r, :counts[r]])`` of every row ``r``, bit for bit.

    numpy adds fewer than 8 values left to right; up to 128 values in 8 running sums (one per position
    mod 8) combined as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the rest left to right;
    longer rows in two halves (rare here: summed by numpy itself). Entries past a row's count are ignored.
    """
    rows, width = values.shape
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(rows)
    if rows == 0 or width == 0:
        return out
    short = counts < 8
    if short.any():
        part, n = values[short], counts[short]
        total = np.zeros(len(part))
        for k in range(min(7, width)):
            total = np.where(k < n, total + part[:, k], total)
        out[short] = total
    middle = (counts >= 8) & (counts <= BLOCK)
    if middle.any():
        out[middle] = _blocked(values[middle], counts[middle])
    for r in np.flatnonzero(counts > BLOCK):
        out[r] = np.add.reduce(values[r, : counts[r]])
    return out


def _blocked(values: FloatArray, counts: IntArray) -> FloatArray:
    """Rows of 8 to 128 values: eight running sums, combined pairwise, then the remainder."""
    whole = counts - counts % 8
    if values.shape[1] % 8:
        values = np.pad(values, ((0, 0), (0, 8 - values.shape[1] % 8)))
    acc = values[:, :8].copy()
    for start in range(8, min(values.shape[1], BLOCK), 8):
        more = (start < whole)[:, None]
        acc = np.where(more, acc + values[:, start : start + 8], acc)
    total = ((acc[:, 0] + acc[:, 1]) + (acc[:, 2] + acc[:, 3])) + ((acc[:, 4] + acc[:, 5]) + (acc[:, 6] + acc[:, 7]))
    rows = np.arange(len(values))
    for k in range(7):
        at = whole + k
        total = np.where(at < counts, total + values[rows, np.minimum(at, values.shape[1] - 1)], total)
    return np.asarray(total, dtype=np.float64)
