"""Document runs given as DataFrames or dicts of dicts, coded straight to the prepared form that
:func:`segeval.readers.from_tables.prepare` gives, or None when the table reader must read them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.ordering import name_ranks, stored_scores
from segeval.core.prepared import Columns, Prepared, assemble, chosen_queries
from segeval.core.settings import Settings
from segeval.readers.blocks import run_starts
from segeval.readers.frames import ITEM_COLUMNS, QUERY_COLUMNS, SPACE
from segeval.readers.from_tables import QRELS_COLUMNS, has_duplicates, qrels_values, query_codes, ranked_rows
from segeval.readers.tables import RUN_COLUMNS
from segeval.readers.validate import id_codes


def _clean_ids(names: Any) -> bool:
    """All strings, none empty, none with white space (else the table reader words the error)."""
    values = names.tolist() if hasattr(names, "tolist") else list(names)
    try:
        joined = "".join(values)
    except TypeError:
        return False
    return "" not in values and SPACE.search(joined) is None


@dataclass(frozen=True)
class CodedQrels:
    """Validated document qrels as codes, made once per :class:`~segeval.core.pipeline.Evaluator`: each line's
    query (into ``queries``) and item (into ``items``), and the columns the prepared form keeps."""

    queries: npt.NDArray[np.object_]
    query: IntArray
    items: pd.Index
    item: IntArray
    columns: Columns

    @classmethod
    def of(cls, qrels: pd.DataFrame) -> CodedQrels:
        q_codes, q_names = id_codes(qrels["query"])
        i_codes, i_names = id_codes(qrels["item"])
        columns = {c: qrels_values(qrels, c) for c in QRELS_COLUMNS if c in qrels}
        return cls(q_names, q_codes, pd.Index(i_names, dtype=object), i_codes, columns)


def frame_prepared(qrels: CodedQrels, source: object, settings: Settings) -> Prepared | None:
    """The prepared form of a document run in memory under ``settings`` (score order); None: the table reader."""
    run = table_codes(source)
    if run is None or not np.isfinite(run.score).all():
        return None
    in_run = {name for name, seen in zip(run.queries, run.observed.tolist(), strict=True) if seen}
    chosen = chosen_queries(set(qrels.queries.tolist()), in_run, settings.queries, "skip")
    code_of = {name: i for i, name in enumerate(chosen)}
    run_q, qrels_q = query_codes(run.query, run.queries, code_of), query_codes(qrels.query, qrels.queries, code_of)
    at = qrels.items.get_indexer(pd.Index(run.items, dtype=object)).astype(np.int64)
    extra = np.flatnonzero(at < 0)  # items no qrels line judges: codes after the qrels'
    at[extra] = len(qrels.items) + np.arange(len(extra))
    run_i = at[run.item]
    score = stored_scores(run.score, settings.trec_eval)

    def tie_key(at: IntArray) -> IntArray:
        return name_ranks(run.items[run.item[at]])

    rows = ranked_rows(run_q, score, None, tie_key, len(chosen), "score", settings.max_results)
    nan = np.full(len(rows), np.nan)
    r = {"start": nan, "end": nan, "score": score[rows], "line": rows + 1, "icode": run_i[rows], "qcode": run_q[rows]}
    keep = np.flatnonzero(qrels_q >= 0)
    q = {**{c: v[keep] for c, v in qrels.columns.items()}, "icode": qrels.item[keep], "qcode": qrels_q[keep]}
    data = assemble(
        chosen,
        np.concatenate([np.asarray(qrels.items, dtype=object), run.items[extra]]),
        r,
        q,
        settings.relevance_level,
    )
    whole = settings.max_results is None  # else each document once is checked on every row
    if not run.unique_pairs and has_duplicates(
        run.query,
        run.item,
        run_q if whole else np.full(len(run_q), -1),
        data.run_columns["gid"] if whole else np.zeros(0, dtype=np.int64),
    ):
        return None  # the table reader words the error
    return data


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
    """A DataFrame (ir_measures' or ranx's columns) or a dict of dicts of scores as codes; else None."""
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
    return TableCodes(q_codes, list(q_names), i_codes, i_names, score, False, np.ones(len(q_names), dtype=bool))


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
    query = np.repeat(np.arange(len(queries), dtype=np.int64), lengths)
    return TableCodes(query, [str(q) for q in queries], i_codes, i_names, score, True, lengths > 0)


def _string_codes(values: npt.NDArray[np.object_]) -> tuple[IntArray, npt.NDArray[np.object_]]:
    """pd.factorize's codes and uniques of ids hashed as strings (-1: not a str), by pandas' private string
    hash table where it has one."""
    try:
        from pandas._libs.hashtable import StringHashTable

        uniques, codes = StringHashTable(min(len(values), 1 << 16)).factorize(values)
    except (ImportError, AttributeError, TypeError, ValueError):
        codes, uniques = pd.factorize(values)
    return np.asarray(codes).astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


def _factorize(values: npt.NDArray[np.object_]) -> tuple[IntArray, npt.NDArray[np.object_]]:
    """pd.factorize's codes and uniques, hashing only the first row of each run of equal values."""
    at = run_starts(values)  # NaN != NaN: each its own run, coded -1
    codes, names = pd.factorize(values[at])
    return np.repeat(codes.astype(np.int64), np.diff(np.append(at, len(values)))), np.asarray(names, dtype=object)
