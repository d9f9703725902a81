"""Many runs against one qrels: expand paths, evaluate with N processes, print in a stable order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, TypeVar

from segeval.core.errors import InputError, SegevalError, named, printable, utf8_text
from segeval.core.settings import Job
from segeval.executors.results import Outcome, RunResult, unevaluated_note
from segeval.readers.directories import expand_runs as expand_runs  # the one expansion, re-exported

if TYPE_CHECKING:
    import pandas as pd

    from segeval.core.evaluation import Evaluation

T = TypeVar("T")


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """Display names of runs, one per path and all different: the file name, or as many trailing folders with it as tell
    the path from the others (``a/run``, ``b/run``); a path given again gets ``#2``, ``#3`` ..."""
    parts = [PurePath(p).parts or (str(p),) for p in paths]
    distinct = list(dict.fromkeys(parts))

    def suffix(p: tuple[str, ...], k: int) -> tuple[str, ...]:
        return p[-k:] if k <= len(p) else p

    label: dict[tuple[str, ...], str] = {}
    for p in distinct:
        k = 1
        while k < len(p) and any(suffix(o, k) == suffix(p, k) for o in distinct if o != p):
            k += 1
        label[p] = utf8_text(str(PurePath(*suffix(p, k))))
    names: list[str] = []
    seen: dict[tuple[str, ...], int] = {}
    for p in parts:
        seen[p] = seen.get(p, 0) + 1
        names.append(label[p] if seen[p] == 1 else f"{label[p]}#{seen[p]}")
    return names


def keep_result(result: RunResult) -> RunResult:
    """The identity, as the ``then`` of :func:`map_runs` that keeps the evaluations."""
    return result


_QRELS: pd.DataFrame | None = None


def _init(qrels: pd.DataFrame, stoppable: bool) -> None:
    global _QRELS
    _QRELS = qrels
    if stoppable:  # the parent stops on a signal and ends its workers (segeval.executors.interrupt)
        from segeval.executors.interrupt import worker_signals

        worker_signals()


def _one(task: tuple[str, Job, bool, Callable[[RunResult], T]]) -> T:
    run, job, progress, then = task
    assert _QRELS is not None
    return then(evaluate_one(_QRELS, run, job, progress=progress))


def evaluate_one(qrels: pd.DataFrame, run: str, job: Job, *, progress: bool = False) -> RunResult:
    """Read, validate and evaluate one run as ``job`` says; a SegevalError becomes the result's ``error``."""
    from segeval.executors.chunks import evaluate_run

    skipped: list[InputError] = []
    try:
        result = evaluate_run(qrels, run, job, on_error=skipped.append if job.lenient else None, progress=progress)
    except SegevalError as exc:
        return RunResult(None, skipped=skipped, error=exc, file=run)
    return replace(result, skipped=skipped, file=run)


def outcome(result: RunResult, *, render: Callable[[Evaluation, str, int, str], str], complete: bool) -> Outcome:
    """The rendered output of one run (``segeval eval``), and its notes, skipped lines or error."""
    if result.error is not None or result.evaluation is None:
        return Outcome("", f"segeval: error: {result.error}\n", len(result.skipped), True)
    ev, skipped = result.evaluation, result.skipped
    out = render(ev, result.runid, len(skipped), result.file)
    err = list(result.notes)
    if ev.unevaluated and not complete:
        err.append(unevaluated_note(len(ev.unevaluated)))
    err += ev.notes
    lines = [printable(named(text, result.file)) for text in err] + [e.skipped() for e in skipped]
    return Outcome(out, "".join(line + "\n" for line in lines), len(skipped), False)


def map_runs(qrels: pd.DataFrame, runs: Sequence[str], job: Job, then: Callable[[RunResult], T]) -> list[T]:
    """``then`` of each run's :class:`RunResult`, in the order of ``runs``, whatever the engine."""
    from segeval.executors.interrupt import installed  # its value now: whether the signals are routed
    from segeval.executors.progress import Progress
    from segeval.executors.route import on_dask
    from segeval.readers.files import is_stream

    options = job.engine
    jobs = 1 if any(is_stream(r) for r in runs) else options.jobs  # a pipe or standard input: read here
    if on_dask(runs, job):
        from segeval.executors.dask import map_runs_dask

        return map_runs_dask(qrels, runs, job, then)
    workers = min(len(runs), jobs or os.cpu_count() or 1)
    bar = len(runs) == 1 and not options.quiet  # one big run: a progress line of the chunked path instead
    results: list[T] = []
    from concurrent.futures import ProcessPoolExecutor  # here: one run (the fast lane too) needs no processes

    with Progress(len(runs), "runs", quiet=options.quiet) as progress, ExitStack() as stack:
        if workers <= 1:
            done: Iterable[T] = (then(evaluate_one(qrels, run, job, progress=bar)) for run in runs)
        else:
            pool = stack.enter_context(ProcessPoolExecutor(workers, initializer=_init, initargs=(qrels, installed)))
            done = pool.map(_one, [(run, job, bar, then) for run in runs])
        for result in done:
            results.append(result)
            progress.advance()
    return results


def evaluate_runs(qrels: pd.DataFrame, runs: Sequence[str], job: Job) -> list[RunResult]:
    """Every run's :class:`RunResult`, in the order of ``runs``."""
    return map_runs(qrels, runs, job, keep_result)


def evaluate_many(
    qrels: pd.DataFrame,
    runs: Sequence[str],
    job: Job,
    *,
    render: Callable[[Evaluation, str, int, str], str],
    complete: bool,
) -> list[Outcome]:
    """``segeval eval``'s outcome of every run, rendered (in the worker) with ``render``."""
    return map_runs(qrels, runs, job, partial(outcome, render=render, complete=complete))
