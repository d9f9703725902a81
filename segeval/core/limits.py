"""The limits of every count a user can pass whose work or memory grows with it, in one place."""

from __future__ import annotations

import os
import re

from segeval.core.domains import HUGE, Domain
from segeval.core.errors import ParameterError

#: name -> (minimum, default maximum, environment variable, why the maximum)
COUNTS: dict[str, tuple[int, int, str, str]] = {
    "permutations": (1, 10_000_000, "SEGEVAL_MAX_PERMUTATIONS", "the bootstrap interval keeps 8 bytes per resample"),
    "samples": (1, 10_000_000, "SEGEVAL_MAX_PERMUTATIONS", "the bootstrap interval keeps 8 bytes per resample"),
    "repeats": (1, 10_000, "SEGEVAL_MAX_REPEATS", "each repeat evaluates every run once per fraction"),
    "top-k": (1, 1_000_000, "SEGEVAL_MAX_TOP_K", "each cut-off is a figure of the output"),
}


def maximum(name: str) -> int:
    """The largest value ``name`` may take: its environment variable, or the default."""
    _, default, variable, _ = COUNTS[name]
    text = os.environ.get(variable)
    if text is None:
        return default
    if not re.fullmatch(r"\s*[0-9]+\s*", text) or int(text) < 1:
        raise ParameterError(
            f"The {variable} environment variable must be an integer >= 1 (default {default}). Got {text!r} instead."
        )
    return int(text)


def check_count(name: str, value: object) -> int:
    """``value`` as an int within ``name``'s limits (:data:`COUNTS`), or a ParameterError."""
    low, _, variable, why = COUNTS[name]
    Domain(low, HUGE, whole=True).check(name, value)
    assert isinstance(value, int)
    high = maximum(name)
    if value > high:
        raise ParameterError(
            f"The '{name}' parameter must be an integer in [{low}, {high}]. Got {value!r} instead "
            f"({variable} raises the limit; {why})."
        )
    return value
