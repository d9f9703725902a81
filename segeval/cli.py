"""Command line: ``segeval me13sh`` (more commands follow).  Exit codes: 0 ok, 2 bad input or usage."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.exceptions import TyperException

from segeval import __version__
from segeval.errors import SegevalError, check_choice, printable, render_note
from segeval.measures import REGISTRY
from segeval.settings import DEFAULTS

if TYPE_CHECKING:
    from collections.abc import Callable

    from segeval.analysis.submission import Rules
    from segeval.errors import InputError as _InputError

app = typer.Typer(
    name="segeval",
    help="Evaluate segment-based multimedia retrieval runs (MediaEval, TRECVID, trec_eval-style).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


_ARGV: list[str] = []


class RunKind(StrEnum):
    linking = "linking"
    search = "search"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"segeval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """segeval: evaluation for segment-based multimedia retrieval."""


QrelsArg = Annotated[str, typer.Argument(
    metavar="QRELS", show_default=False, help="Qrels: 'qid Q0 video start end rel' (times M.S; .gz ok).")]
RunArg = Annotated[str, typer.Argument(
    metavar="RUN", show_default=False, help="Run file in the --kind format (.gz ok).")]
KindOpt = Annotated[RunKind, typer.Option(
    "--kind", "-k", help="Run format. linking: 'qid Q0 video start end rank score run'; "
                         "search: 'qid Q0 video start end jumpin rank score [run]'.")]
BinSizeOpt = Annotated[int, typer.Option(
    "--bin-size", "-B", metavar="N", help="Bin size in seconds for the _bin measures.")]
ToleranceOpt = Annotated[int, typer.Option(
    "--tolerance", "-T", metavar="N", help="Tolerance window in seconds for the _tol measures.")]
ItemsOpt = Annotated[str | None, typer.Option(
    "--items", "-i", metavar="Q1,Q2", help="Comma-separated query ids to evaluate (default: all).")]

# the engine options of eval and compare (checked by segeval.engines.runs.check_engine)
JobsOpt = Annotated[int | None, typer.Option(
    "--jobs", "-j", metavar="N", help="Processes for several runs (default: all cores); the output does not "
                                      "depend on it.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", help="No progress line on stderr.")]
MemoryOpt = Annotated[str, typer.Option(
    "--memory", metavar="auto|chunked|in-memory",
    help="How a run is read. chunked: in chunks, evaluating each query once its lines are read, so memory "
         "stays flat (needs each query's lines together, else it says so and reads the file whole); "
         "in-memory: whole; auto: chunked for files of 128 MiB or more (gzip: 32 MiB). Same output.")]
ChunkLinesOpt = Annotated[int, typer.Option(
    "--chunk-lines", metavar="N", help="Lines per chunk in the chunked path.")]
EngineOpt = Annotated[str, typer.Option(
    "--engine", metavar="processes|dask",
    help="processes: --jobs local processes; dask: (run, query-partition) tasks on a Dask cluster "
         "(pip install 'segeval[dask]'). Same output.")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS",
    help="With --engine dask: the scheduler of an existing cluster, such as tcp://host:8786 (the workers must "
         "see the run files). Default: start a local cluster of --jobs worker processes.")]


@app.command("me13sh")
def me13sh(
    qrels: QrelsArg,
    run: RunArg,
    kind: KindOpt = RunKind.linking,
    bin_size: BinSizeOpt = DEFAULTS.bin_size,
    tolerance: ToleranceOpt = DEFAULTS.tolerance,
    items: ItemsOpt = None,
) -> None:
    """The MediaEval Search & Hyperlinking / TRECVID LNK evaluation, as the reference sh_eval script.

    Prints the same rows, values and layout: overlap (no suffix), binned (_bin) and
    tolerance-to-irrelevance (_tol) measures, and MAiSP. Only queries in both the qrels
    and the run are evaluated; results are ordered by the rank column.
    """
    from segeval.pipeline import evaluate, me13sh_adapters
    from segeval.report.me13sh import MEASURES, render

    adapters = me13sh_adapters(bin_size, tolerance)
    chosen = None
    if items is not None:
        chosen = [x for x in items.split(",") if x]
        if not chosen:
            raise SegevalError(f"The 'items' parameter must list query ids separated by commas. Got {items!r} "
                               f"instead.")
    ev = evaluate(qrels, run, MEASURES, adapters, qrels_format="mediaeval", run_format=kind.value, queries=chosen)
    sys.stdout.write(render(ev, run, bin_size, tolerance))
    notes = list(ev.notes)
    if not ev.queries:
        which = "query" if chosen is None else "query of --items"
        notes.append(f"note: no {which} is in both {qrels} and {run}: nothing was evaluated")
    from segeval.engines.runs import named

    for text in notes:  # each naming the run file
        print(render_note(named(text, run)), file=sys.stderr)


HEADER_SETS = ("official", "all_trec", "set")  # sets that open with runid and num_q


@app.command("eval")
def eval_(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(
        metavar="RUN...", show_default=False,
        help="Run files, globs or directories (each file once; outputs in this order).")],
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", metavar="NAME",
        help=REGISTRY.help(default="official"))] = None,
    per_query: Annotated[bool, typer.Option("-q", help="Also print each query's values.")] = False,
    complete: Annotated[bool, typer.Option(
        "-c", help="Average over every qrels query; queries missing from the run score 0.")] = False,
    no_summary: Annotated[bool, typer.Option("-n", help="Do not print the summary rows.")] = False,
    level: Annotated[int, typer.Option("-l", metavar="N", help="Relevant means a qrels grade >= N.")]
    = DEFAULTS.relevance_level,
    max_results: Annotated[int | None, typer.Option("-M", metavar="N", help="Use the first N results per query.")]
    = None,
    judged: Annotated[bool, typer.Option("-J", help="Drop unjudged results before evaluating.")] = False,
    adapter: Annotated[str | None, typer.Option(
        "--adapter", "-a", metavar="NAME",
        help="exact (default for documents), overlap (default for segments), overlap-once, binned[:B[:start]], "
             "tolerance[:T], tiou[:theta[:strict][:float32]].")] = None,
    time_format: Annotated[str, typer.Option(
        "--time-format", metavar="mmss|seconds|hms",
        help="Times in segment files: mmss (M.S, the MediaEval format), seconds (1025.5) or hms (0:17:05.5).")]
    = DEFAULTS.time_format,
    version: Annotated[str, typer.Option(
        "--trec-eval", metavar="10|9", help="trec_eval version to reproduce: 10 (default) or 9.0.8, which "
        "pytrec_eval wraps (32-bit scores, iprec_at_recall cut-offs rounded up).")] = DEFAULTS.trec_eval,
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="trec|json|csv", help="Output format (trec: trec_eval's text layout).")] = "trec",
    jobs: JobsOpt = None,
    quiet: QuietOpt = False,
    lenient: Annotated[bool, typer.Option(
        "--lenient", help="Skip malformed lines instead of stopping; each is listed on stderr and counted in "
                          "the JSON output, and the exit code is 3.")] = False,
    memory: MemoryOpt = DEFAULTS.memory,
    chunk_lines: ChunkLinesOpt = DEFAULTS.chunk_lines,
    engine: EngineOpt = "processes",
    scheduler: SchedulerOpt = None,
    order: Annotated[str | None, typer.Option(
        "--order", metavar="score|rank|file",
        help="Result order. Default: score (ties by docno descending) for TREC runs, rank for MediaEval runs.")]
    = None,
    predicted: Annotated[str, typer.Option(
        "--predicted", metavar="use|ignore",
        help="Classifier-predicted lines of completed qrels (segeval complete-qrels): use them (default; a "
             "note on stderr counts them) or ignore them.")] = DEFAULTS.predicted,
) -> None:
    """trec_eval's measures and flags, on document runs and (through an adapter) on segment runs."""
    from functools import partial

    from segeval.engines.runs import check_engine, evaluate_many, expand_runs
    from segeval.errors import InputError, check_choice
    from segeval.io.tables import read_qrels
    from segeval.validate import validate_qrels

    check_choice("output", output, ("trec", "json", "csv"))
    check_engine(jobs, memory, chunk_lines, engine, scheduler)
    run_files = expand_runs(runs)
    skipped_qrels: list[InputError] = []
    q = validate_qrels(read_qrels(qrels, time_format=time_format, on_error=skipped_qrels.append if lenient else None),
                       skipped_qrels.append if lenient else None)
    names = measure or ["official"]
    # trec_eval prints runid and num_q only when asked for, or with a measure set
    header = [n for n in ("runid", "num_q") if n in names or any(s in names for s in HEADER_SETS)]
    names = [n for n in names if n not in ("runid", "num_q")]
    options = {"measures": names, "adapter": adapter, "order": order, "relevance_level": level,
               "missing_queries": "zero" if complete else "skip", "max_results": max_results,
               "judged_only": judged, "trec_eval": version, "predicted": predicted}
    render = partial(_render_eval, output=output, per_query=per_query, summary=not no_summary, header=header)
    outcomes = evaluate_many(q, run_files, jobs, quiet=quiet, engine=engine, scheduler=scheduler, render=render,
                             evaluate_options=options, time_format=time_format, lenient=lenient, complete=complete,
                             memory=memory, chunk_lines=chunk_lines)
    body = [o.stdout for o in outcomes]
    if output == "trec" and len(run_files) > 1:  # each row names its run file in a first column
        from segeval.report.trec import prefixed

        body = [prefixed(b, f) for b, f in zip(body, run_files, strict=True)]
    if output == "csv":  # one header line
        body = [b if i == 0 else b.split("\n", 1)[-1] for i, b in enumerate(body)]
    if output == "json" and len(run_files) > 1:
        body = ["[\n" + ",\n".join(b.rstrip("\n") for b in body if b) + "\n]\n"]
    sys.stdout.write("".join(body))
    for e in skipped_qrels:
        print(e.skipped(), file=sys.stderr)
    for o in outcomes:
        sys.stderr.write(o.stderr)
    skipped = len(skipped_qrels) + sum(o.skipped for o in outcomes)
    if any(o.failed for o in outcomes):
        raise typer.Exit(2)
    if skipped:
        print(f"segeval: {skipped} malformed lines skipped (--lenient)", file=sys.stderr)
        raise typer.Exit(3)


def _render_eval(ev: Any, runid: str, skipped: int, file: str, *, output: str, per_query: bool, summary: bool,
                 header: list[str]) -> str:
    from segeval.report.trec import render, render_csv, render_json

    if output == "json":
        return render_json(ev, runid, skipped_lines=skipped, file=file)
    if output == "csv":
        return render_csv(ev, runid, per_query=per_query, summary=summary, file=file)
    return render(ev, runid, per_query=per_query, summary=summary, header=header)


VideosOpt = Annotated[str | None, typer.Option(
    "--videos", metavar="FILE", help="The collection's video list: 'video duration' lines (duration in seconds or "
                                     "H:MM:SS).")]
BlacklistOpt = Annotated[str | None, typer.Option(
    "--blacklist", metavar="FILE", help="Videos a run may not return, one id per line.")]
QueriesOpt = Annotated[str | None, typer.Option(
    "--queries", metavar="FILE", help="The queries: one id per line (first field), or the toolkit's anchors/queries "
                                      "XML.")]
MaxRankOpt = Annotated[int | None, typer.Option(
    "--max-rank", metavar="N", help="At most N results per query.")]


@app.command("check")
def check(
    files: Annotated[list[str], typer.Argument(metavar="[QRELS] RUN", show_default=False,
                                               help="Qrels and run; only the run with --videos, --blacklist, "
                                                    "--queries or --max-rank.")],
    run_format: Annotated[str, typer.Option("--run-format", metavar="auto|trec|linking|search")] = "auto",
    qrels_format: Annotated[str, typer.Option("--qrels-format", metavar="auto|trec|mediaeval|groups")] = "auto",
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = DEFAULTS.time_format,
    videos: VideosOpt = None,
    blacklist: BlacklistOpt = None,
    queries: QueriesOpt = None,
    max_rank: MaxRankOpt = None,
) -> None:
    """Validate both files without evaluating: every problem at once, then the counts per type.
    With a collection (--videos, --blacklist, --queries, --max-rank) also the organisers' rules:
    known and allowed videos, times within the video, no zero length, known and present queries,
    no overlap within a query, at most N results, ranks 1..n.
    Exit code 0 when both are valid, 2 otherwise."""
    from collections import Counter

    from segeval.errors import InputError
    from segeval.io.tables import read_qrels, read_run
    from segeval.validate import check_kinds, is_documents, validate_qrels, validate_run

    collection = any(x is not None for x in (videos, blacklist, queries, max_rank))
    if len(files) != 2 - collection and len(files) != 2:
        raise typer.BadParameter(f"got {len(files)} file{'' if len(files) == 1 else 's'}; expected QRELS RUN "
                                 f"(only RUN with --videos, --blacklist, --queries or --max-rank)",
                                 param_hint="'[QRELS] RUN'")
    qrels, run = (files[0], files[1]) if len(files) == 2 else (None, files[0])
    problems: list[InputError] = []
    rules = _collection_rules(videos, blacklist, queries, max_rank, problems.append) if collection else None
    frames = []
    inputs = ((qrels, read_qrels, validate_qrels, qrels_format),) if qrels is not None else ()
    read_run_frame = None
    for i, (path, read, validate, fmt) in enumerate((*inputs, (run, read_run, validate_run, run_format))):
        try:
            frame = read(path, fmt, time_format, problems.append)
            if i == len(inputs):  # the run
                read_run_frame = frame
            frames.append(validate(frame, problems.append))
        except InputError as exc:  # a file-level problem (missing, empty, not gzip): nothing more to read
            problems.append(exc)
    if qrels is not None and len(frames) == 2 and len(frames[1]):
        try:
            check_kinds(frames[0], is_documents(frames[1]), run, frames[1].attrs.get("format"))
        except InputError as exc:
            problems.append(exc)
    if rules is not None and read_run_frame is not None:
        from segeval.analysis.submission import check_submission

        check_submission(read_run_frame, rules, problems.append)  # the run as read: lines validate drops too
    for problem in problems:
        print(f"segeval: {problem}", file=sys.stderr)
    counts = Counter((problem.path, problem.kind) for problem in problems)
    for (path, kind), n in sorted(counts.items()):
        print(f"{printable(path)}\t{kind}\t{n}")
    print(f"{len(problems)} problems" if problems else "no problems")
    if problems:
        raise typer.Exit(2)


def _collection_rules(videos: str | None, blacklist: str | None, queries: str | None, max_rank: int | None,
                      on_error: Callable[[_InputError], None] | None) -> Rules | None:
    """The rules of --videos, --blacklist, --queries and --max-rank (``None`` when a file cannot be read,
    the problem reported to ``on_error``, or raised without it)."""
    from segeval.analysis.submission import Rules
    from segeval.errors import InputError, check_int
    from segeval.io.collection import read_blacklist, read_queries, read_videos

    if max_rank is not None:
        check_int("max_rank", max_rank, minimum=1)
    try:
        return Rules(read_videos(videos) if videos is not None else None,
                     read_blacklist(blacklist) if blacklist is not None else None,
                     read_queries(queries) if queries is not None else None, max_rank)
    except InputError as exc:
        if on_error is None:
            raise
        on_error(exc)
        return None


@app.command("fix")
def fix(
    run: Annotated[str, typer.Argument(metavar="RUN", show_default=False,
                                       help="A MediaEval linking or search run, or a TREC run (.gz ok).")],
    output: Annotated[str | None, typer.Option("--output", "-o", metavar="OUT",
                                               help="The repaired run (default: standard output).")] = None,
    log: Annotated[str | None, typer.Option("--log", metavar="LOG",
                                            help="One line per change (default: standard error).")] = None,
    videos: VideosOpt = None,
    blacklist: BlacklistOpt = None,
    queries: QueriesOpt = None,
    max_rank: MaxRankOpt = None,
    zero_length: Annotated[float, typer.Option(
        "--zero-length", metavar="SECONDS", help="Length given to a result with start = end (whole seconds for M.S "
                                                 "times).")] = 1.0,
    overlap: Annotated[str, typer.Option(
        "--overlap", metavar="trim|drop", help="A result overlapping an earlier one of its query: trim keeps its "
                                               "longest free part, drop removes it.")] = "trim",
    run_format: Annotated[str, typer.Option("--run-format", metavar="auto|trec|linking|search")] = "auto",
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = DEFAULTS.time_format,
) -> None:
    """Repair a run against the collection (the rules of check --videos ...) and log each change: drop
    unknown or blacklisted videos and unknown queries, swap reversed times, clip to the video's end,
    lengthen zero-length results, remove overlaps, cut at --max-rank, renumber ranks 1..n.
    The run's format and time format are kept.  Exit code 0 when written, 2 on bad input."""
    from segeval.analysis.submission_fix import fix_submission
    from segeval.errors import check_choice
    from segeval.io.formats import TIME_FORMATS
    from segeval.io.tables import read_run

    check_choice("time_format", time_format, TIME_FORMATS)
    check_choice("run_format", run_format, ("auto", "trec", "linking", "search"))
    from segeval.output import check_output

    inputs = [x for x in (run, videos, blacklist, queries) if x is not None]
    for target in (output, log):
        if target is not None:
            check_output(target, inputs)  # refused before any work: a missing folder, an input, ...
    rules = _collection_rules(videos, blacklist, queries, max_rank, None)
    assert rules is not None  # without on_error a problem raises
    frame = read_run(run, run_format, time_format)
    fixed = fix_submission(frame, rules, time_format, zero_length=zero_length, overlap=overlap)
    log_text = "".join(printable(line) + "\n" for line in fixed.log)
    _write_text(output, fixed.text, sys.stdout, inputs)
    _write_text(log, log_text, sys.stderr, inputs)
    for query in fixed.missing:
        print(render_note(f"segeval: note: query '{query}' has no result in the repaired run; no repair can "
                          f"supply one"), file=sys.stderr)


def _write_text(path: str | None, text: str, stream: Any, inputs: list[str]) -> None:
    """Write ``text`` to ``path`` through the one output writer (whole or not at all, never over an input);
    None: ``stream``."""
    if path is None:
        stream.write(text)
        stream.flush()
        return
    from segeval.output import write_output

    write_output(path, text, inputs=inputs)


@app.command("compare")
def compare(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False,
                                              help="Two or more runs (files, globs or directories).")],
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", metavar="NAME",
                                                      help=REGISTRY.help(default="map"))] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME", help="Relevance adapter.")] = None,
    baseline: Annotated[str | None, typer.Option("--baseline", metavar="RUN",
                                                 help="The run the others are compared with (default: the first).")]
    = None,
    test: Annotated[str, typer.Option("--test", metavar="t|wilcoxon|randomization|bootstrap",
                                      help="Paired significance test.")] = "t",
    correction: Annotated[str, typer.Option("--correction", metavar="holm|bonferroni|none",
                                            help="Correction across the comparisons.")] = "holm",
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level for the * mark, in (0, 1).")] = 0.05,
    permutations: Annotated[int, typer.Option("--permutations", help="Randomization/bootstrap resamples, 1 to "
                                              "10^7 (SEGEVAL_MAX_PERMUTATIONS raises the limit).")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed >= 0 (results are reproducible).")] = 0,
    output: Annotated[str, typer.Option("--output", "-o", metavar="text|markdown|latex|csv|json")] = "text",
    jobs: JobsOpt = None,
    quiet: QuietOpt = False,
    memory: MemoryOpt = DEFAULTS.memory,
    chunk_lines: ChunkLinesOpt = DEFAULTS.chunk_lines,
    engine: EngineOpt = "processes",
    scheduler: SchedulerOpt = None,
) -> None:
    """One table of runs x measures, each run against the baseline: difference, 95% interval, p-value.
    Runs may be files, globs or directories; --jobs, --memory and --engine work as for eval."""
    from segeval.analysis.compare import FORMATS, check_statistics, compare_runs, render
    from segeval.engines.runs import check_engine, expand_runs
    from segeval.errors import check_choice

    check_choice("output", output, FORMATS)
    check_engine(jobs, memory, chunk_lines, engine, scheduler)
    check_statistics(test, correction, alpha, permutations, seed)
    expanded = expand_runs(runs)
    _check_distinct_runs(runs, expanded)
    result = compare_runs(qrels, expanded, measure or ["map"], adapter=adapter, baseline=baseline,
                          test=test, correction=correction, alpha=alpha, permutations=permutations, seed=seed,
                          jobs=jobs, memory=memory, chunk_lines=chunk_lines, engine=engine, scheduler=scheduler,
                          quiet=quiet, on_note=lambda text: print(render_note(text), file=sys.stderr))
    sys.stdout.write(render(result, output))


def _check_distinct_runs(given: list[str], expanded: list[str]) -> None:
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
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False,
                                              help="Two or more runs (files, globs or directories).")],
    measure: Annotated[str, typer.Option("--measure", "-m", metavar="NAME", help="Measure of setting 1.")] = "map",
    measure2: Annotated[str | None, typer.Option("--measure2", metavar="NAME",
                                                 help="Measure of setting 2 (default: the same).")] = None,
    qrels2: Annotated[str | None, typer.Option("--qrels2", metavar="QRELS",
                                               help="Qrels of setting 2 (default: the same).")] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME", help="Adapter of setting 1.")]
    = None,
    adapter2: Annotated[str | None, typer.Option("--adapter2", metavar="NAME",
                                                 help="Adapter of setting 2 (default: the same).")] = None,
) -> None:
    """How two evaluation settings rank the same runs: Kendall tau (-b and ties-agree), Spearman rho,
    tau_AP, swapped pairs and the RMS error of the scores."""
    import json
    import math

    from segeval.analysis import correlate as C
    from segeval.engines.runs import expand_runs
    from segeval.notes import bare, for_run
    from segeval.pipeline import evaluate

    given = runs
    runs = expand_runs(runs)
    _check_distinct_runs(given, runs)
    if len(runs) < 2:
        raise SegevalError("The 'runs' parameter must name at least two runs to rank.")

    notes: list[str] = []

    def scores(q: str, name: str, a: str | None, setting: int) -> list[float]:
        out = []
        for r in runs:
            ev = evaluate(q, r, [name], adapter=a, missing_queries="zero")
            out.append(float(next(iter(ev.summary.values()))))
            notes.extend(bare(n) for n in for_run(f"setting {setting}, {r}", ev.notes))
        return out

    x = scores(qrels, measure, adapter, 1)
    y = scores(qrels2 or qrels, measure2 or measure, adapter2 if adapter2 is not None else adapter, 2)
    doc: dict[str, Any] = {
        "runs": runs, "setting1": x, "setting2": y, "kendall_tau_b": C.kendall_tau(x, y),
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
    sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    for n in notes:
        print(render_note(f"note: {n}"), file=sys.stderr)


@app.command("report")
def report(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False, help="Runs to compare.")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.html", help="Where to write the page.")],
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", metavar="NAME",
                                                      help=REGISTRY.help(default="map and P_10"))] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME", help="Relevance adapter.")] = None,
    baseline: Annotated[str | None, typer.Option("--baseline", metavar="RUN", help="Baseline run.")] = None,
    test: Annotated[str, typer.Option("--test", metavar="t|wilcoxon|randomization|bootstrap")] = "t",
    correction: Annotated[str, typer.Option("--correction", metavar="holm|bonferroni|none")] = "holm",
) -> None:
    """One self-contained HTML page: the comparison table, figures and a sortable per-query table."""
    from segeval.report.html import render_report

    if not output.lower().endswith(".html"):
        raise SegevalError(f"The 'output' parameter must end in .html. Got {output!r} instead.")
    import shlex

    print(render_report(qrels, runs, output, measures=measure or ["map", "P_10"], adapter=adapter,
                        baseline=baseline, test=test, correction=correction,
                        command=shlex.join(["segeval", *_ARGV])))


def _runs_by_name(runs: list[str], time_format: str = DEFAULTS.time_format) -> dict[str, Any]:
    from segeval.engines.runs import expand_runs, run_names
    from segeval.io.tables import read_run
    from segeval.validate import validate_run

    paths = expand_runs(runs)
    return {name: validate_run(read_run(r, time_format=time_format))
            for name, r in zip(run_names(paths), paths, strict=True)}


def _run_aliases(name: str) -> tuple[str, str]:
    """What a groups file or --leave-out-runs may call a run file: its name, or its name without extensions."""
    return name, name.split(".", 1)[0]


def _groups_for(path: str, names: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Group and type of each run file, named in the groups file by file name or by its stem."""
    from segeval.errors import InputError
    from segeval.io.aux import read_groups

    lines: dict[str, tuple[int, str]] = {}
    group_of, type_of = read_groups(path, lines)
    groups: dict[str, str] = {}
    types: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        key = next((a for a in _run_aliases(name) if a in group_of), None)
        if key is None:
            raise InputError(path, f"has no line for run '{name}'; expected 'run group [type]' for every run "
                                   f"(its name as segeval shows it: the file name, with folders when files share a "
                                   f"name; or that without extensions)")
        used.add(key)
        groups[name] = group_of[key]
        if key in type_of:
            types[name] = type_of[key]
    for key in sorted(set(group_of) - used, key=lambda k: lines[k][0]):
        given = ", ".join(sorted(names))
        raise InputError(path, f"names run '{key}', which is not among the runs given ({given}); expected a line "
                               f"for each run given and no other (file name, or file name without extensions)",
                         line=lines[key][0], text=lines[key][1])
    return groups, types


@app.command("pool")
def pool_command(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False, help="Runs (files, globs, dirs).")],
    depth: Annotated[int, typer.Option("--depth", "-d", metavar="D", help="Pool depth.")] = 100,
    groups: Annotated[str | None, typer.Option("--groups", metavar="FILE", help="'run group [type]' lines.")] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME",
                                                help="Adapter matching segment results to qrels segments "
                                                     "(default overlap).")] = None,
) -> None:
    """Judged items (documents, or qrels segments) each run and group put in its top D, and each group's
    unique contribution."""
    from segeval.analysis.pool import contributions
    from segeval.io.tables import read_qrels
    from segeval.validate import validate_qrels

    q = validate_qrels(read_qrels(qrels))
    by_name = _runs_by_name(runs)
    pool = contributions(q, by_name, depth, _groups_for(groups, by_name)[0] if groups else None, adapter)
    print("run\tjudged\trelevant")
    for name in sorted(pool.runs):
        print(f"{name}\t{len(pool.runs[name])}\t{len(pool.runs[name] & pool.relevant)}")
    print()
    sys.stdout.write(pool.table().to_csv(sep="\t", index=False))


@app.command("pool-bias")
def pool_bias_command(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False, help="Runs (files, globs, dirs).")],
    groups: Annotated[str, typer.Option("--groups", metavar="FILE", help="'run group [type]' lines.")],
    depth: Annotated[int, typer.Option("--depth", "-d", metavar="D", help="Pool depth.")] = 100,
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", metavar="NAME",
                                                      help=REGISTRY.help(default="map, P_20, bpref; "
                                                                                  "'paper': the paper's eight"))]
    = None,
    leave_out_runs: Annotated[str | None, typer.Option(
        "--leave-out-runs", metavar="RUN,RUN|type:T", help="One experiment leaving these runs out (or every run "
                                                            "of a type), instead of one per group.")] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME",
                                                help="Relevance adapter for segment runs (default as eval).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress line on stderr.")] = False,
) -> None:
    """Leave-one-group-out: how each measure's ranking moves when a group's unique judgements go (rms_error: the
    left-out runs' scores; rms_error_all: every run's score in every experiment)."""
    from segeval.analysis.pool import DEFAULT_MEASURES, leave_one_out
    from segeval.io.tables import read_qrels
    from segeval.validate import validate_qrels

    q = validate_qrels(read_qrels(qrels))
    by_name = _runs_by_name(runs)
    group_of, type_of = _groups_for(groups, by_name)
    experiments = None
    if leave_out_runs:
        if leave_out_runs.startswith("type:"):
            found = [{n for n, t in type_of.items() if t == leave_out_runs[5:]}]
        else:
            found = [{n for n in by_name if x in _run_aliases(n)} for x in leave_out_runs.split(",") if x]
        chosen = set().union(*found)
        if not found or not all(found):  # every name (or the type) must match a run given
            raise SegevalError(f"The 'leave_out_runs' parameter must name runs given. Got {leave_out_runs!r} "
                               f"instead.")
        experiments = {"left out": chosen}
    rows = leave_one_out(q, by_name, depth, group_of, measure or DEFAULT_MEASURES, experiments, adapter, quiet=quiet)
    _print_value_notes(q, by_name, measure or DEFAULT_MEASURES, adapter)
    print("measure\tmean_abs_rank_change\tmax_down\tmax_up\trms_error\tsignificant_share\tkendall_tau\tmean_error\t"
          "rms_error_all")
    for r in rows:
        print(f"{r.measure}\t{r.mean_abs_rank_change:.3f}\t{r.max_down}\t{r.max_up}\t{r.rms_error_left_out:.4f}\t"
              f"{r.significant_share:.3f}\t{r.kendall_tau:.4f}\t{r.mean_error:+.4f}\t{r.rms_error_all:.4f}")


def _print_value_notes(q: Any, by_name: dict[str, Any], measures: Sequence[str], adapter: str | None) -> None:
    """The notes eval gives each run on the full qrels (values above 1, ...), on stderr."""
    from segeval.notes import for_run
    from segeval.pipeline import evaluate

    for name, r in by_name.items():
        for note in for_run(name, evaluate(q, r, list(measures), adapter=adapter, missing_queries="zero").notes):
            print(render_note(note), file=sys.stderr)


@app.command("incompleteness")
def incompleteness_command(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False, help="Runs (files, globs, dirs).")],
    fractions: Annotated[str, typer.Option("--fractions", metavar="F,F,...",
                                           help="Fractions of each query's judgements kept.")]
    = "1,0.8,0.6,0.4,0.2,0.1,0.05",
    repeats: Annotated[int, typer.Option("--repeats", "-r", metavar="R", help="Random reductions per fraction.")] = 10,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Random seed.")] = 0,
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", metavar="NAME",
                                                      help=REGISTRY.help(default="map, P_20, bpref"))] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME",
                                                help="Relevance adapter for segment runs (default as eval).")] = None,
    plot: Annotated[str | None, typer.Option("--plot", metavar="FILE", help="Also draw Figure 1 (.png/.svg).")]
    = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress line on stderr.")] = False,
) -> None:
    """Random reductions of the qrels: mean score and Kendall's tau with the full qrels per fraction."""
    from segeval.analysis.pool import DEFAULT_MEASURES, incompleteness
    from segeval.errors import ParameterError
    from segeval.io.tables import read_qrels
    from segeval.validate import validate_qrels

    try:
        values = [float(x) for x in fractions.split(",") if x.strip()]
    except ValueError:
        raise ParameterError(f"The 'fractions' parameter must be numbers in (0, 1] separated by commas. "
                             f"Got {fractions!r} instead.") from None
    if plot:
        from segeval.viz import check_output

        check_output(plot, [qrels, *runs])
    q, by_name = validate_qrels(read_qrels(qrels)), _runs_by_name(runs)
    table = incompleteness(q, by_name, measure or DEFAULT_MEASURES, values, repeats, seed, adapter, quiet=quiet)
    _print_value_notes(q, by_name, measure or DEFAULT_MEASURES, adapter)
    print("measure\tfraction\tmean_score\tkendall_tau\tmin_kendall_tau")
    for r in table.itertuples(index=False):
        print(f"{r.measure}\t{r.fraction:g}\t{r.mean_score:.4f}\t{r.kendall_tau:.4f}\t{r.min_kendall_tau:.4f}")
    if plot:
        from segeval.viz.compare import incompleteness as figure

        figure(table, plot)
        print(render_note(f"wrote {plot}"), file=sys.stderr)


@app.command("complete-qrels")
def complete_qrels_command(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False, help="Runs (files, globs, dirs).")],
    texts: Annotated[str, typer.Option(
        "--texts", metavar="FILE", help="Item texts: 'docno<TAB>text' lines for documents, or a transcript of "
                                        "'video start end text' lines for segments.")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="OUT", help="Completed qrels file to write.")],
    classifier: Annotated[str, typer.Option(
        "--classifier", metavar="kld|svm", help="kld: divergence from the relevant items' language model; svm: "
                                                "linear SVM on TF-IDF (needs scikit-learn).")] = "kld",
    depth: Annotated[int, typer.Option("--depth", "-d", metavar="D",
                                       help="Classify the unjudged items in each run's top D.")] = 100,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME",
                                                help="Adapter deciding which segment results are judged "
                                                     "(default overlap).")] = None,
    smoothing: Annotated[float, typer.Option("--smoothing", metavar="LAMBDA",
                                             help="kld: weight of the collection model in both models.")] = 0.2,
    kld_fit: Annotated[str, typer.Option(
        "--kld-fit", metavar="leave-one-out|resubstitution",
        help="kld: a relevant training item's divergence is taken from the other relevant items' model "
             "(leave-one-out) or from the model holding it (resubstitution, the paper's literal rule).")]
    = "leave-one-out",
    terms: Annotated[int, typer.Option("--terms", metavar="N",
                                       help="svm: features are the N most frequent collection terms.")] = 1_000_000,
    level: Annotated[int, typer.Option("-l", metavar="N", help="Relevant means a qrels grade >= N.")]
    = DEFAULTS.relevance_level,
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = DEFAULTS.time_format,
) -> None:
    """Label the unjudged items in the runs' top D with a classifier trained on the judged ones (Büttcher et
    al. 2007); predicted lines are marked 'predicted:CLASSIFIER' in an extra last field, the others 'human'."""
    from segeval.analysis.complete import complete_qrels
    from segeval.engines.runs import expand_runs
    from segeval.io.aux import read_texts
    from segeval.io.files import read_bytes
    from segeval.io.formats import SOURCE_HUMAN
    from segeval.io.tables import read_qrels
    from segeval.output import check_output, open_output
    from segeval.validate import is_documents, validate_qrels

    inputs = [qrels, *expand_runs(runs), texts]
    check_output(output, inputs)
    q = validate_qrels(read_qrels(qrels, time_format=time_format))
    by_name = _runs_by_name(runs, time_format)
    t = read_texts(texts, segments=not is_documents(q), time_format=time_format)
    done = complete_qrels(q, by_name, t, classifier, depth, adapter=adapter, smoothing=smoothing, terms=terms,
                          relevance_level=level, kld_fit=kld_fit)
    raw = read_bytes(qrels).split(b"\n")
    human = [raw[n - 1].decode("utf-8", "replace").rstrip() + " " + SOURCE_HUMAN for n in q["line"].tolist()]
    predicted = done.lines(time_format)
    with open_output(output, inputs=inputs) as f:
        f.write("".join(line + "\n" for line in human + predicted))
    s = done.stats
    relevant = int(done.predicted["rel"].sum())
    print(f"classifier\t{classifier}" + (f" (lambda {smoothing:g}, {kld_fit})" if classifier == "kld"
                                          else f" ({terms} terms)"))
    print(f"queries\t{len(s)}")
    print(f"training items\t{int(s['judged'].sum()) if len(s) else 0} judged, "
          f"{int(s['relevant'].sum()) if len(s) else 0} relevant")
    print(f"classified\t{len(done.predicted)} unjudged items in the top {depth}: {relevant} predicted relevant")
    if len(s):
        print(f"training fit\tprecision {s['train_precision'].mean():.4f}, recall {s['train_recall'].mean():.4f} "
              f"(mean over queries with a value)")
    print(f"wrote\t{output}: {len(human)} human and {len(predicted)} predicted lines")
    if done.no_text:
        print(render_note(f"note: {done.no_text} items have no text in {texts} (no tokens, or no transcript line "
                          f"under a segment), e.g. {done.no_text_example}; they are neither training items nor "
                          f"classified, and stay unjudged"), file=sys.stderr)


@app.command("mr")
def moment_retrieval(
    truth: Annotated[str, typer.Argument(metavar="GROUND_TRUTH", show_default=False,
                                         help="The protocol's ground truth (QVHighlights: JSON Lines with "
                                              "relevant_windows; TVR: JSON Lines with ts; .gz ok).")],
    predictions: Annotated[str, typer.Argument(metavar="PREDICTIONS", show_default=False,
                                               help="The protocol's predictions (QVHighlights: JSON Lines with "
                                                    "pred_relevant_windows [start, end, score] and/or "
                                                    "pred_saliency_scores; TVR: the submission JSON with "
                                                    "video2idx, VCMR, SVMR, VR).")],
    protocol: Annotated[str, typer.Option("--protocol", "-p", metavar="NAME",
                                          help="Whose official evaluation to follow: "
                                               "qvhighlights, tvr, didemo, ego4d-nlq, recall.")] = "qvhighlights",
    thresholds: Annotated[str | None, typer.Option(
        "--thresholds", metavar="T,T", help="IoU thresholds (ego4d-nlq: 0.3,0.5; recall: 0.5,0.7).")] = None,
    top_k: Annotated[str | None, typer.Option(
        "--top-k", metavar="K,K", help="Cut-offs of R@k (ego4d-nlq, recall: 1,5).")] = None,
    iou_compare: Annotated[str | None, typer.Option(
        "--iou-compare", metavar="ge|gt", help="A hit is IoU >= t (ge) or > t (gt) (recall: ge).")] = None,
    nms: Annotated[float | None, typer.Option(
        "--nms", metavar="θ", help="Temporal NMS: drop a window with IoU > θ to a better one (recall: off).")] = None,
    full: Annotated[bool, typer.Option("--full", help="Print every key (the same as -o json).")] = False,
    output: Annotated[str, typer.Option("--output", "-o", metavar="text|json",
                                        help="text: the headline figures and notes; json: every key of the "
                                             "official output, segeval's additions and notes.")] = "text",
    write_lines: Annotated[str | None, typer.Option(
        "--write-lines", metavar="PREFIX", help="tvr: also write the ground truth and the VCMR ranking as segeval "
                                                "lines, PREFIX.qrels and PREFIX.run (for segeval eval).")] = None,
) -> None:
    """Moment retrieval as each benchmark's official script reports it (QVHighlights: R1, mAP, buckets,
    HL mAP and Hit1, plus mIoU and R5; TVR: VCMR, SVMR and VR recall at k, by type)."""
    import json

    from segeval.analysis.moments import protocol as find_protocol
    from segeval.analysis.moments.protocol import parse_options
    from segeval.errors import check_choice

    fmt = check_choice("output", "text" if output == "brief" else output, ("text", "json"))
    if write_lines is not None and protocol != "tvr":
        raise SegevalError("--write-lines writes a TVR corpus ranking; it needs --protocol tvr.")
    result = find_protocol(protocol)(truth, predictions, parse_options(thresholds, top_k, iou_compare, nms))
    if write_lines is not None:
        from segeval.analysis.moments.tvr import read
        from segeval.analysis.moments.tvr_lines import write_lines as write_tvr_lines

        for line in write_tvr_lines(read(truth, predictions), truth, predictions, write_lines):
            print(line, file=sys.stderr)
    shown = {**result.figures, "notes": result.notes} if full or fmt == "json" else \
        {"brief": result.brief, "notes": result.notes}
    sys.stdout.write(json.dumps(shown, indent=2) + "\n")
    for note in result.notes:
        print(render_note(f"note: {note}"), file=sys.stderr)


@app.command("anchoring")
def anchoring_command(
    qrels: Annotated[str, typer.Argument(metavar="QRELS", show_default=False,
                                         help="Anchor qrels: 'qid start end rel' (rel > 0 relevant; .gz ok).")],
    run: Annotated[str, typer.Argument(metavar="RUN", show_default=False,
                                       help="Anchoring run: 'qid Q0 start end rank score run' (.gz ok).")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="text|json|csv",
                                        help="text: the toolkit's layout; json, csv: full precision.")] = "text",
    order: Annotated[str, typer.Option("--order", metavar="file|rank",
                                       help="Ranking of a query's results: file order (as the toolkit) or by "
                                            "the rank field.")] = "file",
    no_relevant: Annotated[str, typer.Option(
        "--no-relevant", metavar="skip|error",
        help="A run query without a relevant anchor: skip it with a note, or stop (exit 2).")] = "skip",
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms",
                                             help="How times are written (mmss: M.S).")] = "mmss",
) -> None:
    """Anchor detection (MediaEval 2015 / TRECVID 2016 hyperlinking), as the toolkit's anchoring script:
    per query MRR, Unjudged_10, Unjudged_1000, P_10 and recall at R, then the 'all' means over the
    qrels' queries with a relevant anchor."""
    from segeval.analysis.anchoring import OUTPUTS, evaluate_anchoring, render
    from segeval.errors import check_choice

    check_choice("output", output, OUTPUTS)
    ev = evaluate_anchoring(qrels, run, order=order, no_relevant=no_relevant, time_format=time_format)
    sys.stdout.write(render(ev, output))
    for note in ev.notes:
        print(render_note(note), file=sys.stderr)


@app.command("show")
def show(
    qrels: QrelsArg,
    run: RunArg,
    query: Annotated[str, typer.Option("--query", "-Q", metavar="QID", help="The query to show.")],
    adapter: Annotated[list[str] | None, typer.Option(
        "--adapter", "-a", metavar="NAME", help="Adapters to label with (repeatable; default: overlap).")] = None,
    output: Annotated[str | None, typer.Option("--output", "-o", metavar="FILE.png|svg|html",
                                               help="Write the timeline picture or page.")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Print, per result, which qrels segment decided "
                                          "its label under each adapter.")] = False,
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = DEFAULTS.time_format,
) -> None:
    """One query's ground truth and ranked results on a timeline per video, labelled by each adapter."""
    from segeval.io.tables import read_qrels, read_run
    from segeval.pipeline import make_adapter
    from segeval.prepare import default_order, prepare
    from segeval.validate import is_documents, validate_qrels, validate_run
    from segeval.viz.show import adapt_one, named, render
    from segeval.viz.show import explain as explain_text

    if output is None and not explain:
        raise SegevalError("Nothing to do: give -o FILE.png|svg|html and/or --explain.")
    if output is not None:
        from segeval.output import check_output

        check_output(output, [qrels, run])
    q = validate_qrels(read_qrels(qrels, time_format=time_format))
    r = validate_run(read_run(run, time_format=time_format))
    if query not in set(q["query"]):
        raise SegevalError(f"The 'query' parameter must name a query of the qrels. Got {query!r} instead.")
    adapters = named([make_adapter(a) for a in (adapter or ["overlap"])])
    data = prepare(q, r, queries=[query], order=default_order(is_documents(r)), missing_queries="zero")
    adapted = adapt_one(data, adapters)
    if explain:
        sys.stdout.write(explain_text(data, adapted, adapters))
    if output is not None:
        print(render(data, adapted, query, output), file=sys.stderr if explain else sys.stdout)


plot_app = typer.Typer(help="Figures (needs the plot extra: pip install 'segeval[plot]').", no_args_is_help=True)
app.add_typer(plot_app, name="plot")


@plot_app.command("adr")
def plot_adr_command(
    qrels: QrelsArg,
    run: RunArg,
    query: Annotated[str, typer.Option("--query", "-Q", metavar="QID", help="The query to draw.")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.png|svg", help="Where to write the figure.")],
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME",
                                                help="exact (documents), overlap, overlap-once, binned[:B[:start]], "
                                                     "tolerance[:T], tiou[:theta[:strict][:float32]].")] = None,
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = DEFAULTS.time_format,
) -> None:
    """The dynamic recall curve of one query and the number of retrieved ground-truth items."""
    from segeval.adapt import ExactAdapter
    from segeval.io.tables import read_qrels, read_run
    from segeval.pipeline import make_adapter
    from segeval.prepare import default_order, prepare
    from segeval.validate import is_documents, validate_qrels, validate_run
    from segeval.viz import check_output
    from segeval.viz.adr import plot_adr

    check_output(output, [qrels, run])
    q = validate_qrels(read_qrels(qrels, time_format=time_format))
    r = validate_run(read_run(run, time_format=time_format))
    documents = is_documents(r)
    chosen = make_adapter(adapter) if adapter else (ExactAdapter() if documents else make_adapter("overlap"))
    if query not in set(q["query"]):
        raise SegevalError(f"The 'query' parameter must name a query of the qrels. Got {query!r} instead.")
    data = prepare(q, r, queries=[query], order=default_order(documents), missing_queries="zero")
    (adapted,) = chosen.adapt(data)
    print(plot_adr(adapted, query, output))


def _per_query(qrels: str, runs: list[str], names: list[str], adapter: str | None) -> dict[str, object]:
    from segeval.engines.runs import run_names
    from segeval.pipeline import evaluate

    return {label: evaluate(qrels, r, names, adapter=adapter, missing_queries="zero")
            for label, r in zip(run_names(runs), runs, strict=True)}


def _plot_notes(evs: dict[str, Any]) -> list[str]:
    """Each run's notes, printed on stderr and returned for the figure's footnote."""
    from segeval.notes import for_run

    notes = [n for name, ev in evs.items() for n in for_run(name, ev.notes)]
    for note in notes:
        print(render_note(note), file=sys.stderr)
    return notes


@plot_app.command("pr")
def plot_pr(qrels: QrelsArg, runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False)],
            output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.png|svg")],
            adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME")] = None) -> None:
    """Interpolated precision-recall curves (11 points), one per run."""
    from segeval.viz import check_output
    from segeval.viz.compare import pr_curves

    check_output(output, [qrels, *runs])
    evs: dict[str, Any] = _per_query(qrels, runs, ["iprec_at_recall"], adapter)
    notes = _plot_notes(evs)
    print(pr_curves({n: list(ev.summary.values()) for n, ev in evs.items()}, output, notes))


@plot_app.command("diff")
def plot_diff(qrels: QrelsArg, run_a: RunArg, run_b: RunArg,
              output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.png|svg")],
              measure: Annotated[str, typer.Option("--measure", "-m", metavar="NAME",
                                                     help=REGISTRY.help("map", repeatable=False))] = "map",
              adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME")] = None) -> None:
    """Per-query difference of one measure between two runs (B - A), sorted."""
    from segeval.viz import check_output
    from segeval.viz.compare import difference_bars

    check_output(output, [qrels, run_a, run_b])
    from segeval.pipeline import evaluate

    ea, eb = (evaluate(qrels, r, [measure], adapter=adapter, missing_queries="zero") for r in (run_a, run_b))
    name = next(iter(ea.summary))
    from segeval.engines.runs import run_names

    label_a, label_b = run_names([run_a, run_b])
    labels = (label_a, label_b)
    notes = _plot_notes(dict(zip(labels, (ea, eb), strict=True)))
    print(difference_bars(ea.queries, ea.per_query[name], eb.per_query[name], labels, name, output, notes))


@plot_app.command("dist")
def plot_dist(qrels: QrelsArg, runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False)],
              output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.png|svg")],
              measure: Annotated[str, typer.Option("--measure", "-m", metavar="NAME",
                                                     help=REGISTRY.help("map", repeatable=False))] = "map",
              adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME")] = None) -> None:
    """Distribution of per-query scores, one box per run."""
    from segeval.viz import check_output
    from segeval.viz.compare import distributions

    check_output(output, [qrels, *runs])
    evs: dict[str, Any] = _per_query(qrels, runs, [measure], adapter)
    name = next(iter(next(iter(evs.values())).summary))
    notes = _plot_notes(evs)
    print(distributions({n: ev.per_query[name] for n, ev in evs.items()}, name, output, notes))


@app.command("sample-eval")
def sample_eval_command(
    qrels: Annotated[str, typer.Argument(
        metavar="QRELS", show_default=False,
        help="Stratified qrels: 'topic 0 docno stratum rel' (rel -1: pooled, not sampled; .gz ok).")],
    run: Annotated[str, typer.Argument(
        metavar="RUN", show_default=False, help="TREC run: 'topic Q0 docno rank score tag' (.gz ok).")],
    per_topic: Annotated[bool, typer.Option("-q", help="Also print each topic's values.")] = False,
    gain: Annotated[list[str] | None, typer.Option(
        "--gain", "-G", metavar="LEVEL=GAIN",
        help="Map a qrels grade to a gain (repeatable, or comma-separated: -G 1=3,2=9), as sample_eval.pl's -G "
             "(which reads one-character levels and gains of up to 3 characters).")] = None,
    max_result_size: Annotated[int, typer.Option(
        "--max-result-size", metavar="N",
        help="Results used per topic, and the last precision cut-off (sample_eval.pl: 1000).")] = 1000,
) -> None:
    """NIST's sample_eval.pl on sampled (stratified) judgements: xinfAP, infNDCG, inferred precision, byte for byte.

    Topics in both files are evaluated (the run's topic ids without leading zeros); each run topic's
    results are sorted by score, ties by docno descending, and cut at --max-result-size.
    """
    from segeval.errors import check_int
    from segeval.io.strata import parse_gains, read_sampled_run, read_strata_qrels
    from segeval.measures.sampled import sample_eval

    check_int("max_result_size", max_result_size, minimum=1)
    table = parse_gains(gain)
    sys.stdout.write(sample_eval(read_strata_qrels(qrels, table), read_sampled_run(run), per_topic=per_topic,
                                 max_result_size=max_result_size))


@app.command("measures")
def measures(
    output: Annotated[str, typer.Option("--output", "-o", metavar="text|json|csv",
                                        help="text: Markdown tables of the measures, named sets and aliases; "
                                             "json or csv: one record per measure.")] = "text",
) -> None:
    """List the measures, the named sets and the accepted aliases (generated from the measure registry)."""
    check_choice("output", output, ("text", "json", "csv"))
    if output == "text":
        typer.echo("\n\n".join([REGISTRY.table(), REGISTRY.sets_table(), REGISTRY.aliases_table()]))
    elif output == "json":
        typer.echo(json.dumps({"measures": REGISTRY.rows(), "sets": REGISTRY.sets,
                               "aliases": {**REGISTRY.aliases, **{f"{a}@n": f"{n}_n" for a, n in
                                                                 REGISTRY.family_aliases.items()}}}, indent=2))
    else:
        rows = REGISTRY.rows()
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: " ".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()}
                         for row in rows)
        typer.echo(buffer.getvalue(), nl=False)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; SegevalError and usage errors exit 2 with a message, never a traceback.  Standard
    output is guarded: a reader that went away (EPIPE) ends the command quietly (exit 0), any other
    write error (no space left) is an error naming standard output (exit 2)."""
    from segeval.io.files import STDIN, reset_streams

    reset_streams()  # each command reads a pipe or standard input once
    args = sys.argv[1:] if argv is None else argv
    _ARGV[:] = args  # the command line, for the report's provenance
    if args.count(STDIN) > 1:  # no option takes '-' as its value: each one is an input
        print(f"segeval: error: standard input ('{STDIN}') may be given once per command. Got it "
              f"{args.count(STDIN)} times.", file=sys.stderr)
        return 2
    from segeval.output import GuardedStdout, OutputClosed

    stdout = sys.stdout
    sys.stdout = GuardedStdout(stdout)
    try:
        code = _dispatch(argv)
        sys.stdout.flush()
        return code
    except OutputClosed:
        return 0
    except SegevalError as exc:  # the standard output failed while flushing
        print(f"segeval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    finally:
        sys.stdout = stdout


def _invoke(argv: list[str] | None) -> Any:
    from segeval.interrupt import wait_if_stopping

    try:
        return app(args=argv, prog_name="segeval", standalone_mode=False)
    finally:
        wait_if_stopping()  # a signal stops the process: how the command ended meanwhile is not reported


def _dispatch(argv: list[str] | None) -> int:
    from segeval.output import OutputClosed

    try:
        returned = _invoke(argv)
        if isinstance(returned, int) and not isinstance(returned, bool):
            return returned  # typer.Exit(code) inside a command comes back as a return value
    except OutputClosed:
        raise
    except SegevalError as exc:
        print(f"segeval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except TyperException as exc:
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            print(f"segeval: error: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    except typer.Abort:
        print("segeval: aborted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        print("segeval: error: out of memory", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: still no traceback for the user
        print(printable(f"segeval: internal error: {type(exc).__name__}: {exc} (please report this)"),
              file=sys.stderr)
        return 1
    return 0


def entry() -> None:
    """Console-script entry point.

    SIGINT and SIGTERM stop the command within a fraction of a second (:mod:`segeval.interrupt`).
    After the command the process ends without the interpreter's teardown, which would free
    every object of pandas, NumPy and the data one by one (about 0.1 s, a tenth of a large
    evaluation): exit handlers run and the standard streams are flushed first, as at a normal exit.
    """
    from segeval.interrupt import install
    from segeval.output import silence_stdout

    install()
    code = main()
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a reader gone or a failing stream: already reported by main
            if stream is sys.stdout:
                silence_stdout()
        except ValueError:  # a closed stream
            pass
    os._exit(code)
