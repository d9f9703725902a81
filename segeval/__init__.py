"""segeval: evaluation for segment-based multimedia retrieval."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("segeval")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

from segeval.errors import InputError, ParameterError, SegevalError
from segeval.segment import Segment

__all__ = ["InputError", "ParameterError", "SegevalError", "Segment", "__version__", "evaluate"]


def __getattr__(name: str) -> object:
    if name == "evaluate":
        from segeval.pipeline import evaluate

        return evaluate
    raise AttributeError(name)
