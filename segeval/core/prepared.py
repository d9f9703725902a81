"""Evaluation-ready inputs (:class:`Prepared`) and the pandas-free rules that build and index them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd

#: named columns of equal length
Columns = dict[str, npt.NDArray[Any]]


@dataclass(frozen=True)
class Intervals:
    """Sorted, per-(query, item) intervals: group id, query code, start, end."""

    gid: IntArray
    qcode: IntArray
    start: FloatArray
    end: FloatArray

    def __len__(self) -> int:
        return len(self.gid)


@dataclass(frozen=True)
class Prepared:
    """Evaluation-ready inputs: run and qrels columns sorted by query, with ``qcode``, ``icode`` and ``gid`` (a
    (query, item) group shared by both); the qrels' ``listed`` is each row's file position (the IoU adapters' tie
    order); ``rel``/``nonrel`` the merged relevant and non-relevant segments; ``relevant`` the rows graded at least
    ``relevance_level``."""

    queries: list[str]
    items: npt.NDArray[np.object_]
    run_columns: Columns
    qrels_columns: Columns
    run_bounds: IntArray
    qrels_bounds: IntArray
    rel: Intervals
    nonrel: Intervals
    rel_bounds: IntArray
    relevant: BoolArray
    relevance_level: int = 1

    @cached_property
    def run(self) -> pd.DataFrame:
        """The run's columns as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.run_columns, copy=False)

    @cached_property
    def qrels(self) -> pd.DataFrame:
        """The qrels' columns as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.qrels_columns, copy=False)

    @property
    def n_results(self) -> int:
        return len(self.run_columns["qcode"])


def merge_intervals(gid: IntArray, qcode: IntArray, start: FloatArray, end: FloatArray) -> Intervals:
    """Merge intervals of each group that meet under the ``closed`` rule (touching counts); input sorted by (gid,
    start, end), a NaN end counting towards no running maximum."""
    n = len(gid)
    if n == 0:
        empty_i = np.zeros(0, dtype=np.int64)
        empty_f = np.zeros(0, dtype=np.float64)
        return Intervals(empty_i, empty_i, empty_f, empty_f)
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = gid[1:] != gid[:-1]
    group_no = np.cumsum(new_group) - 1
    # the running maximum within each group, on ranks of the ends (1 + rank; NaN 0), shifted per group
    distinct, rank = np.unique(end, return_inverse=True)
    rank = rank.ravel().astype(np.int64) + 1
    missing = np.isnan(end)
    rank[missing] = 0
    span = len(distinct) + 1
    best = np.maximum.accumulate(group_no * span + rank) - group_no * span
    run_max = np.where(missing | (best == 0), np.nan, distinct[np.maximum(best - 1, 0)])
    prev_max = np.empty(n)
    prev_max[0] = -np.inf
    prev_max[1:] = run_max[:-1]
    starts_new = new_group | (start > prev_max)
    first = np.flatnonzero(starts_new)
    m_end = np.maximum.reduceat(end, first) if len(first) else np.zeros(0)
    return Intervals(gid[first], qcode[first], start[first], m_end.astype(np.float64))


def bounds(qcode: IntArray, n_queries: int) -> IntArray:
    """Offsets such that rows of query q are ``[b[q], b[q+1])`` of a qcode-sorted array."""
    return np.searchsorted(qcode, np.arange(n_queries + 1), side="left").astype(np.int64)


def first_results(
    rows: IntArray, qcode: npt.NDArray[np.integer[Any]], n_queries: int, max_results: int | None
) -> IntArray:
    """The ordered ``rows`` but those after each query's first ``max_results`` (``-M``; None: every row)."""
    if max_results is None:
        return rows
    ranked = np.asarray(qcode[rows], dtype=np.int64)
    first = bounds(ranked, n_queries)
    return rows[np.arange(len(rows)) - first[ranked] < max_results]


def query_slices(bounds: IntArray, rows: int) -> list[tuple[int, int]]:
    """Consecutive ranges [a, b) of all queries, each of the queries starting in one stretch of ``rows`` rows."""
    n_q = len(bounds) - 1
    if n_q <= 0:
        return [(0, 0)]
    stretch = np.asarray(bounds[:-1]) // max(rows, 1)
    cuts = [0, *(np.flatnonzero(stretch[1:] != stretch[:-1]) + 1).tolist(), n_q]
    return list(pairwise(cuts))


def check_queries(queries: Sequence[str], qrels_queries: set[str]) -> None:
    """Raise a ParameterError unless every one of ``queries`` is a qrels query."""
    unknown = sorted(set(queries) - qrels_queries)
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ParameterError(f"The 'queries' parameter must name queries of the qrels. Got {shown} instead.")


def chosen_queries(
    qrels_queries: set[str], run_queries: set[str], queries: Sequence[str] | None, missing_queries: str
) -> list[str]:
    """The evaluated queries, sorted: with results (``skip``) or all (``zero``), among ``queries`` when given."""
    with_results = run_queries if missing_queries == "skip" else qrels_queries
    if queries is None:
        return sorted(qrels_queries & with_results)
    check_queries(queries, qrels_queries)
    return sorted(set(queries) & with_results)


def assemble(
    queries: list[str], items: npt.NDArray[np.object_], run: Columns, qrels: Columns, relevance_level: int
) -> Prepared:
    """The :class:`Prepared` of the evaluated results (in evaluation order) and qrels rows (in file order)."""
    n_q = len(queries)
    span = len(items) + 1
    n_run = len(run["qcode"])
    pair = np.empty(n_run + len(qrels["qcode"]), dtype=np.int64)  # query * span + item, made in place
    for part, columns in ((pair[:n_run], run), (pair[n_run:], qrels)):
        np.multiply(columns["qcode"], span, out=part)
        part += columns["icode"]
    gid_all = dense_codes(pair)  # gid order follows (query, item code)
    del pair
    run["gid"] = gid_all[:n_run].astype(np.int64, copy=False)
    qrels["gid"] = gid_all[n_run:].astype(np.int64, copy=False)
    order = np.lexsort((qrels["end"], qrels["start"], qrels["gid"]))
    q = {name: column[order] for name, column in qrels.items()}
    q["listed"] = order

    def merged(mask: BoolArray) -> Intervals:
        return merge_intervals(
            q["gid"][mask], q["qcode"][mask], q["start"][mask].astype(np.float64), q["end"][mask].astype(np.float64)
        )

    rel_mask = q["rel"] >= relevance_level
    rel = merged(rel_mask)
    return Prepared(
        queries=queries,
        items=np.asarray(items, dtype=object),
        run_columns=run,
        qrels_columns=q,
        run_bounds=bounds(run["qcode"], n_q),
        qrels_bounds=bounds(q["qcode"], n_q),
        rel=rel,
        nonrel=merged(~rel_mask),
        rel_bounds=bounds(rel.qcode, n_q),
        relevant=rel_mask,
        relevance_level=relevance_level,
    )


def dense_codes(values: IntArray) -> IntArray:
    """``np.unique``'s inverse: each value's position among the distinct values (by table for small integers)."""
    top = int(values.max(initial=0)) + 1
    if len(values) == 0 or values.min() < 0 or top > 8 * len(values) + 4096:
        return np.unique(values, return_inverse=True)[1].ravel().astype(np.int64)
    present = np.zeros(top, dtype=bool)
    present[values] = True
    slots = np.flatnonzero(present)
    del present
    code = np.empty(top, dtype=np.int64)  # only the present slots are set, and only they are read
    code[slots] = np.arange(len(slots), dtype=np.int64)
    return code[values]


def distinct(values: npt.ArrayLike) -> npt.NDArray[Any]:
    """``np.unique(values)`` without importing ``numpy.ma`` (about 10 ms of a pandas-free run)."""
    return np.unique(values, return_counts=True)[0]


def concat_ranges(starts: IntArray, counts: IntArray) -> tuple[IntArray, IntArray]:
    """For each i, ``counts[i]`` consecutive integers from ``starts[i]``: (owner i, value) arrays."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    shift = (starts - (np.cumsum(counts) - counts)).astype(np.int64)  # value - position, per owner
    return owner, np.arange(len(owner), dtype=np.int64) + shift[owner]


class GroupRows:
    """Each group's first row and row count in a group-sorted array, by group id (ids below ``size``)."""

    def __init__(self, right_gid_sorted: IntArray, size: int) -> None:
        self.count = np.bincount(right_gid_sorted, minlength=size)
        self.first = np.cumsum(self.count) - self.count

    def pairs(self, left_gid: IntArray, offset: int = 0) -> tuple[IntArray, IntArray]:
        """All (i + ``offset``, j) with ``left_gid[i] == right_gid_sorted[j]``, ordered by i then j."""
        counts = self.count[left_gid]
        rows = np.flatnonzero(counts)  # the left entries with a partner (often few)
        owner, value = concat_ranges(self.first[left_gid[rows]], counts[rows])
        rows += offset  # on the entries, not on their pairs
        return rows[owner], value


#: results paired with qrels rows at a time by :func:`kept_pairs` (bounds the memory of the pairs)
PAIR_ROWS = 1 << 17


def kept_pairs(
    left_gid: IntArray, right_gid_sorted: IntArray, keep: Callable[[IntArray, IntArray], BoolArray] | None = None
) -> tuple[IntArray, IntArray]:
    """The (i, j) with ``left_gid[i] == right_gid_sorted[j]`` for which ``keep(i, j)`` holds (None: all), ordered by i
    then j, made and tested about :data:`PAIR_ROWS` at a time (only the kept pairs are ever held together)."""
    if len(right_gid_sorted) == 0 or len(left_gid) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    groups = GroupRows(right_gid_sorted, int(max(left_gid.max(), right_gid_sorted.max())) + 1)
    if keep is None:
        return groups.pairs(left_gid)
    n = len(left_gid)
    made = np.cumsum(groups.count[left_gid])  # the pairs of the left entries up to each
    cuts = distinct(
        np.concatenate(
            [
                [0],
                np.searchsorted(made, np.arange(PAIR_ROWS, int(made[-1]), PAIR_ROWS), side="right"),
                np.arange(PAIR_ROWS, n, PAIR_ROWS),
                [n],
            ]
        )
    )
    del made
    us: list[IntArray] = []
    js: list[IntArray] = []
    for at, stop in pairwise(cuts.tolist()):
        u, j = groups.pairs(left_gid[at:stop], at)
        # one left entry may have more than PAIR_ROWS pairs: keep() asked PAIR_ROWS of them at a time
        ok = (
            keep(u, j)
            if len(u) <= PAIR_ROWS
            else np.concatenate([keep(u[k : k + PAIR_ROWS], j[k : k + PAIR_ROWS]) for k in range(0, len(u), PAIR_ROWS)])
        )
        us.append(u[ok])
        js.append(j[ok])
    if len(us) == 1:
        return us[0], js[0]
    return np.concatenate(us), np.concatenate(js)


def first_occurrences(key: npt.NDArray[np.integer[Any]]) -> IntArray:
    """Positions of the first occurrence of each distinct key, in position order."""
    n = len(key)
    if n > 1:  # a first occurrence starts a run of equal keys: look among the runs' heads only (few when grouped)
        heads = np.flatnonzero(key[1:] != key[:-1]) + 1
        if 2 * len(heads) < n:
            heads = np.concatenate([np.zeros(1, dtype=np.int64), heads])
            return heads[_first_occurrences(key[heads])]
    return _first_occurrences(key)


def _first_occurrences(key: npt.NDArray[np.integer[Any]]) -> IntArray:
    """:func:`first_occurrences`, by table when the keys are dense, else by one stable sort."""
    n = len(key)
    top = int(key.max(initial=0)) + 1
    # by table when it is at most 48 bytes a key (a stable sort is about ten times slower even then)
    if top <= 12 * n + 4096 and n < 2**31 and int(key.min(initial=0)) >= 0:
        first = np.full(top, n, dtype=np.int32)
        np.minimum.at(first, key, np.arange(n, dtype=np.int32))
        return np.flatnonzero(first[key] == np.arange(n, dtype=np.int32))
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    new = np.ones(n, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    first = np.zeros(n, dtype=bool)
    first[order[new]] = True  # the first positions, put back in position order without a second sort
    return np.flatnonzero(first)
