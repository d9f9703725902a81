"""Every adapter labels all queries at once (:class:`~segeval.adapters.base.Labelled`): its one batch gives,
for every measure of the registry, the values of the per-query path (each query's :class:`Adapted` view,
the batch of those views, and each measure's per-query definition), on generated runs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from segeval.adapters.base import Adapted
from segeval.adapters.labelled import Labelled
from segeval.adapters.registry import EXAMPLES, make_adapter
from segeval.adapters.tiou import tiou
from segeval.core.errors import ParameterError, SegevalError
from segeval.core.prepared import Prepared
from segeval.core.segment import whole_seconds_overlap
from segeval.measures.batch import Batch
from segeval.measures.compute import Request, compute
from segeval.measures.declaration import Measure
from segeval.measures.definitions import FAMILIES, REGISTRY
from segeval.readers.from_tables import prepare
from tests.conftest import sliced

#: every declared variant and flag, and a few other parameter values
SEGMENT_ADAPTERS = [*EXAMPLES, "binned:7", "binned:7:start", "tolerance:5", "tiou:0.3:strict:float32"]


def label_measures() -> list[Measure]:
    """Every label measure of the registry: each plain name, each default cut-off, each example."""
    found: list[Measure] = []
    for f in FAMILIES:
        if f.scope != "labels":
            continue
        found += REGISTRY.expand(f.name)
        if f.example:  # P_10; ndcg_1=3,2=9 and utility_2,-1,0,0 in trec_eval's spelling (ndcg.1=3,2=9)
            try:
                found += REGISTRY.expand(f.example)
            except ParameterError:
                found += REGISTRY.expand(f"{f.name}.{f.example[len(f.name) + 1:]}")
    return list({m.name: m for m in found}.values())


def segment_frames(seed: int, queries: int = 5, per_query: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A generated segment collection: few videos and short times, so results overlap, touch, repeat
    and fall in judged and unjudged videos; one query has no relevant segment, one run query no qrels."""
    rng = np.random.default_rng(seed)
    qrels: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    for q in range(queries):
        seen: set[tuple[str, int, int]] = set()
        for _ in range(int(rng.integers(0, 12))):
            video, start = f"v{int(rng.integers(0, 4))}", int(rng.integers(0, 60))
            end = start + int(rng.integers(0, 15))
            if (video, start, end) in seen:
                continue
            seen.add((video, start, end))
            rel = 0 if q == 1 else int(rng.choice([0, 1, 2]))
            qrels.append({"query": f"q{q}", "item": video, "start": float(start), "end": float(end), "rel": rel})
        for rank in range(1, per_query + 1):
            start = int(rng.integers(0, 70))
            run.append({"query": f"q{q}", "item": f"v{int(rng.integers(0, 5))}", "start": float(start),
                        "end": float(start + int(rng.integers(0, 12))), "rank": rank, "score": 100.0 - rank})
    run += [{"query": "extra", "item": "v0", "start": 1.0, "end": 2.0, "rank": 1, "score": 1.0}]
    q_frame = pd.DataFrame(qrels).assign(line=lambda d: np.arange(1, len(d) + 1))
    r_frame = pd.DataFrame(run).assign(jumpin=np.nan, run="r", line=lambda d: np.arange(1, len(d) + 1))
    return q_frame, r_frame


def document_frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A generated document collection with grades -1..3 (bpref, ndcg, unjudged by a negative grade)."""
    rng = np.random.default_rng(seed)
    qrels = [{"query": f"q{q}", "item": f"d{d}", "rel": int(rng.integers(-1, 4))}
             for q in range(4) for d in rng.choice(30, size=12, replace=False).tolist()]
    run = [{"query": f"q{q}", "item": f"d{d}", "rank": k + 1, "score": float(rng.integers(0, 9))}
           for q in range(4) for k, d in enumerate(rng.choice(40, size=25, replace=False).tolist())]
    nan = {"start": np.nan, "end": np.nan}
    q_frame = pd.DataFrame(qrels).assign(**nan, line=lambda d: np.arange(1, len(d) + 1))
    r_frame = pd.DataFrame(run).assign(**nan, jumpin=np.nan, run="r", line=lambda d: np.arange(1, len(d) + 1))
    return q_frame, r_frame


def same(x: Any, y: Any) -> bool:
    if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
        return True
    return bool(x == y) and type(x) is type(y)


@pytest.mark.parametrize("seed", sliced([1, 2, 3], 3))
@pytest.mark.parametrize("spec", SEGMENT_ADAPTERS)
def test_one_batch_equals_the_per_query_path_for_every_measure(spec: str, seed: int) -> None:
    q, r = document_frames(seed) if spec == "exact" else segment_frames(seed)
    data = prepare(q, r)
    adapter = make_adapter(spec)
    labelled = adapter.adapt(data)
    assert isinstance(labelled, Labelled) and len(labelled) == len(data.queries)
    views: list[Adapted] = [labelled[k] for k in range(len(labelled))]
    # the batch from the dataset-wide arrays is the batch of the per-query views, array for array
    joined = Batch.of(views)
    for field in ("labels", "offsets", "num_rel", "grades", "pool", "pool_offsets"):
        np.testing.assert_array_equal(getattr(labelled.batch, field), getattr(joined, field), err_msg=field)
    measures = label_measures()
    reqs = [Request(m.name, m, adapter) for m in measures]
    compared = refused = 0
    for req in reqs:
        try:
            definition = [req.measure(a) for a in views]  # the per-query reading of the measure
        except SegevalError:  # xinfAP without stratified qrels: every path refuses it alike
            for given in (labelled, views):
                with pytest.raises(SegevalError):
                    compute(data, {adapter.spec: given}, [req])
            refused += 1
            continue
        from_batch = compute(data, {adapter.spec: labelled}, [req])[req.name]
        from_views = compute(data, {adapter.spec: views}, [req])[req.name]
        for k in range(len(views)):
            assert same(from_batch[k], definition[k]), (req.name, k)
            assert same(from_views[k], definition[k]), (req.name, k)
            compared += 1
    assert refused <= 2
    assert compared == (len(measures) - refused) * len(data.queries)
    assert len(measures) > 40  # every family with its cut-offs, not a hand-picked list


def test_views_are_made_on_demand_and_indexed_as_a_sequence() -> None:
    q, r = segment_frames(4)
    labelled = make_adapter("overlap").adapt(prepare(q, r))
    assert isinstance(labelled, Labelled)
    n = len(labelled)
    assert labelled[-1] is labelled[n - 1]  # one view per query, made once
    assert [a.relstring for a in labelled] == [a.relstring for a in labelled[:]]
    with pytest.raises(IndexError):
        labelled[n]


# ------------------------------------------- the sequential rules, read query by query (their definitions)

def tolerance_by_definition(data: Prepared, tolerance: int) -> list[str]:
    """The tolerance labels as the module docstring states them, result by result (scalar rule)."""
    run = data.run_columns
    out = []
    for q in range(len(data.queries)):
        rel = [k for k in range(len(data.rel)) if data.rel.qcode[k] == q]
        non = [k for k in range(len(data.nonrel)) if data.nonrel.qcode[k] == q]
        seen: list[tuple[int, float, float]] = []
        labels = ""
        for i in range(int(data.run_bounds[q]), int(data.run_bounds[q + 1])):
            g, s, e = int(run["gid"][i]), float(run["start"][i]), float(run["end"][i])
            met = [k for k in rel if data.rel.gid[k] == g
                   and whole_seconds_overlap(s, s + tolerance, data.rel.start[k], data.rel.end[k])]
            watched = any(sg == g and whole_seconds_overlap(s, e, a, b) for sg, a, b in seen)
            if met:
                labels += "s" if watched else "1"
                if not watched:
                    seen.append((g, s, max([float(data.rel.end[k]) for k in met] + [s + tolerance])))
            elif any(data.nonrel.gid[k] == g and whole_seconds_overlap(s, e, data.nonrel.start[k], data.nonrel.end[k])
                     for k in non):
                labels += "S" if watched else "0"
            else:
                labels += "-"
        out.append(labels)
    return out


def tiou_by_definition(data: Prepared, theta: float) -> list[str]:
    """The tIoU labels as docs/adapters.md states them: greedy in rank order, best IoU first."""
    run, qrels = data.run_columns, data.qrels_columns
    out = []
    for q in range(len(data.queries)):
        rows = [k for k in range(int(data.qrels_bounds[q]), int(data.qrels_bounds[q + 1])) if data.relevant[k]]
        matched: set[int] = set()
        labels = ""
        for i in range(int(data.run_bounds[q]), int(data.run_bounds[q + 1])):
            ious = {k: float(tiou(*(np.array([x]) for x in (run["start"][i], run["end"][i], qrels["start"][k],
                                                              qrels["end"][k])))[0])
                    for k in rows if qrels["gid"][k] == run["gid"][i]}
            free = [k for k, v in ious.items() if v >= theta and k not in matched]
            if free:
                matched.add(max(free, key=lambda k: (ious[k], -k)))
                labels += "1"
            else:
                labels += "s" if any(v >= theta for v in ious.values()) else "0"
        out.append(labels)
    return out


@pytest.mark.parametrize("seed", [5, 6, 7, 8])
def test_sequential_adapters_follow_their_definitions(seed: int) -> None:
    data = prepare(*segment_frames(seed, queries=4, per_query=60))
    for tolerance in (0, 3, 15):
        got = [a.relstring for a in make_adapter(f"tolerance:{tolerance}").adapt(data)]
        assert got == tolerance_by_definition(data, tolerance), tolerance
    for theta in (0.3, 0.7):
        got = [a.relstring for a in make_adapter(f"tiou:{theta}").adapt(data)]
        assert got == tiou_by_definition(data, theta), theta
    assert any("s" in x for x in tolerance_by_definition(data, 15))  # the sequential part is exercised
