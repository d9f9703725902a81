"""Comparing runs: ``compare`` (significance table), ``correlate`` (two settings' rankings) and
``report`` (an HTML page)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from segeval.cli import inputs
from segeval.cli.app import ARGV, app
from segeval.cli.options import (
    TIME_FORMAT,
    Adapter,
    Baseline,
    ChunkLines,
    CompareRuns,
    Correction,
    Engine,
    Jobs,
    Measure,
    Memory,
    Qrels,
    Quiet,
    Scheduler,
    Seed,
    Test,
    TimeFormat,
    measures,
)
from segeval.errors import SegevalError, render_note
from segeval.settings import DEFAULTS


@app.command("compare")
def compare(
    qrels: Qrels,
    runs: CompareRuns,
    measure: Annotated[list[str] | None, measures('map')] = None,
    adapter: Adapter = None,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction = "holm",
    alpha: Annotated[float, typer.Option("--alpha", metavar="A",
                                         help="Significance level for the * mark, in (0, 1).")] = 0.05,
    permutations: Annotated[int, typer.Option("--permutations", metavar="N", help="Randomization/bootstrap "
                                              "resamples, 1 to 10^7 (SEGEVAL_MAX_PERMUTATIONS raises the limit).")]
    = 10_000,
    seed: Seed = 0,
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="text|markdown|latex|csv|json",
        help="Table format: text (aligned columns), markdown, latex, csv or json.")] = "text",
    jobs: Jobs = None,
    quiet: Quiet = False,
    memory: Memory = DEFAULTS.memory,
    chunk_lines: ChunkLines = DEFAULTS.chunk_lines,
    engine: Engine = "processes",
    scheduler: Scheduler = None,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Compare runs with a baseline (differences, p-values).

    One table of runs x measures (default map), each run against the baseline: difference, 95%
    interval, p-value. Runs may be files, globs or directories; --jobs, --memory and --engine work
    as for eval.
    """
    from segeval.analysis.compare import FORMATS, check_statistics, compare_runs, render
    from segeval.engines.runs import check_engine, expand_runs
    from segeval.errors import check_choice

    check_choice("output", output, FORMATS)
    check_engine(jobs, memory, chunk_lines, engine, scheduler)
    check_statistics(test, correction, alpha, permutations, seed)
    expanded = expand_runs(runs)
    check_distinct_runs(runs, expanded)
    result = compare_runs(inputs.qrels(qrels, time_format), expanded, measure or ["map"], adapter=adapter,
                          baseline=baseline, test=test, correction=correction, alpha=alpha,
                          permutations=permutations, seed=seed, jobs=jobs, memory=memory, chunk_lines=chunk_lines,
                          engine=engine, scheduler=scheduler, quiet=quiet, time_format=time_format,
                          on_note=lambda text: print(render_note(text), file=sys.stderr))
    sys.stdout.write(render(result, output))


def check_distinct_runs(given: list[str], expanded: list[str]) -> None:
    """Refuse a run file named twice when that leaves fewer than two runs (the repeat would be dropped)."""
    from segeval.errors import ParameterError

    if len(expanded) >= 2:
        return
    seen: set[str] = set()
    for spec in given:
        if spec in seen:
            raise ParameterError(f"The 'runs' parameter must name at least two different runs. Got {spec!r} twice: "
                                 f"a file is evaluated once (copy it under another name to compare it with itself).")
        seen.add(spec)


@app.command("correlate")
def correlate_command(
    qrels: Qrels,
    runs: CompareRuns,
    measure: Measure = "map",
    measure2: Annotated[str | None, typer.Option("--measure2", metavar="NAME",
                                                 help="Measure of setting 2 (default: the same).")] = None,
    qrels2: Annotated[str | None, typer.Option("--qrels2", metavar="QRELS",
                                               help="Qrels of setting 2 (default: the same).")] = None,
    adapter: Adapter = None,
    adapter2: Annotated[str | None, typer.Option("--adapter2", metavar="NAME",
                                                 help="Adapter of setting 2 (default: the same).")] = None,
    time_format: TimeFormat = TIME_FORMAT,
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="json|text|csv",
        help="json: the run names, both settings' scores, the coefficients and the notes; text/csv: a table "
             "of each run's scores, an empty line, a table of the coefficients.")] = "json",
) -> None:
    """Correlate how two evaluation settings rank the same runs.

    Kendall tau (-b and ties-agree), Spearman rho, tau_AP, swapped pairs and the RMS error of the
    scores; setting 1 is QRELS, --measure and --adapter, setting 2 the same unless --qrels2,
    --measure2 or --adapter2 say otherwise.
    """
    import math

    from segeval.analysis import correlate as C
    from segeval.cli import tables
    from segeval.engines.runs import expand_runs, run_names
    from segeval.notes import bare, for_run
    from segeval.pipeline import evaluate

    fmt = tables.check_table_format(output)
    given = runs
    runs = expand_runs(runs)
    check_distinct_runs(given, runs)
    if len(runs) < 2:
        raise SegevalError("The 'runs' parameter must name at least two runs to rank.")
    names = run_names(runs)
    by_name = {name: inputs.run(r, time_format) for name, r in zip(names, runs, strict=True)}
    first = inputs.qrels(qrels, time_format)
    second = first if qrels2 is None else inputs.qrels(qrels2, time_format)

    notes: list[str] = []

    def scores(q: Any, name: str, a: str | None, setting: int) -> list[float]:
        out = []
        for label, r in by_name.items():
            ev = evaluate(q, r, [name], adapter=a, missing_queries="zero")
            out.append(float(next(iter(ev.summary.values()))))
            notes.extend(bare(n) for n in for_run(f"setting {setting}, {label}", ev.notes))
        return out

    x = scores(first, measure, adapter, 1)
    y = scores(second, measure2 or measure, adapter2 if adapter2 is not None else adapter, 2)
    doc: dict[str, Any] = {
        "runs": names, "setting1": x, "setting2": y, "kendall_tau_b": C.kendall_tau(x, y),
        "kendall_tau_ties_agree": C.kendall_tau_ties_agree(x, y), "spearman_rho": C.spearman_rho(x, y),
        "tau_ap": C.tau_ap(x, y), "swapped_pairs": C.swapped_pairs(x, y), "rms_error": C.rms_error(x, y)}
    doc = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in doc.items()}
    doc["notes"] = [*notes, *C.notes(x, y),
                    "ties: tau-b and rho as SciPy's kendalltau and spearmanr; ties_agree counts a pair tied in "
                    "either setting as agreeing (Buettcher et al. 2007); tau_ap takes setting 1 as the "
                    "reference: a pair it ties is no error, and runs tied in setting 2 are ordered every way with "
                    "equal weight (tau_AP,a, Urbano & Marrero 2017)"]
    for note in doc["notes"][len(notes):-1]:
        print(render_note(f"note: {note}"), file=sys.stderr)
    if fmt == "json":
        from segeval.escaping import json_text

        sys.stdout.write(json_text(doc) + "\n")
    else:
        coefficients = ("kendall_tau_b", "kendall_tau_ties_agree", "spearman_rho", "tau_ap", "swapped_pairs",
                        "rms_error")
        sys.stdout.write(tables.render([("run", ""), ("setting1", ".4f"), ("setting2", ".4f")],
                                       list(zip(names, x, y, strict=True)), fmt) + "\n"
                         + tables.render([("coefficient", ""), ("value", "")],
                                         [[k, "nan" if doc[k] is None else doc[k]] for k in coefficients], fmt))
    for n in notes:
        print(render_note(f"note: {n}"), file=sys.stderr)


@app.command("report")
def report(
    qrels: Qrels,
    runs: CompareRuns,
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.html", help="Where to write the page.")],
    measure: Annotated[list[str] | None, measures('map and P_10')] = None,
    adapter: Adapter = None,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction = "holm",
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Write one self-contained HTML page comparing runs.

    The comparison table (default measures map and P_10), figures and a sortable per-query table.
    """
    import shlex

    from segeval.output import check_output
    from segeval.report.html import render_report

    if not output.lower().endswith(".html"):
        raise SegevalError(f"The 'output' parameter must end in .html. Got {output!r} instead.")
    check_output(output, [qrels, *runs, *([baseline] if baseline is not None else [])])  # before any work
    q = inputs.qrels(qrels, time_format)
    print(render_report(q, qrels, runs, output, measures=measure or ["map", "P_10"], adapter=adapter,
                        baseline=baseline, test=test, correction=correction, time_format=time_format,
                        command=shlex.join(["segeval", *ARGV])))

