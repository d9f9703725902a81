"""The measures' batch forms (:attr:`segeval.measures.declaration.Family.batch`), over all queries at once (one
query is a batch of one), sums in trec_eval's order (:func:`segeval.measures.arithmetic.running_sum`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from segeval.adapters.base import Adapted, Label
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.ordering import padded_cells
from segeval.measures.arithmetic import log2_discounts
from segeval.measures.params import Params
from segeval.measures.trec_gains import dcg, gain_table


@dataclass(frozen=True)
class Batch:
    """The labelled rankings of all queries, concatenated: query q's units are ``labels[offsets[q]:offsets[q +
    1]]``, ``grades`` their grades (NaN: none), its pool (its judged units' grades) ``pool[pool_offsets[q]:
    pool_offsets[q + 1]]``; ``queries``: the per-query :class:`Adapted` rankings (empty when made from codes)."""

    labels: npt.NDArray[np.uint8]
    offsets: IntArray
    num_rel: IntArray
    grades: FloatArray
    pool: FloatArray
    pool_offsets: IntArray
    queries: Sequence[Adapted] = ()

    @classmethod
    def of(cls, adapted: Sequence[Adapted]) -> Batch:
        """The batch of per-query adapted rankings (kept as ``queries``)."""

        def offsets_of(lengths: list[int]) -> IntArray:
            return np.array([0, *lengths], dtype=np.int64).cumsum()  # the method: np.cumsum's wrapper costs more

        pools = [a.pool if a.pool is not None else np.zeros(0) for a in adapted]
        grades = [a.grades if a.grades is not None else np.zeros(len(a.labels)) for a in adapted]
        labels = np.concatenate([a.labels for a in adapted]) if adapted else np.zeros(0, dtype=np.uint8)
        num_rel = np.array([a.num_rel for a in adapted], dtype=np.int64)
        return cls(
            labels.astype(np.uint8, copy=False),
            offsets_of([len(a.labels) for a in adapted]),
            num_rel,
            np.concatenate([np.zeros(0), *grades]).astype(np.float64, copy=False),
            np.concatenate([np.zeros(0), *pools]).astype(np.float64, copy=False),
            offsets_of([len(x) for x in pools]),
            adapted,
        )

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)

    @cached_property
    def unit_gains(self) -> FloatArray:
        """Per unit, its gain: the grade when positive, else 0 (as :func:`segeval.measures.trec_gains.gains`)."""
        known = np.nan_to_num(self.grades)
        return np.where(known > 0, known, 0.0)

    @cached_property
    def pool_query(self) -> IntArray:
        """The query of each pool grade."""
        return np.repeat(np.arange(len(self.num_rel), dtype=np.int64), np.diff(self.pool_offsets))

    @cached_property
    def ideal_gains(self) -> tuple[FloatArray, IntArray]:
        """Every query's :func:`segeval.measures.trec_gains.ideal_gains`, concatenated, and their offsets."""
        positive = np.flatnonzero(self.pool > 0)
        owner = self.pool_query[positive]
        best = positive[np.lexsort((-self.pool[positive], owner))]
        offsets = np.zeros(len(self.num_rel) + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=len(self.num_rel)), out=offsets[1:])
        return self.pool[best], offsets

    @cached_property
    def judged_counts(self) -> IntArray:
        """Per query, the judged units of its pool (grade >= 0: bpref's R + N)."""
        return np.bincount(self.pool_query[self.pool >= 0], minlength=len(self.num_rel)).astype(np.int64)

    @cached_property
    def judged_before(self) -> IntArray:
        """Judged units (any label but ``-``) before each position of the concatenation, then in all."""
        judged = np.zeros(len(self.labels) + 1, dtype=np.int64)
        np.cumsum(self.labels != Label.UNJUDGED, out=judged[1:])
        return judged

    @cached_property
    def relevant(self) -> BoolArray:
        return np.asarray(self.labels == Label.RELEVANT)

    def found_before(self, positions: IntArray) -> IntArray:
        """Relevant units (of all queries) before each of ``positions`` in the concatenation."""
        return np.asarray(np.searchsorted(self.relevant_at, positions), dtype=np.int64)

    def found_in_top(self, k: IntArray | int) -> IntArray:
        """Per query, relevant units among its first ``k[q]`` (or k; k may exceed the length)."""
        ends = self.offsets[:-1] + np.minimum(k, self.lengths)
        return self.found_before(ends) - self.first_relevant

    @cached_property
    def relevant_at(self) -> IntArray:
        """Positions (in the concatenation) of the relevant units."""
        return np.flatnonzero(self.relevant)

    @cached_property
    def relevant_query(self) -> IntArray:
        """The query of each relevant unit."""
        return np.repeat(np.arange(len(self.num_rel), dtype=np.int64), self.relevant_counts)

    @cached_property
    def relevant_precision(self) -> FloatArray:
        """found / rank at each relevant unit (the j-th relevant of its query at rank r: j / r)."""
        q = self.relevant_query
        found = np.arange(1, len(self.relevant_at) + 1, dtype=np.int64) - self.first_relevant[q]
        rank = self.relevant_at - self.offsets[q] + 1
        return np.asarray(found / rank, dtype=np.float64)

    @cached_property
    def first_relevant(self) -> IntArray:
        """Per query, the index (into ``relevant_at``) of its first relevant unit."""
        return self.found_before(self.offsets[:-1])

    @cached_property
    def relevant_counts(self) -> IntArray:
        return self.found_before(self.offsets[1:]) - self.first_relevant

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
    return (b.found_in_top(k) / k).tolist()  # type: ignore[no-any-return]


def judged_at(b: Batch, k: int) -> list[float]:
    """Judged units (any label but ``-``) among each query's first k, over k."""
    judged = b.judged_before
    starts = b.offsets[:-1]
    return ((judged[starts + np.minimum(k, b.lengths)] - judged[starts]) / k).tolist()  # type: ignore[no-any-return]


def recall_at(b: Batch, k: int) -> list[float]:
    found = b.found_in_top(k)
    return np.where(b.num_rel > 0, found / np.maximum(b.num_rel, 1), 0.0).tolist()  # type: ignore[no-any-return]


def success_at(b: Batch, k: int) -> list[float]:
    found = b.found_in_top(k)
    return np.where(found > 0, 1.0, 0.0).tolist()  # type: ignore[no-any-return]


def r_precision(b: Batch) -> list[float]:
    r = b.num_rel
    found = b.found_in_top(r)
    return np.where(r > 0, found / np.maximum(r, 1), 0.0).tolist()  # type: ignore[no-any-return]


def reciprocal_rank(b: Batch, k: int | None = None) -> list[float]:
    """1 / rank of each query's first relevant unit (in its top k: recip_rank_cut); 0 when none is there."""
    has = (b.relevant_counts if k is None else b.found_in_top(k)) > 0
    out = np.zeros(len(has), dtype=np.float64)
    out[has] = 1.0 / (b.relevant_at[b.first_relevant[has]] - b.offsets[:-1][has] + 1)
    return out.tolist()


def rprec_mult(b: Batch, x: float) -> list[float]:
    """P at rank int(x * R + 0.9) (trec_eval's truncation); 0 when that rank is 0."""
    k = np.trunc(x * b.num_rel + 0.9).astype(np.int64)
    return np.where(k > 0, b.found_in_top(k) / np.maximum(k, 1), 0.0).tolist()  # type: ignore[no-any-return]


def _f(b: Batch, k: int) -> FloatArray:
    found = b.found_in_top(k)
    p, r = found / k, np.where(b.num_rel > 0, found / np.maximum(b.num_rel, 1), 0.0)
    both = (p > 0) & (r > 0)
    return np.where(both, 2 * p * r / np.where(both, p + r, 1.0), 0.0)


def f_at(b: Batch, k: int) -> list[float]:
    """F measure at cut-off k: the harmonic mean of P@k and recall@k (0 when either is 0)."""
    return _f(b, k).tolist()  # type: ignore[no-any-return]


def e_at(b: Batch, k: int) -> list[float]:
    """E measure at cut-off k with b = 1: 1 - F@k (van Rijsbergen; textbook form)."""
    return (1.0 - _f(b, k)).tolist()  # type: ignore[no-any-return]


def ordered_sums(values: FloatArray, starts: IntArray, counts: IntArray) -> FloatArray:
    """Per segment, ``values[starts[i]:starts[i] + counts[i]]`` added left to right from 0.0 (as
    :func:`segeval.measures.arithmetic.running_sum`)."""
    width = int(counts.max(initial=0))
    cells = padded_cells(counts, len(values)) if width else None
    if cells is not None:  # one padded matrix: cumsum adds along each row in order
        row, column = cells
        table = np.zeros((len(counts), width), dtype=np.float64)
        table[row, column] = values[starts[row] + column]
        np.cumsum(table, axis=1, out=table)
        return np.where(counts > 0, table[np.arange(len(counts)), np.maximum(counts - 1, 0)], 0.0)
    out = np.zeros(len(counts), dtype=np.float64)
    by_count = np.argsort(-counts, kind="stable")  # the segments still going at step j are a prefix
    active = np.searchsorted(-counts[by_count], -np.arange(int(counts.max(initial=0))), side="left")
    for j, n in enumerate(active.tolist()):
        rows = by_count[:n]
        out[rows] += values[starts[rows] + j]
    return out


def average_precision(b: Batch, k: int | None = None) -> list[float]:
    """Sum over relevant ranks i (of the top k: map_cut) of (relevant up to i) / i, over num_rel (0 if none)."""
    counts = b.relevant_counts if k is None else b.found_in_top(k)
    total = ordered_sums(b.relevant_precision, b.first_relevant, counts)
    return np.where(counts > 0, total / np.maximum(b.num_rel, 1), 0.0).tolist()  # type: ignore[no-any-return]


def bpref(b: Batch) -> list[float]:
    nonrel_at = np.flatnonzero(b.labels == Label.NONRELEVANT)
    # judged non-relevant at or above each relevant unit, of its query
    above = np.searchsorted(nonrel_at, b.relevant_at) - np.searchsorted(nonrel_at, b.offsets[b.relevant_query])
    big_r = b.num_rel
    judged = b.judged_counts
    big_n = judged - big_r
    # min(above, R) / min(R, N) as trec_eval; for documents above <= N, while segment runs can hold more
    # non-relevant results than the qrels' N, so the count is capped at min(R, N) to keep bpref in [0, 1]
    bound = np.minimum(big_r, big_n)[b.relevant_query]
    penalties = np.where(above > 0, np.minimum(above, bound) / np.maximum(bound, 1), 0.0)
    terms = 1.0 - penalties
    total = ordered_sums(terms, b.first_relevant, b.relevant_counts)
    return np.where(big_r > 0, total / np.maximum(big_r, 1), 0.0).tolist()  # type: ignore[no-any-return]


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


def iprec_at_recall(b: Batch, level: float) -> list[float]:
    scaled = level * b.num_rel
    whole = np.floor(scaled)
    return _iprec(b, (whole + (scaled - whole >= 0.5)).astype(np.int64))  # C's lround, as arithmetic.lround


def iprec_at_recall_9(b: Batch, level: float) -> list[float]:
    return _iprec(b, np.trunc(level * b.num_rel + 0.9).astype(np.int64))


def _dcg(values: FloatArray, offsets: IntArray, k: int | None) -> FloatArray:
    """Per query, the DCG of its first k gains (None: all), summed as :func:`segeval.measures.trec_gains.dcg`."""
    lengths = np.diff(offsets)
    take = lengths if k is None else np.minimum(lengths, k)
    owner = np.repeat(np.arange(len(take), dtype=np.int64), take)
    rank = np.arange(len(owner), dtype=np.int64) - np.repeat(np.cumsum(take) - take, take)
    top = values[offsets[:-1][owner] + rank]
    terms = np.zeros(len(top)) if len(top) == 0 else top / log2_discounts(int(take.max()))[rank]
    return ordered_sums(terms, np.cumsum(take) - take, take)


def ndcg_at(b: Batch, k: int | None) -> list[float]:
    """nDCG at ``k`` (None: the whole ranking)."""
    ideal = _dcg(*b.ideal_gains, k)
    found = _dcg(b.unit_gains, b.offsets, k)
    return np.where(ideal > 0, found / np.where(ideal > 0, ideal, 1.0), 0.0).tolist()  # type: ignore[no-any-return]


def ndcg(b: Batch, params: Params | None = None) -> list[float]:
    """nDCG over the whole ranking; with a ``level=gain`` table (``ndcg.1=3,2=9``), of trec_eval's gain table
    (:func:`segeval.measures.trec_gains.gain_table`), query by query."""
    if params is None:
        return ndcg_at(b, None)
    out = []
    for q, (start, end) in enumerate(itertools.pairwise(b.offsets.tolist())):
        table = gain_table(b.grades[start:end], b.pool[b.pool_offsets[q] : b.pool_offsets[q + 1]], params)
        best = dcg(table.ideal)
        out.append(dcg(table.gains) / best if best > 0 else 0.0)
    return out
