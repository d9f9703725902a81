"""Evaluating runs: ``eval`` (trec_eval's measures), ``me13sh`` (the MediaEval script), ``anchoring`` and
``sample-eval``."""

from __future__ import annotations

import sys
from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from segeval.cli import inputs
from segeval.cli.app import app
from segeval.cli.options import (
    ENGINE_DEFAULTS,
    TIME_FORMAT,
    EvalAdapters,
    MediaEvalQrels,
    MediaEvalRun,
    Qrels,
    Runs,
    TimeFormat,
    argument,
    measures,
    numeric,
    output_option,
    with_engine,
    with_settings,
)
from segeval.core.domains import CUTOFF
from segeval.core.errors import InputError, ParameterError, SegevalError, check_choice, named, print_notes
from segeval.core.settings import BINS, DEFAULTS, WINDOW, EngineOptions, OutputOptions, Settings
from segeval.core.words import plural

if TYPE_CHECKING:
    from segeval.core.settings import Job
    from segeval.executors.results import Outcome


class MediaEvalFormat(StrEnum):
    linking = "linking"
    search = "search"


HEADER_SETS = ("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")  # sets opening with runid, num_q


@app.command("eval")
@with_engine
@with_settings
def eval_(
    qrels: Qrels,
    runs: Runs,
    measure: Annotated[list[str] | None, measures("official")] = None,
    per_query: Annotated[bool, typer.Option("-q", help="Also print each query's values.")] = False,
    complete: Annotated[
        bool, typer.Option("-c", help="Average over every qrels query; queries missing from the run score 0.")
    ] = False,
    no_summary: Annotated[bool, typer.Option("-n", help="Do not print the summary rows.")] = False,
    settings: Settings = DEFAULTS,
    adapter: EvalAdapters = None,
    output: Annotated[
        str,
        output_option(
            "Output format (trec, or text as every command names it: trec_eval's text layout).", "trec|text|json|csv"
        ),
    ] = "trec",
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Skip malformed lines instead of stopping; each is listed on stderr and counted in "
            "the JSON output, and the exit code is 3.",
        ),
    ] = False,
    engine_options: EngineOptions = ENGINE_DEFAULTS,
    order: Annotated[
        str | None,
        typer.Option(
            "--order",
            metavar="score|rank|file",
            help="Result order. Default: score (ties by docno descending) for TREC runs, rank for MediaEval runs.",
        ),
    ] = None,
    predicted: Annotated[
        str,
        typer.Option(
            "--predicted",
            metavar="use|ignore",
            help="Classifier-predicted lines of completed qrels (segeval complete-qrels): use them (default; a "
            "note on stderr counts them) or ignore them.",
        ),
    ] = DEFAULTS.predicted,
    show_route: Annotated[
        bool,
        typer.Option(
            "--route", help="Say on stderr which reader and executor evaluate the runs, and why (see docs/engines.md)."
        ),
    ] = False,
    rel_info: Annotated[
        str,
        typer.Option(
            "-R",
            "--rel-info-format",
            metavar="qrels|qrels_jg|prefs|qrels_prefs",
            help="The judgements' format, as trec_eval's -R: qrels; qrels_jg ('qid group docno rel': the *_avgjg "
            "measures, default -m qrels_jg); prefs ('qid group subgroup docno level') or qrels_prefs ('qid group "
            "docno level'): the prefs_* measures, default -m prefs.",
        ),
    ] = "qrels",
    results_format: Annotated[
        str,
        typer.Option(
            "-T",
            "--results-format",
            metavar="trec_results",
            help="The run's format, as trec_eval's -T: trec_results, its only one.",
        ),
    ] = "trec_results",
) -> None:
    """Evaluate runs with trec_eval's measures and flags.

    On document runs, and (through an adapter) on segment runs.
    """
    from segeval.core.plan import check_rel_info
    from segeval.core.settings import Job
    from segeval.executors.processes import expand_runs
    from segeval.measures import REGISTRY

    _check_formats(rel_info, results_format, adapter)
    names = measure or [REL_INFO_SETS.get(rel_info, "official")]
    output = "trec" if output == "text" else output  # the name every other command gives its human table
    print_notes(*REGISTRY.dropped(names))  # on stderr, a note on each -m left out: stdout stays trec_eval's
    header = [n for n in ("runid", "num_q") if n in names or any(s in names for s in HEADER_SETS)]
    shown = OutputOptions(output, per_query, not no_summary, tuple(header))
    run_files = expand_runs(runs)
    settings = replace(settings, order=order, missing_queries="zero" if complete else "skip", predicted=predicted)
    job = Job(
        tuple(n for n in names if n not in ("runid", "num_q")),
        tuple(adapter or ()),  # version: pipeline.plan
        settings,
        lenient=lenient,
        engine=engine_options,
    )
    check_rel_info(list(job.measures), rel_info)  # before any file is read
    if rel_info != "qrels":
        _evaluate_judgements(qrels, rel_info, run_files, job, shown)
        return
    _run_routed(qrels, run_files, job, shown, show_route)


#: the measures eval computes without -m for each -R format but qrels (trec_eval's default, official, reads qrels)
REL_INFO_SETS = {"qrels_jg": "qrels_jg", "prefs": "prefs", "qrels_prefs": "prefs"}


def _check_formats(rel_info: str, results_format: str, adapters: list[str] | None) -> None:
    """``-R`` one of trec_eval's rel_info formats (the others read document runs, without an adapter), ``-T``
    trec_results (trec_eval's only results format)."""
    check_choice("results_format", results_format, ("trec_results",))
    check_choice("rel_info_format", rel_info, ("qrels", *REL_INFO_SETS))
    if rel_info != "qrels" and adapters:
        raise ParameterError(
            f"The 'adapter' parameter must not be given with -R {rel_info}: {rel_info} judges "
            f"documents (a TREC run, the exact adapter). Got {adapters[0]!r} instead."
        )


def _evaluate_judgements(path: str, rel_info: str, run_files: list[str], job: Job, shown: OutputOptions) -> None:
    """``eval -R qrels_jg|prefs|qrels_prefs``: each run read whole and evaluated against the judgements."""
    from segeval.core.plan import plan
    from segeval.executors.processes import outcome
    from segeval.executors.results import RunResult
    from segeval.measures.prefs import evaluate_judgements
    from segeval.readers.formats import REL_INFO_FORMATS
    from segeval.reports.trec import runid

    render, complete = _renderer(job, shown)
    how = plan(True, list(job.measures), settings=job.settings, rel_info=rel_info)
    outcomes = []
    for file in run_files:
        r = inputs.run(file, job.settings.time_format)
        if r["start"].notna().any():
            raise InputError(
                file,
                f"is a segment run; expected a TREC run of documents for -R {rel_info} "
                f"({REL_INFO_FORMATS[rel_info].name} judgements)",
            )
        result = RunResult(evaluate_judgements(path, rel_info, r, how), runid(r["run"]), file=file)
        outcomes.append(outcome(result, render=render, complete=complete))
    _report(outcomes, run_files, shown.format, [])


def _renderer(job: Job, shown: OutputOptions) -> tuple[Any, bool]:
    """Each run's rendering, and whether every qrels query counts (``-c``)."""
    from functools import partial

    complete = job.settings.missing_queries == "zero"
    # trec_eval 9.0.8 -c evaluates the qrels topics missing from the run without printing them
    only_run = job.settings.trec_eval == "9" and complete and shown.per_query and shown.format == "trec"
    return partial(_render_eval, out=shown, only_run_queries=only_run), complete


def _run_routed(qrels: str, run_files: list[str], job: Job, shown: OutputOptions, show_route: bool) -> None:
    """``eval`` on the route chosen for the inputs (said on stderr with ``--route``): the byte scanner, the
    segment scanner, or the strict reader when neither is chosen or the chosen one gives up."""
    from segeval.executors.processes import evaluate_many
    from segeval.executors.route import route

    chosen = route(qrels, run_files, job, shown.format)
    if show_route:
        print(chosen, file=sys.stderr)
    render, complete = _renderer(job, shown)
    outcomes = None
    if chosen.reader in ("scanner", "segments"):
        outcomes = _scanner_outcomes(qrels, run_files[0], job, chosen, render, complete)
    if outcomes is None and chosen.reader in ("scanner", "segments") and show_route:
        print(chosen.fallback("the scanner gave up on the files; the strict reader reads them"), file=sys.stderr)
    skipped_qrels: list[InputError] = []
    if outcomes is None:
        on_error = skipped_qrels.append if job.lenient else None
        q = inputs.qrels(qrels, job.settings.time_format, on_error, measures=job.measures)
        outcomes = evaluate_many(q, run_files, job, render=render, complete=complete)
    _report(outcomes, run_files, shown.format, skipped_qrels)


def _report(outcomes: list[Outcome], run_files: list[str], output: str, skipped_qrels: list[InputError]) -> None:
    """Every run's rendering joined on stdout, errors and skipped lines on stderr; exit 2 when a run failed, 3
    when lines were skipped."""
    body = [o.stdout for o in outcomes]
    if output == "trec" and len(run_files) > 1:  # each row names its run file in a first column
        from segeval.reports.trec import prefixed

        body = [prefixed(b, f) for b, f in zip(body, run_files, strict=True)]
    if output == "csv":  # one header line
        body = [b if i == 0 else b.split("\n", 1)[-1] for i, b in enumerate(body)]
    if output == "json" and len(run_files) > 1:
        body = ["[\n" + ",\n".join(b.rstrip("\n") for b in body if b) + "\n]\n"]
    sys.stdout.write("".join(body))
    for e in skipped_qrels:
        print(e.skipped(), file=sys.stderr)
    said: set[str] = set()
    for o in outcomes:  # an error of the job itself (the same for every run, naming none) is said once
        if not (o.failed and o.stderr in said):
            sys.stderr.write(o.stderr)
        said.add(o.stderr)
    skipped = len(skipped_qrels) + sum(o.skipped for o in outcomes)
    if any(o.failed for o in outcomes):
        raise typer.Exit(2)
    if skipped:
        print(f"segeval: {plural(skipped, 'malformed line')} skipped (--lenient)", file=sys.stderr)
        raise typer.Exit(3)


def _scanner_outcomes(qrels: str, run: str, job: Any, chosen: Any, render: Any, complete: bool) -> list[Any] | None:
    """The outcome of the byte scanner (documents or segments), or None when it gives up; a progress line (MiB
    read) in chunks."""
    from dataclasses import replace

    from segeval.executors.processes import outcome
    from segeval.executors.progress import Progress
    from segeval.readers.files import input_size

    chunks = chosen.executor == "chunks"
    with Progress(input_size(run) if chunks else 0, "MiB", quiet=job.engine.quiet or not chunks, scale=2**20) as bar:
        if chosen.reader == "scanner":
            from segeval.executors.lanes import lane_values

            result = lane_values(qrels, run, job, bar.advance, chunks, chosen.whole_if_ungrouped)
        else:
            from segeval.readers.scanner_segments import segment_result

            result = segment_result(qrels, run, job, chosen.executor, on_read=bar.advance)
    return None if result is None else [outcome(replace(result, file=run), render=render, complete=complete)]


def _render_eval(
    ev: Any, runid: str, skipped: int, file: str, *, out: OutputOptions, only_run_queries: bool = False
) -> str:
    from segeval.reports.trec import render, render_csv, render_json

    if out.format == "json":
        return render_json(ev, runid, skipped_lines=skipped, file=file)
    if out.format == "csv":
        return render_csv(ev, runid, per_query=out.per_query, summary=out.summary, file=file)
    shown = set(ev.queries) - set(ev.without_results) if only_run_queries else None
    return render(ev, runid, per_query=out.per_query, summary=out.summary, header=list(out.header), shown=shown)


@app.command("me13sh")
def me13sh(
    qrels: MediaEvalQrels,
    run: MediaEvalRun,
    kind: Annotated[
        MediaEvalFormat,
        typer.Option(
            "--kind",
            "-k",
            help="Run format. linking: 'qid Q0 video start end rank score run'; "
            "search: 'qid Q0 video start end jumpin rank score [run]'.",
        ),
    ] = MediaEvalFormat.linking,
    bin_size: Annotated[
        int, numeric("--bin-size", BINS.domain, "Bin size in seconds for the _bin measures", "-B", metavar="N")
    ] = DEFAULTS.bin_size,
    tolerance: Annotated[
        int,
        numeric("--tolerance", WINDOW.domain, "Tolerance window in seconds for the _tol measures", "-T", metavar="N"),
    ] = DEFAULTS.tolerance,
    items: Annotated[
        str | None,
        typer.Option("--items", "-i", metavar="Q1,Q2", help="Comma-separated query ids to evaluate (default: all)."),
    ] = None,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """The MediaEval S&H / TRECVID LNK evaluation (sh_eval).

    Prints the reference script's rows, values and layout: overlap (no suffix), binned (_bin) and
    tolerance-to-irrelevance (_tol) measures, and MAiSP. Only queries in both the qrels
    and the run are evaluated; results are ordered by the rank column.
    """
    from segeval.adapters.registry import me13sh_adapters
    from segeval.reports.me13sh import MEASURES, bom_notes, render

    adapters = me13sh_adapters(bin_size, tolerance)
    chosen = None
    if items is not None:
        chosen = [x for x in items.split(",") if x]
        if not chosen:
            raise SegevalError(f"The 'items' parameter must list query ids separated by commas. Got {items!r} instead.")
    ev = None
    if chosen is None and time_format == "mmss":  # the usual job: the lane, without pandas
        from segeval.executors.lanes import me13sh_evaluation

        ev = me13sh_evaluation(qrels, run, kind.value, MEASURES, adapters)
    if ev is None:
        from segeval.core.pipeline import evaluate

        try:
            ev = evaluate(
                qrels,
                run,
                MEASURES,
                adapters,
                qrels_format="mediaeval",
                run_format=kind.value,
                queries=chosen,
                time_format=time_format,
            )
        except InputError as exc:
            raise _other_kind(exc, run, kind, time_format) from None
    sys.stdout.write(render(ev, run, bin_size, tolerance))
    notes = [*ev.notes, *bom_notes(qrels, run)]
    if not ev.queries:
        which = "query" if chosen is None else "query of --items"
        notes.append(f"note: no {which} is in both {qrels} and {run}: nothing was evaluated")
    print_notes(*(named(text, run) for text in notes))  # each naming the run file


def _other_kind(exc: InputError, run: str, kind: MediaEvalFormat, time_format: str) -> InputError:
    """``exc``, saying ``--kind search`` when a linking run's malformed line is a valid search line (or the
    other way)."""
    from segeval.readers.formats import RUN_FORMATS
    from segeval.readers.line_parser import parse_line

    other = MediaEvalFormat.search if kind == MediaEvalFormat.linking else MediaEvalFormat.linking
    if exc.path != run or not exc.text or exc.line is None:
        return exc
    try:
        parse_line(exc.text.encode("utf-8"), exc.line, RUN_FORMATS[other.value], run, time_format)
    except SegevalError:
        return exc  # no line of the other kind either
    return InputError(
        exc.path,
        f"{exc.problem} (a {other.value} run? --kind {other.value} reads it)",
        line=exc.line,
        text=exc.text,
        kind=exc.kind,
    )


@app.command("anchoring")
def anchoring_command(
    qrels: Annotated[str, argument("QRELS", "Anchor qrels: 'qid start end rel' (rel > 0 relevant; .gz ok).")],
    run: Annotated[str, argument("RUN", "Anchoring run: 'qid Q0 start end rank score run' (.gz ok).")],
    output: Annotated[str, output_option("text: the toolkit's layout; json, csv: full precision.")] = "text",
    order: Annotated[
        str,
        typer.Option(
            "--order",
            metavar="file|rank",
            help="Ranking of a query's results: file order (as the toolkit) or by the rank field.",
        ),
    ] = "file",
    no_relevant: Annotated[
        str,
        typer.Option(
            "--no-relevant",
            metavar="skip|error",
            help="A run query without a relevant anchor: skip it with a note, or stop (exit 2).",
        ),
    ] = "skip",
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Anchor detection, as the MediaEval anchoring script.

    MediaEval 2015 / TRECVID 2016 hyperlinking, as the toolkit's anchoring script: per query MRR,
    Unjudged_10, Unjudged_1000, P_10 and recall at R, then the 'all' means over the qrels' queries
    with a relevant anchor.
    """
    from segeval.protocols.anchoring.evaluate import evaluate_anchoring, render
    from segeval.reports.tables import check_table_format

    check_table_format(output)
    ev = evaluate_anchoring(qrels, run, order=order, no_relevant=no_relevant, time_format=time_format)
    sys.stdout.write(render(ev, output))
    print_notes(*ev.notes)


@app.command("sample-eval")
def sample_eval_command(
    qrels: Annotated[
        str, argument("QRELS", "Stratified qrels: 'topic 0 docno stratum rel' (rel -1: pooled, not sampled; .gz ok).")
    ],
    run: Annotated[str, argument("RUN", "TREC run: 'topic Q0 docno rank score tag' (.gz ok).")],
    per_topic: Annotated[bool, typer.Option("-q", help="Also print each topic's values.")] = False,
    gain: Annotated[
        list[str] | None,
        typer.Option(
            "--gain",
            "-G",
            metavar="LEVEL=GAIN",
            help="Map a qrels grade to a gain (repeatable, or comma-separated: -G 1=3,2=9), as sample_eval.pl's -G "
            "(which reads one-character levels and gains of up to 3 characters).",
        ),
    ] = None,
    max_result_size: Annotated[
        int,
        numeric(
            "--max-result-size",
            CUTOFF,
            "Results used per topic, and the last precision cut-off (sample_eval.pl: 1000)",
            metavar="N",
        ),
    ] = 1000,
) -> None:
    """NIST's sample_eval.pl on sampled (stratified) judgements.

    xinfAP, infNDCG and inferred precision, byte for byte as sample_eval.pl.

    Topics in both files are evaluated (the run's topic ids without leading zeros); each run topic's
    results are sorted by score, ties by docno descending, and cut at --max-result-size.
    """
    from segeval.measures.sampled import sample_eval
    from segeval.readers.strata import parse_gains, read_sampled_run, read_strata_qrels

    table = parse_gains(gain)
    sys.stdout.write(
        sample_eval(
            read_strata_qrels(qrels, table), read_sampled_run(run), per_topic=per_topic, max_result_size=max_result_size
        )
    )
