"""Bounded memory for big runs: read in chunks, evaluate each finished query, keep per-query values only."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.core.errors import InputError, SegevalError
from segeval.core.pipeline import evaluate_part, evaluate_validated, finish, merge_parts
from segeval.core.plan import Plan, job_plan
from segeval.core.prepared import check_queries
from segeval.core.settings import BATCH_BYTES, Job
from segeval.executors.results import RunResult
from segeval.readers.blocks import Regrouped, batches, data_lines, line_texts, open_blocks, run_starts, whole_queries
from segeval.readers.files import input_size
from segeval.readers.formats import DETECT_LINES, DOCUMENT_FORMATS, RUN_FORMATS, LineFormat, detect_run_format
from segeval.readers.tables import RUN_COLUMNS, parse_table, read_run, to_frame
from segeval.readers.validate import check_kinds, is_documents, validate_run
from segeval.reports.trec import runid as trec_runid

OnError = Callable[[InputError], None]


class NotGrouped(Exception):
    """A run whose lines are not grouped by query; ``note`` says where (one line for stderr)."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


def _shift(e: InputError, offset: int) -> InputError:
    """The error with its line number moved from chunk-relative to absolute."""
    line = None if e.line is None else e.line + offset
    return InputError(e.path, e.problem, line=line, text=e.text, kind=e.kind)


def _query_runs(frame: pd.DataFrame) -> tuple[list[str], npt.NDArray[np.intp]]:
    queries = frame["query"].to_numpy(dtype=object)
    starts = run_starts(queries)
    return [str(h) for h in queries[starts]], starts


def _join(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def evaluate_run(
    qrels: pd.DataFrame,
    path: str | Path,
    job: Job,
    *,
    run_format: str = "auto",
    on_error: OnError | None = None,
    progress: bool = False,
) -> RunResult:
    """Read, validate and evaluate one run file against validated qrels as ``job`` says."""
    from segeval.executors.progress import Progress
    from segeval.executors.route import read_in_chunks

    memory, time_format = job.engine.memory, job.settings.time_format
    notes: list[str] = []
    if read_in_chunks(str(path), memory, job.measures)[0]:
        try:
            with Progress(input_size(path), "MiB", quiet=not progress, scale=2**20) as bar:
                return _Chunked(qrels, str(path), job, run_format, on_error).run(job.engine.chunk_lines, bar.advance)
        except NotGrouped as exc:
            notes.append(exc.note)
    r = validate_run(read_run(path, run_format, time_format, on_error), on_error)
    if notes and not read_in_chunks(str(path), memory, job.measures)[0]:
        notes.clear()  # a stream found, once read, to be one auto reads whole: as that file, no note
    ev = evaluate_validated(qrels, r, job_plan(job, is_documents(r)))  # the qrels were checked once, by the caller
    return RunResult(ev, trec_runid(r["run"]), notes=notes)


class _Chunked:
    """One chunked evaluation; errors in the in-memory path's precedence: the first malformed line, the first bad
    value, parameter problems, then a document listed twice for a query."""

    def __init__(self, qrels: pd.DataFrame, name: str, job: Job, run_format: str, on_error: OnError | None) -> None:
        self.qrels, self.name, self.job, self.time_format = qrels, name, job, job.settings.time_format
        self.fmt: LineFormat | None = RUN_FORMATS[run_format] if run_format != "auto" else None
        self.lenient = on_error is not None
        self.on_error = on_error
        self.qrels_rows: dict[Any, Any] = qrels.groupby("query", sort=False).indices
        self.parse_errors: list[InputError] = []
        self.problems: list[tuple[int, str, str]] = []  # value problems: line, problem, kind
        self.plan_error: SegevalError | None = None
        self.how: Plan | None = None
        self.wanted: set[str] = set()
        self.parts: list[tuple[list[str], dict[str, list[Any]]]] = []
        self.runid: str | None = None
        self.rows = 0

    @property
    def documents(self) -> bool:
        return self.fmt in DOCUMENT_FORMATS

    @property
    def stopped(self) -> bool:
        """A value or parameter error was found: only malformed lines (which come first) are looked for."""
        return (bool(self.problems) and not self.lenient) or self.plan_error is not None

    def run(self, chunk_lines: int, on_read: Callable[[int], object] | None = None) -> RunResult:
        chunks = batches(open_blocks(self.name, on_read=on_read), chunk_lines, BATCH_BYTES)
        try:
            for complete, _ in whole_queries(self._frames(chunks), _query_runs, lambda f, a, b: f.iloc[a:b], _join):
                self._evaluate(complete)
        except Regrouped as exc:
            line = int(exc.rows["line"].to_numpy()[exc.row])  # type: ignore[index]
            raise NotGrouped(
                f"note: {self.name} is not grouped by query (query '{exc.key}' appears again on "
                f"line {line}); reading it in memory"
            ) from None
        assert self.fmt is not None
        if self.rows == 0:
            self._report_skipped([])
            raise InputError(
                self.name, f"has no data lines; expected {self.fmt.name} lines such as '{self.fmt.example}'"
            )
        return self._result()

    def _frames(self, chunks: Iterator[tuple[int, bytes]]) -> Iterator[pd.DataFrame]:
        """The parsed chunks, checked for bad values, until a value or parameter error stops the evaluation."""
        for first, data in self._detected(chunks):
            frame = self._parse(data, first)
            if frame is None:
                continue
            if not self.documents and not (self.problems and not self.lenient):
                frame = self._validate(frame)  # bad values are reported before parameter problems
                if len(frame):
                    self.runid = trec_runid(frame["run"])
            if not self.stopped:
                yield frame

    def _detected(self, chunks: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
        """The chunks, once the format is known (detected as :func:`segeval.readers.tables.read_run` does)."""
        head: list[tuple[int, bytes]] = []
        if self.fmt is None:
            seen = 0
            for first, data in chunks:
                head.append((first, data))
                seen += data_lines(data, DETECT_LINES - seen)
                if seen >= DETECT_LINES:
                    break
            self.fmt = detect_run_format(b"".join(data for _, data in head), self.name, self.time_format)
        self._plan()
        yield from head
        yield from chunks

    def _plan(self) -> None:
        try:
            self.how = job_plan(self.job, self.documents)
            if self.how.settings.queries is not None:
                check_queries(self.how.settings.queries, set(self.qrels_rows))
            assert self.fmt is not None
            check_kinds(self.qrels, self.documents, self.name, self.fmt.name)
        except SegevalError as exc:
            self.plan_error = exc
            return
        chosen = set(self.qrels_rows)
        self.wanted = chosen if self.how.settings.queries is None else chosen & set(self.how.settings.queries)

    def _parse(self, data: bytes, first: int) -> pd.DataFrame | None:
        offset = first - 1
        collect = (lambda e: self.parse_errors.append(_shift(e, offset))) if self.lenient else None
        assert self.fmt is not None
        try:
            columns = parse_table(data, self.fmt, self.name, self.time_format, collect)
        except InputError as exc:
            if exc.line is None:
                return None  # blank lines, or only skipped ones
            raise _shift(exc, offset) from None
        columns["line"] = np.asarray(columns["line"]) + offset
        frame = to_frame(columns, RUN_COLUMNS, "<data>")  # "<data>": value errors get their text at the end
        self.rows += len(frame)
        return frame

    def _validate(self, frame: pd.DataFrame) -> pd.DataFrame:
        found: list[InputError] = []
        out = validate_run(frame, found.append)
        self.problems += [(int(e.line or 0), e.problem, e.kind) for e in found]
        return out

    def _evaluate(self, complete: pd.DataFrame) -> None:
        if self.stopped:
            return
        if self.documents:
            complete = self._validate(complete)  # a document twice for a query: within the query's rows
            if len(complete):
                self.runid = trec_runid(complete["run"])
        if self.stopped or len(complete) == 0:
            return
        assert self.how is not None
        batch = sorted({str(q) for q in pd.unique(complete["query"].to_numpy(dtype=object))} & self.wanted)
        if batch:
            rows = np.sort(np.concatenate([self.qrels_rows[q] for q in batch]))  # the batch's qrels, in file order
            self.parts.append(evaluate_part(self.qrels.take(rows), complete, self.how, batch))

    def _value_errors(self) -> list[InputError]:
        shown = self.problems if self.lenient else self.problems[:1]
        texts = line_texts(self.name, {line for line, _, _ in shown})
        return [
            InputError(self.name, problem, line=line, text=texts.get(line), kind=kind) for line, problem, kind in shown
        ]

    def _report_skipped(self, value_errors: list[InputError]) -> None:
        if self.on_error is not None:
            for e in [*self.parse_errors, *value_errors]:
                self.on_error(e)

    def _result(self) -> RunResult:
        if self.plan_error is not None and (self.documents or self.lenient or not self.problems):
            raise self.plan_error  # after bad values, before documents listed twice (as evaluate())
        if self.problems and not self.lenient:
            raise self._value_errors()[0]
        self._report_skipped(self._value_errors() if self.problems else [])
        assert self.how is not None
        ev = finish(self.qrels, self.how, *merge_parts(self.parts, self.how))
        return RunResult(ev, self.runid or "")
