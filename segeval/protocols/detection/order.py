"""The official evaluators' orders, exact whatever the local numpy and Python: numpy 1.16's ``argsort()[::-1]``
(:func:`descending`) and Python 2.7's dict order (:func:`py2_dict_order`); docs/detection.md, "Ties"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from segeval.core.arrays import FloatArray, IntArray

_SMALL = 16  # numpy's SMALL_QUICKSORT + 1: up to this many elements, insertion sort (stable)
_MASK = (1 << 64) - 1


def descending(values: FloatArray) -> IntArray:
    """numpy 1.16's ``values.argsort()[::-1]`` of a 1-D float64 array (NaN ranks last, so first here)."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    stable = np.argsort(values, kind="stable")
    if n <= _SMALL or (not (np.diff(values[stable]) == 0).any() and np.isnan(values).sum() < 2):
        return stable[::-1].astype(np.int64)  # insertion sort, or no ties: every sort gives this order
    # dense ranks keep numpy's comparison (a < b, or b NaN and a not) on ints: NaNs share the top rank
    keys = np.unique(values, return_inverse=True)[1].ravel()
    keys = np.where(np.isnan(values), int(keys.max()) + 1, keys).tolist()
    return np.array(_introsort(keys)[::-1], dtype=np.int64)


def _introsort(v: list[int]) -> list[int]:
    """numpy 1.16's ``aquicksort`` (npysort/quicksort.c.src) on the keys ``v``: the permutation."""
    idx = list(range(len(v)))
    stack: list[tuple[int, int, int]] = []
    pl, pr = 0, len(v) - 1
    depth = 2 * (len(v).bit_length() - 1) if v else 0  # npy_get_msb(num) * 2
    while True:
        if depth < 0:
            _heapsort(v, idx, pl, pr - pl + 1)
        else:
            while pr - pl >= _SMALL:
                pm = pl + ((pr - pl) >> 1)  # median of three, moved next to the right end
                if v[idx[pm]] < v[idx[pl]]:
                    idx[pm], idx[pl] = idx[pl], idx[pm]
                if v[idx[pr]] < v[idx[pm]]:
                    idx[pr], idx[pm] = idx[pm], idx[pr]
                if v[idx[pm]] < v[idx[pl]]:
                    idx[pm], idx[pl] = idx[pl], idx[pm]
                pivot = v[idx[pm]]
                pi, pj = pl, pr - 1
                idx[pm], idx[pj] = idx[pj], idx[pm]
                while True:
                    pi += 1
                    while v[idx[pi]] < pivot:
                        pi += 1
                    pj -= 1
                    while pivot < v[idx[pj]]:
                        pj -= 1
                    if pi >= pj:
                        break
                    idx[pi], idx[pj] = idx[pj], idx[pi]
                idx[pi], idx[pr - 1] = idx[pr - 1], idx[pi]
                depth -= 1
                if pi - pl < pr - pi:  # the larger part waits on the stack
                    stack.append((pi + 1, pr, depth))
                    pr = pi - 1
                else:
                    stack.append((pl, pi - 1, depth))
                    pl = pi + 1
            for i in range(pl + 1, pr + 1):  # insertion sort
                moved = idx[i]
                key = v[moved]
                j = i
                while j > pl and key < v[idx[j - 1]]:
                    idx[j] = idx[j - 1]
                    j -= 1
                idx[j] = moved
        if not stack:
            return idx
        pl, pr, depth = stack.pop()


def _heapsort(v: list[int], idx: list[int], start: int, n: int) -> None:
    """numpy's ``aheapsort`` of ``idx[start:start + n]`` (1-based heap as in npysort/heapsort.c.src)."""
    a = idx
    off = start - 1  # a[off + k] is the heap's element k

    def sift(tmp: int, i: int, size: int) -> None:
        j = 2 * i
        while j <= size:
            if j < size and v[a[off + j]] < v[a[off + j + 1]]:
                j += 1
            if v[tmp] < v[a[off + j]]:
                a[off + i] = a[off + j]
                i, j = j, 2 * j
            else:
                break
        a[off + i] = tmp

    for low in range(n >> 1, 0, -1):
        sift(a[off + low], low, n)
    while n > 1:
        tmp = a[off + n]
        a[off + n] = a[off + 1]
        n -= 1
        sift(tmp, 1, n)


def py2_hash(text: str) -> int:
    """Python 2.7's ``hash`` of a unicode string (64-bit, no hash randomisation), as an unsigned size_t."""
    if not text:
        return 0
    codes = [ord(c) for c in text]
    x = (codes[0] << 7) & _MASK
    for c in codes:
        x = ((1000003 * x) & _MASK) ^ c
    x ^= len(codes)
    return _MASK - 1 if x == _MASK else x  # -1 is spelt -2


def py2_dict_order(keys: Sequence[str]) -> list[int]:
    """The positions of distinct ``keys`` (inserted in order) in the order a Python 2.7 dict iterates them."""
    table: list[int | None] = [None] * 8
    hashes = [py2_hash(k) for k in keys]

    def place(slots: list[int | None], k: int) -> None:
        mask = len(slots) - 1
        i = perturb = hashes[k]
        i &= mask
        while slots[i & mask] is not None:
            i = (5 * i + perturb + 1) & _MASK
            perturb >>= 5
        slots[i & mask] = k

    for used, k in enumerate(range(len(keys)), start=1):
        place(table, k)
        if used * 3 >= len(table) * 2:  # no deletions: fill = used
            size = 8
            while size <= (2 if used > 50000 else 4) * used:
                size <<= 1
            old, table = table, [None] * size
            for entry in old:
                if entry is not None:
                    place(table, entry)
    return [k for k in table if k is not None]
