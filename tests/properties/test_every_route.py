"""Every registered measure through every route gives the same bytes (issue 23, item 3).

The measures come from the registry (each family alone, each default parameter, the declared
example, a trec_eval parameter list), the collections and routes from
:mod:`tests.support.routes`.  The default suite runs a slice: one document and one segment
collection, every other measure family alone (documents), every adapter with a few measures
(segments), a few combinations, on the routes marked ``fast`` (files through the fast lane, in
chunks and in memory; the API on paths).
``SEGEVAL_FULL=1`` runs the whole generator: every measure alone and with each of ``-q``, ``-c``,
``-J``, ``-M 3``, ``-l 2``, ``--trec-eval 9``, random combinations, every adapter on segments,
three document and two segment collections, and every route (stdin, ``-j 2``, Dask, dicts,
ir_measures and ranx too; ``-j 2`` and Dask, which start processes, ``--memory in-memory``, the
file route's lane on these small files, and dicts, ir_measures and ranx, which become the
DataFrames of the frames route, take each measure alone without options, the combinations and
the adapters)::

    SEGEVAL_FULL=1 python -m pytest -q -n 2 tests/properties/test_every_route.py
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from segeval.measures.definitions import FAMILIES, NEW_IN_10
from tests.conftest import full_only, sliced
from tests.support import routes as R

FULL = bool(os.environ.get("SEGEVAL_FULL"))
DOCUMENT_SEEDS = (3, 4, 5) if FULL else (3,)
TRIAL_SEEDS = (3, 5) if FULL else (3,)
SEGMENT_SEEDS = (3, 4) if FULL else (3,)
COMBOS = 40 if FULL else 3


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, R.Inputs]:
    folder = tmp_path_factory.mktemp("routes")
    out = {}
    for c in [*(R.documents(s) for s in DOCUMENT_SEEDS), *(R.segments(s) for s in SEGMENT_SEEDS),
              *(R.trials(s) for s in TRIAL_SEEDS)]:
        out[c.name] = R.Inputs(c, *c.write(folder))
    return out


def _collections(kind: R.Kind, written: dict[str, R.Inputs]) -> list[R.Inputs]:
    return [x for x in written.values() if x.collection.kind == kind and not x.collection.name.startswith("trials")]


def _trial_collections(written: dict[str, R.Inputs]) -> list[R.Inputs]:
    """Document collections whose runs hold only the key's pairs (:func:`tests.support.routes.trials`)."""
    return [x for x in written.values() if x.collection.name.startswith("trials")]


def _check(x: R.Inputs, jobs: list[R.Job], sampled: int | None = None) -> None:
    """The jobs on every route (the sampled ones: in-memory, -j 2, Dask, dicts, ir_measures, ranx, on
    the first ``sampled`` jobs only)."""
    found = [d for i, job in enumerate(jobs)
             for d in R.differences(x, job, R.routes(x.collection.kind, FULL, sampled is None or i < sampled))]
    assert not found, f"{len(found)} route differences:\n" + "\n".join(found)


# each measure alone: in the slice every other family by its name, in full every spelling with each option
ALONE = R.registered_measures() if FULL else [f.name for f in R.QRELS_FAMILIES]
#: the measures that need time spans (declared ``times=True``): refused on a document run with one message
#: on every route (exit 2), so they are left out of the document combinations (every job would be refused)
SEGMENTS_ONLY = frozenset(f.name for f in FAMILIES if f.times)
#: QUESST's trial measures refuse a run pair the key lacks (every generated document collection has some): on
#: documents each is checked twice, refused on the usual collection and scored on a trial collection, where
#: the combinations take them too
TRIALS = frozenset(f.name for f in FAMILIES if f.scope == "trials") | {"quesst"}


@pytest.mark.parametrize("kind", sliced(["documents", "segments"], 2))  # the slice: segments in the adapter
@pytest.mark.parametrize("index", sliced(range(len(ALONE)), 2), ids=ALONE)  # and combination tests only
def test_each_measure_alone_on_every_route(kind: R.Kind, index: int, written: dict[str, R.Inputs]) -> None:
    collections = _collections(kind, written)
    x = collections[index % len(collections)]  # the collections take turns
    measure = ALONE[index]
    adapters = R.ADAPTERS if FULL else ("overlap", "binned:60", "tiou:0.5")
    adapter = adapters[index % len(adapters)] if kind == "segments" else None
    jobs = [R.Job((measure,), adapter=adapter)]
    if FULL:
        jobs += [R.Job((measure,), o, adapter=adapters[(index + i + 1) % len(adapters)] if adapter else None)
                 for i, o in enumerate(R.OPTIONS)]
    _check(x, jobs, sampled=1)
    if kind == "documents" and R.family_of(measure) in TRIALS:
        trial = _trial_collections(written)
        _check(trial[index % len(trial)], jobs, sampled=1)


def test_trial_measures_in_combinations_on_every_route(written: dict[str, R.Inputs]) -> None:
    """Each combination holds a QUESST trial measure and 1-4 others, on collections of trials."""
    spellings = R.registered_measures()
    trial = [m for m in spellings if R.family_of(m) in TRIALS]
    others = [m for m in spellings if R.family_of(m) not in TRIALS | SEGMENTS_ONLY]
    for i, x in enumerate(_trial_collections(written)):
        rng = random.Random(i)
        jobs = [R.Job((rng.choice(trial), *rng.sample(others, rng.randint(1, 4))),
                      tuple(w for o in rng.sample(R.OPTIONS, rng.randint(0, 3)) for w in o))
                for _ in range(COMBOS)]
        _check(x, jobs)


@pytest.mark.parametrize("kind", ["documents", "segments"])
def test_random_combinations_on_every_route(kind: R.Kind, written: dict[str, R.Inputs]) -> None:
    for i, x in enumerate(_collections(kind, written)):
        rng = random.Random(i)
        leave_out = SEGMENTS_ONLY | TRIALS if kind == "documents" else frozenset()  # TRIALS: combined on trials
        _check(x, list(R.jobs(kind, rng, alone=False, combos=COMBOS, leave_out=leave_out)))


@pytest.mark.parametrize("adapter", sliced(R.ADAPTERS, 2))
def test_every_adapter_on_every_route(adapter: str, written: dict[str, R.Inputs]) -> None:
    options = R.OPTIONS if FULL else (("-q",),)
    for x in _collections("segments", written):
        _check(x, [R.Job(("official", "ndcg", "maisp"), o, adapter) for o in options])


@pytest.mark.parametrize("measure", [*NEW_IN_10, "all_trec"])
def test_new_in_10_under_trec_eval_9(measure: str, written: dict[str, R.Inputs]) -> None:
    _check(_collections("documents", written)[0], [R.Job((measure,), ("--trec-eval", "9"))])


#: the document routes every -c job below takes in the full step (the README's suite: -j 2 on the first)
WITHOUT_RESULTS_ROUTES = [r for r in R.ROUTES if r.name in ("file", "chunked", "in-memory", "stdin", "-j 2",
                                                            "api paths", "api frames")]


def test_queries_without_results_on_every_route(tmp_path: Path) -> None:
    """-c's qrels queries without results (:func:`segeval.core.pipeline.without_results`: trec_eval 10's placeholder
    document, judged by some qrels, its leftovers cleared; 9.0.8's zeros) print the same bytes on every
    document route."""
    c = R.placeholder(3)
    x = R.Inputs(c, *c.write(tmp_path))
    leftovers = ("utility.2,-1,0,0", "relstring.3", "rbp_resid.p=0.5", "unj.3")
    jobs = [R.Job(("all_trec",), ("-c", "-q")), R.Job(("all_trec", *leftovers), ("-c", "-q", "-J")),
            R.Job(("official", "utility.0,0,1,0"), ("-c", "-q", "-l", "2")),
            R.Job(("all_trec", "utility.0,0,1,0"), ("-c", "-q", "--trec-eval", "9"))]
    found = [d for i, job in enumerate(jobs)  # -j 2 (a pool a job): on the first job in the README's suite
             for d in R.differences(x, job, [r for r in WITHOUT_RESULTS_ROUTES if FULL or i == 0 or r.name != "-j 2"])]
    assert not found, f"{len(found)} route differences:\n" + "\n".join(found)


@pytest.mark.parametrize("route", R.routes("documents", FULL), ids=lambda r: r.name)
def test_each_route_takes_its_path(route: R.Route, written: dict[str, R.Inputs], tmp_path: Path) -> None:
    """The route a function stands for is the one segeval takes (``--route``, ``Evaluation.route``), so the
    routes compared above are distinct paths through the code."""
    c = _collections("documents", written)[0].collection
    grouped = R.Collection("grouped", "documents", c.qrels, [sorted(r, key=lambda t: t[0]) for r in c.runs])
    x = R.Inputs(grouped, *grouped.write(tmp_path))  # each query's lines together: the streaming lane takes it
    got = route.run(x, R.Job(("map",), ("--route",)))
    named = [line for line in got.stderr.splitlines() if line.startswith("route: ")]
    assert got.code == 0 and named and all(line.startswith(f"route: {route.path} ") or line == f"route: {route.path}"
                                           for line in named), got.stderr


@pytest.mark.parametrize("route", R.routes("segments", FULL), ids=lambda r: r.name)
def test_each_route_takes_its_path_on_segments(route: R.Route, written: dict[str, R.Inputs]) -> None:
    """The same on a segment collection (its queries grouped, as the generator writes them): the segment
    scanner's routes (``segments+whole``, ``segments+chunks``) are among those compared."""
    x = _collections("segments", written)[0]
    got = route.run(x, R.Job(("map",), ("--route",), "overlap"))
    path = route.segment_path or route.path
    named = [line for line in got.stderr.splitlines() if line.startswith("route: ")]
    assert got.code == 0 and named and all(line.startswith(f"route: {path} ") or line == f"route: {path}"
                                           for line in named), got.stderr


def test_the_measures_are_the_registry() -> None:
    """A new family is covered without editing the generator: every family and default parameter is named."""
    names = set(R.registered_measures())
    for f in R.QRELS_FAMILIES:
        assert f.name in names
        assert all(f.canonical(p) in names for p in f.defaults)


def test_a_wrong_route_is_found(written: dict[str, R.Inputs], monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison fails when one route prints other bytes (here: chunked forgets the last row)."""
    x = next(iter(written.values()))
    chunked = R.ROUTES[1]
    assert chunked.name == "chunked"

    def broken(x: R.Inputs, job: R.Job) -> R.Outcome:
        got = chunked.run(x, job)
        return R.Outcome(got.code, got.stdout.rsplit("\n", 2)[0] + "\n", got.stderr)

    chosen = [R.Route("chunked", broken, "", fast=True) if r is chunked else r for r in R.routes("documents", False)]
    found = R.differences(x, R.Job(("map", "P_10")), chosen)
    assert len(found) == 1 and "[chunked]" in found[0]


def test_collections_hold_the_awkward_cases() -> None:
    """The generated document collections have ties, shared docnos, one-sided queries, spelled grades and
    unjudged results (so the routes are compared on them)."""
    cs = [R.documents(s) for s in range(3, 9)]
    grades = {g for c in cs for *_, g in c.qrels}
    assert {"02", "+1", "-0", "-1", "0"} <= grades
    for c in cs[:1]:
        judged = {(q, d) for q, d, _ in c.qrels}
        run = c.runs[0]
        assert any((q, d) not in judged for q, d, *_ in run)  # unjudged results
        assert len({(q, s) for q, _, _, s in run}) < len(run)  # tied scores within a query
        assert len({d for _, d, *_ in run}) < len(run)  # the same docno in several queries
        assert {q for q, *_ in c.qrels} != {q for q, *_ in run}  # queries on one side only
    assert Path(__file__).name == "test_every_route.py"


# ------------------------------------------------------------------ trec_eval 10.0's stored outputs

STORED = Path(__file__).resolve().parent.parent / "fixtures" / "routes"
FAMILY_NAMES = {f.name for f in FAMILIES}


def _stored() -> list[dict[str, Any]]:
    records = [json.loads(line) for line in (STORED / "trec_eval.jsonl").read_text().splitlines()]
    if FULL:
        return records
    # the slice: each family by its name, without flags, on one collection
    return [r for r in records if r["collection"] == "docs1" and not r["flags"] and r["measure"] in FAMILY_NAMES]


RECORDS = _stored()
#: the command's default route, and in full the API on paths (the route tests compare the others with them)
TREC_ROUTES = [r for r in R.ROUTES if r.name in (("file", "api paths") if FULL else ("file",))]


@pytest.fixture(scope="module")
def stored_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, R.Inputs]:
    """The stored collections as :class:`routes.Inputs` (qrels and run read back into lines)."""
    folder = tmp_path_factory.mktemp("stored")
    out = {}
    for qrels in sorted(STORED.glob("*.qrels")):
        name = qrels.stem
        run = STORED / f"{name}.run"
        q = [tuple(line.split()[i] for i in (0, 2, 3)) for line in qrels.read_text().splitlines()]
        r = [(f[0], f[2], int(f[3]), f[4]) for f in (line.split() for line in run.read_text().splitlines())]
        tag = run.read_text().split()[5]
        c = R.Collection(name, "documents", q, [r, r], tags=(tag, tag))
        paths = c.write(folder)
        assert Path(paths[0]).read_bytes() == qrels.read_bytes() and Path(paths[1]).read_bytes() == run.read_bytes()
        out[name] = R.Inputs(c, *paths)
    return out


@pytest.mark.parametrize("record", RECORDS, ids=[f"{r['collection']} {' '.join(r['trec_eval'])}" for r in RECORDS])
def test_every_route_prints_trec_eval_bytes(record: dict[str, Any], stored_inputs: dict[str, R.Inputs],
                                            request: pytest.FixtureRequest) -> None:
    if re.fullmatch(r"relstring\.[0-9]+,.*", record["measure"]) and record["stdout"]:  # -q: per-query rows
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "reported: -m relstring.3,7 prints rows named relstring_3 where trec_eval names them relstring_3,7 "
            "(the parameter text verbatim)")))
    x = stored_inputs[record["collection"]]
    job = R.Job((record["measure"],), tuple(record["flags"]))
    wrong = []
    for route in TREC_ROUTES:
        got = route.run(x, job)
        if got.code != 0 or got.stdout != record["stdout"]:
            wrong.append(f"[{route.name}] exit {got.code}: " + (R.first_difference(record["stdout"], got.stdout)
                                                              if got.code == 0 else got.stderr.strip()[:300]))
    assert not wrong, f"{x.collection.name} {job.label()} (trec_eval {' '.join(record['trec_eval'])}):\n" + \
        "\n".join(wrong)


def test_the_stored_outputs_cover_every_trec_eval_family() -> None:
    """Every family trec_eval knows (those not listed as refused) has stored outputs, alone, on every flag set."""
    refused = set((STORED / "not_in_trec_eval.txt").read_text().split())
    records = [json.loads(line) for line in (STORED / "trec_eval.jsonl").read_text().splitlines()]
    stored = {r["measure"] for r in records}
    assert {f.name for f in R.QRELS_FAMILIES} - refused <= stored
    assert len({tuple(r["flags"]) for r in records}) >= 7


@full_only
def test_every_route_can_run() -> None:
    """The full run takes every route: ir_measures and ranx must be installed (the test extra), so a
    missing package fails here instead of hiding a route."""
    import importlib.util

    missing = [m for m in ("ir_measures", "ranx", "distributed") if importlib.util.find_spec(m) is None]
    assert not missing, f"install {', '.join(missing)} (pip install -e '.[test]' with ranx in the test extra)"
