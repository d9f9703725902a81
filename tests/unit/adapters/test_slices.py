"""Adapters that work a slice of results at a time (``PAIR_ROWS``: the binned adapter's slices of whole queries,
:func:`segeval.core.prepared.kept_pairs`, the tolerance adapter's pairs of earlier hits) give the same units, labels,
deciding pairs and ``num_rel`` whatever the slice: random collections, slices of 1, 3 and 17 results against
one slice of everything."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from segeval.adapters.labelled import Labelled
from segeval.adapters.registry import EXAMPLES, make_adapter
from segeval.core.prepared import Prepared
from segeval.readers.from_tables import prepare

#: every declared variant and flag, and a few other parameter values
SPECS = [*EXAMPLES, "binned:7:start", "binned:1", "binned:300", "tolerance:5"]


def _collection(seed: int) -> Prepared:
    """Up to 12 queries over 4 videos: nested, touching and zero-length segments, grades -1 to 2, results near the
    judged segments and elsewhere, some queries only in one file."""
    rng = np.random.default_rng(seed)
    qrels: list[tuple[object, ...]] = []
    run: list[tuple[object, ...]] = []
    for q in range(int(rng.integers(1, 13))):
        query = f"q{q}"
        judged = [(f"v{rng.integers(1, 5)}", int(rng.integers(0, 60)) * 5, int(rng.choice([0, 5, 10, 40, 120])))
                  for _ in range(int(rng.integers(0, 8)))]
        qrels += [(query, v, float(s), float(s + n), int(rng.integers(-1, 3))) for v, s, n in dict.fromkeys(judged)]
        picked = [(v, s + int(rng.integers(-20, 20)), n) for v, s, n in judged if rng.random() < 0.6]
        picked += [(f"v{rng.integers(1, 5)}", int(rng.integers(0, 300)), int(rng.choice([0, 3, 10, 60])))
                   for _ in range(int(rng.integers(0, 25)))]
        run += [(query, v, float(max(s, 0)), float(max(s, 0) + n), rank) for rank, (v, s, n) in enumerate(picked, 1)]
    if not any(r[-1] > 0 for r in qrels):
        qrels.append(("q0", "v1", 0.0, 30.0, 1))
    q = pd.DataFrame(qrels, columns=["query", "item", "start", "end", "rel"])
    q["line"] = np.arange(1, len(q) + 1)
    r = pd.DataFrame(run, columns=["query", "item", "start", "end", "rank"])
    r["line"] = np.arange(1, len(r) + 1)
    r["score"] = -r["rank"].astype(np.float64)
    r["jumpin"] = np.nan
    r["run"] = "r"
    return prepare(q, r, missing_queries="zero")


def _arrays(a: Labelled) -> dict[str, list[object]]:
    return {"labels": a.labels.tolist(), "source": a.unit_source.tolist(), "offsets": a.offsets.tolist(),
            "matches": a.match_offsets.tolist(), "rows": a.pair_row.tolist(), "num_rel": a.num_rel.tolist()}


@pytest.mark.parametrize("seed", range(12))
def test_slices_change_nothing(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _collection(seed)
    whole = {spec: _arrays(make_adapter(spec).adapt(data)) for spec in SPECS}
    modules = [m for name, m in sys.modules.items() if name.startswith("segeval.") and hasattr(m, "PAIR_ROWS")]
    expected = {"segeval.core.prepared", "segeval.adapters.binned", "segeval.adapters.tolerance"}
    assert expected <= {m.__name__ for m in modules}
    for rows in (1, 3, 17):
        for m in modules:
            monkeypatch.setattr(m, "PAIR_ROWS", rows)
        for spec in SPECS:
            assert _arrays(make_adapter(spec).adapt(data)) == whole[spec], (spec, rows)
