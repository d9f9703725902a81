"""Figures (matplotlib, optional; docs/cli.md, "Output escaping")."""

from __future__ import annotations

import io
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from segeval.core.errors import ParameterError, SegevalError, printable

FORMATS = (".png", ".svg")
#: the most characters of an id or run name a figure or the report shows (the rest becomes "...")
LABEL_WIDTH = 80


def label(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` for display: control characters escaped, cut to ``width`` characters with "..."."""
    shown = printable(text)
    return shown if len(shown) <= width else shown[: max(1, width - 3)] + "..."


#: ten colours (matplotlib's tab10, colour-blind-safer than its default order past it); runs past ten
#: change line style and marker too, so no two of up to 40 runs share a look
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
LINES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D")


def run_style(k: int) -> tuple[str, str, str]:
    """Colour, line style and marker of the ``k``-th run (distinct for the first 40 runs)."""
    return COLOURS[k % 10], LINES[k // 10 % 4], MARKERS[k // 10 % 4]


def pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise SegevalError("plotting needs matplotlib: pip install 'segeval[plot]'") from None
    except ValueError:  # an MPLBACKEND matplotlib does not know: segeval draws with Agg anyway
        os.environ.pop("MPLBACKEND", None)
        for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
            del sys.modules[name]
        import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False  # '$' in a name is a dollar sign, never mathtext
    matplotlib.rcParams["svg.hashsalt"] = "segeval"  # the same figure gives the same SVG (its ids too)
    _notes_for_warnings()
    import matplotlib.pyplot as plt

    return plt


def _notes_for_warnings() -> None:
    """Warnings while drawing as ``segeval: note: figure: ...`` lines: no source path, escaped."""
    if getattr(warnings.showwarning, "_segeval", False):
        return

    def showwarning(message: Warning | str, *where: Any, **how: Any) -> None:
        print(printable(f"segeval: note: figure: {message}"), file=sys.stderr)

    showwarning._segeval = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning


def check_output(path: str | Path, inputs: Sequence[str | Path] = ()) -> Path:
    """The output path, if it ends in .png or .svg and can be written (:func:`segeval.reports.output.check_output`)."""
    from segeval.reports.output import check_output as check_writable

    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise ParameterError(f"The 'output' parameter must end in .png or .svg. Got {str(path)!r} instead.")
    check_writable(path, inputs)
    return out


def save(fig: Any, output: str | Path | None) -> str:
    """Write the figure to ``output`` and close it; without ``output``, the SVG text."""
    from segeval.reports.output import open_output

    try:
        if output is None:
            buffer = io.StringIO()
            fig.savefig(buffer, format="svg", metadata={"Date": None})
            return buffer.getvalue()[buffer.getvalue().index("<svg") :]
        with open_output(output, binary=True) as f:
            fig.savefig(f, format=Path(output).suffix.lower().lstrip("."))
        return str(output)
    finally:
        pyplot().close(fig)
