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


def load_jsonl(path: str | Path, keys: tuple[str, ...], expected: str) -> list[tuple[int, str, dict[str, Any]]]:
    """JSON Lines of objects: (line number, line, object) of every non-blank line, each object with ``keys``;
    ``expected`` says what a line holds (for the error message; :mod:`segeval.readers.json_records`)."""
    name = str(path)

    def record(number: int, line: str) -> dict[str, Any]:
        """One line's object (the check of a stream's first record too)."""
        row = load_document(
            name, line, expected, what="a JSON object", number=number, flat="one flat JSON object per line"
        )
        if not isinstance(row, dict):
            raise line_error(name, number, line, f"is not a JSON object; expected {expected}")
        missing = [k for k in keys if k not in row]
        if missing:
            raise line_error(name, number, line, f"has no {', '.join(map(repr, missing))}; expected {expected}")
        return row

    rows = [
        (number, line, record(number, line))
        for number, line in lines(read_text(path, lines=True, head=record_head(record)))
        if line.strip()
    ]
    if not rows:
        raise InputError(name, f"has no data lines; expected {expected}")
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


def windows(value: Any, width: int, key: str, error: Callable[[str], InputError]) -> FloatArray:
    """``value`` as (n, ``width``) floats (:func:`as_windows`), else ``error(problem)``: the one refusal of a list of
    windows, naming ``key`` and the first window that is not ``width`` finite numbers."""
    found = as_windows(value, width)
    if found is not None:
        return found
    shape = "[start, end, score]" if width == 3 else "[start, end]"
    if not isinstance(value, list):
        raise error(f"'{key}' is {shown(value)}; expected a list of {shape} windows")
    bad = next(w for w in value if not (isinstance(w, list) and len(w) == width and all(map(is_number, w))))
    raise error(f"'{key}' has the window {shown(bad)}; expected every window as {shape} with {width} finite numbers")


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
