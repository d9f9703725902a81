"""Vectorised versions of the default measures over all queries at once.

Each function returns, for a :class:`Batch` of queries, exactly (bit for bit) the list of
values its per-query definition in :mod:`segeval.measures.labels` or
:mod:`segeval.measures.trec` returns query by query; those definitions stay the
specification (``tests/unit/measures/test_measures.py`` checks the two agree).  Sums keep the
definitions' order, which is trec_eval's: each query's terms added left to right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Label
from segeval.measures import trec as T
from segeval.measures.arithmetic import log2_discounts, running_sum

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Batch:
    """The adapted rankings of all queries, concatenated: query q's units are
    ``labels[offsets[q]:offsets[q + 1]]``.  From ``queries`` when not given: ``judged``, per query
    the judged units of its pool (bpref's R + N); ``gains``, per unit its gain (grade > 0, else 0);
    ``ideal``, every query's positive pool grades best first, concatenated, and their offsets."""

    queries: Sequence[Adapted]
    labels: npt.NDArray[np.uint8]
    offsets: IntArray
    num_rel: IntArray
    judged: IntArray | None = None
    gains: FloatArray | None = None
    ideal: tuple[FloatArray, IntArray] | None = None

    @classmethod
    def of(cls, adapted: Sequence[Adapted]) -> Batch:
        lengths = np.fromiter((len(a.labels) for a in adapted), dtype=np.int64, count=len(adapted))
        offsets = np.zeros(len(adapted) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        labels = (np.concatenate([a.labels for a in adapted]) if adapted else np.zeros(0, dtype=np.uint8))
        num_rel = np.fromiter((a.num_rel for a in adapted), dtype=np.int64, count=len(adapted))
        return cls(adapted, labels.astype(np.uint8, copy=False), offsets, num_rel)

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)

    @cached_property
    def unit_gains(self) -> FloatArray:
        if self.gains is not None:
            return self.gains
        return np.concatenate([np.zeros(0), *(T.gains(a) for a in self.queries)])

    @cached_property
    def ideal_gains(self) -> tuple[FloatArray, IntArray]:
        if self.ideal is not None:
            return self.ideal
        best = [T.ideal_gains(a) for a in self.queries]
        offsets = np.zeros(len(best) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in best], out=offsets[1:])
        return np.concatenate([np.zeros(0), *best]), offsets

    @cached_property
    def relevant(self) -> npt.NDArray[np.bool_]:
        return np.asarray(self.labels == Label.RELEVANT)

    @cached_property
    def found_before(self) -> IntArray:
        """Relevant units before each position, plus the total at the end (length n + 1)."""
        out = np.zeros(len(self.labels) + 1, dtype=np.int64)
        np.cumsum(self.relevant, out=out[1:])
        return out

    def found_in_top(self, k: IntArray) -> IntArray:
        """Per query, relevant units among its first ``k[q]`` (k may exceed the length)."""
        ends = self.offsets[:-1] + np.minimum(k, self.lengths)
        return self.found_before[ends] - self.found_before[self.offsets[:-1]]

    @cached_property
    def relevant_at(self) -> IntArray:
        """Positions (in the concatenation) of the relevant units."""
        return np.flatnonzero(self.relevant)

    @cached_property
    def relevant_query(self) -> IntArray:
        """The query of each relevant unit."""
        return np.searchsorted(self.offsets, self.relevant_at, side="right") - 1

    @cached_property
    def relevant_precision(self) -> FloatArray:
        """found / rank at each relevant unit (the j-th relevant of its query at rank r: j / r)."""
        q = self.relevant_query
        found = self.found_before[self.relevant_at + 1] - self.found_before[self.offsets[q]]
        rank = self.relevant_at - self.offsets[q] + 1
        return np.asarray(found / rank, dtype=np.float64)

    @cached_property
    def first_relevant(self) -> IntArray:
        """Per query, the index (into ``relevant_at``) of its first relevant unit."""
        return np.asarray(self.found_before[self.offsets[:-1]], dtype=np.int64)

    @cached_property
    def relevant_counts(self) -> IntArray:
        return np.asarray(self.found_before[self.offsets[1:]] - self.found_before[self.offsets[:-1]], dtype=np.int64)

    @cached_property
    def best_precision_from(self) -> FloatArray:
        """For each relevant unit, the highest found / rank at it or at a later relevant unit of its query."""
        values = self.relevant_precision
        out = np.empty_like(values)
        if len(values) == 0:
            return out
        rev = values[::-1].copy()  # running maximum from each query's end: reversed, accumulated per query
        counts = self.relevant_counts[::-1]
        ends = np.cumsum(counts)
        for a, b in zip((ends - counts)[counts > 0].tolist(), ends[counts > 0].tolist(), strict=True):
            np.maximum.accumulate(rev[a:b], out=rev[a:b])
        out[:] = rev[::-1]
        return out


def num_ret(b: Batch) -> list[int]:
    return [int(x) for x in b.lengths.tolist()]


def num_rel(b: Batch) -> list[int]:
    return [int(x) for x in b.num_rel.tolist()]


def num_rel_ret(b: Batch) -> list[int]:
    return [int(x) for x in b.relevant_counts.tolist()]


def precision_at(b: Batch, k: int) -> list[float]:
    return (b.found_in_top(np.full(len(b.num_rel), k, dtype=np.int64)) / k).tolist()  # type: ignore[no-any-return]


def r_precision(b: Batch) -> list[float]:
    r = b.num_rel
    found = b.found_in_top(r)
    return np.where(r > 0, found / np.maximum(r, 1), 0.0).tolist()  # type: ignore[no-any-return]


def reciprocal_rank(b: Batch) -> list[float]:
    has = b.relevant_counts > 0
    out = np.zeros(len(has), dtype=np.float64)
    out[has] = 1.0 / (b.relevant_at[b.first_relevant[has]] - b.offsets[:-1][has] + 1)
    return out.tolist()


def average_precision(b: Batch) -> list[float]:
    terms = b.relevant_precision.tolist()
    out: list[float] = []
    starts = b.first_relevant.tolist()
    counts = b.relevant_counts.tolist()
    num_rels = b.num_rel.tolist()
    for q, (start, count) in enumerate(zip(starts, counts, strict=True)):
        if count == 0:
            out.append(0.0)
            continue
        total = 0.0
        for x in terms[start : start + count]:  # left to right, as the definition
            total += x
        out.append(total / num_rels[q])
    return out


def bpref(b: Batch) -> list[float]:
    nonrel_before = np.zeros(len(b.labels) + 1, dtype=np.int64)
    np.cumsum(b.labels == Label.NONRELEVANT, out=nonrel_before[1:])
    above = nonrel_before[b.relevant_at + 1]  # judged non-relevant at or above each relevant unit (of all queries)
    above = above - nonrel_before[b.offsets[b.relevant_query]]
    big_r = b.num_rel
    judged = b.judged if b.judged is not None else np.fromiter(
        (int(((a.pool if a.pool is not None else np.zeros(0)) >= 0).sum()) for a in b.queries), dtype=np.int64,
        count=len(b.queries))
    big_n = judged - big_r
    bound = np.minimum(big_r, big_n)[b.relevant_query]
    penalties = np.where(above > 0, np.minimum(above, bound) / np.maximum(bound, 1), 0.0)
    terms = 1.0 - penalties
    starts, counts = b.first_relevant.tolist(), b.relevant_counts.tolist()
    out: list[float] = []
    for r, start, count in zip(big_r.tolist(), starts, counts, strict=True):
        out.append(running_sum(terms[start : start + count]) / r if r else 0.0)
    return out


def _iprec(b: Batch, needed: IntArray) -> list[float]:
    """The best found / rank at ranks that have found ``needed[q]`` relevant units (0 if none)."""
    counts = b.relevant_counts
    lengths = b.lengths
    out = np.zeros(len(counts), dtype=np.float64)
    best = b.best_precision_from
    # needed >= 1: from the needed-th relevant unit on, the best is at a relevant unit
    ok = (needed >= 1) & (needed <= counts) & (b.num_rel > 0)
    out[ok] = best[b.first_relevant[ok] + needed[ok] - 1]
    # needed == 0: every rank qualifies; rank 1 has precision 1 or 0
    zero = (needed <= 0) & (lengths > 0) & (b.num_rel > 0)
    with_rel = zero & (counts > 0)
    out[with_rel] = best[b.first_relevant[with_rel]]
    return out.tolist()


def iprec_at_recall(b: Batch, p: int) -> list[float]:
    scaled = p / 100 * b.num_rel
    whole = np.floor(scaled)
    needed = (whole + (scaled - whole >= 0.5)).astype(np.int64)  # C's lround, as trec.lround
    return _iprec(b, needed)


def iprec_at_recall_9(b: Batch, p: int) -> list[float]:
    level = p / 100
    needed = np.trunc(level * b.num_rel + 0.9).astype(np.int64)
    return _iprec(b, needed)




#: the largest (queries x cut-off) matrix :func:`ndcg_at` makes at a time
NDCG_CELLS = 1 << 22


def _dcg_top(values: FloatArray, offsets: IntArray, k: int) -> FloatArray:
    """Per query, the DCG of its first k ``values`` (``values[offsets[q]:offsets[q + 1]]``), each
    divided by log2(rank + 1) and added left to right as :func:`segeval.measures.trec.dcg` adds (a
    (queries, k) matrix padded with zeros, accumulated along its rows; :data:`NDCG_CELLS` at a time)."""
    n_q = len(offsets) - 1
    step = max(1, NDCG_CELLS // max(k, 1))
    if n_q > step:
        return np.concatenate([_dcg_top(values, offsets[a : a + step + 1], k) for a in range(0, n_q, step)])
    take = np.minimum(np.diff(offsets), k)
    rows = np.repeat(np.arange(n_q), take)
    cols = np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take)
    m = np.zeros((n_q, k), dtype=np.float64)
    m[rows, cols] = values[offsets[:-1][rows] + cols]
    m /= log2_discounts(k)
    return np.cumsum(m, axis=1)[:, -1] if k else np.zeros(n_q)


def ndcg_at(b: Batch, k: int) -> list[float]:
    n_q = len(b.num_rel)
    ideal = _dcg_top(*b.ideal_gains, k)
    dcg = _dcg_top(b.unit_gains, b.offsets, k)
    out = np.zeros(n_q, dtype=np.float64)
    np.divide(dcg, ideal, out=out, where=ideal > 0)
    return out.tolist()
