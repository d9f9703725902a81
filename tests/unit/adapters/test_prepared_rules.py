"""The pandas-free rules of :mod:`segeval.core.prepared` and the binned adapter's first occurrences give what
the pandas and sorting formulations they replace give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from segeval.core.ordering import listed_order
from segeval.core.prepared import dense_codes, first_occurrences, merge_intervals


def _pandas_merge(gid: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[list[int], list[float], list[float]]:
    """The former formulation: a per-group running maximum by pandas."""
    new_group = np.ones(len(gid), dtype=bool)
    new_group[1:] = gid[1:] != gid[:-1]
    run_max = pd.Series(end).groupby(np.cumsum(new_group) - 1).cummax().to_numpy()
    prev = np.concatenate([[-np.inf], run_max[:-1]])
    first = np.flatnonzero(new_group | (start > prev))
    ends = np.maximum.reduceat(end, first) if len(first) else np.zeros(0)
    return gid[first].tolist(), start[first].tolist(), ends.tolist()


@pytest.mark.parametrize("seed", range(20))
def test_merge_intervals_as_pandas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    gid = np.sort(rng.integers(0, 4, n))
    start = rng.integers(0, 30, n).astype(np.float64)
    end = start + rng.integers(0, 10, n)
    if seed % 4 == 0:  # missing ends (document-like rows) among the others
        end[rng.random(n) < 0.3] = np.nan
        start[np.isnan(end)] = np.nan
    order = np.lexsort((end, start, gid))
    gid, start, end = gid[order], start[order], end[order]
    got = merge_intervals(gid, gid, start, end)
    want = _pandas_merge(gid, start, end)
    np.testing.assert_array_equal(got.gid, want[0])
    np.testing.assert_array_equal(got.start, want[1])
    np.testing.assert_array_equal(got.end, want[2])


def test_merge_intervals_touching_and_nested() -> None:
    """[0, 10] and [10, 12] touch; [1, 2] lies inside; [13, 14] is apart; group 1 starts again."""
    gid = np.array([0, 0, 0, 0, 1])
    got = merge_intervals(gid, gid, np.array([0.0, 1, 10, 13, 0]), np.array([10.0, 2, 12, 14, 1]))
    assert (got.gid.tolist(), got.start.tolist(), got.end.tolist()) == ([0, 0, 1], [0, 13, 0], [12, 14, 1])


@pytest.mark.parametrize("seed", range(20))
def test_listed_order_as_lexsort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    qcode = np.sort(rng.integers(-1, 5, n)) if seed % 3 else rng.integers(-1, 5, n)
    if seed % 3 == 1:  # grouped, the groups in another order
        qcode = np.concatenate([qcode[qcode == q] for q in rng.permutation(6) - 1])
    rank = np.sort(rng.integers(1, 9, n)) if seed % 2 else rng.integers(1, 9, n)
    keep = np.flatnonzero(qcode >= 0)
    for r in (rank, None):
        keys = (r[keep],) if r is not None else ()
        assert listed_order(keep, qcode, r).tolist() == keep[np.lexsort((*keys, qcode[keep]))].tolist()


@pytest.mark.parametrize("values", [[], [5], [3, 1, 3, 0, 7], list(range(100, 0, -3)), [2**40, 1, 2**40]])
def test_dense_codes_as_unique(values: list[int]) -> None:
    arr = np.array(values, dtype=np.int64)
    assert dense_codes(arr).tolist() == np.unique(arr, return_inverse=True)[1].ravel().tolist()


@pytest.mark.parametrize(("n", "top"), [(0, 1), (1, 1), (50, 5), (1000, 10**4), (1000, 10**12), (200, -5)])
def test_first_occurrences_as_pandas(n: int, top: int) -> None:
    key = np.random.default_rng(n).integers(min(top, 0), max(top, 1), n)  # top < 0: keys from top to 0
    assert first_occurrences(key).tolist() == np.flatnonzero(~pd.Series(key).duplicated().to_numpy()).tolist()


@pytest.mark.parametrize(("n", "top"), [(2, 1), (50, 5), (1000, 10**4), (1000, 10**12), (200, -5)])
def test_first_occurrences_of_runs_as_pandas(n: int, top: int) -> None:
    """Keys in runs of equal ones (a run's queries): found among the runs' heads, the same positions."""
    rng = np.random.default_rng(n)
    key = np.repeat(rng.integers(min(top, 0), max(top, 1), n), rng.integers(1, 6, n))  # repeats: keys come back
    assert first_occurrences(key).tolist() == np.flatnonzero(~pd.Series(key).duplicated().to_numpy()).tolist()


@pytest.mark.parametrize("seed", range(5))
def test_bin_keys_number_each_group_and_bin_once(seed: int) -> None:
    """The binned adapter's compact (group, bin) keys: equal exactly when the pairs are equal, across the run's
    and the qrels' bins, and at most as many as the bins between each group's lowest and highest."""
    from segeval.adapters.binned import _bin_keys

    rng = np.random.default_rng(seed)
    gid, bins = rng.integers(0, 30, 400), rng.integers(0, 500, 400)
    q_gid, q_bins = rng.integers(0, 40, 100), rng.integers(0, 500, 100)  # groups 30-39: in the qrels only
    key, q_key = _bin_keys(gid, bins, q_gid, q_bins)
    pairs = list(zip(np.concatenate([gid, q_gid]).tolist(), np.concatenate([bins, q_bins]).tolist(), strict=True))
    keys = np.concatenate([key, q_key]).tolist()
    assert len(set(zip(pairs, keys, strict=True))) == len(set(pairs)) == len(set(keys))
    assert min(keys) >= 0 and max(keys) < 40 * 500


@pytest.mark.parametrize("seed", range(6))
def test_rows_of_as_searchsorted(seed: int) -> None:
    """The binned adapter's look-up of each unit's qrels rows: searchsorted's left and right ends, keys absent,
    below, between and above the sorted ones included (seed 0: no sorted keys)."""
    from segeval.adapters.binned import _rows_of

    rng = np.random.default_rng(seed)
    sorted_keys = np.sort(rng.integers(0, 30, 0 if seed == 0 else int(rng.integers(1, 60))))
    keys = rng.integers(-2, 34, 200)
    lo, hi = _rows_of(sorted_keys, keys)
    assert lo.tolist() == np.searchsorted(sorted_keys, keys, side="left").tolist()
    assert hi.tolist() == np.searchsorted(sorted_keys, keys, side="right").tolist()


@pytest.mark.parametrize("seed", range(12))
def test_listed_twice_as_a_dict(seed: int) -> None:
    """The rows that repeat an earlier row's (query, video, start, end), and that row, against a dict of the
    tuples: codes and whole starts, fractional, negative, infinite and negative-zero starts, float codes."""
    from segeval.adapters.exact import listed_twice

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    query, item = rng.integers(0, 3, n), rng.integers(0, 4, n)
    start = rng.integers(0, 6, n).astype(np.float64)
    end = start + rng.integers(0, 3, n)
    if seed % 4 == 1:
        start[: n // 2] += 0.5
    if seed % 4 == 2 and n:
        start[0] = -np.inf if seed % 8 == 2 else -1.0
        start[start == 0] = -0.0
    if seed % 4 == 3:
        query = query.astype(np.float64)
    first: dict[tuple[float, ...], int] = {}
    expected = [(i, first.setdefault(t, i)) for i, t in enumerate(zip(query.tolist(), item.tolist(), start.tolist(),
                                                                       end.tolist(), strict=True))]
    again, at = listed_twice(query, item, start, end)
    assert list(zip(again.tolist(), at.tolist(), strict=True)) == [(i, j) for i, j in expected if i != j]


@pytest.mark.parametrize("seed", range(20))
def test_first_lines_as_kept_pairs(seed: int) -> None:
    # documents: the table of each group's first qrels line pairs as kept_pairs + "the first line counts" does,
    # with groups judged twice, groups only one side has, and empty sides
    from segeval.adapters.exact import _segment_pairs, first_lines
    from segeval.core.prepared import kept_pairs

    rng = np.random.default_rng(seed)
    run_gid = rng.integers(0, 12, int(rng.integers(0, 30)))
    qrels_gid = np.sort(rng.integers(0, 12, int(rng.integers(0, 20))))
    nan = np.full(len(qrels_gid), np.nan)
    qrels = {"qcode": np.zeros(len(qrels_gid), dtype=np.int64), "start": nan, "end": nan}
    run = {"start": np.full(len(run_gid), np.nan), "end": np.full(len(run_gid), np.nan)}
    u, j = first_lines(run_gid, qrels_gid)
    want_u, want_j = _segment_pairs(run, qrels, kept_pairs(run_gid, qrels_gid))
    assert u.tolist() == want_u.tolist() and j.tolist() == want_j.tolist()
