"""A Plan pickles (the Dask engine makes it once in the client and sends it to the partitions), and
every engine gives one result type."""

from __future__ import annotations

import json
import logging
import pickle
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from segeval.adapters.registry import EXAMPLES
from segeval.core.pipeline import evaluate_part, plan
from segeval.core.settings import EngineOptions, Job
from segeval.executors.results import RunResult
from segeval.measures.definitions import FAMILIES, NEW_IN_10, SETS, TREC_EVAL_9
from segeval.readers.tables import read_qrels, read_run
from segeval.readers.validate import validate_qrels, validate_run
from tests.conftest import FIXTURES

ADAPTERS = list(EXAMPLES)


def _values(per_query: dict[str, list[Any]]) -> str:
    return json.dumps(per_query, sort_keys=True, default=repr)


def test_a_plan_of_every_measure_and_adapter_round_trips_through_pickle() -> None:
    q = validate_qrels(read_qrels(FIXTURES / "gen_linking.qrels"))
    r = validate_run(read_run(FIXTURES / "gen_linking.run"))
    names = [*SETS, *(f.name for f in FAMILIES)]  # every registered family
    assert [f.name for f in pickle.loads(pickle.dumps([*FAMILIES, *TREC_EVAL_9.values()]))] == \
        [f.name for f in [*FAMILIES, *TREC_EVAL_9.values()]]
    for documents, trec_eval in ((False, "9"), (False, "10"), (True, "9")):
        # 9.0.8 refuses the measures new in 10 (plan); a document run, those needing time spans (test_job_errors)
        # the diversity measures are asked alone, on documents (test_diversity): their own plan below
        timed, alone = {f.name for f in FAMILIES if f.times}, {f.name for f in FAMILIES if f.subtopics}
        trials = {f.name for f in FAMILIES if f.scope == "trials"} | {"quesst"}  # (query, utterance) pairs only
        judged = {"prefs": {f.name for f in FAMILIES if f.scope == "prefs"} | {"prefs", "all_prefs"},
                  "qrels_jg": {f.name for f in FAMILIES if f.scope == "groups"} | {"qrels_jg"}}  # -R: their own plans
        known = [n for n in names if (trec_eval == "10" or n not in NEW_IN_10) and not (documents and n in timed)
                 and n not in alone and not (not documents and n in trials) and n not in set().union(*judged.values())]
        plans = [plan(documents, known, None if documents else ADAPTERS, trec_eval=trec_eval)]
        plans += [plan(True, sorted(alone), trec_eval=trec_eval)] if documents else []
        plans += [plan(True, sorted(n), trec_eval=trec_eval, rel_info=fmt) for fmt, n in judged.items()] \
            if documents else []
        for how in plans:
            back = pickle.loads(pickle.dumps(how))
            assert back.settings == how.settings
            assert [x.name for x in back.requests] == [x.name for x in how.requests] and len(how.requests) > 10
            assert [x.measure.family.name for x in back.requests] == [x.measure.family.name for x in how.requests]
    for trec_eval in ("9", "10"):  # the unpickled plan computes the same values, to the last bit
        how = plan(False, ["all_trec", "paper"], ADAPTERS, trec_eval=trec_eval)
        before, after = evaluate_part(q, r, how), evaluate_part(q, r, pickle.loads(pickle.dumps(how)))
        assert before[0] == after[0] and len(before[0]) > 5 and _values(before[1]) == _values(after[1])


@pytest.fixture(scope="module")
def threads() -> Iterator[str]:
    """A cluster of two worker threads in this process (so a patched function counts the workers' calls);
    the test using it is skipped without the dask extra, the pickling tests above are not."""
    distributed = pytest.importorskip("distributed", reason="the dask extra (pip install 'segeval[dask]')")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    try:
        yield str(cluster.scheduler_address)
    finally:
        cluster.close()


def test_dask_plans_once_per_kind_and_gives_the_processes_result(threads: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from segeval.executors import dask as dask_engine
    from segeval.executors.processes import evaluate_runs, keep_result

    q = validate_qrels(read_qrels(FIXTURES / "gen_linking.qrels"))
    runs = [str(FIXTURES / "gen_linking.run")] * 3
    job = Job(("official",), ("binned:60",))
    single = evaluate_runs(q, runs, replace(job, engine=EngineOptions(jobs=1, quiet=True)))
    calls: list[bool] = []

    def counted(documents: bool, *args: Any, **kwargs: Any) -> Any:
        calls.append(documents)
        return plan(documents, *args, **kwargs)

    monkeypatch.setattr("segeval.core.plan.plan", counted)  # what job_plan calls
    spread = dask_engine.map_runs_dask(q, runs, replace(job, engine=EngineOptions(engine="dask", scheduler=threads,
                                                                                 quiet=True)), keep_result)
    assert sorted(calls) == [False, True]  # 3 runs x 2 partitions, yet one plan per run kind
    assert all(isinstance(x, RunResult) for x in [*single, *spread])
    for a, b in zip(single, spread, strict=True):
        assert a.error is None and b.error is None and a.evaluation is not None and b.evaluation is not None
        assert (a.runid, a.file, a.notes) == (b.runid, b.file, b.notes)
        assert a.evaluation.report().to_csv() == b.evaluation.report().to_csv()
