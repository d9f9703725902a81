"""The batch measures (segeval.measures.batch) give each query of a batch its value as a batch of one, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segeval.adapters.base import Adapted, Label
from segeval.measures.batch import Batch
from segeval.measures.declaration import Measure
from segeval.measures.definitions import FAMILIES, TREC_EVAL_9
from tests.conftest import examples, sliced

LABELS = np.array([Label.RELEVANT, Label.NONRELEVANT, Label.UNJUDGED, Label.RELEVANT_SEEN, Label.NONRELEVANT_SEEN],
                  dtype=np.uint8)
BATCHED = [f for f in FAMILIES if f.batch is not None] + [f for f in TREC_EVAL_9.values() if f.batch is not None]
NDCG = next(f for f in FAMILIES if f.name == "ndcg")
PARAMS = {"cutoff": (1, 2, 3, 5, 10, 30, 1000), "level": (*(p / 100 for p in range(0, 101, 5)), 0.155, 1 / 3, 0.7),
          "gains": (None, *(NDCG.parse(t)[0] for t in ("1=3,2=9", "-1=2,0=1", "2=-1,1=0.5", "-2=4,3=1")))}


def measures() -> list[Measure]:
    out = []
    for f in BATCHED:
        out += [Measure(f)] if f.param is None else [Measure(f, p) for p in PARAMS[f.param]]
    return out


def adapted(labels: np.ndarray, num_rel: int, pool: np.ndarray, grades: np.ndarray | None = None) -> Adapted:
    n = len(labels)
    return Adapted(labels.astype(np.uint8), num_rel, np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                   np.arange(n, dtype=np.int64), grades=grades, pool=pool)


def random_queries(rng: np.random.Generator, n_queries: int) -> list[Adapted]:
    out = []
    for _ in range(n_queries):
        n = int(rng.choice([0, 1, 2, 5, 17, 100, 1500]))
        weights = rng.dirichlet(np.ones(len(LABELS)))
        labels = LABELS[rng.choice(len(LABELS), size=n, p=weights)]
        found = int((labels == Label.RELEVANT).sum())
        # num_rel at least the relevant found (documents), sometimes below (the overlap adapter's credit)
        num_rel = found + int(rng.integers(0, 40)) if rng.random() < 0.8 else int(rng.integers(1, found + 2))
        pool = rng.integers(-1, 4, size=num_rel + int(rng.integers(0, 60))).astype(np.float64)
        # graded units (nDCG) half the time: any grade for judged units, NaN for unjudged ones
        grades = None if rng.random() < 0.5 else np.where(labels == Label.UNJUDGED, np.nan,
                                                          rng.integers(-1, 4, size=n).astype(np.float64))
        out.append(adapted(labels, num_rel, pool, grades))
    return out


def check(queries: list[Adapted]) -> None:
    batch = Batch.of(queries)
    for m in measures():
        expected = [m(a) for a in queries]
        got = m.batch(batch)
        assert got is not None
        assert [type(x) for x in got] == [type(x) for x in expected], m.name
        assert got == expected, m.name  # exact equality, not approximate


@pytest.mark.parametrize("seed", sliced(range(40), 2))
def test_batch_equals_per_query_seeded(seed: int) -> None:
    check(random_queries(np.random.default_rng(seed), int(np.random.default_rng(seed).integers(1, 60))))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="10-sS", max_size=40), st.integers(0, 30), st.integers(0, 30)),
                min_size=1, max_size=12))
def test_batch_equals_per_query_generated(spec: list[tuple[str, int, int]]) -> None:
    queries = []
    for text, extra_rel, extra_pool in spec:
        labels = np.frombuffer(text.encode(), dtype=np.uint8).copy()
        found = int((labels == Label.RELEVANT).sum())
        num_rel = found + extra_rel
        if num_rel == 0 and found:
            continue
        queries.append(adapted(labels, num_rel, np.arange(num_rel + extra_pool, dtype=np.float64) % 3 - 1))
    check(queries)


def test_empty_batch() -> None:
    check([])


def graded(rng: np.random.Generator, n_queries: int) -> list[Adapted]:
    """Rankings with graded judgements (grades -1 to 3, unjudged as NaN) and graded pools."""
    out = []
    for _ in range(n_queries):
        n = int(rng.choice([0, 1, 3, 12, 40]))
        grades = rng.integers(-1, 4, size=n).astype(np.float64)
        grades[rng.random(n) < 0.3] = np.nan
        labels = np.where(np.isnan(grades), Label.UNJUDGED, np.where(grades >= 1, Label.RELEVANT, Label.NONRELEVANT))
        pool = np.concatenate([grades[~np.isnan(grades)], rng.integers(-1, 4, size=int(rng.integers(0, 30)))])
        out.append(Adapted(labels.astype(np.uint8), int((pool >= 1).sum()), np.zeros(n + 1, dtype=np.int64),
                           np.zeros(0, dtype=np.int64), np.arange(n, dtype=np.int64), grades=grades,
                           pool=pool.astype(np.float64)))
    return out


@pytest.mark.parametrize("seed", range(10))
def test_batch_ndcg_cut_equals_per_query_on_grades(seed: int) -> None:
    """nDCG@k on graded rankings, cut-offs below, at and beyond the ranking lengths."""
    family = next(f for f in FAMILIES if f.name == "ndcg_cut")
    queries = graded(np.random.default_rng(seed), 25)
    for k in (1, 2, 5, 10, 30, 100):
        m = Measure(family, k)
        assert m.batch(Batch.of(queries)) == [m(a) for a in queries], k


def test_batch_ndcg_cut_by_hand() -> None:
    # gains 3, 0, 1 at ranks 1-3; ideal 3, 2, 1: (3 + 1/2) / (3 + 2/log2(3) + 1/2) = 3.5 / 4.7618595...
    a = Adapted(np.array([Label.RELEVANT, Label.NONRELEVANT, Label.RELEVANT], dtype=np.uint8), 3,
                np.zeros(4, dtype=np.int64), np.zeros(0, dtype=np.int64), np.arange(3, dtype=np.int64),
                grades=np.array([3.0, 0.0, 1.0]), pool=np.array([3.0, 2.0, 1.0, 0.0]))
    family = next(f for f in FAMILIES if f.name == "ndcg_cut")
    got = Measure(family, 3).batch(Batch.of([a]))
    assert got is not None and abs(got[0] - 3.5 / (3 + 2 / np.log2(3) + 0.5)) < 1e-15


@pytest.mark.parametrize("seed", range(60))
def test_ordered_sums_add_each_segment_left_to_right(seed: int) -> None:
    """AP's and the R-precision family's sums, through the padded matrix and (one long segment) the
    rank-by-rank loop: each segment's values added in order from 0.0, bit for bit as ``running_sum``."""
    from segeval.measures.arithmetic import running_sum
    from segeval.measures.batch import ordered_sums

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 8))
    counts = rng.integers(0, 6 if seed % 2 else 400, n)
    if seed % 5 == 0 and n:
        counts[0] = 3000  # padding would take more than twice the values: the loop
    starts = np.cumsum(counts) - counts + rng.integers(0, 3, n)  # segments apart, in any order
    order = rng.permutation(n)
    counts, starts = counts[order], starts[order]
    values = rng.random(int((starts + counts).max(initial=0)) + 1) * 10.0 ** rng.uniform(-5, 5)
    got = ordered_sums(values, starts, counts).tolist()
    assert got == [running_sum(values[a:a + c]) if c else 0.0 for a, c in zip(starts, counts, strict=True)]
