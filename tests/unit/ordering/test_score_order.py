"""trec_eval's score order (segeval.core.ordering.score_order), which every reader uses: by query, score
descending, docno descending, whether or not the rows come already ranked (the shortcut for runs
written in rank order must give the full sort's order), through each of its sorting strategies."""

from __future__ import annotations

import random

import numpy as np
import pytest

import segeval.core.ordering as ordering
from segeval.core.ordering import score_order
from tests.conftest import sliced


def expected(query: list[int], score: list[float], doc_rank: list[int]) -> list[int]:
    rows = [i for i in range(len(query)) if query[i] >= 0]
    return sorted(rows, key=lambda i: (query[i], -score[i], -doc_rank[i]))


@pytest.mark.parametrize("strategy", ["sort all", "each query (matrix)", "each query (loop)"])
@pytest.mark.parametrize("layout", ["ranked", "ranked, split", "shuffled"])
@pytest.mark.parametrize("seed", sliced(range(40), 4))
def test_ranking_equals_a_plain_sort(seed: int, layout: str, strategy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows ranked within each query; ranked but each query's rows in two places apart (the
    shortcut must not take them); shuffled."""
    rng = random.Random(seed)
    ranked = layout != "shuffled"
    n_q = rng.randint(1, 6)
    blocks = []
    for q in rng.sample([-1, *range(n_q)], rng.randint(1, n_q + 1)):  # -1: a query not evaluated
        scores = [rng.choice([0.0, -0.0, 0.5, 1.0, 2.0, -1.0, 3.25]) for _ in range(rng.randint(1, 12))]
        if ranked:
            scores.sort(reverse=True)  # equal scores (and -0 beside 0) stay in any order
        blocks.append([(q, s) for s in scores])
    if layout == "ranked, split":  # each block's second half (lower scores) before all the first halves
        blocks = [b[len(b) // 2:] for b in blocks] + [b[: len(b) // 2] for b in blocks]
    rows = [r for b in blocks for r in b]
    if not ranked:
        rng.shuffle(rows)
    query = [q for q, _ in rows]
    score = [s for _, s in rows]
    doc_rank = rng.sample(range(10 * len(rows)), len(rows))  # distinct docnos' places in byte order
    if strategy != "sort all":
        monkeypatch.setattr(ordering, "SORT_EACH_FROM", 0)
        monkeypatch.setattr(ordering, "PAD_CELLS", 10**9 if strategy == "each query (matrix)" else -10**9)
    q, s, d = np.asarray(query, dtype=np.int32), np.asarray(score), np.asarray(doc_rank, dtype=np.int64)
    keep = np.flatnonzero(q >= 0)
    got = keep[score_order(q[keep], s[keep], n_q, lambda at: d[keep[at]])]
    assert got.tolist() == expected(query, score, doc_rank)


def test_non_finite_scores() -> None:
    """NaN first (np.unique ranks it highest), then +inf, finite scores, -inf; equal infinities by docno
    descending; NaN rows in file order."""
    q = np.zeros(6, dtype=np.int64)
    s = np.asarray([1.0, np.inf, np.nan, -np.inf, np.inf, np.nan])
    d = np.asarray([5, 1, 0, 3, 2, 4])
    assert score_order(q, s, 1, d.__getitem__).tolist() == [2, 5, 4, 1, 0, 3]


def test_the_shortcut_is_taken_only_for_ranked_grouped_rows() -> None:
    from segeval.core.ordering import ranked_as_listed as listed

    q = np.asarray([0, 0, 1, 1, -1, 2], dtype=np.int32)
    assert listed(q, np.asarray([2.0, 1.0, 5.0, 5.0, 9.0, 0.0]))  # equal scores may stay as listed
    assert not listed(q, np.asarray([1.0, 2.0, 5.0, 5.0, 9.0, 0.0]))  # query 0 not ranked
    assert not listed(np.asarray([0, 1, 0], dtype=np.int32), np.asarray([3.0, 2.0, 1.0]))  # 0 comes back
    assert not listed(np.asarray([-1, 0, -1], dtype=np.int32), np.asarray([3.0, 2.0, 1.0]))  # -1 twice apart


@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.float64])
@pytest.mark.parametrize("seed", range(12))
def test_sort_each_sorts_each_segment_alone(seed: int, dtype: type) -> None:
    """The segmented sort (score order within queries; docno keys within queries in the fast lanes'
    match) against a sort of each segment, through its three layouts (equal lengths, padded matrix,
    loop), with values equal to the padding (the type's highest) among them."""
    rng = np.random.default_rng(seed)
    layout = seed % 3
    counts = (np.full(4, 5) if layout == 0 else rng.integers(0, 6, 5) if layout == 1
              else np.array([1, 2000, 0, 3]))  # 4 x 2000 cells: the loop
    top = np.inf if dtype is np.float64 else np.iinfo(dtype).max
    values = rng.integers(0, 4, int(counts.sum())).astype(dtype)
    values[rng.random(len(values)) < 0.3] = top
    starts = np.cumsum(counts) - counts
    got = ordering.sort_each(values, counts, starts)
    for a, n in zip(starts.tolist(), counts.tolist(), strict=True):
        part = got[a:a + n]
        assert sorted(part.tolist()) == list(range(a, a + n))  # a permutation of the segment
        assert values[part].tolist() == sorted(values[a:a + n].tolist())
