"""Looking at results: ``show`` (one query on a timeline), the ``plot`` figures and ``measures``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from segeval.cli import inputs
from segeval.cli.app import app, plot_app
from segeval.cli.options import (
    TIME_FORMAT,
    Adapter,
    Adapters,
    Figure,
    Qrels,
    Query,
    Run,
    TimeFormat,
    argument,
    output_option,
)
from segeval.cli.options import measures as measure_option
from segeval.core.errors import InputError, SegevalError, check_choice, print_notes
from segeval.core.settings import DEFAULT_ADAPTER
from segeval.reports.output import announce_written, check_output

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared

PlotRuns = Annotated[list[str], argument("RUN...", "Run files, globs or directories (one curve or box per run).")]


def _one_query(qrels: str, run: str, query: str, time_format: str) -> tuple[Prepared, bool]:
    """A qrels query's ground truth and results prepared (``show``, ``plot adr``); whether the run is of documents."""
    from segeval.core.settings import DEFAULTS
    from segeval.readers.from_tables import prepare
    from segeval.readers.validate import is_documents

    q = inputs.qrels(qrels, time_format)
    r = inputs.run(run, time_format)
    if query not in set(q["query"]):
        raise SegevalError(f"The 'query' parameter must name a query of the qrels. Got {query!r} instead.")
    documents = is_documents(r)
    return prepare(q, r, queries=[query], order=DEFAULTS.order_for(documents), missing_queries="zero"), documents


@app.command("show")
def show(
    qrels: Qrels,
    run: Run,
    query: Query,
    adapter: Adapters = None,
    output: Annotated[str | None, output_option("Write the timeline picture or page.", "FILE.png|svg|html")] = None,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="Print, per result, which qrels segment decided its label under each adapter."),
    ] = False,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Show one query's results on a timeline per adapter.

    The ground truth and ranked results of the query, one timeline per video.
    """
    from segeval.core.pipeline import make_adapter
    from segeval.figures.show import adapt_one, named, render
    from segeval.figures.show import explain as explain_text

    if output is None and not explain:
        raise SegevalError("Nothing to do: give -o FILE.png|svg|html and/or --explain.")
    if output is not None:
        check_output(output, [qrels, run])
    adapters = named([make_adapter(a) for a in (adapter or [DEFAULT_ADAPTER["segments"]])])
    data, documents = _one_query(qrels, run, query, time_format)
    if documents:
        raise InputError(run, "is a document run (no times): show draws time spans ('segeval eval -q' scores it)")
    adapted = adapt_one(data, adapters)
    if explain:
        sys.stdout.write(explain_text(data, adapted, adapters, time_format))
    if output is not None:
        print(render(data, adapted, query, output), file=sys.stderr if explain else sys.stdout)


@plot_app.command("adr")
def plot_adr_command(
    qrels: Qrels,
    run: Run,
    query: Query,
    output: Figure,
    adapter: Adapter = None,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Dynamic recall curve of one query and its retrieved ground truth."""
    from segeval.adapters.registry import check_run_kind, default_adapter
    from segeval.core.pipeline import make_adapter
    from segeval.figures import check_output
    from segeval.figures.adr import plot_adr

    check_output(output, [qrels, run])
    data, documents = _one_query(qrels, run, query, time_format)
    chosen = make_adapter(adapter) if adapter else default_adapter(documents)
    check_run_kind([chosen], documents)
    (adapted,) = chosen.adapt(data)
    announce_written(plot_adr(adapted, query, output))


def _evaluations(
    qrels: str,
    runs: list[str],
    names: list[str],
    output: str,
    adapter: str | None,
    time_format: str,
    expand: bool = True,
) -> tuple[dict[str, Any], list[str]]:
    """Each run's evaluation (every qrels query, missing ones 0) by run name, the qrels read once, the figure's
    output checked first; and the runs' notes, on stderr and for the figure's footnote."""
    from segeval.core.notes import for_run
    from segeval.core.pipeline import evaluate
    from segeval.figures import check_output

    check_output(output, [qrels, *runs])
    q = inputs.qrels(qrels, time_format)
    evs = {
        label: evaluate(q, r, names, adapter=adapter, missing_queries="zero")
        for label, r in inputs.runs(runs, time_format, expand).items()
    }
    notes = [n for name, ev in evs.items() for n in for_run(name, ev.notes)]
    print_notes(*notes)
    return evs, notes


@plot_app.command("pr")
def plot_pr(
    qrels: Qrels, runs: PlotRuns, output: Figure, adapter: Adapter = None, time_format: TimeFormat = TIME_FORMAT
) -> None:
    """Interpolated precision-recall curves (11 points), one per run."""
    from segeval.figures.compare import pr_curves

    evs, notes = _evaluations(qrels, runs, ["iprec_at_recall"], output, adapter, time_format)
    announce_written(pr_curves({n: list(ev.summary.values()) for n, ev in evs.items()}, output, notes))


@plot_app.command("diff")
def plot_diff(
    qrels: Qrels,
    run_a: Run,
    run_b: Run,
    output: Figure,
    measure: Annotated[list[str] | None, measure_option("map")] = None,
    adapter: Adapter = None,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Per-query difference of each measure between two runs (B - A), one panel per measure."""
    from segeval.figures.compare import difference_bars

    evs, notes = _evaluations(qrels, [run_a, run_b], measure or ["map"], output, adapter, time_format, expand=False)
    (label_a, ea), (label_b, eb) = evs.items()
    columns = _drawn(ea)
    announce_written(
        difference_bars(
            ea.queries,
            {m: ea.per_query[m] for m in columns},
            {m: eb.per_query[m] for m in columns},
            (label_a, label_b),
            output,
            notes,
        )
    )


@plot_app.command("dist")
def plot_dist(
    qrels: Qrels,
    runs: PlotRuns,
    output: Figure,
    measure: Annotated[list[str] | None, measure_option("map")] = None,
    adapter: Adapter = None,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Distribution of per-query scores, one panel per measure and one box per run."""
    from segeval.figures.compare import distributions

    evs, notes = _evaluations(qrels, runs, measure or ["map"], output, adapter, time_format)
    columns = _drawn(next(iter(evs.values())))
    announce_written(distributions({m: {n: ev.per_query[m] for n, ev in evs.items()} for m in columns}, output, notes))


def _drawn(ev: Any) -> list[str]:
    """The result columns a plot draws: every per-query measure asked for (each cut-off of ``P.5,10``)."""
    return [r.name for r in ev.requests if r.measure.family.per_query and r.measure.family.aggregator != "none"]


@app.command("measures")
def measures(
    output: Annotated[
        str,
        output_option(
            "text: Markdown tables of the measures, named sets and aliases; json or csv: one record per measure."
        ),
    ] = "text",
) -> None:
    """List the measures, named sets and accepted aliases.

    Generated from the measure registry.
    """
    from segeval.measures import REGISTRY, catalogue
    from segeval.reports.escaping import json_text

    check_choice("output", output, ("text", "json", "csv"))
    if output == "text":
        typer.echo(
            "\n\n".join(table(REGISTRY) for table in (catalogue.table, catalogue.sets_table, catalogue.aliases_table))
        )
    elif output == "json":
        typer.echo(
            json_text(
                {
                    "measures": catalogue.rows(REGISTRY),
                    "sets": REGISTRY.sets,
                    "aliases": {**REGISTRY.aliases, **{f"{a}@n": f"{n}_n" for a, n in REGISTRY.family_aliases.items()}},
                },
                indent=2,
            )
        )
    else:
        from segeval.reports.tables import write

        rows = catalogue.rows(REGISTRY)
        cells = [[" ".join(map(str, v)) if isinstance(v, list) else v for v in row.values()] for row in rows]
        write([(name, "") for name in rows[0]], cells, "csv")
