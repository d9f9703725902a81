"""Figures (matplotlib, from the optional ``plot`` extra, imported only when drawing).

The backend, mathtext and label rules are docs/cli.md, "Output escaping"; every id or name shown in a figure
or the report goes through :func:`label` (at most :data:`LABEL_WIDTH` characters, control characters
escaped), and matplotlib's warnings become one note line each, without source paths.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from segeval.core.errors import ParameterError, SegevalError, printable, render_note

FORMATS = (".png", ".svg")
#: the most characters of an id or run name a figure or the report shows (the rest becomes "...")
LABEL_WIDTH = 80


def label(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` for display: control characters escaped, cut to ``width`` characters with "..." (full
    ids stay in the data files)."""
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
    """Warnings while drawing (matplotlib's "Glyph ... missing from font", attributed to segeval's line
    that called it) as ``segeval: note: figure: ...`` lines: no source path, escaped."""
    if getattr(warnings.showwarning, "_segeval", False):
        return

    def showwarning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        print(render_note(f"segeval: note: figure: {message}"), file=sys.stderr)

    showwarning._segeval = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning


def check_output(path: str | Path, inputs: Sequence[str | Path] = ()) -> Path:
    """The output path, if it ends in .png or .svg and can be written (:func:`segeval.reports.output.check_output`:
    its directory exists, it is no directory and none of ``inputs``)."""
    from segeval.reports.output import check_output as check_writable

    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise ParameterError(f"The 'output' parameter must end in .png or .svg. Got {str(path)!r} instead.")
    check_writable(path, inputs)
    return out


def save(fig: Any, output: str | Path) -> None:
    """Write the figure to ``output`` (its format from the suffix) through the one output writer, and close it."""
    from segeval.reports.output import open_output

    try:
        with open_output(output, binary=True) as f:
            fig.savefig(f, format=Path(output).suffix.lower().lstrip("."))
    finally:
        pyplot().close(fig)
