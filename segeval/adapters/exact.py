"""Exact relevance for documents: a result is judged by the qrels line with its id."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.adapters.base import Adapted, Adapter, Label
from segeval.core.arrays import Codes, FloatArray, IntArray
from segeval.core.ordering import score_order, sort_each

if TYPE_CHECKING:
    from segeval.adapters.labelled import Labelled
    from segeval.core.prepared import Columns, Prepared
    from segeval.core.settings import Settings
    from segeval.measures.batch import Batch


#: the multiplier of the row hashes (Fibonacci hashing)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def listed_twice(*columns: npt.NDArray[Any]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The one rule for an item listed (judged) twice: the rows equal to an earlier row, and that first row."""
    h = np.zeros(len(columns[0]), dtype=np.uint64)
    for c in columns:  # a hash of each row: only rows that share one are compared
        h ^= (np.asarray(c, dtype=np.float64) + 0.0).view(np.uint64) if c.dtype.kind == "f" else c.astype(np.uint64)
        h *= _MIX
        h ^= h >> np.uint64(29)
    by_hash = np.argsort(h, kind="stable")
    shared = np.zeros(len(h), dtype=bool)
    shared[1:] = h[by_hash[1:]] == h[by_hash[:-1]]
    shared[:-1] |= shared[1:]
    rows = np.sort(by_hash[shared])
    order = rows[np.lexsort([c[rows] for c in reversed(columns)])]  # stable: equal rows in row order
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for c in columns:
        same &= c[order[1:]] == c[order[:-1]]
    head = np.arange(len(order))
    head[1:][same] = 0
    first = order[np.maximum.accumulate(head)][1:][same] if len(order) else order
    again = order[1:][same]
    by_row = np.argsort(again, kind="stable")
    return again[by_row], first[by_row]


def exact_labels(grade: npt.NDArray[np.floating], relevance_level: int) -> npt.NDArray[np.uint8]:
    """The exact rule, per result given the grade of its qrels line (NaN: none): relevant when the grade
    reaches ``relevance_level``, else judged non-relevant when it is not negative, else unjudged."""
    labels = np.full(len(grade), Label.UNJUDGED, dtype=np.uint8)
    labels[grade >= 0] = Label.NONRELEVANT  # NaN compares False: no line, unjudged
    labels[grade >= relevance_level] = Label.RELEVANT
    return labels


def first_lines(run_gid: IntArray, qrels_gid_sorted: IntArray) -> tuple[IntArray, IntArray]:
    """(result, qrels line) pairs of documents: each result's group's first line, by a table of group ids."""
    if len(run_gid) == 0 or len(qrels_gid_sorted) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    heads = np.flatnonzero(np.concatenate([[True], qrels_gid_sorted[1:] != qrels_gid_sorted[:-1]]))
    line = np.full(int(max(run_gid.max(), qrels_gid_sorted.max())) + 1, -1, dtype=np.int64)
    line[qrels_gid_sorted[heads]] = heads
    j = line[run_gid]
    u = np.flatnonzero(j >= 0)
    return u, j[u]


def _segment_pairs(run: Columns, qrels: Columns, pairs: tuple[IntArray, IntArray]) -> tuple[IntArray, IntArray]:
    """The (result, qrels line) pairs of the same group and times (subtopic qrels: the largest grade), one a result."""
    u, j = pairs
    if len(qrels["qcode"]) and {"start", "end"} <= qrels.keys():
        start, end = qrels["start"][j], qrels["end"][j]
        same = np.isnan(start) | ((start == run["start"][u]) & (end == run["end"][u]))
        u, j = u[same], j[same]
    if "subtopic" in qrels:
        by_grade = np.lexsort((-qrels["rel"][j], u))
        u, j = u[by_grade], j[by_grade]
    first = np.ones(len(u), dtype=bool)
    first[1:] = u[1:] != u[:-1]
    return u[first], j[first]


#: the grade of a result without a qrels line
NO_LINE = np.iinfo(np.int64).min


def exact_batch(
    run_q: Codes,
    score: FloatArray,
    grade_of: Callable[[IntArray], FloatArray],
    tie_key: Callable[[IntArray], Codes],
    n_q: int,
    pool_q: Codes,
    pool: Codes,
    settings: Settings,
) -> Batch:
    """The exact adapter's :class:`~segeval.measures.batch.Batch` of the byte scanner's coded rows."""
    from segeval.core.prepared import first_results  # not on import: the in-memory reader's module
    from segeval.measures.batch import Batch

    evaluated = np.flatnonzero(run_q >= 0)
    if len(evaluated) == len(run_q):
        order = score_order(run_q, score, n_q, tie_key)
    else:
        order = evaluated[score_order(run_q[evaluated], score[evaluated], n_q, lambda at: tie_key(evaluated[at]))]
    order = first_results(order, run_q, n_q, settings.max_results)
    row_q = run_q[order]
    grades = grade_of(order)
    labels = exact_labels(grades, settings.relevance_level)
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_q, minlength=n_q), out=offsets[1:])
    lines = np.flatnonzero(pool_q >= 0)
    lines = lines[np.argsort(pool_q[lines], kind="stable")]  # each query's qrels lines: its pool
    owner = pool_q[lines]
    num_rel = np.bincount(owner[pool[lines] >= settings.relevance_level], minlength=n_q).astype(np.int64)
    pool_offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=n_q), out=pool_offsets[1:])
    return Batch(labels, offsets, num_rel, grades, pool[lines].astype(np.float64), pool_offsets)


def match_pairs(
    run_u: Codes,
    qrels_u: Codes,
    run_key: npt.NDArray[np.uint64],
    qrels_key: npt.NDArray[np.uint64],
    rel: IntArray,
    n_queries: int,
) -> tuple[IntArray, Codes] | None:
    """Per result, the grade of its qrels line (:data:`NO_LINE`: none) and its place in (query, docno) order, by
    one sort over both files; None when a result or a judgement is there twice."""
    n_run = len(run_key)
    query = np.concatenate([run_u, qrels_u])
    order = np.argsort(query.astype(np.int16) if n_queries < 2**15 else query, kind="stable")  # radix for 16 bits
    counts = np.bincount(query, minlength=n_queries)
    key = np.concatenate([run_key, qrels_key])[order]
    within = sort_each(key, counts, np.cumsum(counts) - counts)
    order = order[within]
    key = key[within]
    del within
    same = key[1:] == key[:-1]
    del key
    query = query[order]
    same &= query[1:] == query[:-1]
    del query
    from_qrels = order >= n_run
    if bool((same[1:] & same[:-1]).any()) or bool((same & (from_qrels[1:] == from_qrels[:-1])).any()):
        return None
    pair = np.flatnonzero(same)
    run_at = np.where(from_qrels[pair], pair + 1, pair)
    grade = np.full(n_run, NO_LINE, dtype=np.int64)
    grade[order[run_at]] = rel[order[run_at ^ pair ^ (pair + 1)] - n_run]
    doc_rank: Codes = np.empty(n_run, dtype=np.int32 if len(order) < 2**31 else np.int64)
    doc_rank[order[~from_qrels]] = np.flatnonzero(~from_qrels)
    return grade, doc_rank


class ExactAdapter(Adapter):
    """Judged by the qrels line of the same document (trec_eval's matching)."""

    name = "exact"
    suffix = ""
    times = False

    def reasons(self, data: Prepared, a: Adapted, unit: int, query: int) -> dict[Label | None, str]:
        """The qrels line of the same document and its grade."""
        return {
            Label.RELEVANT: "same document, grade reaches the relevance level",
            Label.NONRELEVANT: "same document, grade below the relevance level",
            Label.UNJUDGED: "same document, negative grade: unjudged",
            None: "no qrels line for this document",
        }

    def adapt(self, data: Prepared) -> Labelled:
        from segeval.core.prepared import kept_pairs

        run, qrels = data.run_columns, data.qrels_columns
        n = data.n_results
        if "subtopic" not in qrels and bool(np.isnan(qrels.get("start", np.zeros(0))).all()):  # documents
            u, j = first_lines(run["gid"], qrels["gid"])
        else:
            u, j = _segment_pairs(run, qrels, kept_pairs(run["gid"], qrels["gid"]))
        grades = np.full(n, np.nan)
        grades[u] = qrels["rel"][j]
        labels = exact_labels(grades, data.relevance_level)
        pool = qrels["rel"].astype(np.float64), data.qrels_bounds  # every qrels grade of the query
        from segeval.adapters.labelled import Labelled  # not on import: the fast lanes label with exact_labels

        return Labelled(data, labels, qrels["qcode"][data.relevant], u, j, None, grades, pool)
