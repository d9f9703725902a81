"""The aggregate stage: one value per measure over the evaluated queries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segeval.measures.registry import Aggregate


def aggregate(values: Sequence[Any], how: Aggregate) -> Any:
    """``sum`` or ``mean`` (0 for no queries), added left to right as the reference does."""
    if how == "none":
        return None
    total: Any = 0
    for v in values:
        total += v
    if how == "sum":
        return total
    return total / float(len(values)) if values else 0.0
