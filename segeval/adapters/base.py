"""The relevance-adapter interface: ranked results in, every query's ranked labels out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import BoolArray, FloatArray, IntArray

if TYPE_CHECKING:
    from segeval.adapters.subtopics import Subtopics
    from segeval.core.prepared import Prepared


class Label(IntEnum):
    """Relevance label of one ranked unit; the value is the character code shown in relString."""

    RELEVANT = ord("1")
    NONRELEVANT = ord("0")
    RELEVANT_SEEN = ord("s")
    NONRELEVANT_SEEN = ord("S")
    UNJUDGED = ord("-")


@dataclass(frozen=True)
class Adapted:
    """One query's adapted ranking: a :class:`Label` code per unit (a result, or a bin), ``num_rel`` relevant units,
    unit i's deciding qrels rows ``match_rows[match_offsets[i]:match_offsets[i + 1]]``, and each unit's result
    (``source``, a position among the query's results)."""

    labels: npt.NDArray[np.uint8]
    num_rel: int
    match_offsets: IntArray
    match_rows: IntArray
    source: IntArray
    grades: FloatArray | None = None
    pool: FloatArray | None = None
    match_grades: FloatArray | None = None
    truth: FloatArray | None = None
    #: stratified qrels only: the stratum of each ``match_rows`` row and of each ``truth`` row
    match_strata: npt.NDArray[np.object_] | None = None
    truth_strata: npt.NDArray[np.object_] | None = None
    #: the ranked results' subtopic judgements (the diversity measures; made on demand), None without qrels
    subtopics: Subtopics | None = None

    def __post_init__(self) -> None:
        if self.grades is None:
            object.__setattr__(self, "grades", grades_from_labels(self.labels))
        if self.pool is None:
            object.__setattr__(self, "pool", np.ones(self.num_rel, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.labels)

    @cached_property
    def relevant(self) -> BoolArray:
        """Per unit: labelled relevant (``1``)."""
        return np.asarray(self.labels == Label.RELEVANT)

    @cached_property
    def found(self) -> IntArray:
        """Per rank: relevant units up to and including it."""
        return np.cumsum(self.relevant)

    def matches(self, i: int) -> IntArray:
        """qrels rows that decided the label of unit ``i`` (0-based)."""
        return self.match_rows[self.match_offsets[i] : self.match_offsets[i + 1]]

    @property
    def relstring(self) -> str:
        """The labels as characters, e.g. ``'10-s'``."""
        return self.labels.tobytes().decode("ascii")


def grades_from_labels(labels: npt.NDArray[np.uint8]) -> FloatArray:
    """1 for relevant, 0 for other judged labels, NaN for unjudged."""
    return _GRADES[labels]


_GRADES = np.zeros(256)  # by label code
_GRADES[Label.RELEVANT] = 1.0
_GRADES[Label.UNJUDGED] = np.nan


def judged_only(a: Adapted) -> Adapted:
    """The ranking without its unjudged units (trec_eval's ``-J``: P@k(j) and friends)."""
    kept = a.labels != Label.UNJUDGED
    keep = np.flatnonzero(kept)
    pairs = np.repeat(kept, np.diff(a.match_offsets))  # the deciding pairs of the kept units
    assert a.grades is not None
    return Adapted(
        a.labels[keep],
        a.num_rel,
        np.concatenate([[0], np.cumsum(np.diff(a.match_offsets)[keep])]).astype(np.int64),
        a.match_rows[pairs].astype(np.int64),
        a.source[keep],
        a.grades[keep],
        a.pool,
        None if a.match_grades is None else a.match_grades[pairs],
        a.truth,
        None if a.match_strata is None else a.match_strata[pairs],
        a.truth_strata,
        None if a.subtopics is None else a.subtopics.keep(keep),
    )


class Adapter(ABC):
    """Turns each query's ranked results into relevance labels."""

    #: short name used on the command line and in the API
    name: str = ""
    #: suffix of measure names in the MediaEval report (``''``, ``'_bin'``, ``'_tol'``)
    suffix: str = ""
    #: False when one relevant unit can be credited to several results (measures over num_rel may exceed 1)
    credits_once: bool = True
    #: False when it matches by id alone, so it also judges document runs (no times)
    times: bool = True

    @abstractmethod
    def adapt(self, data: Prepared) -> Sequence[Adapted]:
        """Every query's labels: a :class:`~segeval.adapters.labelled.Labelled`, queries in ``data.queries`` order."""

    @property
    def spec(self) -> str:
        """The adapter as ``--adapter`` names it, with its parameters (``tiou:0.5``); a display name."""
        return self.name

    def explain(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> list[Reason]:
        """Why unit ``unit`` of query ``query`` got its label: the deciding qrels rows with a reason (row -1: none)."""
        why = self.reasons(data, a, unit, query)
        label = Label(int(a.labels[unit]))
        return [Reason(int(r), why.get(label, "")) for r in a.matches(unit).tolist()] or [Reason(-1, why[None])]

    def reasons(self, data: Prepared, a: Adapted, unit: int, query: int) -> dict[Label | None, str]:
        """Each label's reason for a deciding row, and (None) the reason when no row decided."""
        unjudged = a.labels[unit] == Label.UNJUDGED
        return {**_RULE, None: "no qrels segment meets it" if unjudged else "no qrels line"}


@dataclass(frozen=True)
class Reason:
    """One qrels row (-1: none) behind a label, and why."""

    row: int
    why: str


_RULE: dict[Label | None, str] = {
    Label.RELEVANT: "relevant, meets it",
    Label.NONRELEVANT: "non-relevant, meets it; no relevant one does",
    Label.RELEVANT_SEEN: "relevant, meets it, already credited to an earlier result",
    Label.NONRELEVANT_SEEN: "non-relevant, meets it; already seen",
}


def result_row(data: Prepared, a: Adapted, unit: int, query: int) -> int:
    """The row of ``data.run`` that unit ``unit`` of query ``query`` came from."""
    return int(data.run_bounds[query] + a.source[unit])
