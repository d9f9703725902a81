"""The in-memory lane: document runs given as DataFrames or dicts of dicts, judged by the exact
adapter on integer codes and measured in one :class:`~segeval.measures.batch.Batch`, with no
per-query objects and no intermediate tables.

:func:`evaluate_in_memory` gives the per-query values :func:`segeval.core.pipeline.evaluate_part` gives
for the same inputs, or None when the inputs are outside the lane (segments, runs read from files,
other adapters or orders, measures without a batch form, judged-only or predicted qrels lines) or
are not clean (a missing or spaced id, a non-finite score, a document twice in a query): the caller
then takes the general path, which also words the error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.adapters import ExactAdapter
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.prepared import check_queries
from segeval.core.settings import Settings
from segeval.measures.compute import Request, batched
from segeval.readers.frames import ITEM_COLUMNS, QUERY_COLUMNS
from segeval.readers.scanner_documents import exact_batch
from segeval.readers.tables import RUN_COLUMNS, predicted_mask
from segeval.readers.validate import id_codes, is_documents

_SPACE = re.compile(r"\s")  # as segeval.readers.frames: ids hold no white space
#: (run query, run item) tables up to 4 cells a row plus this many; sparser runs are hashed
DENSE_CELLS = 1 << 20


@dataclass(frozen=True)
class QrelsIndex:
    """Document qrels as codes, made once per :class:`~segeval.core.pipeline.Evaluator`: query q (in
    ``queries``, sorted) has the lines ``keys[offsets[q]:offsets[q + 1]]``, each key
    ``q * len(items) + item code``, sorted, with its grade in ``rel``."""

    queries: list[str]
    position: dict[str, int]
    items: pd.Index
    keys: IntArray
    rel: IntArray
    offsets: IntArray
    owner: IntArray  # each line's query position
    item: IntArray  # each line's item code

    @cached_property
    def key_index(self) -> pd.Index:
        """``keys`` hashed (made on first use, then kept)."""
        return pd.Index(self.keys)

    @classmethod
    def of(cls, qrels: pd.DataFrame) -> QrelsIndex | None:
        """The index of validated qrels; None for segment qrels or qrels with predicted lines."""
        if len(qrels) == 0 or not is_documents(qrels) or bool(predicted_mask(qrels).any()):
            return None
        q_codes, q_names = id_codes(qrels["query"])
        i_codes, i_names = id_codes(qrels["item"])
        if not (_clean_ids(q_names) and _clean_ids(i_names)):
            return None
        order = np.argsort(q_names.astype(object))  # code-point order, as sorted() orders str
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        keys = position[q_codes] * len(i_names) + i_codes
        by_key = np.argsort(keys, kind="stable")
        offsets = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(np.bincount(position[q_codes], minlength=len(order)), out=offsets[1:])
        names = [str(x) for x in q_names[order].tolist()]
        keys = keys[by_key].astype(np.int64)
        return cls(names, {n: i for i, n in enumerate(names)}, pd.Index(i_names, dtype=object), keys,
                   qrels["rel"].to_numpy().astype(np.int64)[by_key], offsets, keys // len(i_names),
                   keys % len(i_names))


def in_lane(requests: Sequence[Request], order: str, judged_only: bool) -> bool:
    """Whether a plan's requests and policies are the lane's: score order, the exact adapter, batch measures."""
    return order == "score" and not judged_only and all(
        r.measure.scope == "labels" and isinstance(r.adapter, ExactAdapter) and r.measure.batchable
        for r in requests)


def _clean_ids(names: Any) -> bool:
    """All strings, none empty, none with white space (else the general path words the error)."""
    values = names.tolist() if hasattr(names, "tolist") else list(names)
    try:
        joined = "".join(values)
    except TypeError:
        return False
    return "" not in values and _SPACE.search(joined) is None


@dataclass(frozen=True)
class TableCodes:
    """A run's rows as codes: query code (into ``queries``), item code (into ``items``), score."""

    query: IntArray
    queries: list[str]
    item: IntArray
    items: npt.NDArray[np.object_]
    score: FloatArray
    unique_pairs: bool  # each (query, item) at most once, known from the input's shape
    observed: BoolArray  # per query: has a row


def table_codes(run: object) -> TableCodes | None:
    """A DataFrame (ir_measures' or ranx's columns) or a dict of dicts of scores as codes; None for
    any other shape or for values the general path must check."""
    if isinstance(run, pd.DataFrame):
        return _frame_codes(run)
    if isinstance(run, Mapping):
        return _dict_codes(run)
    return None


def _frame_codes(run: pd.DataFrame) -> TableCodes | None:
    columns = set(run.columns)
    if len(run) == 0 or set(RUN_COLUMNS) <= columns or columns & {"start", "end", "rank"} or "score" not in columns:
        return None
    query = next((c for c in QUERY_COLUMNS if c in columns), None)
    item = next((c for c in ITEM_COLUMNS if c in columns), None)
    if query is None or item is None or item == "video" or run["score"].dtype.kind not in "iuf":
        return None
    q_codes, q_names = _factorize(run[query].to_numpy(dtype=object))
    i_codes, i_names = _string_codes(run[item].to_numpy(dtype=object))
    score = run["score"].to_numpy(dtype=np.float64)
    if (q_codes < 0).any() or (i_codes < 0).any() or not (_clean_ids(q_names) and _clean_ids(i_names)):
        return None
    return TableCodes(q_codes, list(q_names), i_codes.astype(np.int64, copy=False), np.asarray(i_names, dtype=object),
                    score, False, np.ones(len(q_names), dtype=bool))


def _dict_codes(run: Mapping[Any, Any]) -> TableCodes | None:
    queries, inners = list(run), list(run.values())
    if not all(isinstance(x, Mapping) for x in inners) or not _clean_ids(queries):
        return None
    lengths = np.fromiter(map(len, inners), dtype=np.int64, count=len(inners))
    n = int(lengths.sum())
    if n == 0:
        return None
    docs = np.fromiter(chain.from_iterable(inners), dtype=object, count=n)
    try:
        score = np.fromiter(chain.from_iterable(x.values() for x in inners), dtype=np.float64, count=n)
    except (TypeError, ValueError):
        return None
    i_codes, i_names = _string_codes(docs)
    if (i_codes < 0).any() or not _clean_ids(i_names):
        return None
    return TableCodes(np.repeat(np.arange(len(queries), dtype=np.int64), lengths), [str(q) for q in queries],
                    i_codes.astype(np.int64, copy=False), np.asarray(i_names, dtype=object), score, True, lengths > 0)


def _string_codes(values: npt.NDArray[np.object_]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.object_]]:
    """pd.factorize's codes and uniques of ids, hashed as strings (code -1: a value that is not a str,
    which sends the run to the general path).  pandas' string hash table is its own (private) API:
    where it is missing, pd.factorize, which first infers the column's type (a pass over it)."""
    try:
        from pandas._libs.hashtable import StringHashTable

        uniques, codes = StringHashTable(min(len(values), 1 << 16)).factorize(values)
    except (ImportError, AttributeError, TypeError, ValueError):
        codes, uniques = pd.factorize(values)
    return np.asarray(codes), np.asarray(uniques, dtype=object)


def _factorize(values: npt.NDArray[np.object_]) -> tuple[IntArray, npt.NDArray[np.object_]]:
    """pd.factorize's codes and uniques, hashing only the first row of each run of equal values
    (a run's query column is usually grouped by query)."""
    if len(values) < 2:
        codes, names = pd.factorize(values)
        return codes.astype(np.int64, copy=False), np.asarray(names, dtype=object)
    head = np.empty(len(values), dtype=bool)
    head[0] = True
    np.not_equal(values[1:], values[:-1], out=head[1:])  # NaN != NaN: each its own run, coded -1 below
    at = np.flatnonzero(head)
    codes, names = pd.factorize(values[at])
    return np.repeat(codes.astype(np.int64), np.diff(np.append(at, len(values)))), np.asarray(names, dtype=object)


def _qrels_lines(index: QrelsIndex, run: TableCodes) -> npt.NDArray[np.signedinteger[Any]] | None:
    """Per run row, its qrels line (a position in ``index.keys``; -1: none); None when a (query,
    item) pair occurs twice in the run."""
    n_items = len(run.items)
    query_at = np.array([index.position.get(q, -1) for q in run.queries], dtype=np.int64)
    # -1: an item no qrels line judges
    item_at = index.items.get_indexer(pd.Index(run.items, dtype=object)).astype(np.int64)
    if len(run.queries) * n_items <= 4 * len(run.item) + DENSE_CELLS:  # a dense (run query, run item) table
        pair = run.query * n_items + run.item
        if not run.unique_pairs and np.bincount(pair).max(initial=0) > 1:
            return None
        run_query_of = np.full(len(index.queries), -1, dtype=np.int64)
        run_query_of[query_at[query_at >= 0]] = np.flatnonzero(query_at >= 0)
        run_item_of = np.full(len(index.items), -1, dtype=np.int64)
        run_item_of[item_at[item_at >= 0]] = np.flatnonzero(item_at >= 0)
        line_query, line_item = run_query_of[index.owner], run_item_of[index.item]
        both = np.flatnonzero((line_query >= 0) & (line_item >= 0))
        table = np.zeros(len(run.queries) * n_items, dtype=np.int32 if len(index.keys) < 2**31 - 1 else np.int64)
        table[line_query[both] * n_items + line_item[both]] = both + 1
        return np.asarray(table[pair] - 1)  # int32 for all but huge qrels: half the memory traffic
    if not run.unique_pairs and pd.Series(run.query * n_items + run.item).duplicated().any():
        return None
    q, i = query_at[run.query], item_at[run.item]
    judged = np.flatnonzero((q >= 0) & (i >= 0))
    lines = np.full(len(run.item), -1, dtype=np.int64)
    lines[judged] = index.key_index.get_indexer(pd.Index(q[judged] * len(index.items) + i[judged]))
    return lines


def evaluate_in_memory(index: QrelsIndex, source: object, requests: Sequence[Request],
                       settings: Settings) -> tuple[list[str], dict[str, list[Any]]] | None:
    """(queries, values by request name) as :func:`segeval.core.pipeline.evaluate_part` gives them with these
    settings, or None when the run is outside the lane."""
    queries = settings.queries
    run = table_codes(source)
    lines = None if run is None else _qrels_lines(index, run)
    if run is None or lines is None:
        return None
    in_run = {name for name, seen in zip(run.queries, run.observed.tolist(), strict=True) if seen}
    if queries is not None:
        check_queries(queries, set(index.queries))
        chosen = sorted(set(queries) & in_run)
    else:
        chosen = [q for q in index.queries if q in in_run]  # index.queries is sorted
    at = {name: i for i, name in enumerate(chosen)}
    lookup = np.array([at.get(name, -1) for name in run.queries], dtype=np.int64)
    identity = len(lookup) == len(chosen) and bool((lookup == np.arange(len(chosen))).all())
    qcode = run.query if identity else lookup[run.query]
    score = run.score if settings.trec_eval != "9" else run.score.astype(np.float32).astype(np.float64)
    if not np.isfinite(score).all():
        return None
    n_q = len(chosen)

    def tie_key(at: IntArray) -> IntArray:  # the tied rows' item ids ranked in code-point order
        distinct, inverse = np.unique(run.item[at], return_inverse=True)
        return np.argsort(np.argsort(run.items[distinct].astype(object)))[inverse.ravel()].astype(np.int64)

    to_chosen = np.full(len(index.queries), -1, dtype=np.int64)  # qrels query positions to evaluated codes
    to_chosen[[index.position[q] for q in chosen]] = np.arange(n_q)
    by_line = np.append(index.rel.astype(np.float64), np.nan)  # line -1 (none): NaN
    batch = exact_batch(qcode, score, lambda rows: by_line[lines[rows]], tie_key, n_q, to_chosen[index.owner],
                        index.rel, settings)
    out = batched(batch, requests)
    return None if out is None else (chosen, out)
