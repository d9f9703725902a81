"""Many runs against one qrels: expand paths, evaluate with N processes, print in a stable order.

Each run is read once, in the worker that evaluates it; the qrels are read once in the
parent and handed to each worker when it starts.  Output is the per-run outputs in the
order of the expanded run list, so it is identical for any number of jobs.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from segeval.errors import InputError, ParameterError, SegevalError

ENGINES = ("processes", "dask")


def expand_runs(specs: Sequence[str]) -> list[str]:
    """Files as given, globs and directories expanded (sorted); each file once, in first-seen order."""
    out: list[str] = []
    for spec in specs:
        p = Path(spec)
        if p.is_dir():
            found = sorted(str(f) for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        elif any(c in spec for c in "*?[") and not p.exists():
            found = sorted(glob.glob(spec))
            if not found:
                raise ParameterError(f"The 'runs' parameter must name existing files. Got {spec!r}, which matches "
                                     f"nothing.")
        else:
            found = [spec]
        out += [f for f in found if f not in out]
    return out


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """Display names of runs: the file name, with ``#2``, ``#3`` ... for later files of the same name."""
    names: list[str] = []
    for r in paths:
        name = Path(r).name
        names.append(name if name not in names else f"{name}#{sum(n.split('#')[0] == name for n in names) + 1}")
    return names


@dataclass(frozen=True)
class Outcome:
    """What evaluating one run printed, and how it ended."""

    stdout: str
    stderr: str
    skipped: int
    failed: bool


_QRELS: pd.DataFrame | None = None


def _init(qrels: pd.DataFrame) -> None:
    global _QRELS
    _QRELS = qrels


def _one(task: tuple[str, dict[str, Any]]) -> Outcome:
    run, options = task
    assert _QRELS is not None
    return evaluate_one(_QRELS, run, **options)


def evaluate_one(qrels: pd.DataFrame, run: str, *, render: Any, evaluate_options: dict[str, Any],
                 time_format: str, lenient: bool, complete: bool, memory: str = "auto",
                 chunk_lines: int | None = None, progress: bool = False) -> Outcome:
    """Read, validate, evaluate and render one run (errors become an Outcome, never an exception).
    ``memory``, ``chunk_lines`` and ``progress`` are :func:`segeval.chunked.evaluate_run`'s."""
    from segeval.chunked import DEFAULT_CHUNK_LINES, evaluate_run

    skipped: list[InputError] = []
    try:
        result = evaluate_run(qrels, run, memory=memory, chunk_lines=chunk_lines or DEFAULT_CHUNK_LINES,
                              time_format=time_format, on_error=skipped.append if lenient else None,
                              progress=progress, **evaluate_options)
    except SegevalError as exc:
        return Outcome("", f"segeval: error: {exc}\n", len(skipped), True)
    return outcome(result.evaluation, result.runid, skipped, render=render, complete=complete, notes=result.notes)


def outcome(ev: Any, runid: str, skipped: Sequence[InputError], *, render: Any, complete: bool,
            notes: Sequence[str] = ()) -> Outcome:
    """The rendered output of one evaluated run, and its notes and skipped lines for stderr."""
    out = render(ev, runid, len(skipped))
    err = list(notes)
    if ev.unevaluated and not complete:
        err.append(f"note: {len(ev.unevaluated)} qrels queries have no results in the run and are not averaged "
                   f"(-c counts them as 0)")
    err += ev.notes
    err += [f"segeval: skipped {e.path}, line {e.line}: {e.problem}" for e in skipped]
    return Outcome(out, "".join(line + "\n" for line in err), len(skipped), False)


def evaluate_many(qrels: pd.DataFrame, runs: Sequence[str], jobs: int | None, *, quiet: bool = False,
                  engine: str = "processes", scheduler: str | None = None, **options: Any) -> list[Outcome]:
    """Evaluate every run, with ``jobs`` processes (None: all cores); outcomes in the order of ``runs``.

    ``engine="dask"`` distributes (run, query-partition) tasks on the Dask cluster at ``scheduler``
    (None: a local cluster of ``jobs`` processes); see :mod:`segeval.dask_engine`.  A progress
    line goes to stderr when it is a terminal (not with ``quiet``).
    """
    from segeval.errors import check_choice
    from segeval.progress import Progress

    check_choice("engine", engine, ENGINES)
    if engine == "dask":
        from segeval.dask_engine import evaluate_many_dask

        dask_options = {k: v for k, v in options.items() if k not in ("memory", "chunk_lines")}
        return evaluate_many_dask(qrels, runs, jobs, scheduler, quiet=quiet, **dask_options)
    workers = min(len(runs), jobs or os.cpu_count() or 1)
    if len(runs) == 1:  # one big run: a progress line of the chunked path instead of one for the runs
        options = {**options, "progress": not quiet}
    outcomes: list[Outcome] = []
    with Progress(len(runs), "runs", quiet=quiet) as progress:
        if workers <= 1:
            for run in runs:
                outcomes.append(evaluate_one(qrels, run, **options))
                progress.advance()
            return outcomes
        with ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(qrels,)) as pool:
            for outcome in pool.map(_one, [(run, options) for run in runs]):
                outcomes.append(outcome)
                progress.advance()
    return outcomes
