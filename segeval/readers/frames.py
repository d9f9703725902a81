"""Qrels and runs given in memory (the forms of docs/api.md), turned into the tables the file readers make;
row numbers stand in for line numbers, anything else is a :class:`~segeval.core.errors.ParameterError`."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from segeval.core.errors import ParameterError, shown
from segeval.core.segment import Segment
from segeval.core.settings import DEFAULTS
from segeval.readers.tables import (
    QRELS_COLUMNS,
    RUN_COLUMNS,
    ranks_by_score,
    read_qrels,
    read_run,
    subtopic_column,
    to_frame,
)

QUERY_COLUMNS = ("query", "query_id", "q_id", "qid")
ITEM_COLUMNS = ("item", "doc_id", "docno", "docid", "video")
GRADE_COLUMNS = ("rel", "relevance", "label", "score")  # PyTerrier calls the qrels grade 'label', ranx 'score'
SPACE = re.compile(r"\s")  # the characters str.isspace() calls white space
ACCEPTED = (
    "a file path, a DataFrame (columns query_id or q_id, doc_id or video/start/end, and relevance for "
    "qrels, score and/or rank for runs), a dict {query: {doc: value}}, ir_measures records or a ranx "
    "Qrels/Run"
)


def load_qrels(
    source: object, fmt: str = "auto", time_format: str = DEFAULTS.time_format, subtopics: bool = False
) -> pd.DataFrame:
    """Qrels from a file path or any shape this module accepts; ``subtopics``: with the ``subtopic`` column."""
    if isinstance(source, str | os.PathLike):
        return read_qrels(os.fspath(source), fmt, time_format, subtopics=subtopics)
    return qrels_frame(source, subtopics)


def load_run(source: object, fmt: str = "auto", time_format: str = DEFAULTS.time_format) -> pd.DataFrame:
    """A run from a file path or from any shape this module accepts."""
    if isinstance(source, str | os.PathLike):
        return read_run(os.fspath(source), fmt, time_format)
    return run_frame(source)


#: a table's subtopic column (segeval's, ir_measures' ``iteration``), read for the diversity measures only
SUBTOPIC_COLUMNS = ("subtopic", "iteration")


def qrels_frame(source: object, subtopics: bool = False) -> pd.DataFrame:
    """Qrels in any accepted shape as :func:`segeval.readers.tables.read_qrels` gives them."""
    table = _table(source, "qrels")
    if set(QRELS_COLUMNS) <= set(table.columns):
        return table if subtopics or "subtopic" not in table.columns else table.drop(columns="subtopic")
    columns = _keys(table, "qrels", ids=_categories)
    grade = _column(
        table, GRADE_COLUMNS, "qrels", "a relevance column (relevance, rel, PyTerrier's label or ranx's score)"
    )
    out = to_frame({**columns, "rel": _integers(table[grade], "qrels")}, QRELS_COLUMNS, "<qrels>")
    if "source" in table.columns:  # completed qrels
        out["source"] = table["source"].astype(str).to_numpy(dtype=object)
    found = next((c for c in SUBTOPIC_COLUMNS if c in table.columns), None) if subtopics else None
    if found is not None:
        out["subtopic"] = subtopic_column(table[found].to_numpy(dtype=object))
    return out


def run_frame(source: object) -> pd.DataFrame:
    """A run in any accepted shape as :func:`segeval.readers.tables.read_run` gives it."""
    table = _table(source, "run")
    if set(RUN_COLUMNS) <= set(table.columns):
        return table
    columns = _keys(table, "run")
    if "score" not in table.columns and "rank" not in table.columns:
        raise ParameterError(
            f"The 'run' parameter must have a score or a rank column. Got columns "
            f"{list(table.columns)} instead; expected {ACCEPTED}."
        )
    score = _numbers(table["score"], "run") if "score" in table.columns else None
    rank = _integers(table["rank"], "run") if "rank" in table.columns else None
    if rank is None:
        assert score is not None
        rank = ranks_by_score(columns["query"], score)
    if score is None:
        score = -rank.astype(np.float64)
    tag = str(getattr(source, "name", "") or "")
    run = table["run"].astype(str).to_numpy(dtype=object) if "run" in table.columns else np.full(len(table), tag)
    return to_frame({**columns, "rank": rank, "score": score, "run": run}, RUN_COLUMNS, "<run>")


def _given(source: object) -> str:
    return f"{type(source).__name__} {shown(source, 60)}"


def _table(source: object, what: str) -> pd.DataFrame:
    """Any accepted shape as a DataFrame with its own column names."""
    if isinstance(source, pd.DataFrame):
        table = source
    elif isinstance(source, Mapping):
        table = _from_dicts(source, what)
    elif callable(getattr(source, "to_dataframe", None)):  # ranx
        table = source.to_dataframe()  # type: ignore[attr-defined]
        if not isinstance(table, pd.DataFrame):
            raise ParameterError(
                f"The '{what}' parameter's to_dataframe() must give a DataFrame. Got {type(table).__name__} instead."
            )
    elif callable(getattr(source, "to_dict", None)):
        return _table(source.to_dict(), what)  # type: ignore[attr-defined]
    elif isinstance(source, Iterable) and not isinstance(source, str | bytes):
        records = list(source)
        if all(hasattr(r, "_asdict") for r in records):  # named tuples (ir_measures, ir_datasets)
            records = [r._asdict() for r in records]
        if not all(isinstance(r, Mapping) for r in records):
            raise ParameterError(f"The '{what}' parameter must be {ACCEPTED}. Got {_given(source)} instead.")
        table = pd.DataFrame(records)
    else:
        raise ParameterError(f"The '{what}' parameter must be {ACCEPTED}. Got {_given(source)} instead.")
    if len(table) == 0:
        raise ParameterError(f"The '{what}' parameter must hold at least one row. Got an empty table instead.")
    return table


def _from_dicts(source: Mapping[Any, Any], what: str) -> pd.DataFrame:
    value = "relevance" if what == "qrels" else "score"
    inners = list(source.values())
    if all(isinstance(inner, Mapping) for inner in inners) and not any(
        issubclass(t, tuple | Segment) for inner in inners for t in set(map(type, inner))
    ):
        # documents only (the common case): whole columns at once
        return pd.DataFrame(
            {
                "query": np.repeat(np.array(list(source), dtype=object), [len(i) for i in inners]),
                "doc_id": list(chain.from_iterable(inners)),
                value: list(chain.from_iterable(i.values() for i in inners)),
            }
        )
    rows: list[tuple[Any, ...]] = []
    segments: bool | None = None
    for query, inner in source.items():
        if not isinstance(inner, Mapping):
            raise ParameterError(
                f"The '{what}' parameter must map each query to a dict {{doc: {value}}}. Got "
                f"{_given(inner)} for query {shown(query)} instead."
            )
        for key, v in inner.items():
            if isinstance(key, Segment):
                key = (key.video, key.start, key.end)
            segment = isinstance(key, tuple)
            if segment and len(key) != 3:
                raise ParameterError(
                    f"The '{what}' parameter's segment keys must be Segment objects or (video, "
                    f"start, end) tuples. Got {shown(key)} for query {shown(query)} instead."
                )
            if segments is not None and segment != segments:
                raise ParameterError(
                    f"The '{what}' parameter must hold documents or segments, not both. Got "
                    f"{shown(key)} for query {shown(query)} after keys of the other kind."
                )
            segments = segment
            rows.append((query, *key, v) if segment else (query, key, v))
    columns = ["query", "video", "start", "end", value] if segments else ["query", "doc_id", value]
    return pd.DataFrame(rows, columns=columns)


def _column(table: pd.DataFrame, names: tuple[str, ...], what: str, expected: str) -> str:
    for name in names:
        if name in table.columns:
            return name
    raise ParameterError(
        f"The '{what}' parameter must have {expected}. Got columns {list(table.columns)} instead; expected {ACCEPTED}."
    )


def _keys(table: pd.DataFrame, what: str, ids: Callable[[pd.Series, str], Any] | None = None) -> dict[str, Any]:
    """Columns query, item (``ids``: strings, or :func:`_categories`), start, end (NaN for documents) and line."""
    ids = ids or _strings
    query = ids(table[_column(table, QUERY_COLUMNS, what, "a query column (query_id, q_id, query or qid)")], what)
    item_name = _column(table, ITEM_COLUMNS, what, "an item column (doc_id, docno, item, or video with start and end)")
    item = ids(table[item_name], what)
    if "start" in table.columns and "end" in table.columns:
        start, end = _numbers(table["start"], what), _numbers(table["end"], what)
    elif "start" in table.columns or "end" in table.columns or item_name == "video":
        raise ParameterError(
            f"The '{what}' parameter must have both start and end columns for segments. Got "
            f"columns {list(table.columns)} instead."
        )
    else:
        start = end = np.full(len(table), np.nan)
    return {"query": query, "item": item, "start": start, "end": end, "line": np.arange(1, len(table) + 1)}


def _bad(column: pd.Series, position: int, what: str, expected: str) -> ParameterError:
    value = column.iloc[position]
    value = value.item() if isinstance(value, np.generic) else value  # 0.5, not np.float64(0.5)
    return ParameterError(
        f"The '{what}' parameter's {column.name} column must hold {expected}. Got "
        f"{shown(value)} in row {position + 1} instead."
    )


def _strings(column: pd.Series, what: str) -> np.ndarray[Any, Any]:
    return _checked_ids(column, what)[0]


def _categories(column: pd.Series, what: str) -> pd.Categorical:
    """The ids as a Categorical with categories in code-point order (as the file readers give them)."""
    codes, distinct = _checked_ids(column, what)[1]
    order = np.argsort(distinct)  # str comparison: code-point order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return pd.Categorical.from_codes(rank[codes], categories=pd.Index(distinct[order], dtype=object), validate=False)


def _checked_ids(column: pd.Series, what: str) -> tuple[np.ndarray[Any, Any], tuple[np.ndarray[Any, Any], Any]]:
    """The ids as strings, and their (codes, distinct ids); ParameterError for a missing, empty or spaced id."""
    missing = np.flatnonzero(column.isna().to_numpy())
    if len(missing):
        raise ParameterError(
            f"The '{what}' parameter's {column.name} column must hold an id on every row. Got a "
            f"missing value in row {int(missing[0]) + 1} instead."
        )
    values = column.astype(str).to_numpy(dtype=object)
    codes, distinct = pd.factorize(values)
    distinct = np.asarray(distinct, dtype=object)
    bad = {v for v in distinct.tolist() if not v or SPACE.search(v)}  # each distinct id checked once
    if bad:
        raise _bad(column, int(np.flatnonzero([v in bad for v in values])[0]), what, "ids without white space")
    return values, (codes, distinct)


def _numbers(column: pd.Series, what: str) -> np.ndarray[Any, Any]:
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise _bad(column, int(bad[0]), what, "finite numbers")
    return values


def _integers(column: pd.Series, what: str) -> np.ndarray[Any, Any]:
    values = _numbers(column, what)
    bad = np.flatnonzero(values != np.round(values))
    if len(bad):
        raise _bad(column, int(bad[0]), what, "integers")
    return values.astype(np.int64)


def check_segment_columns(qrels: object, run: object) -> None:
    """A ParameterError when a run given in memory has segments and the qrels given in memory have none."""
    got = {name: _columns(x) for name, x in (("qrels", qrels), ("run", run))}
    if {"start", "end"} <= got["run"] and not {"start", "end"} <= got["qrels"] and got["qrels"]:
        raise ParameterError(
            f"The 'qrels' parameter needs start and end columns: the run is a segment run (columns "
            f"{sorted(got['run'])}). Got columns {sorted(got['qrels'])} instead."
        )


def _columns(source: object) -> set[str]:
    """The columns of a DataFrame or of a list of records (dicts or named tuples); empty for anything else."""
    if isinstance(source, pd.DataFrame):
        return set(map(str, source.columns))
    if isinstance(source, list | tuple) and source:
        first = source[0]
        fields = first.keys() if isinstance(first, Mapping) else getattr(first, "_fields", ())
        return set(map(str, fields))
    return set()
