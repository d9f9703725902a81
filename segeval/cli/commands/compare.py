"""Comparing runs: ``compare`` (significance table), ``correlate`` (two settings' rankings) and
``report`` (an HTML page)."""

from __future__ import annotations

import math
import sys
from typing import Annotated, Any

import typer

from segeval.cli import inputs
from segeval.cli.app import ARGV, app
from segeval.cli.options import (
    ENGINE_DEFAULTS,
    Adapter,
    AllPairs,
    Baseline,
    CompareRuns,
    Correction,
    Measure,
    Qrels,
    Seed,
    Test,
    measures,
    numeric,
    output_option,
    with_engine,
    with_settings,
)
from segeval.core.domains import OPEN_UNIT
from segeval.core.errors import ParameterError, SegevalError, check_choice, print_notes
from segeval.core.settings import DEFAULTS, EngineOptions, Settings
from segeval.reports import tables
from segeval.reports.escaping import json_text
from segeval.reports.output import announce_written, check_output

Alpha = Annotated[float, numeric("--alpha", OPEN_UNIT, "Significance level for the * mark", metavar="A")]
Permutations = Annotated[
    int,
    typer.Option(
        "--permutations",
        metavar="N",
        help="Randomization/bootstrap resamples, 1 to 10^7 (SEGEVAL_MAX_PERMUTATIONS raises the limit).",
    ),
]


@app.command("compare")
@with_engine
@with_settings
def compare(
    qrels: Qrels,
    runs: CompareRuns,
    measure: Annotated[list[str] | None, measures("map")] = None,
    adapter: Adapter = None,
    baseline: Baseline = None,
    all_pairs: AllPairs = False,
    test: Test = "t",
    correction: Correction = None,
    alpha: Alpha = 0.05,
    permutations: Permutations = 10_000,
    seed: Seed = 0,
    output: Annotated[
        str,
        output_option(
            "Table format: text (aligned columns), markdown, latex (ranx's compact table: a letter per run, the best "
            "bold, superscripts naming the runs it is significantly better than), csv or json.",
            "text|markdown|latex|csv|json",
        ),
    ] = "text",
    engine_options: EngineOptions = ENGINE_DEFAULTS,
    settings: Settings = DEFAULTS,
) -> None:
    """Compare runs with a baseline (differences, p-values).

    One table of runs x measures, each run against the baseline: difference, 95% interval, p-value.
    """
    from segeval.analyses.compare import FORMATS, Statistics, compare_runs, render
    from segeval.executors.processes import expand_runs

    check_choice("output", output, FORMATS)
    statistics = Statistics(test, correction, alpha, permutations, seed, all_pairs)
    expanded = expand_runs(runs)
    check_distinct_runs(runs, expanded)
    result = compare_runs(
        inputs.qrels(qrels, settings.time_format, measures=measure or ["map"]),
        expanded,
        measure or ["map"],
        adapter=adapter,
        baseline=baseline,
        statistics=statistics,
        engine=engine_options,
        settings=settings,
        on_note=print_notes,
    )
    sys.stdout.write(render(result, output))


def check_distinct_runs(given: list[str], expanded: list[str]) -> None:
    """Refuse a run file named twice when that leaves fewer than two runs (the repeat would be dropped)."""
    if len(expanded) >= 2:
        return
    seen: set[str] = set()
    for spec in given:
        if spec in seen:
            raise ParameterError(
                f"The 'runs' parameter must name at least two different runs. Got {spec!r} twice: "
                f"a file is evaluated once (copy it under another name to compare it with itself)."
            )
        seen.add(spec)


@app.command("correlate")
@with_settings
def correlate_command(
    qrels: Qrels,
    runs: CompareRuns,
    measure: Measure = "map",
    measure2: Annotated[
        str | None, typer.Option("--measure2", metavar="NAME", help="Measure of setting 2 (default: the same).")
    ] = None,
    qrels2: Annotated[
        str | None, typer.Option("--qrels2", metavar="QRELS", help="Qrels of setting 2 (default: the same).")
    ] = None,
    adapter: Adapter = None,
    adapter2: Annotated[
        str | None, typer.Option("--adapter2", metavar="NAME", help="Adapter of setting 2 (default: the same).")
    ] = None,
    settings: Settings = DEFAULTS,
    output: Annotated[
        str,
        output_option(
            "text, csv: a table of each run's scores, an empty line, a table of the coefficients (an undefined one "
            "nan); json: the run names, both settings' scores, the coefficients (undefined: null) and the notes."
        ),
    ] = "text",
) -> None:
    """Correlate how two evaluation settings rank the same runs.

    Kendall tau (-b and ties-agree), Spearman rho, tau_AP, swapped pairs and the RMS error of the
    scores; setting 1 is QRELS, --measure and --adapter, setting 2 the same unless --qrels2,
    --measure2 or --adapter2 say otherwise.
    """
    from segeval.core.notes import one_per_kind
    from segeval.core.plan import reads_subtopics
    from segeval.executors.processes import expand_runs

    fmt = tables.check_table_format(output)
    expanded = expand_runs(runs)
    check_distinct_runs(runs, expanded)
    if len(expanded) < 2:
        raise SegevalError("The 'runs' parameter must name at least two runs to rank.")
    by_name = inputs.runs(expanded, settings.time_format, expand=False)

    first = inputs.qrels(qrels, settings.time_format, measures=[measure])
    other = measure2 or measure  # the qrels read again for setting 2 when its measure reads other columns
    same = qrels2 is None and reads_subtopics([other]) == reads_subtopics([measure])
    second = first if same else inputs.qrels(qrels2 or qrels, settings.time_format, measures=[other])
    labelled: list[tuple[str, str]] = []
    x = _setting_scores(first, measure, adapter, 1, by_name, settings, labelled)
    y = _setting_scores(
        second, measure2 or measure, adapter2 if adapter2 is not None else adapter, 2, by_name, settings, labelled
    )
    _write_correlation(list(by_name), x, y, one_per_kind(labelled), fmt)  # 40 runs with one kind of note: one note


def _setting_scores(
    qrels: Any,
    measure: str,
    adapter: str | None,
    setting: int,
    runs: dict[str, Any],
    settings: Settings,
    labelled: list[tuple[str, str]],
) -> list[float]:
    """Each run's score in one setting (the qrels checked once); the runs' notes go to ``labelled`` with
    the run and setting they are about."""
    from segeval.core.pipeline import Evaluator

    out = []
    evaluator = Evaluator(qrels, [measure], settings, adapter=adapter)
    for label, r in runs.items():
        ev = evaluator.evaluate(r)
        out.append(float(next(iter(ev.summary.values()))))
        labelled.extend((f"{label} (setting {setting})", n) for n in ev.notes)
    return out


def _write_correlation(names: list[str], x: list[float], y: list[float], notes: list[str], fmt: str) -> None:
    """The coefficients of the two settings' scores, as JSON or as two tables; the correlation's own notes on
    stderr before the output, the runs' notes after it."""
    from segeval.analyses.correlate import coefficients
    from segeval.analyses.correlate import notes as correlation_notes

    values = coefficients(x, y)
    doc: dict[str, Any] = {"runs": names, "setting1": x, "setting2": y, **values}
    doc["notes"] = [
        *notes,
        *correlation_notes(x, y),
        "ties: tau-b and rho as SciPy's kendalltau and spearmanr; ties_agree counts a pair tied in "
        "either setting as agreeing (Buettcher et al. 2007); tau_ap takes setting 1 as the "
        "reference: a pair it ties is no error, and runs tied in setting 2 are ordered every way with "
        "equal weight (tau_AP,a, Urbano & Marrero 2017)",
    ]
    print_notes(*doc["notes"][len(notes) : -1], head="note: ")
    if fmt == "json":
        sys.stdout.write(json_text(doc) + "\n")
    else:
        tables.write_many(
            {
                "runs": ([("run", ""), ("setting1", ".4f"), ("setting2", ".4f")], list(zip(names, x, y, strict=True))),
                "coefficients": (
                    [("coefficient", ""), ("value", "")],
                    [[k, math.nan if v is None else v] for k, v in values.items()],
                ),
            },
            fmt,
        )
    print_notes(*notes, head="note: ")


@app.command("report")
@with_engine
@with_settings
def report(
    qrels: Qrels,
    runs: CompareRuns,
    output: Annotated[str, output_option("Where to write the page.", "FILE.html")],
    measure: Annotated[list[str] | None, measures("map and P_10")] = None,
    adapter: Adapter = None,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction = None,
    alpha: Alpha = 0.05,
    permutations: Permutations = 10_000,
    seed: Seed = 0,
    engine_options: EngineOptions = ENGINE_DEFAULTS,
    settings: Settings = DEFAULTS,
) -> None:
    """Write one self-contained HTML page comparing runs.

    The comparison table, figures and a sortable per-query table; the numbers are compare's.
    """
    import shlex

    from segeval.analyses.compare import Statistics
    from segeval.executors.processes import expand_runs
    from segeval.reports.html import render_report

    if not output.lower().endswith(".html"):
        raise SegevalError(f"The 'output' parameter must end in .html. Got {output!r} instead.")
    statistics = Statistics(test, correction, alpha, permutations, seed)
    expanded = expand_runs(runs)  # folders and globs, as compare takes them
    check_distinct_runs(runs, expanded)
    check_output(output, [qrels, *expanded, *([baseline] if baseline is not None else [])])  # before any work
    q = inputs.qrels(qrels, settings.time_format, measures=measure or ["map", "P_10"])
    announce_written(
        render_report(
            q,
            qrels,
            expanded,
            output,
            measures=measure or ["map", "P_10"],
            adapter=adapter,
            baseline=baseline,
            statistics=statistics,
            settings=settings,
            command=shlex.join(["segeval", *ARGV]),
            engine=engine_options,
            on_note=print_notes,
        )
    )
