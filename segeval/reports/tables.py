"""The one table writer: every command's table in ``-o text|json|csv`` (and ``markdown``, ``latex`` where tables
are compared); each format, its rounding and non-finite values are docs/cli.md, "Output formats"."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from segeval.core.errors import check_choice
from segeval.reports.escaping import csv_text, json_text, latex, markdown, plain, scalar

TABLE_FORMATS = ("text", "json", "csv")
#: a text cell's rounding when its column declares no format: six significant digits, written as the
#: shortest float that reads back (``0.9``, ``5.0``, ``0.333333``)
DIGITS = ".6g"

#: the summary row of a mean AP averaged again (over tIoU thresholds or tolerances): one name in every command
#: (``detect`` on every protocol, ``spot``), ActivityNet's and SoccerNet's own; its class cell is empty (all classes)
AVERAGE_MAP = "Average-mAP"

#: a column: its name and the format spec of its numbers in the human formats ('' = :data:`DIGITS`)
Column = tuple[str, str]


def check_table_format(fmt: str) -> str:
    """``fmt`` when it is a table format, else a ParameterError (before any work)."""
    return check_choice("output", fmt, TABLE_FORMATS)


def cell_text(value: Any, spec: str = "") -> str:
    """A human cell: a float rounded by ``spec`` (default :data:`DIGITS`), non-finite as ``nan``/``inf``/``-inf``."""
    value = scalar(value)
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and spec:
        return format(value, spec)
    return repr(float(format(value, DIGITS))) if isinstance(value, float) else str(value)


def _records(columns: Sequence[Column], rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    return [dict(zip([name for name, _ in columns], map(plain, row), strict=True)) for row in rows]


class Latex(str):
    """A LaTeX cell or caption already written as markup: written as it is."""


def render(columns: Sequence[Column], rows: Sequence[Sequence[Any]], fmt: str, caption: Latex | None = None) -> str:
    """The table in ``fmt`` (text, json, csv, markdown, latex), as the module says; in LaTeX the columns of plain
    text cells before the first other one are left-aligned, and a ``caption`` puts the tabular in a ``table``."""
    names = [name for name, _ in columns]
    if fmt == "json":
        return json_text(_records(columns, rows)) + "\n"
    if fmt == "csv":
        return csv_text([names, *rows])
    cells = [[cell_text(v, spec) for v, (_, spec) in zip(row, columns, strict=True)] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(markdown(c) for c in row) + " |" for row in [names, *cells]]
        return "\n".join([lines[0], "|" + "---|" * len(names), *lines[1:]]) + "\n"
    if fmt == "latex":
        body = [
            " & ".join(v if isinstance(v, Latex) else latex(c) for v, c in zip(row, text, strict=True)) + r" \\"
            for row, text in zip(rows, cells, strict=True)
        ]
        left = next(
            (
                i
                for i in range(1, len(names))
                if any(not isinstance(r[i], str) or isinstance(r[i], Latex) for r in rows)
            ),
            len(names),
        )
        table = [
            r"\begin{tabular}{" + "l" * left + "r" * (len(names) - left) + "}",
            r"\toprule",
            " & ".join(latex(n) for n in names) + r" \\",
            r"\midrule",
            *body,
            r"\bottomrule",
            r"\end{tabular}",
        ]
        if caption is not None:
            table = [r"\begin{table}[ht]", r"\centering", rf"\caption{{{caption}}}", *table, r"\end{table}"]
        return "\n".join(table) + "\n"
    return "".join("\t".join(row) + "\n" for row in [names, *cells])


def write(columns: Sequence[Column], rows: Sequence[Sequence[Any]], fmt: str) -> None:
    """:func:`render` on standard output."""
    sys.stdout.write(render(columns, rows, fmt))


def write_many(named: dict[str, tuple[Sequence[Column], Sequence[Sequence[Any]]]], fmt: str) -> None:
    """Several tables on standard output: in JSON one object of them by name, else separated by an empty line."""
    if fmt == "json":
        sys.stdout.write(json_text({name: _records(c, r) for name, (c, r) in named.items()}) + "\n")
    else:
        sys.stdout.write("\n".join(render(c, r, fmt) for c, r in named.values()))
