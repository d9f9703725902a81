"""Average dynamic recall (Typke, Veltkamp & Wiering) for ground truth ordered as groups (docs/cli.md, "ADR").
With n ground-truth items, c(i) the group of the i-th and R_1, R_2, ... the ranking,

    r_i = #{R_w : w <= i and R_w is in a group <= c(i)} / i,     ADR = mean(r_1 .. r_n)."""

from __future__ import annotations

import numpy as np

from segeval.adapters.base import Adapted
from segeval.core.arrays import FloatArray, IntArray


def ground_truth(a: Adapted) -> tuple[IntArray, IntArray, IntArray]:
    """(group of each ranked unit or -1, size of each group, ground-truth item of each unit or -1): groups by
    grade, highest first; a unit matching several items is credited with the not yet found one of the earliest
    group; without match information each unit is its own item, graded by ``Adapted.grades``."""
    truth = a.truth if a.truth is not None else (a.pool if a.pool is not None else np.zeros(0))
    levels = np.unique(truth[truth > 0])[::-1]
    sizes = np.array([int((truth == level).sum()) for level in levels], dtype=np.int64)
    n_units = len(a.labels)
    groups = np.full(n_units, -1, dtype=np.int64)
    items = np.full(n_units, -1, dtype=np.int64)
    if not len(levels):
        return groups, sizes, items
    if a.match_grades is None or a.truth is None:
        grades = np.nan_to_num(a.grades if a.grades is not None else np.zeros(n_units), nan=0.0)
        positive = grades > 0
        groups[positive] = np.searchsorted(-levels, -grades[positive])
        items[positive] = np.flatnonzero(positive)
        return groups, sizes, items
    found: set[int] = set()
    for i in range(n_units):
        lo, hi = int(a.match_offsets[i]), int(a.match_offsets[i + 1])
        best_row, best_grade = -1, 0.0
        for row, grade in zip(a.match_rows[lo:hi].tolist(), a.match_grades[lo:hi].tolist(), strict=True):
            if grade > best_grade and row not in found:
                best_row, best_grade = row, grade
        if best_row >= 0:
            found.add(best_row)
            groups[i] = int(np.searchsorted(-levels, -best_grade))
            items[i] = best_row
    return groups, sizes, items


def dynamic_recall(
    groups: IntArray, sizes: IntArray, k: int | None = None, items: IntArray | None = None
) -> FloatArray:
    """r_1 .. r_k (k: the ground-truth items) of the units' groups (-1: none); an item in ``items`` counts once."""
    n = int(sizes.sum())
    k = n if k is None else k
    if k <= 0:
        return np.zeros(0)
    ends = np.cumsum(sizes)  # group g ends at ground-truth position ends[g]
    counts = np.zeros(len(sizes) + 1, dtype=np.int64)
    seen: set[int] = set()
    total = 0  # found units in groups <= c
    c = -1
    out = np.zeros(k)
    for i in range(1, k + 1):
        new_c = int(np.searchsorted(ends, i)) if i <= n else len(sizes) - 1
        while c < new_c:
            c += 1
            total += int(counts[c])
        if i <= len(groups):
            g = int(groups[i - 1])
            key = int(items[i - 1]) if items is not None and items[i - 1] >= 0 else -(i + 1)
            if g >= 0 and key not in seen:
                seen.add(key)
                counts[g] += 1
                if g <= c:
                    total += 1
        out[i - 1] = total / i
    return out


def adr(a: Adapted, k: int | None = None) -> float:
    """Average dynamic recall over the first k ranks (default: the ground-truth items); 0 without ground truth."""
    curve = adr_curve(a, k)
    return float(curve.mean()) if len(curve) else 0.0


FILLER = np.iinfo(np.int64).max  # the "standin" filler: an item of the first group found nowhere else
#: how adr_tiebreak fills the positions of unproblematic items (see its docstring)
FILLERS = ("paper", "standin")


def adr_tiebreak(a: Adapted, filler: str = "paper") -> float:
    """The paper's section 4 tie-breaker (docs/cli.md, "ADR"); ``filler`` the item holding the other positions:
    ``paper`` a real one of the first group, ``standin`` one found nowhere else."""
    from segeval.core.errors import check_choice

    check_choice("filler", filler, FILLERS)
    groups, sizes, _ = ground_truth(a)
    n = int(sizes.sum())
    if n == 0:
        return 0.0
    ends = np.cumsum(sizes)
    kept_groups = np.zeros(n, dtype=np.int64)  # filler: group 0, one and the same item
    items = np.full(n, FILLER, dtype=np.int64)
    kept_first: list[int] = []  # ranks of the kept items of the first group
    for w in range(1, n + 1):
        g = int(groups[w - 1]) if w <= len(groups) else -1
        c_w = int(np.searchsorted(ends, w))
        if g >= 0 and (g > c_w or w > int(ends[g])):
            kept_groups[w - 1] = g
            items[w - 1] = w
            if g == 0:
                kept_first.append(w)
    if filler == "paper" and len(kept_first) == int(sizes[0]):
        items[items == FILLER] = kept_first[0]
    inverted = len(sizes) - 1 - kept_groups
    return float(dynamic_recall(inverted, sizes[::-1].copy(), n, items).mean())


def adr_curve(a: Adapted, k: int | None = None) -> FloatArray:
    """The dynamic recall r_1 .. r_k of one query (k = number of ground-truth items by default)."""
    groups, sizes, items = ground_truth(a)
    return dynamic_recall(groups, sizes, k, items)
