"""Tables on standard output in the ``-o text|json|csv`` formats every table-printing command takes."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from segeval.core.errors import check_choice
from segeval.reports.escaping import csv_text, json_text, plain

TABLE_FORMATS = ("text", "json", "csv")

#: a column: its name and the format spec of its values in the text layout
Column = tuple[str, str]


def check_table_format(fmt: str) -> str:
    """``fmt`` when it is a table format, else a ParameterError (before any work)."""
    return check_choice("output", fmt, TABLE_FORMATS)


def render(columns: Sequence[Column], rows: Sequence[Sequence[Any]], fmt: str) -> str:
    """The table: text (tab-separated, a header line, values formatted by the column specs), json (a
    list of objects, full precision, NaN as null) or csv (a header line, full precision, text cells quoted and
    guarded against formulas: :mod:`segeval.reports.escaping`)."""
    names = [name for name, _ in columns]
    if fmt == "json":
        return json_text([dict(zip(names, map(plain, row), strict=True)) for row in rows]) + "\n"
    if fmt == "csv":
        return csv_text([names, *([plain(v) for v in row] for row in rows)])
    lines = ["\t".join(names)]
    lines += ["\t".join(format(v, spec) for v, (_, spec) in zip(row, columns, strict=True)) for row in rows]
    return "".join(line + "\n" for line in lines)


def write(columns: Sequence[Column], rows: Sequence[Sequence[Any]], fmt: str) -> None:
    """:func:`render` on standard output."""
    sys.stdout.write(render(columns, rows, fmt))
