"""``segeval mr -o text``: the headline figures as an aligned two-column table."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from segeval.core.errors import printable


def _value(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float | int) and not isinstance(value, bool):
        return repr(value)  # the official rounding is already applied: shown as the official JSON has it
    return json.dumps(value, ensure_ascii=False)


def figure_table(figures: Mapping[str, Any]) -> str:
    """One line per figure, ``name  value``, names padded to one width; None as ``n/a``."""
    names = [printable(str(k)) for k in figures]
    width = max((len(n) for n in names), default=0)
    return "".join(f"{n.ljust(width)}  {_value(v)}\n" for n, v in zip(names, figures.values(), strict=True))
