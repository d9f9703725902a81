"""The streaming lane of ``segeval eval``: the fast lane for runs read in batches."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray
from segeval.core.settings import BATCH_BYTES, Job, OutputOptions
from segeval.executors.results import RunResult
from segeval.executors.scanner_whole import finish_values, lane_values, printed, scan_run, whole_values
from segeval.readers.blocks import Regrouped, batches, open_blocks, run_starts, whole_queries
from segeval.readers.scanner import Words
from segeval.readers.scanner_documents import LaneQrels, batch_values, pad_words, token_codes
from segeval.reports.trec import runid as trec_runid

Rows = tuple[Words, Words, FloatArray]  # a run's query tokens, docno tokens and scores


def stream_eval(
    qrels_path: str, run_path: str, job: Job, out: OutputOptions, whole_if_ungrouped: bool = False
) -> tuple[str, str] | None:
    """(stdout, stderr) of ``segeval eval`` on this job, or None when the usual path must decide."""
    from segeval.executors.progress import Progress
    from segeval.readers.files import input_size

    with Progress(input_size(run_path), "MiB", quiet=job.engine.quiet, scale=2**20) as bar:
        result = stream_values(qrels_path, run_path, job, on_read=bar.advance, whole_if_ungrouped=whole_if_ungrouped)
    return None if result is None else printed(result, job, out, run_path)


def stream_values(
    qrels_path: str,
    run_path: str,
    job: Job,
    on_read: Callable[[int], object] | None = None,
    whole_if_ungrouped: bool = False,
) -> RunResult | None:
    """The lane's :class:`RunResult` of this job, the run read in batches; None when the usual path must decide
    (a run not grouped by query: with ``whole_if_ungrouped``, the fast lane reads it whole)."""

    def streamed(qrels: LaneQrels, path: str, job: Job, reqs: list[Any]) -> RunResult | None:
        try:
            return _Stream(qrels, job, reqs).run(path, job.engine.chunk_lines, on_read)
        except Regrouped:
            return whole_values(qrels, path, job, reqs) if whole_if_ungrouped else None

    return lane_values(qrels_path, run_path, job, streamed)


class _Unread(Exception):
    """A batch the scanner does not read: the usual path must decide."""


class _Stream:
    """One streaming evaluation: the queries finished so far and their values."""

    def __init__(self, qrels: LaneQrels, job: Job, reqs: list[Any]) -> None:
        self.qrels, self.job, self.reqs = qrels, job, reqs
        self.done: set[bytes] = set()  # run query tokens whose rows have all been read
        self.names: list[str] = []
        self.values: dict[str, list[Any]] = {x.name: [] for x in reqs}
        self.runid: bytes | None = None

    def run(self, path: str, chunk_lines: int, on_read: Callable[[int], object] | None) -> RunResult | None:
        blocks = batches(open_blocks(path, on_read=on_read), chunk_lines, BATCH_BYTES)
        try:
            for rows, tokens in whole_queries(self._scanned(blocks), _query_runs, _cut, _joined):
                self._evaluate(rows, tokens)
        except _Unread:
            return None
        if self.runid is None:
            return None  # no data line: the usual path says so
        seen = {t.decode("utf-8") for t in self.done}
        runid = trec_runid([self.runid.decode("utf-8")])
        return finish_values(self.qrels, self.names, self.values, seen, self.reqs, self.job, runid)

    def _scanned(self, blocks: Iterator[tuple[int, bytes]]) -> Iterator[Rows]:
        for _, data in blocks:
            if not data or data.isspace():  # (no stripped copy of the batch)
                continue  # blank lines only
            r = scan_run(data)
            if r is None:
                raise _Unread
            self.runid = r.last["run"]  # trec_eval's runid: the last line's (segeval.reports.trec.runid)
            yield r.text["query"], r.text["item"], r.floats["score"]

    def _evaluate(self, rows: Rows, tokens: list[bytes]) -> None:
        """Evaluate the rows of finished queries (:class:`_Unread`: the usual path must decide)."""
        self.done.update(tokens)
        got = batch_values(*rows, self.qrels, self.reqs, self.job.settings)
        if got is None:
            raise _Unread
        self.names += got[0]
        for k, v in got[1].items():
            self.values[k] += v


def _query_runs(rows: Rows) -> tuple[list[bytes], npt.NDArray[np.intp]]:
    local, tokens = token_codes(rows[0])
    starts = run_starts(local)
    return [tokens[c] for c in local[starts].tolist()], starts


def _joined(parts: list[Rows]) -> Rows:
    if len(parts) == 1:
        return parts[0]
    k = max(p[0].shape[1] for p in parts)
    d = max(p[1].shape[1] for p in parts)
    return (
        np.concatenate([pad_words(p[0], k) for p in parts]),
        np.concatenate([pad_words(p[1], d) for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


def _cut(rows: Rows, start: int, stop: int | None) -> Rows:
    return rows[0][start:stop], rows[1][start:stop], rows[2][start:stop]
