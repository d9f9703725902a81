"""The result orders of a run, each written once: trec_eval's score order and the listed (rank or file) order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import Codes, FloatArray, IntArray

#: rankings of at least this many results per query on average are sorted query by query
SORT_EACH_FROM = 256
#: ... in one matrix when padding them to the longest adds at most their size plus this many cells
PAD_CELLS = 1024


def score_order(qcode: Codes, score: FloatArray, n_queries: int, tie_key: Callable[[IntArray], Codes]) -> IntArray:
    """Positions of the rows ordered by query code, score descending, item id descending (trec_eval's order; equal
    scores include -0.0 and 0.0), then position (rows of one item, such as a video's segments, in file order: one
    total order, whatever the other rows); non-finite scores: NaN first, then +inf ... -inf."""
    small = qcode.astype(np.int16 if n_queries < 2**15 else np.int64, copy=False)  # radix sorts for 16 bits
    if not bool(np.isfinite(score).all()):
        distinct, rank = np.unique(score, return_inverse=True)  # NaN ranks highest: first when descending
        down = len(distinct) - 1 - rank.ravel().astype(np.int64)
        order = np.lexsort((down, qcode)).astype(np.int64)
        q, s = qcode[order], score[order]  # NaN is no tie: file order
    elif ranked_as_listed(qcode, score):  # written rank by rank: only grouped by query
        order = np.argsort(small, kind="stable")
        q, s = qcode[order], score[order]
    elif len(score) >= SORT_EACH_FROM * n_queries:  # long rankings: grouped by query, each sorted alone
        order = np.argsort(small, kind="stable")
        grouped = score[order]
        counts = np.bincount(qcode, minlength=n_queries)
        starts = np.cumsum(counts) - counts
        within = sort_each(-grouped, counts, starts)  # descending; ties are ordered below
        order = order[within]
        q = np.repeat(np.arange(n_queries), counts)
        s = grouped[within]
    else:
        down = np.negative(score)
        np.add(down, 0.0, out=down)  # -0 is 0
        order = np.argsort(down)  # descending scores; equal ones are ordered below
        order = order[np.argsort(small[order], kind="stable")]
        q, s = qcode[order], score[order]
    ties = tie_groups(q, s)
    if ties is None:
        return order
    where, group = ties
    tied = order[where]
    order[where] = tied[np.lexsort((tied, -tie_key(tied).astype(np.int64), group))]  # then file order
    return order


def padded_cells(counts: IntArray, n_values: int) -> tuple[IntArray, IntArray] | None:
    """(row, column) of each value of consecutive segments in one matrix; None when it would waste space."""
    width = int(counts.max(initial=0))
    if len(counts) * width > 2 * n_values + PAD_CELLS:
        return None
    row = np.repeat(np.arange(len(counts)), counts)
    return row, np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)


def sort_each(values: npt.NDArray[Any], counts: IntArray, starts: IntArray) -> IntArray:
    """Positions sorting each segment of ``values`` ascending, segment by segment; ties in any order."""
    width = int(counts.max(initial=0))
    if len(counts) * width == len(values):  # all of one length: the rows of a matrix as they are
        by_row = np.argsort(values.reshape(len(counts), width), axis=1)
        return np.asarray((by_row + starts[:, None]).ravel(), dtype=np.int64)
    cells = padded_cells(counts, len(values))
    if cells is not None:  # rows of one matrix, padded with the highest value
        row, column = cells
        top = np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).max
        table = np.full((len(counts), width), top, dtype=values.dtype)
        table[row, column] = values  # the segments lie end to end in values, as the matrix rows take them
        by_row = np.argsort(table, axis=1)  # a value equal to the padding may sort after some: they are dropped
        return np.asarray((by_row + starts[:, None])[by_row < counts[:, None]], dtype=np.int64)
    out = np.empty(len(values), dtype=np.int64)
    for a, n in zip(starts.tolist(), counts.tolist(), strict=True):
        out[a : a + n] = np.argsort(values[a : a + n]) + a
    return out


def stored_scores(score: FloatArray, trec_eval: str) -> FloatArray:
    """Scores as the trec_eval version ranks them: 9.0.8 stores them as C floats (near-equal scores become ties)."""
    return score.astype(np.float32).astype(np.float64) if trec_eval == "9" else score


def name_ranks(names: npt.NDArray[np.object_]) -> IntArray:
    """Each id's rank among ``names`` in code-point order (equal ids, equal ranks): a ``tie_key``."""
    return np.unique(names.astype(str), return_inverse=True)[1].ravel().astype(np.int64)


def tie_groups(q: Codes, s: FloatArray) -> tuple[IntArray, IntArray] | None:
    """Positions that share query and score with a neighbour, and their tie group numbers; None for none."""
    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if not same.any():
        return None
    tied = np.zeros(len(q), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    where = np.flatnonzero(tied)
    return where, np.cumsum(np.concatenate([[True], ~same])[where])  # tie groups are contiguous runs


def ranked_as_listed(query: Codes, score: FloatArray) -> bool:
    """Whether the rows are grouped by query with scores not increasing (a run written rank by rank)."""
    same = query[1:] == query[:-1]
    if bool((same & (score[1:] > score[:-1])).any()):
        return False
    present = int(np.count_nonzero(np.bincount(query + 1)))  # codes >= -1
    return present == len(query) - int(np.count_nonzero(same))


def listed_order(keep: IntArray, qcode: IntArray, rank: IntArray | None) -> IntArray:
    """The increasing rows ``keep`` ordered by query, then ``rank`` when given (ties in file order)."""
    from segeval.core.prepared import concat_ranges

    every = len(keep) == len(qcode)  # increasing and as many as the rows: every row, so no gathered copies
    q = qcode if every else qcode[keep]
    if len(q) > 1:  # usually each query's rows are together and in rank order: the blocks in query order
        head = np.flatnonzero(q[1:] != q[:-1]) + 1
        same = np.ones(len(q) - 1, dtype=bool)
        same[head - 1] = False
        block_q = q[np.concatenate([[0], head])]
        ranks = rank if rank is None or every else rank[keep]
        if (ranks is None or not bool(((ranks[1:] < ranks[:-1]) & same).any())) and bool(
            (np.bincount(block_q) <= 1).all()
        ):  # each query one block (np.unique would load numpy.ma)
            if bool((block_q[1:] > block_q[:-1]).all()):  # and the queries in code order: as they are
                return keep
            first = np.concatenate([[0], head])
            size = np.diff(np.append(first, len(q)))
            by_query = np.argsort(block_q)
            return keep[concat_ranges(first[by_query], size[by_query])[1]]
    keys = (rank[keep],) if rank is not None else ()
    return keep[np.lexsort((*keys, q))]
