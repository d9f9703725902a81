"""Tables on standard output in the ``-o text|json|csv`` formats every table-printing command takes."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from segeval.errors import check_choice

TABLE_FORMATS = ("text", "json", "csv")

#: a column: its name and the format spec of its values in the text layout
Column = tuple[str, str]


def check_table_format(fmt: str) -> str:
    """``fmt`` when it is a table format, else a ParameterError (before any work)."""
    return check_choice("output", fmt, TABLE_FORMATS)


def _plain(value: Any) -> Any:
    """A JSON value: NumPy scalars as Python numbers, NaN as null."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def render(columns: Sequence[Column], rows: Sequence[Sequence[Any]], fmt: str) -> str:
    """The table: text (tab-separated, a header line, values formatted by the column specs), json (a
    list of objects, full precision) or csv (a header line, full precision)."""
    names = [name for name, _ in columns]
    if fmt == "json":
        return json.dumps([dict(zip(names, map(_plain, row), strict=True)) for row in rows], indent=1) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([[_plain(v) for v in row] for row in rows])
        return buffer.getvalue()
    lines = ["\t".join(names)]
    lines += ["\t".join(format(v, spec) for v, (_, spec) in zip(row, columns, strict=True)) for row in rows]
    return "".join(line + "\n" for line in lines)


def write(columns: Sequence[Column], rows: Sequence[Sequence[Any]], fmt: str) -> None:
    """:func:`render` on standard output."""
    sys.stdout.write(render(columns, rows, fmt))
