"""segeval: evaluation for segment-based multimedia retrieval."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

from segeval.core.errors import InputError, ParameterError, SegevalError
from segeval.core.settings import EngineOptions, Settings

if TYPE_CHECKING:
    from segeval.adapters.registry import make_adapter
    from segeval.api import compare, correlate
    from segeval.core.pipeline import Evaluation, Evaluator, evaluate
    from segeval.core.segment import Segment
    from segeval.measures.runtime import measure

__all__ = [
    "EngineOptions",
    "Evaluation",
    "Evaluator",
    "InputError",
    "ParameterError",
    "SegevalError",
    "Segment",
    "Settings",
    "__version__",
    "compare",
    "correlate",
    "evaluate",
    "make_adapter",
    "measure",
]

_LAZY = {
    "evaluate": "segeval.core.pipeline",
    "Evaluator": "segeval.core.pipeline",
    "Evaluation": "segeval.core.pipeline",
    "compare": "segeval.api",
    "correlate": "segeval.api",
    "make_adapter": "segeval.adapters.registry",
    "Segment": "segeval.core.segment",
    "measure": "segeval.measures.runtime",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'segeval' has no attribute {name!r}")
