"""segeval: evaluation for segment-based multimedia retrieval."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

from segeval.core.errors import InputError as InputError
from segeval.core.errors import ParameterError as ParameterError
from segeval.core.errors import SegevalError as SegevalError
from segeval.core.settings import EngineOptions as EngineOptions
from segeval.core.settings import Settings as Settings

if TYPE_CHECKING:  # for type checkers: the names __getattr__ loads
    from segeval.adapters.registry import make_adapter as make_adapter
    from segeval.api import compare as compare
    from segeval.api import correlate as correlate
    from segeval.core.pipeline import Evaluation as Evaluation
    from segeval.core.pipeline import Evaluator as Evaluator
    from segeval.core.pipeline import evaluate as evaluate
    from segeval.core.segment import Segment as Segment
    from segeval.measures.runtime import measure as measure

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
__all__ = sorted(["EngineOptions", "InputError", "ParameterError", "SegevalError", "Settings", "__version__", *_LAZY])


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'segeval' has no attribute {name!r}")
