"""``segeval report``: one self-contained HTML page (inline SVG, no network) comparing runs; its per-query table
sorts on a header's click or a ``#sort=COLUMN:asc|desc`` fragment, script errors go to ``<body data-errors>``."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from contextlib import suppress
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from segeval.analyses.compare import ONE_PROCESS, Cell, Comparison, Statistics, cell_text, compare_runs
from segeval.core.errors import utf8_text
from segeval.core.notes import notes_on
from segeval.core.settings import EngineOptions, Settings
from segeval.core.words import natural_order, plural
from segeval.figures import label as shown

if TYPE_CHECKING:
    import pandas as pd

#: rows of the per-query table shown at a time; a longer table starts collapsed
PAGE_ROWS = 500
#: queries named in a difference chart's caption each way (its largest gains and losses)
EXTREMES = 5

#: the page's script (sorting and paging the per-query table) and style sheet, package data beside this module
SCRIPT = f"var PAGE = {PAGE_ROWS};\n" + files(__package__).joinpath("report.js").read_text(encoding="utf-8")
STYLE = "\n" + files(__package__).joinpath("report.css").read_text(encoding="utf-8")


def breakable(text: str) -> str:
    """``text`` escaped for HTML, with a line-break opportunity after each ``_ - . /``."""
    return re.sub(r"([_\-./])", r"\1<wbr>", html.escape(text))


def _cell(c: Cell) -> str:
    """A comparison cell, its text ``compare``'s; a significant difference bold green (better) or red (worse)."""
    mean, _, tested = cell_text(c).partition(" ")
    kind = "" if not c.significant or not c.diff else "better" if c.diff > 0 else "worse"
    return f'<td class="{kind}">{mean}{f" <small>{html.escape(tested)}</small>" if tested else ""}</td>'


def _comparison_table(c: Comparison) -> str:
    head = "".join(f"<th>{html.escape(m)}</th>" for m in c.measures)
    rows = []
    for n in c.runs:
        label = breakable(shown(n)) + (" (baseline)" if n == c.baseline else "")
        rows.append(f"<tr><td>{label}</td>{''.join(_cell(c.cells[n][m]) for m in c.measures)}</tr>")
    options = c.statistics
    legend = (
        f"Each cell: the run's mean over the {plural(c.queries, 'query', 'queries')}; for a run other than "
        f"the baseline "
        f"({html.escape(shown(c.baseline))}), in brackets: <em>difference</em> to the baseline (run minus "
        f"baseline), its <em>[95% bootstrap interval]</em> and the <em>p</em>-value of the paired "
        f"{html.escape(options.test)} test, corrected ({html.escape(str(options.correction))}) across all run and "
        f"measure cells. * and bold green: significantly better than the baseline (p &lt; {options.alpha}); "
        f"* and bold red: significantly worse. p&lt;0.0001 is shown for smaller values."
    )
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in c.notes)
    return (
        f'<div class="scroll"><table id="comparison"><thead><tr><th>run</th>{head}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table></div><p class="legend" id="legend">{legend}</p>'
        f'<ul class="notes" id="notes">{notes}</ul>'
    )


def _contents(measures: Sequence[str]) -> str:
    """The table of contents: the page's sections, and the figures of each measure."""
    each = ", ".join(f'<a href="#section-measure-{k}">{html.escape(m)}</a>' for k, m in enumerate(measures))
    return (
        '<nav id="contents"><strong>Contents</strong><ul>'
        '<li><a href="#section-comparison">Comparison</a></li>'
        f'<li><a href="#section-figures">Figures</a> ({each})</li>'
        '<li><a href="#section-per-query">Per query</a></li>'
        '<li><a href="#section-provenance">Provenance</a></li></ul></nav>'
    )


def _file(path: str | Path) -> str:
    from segeval.readers.files import is_stream, sha256_hex

    about = " (a stream)" if is_stream(path) else ""  # read once already; a second read would be empty or block
    with suppress(OSError):
        about = about or f" ({Path(path).stat().st_size} bytes, sha256 {sha256_hex(Path(path))[:16]}…)"
    return f"<li><code>{html.escape(str(path))}</code>{about}</li>"


def _provenance(qrels: str | Path, runs: Sequence[str | Path], command: str | None) -> str:
    from segeval import __version__

    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    cmd = command if command is not None else "segeval.reports.html.render_report (Python API)"
    files = _file(qrels) + "".join(_file(r) for r in runs)
    return (
        f'<h2 id="section-provenance">Provenance</h2><div id="provenance"><p>segeval '
        f"{html.escape(__version__)}, "
        f"{html.escape(when)}</p><p>command: <code>{html.escape(cmd)}</code></p>"
        f"<p>inputs (qrels first):</p><ul>{files}</ul></div>"
    )


def _figure(svg: str, kind: str, caption: str, notes: Sequence[str] = (), **data: str) -> str:
    """The SVG in a figure as wide as the drawing (its caption and notes wrap under it), at most the page width."""
    attrs = "".join(f' data-{k}="{html.escape(v)}"' for k, v in data.items())
    m = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', svg)
    width = f' style="width: {float(m.group(1)) * 4 / 3:.0f}px"' if m else ""
    text = html.escape(caption) + "".join(f'<br><small class="note">note: {html.escape(n)}</small>' for n in notes)
    return f'<figure class="{kind}"{attrs}{width}>{svg}<figcaption>{text}</figcaption></figure>'


def _figures(comparison: Comparison, quiet: bool) -> list[str]:
    """The figures: precision-recall curves, then per measure one box per run and each run's differences from
    the baseline, each captioned with its notes."""
    from segeval.executors.progress import Progress
    from segeval.figures.compare import difference_bars, distributions, extremes, pr_curves

    evals, base = comparison.evaluations, comparison.baseline
    queries = next(iter(evals.values())).queries
    curves = {n: [ev.summary[k] for k in ev.summary if k.startswith("iprec_at_recall")] for n, ev in evals.items()}
    with Progress(1 + len(comparison.measures) * len(comparison.runs), "figures", quiet=quiet) as progress:
        figures = [_figure(pr_curves(curves), "pr", "Interpolated precision at 11 recall levels, mean over queries.")]
        progress.advance()
        for k, m in enumerate(comparison.measures):
            notes = notes_on(comparison.notes, m)
            figures.append(f'<h3 id="section-measure-{k}">{html.escape(m)}</h3>')
            figures.append(
                _figure(
                    distributions({m: {n: ev.per_query[m] for n, ev in evals.items()}}),
                    "dist",
                    f"Per-query {m}, one box per run.",
                    notes,
                    measure=m,
                )
            )
            progress.advance()
            for n in comparison.runs:
                if n != base:
                    a, b = evals[base].per_query[m], evals[n].per_query[m]
                    mine = [x for x in notes if x.startswith((f"{base}: ", f"{n}: "))]
                    figures.append(
                        _figure(
                            difference_bars(queries, {m: a}, {m: b}, (base, n)),
                            "diff",
                            f"Per-query {m} of {shown(n)} minus the baseline {shown(base)}, sorted: "
                            f"{extremes(queries, a, b, EXTREMES)}.",
                            mine,
                            run=n,
                            measure=m,
                        )
                    )
                    progress.advance()
    return figures


def _per_query_table(comparison: Comparison) -> str:
    """The per-query table (a query per row, in natural order; a run and measure per column)."""
    evals = comparison.evaluations
    queries = next(iter(evals.values())).queries
    columns = [[f"{v:.4f}" for v in evals[n].per_query[m]] for n in comparison.runs for m in comparison.measures]
    head = "".join(
        f"<th>{breakable(shown(n))}<br>{html.escape(m)}</th>" for n in comparison.runs for m in comparison.measures
    )
    body = "".join(
        f"<tr><td>{html.escape(shown(queries[i]))}</td><td>" + "</td><td>".join(c[i] for c in columns) + "</td></tr>"
        for i in natural_order(queries)
    )
    pages = (
        ""
        if len(queries) <= PAGE_ROWS
        else '<p id="pages"><button type="button" data-step="-1">previous'
        '</button> <span id="page-shown"></span> <button type="button" data-step="1">next</button></p>'
    )
    table = (
        f'{pages}<div class="scroll"><table id="per-query"><thead><tr><th>query</th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
    about = (
        f"{plural(len(queries), 'query', 'queries')} x {plural(len(columns), 'column')}, in natural order "
        f"(q2 before q10); click a header to sort"
    )
    if len(queries) <= PAGE_ROWS:
        return f"<p>{about}.</p>{table}"
    return (
        f'<details id="per-query-details"><summary>{about}; {PAGE_ROWS} at a time (open to show)'
        f"</summary>{table}</details>"
    )


def render_report(
    qrels: pd.DataFrame,
    source: str | Path,
    runs: Sequence[str | Path],
    output: str | Path,
    *,
    measures: Sequence[str] = ("map", "P_10"),
    adapter: str | None = None,
    baseline: str | Path | None = None,
    statistics: Statistics,
    command: str | None = None,
    settings: Settings | None = None,
    engine: EngineOptions = ONE_PROCESS,
    on_note: Callable[[str], object] | None = None,
) -> Path:
    """Write the report page on validated ``qrels`` (read from ``source``) and return its path; ``command`` is the
    command line shown under provenance, the numbers are :func:`segeval.analyses.compare.compare_runs`'."""
    from segeval.reports.output import check_output, write_output

    inputs = [source, *runs, *([baseline] if baseline is not None else [])]
    check_output(output, inputs)
    comparison = compare_runs(
        qrels,
        runs,
        measures,
        adapter=adapter,
        baseline=baseline,
        statistics=statistics,
        settings=settings,
        engine=engine,
        on_note=on_note,
        also=["iprec_at_recall"],
    )
    ordered = [baseline, *[r for r in runs if str(r) != str(baseline)]] if baseline is not None else list(runs)
    queries = next(iter(comparison.evaluations.values())).queries
    figures = _figures(comparison, engine.quiet)
    used = ", ".join(comparison.adapters) or "none"
    default = "" if adapter else " (the default for these runs)"
    page = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>segeval report</title>'
        f"<style>{STYLE}</style></head><body><h1>segeval report</h1>"
        f"<p>qrels: {html.escape(utf8_text(Path(source).name))}; "
        f"{plural(len(queries), 'query', 'queries')}; adapter: "
        f"{html.escape(used)}{default}</p>{_contents(comparison.measures)}"
        f'<h2 id="section-comparison">Comparison</h2>{_comparison_table(comparison)}'
        f'<h2 id="section-figures">Figures</h2>{"".join(figures)}'
        f'<h2 id="section-per-query">Per query</h2>{_per_query_table(comparison)}'
        f"{_provenance(source, ordered, command)}<script>{SCRIPT}</script></body></html>\n"
    )
    return write_output(output, page, inputs=inputs)
