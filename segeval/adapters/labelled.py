"""Every query's labels at once (what an adapter returns): one batch for the measures, per-query views on demand."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, overload

import numpy as np
import numpy.typing as npt

from segeval.adapters.base import Adapted, grades_from_labels
from segeval.adapters.subtopics import Subtopics
from segeval.core.arrays import FloatArray, IntArray
from segeval.measures.batch import Batch

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared


class Labelled(Sequence[Adapted]):
    """Every query's labels at once, on the coded columns: what an adapter returns; the measures read :attr:`batch`,
    ``labelled[q]`` is query q's :class:`Adapted`, made on demand.  ``rel_qcode``: the query of each relevant unit
    (``num_rel``); ``pair_unit``/``pair_row``: the deciding (unit, qrels row) pairs sorted by unit; ``unit_source``:
    each unit's run row (None: one unit per result)."""

    def __init__(
        self,
        data: Prepared,
        labels: npt.NDArray[np.uint8],
        rel_qcode: IntArray,
        pair_unit: IntArray,
        pair_row: IntArray,
        unit_source: IntArray | None = None,
        grades: FloatArray | None = None,
        pool: tuple[FloatArray, IntArray] | None = None,
    ) -> None:
        n_q = len(data.queries)
        self.data = data
        self.labels = labels
        self.unit_source = np.arange(data.n_results, dtype=np.int64) if unit_source is None else unit_source
        unit_qcode = (
            data.run_columns["qcode"][self.unit_source] if unit_source is not None else data.run_columns["qcode"]
        )
        self.offsets = np.searchsorted(unit_qcode, np.arange(n_q + 1), side="left").astype(np.int64)
        self.num_rel = np.bincount(rel_qcode, minlength=n_q).astype(np.int64)
        self.pair_unit = pair_unit
        self.pair_row = pair_row
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
            subtopics=Subtopics(data, q, self.unit_source[a:b], data.relevance_level),
        )

    @cached_property
    def match_offsets(self) -> IntArray:
        """Unit u's deciding pairs are ``pair_row[match_offsets[u]:match_offsets[u + 1]]`` (made on first use)."""
        offsets = np.zeros(len(self.labels) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.pair_unit, minlength=len(self.labels)), out=offsets[1:])
        return offsets

    @cached_property
    def _row_grades(self) -> FloatArray:
        """Every qrels row's grade (one array that all views slice)."""
        return np.asarray(self.data.qrels_columns["rel"], dtype=np.float64)

    @property
    def batch(self) -> Batch:
        """All queries' labels, grades and pools as one batch, made on each call (cached, it would make a cycle)."""
        return Batch(
            self.labels,
            self.offsets,
            self.num_rel,
            self.grades.astype(np.float64, copy=False),
            self.pool.astype(np.float64, copy=False),
            self.pool_offsets,
            self,
        )
