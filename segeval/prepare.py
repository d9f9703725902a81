"""Select the evaluated queries, order each query's results, and index both sides.

The policies that change numbers are explicit parameters:

``order``
    ``"rank"`` (default, the MediaEval reference): results ordered by the rank
    column, equal ranks keeping file order.  ``"score"`` (trec_eval): score
    descending, equal scores by item id descending (code-point order, which is
    UTF-8 byte order); the rank column is ignored.  ``"file"``: as listed.
``missing_queries``
    ``"skip"`` (default): only queries in both the qrels and the run are
    evaluated.  ``"zero"`` (trec_eval ``-c``): every qrels query is evaluated,
    those missing from the run with an empty ranking, so they score 0.
``max_results``
    Keep at most this many results per query, after ordering (trec_eval ``-M``).
``relevance_level``
    A qrels row is relevant when its ``rel`` is at least this (trec_eval's
    ``-l``; default 1, which for integer grades is the reference's ``rel > 0``).
``queries``
    Which queries are evaluated: by default those present in both the qrels and
    the run (the reference skips qrels queries missing from the run and ignores
    run queries missing from the qrels).  An explicit list restricts this further.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.errors import ParameterError, check_choice, check_int
from segeval.validate import check_unique_documents

ORDERS = ("rank", "score", "file")
#: columns carried into the evaluation; videos and queries become integer codes
RUN_COLUMNS = ("start", "end", "rank", "score", "line")
QRELS_COLUMNS = ("start", "end", "rel", "line")

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


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
    """Evaluation-ready inputs.

    ``run`` and ``qrels`` hold the numeric columns, sorted by query (in
    ``queries`` order), plus ``qcode`` (position in ``queries``), ``icode``
    (position in ``items``) and ``gid`` (a (query, item) group id shared by both).
    ``run_bounds[q]:run_bounds[q+1]`` are query q's results.
    ``rel``/``nonrel`` are the merged relevant and non-relevant qrels segments;
    ``relevant`` marks the relevant rows of ``qrels`` (``rel >= relevance_level``).
    """

    queries: list[str]
    items: npt.NDArray[np.object_]
    run: pd.DataFrame
    qrels: pd.DataFrame
    run_bounds: IntArray
    qrels_bounds: IntArray
    rel: Intervals
    nonrel: Intervals
    rel_bounds: IntArray
    relevant: npt.NDArray[np.bool_]


def merge_intervals(gid: IntArray, qcode: IntArray, start: FloatArray, end: FloatArray) -> Intervals:
    """Merge intervals of each group that meet under the ``closed`` rule (touching counts).

    Input must be sorted by (gid, start, end).  Walking a group in order, an
    interval whose start is <= the running maximum end joins the current one.
    """
    n = len(gid)
    if n == 0:
        empty_i = np.zeros(0, dtype=np.int64)
        empty_f = np.zeros(0, dtype=np.float64)
        return Intervals(empty_i, empty_i, empty_f, empty_f)
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = gid[1:] != gid[:-1]
    group_no = np.cumsum(new_group) - 1
    run_max = pd.Series(end).groupby(group_no).cummax().to_numpy()
    prev_max = np.empty(n)
    prev_max[0] = -np.inf
    prev_max[1:] = run_max[:-1]
    starts_new = new_group | (start > prev_max)
    first = np.flatnonzero(starts_new)
    m_end = np.maximum.reduceat(end, first) if len(first) else np.zeros(0)
    return Intervals(gid[first], qcode[first], start[first], m_end.astype(np.float64))


def _score_order(qcode: IntArray, score: FloatArray, items: npt.NDArray[np.object_]) -> IntArray:
    """Positions ordered by query, score descending, then item id descending (code-point order).

    Item ids are compared only within groups of equal scores, which are usually few.
    """
    distinct, score_rank = np.unique(score, return_inverse=True)
    key = qcode.astype(np.int64) * len(distinct) + (len(distinct) - 1 - score_rank)  # query, then score down
    order = np.argsort(key, kind="stable")
    q, sc = qcode[order], score[order]
    same = (q[1:] == q[:-1]) & (sc[1:] == sc[:-1])
    if not same.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    where = np.flatnonzero(tied)
    group = np.cumsum(np.concatenate([[True], ~same])[where])  # tie groups are contiguous runs
    names = items[order[where]].astype(str)
    rank = np.unique(names, return_inverse=True)[1]
    order[where] = order[where][np.lexsort((-rank, group))]
    return order


def bounds(qcode: IntArray, n_queries: int) -> IntArray:
    """Offsets such that rows of query q are ``[b[q], b[q+1])`` of a qcode-sorted array."""
    return np.searchsorted(qcode, np.arange(n_queries + 1), side="left").astype(np.int64)


def check_queries(queries: Sequence[str], qrels_queries: set[str]) -> None:
    """Raise a ParameterError unless every one of ``queries`` is a qrels query."""
    unknown = sorted(set(queries) - qrels_queries)
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ParameterError(f"The 'queries' parameter must name queries of the qrels. Got {shown} instead.")


def prepare(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    *,
    queries: Sequence[str] | None = None,
    order: str = "rank",
    relevance_level: int = 1,
    missing_queries: str = "skip",
    max_results: int | None = None,
) -> Prepared:
    """Select queries, order the run and index both sides by (query, item)."""
    check_choice("order", order, ORDERS)
    check_choice("missing_queries", missing_queries, ("skip", "zero"))
    if max_results is not None:
        check_int("max_results", max_results, minimum=1)
    run_raw, run_names = pd.factorize(run["query"].to_numpy(dtype=object))
    qrels_raw, qrels_names = pd.factorize(qrels["query"].to_numpy(dtype=object))
    qrels_q, run_q = set(qrels_names), set(run_names)
    with_results = run_q if missing_queries == "skip" else qrels_q
    if queries is None:
        chosen = sorted(qrels_q & with_results)
    else:
        check_queries(queries, qrels_q)
        chosen = sorted(set(queries) & with_results)
    code_of = {q: i for i, q in enumerate(chosen)}
    n_q = len(chosen)

    def query_codes(raw: IntArray, names: object) -> IntArray:
        lookup = np.array([code_of.get(name, -1) for name in names], dtype=np.int64)  # type: ignore[attr-defined]
        return lookup[raw] if len(lookup) else np.zeros(len(raw), dtype=np.int64)

    run_qcode = query_codes(run_raw, run_names)
    qrels_qcode = query_codes(qrels_raw, qrels_names)
    run_items = run["item"].to_numpy(dtype=object)
    item_codes, item_names = pd.factorize(np.concatenate([run_items, qrels["item"].to_numpy(dtype=object)]))
    run_icode, qrels_icode = item_codes[: len(run)], item_codes[len(run):]
    if len(run) and bool(np.isnan(run["start"].to_numpy(dtype=np.float64)).all()):
        check_unique_documents(run, run_raw, run_icode)

    keep = np.flatnonzero(run_qcode >= 0)
    # the needed columns, ordered within each query by the order policy (lexsort is stable)
    if order == "score":
        rows = keep[_score_order(run_qcode[keep], run["score"].to_numpy()[keep], run_items[keep])]
    else:
        keys = (run["rank"].to_numpy()[keep],) if order == "rank" else ()
        rows = keep[np.lexsort((*keys, run_qcode[keep]))]
    if max_results is not None:
        first = bounds(run_qcode[rows], n_q)
        rows = rows[np.arange(len(rows)) - first[run_qcode[rows]] < max_results]
    r = pd.DataFrame({c: run[c].to_numpy()[rows] for c in RUN_COLUMNS})
    r["icode"], r["qcode"] = run_icode[rows], run_qcode[rows]
    keep_q = np.flatnonzero(qrels_qcode >= 0)
    q = pd.DataFrame({c: qrels[c].to_numpy()[keep_q] for c in QRELS_COLUMNS})
    q["icode"], q["qcode"] = qrels_icode[keep_q], qrels_qcode[keep_q]

    span = len(item_names) + 1
    pair = np.concatenate([r["qcode"].to_numpy() * span + r["icode"].to_numpy(),
                           q["qcode"].to_numpy() * span + q["icode"].to_numpy()])
    gid_all, _ = pd.factorize(pair, sort=True)  # gid order follows (query, item code)
    r["gid"] = gid_all[: len(r)].astype(np.int64)
    q["gid"] = gid_all[len(r):].astype(np.int64)
    q = q.take(np.lexsort((q["end"].to_numpy(), q["start"].to_numpy(), q["gid"].to_numpy()))).reset_index(drop=True)

    def merged(mask: npt.NDArray[np.bool_]) -> Intervals:
        s = q.loc[mask]
        return merge_intervals(s["gid"].to_numpy(), s["qcode"].to_numpy(),
                               s["start"].to_numpy(dtype=np.float64), s["end"].to_numpy(dtype=np.float64))

    rel_mask = q["rel"].to_numpy() >= relevance_level
    rel = merged(rel_mask)
    nonrel = merged(~rel_mask)
    return Prepared(
        queries=chosen,
        items=np.asarray(item_names, dtype=object),
        run=r,
        qrels=q,
        run_bounds=bounds(r["qcode"].to_numpy(), n_q),
        qrels_bounds=bounds(q["qcode"].to_numpy(), n_q),
        rel=rel,
        nonrel=nonrel,
        rel_bounds=bounds(rel.qcode, n_q),
        relevant=rel_mask,
    )


def concat_ranges(starts: IntArray, counts: IntArray) -> tuple[IntArray, IntArray]:
    """For each i, ``counts[i]`` consecutive integers from ``starts[i]``: (owner i, value) arrays."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    shift = (starts - (np.cumsum(counts) - counts)).astype(np.int64)  # value - position, per owner
    return owner, np.arange(len(owner), dtype=np.int64) + shift[owner]


def group_pairs(left_gid: IntArray, right_gid_sorted: IntArray) -> tuple[IntArray, IntArray]:
    """All (i, j) with ``left_gid[i] == right_gid_sorted[j]``, ordered by i then j.

    Group ids are small non-negative integers, so each group's slice of the
    sorted right side is found by counting rather than searching.
    """
    if len(right_gid_sorted) == 0 or len(left_gid) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    size = int(max(left_gid.max(), right_gid_sorted.max())) + 1
    per_group = np.bincount(right_gid_sorted, minlength=size)
    first = np.cumsum(per_group) - per_group
    return concat_ranges(first[left_gid], per_group[left_gid])


def default_order(documents: bool) -> str:
    """The default result order: trec_eval's ``score`` for document runs, the MediaEval reference's ``rank``
    for segment runs."""
    return "score" if documents else "rank"
