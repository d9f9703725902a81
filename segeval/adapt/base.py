"""The relevance-adapter interface: ranked results in, every query's ranked labels out (one batch, per-query
views on demand)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import TYPE_CHECKING, overload

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from segeval.measures.batch import Batch
    from segeval.prepared import Prepared

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class Label(IntEnum):
    """Relevance label of one ranked unit; the value is the character code shown in relString."""

    RELEVANT = ord("1")
    NONRELEVANT = ord("0")
    RELEVANT_SEEN = ord("s")
    NONRELEVANT_SEEN = ord("S")
    UNJUDGED = ord("-")


@dataclass(frozen=True)
class Adapted:
    """One query's adapted ranking.

    ``labels`` holds one :class:`Label` code per ranked unit (a result, or a bin
    for the binned adapter).  ``num_rel`` is the number of relevant units of this
    adapter (merged segments, bins, ...).  The qrels rows (positions in
    ``Prepared.qrels``) that decided unit i's label are
    ``match_rows[match_offsets[i]:match_offsets[i + 1]]``.  ``source`` gives, per
    unit, the position of the result it came from within the query's results.
    """

    labels: npt.NDArray[np.uint8]
    num_rel: int
    match_offsets: npt.NDArray[np.int64]
    match_rows: npt.NDArray[np.int64]
    source: npt.NDArray[np.int64]
    grades: npt.NDArray[np.float64] | None = None
    pool: npt.NDArray[np.float64] | None = None
    match_grades: npt.NDArray[np.float64] | None = None
    truth: npt.NDArray[np.float64] | None = None
    #: stratified qrels only: the stratum of each ``match_rows`` row and of each ``truth`` row
    match_strata: npt.NDArray[np.object_] | None = None
    truth_strata: npt.NDArray[np.object_] | None = None

    def __post_init__(self) -> None:
        if self.grades is None:
            object.__setattr__(self, "grades", grades_from_labels(self.labels))
        if self.pool is None:
            object.__setattr__(self, "pool", np.ones(self.num_rel, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.labels)

    @cached_property
    def relevant(self) -> npt.NDArray[np.bool_]:
        """Per unit: labelled relevant (``1``)."""
        return np.asarray(self.labels == Label.RELEVANT)

    @cached_property
    def found(self) -> npt.NDArray[np.int64]:
        """Per rank: relevant units up to and including it."""
        return np.cumsum(self.relevant)

    def matches(self, i: int) -> npt.NDArray[np.int64]:
        """qrels rows that decided the label of unit ``i`` (0-based)."""
        return self.match_rows[self.match_offsets[i] : self.match_offsets[i + 1]]

    @property
    def relstring(self) -> str:
        """The labels as characters, e.g. ``'10-s'``."""
        return self.labels.tobytes().decode("ascii")


def grades_from_labels(labels: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """1 for relevant, 0 for other judged labels, NaN for unjudged."""
    grades = np.where(labels == Label.RELEVANT, 1.0, 0.0)
    grades[labels == Label.UNJUDGED] = np.nan
    return grades


def judged_only(a: Adapted) -> Adapted:
    """The ranking without its unjudged units (trec_eval's ``-J``: P@k(j) and friends)."""
    keep = np.flatnonzero(a.labels != Label.UNJUDGED)
    counts = np.diff(a.match_offsets)[keep]
    rows = np.concatenate([a.matches(int(i)) for i in keep]) if len(keep) else np.zeros(0, dtype=np.int64)
    assert a.grades is not None
    grades = (np.concatenate([a.match_grades[a.match_offsets[i] : a.match_offsets[i + 1]] for i in keep])
              if a.match_grades is not None and len(keep) else None)
    strata = (None if a.match_strata is None else np.concatenate(
        [np.zeros(0, dtype=object)] + [a.match_strata[a.match_offsets[i] : a.match_offsets[i + 1]] for i in keep]))
    return Adapted(a.labels[keep], a.num_rel, np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                   rows.astype(np.int64), a.source[keep], a.grades[keep], a.pool,
                   grades if grades is not None else (None if a.match_grades is None else np.zeros(0)), a.truth,
                   strata, a.truth_strata)


class Adapter(ABC):
    """Turns each query's ranked results into relevance labels."""

    #: short name used on the command line and in the API
    name: str = ""
    #: suffix of measure names in the MediaEval report (``''``, ``'_bin'``, ``'_tol'``)
    suffix: str = ""
    #: False when one relevant unit can be credited to several results (measures over num_rel may exceed 1)
    credits_once: bool = True

    @abstractmethod
    def adapt(self, data: Prepared) -> Sequence[Adapted]:
        """Every query's labels (:class:`Labelled`: one :class:`Adapted` per query of ``data.queries``, in that
        order, and their batch)."""

    @property
    def spec(self) -> str:
        """The adapter as ``--adapter`` names it, with its parameters (``tiou:0.5``); a display name."""
        return self.name

    def explain(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> list[Reason]:
        """Why unit ``unit`` of query ``query`` (``a`` is that query's :class:`Adapted`) got its label:
        the qrels rows (positions in ``data.qrels``) that decided it, each with a short reason; a
        reason with row -1 when no qrels line did."""
        rows = a.matches(unit).tolist()
        label = Label(int(a.labels[unit]))
        if not rows:
            return [Reason(-1, "no qrels segment meets it" if label == Label.UNJUDGED else "no qrels line")]
        return [Reason(int(r), _RULE.get(label, "")) for r in rows]


@dataclass(frozen=True)
class Reason:
    """One qrels row (-1: none) behind a label, and why."""

    row: int
    why: str


_RULE = {Label.RELEVANT: "relevant, meets it", Label.NONRELEVANT: "non-relevant, meets it; no relevant one does",
         Label.RELEVANT_SEEN: "relevant, meets it, already credited to an earlier result",
         Label.NONRELEVANT_SEEN: "non-relevant, meets it; already seen"}


def result_row(data: Prepared, a: Adapted, unit: int, query: int) -> int:
    """The row of ``data.run`` that unit ``unit`` of query ``query`` came from."""
    return int(data.run_bounds[query] + a.source[unit])


class Labelled(Sequence[Adapted]):
    """Every query's labels at once, on the coded columns: what an adapter returns.

    The measures read :attr:`batch` (one :class:`~segeval.measures.batch.Batch` of all queries); query
    q's :class:`Adapted` (``labelled[q]``) is a view made on demand, for the measures without a batch
    form, ``-J`` and ``segeval show --explain``.

    ``unit_qcode`` is each unit's query (units sorted by query, in rank order within it);
    ``pair_unit``/``pair_row`` list the deciding (unit, qrels row) pairs, sorted by unit;
    ``unit_source`` is the run row (dataset-wide) each unit came from.  ``grades`` (per unit) and
    ``pool`` with ``pool_offsets`` (per query, its judged grades) default to the labels' grades and
    one relevant grade per relevant unit of ``num_rel``.
    """

    def __init__(self, data: Prepared, unit_qcode: IntArray, labels: npt.NDArray[np.uint8], num_rel: IntArray,
                 pair_unit: IntArray, pair_row: IntArray, unit_source: IntArray,
                 grades: FloatArray | None = None, pool: tuple[FloatArray, IntArray] | None = None) -> None:
        n_q = len(data.queries)
        self.data = data
        self.labels = labels
        self.offsets = np.searchsorted(unit_qcode, np.arange(n_q + 1), side="left").astype(np.int64)
        self.num_rel = np.asarray(num_rel, dtype=np.int64)
        self.match_offsets = np.zeros(len(labels) + 1, dtype=np.int64)
        np.cumsum(np.bincount(pair_unit, minlength=len(labels)), out=self.match_offsets[1:])
        self.pair_row = pair_row
        self.unit_source = unit_source
        self.grades = grades_from_labels(labels) if grades is None else grades
        if pool is None:
            pool_offsets = np.zeros(n_q + 1, dtype=np.int64)
            np.cumsum(self.num_rel, out=pool_offsets[1:])
            pool = np.ones(int(pool_offsets[-1]), dtype=np.float64), pool_offsets
        self.pool, self.pool_offsets = pool
        self._views: dict[int, Adapted] = {}

    def __len__(self) -> int:
        return len(self.num_rel)

    @overload
    def __getitem__(self, q: int) -> Adapted: ...

    @overload
    def __getitem__(self, q: slice) -> list[Adapted]: ...

    def __getitem__(self, q: int | slice) -> Adapted | list[Adapted]:
        if isinstance(q, slice):
            return [self[k] for k in range(len(self))[q]]
        n = len(self)
        k = int(q) + n if int(q) < 0 else int(q)
        if not 0 <= k < n:
            raise IndexError(f"query {q} of {n}")
        if k not in self._views:
            self._views[k] = self._view(k)
        return self._views[k]

    def _view(self, q: int) -> Adapted:
        data = self.data
        row_grades = self._row_grades
        row_strata = data.qrels_columns.get("stratum")
        a, b = int(self.offsets[q]), int(self.offsets[q + 1])
        o = self.match_offsets[a : b + 1]
        rows = self.pair_row[o[0] : o[-1]]
        lo, hi = int(data.qrels_bounds[q]), int(data.qrels_bounds[q + 1])
        return Adapted(
            labels=self.labels[a:b],
            num_rel=int(self.num_rel[q]),
            match_offsets=o - o[0],
            match_rows=rows,
            source=self.unit_source[a:b] - data.run_bounds[q],
            grades=self.grades[a:b],
            pool=self.pool[self.pool_offsets[q] : self.pool_offsets[q + 1]],
            match_grades=row_grades[rows],
            truth=row_grades[lo:hi],
            match_strata=None if row_strata is None else row_strata[rows],
            truth_strata=None if row_strata is None else row_strata[lo:hi],
        )

    @cached_property
    def _row_grades(self) -> FloatArray:
        """Every qrels row's grade (one array that all views slice)."""
        return np.asarray(self.data.qrels_columns["rel"], dtype=np.float64)

    @cached_property
    def batch(self) -> Batch:
        """All queries' labels, grades and pools as one batch (its per-query rankings: this sequence)."""
        from segeval.measures.batch import Batch

        return Batch(self.labels, self.offsets, self.num_rel, self.grades.astype(np.float64, copy=False),
                     self.pool.astype(np.float64, copy=False), self.pool_offsets, self)


def per_query_count(qcode: npt.NDArray[np.int64], n_queries: int) -> npt.NDArray[np.int64]:
    """How many entries each query code has."""
    return np.bincount(qcode, minlength=n_queries).astype(np.int64)
