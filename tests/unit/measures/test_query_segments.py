"""``query_segments`` finds the results that meet a relevant segment for every query at once: the same
results, and the same MAiSP walk, as each query's segments alone (``meets`` found when needed)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from segeval.measures import segments as S
from segeval.readers.from_tables import prepare


def frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Several queries over few videos and times (segments that touch, overlap, repeat); fractional
    seconds for odd seeds."""
    rng = np.random.default_rng(seed)
    step = 0.25 if seed % 2 else 1.0
    qrels, run = [], []
    for q in range(6):
        for _ in range(int(rng.integers(0, 8))):
            s = float(rng.integers(0, 200)) * step
            qrels.append((f"q{q}", f"v{rng.integers(0, 4)}", s, s + float(rng.integers(0, 60)) * step,
                          int(rng.integers(0, 2))))
        for rank in range(1, int(rng.integers(1, 40))):
            s = float(rng.integers(0, 200)) * step
            run.append((f"q{q}", f"v{rng.integers(0, 5)}", s, s + float(rng.integers(0, 40)) * step, rank))
    q_df = pd.DataFrame(qrels, columns=["query", "item", "start", "end", "rel"]).drop_duplicates(
        ["query", "item", "start", "end"])
    r_df = pd.DataFrame(run, columns=["query", "item", "start", "end", "rank"])
    r_df["score"] = 0.0
    return q_df.assign(line=np.arange(len(q_df))), r_df.assign(line=np.arange(len(r_df)))


@pytest.mark.parametrize("seed", range(8))
def test_meets_found_at_once_as_per_query(seed: int) -> None:
    data = prepare(*frames(seed))
    every = S.query_segments(data)
    assert len(every) == len(data.queries) and sum(len(q.run_gid) for q in every) == data.n_results
    for q in every:
        alone = dataclasses.replace(q, meets=None)
        assert q.meets is not None
        assert q.meets.tolist() == S.meets_relevant(q.run_gid, q.run_start, q.run_end, q.rel_gid, q.rel_start,
                                                    q.rel_end).tolist()
        assert q.maisp == alone.maisp
