"""The boundary rules of segeval.core.segment, on drawn timelines."""

from __future__ import annotations

import numpy as np
import pytest

from segeval.core.errors import ParameterError
from segeval.core.segment import Segment, bin_range, closed_overlap, whole_seconds_overlap
from tests.support.timeline import spans


def meets(rule, a: str, b: str) -> bool:  # type: ignore[no-untyped-def]
    ((s1, e1),) = spans(a)
    ((s2, e2),) = spans(b)
    return bool(rule(float(s1), float(e1), float(s2), float(e2)))


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("[===]     ", "    [===] ", True),   # touching at second 4: closed intervals meet
    ("[===]     ", "     [===]", False),  # 0-4 and 5-9: a gap of one second
    ("  *       ", "[===]     ", True),   # zero-length at 2 inside 0-4
    ("    *     ", "[===]     ", True),   # zero-length on the end point 4
    ("     *    ", "[===]     ", False),  # zero-length just after
    ("  *       ", "  *       ", True),   # two equal points
])
def test_closed_rule(a: str, b: str, expected: bool) -> None:
    assert meets(closed_overlap, a, b) is expected
    assert meets(closed_overlap, b, a) is expected  # symmetric


@pytest.mark.parametrize(("lookup", "stored", "expected"), [
    ("[===]     ", "    [===] ", False),  # [0,4) and [4,8): touching shares no whole second
    ("[====]    ", "    [===] ", True),   # [0,5) and [4,8): second 4
    ("  *       ", "[===]     ", False),  # zero-length look-up [2,2) meets nothing
    ("[===]     ", "  *       ", False),  # a zero-length stored span is never met
    ("  [=]     ", "[=======] ", True),   # inside
])
def test_whole_seconds_rule(lookup: str, stored: str, expected: bool) -> None:
    assert meets(whole_seconds_overlap, lookup, stored) is expected


def test_whole_seconds_lookup_ending_at_zero_is_a_point() -> None:
    # [0, 0) would be empty, but the reference looks it up as the point 0
    assert whole_seconds_overlap(0.0, 0.0, 0.0, 5.0) is True
    assert whole_seconds_overlap(0.0, 0.0, 1.0, 5.0) is False
    assert whole_seconds_overlap(0.0, 0.0, 0.0, 0.0) is False  # a zero-length stored span holds no second


def test_whole_seconds_with_fractions_needs_a_whole_second_inside() -> None:
    assert whole_seconds_overlap(0.5, 0.9, 0.0, 10.0) is False  # no integer in [0.5, 0.9)
    assert whole_seconds_overlap(0.5, 1.1, 0.0, 10.0) is True   # 1 is inside both


def test_rules_are_vectorised() -> None:
    s = np.array([0.0, 5.0])
    e = np.array([4.0, 9.0])
    assert closed_overlap(s, e, np.array([4.0, 10.0]), np.array([6.0, 12.0])).tolist() == [True, False]


@pytest.mark.parametrize(("start", "end", "size", "bins"), [
    (0, 300, 300, [0]),         # 0-300 ends on the boundary: bin 0 only
    (0, 301, 300, [0, 1]),      # one second into bin 1
    (299, 601, 300, [0, 1, 2]),  # spans three bins
    (300, 300, 300, []),        # zero-length on a boundary: no bin
    (301, 301, 300, [1]),       # zero-length inside bin 1
    (0, 0, 300, []),            # zero-length at 0: (0 - 1) // 300 = -1 < 0
])
def test_bins_rule(start: int, end: int, size: int, bins: list[int]) -> None:
    first, last = bin_range(start, end, size)
    assert list(range(int(first), int(last) + 1)) == bins


def test_segment_value_type() -> None:
    s = Segment("v1", 10, 20)
    assert s.duration == 10
    assert s.overlaps(Segment("v1", 20, 30))  # touching
    assert not s.overlaps(Segment("v2", 10, 20))  # other video
    with pytest.raises(AttributeError):
        s.start = 5  # type: ignore[misc]
    assert Segment("v1", 1, 2) < Segment("v1", 1, 3)


@pytest.mark.parametrize(("args", "message"), [
    (("v1", 5, 4), "The 'end' parameter must be >= start (5). Got 4 instead."),
    (("v1", -1, 4), "The 'start' parameter must be a finite number >= 0. Got -1 instead."),
    (("v1", 0, float("inf")), "The 'end' parameter must be a finite number >= 0. Got inf instead."),
    (("", 0, 1), "The 'video' parameter must be a non-empty string without white space. Got '' instead."),
    (("a b", 0, 1), "The 'video' parameter must be a non-empty string without white space. Got 'a b' instead."),
])
def test_segment_rejects_invalid_values(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(ParameterError) as err:
        Segment(*args)  # type: ignore[arg-type]
    assert str(err.value) == message


def test_bin_size_must_be_positive() -> None:
    with pytest.raises(ParameterError, match=r"The 'bin_size' parameter must be an integer >= 1. Got 0 instead."):
        bin_range(0, 10, 0)


@pytest.mark.parametrize("seed", range(4))
def test_whole_seconds_on_arrays_as_one_by_one(seed: int) -> None:
    """Arrays with and without look-ups ending at 0 (the point rule) give each element's scalar answer."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, 200).astype(np.float64) / rng.choice([1, 2], 200)
    b = a + rng.integers(0, 4, 200) * (seed % 2)  # seeds 0, 2: every look-up [a, a): points where a is 0
    s = rng.integers(0, 6, 200).astype(np.float64)
    e = s + rng.integers(0, 4, 200)
    expected = [whole_seconds_overlap(float(x), float(y), float(z), float(w)) for x, y, z, w in zip(a, b, s, e,
                                                                                                  strict=True)]
    assert whole_seconds_overlap(a, b, s, e).tolist() == expected
    assert whole_seconds_overlap(a[a > 0], b[a > 0], s[a > 0], e[a > 0]).tolist() == \
        [x for x, keep in zip(expected, (a > 0).tolist(), strict=True) if keep]
