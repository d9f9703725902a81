"""The bins rule's fast floor division gives ``np.floor_divide``'s values, sign of zero included."""

from __future__ import annotations

import numpy as np
import pytest

from segeval.core.segment import floor_divide


@pytest.mark.parametrize("size", [1, 3, 10, 60, 300, 7919])
def test_floor_divide_as_numpy(size: int) -> None:
    rng = np.random.default_rng(size)
    x = np.concatenate([rng.integers(-10**6, 10**6, 4000), rng.integers(-2**50, 2**50, 4000),
                        np.arange(-3 * size, 3 * size + 1), [2**51 - 1, -(2**51) + 1]]).astype(np.float64)
    x = np.concatenate([x, [-0.0] * 300])
    got, want = floor_divide(x, size), np.floor_divide(x, size)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_floor_divide_other_inputs_as_numpy() -> None:
    x = np.linspace(-50, 50, 1001)  # fractions, and NaN: numpy's own
    for values in (x, np.append(x, np.nan), np.full(300, 2.0**52), np.arange(10.0)):
        np.testing.assert_array_equal(floor_divide(values, 7), np.floor_divide(values, 7))
    assert floor_divide(599.0, 300) == 1.0
