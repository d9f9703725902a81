"""Reading the whole-file JSON inputs of the moment protocols (DiDeMo, Ego4D NLQ), with errors that name
the file, the record and what was expected."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from segeval.errors import InputError
from segeval.io.aux import read_text


def text_of(path: str | Path, lines: bool = False) -> str:
    """The file's text: any readable file, gunzipped, within the input limits (:func:`segeval.io.aux.read_text`;
    the line length with ``lines``)."""
    return read_text(path, lines=lines)


def load_json(path: str | Path, expected: str) -> Any:
    """One JSON document; ``expected`` says what the file should hold (for the error message)."""
    text = text_of(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        line = text.splitlines()[exc.lineno - 1] if exc.lineno <= len(text.splitlines()) else ""
        raise InputError(str(path), f"is not valid JSON ({exc.msg}, column {exc.colno}); expected {expected}",
                         line=exc.lineno, text=line[max(0, exc.colno - 100):exc.colno + 100]) from None
    except RecursionError:
        raise InputError(str(path), f"is nested too deeply to read; expected {expected}") from None


def load_jsonl(path: str | Path, expected: str) -> list[tuple[int, str, Any]]:
    """JSON Lines: (line number, line, value) for every non-blank line."""
    rows: list[tuple[int, str, Any]] = []
    for number, line in enumerate(text_of(path, lines=True).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, line, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise InputError(str(path), f"is not JSON ({exc.msg}); expected {expected}", line=number,
                             text=line[:200]) from None
        except RecursionError:
            raise InputError(str(path), f"is nested too deeply to read; expected {expected}", line=number,
                             text=line[:200]) from None
    if not rows:
        raise InputError(str(path), f"has no data lines; expected {expected}")
    return rows


def is_number(x: Any) -> bool:
    """A finite JSON number (not a boolean)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def shown(value: Any, width: int = 80) -> str:
    """``value`` as short JSON text for a message."""
    text = json.dumps(value)
    return text if len(text) <= width else text[:width] + "..."


def record_error(path: str | Path, record: str, problem: str) -> InputError:
    """An InputError about one record of a whole-file JSON input (``record`` locates it, e.g. ``results[3]``)."""
    return InputError(str(path), f"{record}: {problem}")
