"""Qrels and runs read into DataFrames with fixed columns and dtypes: the fast path
(:mod:`segeval.readers.tokenizer`) reads well-formed files, else the line parser, which defines the syntax."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.core.arrays import BoolArray
from segeval.core.errors import InputError, check_choice
from segeval.readers.files import read_bytes
from segeval.readers.formats import (
    QRELS_FORMATS,
    RUN_FORMATS,
    SOURCE_HUMAN,
    SOURCE_PREDICTED,
    TIME_FORMATS,
    LineFormat,
    detect_qrels_format,
    detect_run_format,
    line_head,
    looks_like_groups,
    with_subtopics,
)
from segeval.readers.line_parser import OnError, decode_line, parse_lines
from segeval.readers.stdlist import NAME as STDLIST
from segeval.readers.stdlist import is_stdlist, starts_stdlist, stdlist_columns
from segeval.readers.strata import STRATA_FORMAT, is_strata_qrels, strata_columns
from segeval.readers.tokenizer import Column, scan_parse

QRELS_COLUMNS = ("query", "item", "start", "end", "rel", "line")
RUN_COLUMNS = ("query", "item", "start", "end", "jumpin", "rank", "score", "run", "line")


def parse_table(
    data: bytes, fmt: LineFormat, path: str, time_format: str = "mmss", on_error: OnError | None = None
) -> dict[str, Column]:
    """Columns of a line-oriented file by field name, and ``line``; text as strings or (fast path) categories."""
    check_choice("time_format", time_format, TIME_FORMATS)
    fast = scan_parse(data, fmt, time_format)
    if fast is not None:
        return fast
    slow = parse_lines(data, fmt, path, time_format, on_error)
    if not slow["line"]:
        raise InputError(path, f"has no data lines; expected {fmt.name} lines such as '{fmt.example}'")
    dtypes = {
        f.name: {"int": np.int64, "time": np.float64, "float": np.float64}.get(f.kind, object) for f in fmt.fields
    }
    return {name: np.asarray(values, dtype=dtypes.get(name, np.int64)) for name, values in slow.items()}


def to_frame(columns: Mapping[str, Column], names: tuple[str, ...], path: str, fmt: str | None = None) -> pd.DataFrame:
    """The table of ``columns`` with columns ``names`` (absent times NaN, absent run tags ''), its ``attrs`` the
    ``path`` and the format's name ``fmt``."""
    n = len(columns["line"])
    frame: dict[str, object] = {name: columns.get(name, np.full(n, "", dtype=object)) for name in names}
    for name in ("start", "end", "jumpin"):
        if name in names:
            frame[name] = np.asarray(columns.get(name, np.full(n, np.nan)), dtype=np.float64)
    df = pd.DataFrame(frame, copy=False)  # the arrays are fresh: no need to copy them into blocks
    for name in ("query", "item", "run"):  # strings (object, not pandas' str), or categories in code-point order
        if name in df and not isinstance(df[name].dtype, pd.CategoricalDtype):
            df[name] = df[name].astype(object)
    df.attrs["path"] = path
    if fmt is not None:
        df.attrs["format"] = fmt
    return df


def ranks_by_score(query: npt.NDArray[Any], score: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """1-based rank of each row within its query by score, descending; equal scores keep their order."""
    ranks = pd.Series(-score).groupby(pd.factorize(query)[0]).rank(method="first")
    return ranks.to_numpy(dtype=np.int64)


def stdlist_frame(data: bytes, path: str) -> pd.DataFrame:
    """The run table of an STD list (:mod:`segeval.readers.stdlist`), ranked by score, with a ``decision`` column."""
    columns = stdlist_columns(data, path)
    columns["rank"] = ranks_by_score(columns["query"], columns["score"])
    return to_frame(columns, (*RUN_COLUMNS, "decision"), path, STDLIST)


GROUPS_EXAMPLE = "q1 1,2 | 3,4,5"
_BLANKS = " \t\n\r\x0b\x0c"


def parse_groups(data: bytes, path: str) -> dict[str, npt.NDArray[np.generic]]:
    """A groups file (``q1 1,2 | 3,4``) as qrels: with g groups, the first group's items get grade g, the last 1."""
    rows: list[tuple[str, str, int, int]] = []
    seen_queries: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = decode_line(raw, number, path).rstrip("\r")
        line = text.strip(_BLANKS)  # ASCII white space only, as every line reader: U+2028 may be in an item
        if not line:
            continue
        query, _, rest = line.partition(" ") if " " in line else line.partition("\t")
        groups = [[item.strip(_BLANKS) for item in group.split(",")] for group in rest.split("|")]
        items = [item for group in groups for item in group]
        if not rest.strip(_BLANKS) or any(not item or any(c in _BLANKS for c in item) for item in items):
            problem = (
                f"expected a query id, then groups of items such as '{GROUPS_EXAMPLE}' "
                f"(items separated by commas, groups by '|', no empty item)"
            )
        elif query in seen_queries:
            problem = (
                f"query '{query}' appears again (first on line {seen_queries[query]}); expected one line per query"
            )
        elif len(set(items)) != len(items):
            duplicate = next(item for item in items if items.count(item) > 1)
            problem = f"item '{duplicate}' is in the ground truth twice; expected each item once"
        else:
            problem = ""
        if problem:
            raise InputError(path, problem, line=number, text=text)
        seen_queries[query] = number
        rows += [(query, item, len(groups) - at, number) for at, group in enumerate(groups) for item in group]
    if not rows:
        raise InputError(path, f"has no data lines; expected ground-truth groups such as '{GROUPS_EXAMPLE}'")
    dtypes = {"query": object, "item": object, "rel": np.int64, "line": np.int64}
    return {
        name: np.asarray(values, dtype=dtypes[name])
        for name, values in zip(dtypes, zip(*rows, strict=True), strict=True)
    }


def read_qrels(
    path: str | Path,
    fmt: LineFormat | str = "auto",
    time_format: str = "mmss",
    on_error: OnError | None = None,
    subtopics: bool = False,
) -> pd.DataFrame:
    """A qrels file's table (:data:`QRELS_COLUMNS`; times NaN for documents); ``fmt``: a :class:`LineFormat`, a
    name of :data:`QRELS_FORMATS`, ``"groups"`` or ``"auto"``; ``subtopics``: keep TREC's second field."""
    name = str(path)

    def read(data: bytes, whole: bool = False) -> pd.DataFrame:
        if fmt == "auto" and is_strata_qrels(data):  # stratified qrels (sampled judgements): 5 fields, integers
            return to_frame(strata_columns(data, name, on_error), (*QRELS_COLUMNS, "stratum"), name, STRATA_FORMAT)
        if fmt == "groups" or (fmt == "auto" and looks_like_groups(data, name)):
            return to_frame(parse_groups(data, name), QRELS_COLUMNS, name, "groups")
        found = fmt if isinstance(fmt, LineFormat) else QRELS_FORMATS[fmt] if fmt != "auto" else None
        found = found or detect_qrels_format(data, name)
        kept = with_subtopics(found) if subtopics else found
        columns = parse_table(data, kept, name, time_format, on_error)
        df = to_frame(columns, QRELS_COLUMNS, name, found.name)
        if kept is not found:
            df["subtopic"] = subtopic_column(columns["subtopic"])
        if whole and "source" in columns:  # checked once every line has parsed (not in the first lines alone)
            df["source"] = _check_sources(columns, data, name)
        return df

    # a stream whose first lines cannot be valid is refused there, not read whole first
    return read(read_bytes(path, head=None if on_error else line_head(read)), whole=True)


def subtopic_column(values: object) -> pd.Categorical:
    """Subtopic names as categories in order of first appearance (pyndeval's numbering, and so its sums)."""
    names = np.asarray(values, dtype=object).astype(str).astype(object)
    return pd.Categorical(names, categories=pd.unique(names))


def _check_sources(columns: Mapping[str, Column], data: bytes, path: str) -> npt.NDArray[np.object_]:
    """The ``source`` field of completed qrels: ``human`` or ``predicted:CLASSIFIER``."""
    sources, lines = np.asarray(columns["source"], dtype=object), np.asarray(columns["line"])
    for token in pd.unique(sources):
        text = str(token)
        if text != SOURCE_HUMAN and not (text.startswith(SOURCE_PREDICTED) and len(text) > len(SOURCE_PREDICTED)):
            number = int(lines[np.flatnonzero(sources == token)[0]])
            raw = data.split(b"\n")[number - 1].rstrip(b"\r").decode("utf-8", "replace")
            why = f"expected '{SOURCE_HUMAN}' or '{SOURCE_PREDICTED}CLASSIFIER' as the last field of completed qrels"
            raise InputError(path, f"has source '{text}'; {why}", line=number, text=raw)
    return sources


def predicted_mask(qrels: pd.DataFrame) -> BoolArray:
    """Per qrels line: judged by a classifier (``predicted:...`` in completed qrels), not by a person."""
    if "source" not in qrels:
        return np.zeros(len(qrels), dtype=bool)
    return np.asarray(qrels["source"].astype(str).str.startswith(SOURCE_PREDICTED).to_numpy(), dtype=bool)


def read_run(
    path: str | Path, fmt: LineFormat | str = "auto", time_format: str = "mmss", on_error: OnError | None = None
) -> pd.DataFrame:
    """A run's table (:data:`RUN_COLUMNS`); ``fmt``: a :class:`LineFormat`, a name of :data:`RUN_FORMATS`,
    ``"stdlist"`` (XML, with a ``decision`` column) or ``"auto"``; ``on_error`` takes bad lines instead of raising."""
    name = str(path)

    def read(data: bytes, whole: bool = False) -> pd.DataFrame | None:
        if fmt == "stdlist" or (fmt == "auto" and is_stdlist(data)):  # XML: read whole, not by its first lines
            return stdlist_frame(data, name) if whole else None
        found = fmt if isinstance(fmt, LineFormat) else RUN_FORMATS[fmt] if fmt != "auto" else None
        found = found or detect_run_format(data, name, time_format)
        return to_frame(parse_table(data, found, name, time_format, on_error), RUN_COLUMNS, name, found.name)

    # a stream whose first lines cannot be valid is refused there; an STD list may be one long line
    lines = not (fmt == "stdlist" or (fmt == "auto" and starts_stdlist(path)))
    df = read(read_bytes(path, lines=lines, head=None if on_error else line_head(read)), whole=True)
    assert df is not None
    return df
