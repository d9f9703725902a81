"""Figures (matplotlib, from the optional ``plot`` extra, imported only when drawing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from segeval.errors import ParameterError, SegevalError

FORMATS = (".png", ".svg")


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SegevalError("plotting needs matplotlib: pip install 'segeval[plot]'") from None
    return plt


def check_output(path: str | Path) -> Path:
    """The output path, if it ends in .png or .svg."""
    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise ParameterError(f"The 'output' parameter must end in .png or .svg. Got {str(path)!r} instead.")
    return out
