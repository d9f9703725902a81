"""Command line: ``segeval me13sh`` (more commands follow).  Exit codes: 0 ok, 2 bad input or usage."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.exceptions import TyperException

from segeval import __version__
from segeval.errors import SegevalError, printable, render_note

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
    bin_size: BinSizeOpt = 300,
    tolerance: ToleranceOpt = 15,
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
    for text in notes:
        print(render_note(text), file=sys.stderr)


HEADER_SETS = ("official", "all_trec", "set")  # sets that open with runid and num_q


@app.command("eval")
def eval_(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(
        metavar="RUN...", show_default=False,
        help="Run files, globs or directories (each file once; outputs in this order).")],
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", metavar="NAME",
        help="Measure (repeatable): P_10, P (default cut-offs), P.5,10 (trec_eval syntax), map, ndcg_cut_10, "
             "P@10, official. Default: official.")] = None,
    per_query: Annotated[bool, typer.Option("-q", help="Also print each query's values.")] = False,
    complete: Annotated[bool, typer.Option(
        "-c", help="Average over every qrels query; queries missing from the run score 0.")] = False,
    no_summary: Annotated[bool, typer.Option("-n", help="Do not print the summary rows.")] = False,
    level: Annotated[int, typer.Option("-l", metavar="N", help="Relevant means a qrels grade >= N.")] = 1,
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
    = "mmss",
    version: Annotated[str, typer.Option(
        "--trec-eval", metavar="10|9", help="trec_eval version to reproduce: 10 (default) or 9.0.8, which "
        "pytrec_eval wraps (32-bit scores, iprec_at_recall cut-offs rounded up).")] = "10",
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="trec|json|csv", help="Output format (trec: trec_eval's text layout).")] = "trec",
    jobs: JobsOpt = None,
    quiet: QuietOpt = False,
    lenient: Annotated[bool, typer.Option(
        "--lenient", help="Skip malformed lines instead of stopping; each is listed on stderr and counted in "
                          "the JSON output, and the exit code is 3.")] = False,
    memory: MemoryOpt = "auto",
    chunk_lines: ChunkLinesOpt = 100_000,
    engine: EngineOpt = "processes",
    scheduler: SchedulerOpt = None,
    order: Annotated[str | None, typer.Option(
        "--order", metavar="score|rank|file",
        help="Result order. Default: score (ties by docno descending) for TREC runs, rank for MediaEval runs.")]
    = None,
    predicted: Annotated[str, typer.Option(
        "--predicted", metavar="use|ignore",
        help="Classifier-predicted lines of completed qrels (segeval complete-qrels): use them (default; a "
             "note on stderr counts them) or ignore them.")] = "use",
) -> None:
    """trec_eval's measures and flags, on document runs and (through an adapter) on segment runs."""
    from functools import partial

    from segeval.engines.runs import check_engine, evaluate_many, expand_runs
    from segeval.errors import InputError, check_choice
    from segeval.read import read_qrels
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


def _render_eval(ev: Any, runid: str, skipped: int, *, output: str, per_query: bool, summary: bool,
                 header: list[str]) -> str:
    from segeval.report.trec import render, render_csv, render_json

    if output == "json":
        return render_json(ev, runid, skipped_lines=skipped)
    if output == "csv":
        return render_csv(ev, runid, per_query=per_query, summary=summary)
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
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = "mmss",
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
    from segeval.read import read_qrels, read_run
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
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = "mmss",
) -> None:
    """Repair a run against the collection (the rules of check --videos ...) and log each change: drop
    unknown or blacklisted videos and unknown queries, swap reversed times, clip to the video's end,
    lengthen zero-length results, remove overlaps, cut at --max-rank, renumber ranks 1..n.
    The run's format and time format are kept.  Exit code 0 when written, 2 on bad input."""
    from segeval.analysis.submission_fix import fix_submission
    from segeval.errors import check_choice
    from segeval.read import TIME_FORMATS, read_run

    check_choice("time_format", time_format, TIME_FORMATS)
    check_choice("run_format", run_format, ("auto", "trec", "linking", "search"))
    rules = _collection_rules(videos, blacklist, queries, max_rank, None)
    assert rules is not None  # without on_error a problem raises
    frame = read_run(run, run_format, time_format)
    fixed = fix_submission(frame, rules, time_format, zero_length=zero_length, overlap=overlap)
    log_text = "".join(printable(line) + "\n" for line in fixed.log)
    _write_text(output, fixed.text, sys.stdout)
    _write_text(log, log_text, sys.stderr)
    for query in fixed.missing:
        print(render_note(f"segeval: note: query '{query}' has no result in the repaired run; no repair can "
                          f"supply one"), file=sys.stderr)


def _write_text(path: str | None, text: str, stream: Any) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed over it); None: ``stream``."""
    import os
    import tempfile
    from contextlib import suppress

    if path is None:
        stream.write(text)
        stream.flush()
        return
    target = os.path.realpath(path)
    try:
        if os.path.exists(target) and not os.path.isfile(target):  # /dev/null, a FIFO: written directly
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=".segeval-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temporary, target)
        except BaseException:
            with suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise SegevalError(f"cannot write {printable(path)}: {exc.strerror or exc}") from None


@app.command("compare")
def compare(
    qrels: QrelsArg,
    runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False,
                                              help="Two or more runs (files, globs or directories).")],
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", metavar="NAME",
                                                      help="Measures (repeatable; default map).")] = None,
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
    memory: MemoryOpt = "auto",
    chunk_lines: ChunkLinesOpt = 100_000,
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
                                                      help="Measures (repeatable; default map and P_10).")] = None,
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


def _runs_by_name(runs: list[str], time_format: str = "mmss") -> dict[str, Any]:
    from segeval.engines.runs import expand_runs, run_names
    from segeval.read import read_run
    from segeval.validate import validate_run

    paths = expand_runs(runs)
    return {name: validate_run(read_run(r, time_format=time_format))
            for name, r in zip(run_names(paths), paths, strict=True)}


def _run_aliases(name: str) -> tuple[str, str]:
    """What a groups file or --leave-out-runs may call a run file: its name, or its name without extensions."""
    return name, name.split(".", 1)[0]


def _groups_for(path: str, names: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Group and type of each run file, named in the groups file by file name or by its stem."""
    from segeval.analysis.pool import read_groups
    from segeval.errors import InputError

    lines: dict[str, tuple[int, str]] = {}
    group_of, type_of = read_groups(path, lines)
    groups: dict[str, str] = {}
    types: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        key = next((a for a in _run_aliases(name) if a in group_of), None)
        if key is None:
            raise InputError(path, f"has no line for run '{name}'; expected 'run group [type]' for every run "
                                   f"(file name, or file name without extensions)")
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
    from segeval.read import read_qrels
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
                                                      help="Measures (default map, P_20, bpref; "
                                                           "'paper': the paper's eight).")] = None,
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
    from segeval.read import read_qrels
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
                                                      help="Measures (default map, P_20, bpref).")] = None,
    adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME",
                                                help="Relevance adapter for segment runs (default as eval).")] = None,
    plot: Annotated[str | None, typer.Option("--plot", metavar="FILE", help="Also draw Figure 1 (.png/.svg).")]
    = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress line on stderr.")] = False,
) -> None:
    """Random reductions of the qrels: mean score and Kendall's tau with the full qrels per fraction."""
    from segeval.analysis.pool import DEFAULT_MEASURES, incompleteness
    from segeval.errors import ParameterError
    from segeval.read import read_qrels
    from segeval.validate import validate_qrels

    try:
        values = [float(x) for x in fractions.split(",") if x.strip()]
    except ValueError:
        raise ParameterError(f"The 'fractions' parameter must be numbers in (0, 1] separated by commas. "
                             f"Got {fractions!r} instead.") from None
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
    level: Annotated[int, typer.Option("-l", metavar="N", help="Relevant means a qrels grade >= N.")] = 1,
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = "mmss",
) -> None:
    """Label the unjudged items in the runs' top D with a classifier trained on the judged ones (Büttcher et
    al. 2007); predicted lines are marked 'predicted:CLASSIFIER' in an extra last field, the others 'human'."""
    from segeval.analysis.complete import complete_qrels, read_texts
    from segeval.read import SOURCE_HUMAN, read_bytes, read_qrels
    from segeval.validate import is_documents, validate_qrels

    q = validate_qrels(read_qrels(qrels, time_format=time_format))
    by_name = _runs_by_name(runs, time_format)
    t = read_texts(texts, segments=not is_documents(q), time_format=time_format)
    done = complete_qrels(q, by_name, t, classifier, depth, adapter=adapter, smoothing=smoothing, terms=terms,
                          relevance_level=level, kld_fit=kld_fit)
    raw = read_bytes(qrels).split(b"\n")
    human = [raw[n - 1].decode("utf-8", "replace").rstrip() + " " + SOURCE_HUMAN for n in q["line"].tolist()]
    predicted = done.lines(time_format)
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in human + predicted))
    except OSError as exc:
        raise SegevalError(f"{output}: cannot write the completed qrels ({exc.strerror})") from exc
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
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = "mmss",
) -> None:
    """One query's ground truth and ranked results on a timeline per video, labelled by each adapter."""
    from segeval.pipeline import make_adapter
    from segeval.prepare import default_order, prepare
    from segeval.read import read_qrels, read_run
    from segeval.validate import is_documents, validate_qrels, validate_run
    from segeval.viz.show import adapt_one, named, render
    from segeval.viz.show import explain as explain_text

    if output is None and not explain:
        raise SegevalError("Nothing to do: give -o FILE.png|svg|html and/or --explain.")
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
    time_format: Annotated[str, typer.Option("--time-format", metavar="mmss|seconds|hms")] = "mmss",
) -> None:
    """The dynamic recall curve of one query and the number of retrieved ground-truth items."""
    from segeval.adapt import ExactAdapter
    from segeval.pipeline import make_adapter
    from segeval.prepare import default_order, prepare
    from segeval.read import read_qrels, read_run
    from segeval.validate import is_documents, validate_qrels, validate_run
    from segeval.viz import check_output
    from segeval.viz.adr import plot_adr

    check_output(output)
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

    check_output(output)
    evs: dict[str, Any] = _per_query(qrels, runs, ["iprec_at_recall"], adapter)
    notes = _plot_notes(evs)
    print(pr_curves({n: list(ev.summary.values()) for n, ev in evs.items()}, output, notes))


@plot_app.command("diff")
def plot_diff(qrels: QrelsArg, run_a: RunArg, run_b: RunArg,
              output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.png|svg")],
              measure: Annotated[str, typer.Option("--measure", "-m", metavar="NAME")] = "map",
              adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME")] = None) -> None:
    """Per-query difference of one measure between two runs (B - A), sorted."""
    from segeval.viz import check_output
    from segeval.viz.compare import difference_bars

    check_output(output)
    from segeval.pipeline import evaluate

    ea, eb = (evaluate(qrels, r, [measure], adapter=adapter, missing_queries="zero") for r in (run_a, run_b))
    name = next(iter(ea.summary))
    labels = (Path(run_a).name, Path(run_b).name + ("#2" if Path(run_a).name == Path(run_b).name else ""))
    notes = _plot_notes(dict(zip(labels, (ea, eb), strict=True)))
    print(difference_bars(ea.queries, ea.per_query[name], eb.per_query[name], labels, name, output, notes))


@plot_app.command("dist")
def plot_dist(qrels: QrelsArg, runs: Annotated[list[str], typer.Argument(metavar="RUN...", show_default=False)],
              output: Annotated[str, typer.Option("--output", "-o", metavar="FILE.png|svg")],
              measure: Annotated[str, typer.Option("--measure", "-m", metavar="NAME")] = "map",
              adapter: Annotated[str | None, typer.Option("--adapter", "-a", metavar="NAME")] = None) -> None:
    """Distribution of per-query scores, one box per run."""
    from segeval.viz import check_output
    from segeval.viz.compare import distributions

    check_output(output)
    evs: dict[str, Any] = _per_query(qrels, runs, [measure], adapter)
    name = next(iter(next(iter(evs.values())).summary))
    notes = _plot_notes(evs)
    print(distributions({n: ev.per_query[name] for n, ev in evs.items()}, name, output, notes))


@app.command("measures")
def measures() -> None:
    """List the measures (a Markdown table generated from the measure registry)."""
    from segeval.measures import measure_table

    typer.echo(measure_table())


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; SegevalError and usage errors exit 2 with a message, never a traceback."""
    from segeval.read import STDIN, reset_streams

    reset_streams()  # each command reads a pipe or standard input once
    args = sys.argv[1:] if argv is None else argv
    _ARGV[:] = args  # the command line, for the report's provenance
    if args.count(STDIN) > 1:  # no option takes '-' as its value: each one is an input
        print(f"segeval: error: standard input ('{STDIN}') may be given once per command. Got it "
              f"{args.count(STDIN)} times.", file=sys.stderr)
        return 2
    try:
        returned = app(args=argv, prog_name="segeval", standalone_mode=False)
        if isinstance(returned, int) and not isinstance(returned, bool):
            return returned  # typer.Exit(code) inside a command comes back as a return value
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

    After the command the process ends without the interpreter's teardown, which would free
    every object of pandas, NumPy and the data one by one (about 0.1 s, a tenth of a large
    evaluation): exit handlers run and the standard streams are flushed first, as at a normal exit.
    """
    code = main()
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away (segeval eval ... | head): nothing more to say
            pass
        except (OSError, ValueError):  # a closed or failing stream: let the normal exit report it
            sys.exit(code)
    os._exit(code)
