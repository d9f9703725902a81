"""The one read-and-validate path of every command: qrels read and checked once, runs read with
the same time format.  This is the only CLI module that imports the readers (each import inside a
function, so ``segeval --help`` loads no pandas)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from segeval.core.errors import InputError

#: the file name meaning standard input (segeval.readers.files.STDIN)
STDIN = "-"
_READER = "segeval.readers.files"


def reset_streams() -> None:
    """Forget the streams read so far (a command reads a pipe or standard input once)."""
    reader = sys.modules.get(_READER)
    if reader is not None:
        reader.reset_streams()


def qrels(
    path: str,
    time_format: str,
    on_error: Callable[[InputError], None] | None = None,
    fmt: str = "auto",
    measures: object = None,
) -> pd.DataFrame:
    """The qrels file read and validated (``on_error``: collect bad lines instead of raising); with their
    subtopic column when ``measures`` name a diversity measure."""
    from segeval.core.plan import reads_subtopics
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import validate_qrels

    subtopics = measures is not None and reads_subtopics(measures)
    return validate_qrels(read_qrels(path, fmt, time_format, on_error, subtopics=subtopics), on_error)


def run(path: str, time_format: str, fmt: str = "auto") -> pd.DataFrame:
    """One run file read and validated."""
    from segeval.readers.tables import read_run
    from segeval.readers.validate import validate_run

    return validate_run(read_run(path, fmt, time_format))


def runs(specs: list[str], time_format: str, expand: bool = True) -> dict[str, pd.DataFrame]:
    """Run files, globs or directories (each file once), each file read and validated, by run name;
    ``expand=False``: the files as given (a file given twice is read twice, its second name ``#2``)."""
    from segeval.executors.processes import expand_runs, run_names

    paths = expand_runs(specs) if expand else specs
    return {name: run(r, time_format) for name, r in zip(run_names(paths), paths, strict=True)}


def check_files(
    qrels_path: str | None,
    run_path: str,
    qrels_format: str,
    run_format: str,
    time_format: str,
    problems: list[InputError],
    subtopics: bool = False,
) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """Every problem of a qrels (if any) and a run file, in reading order, added to ``problems`` (``segeval
    check``); the qrels and the run as read (before validation drops lines), each None when unread."""
    from functools import partial

    from segeval.core.errors import InputError
    from segeval.readers.tables import read_qrels, read_run
    from segeval.readers.validate import check_kinds, is_documents, validate_qrels, validate_run

    read: list[pd.DataFrame | None] = []  # the qrels and the run as read
    valid: list[pd.DataFrame] = []
    for path, reader, validate, fmt in (
        (qrels_path, partial(read_qrels, subtopics=subtopics), validate_qrels, qrels_format),
        (run_path, read_run, validate_run, run_format),
    ):
        read.append(None)
        try:
            if path is not None:
                read[-1] = frame = reader(path, fmt, time_format, problems.append)
                valid.append(validate(frame, problems.append))
        except InputError as exc:  # a file-level problem (missing, empty, not gzip): nothing more to read
            problems.append(exc)
    if qrels_path is not None and len(valid) == 2 and len(valid[1]):
        try:
            check_kinds(valid[0], is_documents(valid[1]), run_path, valid[1].attrs.get("format"))
        except InputError as exc:
            problems.append(exc)
    return read[0], read[1]


def subtopic_repeats(qrels_path: str, qrels_format: str, time_format: str, problems: list[InputError]) -> int:
    """How many of the qrels' duplicate judgements among ``problems`` repeat a (query, document) under another
    second field (duplicates of plain qrels, not of subtopic qrels); 0 for qrels without a subtopic field."""
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import DUPLICATE, qrels_duplicates

    repeated = sum(p.kind == DUPLICATE and p.path == qrels_path for p in problems)
    if not repeated:
        return 0
    as_subtopics = read_qrels(qrels_path, qrels_format, time_format, lambda _: None, subtopics=True)
    if "subtopic" not in as_subtopics.columns:
        return 0
    return repeated - sum(kind == DUPLICATE for _, _, kind in qrels_duplicates(as_subtopics))


def read_run_as_is(path: str, fmt: str, time_format: str) -> pd.DataFrame:
    """A run read without validation (``segeval fix`` repairs what validation would refuse)."""
    from segeval.readers.tables import read_run

    return read_run(path, fmt, time_format)


def human_lines(path: str, line_numbers: list[int]) -> list[str]:
    """The given lines of a qrels file, each marked as judged by a person (complete-qrels)."""
    from segeval.readers.files import read_bytes
    from segeval.readers.formats import SOURCE_HUMAN

    raw = read_bytes(path).split(b"\n")
    return [raw[n - 1].decode("utf-8", "replace").rstrip() + " " + SOURCE_HUMAN for n in line_numbers]
