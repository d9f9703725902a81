"""Which reader and executor evaluate a job, decided in one place, with the reason (``segeval eval --route``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from segeval.core.errors import SegevalError
from segeval.core.settings import AUTO_BYTES, OUTPUTS, SCANNER_AUTO_BYTES, Job
from segeval.core.words import plural
from segeval.readers.files import is_stream, starts_with_gzip, stream_read

if TYPE_CHECKING:
    from segeval.measures.compute import Request

#: the output formats and orders the segment scanner (True: every format, rendered as usual) and the lanes take
SCANNER_TAKES = {True: (OUTPUTS, (None, "rank", "file")), False: (("trec",), (None, "score"))}


@dataclass(frozen=True)
class Route:
    """A reader and an executor, and why they were chosen."""

    reader: str
    executor: str
    reason: str
    #: the scanner's chunks chosen below :data:`~segeval.core.settings.AUTO_BYTES`: an ungrouped run is read whole
    whole_if_ungrouped: bool = False

    @property
    def name(self) -> str:
        return f"{self.reader}+{self.executor}"

    def __str__(self) -> str:
        return f"route: {self.name} ({self.reason})"

    def fallback(self, why: str) -> Route:
        """The ``table`` reader with the same executor (whole when :attr:`whole_if_ungrouped`)."""
        return Route("table", "whole" if self.whole_if_ungrouped else self.executor, why)


def read_in_chunks(
    path: str, memory: str, measures: Sequence[str] = (), auto_bytes: int | None = None
) -> tuple[bool, str]:
    """Whether ``memory`` reads the run at ``path`` in chunks, and why (``auto``: from ``auto_bytes``, default
    :data:`~segeval.core.settings.AUTO_BYTES`, gzip a quarter; a stream until read to its end; docs/engines.md)."""
    whole = whole_run(path, measures)
    if whole is not None:
        return False, whole
    auto_bytes = AUTO_BYTES if auto_bytes is None else auto_bytes
    if memory != "auto":
        return memory == "chunked", f"--memory {memory}"
    if is_stream(path):
        read = stream_read(path)  # once read to its end, a stream is judged by its size as a file is
        if read is None:
            return True, "--memory auto: a pipe or standard input, of unknown size, read in chunks"
        size, gz = read
        kind = "a gzip stream" if gz else "a stream"
    else:
        try:
            gz = starts_with_gzip(path)
            size = os.path.getsize(path)
        except OSError:
            return False, "the file cannot be read: the reader says why"
        kind = "a gzip file" if gz else "a file"
    why = f"--memory auto: {kind} of {size / 2**20:.1f} MiB (chunks from {auto_bytes / (4 if gz else 1) / 2**20:g} MiB)"
    return size * (4 if gz else 1) >= auto_bytes, why


def whole_run(path: str, measures: Sequence[str]) -> str | None:
    """Why the run at ``path`` must be read whole (an STD list run; QUESST's figures), or None."""
    from segeval.measures.definitions import resolve
    from segeval.readers.stdlist import starts_stdlist

    try:  # a bad name is refused later
        if any(m.family.scope == "trials" for m in resolve(list(measures))):
            return "QUESST's figures pool every trial of a run: read whole"
    except SegevalError:
        pass
    return "an STD list run (XML): read whole" if starts_stdlist(path) else None


def lane_requests(names: Sequence[str]) -> list[Request] | None:
    """The requests of the measures under the exact adapter, when every one is batched; else None."""
    from segeval.adapters.exact import ExactAdapter
    from segeval.measures.compute import requests

    try:
        reqs = requests(list(names), [ExactAdapter()])
    except SegevalError:
        return None
    return reqs if all(x.measure.batchable and x.adapter is not None for x in reqs) else None


def _refusals(job: Job, output: str, segments: bool) -> str:
    """What keeps the segment scanner (``segments``) or the byte scanner's lanes from a one-run ``segeval eval``
    job, said as options (empty: they can try)."""
    s, engine = job.settings, job.engine.engine
    outputs, orders = SCANNER_TAKES[segments]
    reasons = [
        (engine != "processes", f"--engine {engine}"),
        (output not in outputs, f"-o {output}"),
        (s.order not in orders, f"--order {s.order}"),
        (job.lenient, "--lenient"),
        (s.trec_eval != "10", f"--trec-eval {s.trec_eval}"),
        (s.time_format != "mmss", f"--time-format {s.time_format}"),
        (s.predicted != "use", f"--predicted {s.predicted}"),
        (s.queries is not None, "a choice of queries"),
        (not segments and bool(job.adapters), " ".join(f"-a {a}" for a in job.adapters)),
        (not segments and s.judged_only, "-J"),
    ]
    found = ", ".join(why for refused, why in reasons if refused)
    if not found and not segments and lane_requests(job.measures) is None:
        return "a measure without a batch form"
    return found


def _segments(path: str) -> str | None:
    """``a ... run (segments)`` when the run's first lines are in a segment format, else None."""
    from segeval.readers.blocks import open_blocks
    from segeval.readers.formats import DOCUMENT_FORMATS, detect_run_format

    try:
        head = next(open_blocks(path, block=1 << 16), b"")
        fmt = detect_run_format(head[: head.rfind(b"\n") + 1] or head, path)
    except (SegevalError, OSError, StopIteration):
        return None
    return None if fmt in DOCUMENT_FORMATS else f"a {fmt.name} (segments)"


def first_whole(runs: Sequence[str], job: Job) -> str | None:
    """Why the first run that must be read whole must be (:func:`whole_run`), or None."""
    if any(is_stream(r) for r in runs):
        return None
    return next((w for w in (whole_run(r, job.measures) for r in runs) if w is not None), None)


def on_dask(runs: Sequence[str], job: Job) -> bool:
    """Whether the runs go to Dask's tasks: ``--engine dask``, no stream, no run that must be read whole."""
    return job.engine.engine == "dask" and not any(is_stream(r) for r in runs) and first_whole(runs, job) is None


def route(qrels: str, runs: Sequence[str], job: Job, output: str = "trec") -> Route:
    """The route of ``segeval eval`` (and ``compare``) for these inputs, ``job`` and output format."""
    jobs = job.engine.jobs
    if any(is_stream(r) for r in runs) and len(runs) > 1:
        return Route("table", "whole", "a run from a pipe or standard input: every run read here, one at a time")
    whole = first_whole(runs, job)
    if whole is not None and len(runs) == 1:
        return Route("table", "whole", whole)
    if on_dask(runs, job):
        return Route("table", "dask", f"--engine dask: {plural(len(runs), 'run')} in (run, query-partition) tasks")
    if len(runs) > 1:
        workers = min(len(runs), jobs or os.cpu_count() or 1)
        if workers > 1:
            return Route(
                "table",
                "processes",
                f"{plural(len(runs), 'run')}, {workers} worker processes; each "
                f"worker reads a run whole or in chunks by --memory {job.engine.memory}",
            )
        return Route("table", "whole", f"{plural(len(runs), 'run')}, one process (-j 1)")
    memory, measures = job.engine.memory, job.measures
    chunks, size = read_in_chunks(runs[0], memory, measures)
    executor = "chunks" if chunks else "whole"
    segments = _segments(runs[0])
    refused = _refusals(job, output, segments is not None)
    if refused:
        return Route("table", executor, f"{segments + ': ' if segments else ''}{refused}; {size}")
    if segments is not None:
        return Route("segments", executor, f"{segments}; {size}")
    scanner_chunks, size = read_in_chunks(runs[0], memory, measures, min(SCANNER_AUTO_BYTES, AUTO_BYTES))
    if scanner_chunks and not chunks:  # from SCANNER_AUTO_BYTES; below AUTO_BYTES an ungrouped run is read whole
        return Route(
            "scanner", "chunks", f"a plain TREC job; {size}; whole if not grouped by query", whole_if_ungrouped=True
        )
    return Route("scanner", "chunks" if scanner_chunks else "whole", f"a plain TREC job; {size}")
