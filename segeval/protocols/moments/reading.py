"""Reading the whole-file JSON inputs of the moment protocols (DiDeMo, Ego4D NLQ), with errors that name
the file, the record and what was expected, and the number test every protocol's reader applies."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.errors import InputError
from segeval.readers.files import read_text
from segeval.readers.json_records import document_head, lines, load_document, load_line, record_head


def load_json(path: str | Path, expected: str) -> Any:
    """One JSON document; ``expected`` says what the file should hold (for the error message).  A stream
    whose start cannot be JSON stops there."""
    return load_document(str(path), read_text(path, head=document_head(str(path), expected)), expected)


def load_jsonl(path: str | Path, expected: str) -> list[tuple[int, str, Any]]:
    """JSON Lines: (line number, line, value) for every non-blank line (split on ``\n`` only, duplicate
    keys refused: :mod:`segeval.readers.json_records`).  A stream whose first record is bad stops there."""

    def record(number: int, line: str) -> Any:
        return load_line(str(path), number, line, expected)

    rows: list[tuple[int, str, Any]] = []
    for number, line in lines(read_text(path, lines=True, head=record_head(record))):
        if line.strip():
            rows.append((number, line, record(number, line)))
    if not rows:
        raise InputError(str(path), f"has no data lines; expected {expected}")
    return rows


def is_number(x: Any) -> bool:
    """A finite JSON number (not a boolean; json_records bounds integers to 18 digits)."""
    return not isinstance(x, bool) and isinstance(x, int | float) and math.isfinite(x)


def shown(value: Any, width: int = 80) -> str:
    """``value`` as short JSON text for a message."""
    text = json.dumps(value)
    return text if len(text) <= width else text[:width] + "..."


def record_error(path: str | Path, record: str, problem: str) -> InputError:
    """An InputError about one record of a whole-file JSON input (``record`` locates it, e.g. ``results[3]``)."""
    return InputError(str(path), f"{record}: {problem}")


def reversed_notes(truth: Mapping[Any, Any], predictions: Mapping[Any, Any], how: str) -> list[str]:
    """A note counting the windows (rows of start, end, ...; or one window per query) with end < start,
    predicted and in the ground truth, saying ``how`` they are evaluated; none without such a window."""
    counts = [
        sum(int((w[:, 1] < w[:, 0]).sum()) for w in map(np.atleast_2d, side.values()) if w.size)
        for side in (predictions, truth)
    ]
    return (
        [f"{counts[0]} predicted and {counts[1]} ground-truth windows have end < start; {how}"] if any(counts) else []
    )
