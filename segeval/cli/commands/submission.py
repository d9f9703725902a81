"""Checking and repairing submissions: ``check`` (every problem of a qrels and a run, and with a
collection the organisers' rules) and ``fix`` (a run repaired against the collection)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from segeval.cli import inputs
from segeval.cli.app import app
from segeval.cli.options import TIME_FORMAT, TimeFormat, argument, numeric, output_option
from segeval.core.domains import CUTOFF, POSITIVE
from segeval.core.errors import InputError, check_choice, print_notes, printable
from segeval.core.words import plural

if TYPE_CHECKING:
    import pandas as pd

Videos = Annotated[
    str | None,
    typer.Option(
        "--videos",
        metavar="FILE",
        help="The collection's video list: 'video duration' lines (duration in seconds or H:MM:SS).",
    ),
]
Blacklist = Annotated[
    str | None, typer.Option("--blacklist", metavar="FILE", help="Videos a run may not return, one id per line.")
]
Queries = Annotated[
    str | None,
    typer.Option(
        "--queries",
        metavar="FILE",
        help="The queries: one id per line (first field), or the toolkit's anchors/queries XML.",
    ),
]
MaxRank = Annotated[int | None, numeric("--max-rank", CUTOFF, "At most N results per query", metavar="N")]
RUN_FORMAT_NAMES = ("auto", "trec", "linking", "search")
RunFormat = Annotated[
    str,
    typer.Option(
        "--run-format",
        metavar="|".join(RUN_FORMAT_NAMES),
        help="Run format: trec ('qid Q0 docno rank score tag'), linking ('qid Q0 video start end rank score "
        "run'), search ('qid Q0 video start end jumpin rank score [run]'), or auto (detected).",
    ),
]


@app.command("check")
def check(
    files: Annotated[
        list[str],
        argument(
            "[QRELS] RUN",
            "Qrels and run (formats as --qrels-format and --run-format say; times as --time-format says; "
            ".gz ok); only the run with --videos, --blacklist, --queries or --max-rank.",
        ),
    ],
    run_format: RunFormat = "auto",
    qrels_format: Annotated[
        str,
        typer.Option(
            "--qrels-format",
            metavar="auto|trec|mediaeval|groups",
            help="Qrels format: trec ('qid 0 docno rel'), mediaeval ('qid Q0 video start end rel'), groups, or "
            "auto (detected).",
        ),
    ] = "auto",
    time_format: TimeFormat = TIME_FORMAT,
    subtopics: Annotated[
        bool,
        typer.Option(
            "--subtopics",
            help="Subtopic (diversity) qrels: the second field of TREC qrels is the subtopic ('qid "
            "subtopic docno rel'), a document judged once per query and subtopic, as the diversity "
            "measures read them.",
        ),
    ] = False,
    videos: Videos = None,
    blacklist: Blacklist = None,
    queries: Queries = None,
    max_rank: MaxRank = None,
    output: Annotated[
        str, output_option("The counts per file and problem type as text (tab-separated), json or csv.")
    ] = "text",
) -> None:
    """Validate a qrels and a run file without evaluating.

    Lists every problem at once on stderr, then the counts per file and type. With a collection
    (--videos, --blacklist, --queries, --max-rank) also the organisers' rules: known and allowed
    videos, times within the video, no zero length, known and present queries, no overlap within a
    query, at most N results, ranks 1..n. Exit code 0 when both are valid, 2 otherwise.
    """
    from collections import Counter

    from segeval.reports import tables

    fmt = tables.check_table_format(output)
    collection = any(x is not None for x in (videos, blacklist, queries, max_rank))
    if len(files) != 2 - collection and len(files) != 2:
        raise typer.BadParameter(
            f"got {plural(len(files), 'file')}; expected QRELS RUN "
            f"(only RUN with --videos, --blacklist, --queries or --max-rank)",
            param_hint="'[QRELS] RUN'",
        )
    qrels, run = (files[0], files[1]) if len(files) == 2 else (None, files[0])
    problems: list[InputError] = []
    rules = None
    if collection:
        from segeval.analyses.submission import Rules

        try:
            rules = Rules.read(videos, blacklist, queries, max_rank)
        except InputError as exc:
            problems.append(exc)
    read_qrels, read_run_frame = inputs.check_files(
        qrels, run, qrels_format, run_format, time_format, problems, subtopics
    )
    if rules is not None and read_run_frame is not None:
        from segeval.analyses.submission import check_submission

        # the run as read: lines validate drops too
        check_submission(read_run_frame, rules, problems.append, time_format)
    for problem in problems:
        print(f"segeval: {problem}", file=sys.stderr)
    if qrels is not None and not subtopics:
        _subtopics_note(qrels, qrels_format, time_format, problems)
    elif read_qrels is not None and "subtopic" not in read_qrels.columns:
        kind = str(read_qrels.attrs.get("format", "qrels")).replace("groups", "ground-truth groups")
        print_notes(
            f"segeval: note: --subtopics: {qrels} is {kind}, which carry no subtopic field (TREC "
            f"qrels do: 'qid subtopic docno rel'); checked as they are"
        )
    if not problems and qrels is not None and time_format == "mmss":
        _seconds_note(read_qrels, read_run_frame, run)
    if read_run_frame is not None:
        _listed_twice_note(run, read_run_frame)
    counts = sorted(Counter((problem.path, problem.kind) for problem in problems).items())
    if fmt == "text":
        for (path, kind), n in counts:
            print(f"{printable(path)}\t{kind}\t{n}")
        print(plural(len(problems), "problem") if problems else "no problems")
    else:
        tables.write(
            [("file", ""), ("kind", ""), ("count", "")], [[str(path), kind, n] for (path, kind), n in counts], fmt
        )
    if problems:
        raise typer.Exit(2)


def _listed_twice_note(run: str, frame: pd.DataFrame) -> None:
    """One note when a segment run lists a segment again for its query: kept, as the MediaEval reference does."""
    from segeval.readers.validate import is_documents, segments_listed_twice

    if len(frame) == 0 or is_documents(frame):
        return
    again, first = segments_listed_twice(frame)
    if len(again):
        lines = frame["line"].to_numpy()
        print_notes(
            f"segeval: note: {run}: {plural(len(again), 'segment')} listed again for its query "
            f"(first: line {lines[again[0]]}, as line {lines[first[0]]}); evaluated as listed, "
            f"each a result, as the MediaEval reference does"
        )


def _subtopics_note(qrels: str, qrels_format: str, time_format: str, problems: list[InputError]) -> None:
    """One note when judgements the qrels repeat differ in their second field: subtopic qrels, which every
    measure but the diversity ones refuses (as ``eval`` would), and ``--subtopics`` checks as those read them."""

    try:
        n = inputs.subtopic_repeats(qrels, qrels_format, time_format, problems)
    except InputError:  # read once already: its problems are listed
        return
    if n:
        print_notes(
            f"segeval: note: {qrels}: {plural(n, 'duplicate judgement')} "
            f"{'repeats' if n == 1 else 'repeat'} a query and document with another second field: "
            f"subtopic (diversity) qrels, 'qid subtopic docno rel'? Only the diversity measures read "
            f"them (every other measure refuses the duplicates, as above); check --subtopics checks "
            f"them as those do"
        )


def _seconds_note(qrels: Any, run: Any, run_path: str) -> None:
    """The note ``eval`` gives when a run's M.S times look like seconds (:func:`segeval.core.notes.seconds_note`)."""
    from segeval.core.notes import for_run, seconds_evidence, seconds_note
    from segeval.readers.from_tables import prepare

    data = prepare(qrels, run)
    print_notes(*for_run(run_path, seconds_note(data.queries, seconds_evidence(data))), head="segeval: ")


@app.command("fix")
def fix(
    run: Annotated[str, argument("RUN", "A MediaEval linking or search run, or a TREC run (.gz ok).")],
    output: Annotated[str | None, output_option("The repaired run (default: standard output).", "OUT")] = None,
    log: Annotated[
        str | None, typer.Option("--log", metavar="LOG", help="One line per change (default: standard error).")
    ] = None,
    videos: Videos = None,
    blacklist: Blacklist = None,
    queries: Queries = None,
    max_rank: MaxRank = None,
    zero_length: Annotated[
        float,
        numeric(
            "--zero-length",
            POSITIVE,
            "Length given to a result with start = end (whole seconds for M.S times)",
            metavar="SECONDS",
        ),
    ] = 1.0,
    overlap: Annotated[
        str,
        typer.Option(
            "--overlap",
            metavar="trim|drop",
            help="A result overlapping an earlier one of its query: trim keeps its longest free part, drop removes it.",
        ),
    ] = "trim",
    run_format: RunFormat = "auto",
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Repair a run against the collection and log each change.

    The rules of check --videos ...: drop unknown or blacklisted videos and unknown queries, swap
    reversed times, clip to the video's end, lengthen zero-length results, remove overlaps, cut at
    --max-rank, renumber ranks 1..n. The run's format and time format are kept. Exit code 0 when
    written, 2 on bad input.
    """
    from segeval.analyses.submission import Rules
    from segeval.analyses.submission_fix import fix_submission
    from segeval.core.settings import TIME_FORMATS
    from segeval.reports.output import check_outputs

    check_choice("time_format", time_format, TIME_FORMATS)
    check_choice("run_format", run_format, RUN_FORMAT_NAMES)
    sources = [x for x in (run, videos, blacklist, queries) if x is not None]
    check_outputs([output, log], sources)  # refused before any work: a missing folder, an input, output = log
    rules = Rules.read(videos, blacklist, queries, max_rank)
    frame = inputs.read_run_as_is(run, run_format, time_format)
    fixed = fix_submission(frame, rules, time_format, zero_length=zero_length, overlap=overlap)
    log_text = "".join(printable(line) + "\n" for line in fixed.log)
    _write_text(output, fixed.text, sys.stdout, sources)
    _write_text(log, log_text, sys.stderr, sources)
    for query in fixed.missing:
        print_notes(f"segeval: note: query '{query}' has no result in the repaired run; no repair can supply one")


def _write_text(path: str | None, text: str, stream: Any, sources: list[str]) -> None:
    """Write ``text`` to ``path`` through the one output writer (whole or not at all, never over an input);
    None: ``stream``."""
    if path is None:
        stream.write(text)
        stream.flush()
        return
    from segeval.reports.output import write_output

    write_output(path, text, inputs=sources)
