"""Reading the moment protocols' JSON inputs, with errors that name the file, the record and what was expected."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.readers.files import read_text
from segeval.readers.json_records import document_head, lines, load_document, record_head


def load_json(path: str | Path, expected: str, what: str = "valid JSON") -> Any:
    """One JSON document; ``expected`` says what the file should hold (for the error message)."""
    head = document_head(str(path), expected, what=what)
    return load_document(str(path), read_text(path, head=head), expected, what=what)


def load_jsonl(
    path: str | Path, expected: str, record: Callable[[int, str], Any] | None = None
) -> list[tuple[int, str, Any]]:
    """JSON Lines: (line number, line, value) of every non-blank line; ``record`` reads and checks one line
    (by default any JSON value: :mod:`segeval.readers.json_records`)."""

    def value(number: int, line: str) -> Any:
        return load_document(str(path), line, expected, number=number)

    check = record or value
    rows = [
        (number, line, check(number, line))
        for number, line in lines(read_text(path, lines=True, head=record_head(check)))
        if line.strip()
    ]
    if not rows:
        raise InputError(str(path), f"has no data lines; expected {expected}")
    return rows


def is_number(x: Any) -> bool:
    """A finite JSON number (not a boolean; json_records bounds integers to 18 digits)."""
    return not isinstance(x, bool) and isinstance(x, int | float) and math.isfinite(x)


def as_windows(value: Any, width: int) -> FloatArray | None:
    """``value`` as (n, ``width``) floats when it is a list of lists of ``width`` finite numbers, else None."""
    if not (isinstance(value, list) and set(map(type, value)) <= {list} and set(map(len, value)) <= {width}):
        return None
    if not set(map(type, chain.from_iterable(value))) <= {int, float}:
        return None
    try:
        windows = np.array(value, dtype=np.float64).reshape(-1, width)
    except OverflowError:  # an integer beyond the float range
        return None
    return windows if np.isfinite(windows).all() else None


def shown(value: Any, width: int = 80) -> str:
    """``value`` as short JSON text for a message."""
    text = json.dumps(value)
    return text if len(text) <= width else text[:width] + "..."


def record_error(path: str | Path, record: str, problem: str) -> InputError:
    """An InputError about one record of a whole-file JSON input (``record`` locates it, e.g. ``results[3]``)."""
    return InputError(str(path), f"{record}: {problem}")


def line_error(path: str | Path, number: int, text: str, problem: str) -> InputError:
    """An InputError about line ``number`` of ``path``, showing its first 200 characters."""
    return InputError(str(path), problem, line=number, text=text[:200])


def reversed_notes(truth: Mapping[Any, Any], predictions: Mapping[Any, Any], how: str) -> list[str]:
    """A note counting the predicted and ground-truth windows with end < start, saying ``how`` they are
    evaluated; none without such a window."""
    counts = [
        sum(int((w[:, 1] < w[:, 0]).sum()) for w in map(np.atleast_2d, side.values()) if w.size)
        for side in (predictions, truth)
    ]
    return (
        [f"{counts[0]} predicted and {counts[1]} ground-truth windows have end < start; {how}"] if any(counts) else []
    )
