"""The one output escaper per format (what each escapes: docs/cli.md, "Output escaping")."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

from segeval.core.errors import ParameterError, printable

#: the environment variable that switches the CSV cells' formula guard off (``raw``) or on (``safe``)
CSV_ENV = "SEGEVAL_CSV"
CSV_MODES = ("safe", "raw")
#: the first characters that make a spreadsheet cell a formula (OWASP, CSV injection)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def terminal(text: str) -> str:
    """``text`` for a terminal: control (but tab and line break) and bidirectional characters as escapes."""
    return "\t".join("\n".join(printable(part) for part in cell.split("\n")) for cell in text.split("\t"))


def csv_mode() -> str:
    """``safe`` (the default) or ``raw``, from ``SEGEVAL_CSV``."""
    mode = os.environ.get(CSV_ENV, "safe").strip().lower() or "safe"
    if mode not in CSV_MODES:
        raise ParameterError(f"The {CSV_ENV} environment variable must be one of 'safe', 'raw'. Got {mode!r} instead.")
    return mode


def scalar(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds, anything else as it is."""
    return value.item() if hasattr(value, "item") and getattr(value, "ndim", None) == 0 else value


def csv_cell(value: Any) -> Any:
    """A CSV cell: a number as it is, a text a spreadsheet would run as a formula (not a number such as ``-5``)
    with a ``'`` in front, None empty."""
    value = scalar(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)  # as the csv module writes it
    if isinstance(value, int | float):
        return value
    text = str(value)
    if text.startswith(FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _safe_row(row: Sequence[Any]) -> str:
    """One CSV line: minimal quoting as the ``csv`` module does, and every guarded cell quoted."""
    cells = []
    for value in row:
        cell = csv_cell(value)
        if isinstance(cell, float):
            cells.append(repr(cell))
        elif isinstance(cell, int):
            cells.append(str(cell))
        elif (cell.startswith("'") and cell[1:].startswith(FORMULA_START)) or any(c in cell for c in ',"\r\n'):
            cells.append(_quoted(cell))
        else:
            cells.append(cell)
    return ",".join(cells) + "\n"


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """The rows (the first one the header) as CSV text, escaped as :data:`CSV_ENV` says."""
    if csv_mode() == "raw":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])
        return buffer.getvalue()
    return "".join(_safe_row(row) for row in rows)


_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "%": r"\%",
}
_LATEX_RE = re.compile(r"[\\{}$&#^_~%]")


def latex(text: str) -> str:
    """``text`` for a LaTeX table cell: special and control characters escaped, line breaks as spaces."""
    return _LATEX_RE.sub(lambda m: _LATEX[m.group()], printable(text.replace("\n", " ")))


_MARKDOWN_RE = re.compile(r"([\\|`]|<(?=[A-Za-z/!?]))")


def markdown(text: str) -> str:
    """``text`` for a Markdown table cell: ``|``, backslash, backtick and a tag's ``<`` escaped, ``_`` and ``*``
    kept."""
    return _MARKDOWN_RE.sub(r"\\\1", printable(text))


def plain(value: Any) -> Any:
    """A JSON value: NumPy scalars as Python numbers, NaN and infinities as None."""
    value = scalar(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "tolist") and getattr(value, "ndim", 1) != 0:  # an array or a pandas column
        return _clean(value.tolist())
    return plain(value)


def json_text(doc: Any, indent: int | None = 1) -> str:
    """``doc`` as JSON text (no trailing newline): NaN and infinities as ``null``, NumPy values as numbers."""
    return json.dumps(_clean(doc), indent=indent, allow_nan=False)
