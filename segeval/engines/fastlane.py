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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.errors import SegevalError
from segeval.io.files import is_stream, read_bytes, starts_with_gzip
from segeval.io.scan import Scanned, Words, scan
from segeval.settings import AUTO_BYTES

if TYPE_CHECKING:
    from segeval.measures.compute import Request

IntArray = npt.NDArray[np.int64]
Codes = npt.NDArray[np.int32]

RELEVANT, NONRELEVANT, UNJUDGED = ord("1"), ord("0"), ord("-")
#: the grade of a result without a qrels line
NO_LINE = np.iinfo(np.int64).min


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
    from segeval.engines.runs import named
    from segeval.engines.types import unevaluated_note
    from segeval.errors import render_note
    from segeval.report.trec import render_values

    v = lane_values(qrels_path, run_path, job)
    if v is None:
        return None
    out = render_values(v.queries, v.requests, v.per_query, v.summary, v.runid, per_query=job.per_query,
                        summary=job.summary, header=job.header)
    note = "" if job.complete or not v.unevaluated else render_note(named(unevaluated_note(v.unevaluated), run_path))
    return out, (note + "\n" if note else "")


def lane_values(qrels_path: str, run_path: str, job: LaneJob) -> Values | None:
    """The lane's :class:`Values` of this job, or None when the usual path must decide."""
    reqs = _requests(job.measures)
    if reqs is None:
        return None
    try:
        data = read_bytes(qrels_path)
        q = None if b"|" in data else scan(data, 4, text=(0, 2), ints=(3,))  # '|': ground-truth groups
        if q is None:
            return None
        data = read_bytes(run_path)
        r = scan(data, 6, text=(0, 2), floats=(4,), checked_ints=(3,), first=(5,))
        del data
    except (SegevalError, OSError, MemoryError):  # unreadable, too big, not gzip ...: the usual path explains
        return None
    if r is None:
        return None
    return _evaluate(q, r, job, reqs)


def _requests(names: Sequence[str]) -> list[Request] | None:
    """The requests of the measures under the exact adapter, when every one is batched; else None."""
    from segeval.adapt.exact import ExactAdapter
    from segeval.measures.compute import requests

    try:
        reqs = requests(list(names), [ExactAdapter()])
    except SegevalError:
        return None
    return reqs if all(x.measure.family.batch is not None and x.adapter is not None for x in reqs) else None


def _evaluate(q: Scanned, r: Scanned, job: LaneJob, reqs: list[Request]) -> Values | None:
    from segeval.aggregate import aggregate
    from segeval.measures.batch import Batch

    qrels_codes, qrels_tokens = _runs_codes(q.text.pop(0))
    run_codes, run_tokens = _runs_codes(r.text.pop(0))
    qrels_names = [t.decode("utf-8") for t in qrels_tokens]
    run_names = [t.decode("utf-8") for t in run_tokens]
    union = sorted(set(qrels_names) | set(run_names))
    where = {name: i for i, name in enumerate(union)}
    qrels_u = np.asarray([where[n] for n in qrels_names], dtype=np.int32)[qrels_codes]
    run_u = np.asarray([where[n] for n in run_names], dtype=np.int32)[run_codes]
    del qrels_codes, run_codes
    run_key, qrels_key = _doc_keys(r.text.pop(2), q.text.pop(2))
    rel = q.ints[3]
    matched = _match(run_u, qrels_u, run_key, qrels_key, rel, len(union))
    del run_key, qrels_key
    if matched is None:
        return None  # a document twice for a query (run) or judged twice (qrels): the usual path says so
    grade, doc_rank = matched

    chosen = sorted(set(qrels_names) if job.complete else set(qrels_names) & set(run_names))
    code = {name: i for i, name in enumerate(chosen)}
    to_chosen = np.asarray([code.get(name, -1) for name in union], dtype=np.int32)
    n_q = len(chosen)
    run_q = to_chosen[run_u]
    del run_u
    rows = _ranking(run_q, r.floats.pop(4), doc_rank, n_q)
    del doc_rank
    row_q = run_q[rows]
    if job.max_results is not None:
        first = np.searchsorted(row_q, np.arange(n_q))
        cut = np.arange(len(rows)) - first[row_q] < job.max_results
        rows, row_q = rows[cut], row_q[cut]
    g = grade[rows]
    del grade, rows

    labels = np.full(len(g), UNJUDGED, dtype=np.uint8)
    labels[g >= 0] = NONRELEVANT
    labels[(g >= job.relevance_level) & (g != NO_LINE)] = RELEVANT
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_q, minlength=n_q), out=offsets[1:])
    qrels_q = to_chosen[qrels_u]
    mine = qrels_q >= 0
    num_rel = np.bincount(qrels_q[mine & (rel >= job.relevance_level)], minlength=n_q).astype(np.int64)
    judged = np.bincount(qrels_q[mine & (rel >= 0)], minlength=n_q).astype(np.int64)
    graded = any(x.measure.family.name == "ndcg_cut" for x in reqs)
    best = np.flatnonzero(mine & (rel > 0)) if graded else np.zeros(0, dtype=np.int64)
    best = best[np.lexsort((-rel[best], qrels_q[best]))]  # the ideal ranking: positive grades, best first
    ideal_offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(qrels_q[best], minlength=n_q), out=ideal_offsets[1:])
    batch = Batch((), labels, offsets, num_rel, judged, np.maximum(g, 0).astype(np.float64),
                  (rel[best].astype(np.float64), ideal_offsets))
    from segeval.measures.compute import batched

    per_query = batched(batch, reqs)
    if per_query is None:
        return None
    summary = {x.name: aggregate(per_query[x.name], x.measure.aggregate) for x in reqs}
    if job.complete:  # trec_eval -c: num_rel sums every qrels line with rel > 0, whatever -l
        for x in reqs:
            if x.measure.name == "num_rel":
                summary[x.name] = int((rel > 0).sum())
    return Values(chosen, reqs, per_query, summary, r.first[5].decode("utf-8"), len(set(qrels_names)) - n_q)


def _match(run_u: Codes, qrels_u: Codes, run_key: npt.NDArray[np.uint64], qrels_key: npt.NDArray[np.uint64],
           rel: IntArray, n_queries: int) -> tuple[IntArray, IntArray] | None:
    """One sort of (query, docno) over both files: per result, the grade of its qrels line
    (:data:`NO_LINE` when none) and its place in (query, docno) order; None when a result or a
    judgement is there twice."""
    n_run = len(run_key)
    key = np.concatenate([run_key, qrels_key])
    order = np.argsort(key)
    query = np.concatenate([run_u, qrels_u])
    by_query = np.argsort((query.astype(np.int16) if n_queries < 2**15 else query)[order], kind="stable")
    order = order[by_query]
    del by_query
    key = key[order]
    same = key[1:] == key[:-1]
    del key
    query = query[order]
    same &= query[1:] == query[:-1]
    del query
    from_qrels = order >= n_run
    if bool((same[1:] & same[:-1]).any()) or bool((same & (from_qrels[1:] == from_qrels[:-1])).any()):
        return None
    pair = np.flatnonzero(same)
    run_at = np.where(from_qrels[pair], pair + 1, pair)
    grade = np.full(n_run, NO_LINE, dtype=np.int64)
    grade[order[run_at]] = rel[order[run_at ^ pair ^ (pair + 1)] - n_run]
    doc_rank = np.empty(n_run, dtype=np.int64)
    doc_rank[order[~from_qrels]] = np.flatnonzero(~from_qrels)
    return grade, doc_rank


def _ranking(query: Codes, score: npt.NDArray[np.float64], doc_rank: IntArray, n_q: int) -> IntArray:
    """Positions of the evaluated queries' results (``query`` >= 0), ordered by query, score
    descending, then docno descending (trec_eval's order)."""
    down = np.negative(score)
    down += 0.0  # -0 is 0
    order = np.argsort(down)
    del down
    q = query[order]
    evaluated = int(np.count_nonzero(q >= 0))
    if evaluated < len(q):
        order, q = order[q >= 0], q[q >= 0]
    order = order[np.argsort(q.astype(np.int16) if n_q < 2**15 else q, kind="stable")]
    q, s = query[order], score[order]
    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    del q, s
    if same.any():
        tied = np.zeros(len(order), dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        at = np.flatnonzero(tied)
        group = np.cumsum(np.concatenate([[True], ~same])[at])  # tie groups are contiguous runs
        order[at] = order[at][np.lexsort((-doc_rank[order[at]], group))]
    return order


def _runs_codes(mat: Words) -> tuple[IntArray, list[bytes]]:
    """Per row, the code of its token (in order of first appearance) and the distinct tokens; cheap
    when equal tokens are in runs (a file grouped by query)."""
    n = len(mat)
    change = np.ones(n, dtype=bool)
    change[1:] = (mat[1:] != mat[:-1]).any(axis=1)
    heads = np.flatnonzero(change)
    tokens = np.ascontiguousarray(mat).view(f"S{8 * mat.shape[1]}").ravel()[heads].tolist()
    code: dict[bytes, int] = {}
    head_codes = [code.setdefault(t, len(code)) for t in tokens]
    lengths = np.diff(np.append(heads, n))
    return np.repeat(np.asarray(head_codes, dtype=np.int64), lengths), list(code)


def _doc_keys(run_docs: Words, qrels_docs: Words) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Integer keys of the docnos of both files that compare as the docnos do (byte order, as strcmp):
    the bytes that differ between docnos, packed big-endian when at most 8 do, else dense codes."""
    k = max(run_docs.shape[1], qrels_docs.shape[1])
    big = [_pad(w, k).byteswap() for w in (run_docs, qrels_docs)]  # word j's value orders bytes 8j..8j+7
    first = big[0][0] if len(big[0]) else big[1][0]
    differ = [int(np.bitwise_or.reduce(big[0][:, j] ^ first[j], initial=0))
              | int(np.bitwise_or.reduce(big[1][:, j] ^ first[j], initial=0)) for j in range(k)]
    varying = [8 * j + b for j in range(k) for b in range(8) if differ[j] >> (8 * (7 - b)) & 0xFF]
    if len(varying) > 8:  # long varying docnos: sort the bytes themselves
        both = np.concatenate([_pad(run_docs, k), _pad(qrels_docs, k)])
        tokens = both.view(np.uint8).reshape(len(both), -1)[:, varying].copy().view(f"S{len(varying)}").ravel()
        codes = np.unique(tokens, return_inverse=True)[1].ravel().astype(np.uint64)
        return codes[: len(run_docs)], codes[len(run_docs):]
    keys = []
    for words in big:
        key = np.zeros(len(words), dtype=np.uint64)
        for j in sorted({p // 8 for p in varying}):
            spans: list[list[int]] = []  # consecutive varying bytes of word j
            for b in (p % 8 for p in varying if p // 8 == j):
                if spans and spans[-1][-1] == b - 1:
                    spans[-1].append(b)
                else:
                    spans.append([b])
            for span in spans:
                bits = 8 * len(span)
                part = (words[:, j] >> np.uint64(8 * (7 - span[-1]))) & np.uint64((1 << bits) - 1)
                key = (key << np.uint64(bits)) | part if bits < 64 else part
        keys.append(key)
    return keys[0], keys[1]


def _pad(words: Words, k: int) -> Words:
    if words.shape[1] == k:
        return words
    out = np.zeros((len(words), k), dtype=np.uint64)
    out[:, : words.shape[1]] = words
    return out
