"""One query's subtopic judgements (NIST ndeval's qrels) for the diversity measures, made on demand."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray, IntArray
from segeval.core.prepared import distinct as sorted_distinct

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared


#: per row (a pool document, or a ranked result), its subtopic numbers, ascending
Rows = list[tuple[int, ...]]


@dataclass(frozen=True)
class Pool:
    """Every judged document of a query, docnos descending (ndeval's tie order), with its (subtopic, grade) pairs."""

    names: npt.NDArray[np.object_]
    grades: list[tuple[tuple[int, float], ...]]
    width: int
    row: dict[int, int]


@dataclass(frozen=True)
class Subtopics:
    """The subtopic judgements of one query's ranked results (``sources``: their run rows, in rank order)."""

    data: Prepared = field(repr=False, compare=False)
    query: int
    sources: IntArray = field(repr=False, compare=False)
    level: float
    #: ideal rankings already made, by alpha (:mod:`segeval.measures.diversity`)
    ideals: dict[float, FloatArray] = field(default_factory=dict, repr=False, compare=False)

    def at(self, level: float) -> Subtopics:
        """The same judgements at another relevance level (ir_measures' ``rel=``)."""
        return replace(self, level=level, ideals={})

    def keep(self, units: IntArray) -> Subtopics:
        """The judgements of the ranked results ``units`` only (trec_eval's ``-J`` dropping results)."""
        return replace(self, sources=self.sources[units], ideals=self.ideals)

    @cached_property
    def pool(self) -> Pool:
        data, q = self.data, self.query
        lo, hi = int(data.qrels_bounds[q]), int(data.qrels_bounds[q + 1])
        columns = data.qrels_columns
        topics = columns.get("subtopic")  # numbered over the whole qrels (from_tables): renumbered in order
        codes = (
            np.zeros(hi - lo, dtype=np.int64)
            if topics is None
            else np.unique(np.asarray(topics)[lo:hi], return_inverse=True)[1].astype(np.int64).reshape(-1)
        )
        icodes = np.asarray(columns["icode"])[lo:hi]
        distinct = sorted_distinct(icodes)
        names = np.asarray(data.items, dtype=object)[distinct]
        order = sorted(range(len(distinct)), key=lambda d: names[d], reverse=True)
        row = {int(distinct[d]): i for i, d in enumerate(order)}
        lines: list[dict[int, float]] = [{} for _ in order]
        rel = np.asarray(columns["rel"], dtype=np.float64)[lo:hi]
        for icode, topic, grade in zip(icodes.tolist(), codes.tolist(), rel.tolist(), strict=True):
            lines[row[icode]][topic] = grade
        return Pool(names[order], [tuple(sorted(d.items())) for d in lines], int(codes.max(initial=-1)) + 1, row)

    @cached_property
    def judged(self) -> Rows:
        """``judged[d]``: the subtopics pool document d is relevant to (its grade reaches the level)."""
        return [tuple(s for s, grade in pairs if grade >= self.level) for pairs in self.pool.grades]

    @cached_property
    def ranked(self) -> Rows:
        """``ranked[i]``: the subtopics the result at rank i + 1 is relevant to (an unjudged one to none)."""
        pool, judged = self.pool, self.judged
        icodes = np.asarray(self.data.run_columns["icode"])[self.sources]
        return [judged[r] if (r := pool.row.get(c, -1)) >= 0 else () for c in icodes.tolist()]
