"""One batch of the fast lanes: the run rows of whole queries against the lane's qrels, to per-query values.

The in-memory lane (:mod:`segeval.executors.scanner_whole`) evaluates its run as one batch, the streaming
lane (:mod:`segeval.executors.scanner_chunks`) batch by batch; both give :func:`batch_values` the qrels
as :class:`LaneQrels` (indexed by query once) and get each evaluated query's values, exactly as the
usual path computes them.  None whenever the usual path must decide (a document twice for a query,
a judgement given twice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.adapters.exact import exact_labels
from segeval.core.arrays import Codes, FloatArray, IntArray
from segeval.core.ordering import score_order, sort_each
from segeval.readers.byte_tokens import pack_bytes
from segeval.readers.scanner import Words

if TYPE_CHECKING:
    from segeval.core.settings import Settings
    from segeval.measures.batch import Batch
    from segeval.measures.compute import Request


#: the grade of a result without a qrels line
NO_LINE = np.iinfo(np.int64).min


@dataclass(frozen=True)
class LaneQrels:
    """Qrels grouped by query: query ``c`` (``names[c]``) has the rows ``offsets[c]:offsets[c + 1]``
    of ``docs`` (docno tokens) and ``rel`` (grades), in file order."""

    names: list[str]
    code: dict[str, int]
    offsets: IntArray
    docs: Words
    rel: IntArray

    @classmethod
    def of(cls, codes: Codes, names: list[str], docs: Words, rel: IntArray) -> LaneQrels:
        """From each row's query code (``names[code]``), docno token and grade."""
        if len(codes) > 1 and bool((codes[1:] < codes[:-1]).any()):  # not grouped by query
            order = np.argsort(codes, kind="stable")
            codes, docs, rel = codes[order], docs[order], rel[order]
        offsets = np.zeros(len(names) + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes, minlength=len(names)), out=offsets[1:])
        return cls(names, {n: i for i, n in enumerate(names)}, offsets, docs, rel)

    def rows(self, codes: IntArray) -> IntArray:
        """The rows of the queries ``codes``, query by query."""
        starts, ends = self.offsets[codes], self.offsets[codes + 1]
        lengths = ends - starts
        before = np.zeros(len(codes), dtype=np.int64)
        np.cumsum(lengths[:-1], out=before[1:])
        return np.repeat(starts - before, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)


def batch_values(run_query: Words, run_docs: Words, score: FloatArray, qrels: LaneQrels,
                 reqs: Sequence[Request], settings: Settings, extra: Sequence[int] = ()
                 ) -> tuple[list[str], dict[str, list[Any]]] | None:
    """The names of the evaluated queries (sorted) and each request's values for them: the queries of
    these run rows that have qrels, and the qrels queries ``extra`` (evaluated with no results); None
    when a document is there twice for a query, or judged twice.  ``settings``: its ``relevance_level``
    and ``max_results`` (the lanes take no other policy but ``missing_queries``, which their callers apply)."""
    from segeval.measures.compute import batched

    local, tokens = token_codes(run_query)
    del run_query  # the caller may have let go of the run's columns: each is freed once used
    names = [t.decode("utf-8") for t in tokens] + [qrels.names[c] for c in extra]
    code = np.asarray([qrels.code.get(n, -1) for n in names[: len(tokens)]] + list(extra), dtype=np.int64)
    judged_queries = np.flatnonzero(code >= 0)
    rows = qrels.rows(code[judged_queries])
    qrels_local = np.repeat(judged_queries.astype(local.dtype), np.diff(qrels.offsets)[code[judged_queries]])
    rel = qrels.rel[rows]
    run_key, qrels_key = doc_keys(run_docs, qrels.docs[rows])
    del run_docs, rows
    matched = match_pairs(local, qrels_local, run_key, qrels_key, rel, len(names))
    del run_key, qrels_key
    if matched is None:
        return None
    grade, doc_rank = matched

    chosen = sorted(judged_queries.tolist(), key=names.__getitem__)
    to_chosen = np.full(len(names), -1, dtype=np.int32)
    to_chosen[chosen] = np.arange(len(chosen), dtype=np.int32)
    n_q = len(chosen)
    def grade_of(rows: IntArray) -> FloatArray:
        g = grade[rows]
        return np.where(g == NO_LINE, np.nan, g.astype(np.float64))

    batch = exact_batch(to_chosen[local], score, grade_of, doc_rank.__getitem__, n_q, to_chosen[qrels_local], rel,
                        settings)
    values = batched(batch, reqs)
    return None if values is None else ([names[i] for i in chosen], values)


def exact_batch(run_q: Codes, score: FloatArray, grade_of: Callable[[IntArray], FloatArray],
                tie_key: Callable[[IntArray], Codes], n_q: int, pool_q: Codes, pool: Codes,
                settings: Settings) -> Batch:
    """The exact adapter's :class:`~segeval.measures.batch.Batch` of coded rows, for every reader that codes
    document runs: each run row's query (0 .. n_q - 1; -1: not evaluated) and score; ``grade_of(rows)``, the
    grades of those rows (NaN: no qrels line), asked once for the ranked rows; ``tie_key`` as
    :func:`segeval.core.ordering.score_order` takes it; each qrels line's query (-1: not evaluated) and grade (the
    query's pool).  ``settings``: its ``relevance_level`` and ``max_results``."""
    from segeval.core.prepared import first_results  # not on import: the in-memory reader's module
    from segeval.measures.batch import Batch

    evaluated = np.flatnonzero(run_q >= 0)
    if len(evaluated) == len(run_q):
        order = score_order(run_q, score, n_q, tie_key)
    else:
        order = evaluated[score_order(run_q[evaluated], score[evaluated], n_q, lambda at: tie_key(evaluated[at]))]
    order = first_results(order, run_q, n_q, settings.max_results)
    row_q = run_q[order]
    grades = grade_of(order)
    labels = exact_labels(grades, settings.relevance_level)
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_q, minlength=n_q), out=offsets[1:])
    lines = np.flatnonzero(pool_q >= 0)
    lines = lines[np.argsort(pool_q[lines], kind="stable")]  # each query's qrels lines: its pool
    owner = pool_q[lines]
    num_rel = np.bincount(owner[pool[lines] >= settings.relevance_level], minlength=n_q).astype(np.int64)
    pool_offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=n_q), out=pool_offsets[1:])
    return Batch(labels, offsets, num_rel, grades, pool[lines].astype(np.float64), pool_offsets)


def match_pairs(run_u: Codes, qrels_u: Codes, run_key: npt.NDArray[np.uint64], qrels_key: npt.NDArray[np.uint64],
                rel: IntArray, n_queries: int) -> tuple[IntArray, Codes] | None:
    """One sort of (query, docno) over both files (grouped by query, then each query's docnos sorted
    alone): per result, the grade of its qrels line (:data:`NO_LINE` when none) and its place in
    (query, docno) order; None when a result or a judgement is there twice."""
    n_run = len(run_key)
    query = np.concatenate([run_u, qrels_u])
    order = np.argsort(query.astype(np.int16) if n_queries < 2**15 else query, kind="stable")  # radix for 16 bits
    counts = np.bincount(query, minlength=n_queries)
    key = np.concatenate([run_key, qrels_key])[order]
    within = sort_each(key, counts, np.cumsum(counts) - counts)
    order = order[within]
    key = key[within]
    del within
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
    doc_rank: Codes = np.empty(n_run, dtype=np.int32 if len(order) < 2**31 else np.int64)
    doc_rank[order[~from_qrels]] = np.flatnonzero(~from_qrels)
    return grade, doc_rank


def token_codes(mat: Words) -> tuple[Codes, list[bytes]]:
    """Per row, the code of its token (in order of first appearance; 32-bit) and the distinct tokens; cheap
    when equal tokens are in runs (a file grouped by query)."""
    n = len(mat)
    change = np.ones(n, dtype=bool)
    change[1:] = (mat[1:] != mat[:-1]).any(axis=1)
    heads = np.flatnonzero(change)
    tokens = np.ascontiguousarray(mat).view(f"S{8 * mat.shape[1]}").ravel()[heads].tolist()
    code: dict[bytes, int] = {}
    head_codes = [code.setdefault(t, len(code)) for t in tokens]
    lengths = np.diff(np.append(heads, n))
    return np.repeat(np.asarray(head_codes, dtype=np.int32), lengths), list(code)


def doc_keys(run_docs: Words, qrels_docs: Words) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Integer keys of the docnos of both files that compare as the docnos do (byte order, as strcmp):
    the bytes that differ between docnos, packed big-endian when at most 8 do, else dense codes.  The
    words are looked at column by column (no byte-swapped copy of the tokens)."""
    sides = (run_docs, qrels_docs)
    k = max(w.shape[1] for w in sides)
    first = pad_words((run_docs if len(run_docs) else qrels_docs)[:1], k)[0] if len(run_docs) + len(qrels_docs) \
        else np.zeros(k, dtype=np.uint64)
    # the bits where some docno's word j differs from the first one's (OR and XOR commute with a byte swap)
    differ = [int(np.bitwise_or.reduce(w[:, j] ^ first[j], initial=0)) if j < w.shape[1]
              else int(first[j]) if len(w) else 0 for j in range(k) for w in sides]  # past a side's width: zeros
    varying = [8 * j + b for j in range(k) for b in range(8)
               if (differ[2 * j] | differ[2 * j + 1]) >> (8 * b) & 0xFF]  # little-endian: byte b at bits 8b
    if len(varying) > 8:  # long varying docnos: sort the bytes themselves
        both = np.concatenate([pad_words(run_docs, k), pad_words(qrels_docs, k)])
        tokens = both.view(np.uint8).reshape(len(both), -1)[:, varying].copy().view(f"S{len(varying)}").ravel()
        codes = np.unique(tokens, return_inverse=True)[1].ravel().astype(np.uint64)
        return codes[: len(run_docs)], codes[len(run_docs):]

    def big_endian(words: Words) -> Callable[[int], npt.NDArray[np.uint64]]:
        """Word j of the tokens, big-endian (byte 8j + b at bits 8 * (7 - b)); zeros past their width."""
        return lambda j: words[:, j].byteswap() if j < words.shape[1] else np.zeros(len(words), dtype=np.uint64)

    run_key = pack_bytes(big_endian(run_docs), len(run_docs), varying)
    return run_key, pack_bytes(big_endian(qrels_docs), len(qrels_docs), varying)


def pad_words(words: Words, k: int) -> Words:
    if words.shape[1] == k:
        return words
    out = np.zeros((len(words), k), dtype=np.uint64)
    out[:, : words.shape[1]] = words
    return out


def query_names(mat: Words) -> list[str]:
    """The distinct query tokens of a run's or qrels' rows, decoded."""
    return [t.decode("utf-8") for t in token_codes(mat)[1]]
