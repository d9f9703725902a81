"""``--engine dask``: many runs evaluated with Dask (dask.distributed) over (run, query-partition) tasks."""

from __future__ import annotations

import importlib
import logging
import os
import uuid
import warnings
import zlib
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from functools import partial
from operator import itemgetter
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from segeval.core.arrays import IntArray
from segeval.core.errors import InputError, SegevalError, print_notes
from segeval.core.pipeline import evaluate_part, finish, merge_parts
from segeval.core.plan import Plan, job_plan
from segeval.core.prepared import check_queries
from segeval.core.settings import Job
from segeval.executors.results import RunResult
from segeval.readers.files import is_stream
from segeval.reports.trec import runid as trec_runid

Part = tuple[list[str], dict[str, list[Any]]]
#: a run as read on a worker: its rows (None when it failed), whether it holds documents, its result so far
Read = tuple[pd.DataFrame | None, bool, RunResult]
#: the plan of each run kind (documents or not), or why there is none
Plans = dict[bool, Plan | SegevalError]
T = TypeVar("T")
E = TypeVar("E", bound=SegevalError)
#: how long to try reaching a scheduler
CONNECT_TIMEOUT = "10s"


def connect(scheduler: str | None, jobs: int | None) -> tuple[Any, Any]:
    """A Dask client of ``scheduler`` or of a new local cluster, and the cluster to close, if any."""
    try:
        distributed: Any = importlib.import_module("dask.distributed")
    except ImportError:
        raise SegevalError(
            "The dask engine needs dask.distributed, which is not installed; install it with "
            "pip install 'segeval[dask]'."
        ) from None
    if scheduler:
        try:
            return distributed.Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address
            raise SegevalError(
                f"Cannot reach the Dask scheduler at {scheduler!r} ({exc}); expected the address "
                f"of a running 'dask scheduler', such as tcp://host:8786."
            ) from None
    cluster = distributed.LocalCluster(
        n_workers=jobs or os.cpu_count() or 1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    return distributed.Client(cluster), cluster


def partition_of(queries: pd.Series, n: int) -> IntArray:
    """The partition (0..n-1) of each query id: a CRC-32 of its UTF-8 bytes, the same in every process."""
    codes, names = pd.factorize(queries.to_numpy(dtype=object))
    of_name = np.array([zlib.crc32(str(x).encode("utf-8", "surrogatepass")) % n for x in names], dtype=np.int64)
    return of_name[codes] if len(of_name) else np.zeros(len(codes), dtype=np.int64)


def _read(path: str, shown: str, time_format: str, lenient: bool) -> Read:
    """The run at ``path`` (absolute), its errors naming it ``shown`` (as the command line gave it)."""
    from segeval.readers.tables import read_run
    from segeval.readers.validate import is_documents, validate_run

    skipped: list[InputError] = []
    on_error = skipped.append if lenient else None
    try:
        r = validate_run(read_run(path, time_format=time_format, on_error=on_error), on_error)
    except SegevalError as exc:
        return (
            None,
            False,
            RunResult(None, skipped=[_named(e, path, shown) for e in skipped], error=_named(exc, path, shown)),
        )
    return r, is_documents(r), RunResult(None, trec_runid(r["run"]), [_named(e, path, shown) for e in skipped])


def _named(e: E, path: str, shown: str) -> E:
    """``e`` naming the file ``shown`` where it names ``path``."""
    if path == shown:
        return e
    if isinstance(e, InputError) and e.path == path:
        return InputError(shown, e.problem, line=e.line, text=e.text, kind=e.kind)  # type: ignore[return-value]
    if path in str(e):
        return type(e)(str(e).replace(path, shown))
    return e


def plans(job: Job) -> Plans:
    """The plan of ``job`` for document and for segment runs (or its SegevalError), once per run set."""
    out: Plans = {}
    for documents in (False, True):
        try:
            out[documents] = job_plan(job, documents)
        except SegevalError as exc:
            out[documents] = exc
    return out


def _evaluate_partition(qrels: pd.DataFrame, read: Read, k: int, n: int, hows: Plans) -> Part | SegevalError | None:
    run, documents, _ = read
    how = hows[documents]
    if run is None or isinstance(how, SegevalError):
        return None
    try:
        q = qrels.loc[partition_of(qrels["query"], n) == k]
        r = run.loc[partition_of(run["query"], n) == k]
        chosen = None if how.settings.queries is None else sorted(set(how.settings.queries) & set(q["query"]))
        return evaluate_part(q, r, how, chosen)
    except SegevalError as exc:
        return exc


def map_runs_dask(qrels: pd.DataFrame, runs: Sequence[str], job: Job, then: Callable[[RunResult], T]) -> list[T]:
    """:func:`segeval.executors.processes.map_runs` on a Dask cluster; ``then`` runs here."""
    from segeval.executors.interrupt import on_stop

    client, cluster = connect(job.engine.scheduler, job.engine.jobs)
    hooks = ExitStack()
    if cluster is not None:  # a signal ends the workers: the cluster must not start new ones
        hooks.enter_context(on_stop(partial(_no_restarts, cluster)))
    where = job.engine.scheduler or "the local cluster"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = _map(client, where, qrels, runs, job, then)
        print_notes(*dict.fromkeys(str(w.message) for w in caught), head="note: Dask: ")  # Dask's warnings, once
        return out
    finally:
        hooks.close()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            if cluster is not None:
                cluster.close()


def _map(
    client: Any, where: str, qrels: pd.DataFrame, runs: Sequence[str], job: Job, then: Callable[[RunResult], T]
) -> list[T]:
    from segeval.executors.progress import Progress

    wait_for = job.engine.dask_timeout
    _workers(client, where, wait_for, "at the start")
    n = max(1, sum(client.nthreads().values()))
    tag = uuid.uuid4().hex[:8]
    q = client.scatter(qrels, broadcast=True)
    hows = plans(job)
    sent = client.scatter([hows], broadcast=True)[0]  # one copy per worker, not one per task
    reads = [
        client.submit(
            _read,
            r if is_stream(r) else os.path.abspath(r),
            r,
            job.settings.time_format,
            job.lenient,
            key=f"segeval-read-{tag}-{i}",
            pure=False,
        )
        for i, r in enumerate(runs)
    ]
    metas = [client.submit(itemgetter(1, 2), f, key=f"segeval-meta-{tag}-{i}") for i, f in enumerate(reads)]
    parts = [
        [client.submit(_evaluate_partition, q, f, k, n, sent, key=f"segeval-part-{tag}-{i}-{k}") for k in range(n)]
        for i, f in enumerate(reads)
    ]
    out: list[T] = []
    with Progress(len(runs), "runs", quiet=job.engine.quiet) as progress:
        for i, meta_future in enumerate(metas):
            documents, meta = _results(client, where, wait_for, [meta_future])[0]
            results = _results(client, where, wait_for, parts[i])
            reads[i].release()
            one = _evaluated(qrels, meta, results, hows[documents])
            one.file = runs[i]
            out.append(then(one))
            progress.advance()
    return out


def _workers(client: Any, where: str, wait_for: float, when: str) -> None:
    """Wait up to ``wait_for`` seconds for a worker; a SegevalError when none comes."""
    try:
        client.wait_for_workers(1, timeout=wait_for)
    except (TimeoutError, OSError):
        raise SegevalError(
            f"The Dask cluster at {where} has no worker {when} (waited {wait_for:g} s, --dask-timeout); expected at "
            "least one, started with 'dask worker SCHEDULER-ADDRESS'."
        ) from None


def _results(client: Any, where: str, wait_for: float, futures: list[Any]) -> list[Any]:
    """The futures' results, waiting while the cluster has a worker; a SegevalError otherwise."""
    wait: Any = importlib.import_module("dask.distributed").wait
    while futures:
        try:
            wait(futures, timeout=1.0)
            break
        except TimeoutError:  # not all done yet: go on while the cluster has a worker
            pass
        if not client.nthreads():
            _workers(client, where, wait_for, "any more (the last one left during the evaluation)")
    try:
        return list(client.gather(futures))
    except SegevalError:
        raise
    except Exception as exc:  # KilledWorker, CancelledError, a worker's own failure
        raise SegevalError(
            f"The Dask cluster at {where} could not evaluate a run: {type(exc).__name__}: {exc}"
        ) from None


def _no_restarts(cluster: Any) -> None:
    """Mark the nannies of a local cluster as closing, so that they do not restart ended workers."""
    from distributed.core import Status

    for nanny in list(getattr(cluster, "workers", {}).values()):
        nanny.status = Status.closing


def _evaluated(
    qrels: pd.DataFrame, meta: RunResult, results: list[Part | SegevalError | None], how: Plan | SegevalError
) -> RunResult:
    """One run's result from its partitions' results, with the single-process engine's errors."""
    try:
        if meta.error is not None:
            raise meta.error
        if isinstance(how, SegevalError):
            raise how
        if how.settings.queries is not None:
            check_queries(how.settings.queries, set(qrels["query"]))
        errors = [x for x in results if isinstance(x, SegevalError)]
        if errors:  # the first one in the file, as a single process finds it
            raise min(errors, key=_line)
        ev = finish(qrels, how, *merge_parts([x for x in results if isinstance(x, tuple)], how))
    except SegevalError as exc:
        return RunResult(None, skipped=meta.skipped, error=exc)
    return RunResult(ev, meta.runid, meta.skipped)


def _line(e: SegevalError) -> int:
    return (e.line or 0) if isinstance(e, InputError) else 0
