"""Compare runs: means per measure, and per run against a baseline the difference, a bootstrap
interval and a corrected paired-test p-value.  Queries are paired on every qrels query (a query
missing from a run scores 0)."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from segeval.errors import ParameterError
from segeval.stats import bootstrap_ci, correct, p_value

FORMATS = ("text", "markdown", "latex", "csv", "json")


@dataclass
class Cell:
    """One run and measure: its mean and, against the baseline, difference, interval, p-value."""

    mean: float
    diff: float | None = None
    ci: tuple[float, float] | None = None
    p: float | None = None
    significant: bool = False


@dataclass
class Comparison:
    runs: list[str]
    measures: list[str]
    baseline: str
    test: str
    correction: str
    alpha: float
    queries: int
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def compare_runs(
    qrels: str | Path,
    runs: Sequence[str | Path],
    measures: Sequence[str] = ("map",),
    *,
    adapter: str | None = None,
    baseline: str | Path | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 0,
    jobs: int | None = 1,
) -> Comparison:
    """Evaluate every run over all qrels queries and compare each with the baseline (default: the first)."""
    from segeval.batch import run_names
    from segeval.read import read_qrels

    q = read_qrels(qrels)
    runs = list(runs)
    if baseline is not None and str(baseline) not in {str(r) for r in runs}:
        runs = [baseline, *runs]
    names = run_names(runs)  # the same file twice is compared with itself: the second copy is name#2
    if len(names) < 2:
        raise ParameterError("The 'runs' parameter must name at least two runs to compare (with the baseline).")
    base_name = Path(baseline).name if baseline is not None else names[0]
    tasks = [(q, r, list(measures), adapter) for r in runs]
    workers = min(len(tasks), jobs or os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_evaluate_task, tasks))
    else:
        results = [_evaluate_task(t) for t in tasks]
    evaluations = dict(zip(names, results, strict=True))
    first = next(iter(evaluations.values()))
    columns = [r.name for r in first.requests if r.measure.aggregate != "none"]
    result = Comparison(names, columns, base_name, test, correction, alpha, len(first.queries))
    result.notes.append(f"queries paired on all {len(first.queries)} qrels queries; a query missing from a run "
                        f"scores 0")
    base = evaluations[base_name]
    raw_p: list[tuple[str, str, float]] = []
    for n, ev in evaluations.items():
        result.cells[n] = {}
        for m in columns:
            cell = Cell(float(ev.summary[m]))
            if n != base_name:
                a, b = np.asarray(base.per_query[m], dtype=float), np.asarray(ev.per_query[m], dtype=float)
                cell.diff = float(np.mean(b - a))
                cell.ci = bootstrap_ci(a, b, samples=permutations, seed=seed)
                cell.p = p_value(a, b, test, permutations=permutations, seed=seed)
                raw_p.append((n, m, cell.p))
            result.cells[n][m] = cell
    adjusted = correct([p for *_, p in raw_p], correction)
    for (n, m, _), p in zip(raw_p, adjusted, strict=True):
        result.cells[n][m].p = p
        result.cells[n][m].significant = p < alpha
    return result


def _evaluate_task(task: tuple[Any, Any, list[str], str | None]) -> Any:
    from segeval.pipeline import evaluate

    q, run, measures, adapter = task
    return evaluate(q, run, measures, adapter=adapter, missing_queries="zero")


def _cell_text(c: Cell) -> str:
    if c.diff is None:
        return f"{c.mean:.4f}"
    assert c.ci is not None and c.p is not None
    diff, low, high = (round(v, 4) + 0.0 for v in (c.diff, *c.ci))  # no "-0.0000"
    return f"{c.mean:.4f} ({diff:+.4f} [{low:+.4f}, {high:+.4f}] p={c.p:.4f}{'*' if c.significant else ''})"


def render(result: Comparison, fmt: str = "text") -> str:
    """The comparison table in ``fmt`` (text, markdown, latex, csv, json)."""
    header = ["run", *result.measures]
    rows = [[n + (" (baseline)" if n == result.baseline else ""),
             *[_cell_text(result.cells[n][m]) for m in result.measures]] for n in result.runs]
    legend = (f"test: {result.test}, correction: {result.correction}, * p < {result.alpha}; "
              f"cells: mean (difference to the baseline [95% bootstrap interval] p)")
    if fmt == "json":
        doc: dict[str, Any] = {k: v for k, v in asdict(result).items() if k != "cells"}
        doc["cells"] = {n: {m: asdict(c) for m, c in row.items()} for n, row in result.cells.items()}
        return json.dumps(doc, indent=1) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["run", "measure", "mean", "diff", "ci_low", "ci_high", "p", "significant"])
        for n in result.runs:
            for m in result.measures:
                c = result.cells[n][m]
                writer.writerow([n, m, c.mean, c.diff if c.diff is not None else "", *(c.ci or ("", "")),
                                 c.p if c.p is not None else "", int(c.significant)])
        return buffer.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + f"\n\n{legend}; {'; '.join(result.notes)}\n"
    if fmt == "latex":
        def esc(text: str) -> str:
            return text.replace("_", r"\_").replace("%", r"\%")

        lines = [r"\begin{tabular}{l" + "r" * len(result.measures) + "}", r"\toprule",
                 " & ".join(esc(h) for h in header) + r" \\", r"\midrule"]
        lines += [" & ".join(esc(c) for c in r) + r" \\" for r in rows]
        lines += [r"\bottomrule", r"\end{tabular}", f"% {legend}"]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows]]
    return "\n".join(lines) + f"\n\n{legend}\n" + "".join(f"note: {n}\n" for n in result.notes)
