"""The ``Segment`` value type and every boundary rule segeval uses, in one place."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import ParameterError

ArrayOrFloat = TypeVar("ArrayOrFloat", float, FloatArray)


@dataclass(frozen=True, order=True, slots=True)
class Segment:
    """A time span (in seconds) of one video; ``start <= end``, both finite and >= 0."""

    video: str
    start: float
    end: float

    def __post_init__(self) -> None:
        if not isinstance(self.video, str) or not self.video or any(c.isspace() for c in self.video):
            raise ParameterError(
                f"The 'video' parameter must be a non-empty string without white space. Got {self.video!r} instead."
            )
        for name in ("start", "end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ParameterError(f"The '{name}' parameter must be a finite number >= 0. Got {value!r} instead.")
        if self.end < self.start:
            raise ParameterError(f"The 'end' parameter must be >= start ({self.start!r}). Got {self.end!r} instead.")

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.end - self.start

    def overlaps(self, other: Segment) -> bool:
        """True when both are in the same video and meet under the ``closed`` rule."""
        return self.video == other.video and bool(closed_overlap(self.start, self.end, other.start, other.end))


def closed_overlap(s1: ArrayOrFloat, e1: ArrayOrFloat, s2: ArrayOrFloat, e2: ArrayOrFloat) -> Any:
    """``closed`` rule: [s1, e1] and [s2, e2] share at least one point (touching counts)."""
    return (s1 <= e2) & (s2 <= e1)


def interior_overlap(s1: ArrayOrFloat, e1: ArrayOrFloat, s2: ArrayOrFloat, e2: ArrayOrFloat) -> Any:
    """``interior`` rule: [s1, e1] and [s2, e2] share more than a boundary point (touching does not count)."""
    return (s1 < e2) & (s2 < e1)


def whole_seconds_overlap(a: ArrayOrFloat, b: ArrayOrFloat, s: ArrayOrFloat, e: ArrayOrFloat) -> Any:
    """``whole_seconds`` rule: look-up [a, b) meets stored [s, e) on some whole second."""
    a_arr, b_arr = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    s_arr, e_arr = np.asarray(s, dtype=np.float64), np.asarray(e, dtype=np.float64)
    lo = np.maximum(a_arr, s_arr)
    lo = np.ceil(lo, out=lo) if isinstance(lo, np.ndarray) else np.ceil(lo)  # in place: no second temporary
    result = lo < np.minimum(b_arr, e_arr)
    if not b_arr.all():  # some look-up ends at 0: it is the single point a
        as_point = (s_arr <= a_arr) & (a_arr < e_arr)
        result = np.where(b_arr == 0, as_point, result)
    return result if result.ndim else bool(result)


def floor_divide(x: ArrayOrFloat, size: int) -> ArrayOrFloat:
    """``np.floor_divide(x, size)``, for whole numbers below 2**51 as the faster ``floor(x / size)``."""
    if (
        isinstance(x, np.ndarray)
        and x.dtype == np.float64
        and x.size > 256
        and bool((np.floor(x) == x).all())
        and bool((np.abs(x) < 2.0**51).all())
    ):
        return np.floor(x / size)
    return np.floor_divide(x, size)  # type: ignore[no-any-return]


def bin_range(start: ArrayOrFloat, end: ArrayOrFloat, size: int) -> tuple[ArrayOrFloat, ArrayOrFloat]:
    """``bins`` rule: the first and last bin index covered (last < first means none)."""
    if size < 1:
        raise ParameterError(f"The 'bin_size' parameter must be an integer >= 1. Got {size!r} instead.")
    first = floor_divide(start, size)
    last = floor_divide(np.subtract(end, 1), size)
    return first, last
