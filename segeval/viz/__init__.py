"""Figures (matplotlib, from the optional ``plot`` extra, imported only when drawing)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from segeval.errors import ParameterError, SegevalError

FORMATS = (".png", ".svg")


def pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SegevalError("plotting needs matplotlib: pip install 'segeval[plot]'") from None
    return plt


def check_output(path: str | Path, inputs: Sequence[str | Path] = ()) -> Path:
    """The output path, if it ends in .png or .svg and can be written (:func:`segeval.output.check_output`:
    its directory exists, it is no directory and none of ``inputs``)."""
    from segeval.output import check_output as check_writable

    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise ParameterError(f"The 'output' parameter must end in .png or .svg. Got {str(path)!r} instead.")
    check_writable(path, inputs)
    return out


def save(fig: Any, output: str | Path) -> None:
    """Write the figure to ``output`` (its format from the suffix) through the one output writer, and close it."""
    from segeval.output import open_output

    try:
        with open_output(output, binary=True) as f:
            fig.savefig(f, format=Path(output).suffix.lower().lstrip("."))
    finally:
        pyplot().close(fig)
