"""The fast lane of ``segeval eval``: a plain TREC run against plain TREC qrels, without pandas.

The usual job (one document run, trec_eval's text output, the exact adapter, score order,
measures that :mod:`segeval.measures.batch` computes) goes from the files' bytes
(:mod:`segeval.io.scan`) to integer codes, one sort, the labels and :class:`~segeval.measures.batch.Batch`
straight away.  Its output and notes are the usual path's, byte for byte; whenever the job or the
bytes are anything else (another format, a duplicate judgement or result, a token the scanner does
not keep, an option the lane does not take), :func:`fast_eval` returns None before printing
anything, and the usual path reads the files and decides, with its messages.

The exact adapter credits each relevant document once, so no score measure can exceed 1 and
the lane has no value notes to give.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from segeval.engines.lanebatch import LaneOptions, LaneQrels, batch_values, query_names, run_codes
from segeval.errors import SegevalError
from segeval.io.chunks import batches
from segeval.io.files import BLOCK_BYTES, is_stream, limits, read_blocks, read_bytes, starts_with_gzip
from segeval.io.scan import Scanned, concatenated, scan, stack_words
from segeval.settings import AUTO_BYTES

if TYPE_CHECKING:
    from segeval.measures.compute import Request


@dataclass(frozen=True)
class LaneJob:
    """The ``segeval eval`` options the lane takes (the others send the job down the usual path)."""

    measures: Sequence[str]
    per_query: bool = False
    summary: bool = True
    header: Sequence[str] = ()
    relevance_level: int = 1
    complete: bool = False
    max_results: int | None = None


def applies(run: str, qrels: str, memory: str) -> bool:
    """Whether the files suit the lane: regular files (not pipes), read in memory by ``memory``."""
    if memory == "chunked" or is_stream(run) or is_stream(qrels):
        return False
    if memory == "in-memory":
        return True
    try:
        size = os.path.getsize(run) * (4 if starts_with_gzip(run) else 1)
    except OSError:
        return False
    return size < AUTO_BYTES


@dataclass(frozen=True)
class Values:
    """What the lane computed: the evaluated queries, the requests, per-query values and summaries
    by request name (as :class:`segeval.pipeline.Evaluation` holds them), the run tag, and the
    number of qrels queries not evaluated."""

    queries: list[str]
    requests: list[Request]
    per_query: dict[str, list[Any]]
    summary: dict[str, Any]
    runid: str
    unevaluated: int


def fast_eval(qrels_path: str, run_path: str, job: LaneJob) -> tuple[str, str] | None:
    """(stdout, stderr) of ``segeval eval`` on this job, or None when the usual path must decide."""
    v = lane_values(qrels_path, run_path, job)
    return None if v is None else printed(v, job, run_path)


def printed(v: Values, job: LaneJob, run_path: str) -> tuple[str, str]:
    """(stdout, stderr) of ``segeval eval`` with these values: trec_eval's lines, and the note on
    qrels queries not evaluated."""
    from segeval.engines.runs import named
    from segeval.engines.types import unevaluated_note
    from segeval.errors import render_note
    from segeval.report.trec import render_values

    out = render_values(v.queries, v.requests, v.per_query, v.summary, v.runid, per_query=job.per_query,
                        summary=job.summary, header=job.header)
    note = "" if job.complete or not v.unevaluated else render_note(named(unevaluated_note(v.unevaluated), run_path))
    return out, (note + "\n" if note else "")


def lane_values(qrels_path: str, run_path: str, job: LaneJob) -> Values | None:
    """The lane's :class:`Values` of this job, or None when the usual path must decide."""
    reqs = lane_requests(job.measures)
    if reqs is None:
        return None
    try:
        q = lane_qrels(qrels_path)
        if q is None:
            return None
        data = read_bytes(run_path)  # whole: faster than in blocks, and the peak comes later
        r = scan(data, 6, text=(0, 2), floats=(4,), checked_ints=(3,), first=(5,))
        del data
    except (SegevalError, OSError, MemoryError):  # unreadable, too big, not gzip ...: the usual path explains
        return None
    if r is None:
        return None
    return _evaluate(q, r, job, reqs)


def line_blocks(path: str) -> Iterator[bytes]:
    """A file the usual path reads whole (``read_bytes``, with its limits) in blocks of whole lines of
    about :data:`~segeval.io.files.BLOCK_BYTES`, for a reader that keeps less than its text."""
    blocks = read_blocks(path, max_bytes=limits()[0])
    return (data for _, data in batches(blocks, 1, BLOCK_BYTES))


def lane_qrels(path: str) -> LaneQrels | None:
    """Plain TREC qrels ('query 0 docno rel') indexed by query, read in blocks; None when they are
    anything else."""
    import numpy as np

    code: dict[bytes, int] = {}
    codes, docs, rels = [], [], []
    for data in line_blocks(path):
        if b"|" in data:
            return None  # ground-truth groups
        if not data.strip():
            continue
        q = scan(data, 4, text=(0, 2), ints=(3,))
        if q is None:
            return None
        local, tokens = run_codes(q.text[0])
        codes.append(np.asarray([code.setdefault(t, len(code)) for t in tokens], dtype=np.int32)[local])
        docs.append(q.text[2])
        rels.append(q.ints[3])
    if not codes:
        return None  # no data line
    return LaneQrels.of(concatenated(codes), [t.decode("utf-8") for t in code], stack_words(docs), concatenated(rels))


def lane_requests(names: Sequence[str]) -> list[Request] | None:
    """The requests of the measures under the exact adapter, when every one is batched; else None."""
    from segeval.adapt.exact import ExactAdapter
    from segeval.measures.compute import requests

    try:
        reqs = requests(list(names), [ExactAdapter()])
    except SegevalError:
        return None
    return reqs if all(x.measure.family.batch is not None and x.adapter is not None for x in reqs) else None


def _evaluate(qrels: LaneQrels, r: Scanned, job: LaneJob, reqs: list[Request]) -> Values | None:
    run_names = set(query_names(r.text[0]))
    extra = [c for c, name in enumerate(qrels.names) if name not in run_names]
    got = batch_values(r.text[0], r.text[2], r.floats[4], qrels, reqs, lane_options(job, reqs), extra)
    if got is None:
        return None  # a document twice for a query (run) or judged twice (qrels): the usual path says so
    names, values = got
    if not job.complete:  # the qrels queries not in the run were evaluated only to check their judgements
        keep = [i for i, name in enumerate(names) if name in run_names]
        names, values = [names[i] for i in keep], {k: [v[i] for i in keep] for k, v in values.items()}
    return finish_values(qrels, names, values, reqs, job, r.first[5].decode("utf-8"))


def lane_options(job: LaneJob, reqs: Sequence[Request]) -> LaneOptions:
    return LaneOptions(job.relevance_level, job.max_results)


def finish_values(qrels: LaneQrels, names: list[str], per_query: dict[str, list[Any]], reqs: list[Request],
                  job: LaneJob, runid: str) -> Values:
    """:class:`Values` from the evaluated queries (sorted) and their values: the summaries, and trec_eval
    ``-c``'s num_rel over every qrels line."""
    from segeval.aggregate import aggregate

    summary = {x.name: aggregate(per_query[x.name], x.measure.aggregate) for x in reqs}
    if job.complete:  # trec_eval -c: num_rel sums every qrels line with rel > 0, whatever -l
        for x in reqs:
            if x.measure.name == "num_rel":
                summary[x.name] = int((qrels.rel > 0).sum())
    return Values(names, reqs, per_query, summary, runid, len(qrels.names) - len(names))
