"""The aggregate stage: one value per measure over the evaluated queries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from segeval.measures.declaration import Aggregate

GM_FLOOR = 1e-5  # trec_eval's floor for geometric means


def aggregate(values: Sequence[Any], how: Aggregate) -> Any:
    """``sum``, ``mean``, ``gm`` or ``pooled``, added left to right in query order as trec_eval adds."""
    if how == "none":
        return None
    if how == "pooled":
        return values[0].pool(values) if values else math.nan
    if how == "gm":
        if not values:
            return 0.0
        logs = 0.0
        for v in values:
            logs += math.log(max(float(v), GM_FLOOR))
        return math.exp(logs / len(values))
    total: Any = 0
    for v in values:
        total += v
    if how == "sum":
        return total
    return total / float(len(values)) if values else 0.0
