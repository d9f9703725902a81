"""One batch of the document lanes (:mod:`segeval.executors.lanes`): the run rows of whole queries
against the lane's qrels, to per-query values as the usual path computes them, or None."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.adapters.exact import NO_LINE, exact_batch, match_pairs
from segeval.core.arrays import Codes, FloatArray, IntArray
from segeval.readers.byte_tokens import byte_keys, varying_bytes
from segeval.readers.scanner import Words

if TYPE_CHECKING:
    from segeval.core.settings import Settings
    from segeval.measures.compute import Request


@dataclass(frozen=True)
class LaneQrels:
    """Qrels grouped by query: query ``c`` (``names[c]``) has rows ``offsets[c]:offsets[c + 1]`` of docs and rel."""

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


def batch_values(
    run_query: Words,
    run_docs: Words,
    score: FloatArray,
    qrels: LaneQrels,
    reqs: Sequence[Request],
    settings: Settings,
    extra: Sequence[int] = (),
) -> tuple[list[str], dict[str, list[Any]]] | None:
    """The names of the evaluated queries (sorted: the run's with qrels, and the qrels queries ``extra``, without
    results) and each request's values for them; None when a document is there or judged twice."""
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

    batch = exact_batch(
        to_chosen[local], score, grade_of, doc_rank.__getitem__, n_q, to_chosen[qrels_local], rel, settings
    )
    values = batched(batch, reqs)
    return None if values is None else ([names[i] for i in chosen], values)


def token_codes(mat: Words) -> tuple[Codes, list[bytes]]:
    """Per row, the code of its token (in order of first appearance) and the distinct tokens."""
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
    """Integer keys of the docnos of both files that compare as the docnos do (byte order, as strcmp): the
    bytes that differ, packed big-endian when at most 8 do, else dense codes."""
    varying = varying_bytes(run_docs, qrels_docs)
    run_key, qrels_key = byte_keys(run_docs, varying), byte_keys(qrels_docs, varying)
    if len(varying) > 8:  # long varying docnos: the codes of the bytes themselves, in their order
        codes = np.unique(np.concatenate([run_key, qrels_key]), return_inverse=True)[1].ravel().astype(np.uint64)
        return codes[: len(run_docs)], codes[len(run_docs) :]
    return run_key, qrels_key


def query_names(mat: Words) -> list[str]:
    """The distinct query tokens of a run's or qrels' rows, decoded."""
    return [t.decode("utf-8") for t in token_codes(mat)[1]]
