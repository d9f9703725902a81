"""segeval: evaluation for segment-based multimedia retrieval."""

__version__ = "0.1.0"

from segeval.errors import InputError, ParameterError, SegevalError
from segeval.segment import Segment

__all__ = ["InputError", "ParameterError", "SegevalError", "Segment", "__version__", "evaluate"]


def __getattr__(name: str) -> object:
    if name == "evaluate":
        from segeval.pipeline import evaluate

        return evaluate
    raise AttributeError(name)
