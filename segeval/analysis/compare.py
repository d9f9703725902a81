"""Compare runs: means per measure, and per run against a baseline the difference, a bootstrap
interval and a corrected paired-test p-value.  Queries are paired on every qrels query (a query
missing from a run scores 0)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from segeval.analysis.stats import (
    CORRECTIONS,
    MIN_QUERIES,
    TESTS,
    bootstrap_ci,
    check_level,
    check_permutations,
    check_seed,
    correct,
    describe_test,
    p_value,
)
from segeval.errors import InputError, ParameterError, check_choice, printable
from segeval.escaping import csv_text, json_text, latex, markdown
from segeval.notes import for_run, unprefixed
from segeval.settings import EngineOptions, Settings
from segeval.words import plural

#: ``compare_runs``' default engine: the runs one after another in this process, no progress line
ONE_PROCESS = EngineOptions(jobs=1, quiet=True)

if TYPE_CHECKING:
    from segeval.engines.types import RunResult
    from segeval.evaluation import Evaluation

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
    permutations: int = 10_000
    seed: int = 0
    #: the adapters the measures were computed with (their specs), resolved from the default if none was given
    adapters: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # the run file of each run name
    #: each run's evaluation (with the ``also`` measures of :func:`compare_runs`); not part of the output
    evaluations: dict[str, Evaluation] = field(default_factory=dict, repr=False, compare=False)


def check_statistics(test: str, correction: str, alpha: float, permutations: int, seed: int) -> None:
    """Raise a ParameterError for a statistics option out of its domain (before anything is evaluated)."""
    check_choice("test", test, TESTS)
    check_choice("correction", correction, CORRECTIONS)
    check_level("alpha", alpha)
    check_permutations(permutations)
    check_seed(seed)


def compare_runs(
    qrels: pd.DataFrame,
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
    engine: EngineOptions = ONE_PROCESS,
    on_note: Callable[[str], object] | None = None,
    settings: Settings | None = None,
    also: Sequence[str] = (),
) -> Comparison:
    """Evaluate every run over all ``qrels`` queries (validated qrels, as :mod:`segeval.io.tables` reads
    them) and compare each with the baseline (default: the first).

    ``engine`` chooses how the runs are read and by whom, as for ``segeval eval``
    (:func:`segeval.engines.runs.map_runs`; default: one process, no progress line); the result does not
    depend on it.  ``on_note`` is given each note on how a run was read (a run not grouped by
    query read whole).  The first run (in order) that cannot be evaluated raises its error.  Measures
    in ``also`` are evaluated with the others (the result's :attr:`Comparison.evaluations` hold them)
    but not compared.  ``settings``: the policies (``-l``, ``-M``, ``-J``, ``--trec-eval``, time format),
    every qrels query counting (``missing_queries`` is ``zero``).
    """
    from segeval.engines.runs import evaluate_runs, run_names
    from segeval.settings import Job

    check_statistics(test, correction, alpha, permutations, seed)
    q = qrels
    runs = list(runs)
    if baseline is not None and str(baseline) not in {str(r) for r in runs}:
        runs = [baseline, *runs]
    names = run_names(runs)  # the same file twice is compared with itself: the second copy is name#2
    if len(names) < 2 and baseline is not None:
        raise ParameterError(f"The 'runs' parameter must name a run besides the baseline {str(baseline)!r}. Got only "
                             f"the baseline instead.")
    if len(names) < 2:
        raise ParameterError("The 'runs' parameter must name at least two runs to compare (with the baseline).")
    base_name = names[[str(r) for r in runs].index(str(baseline))] if baseline is not None else names[0]
    policies = (settings or Settings()).but(missing_queries="zero")  # every qrels query counts
    job = Job((*measures, *also), () if adapter is None else (adapter,), policies, engine=engine)
    evaluations = _evaluations(names, evaluate_runs(q, [str(r) for r in runs], job), on_note)
    paths = dict(zip(names, (str(r) for r in runs), strict=True))
    compared = None if not also else _compared(evaluations[base_name], measures)
    result = compare_evaluations(evaluations, base_name, test=test, correction=correction, alpha=alpha,
                                 permutations=permutations, seed=seed, sources=paths, columns=compared)
    result.evaluations = evaluations
    return result


def _evaluations(names: list[str], results: list[RunResult], on_note: Callable[[str], object] | None
                 ) -> dict[str, Evaluation]:
    """Each run's evaluation by name; the first run that could not be evaluated raises its error, and each
    note on how a run was read goes to ``on_note``."""
    evaluations: dict[str, Evaluation] = {}
    for name, one in zip(names, results, strict=True):
        if one.error is not None:
            raise one.error
        assert one.evaluation is not None
        for note in one.notes:
            if on_note is not None:
                on_note(note)
        evaluations[name] = one.evaluation
    return evaluations


def _compared(ev: Evaluation, measures: Sequence[str]) -> list[str]:
    """The result columns of ``ev`` that ``measures`` ask for (not those only in ``also``)."""
    from segeval.pipeline import plan

    wanted = {r.measure for documents in (False, True) for r in plan(documents, list(measures)).requests}
    return [r.name for r in ev.requests if r.measure in wanted and r.measure.aggregate != "none"]


def compare_evaluations(evaluations: dict[str, Evaluation], baseline: str, *, test: str = "t",
                        correction: str = "holm", alpha: float = 0.05, permutations: int = 10_000, seed: int = 0,
                        sources: dict[str, str] | None = None, columns: Sequence[str] | None = None) -> Comparison:
    """:func:`compare_runs` on evaluations made over the same queries (with ``missing_queries="zero"``),
    by run name; ``baseline`` is one of the names, ``sources`` name where each run came from in errors,
    ``columns`` the results to compare (None: every averaged measure)."""
    check_statistics(test, correction, alpha, permutations, seed)
    names = list(evaluations)
    if baseline not in evaluations:
        raise ParameterError(f"The 'baseline' parameter must be one of the runs ({', '.join(names)}). Got "
                             f"{baseline!r} instead.")
    if len(names) < 2:
        raise ParameterError("The 'runs' parameter must name at least two runs to compare (with the baseline).")
    paths = sources or {n: n for n in names}
    first = next(iter(evaluations.values()))
    if columns is None:
        columns = [r.name for r in first.requests if r.measure.aggregate != "none"]
    columns = list(columns)
    queries = list(first.queries)
    result = Comparison(names, columns, baseline, test, correction, alpha, len(queries), permutations=permutations,
                        seed=seed, files=dict(paths))
    result.notes.append(f"queries paired on all {plural(len(queries), 'qrels query', 'qrels queries')}; a query "
                        f"missing from a run scores 0")
    _check_paired(evaluations, columns, queries, paths)
    result.adapters = list(dict.fromkeys(r.adapter.spec for r in first.requests if r.adapter is not None))
    for n, ev in evaluations.items():  # the notes eval gives each run (values above 1, ...)
        result.notes += [unprefixed(x) for x in for_run(n, ev.notes)]
    raw_p = _fill_cells(result, evaluations)
    _method_notes(result, len(raw_p))
    adjusted = correct([p for *_, p in raw_p], correction)
    for (n, m, _), p in zip(raw_p, adjusted, strict=True):
        result.cells[n][m].p = p
        result.cells[n][m].significant = p < alpha
    return result


def _check_paired(evaluations: dict[str, Evaluation], columns: list[str], queries: list[str],
                  paths: dict[str, str]) -> None:
    """Refuse runs evaluated on other queries, or without a finite value for every query and compared column."""
    names = list(evaluations)
    for n, ev in evaluations.items():
        if ev.queries != queries:
            raise ParameterError(f"The runs must be evaluated on the same queries. Got "
                                 f"{plural(len(ev.queries), 'query', 'queries')} for "
                                 f"{n!r} and {len(queries)} for {names[0]!r} instead.")
        for m in columns:
            values = np.asarray(ev.per_query[m], dtype=float)
            bad = np.flatnonzero(~np.isfinite(values))
            if len(bad):
                raise InputError(paths[n], f"run {n!r} has no number for measure {m!r} on query "
                                           f"{queries[int(bad[0])]!r} ({values[int(bad[0])]}); a paired test needs "
                                           f"one for every query")


def _fill_cells(result: Comparison, evaluations: dict[str, Evaluation]) -> list[tuple[str, str, float]]:
    """Each run's cells: its mean and, against the baseline, the mean difference, the bootstrap interval (with
    2 queries or more) and the raw p-value, which is returned per (run, measure) for the correction."""
    base = evaluations[result.baseline]
    queries = list(base.queries)
    few = result.queries < MIN_QUERIES
    permutations, seed = result.permutations, result.seed
    raw_p: list[tuple[str, str, float]] = []
    for n, ev in evaluations.items():
        result.cells[n] = {}
        for m in result.measures:
            cell = Cell(float(ev.summary[m]))
            if n != result.baseline:
                a, b = np.asarray(base.per_query[m], dtype=float), np.asarray(ev.per_query[m], dtype=float)
                cell.diff = float(np.mean(b - a))
                runs = (result.baseline, n)
                if not few:
                    cell.ci = bootstrap_ci(a, b, samples=permutations, seed=seed, runs=runs, queries=queries)
                cell.p = p_value(a, b, result.test, permutations=permutations, seed=seed, runs=runs, queries=queries)
                raw_p.append((n, m, cell.p))
            result.cells[n][m] = cell
    return raw_p


def _method_notes(result: Comparison, cells: int) -> None:
    """The notes that say how the p-values and intervals were made, over ``cells`` run x measure cells."""
    few = result.queries < MIN_QUERIES
    if few:
        result.notes.append(f"only {result.queries} query: no paired test or interval is possible; every p is 1 and "
                            f"no difference is marked significant")
    result.notes.append(describe_test(result.test, result.permutations, result.seed))
    if result.correction == "none":
        result.notes.append(f"p-values not corrected for the {plural(cells, 'comparison')} (run x measure cells)")
    else:
        result.notes.append(f"{result.correction} correction over all {plural(cells, 'run x measure cell')} "
                            f"({plural(len(result.runs) - 1, 'run')} x {plural(len(result.measures), 'measure')} "
                            f"against the baseline)")
    if not few:
        resamples, comparisons = plural(result.permutations, "resample"), plural(cells, "comparison")
        result.notes.append(f"intervals: 95% percentile bootstrap of the mean difference ({resamples}, seed "
                            f"{result.seed}), each at its own 95% level: not adjusted for the {comparisons}")


def format_p(p: float) -> str:
    """A p-value with 4 decimals; below 0.0001 as ``<0.0001`` (never ``0.0000``)."""
    return "<0.0001" if p < 0.0001 else f"={p:.4f}"


def _cell_text(c: Cell) -> str:
    if c.diff is None:
        return f"{c.mean:.4f}"
    assert c.p is not None
    diff = round(c.diff, 4) + 0.0  # no "-0.0000"
    interval = ""
    if c.ci is not None:
        low, high = (round(v, 4) + 0.0 for v in c.ci)
        interval = f" [{low:+.4f}, {high:+.4f}]"
    return f"{c.mean:.4f} ({diff:+.4f}{interval} p{format_p(c.p)}{'*' if c.significant else ''})"


def render(result: Comparison, fmt: str = "text") -> str:
    """The comparison table in ``fmt`` (text, markdown, latex, csv, json)."""
    header = ["run", *result.measures]
    rows = [[n + (" (baseline)" if n == result.baseline else ""),
             *[_cell_text(result.cells[n][m]) for m in result.measures]] for n in result.runs]
    legend = (f"adapter: {', '.join(result.adapters) or 'none'}; test: {result.test}, correction: "
              f"{result.correction}, * p < {result.alpha}; cells: mean (difference to the baseline "
              f"[95% bootstrap interval] p)")
    if fmt == "json":
        doc: dict[str, Any] = {f.name: getattr(result, f.name) for f in fields(result)
                               if f.name not in ("cells", "evaluations")}
        doc["cells"] = {n: {m: asdict(c) for m, c in row.items()} for n, row in result.cells.items()}
        return json_text(doc) + "\n"
    if fmt == "csv":
        table: list[list[Any]] = [["run", "file", "measure", "mean", "diff", "ci_low", "ci_high", "p", "significant"]]
        for n in result.runs:
            for m in result.measures:
                c = result.cells[n][m]
                table.append([n, result.files.get(n, ""), m, c.mean, c.diff, *(c.ci or (None, None)), c.p,
                              int(c.significant)])
        return csv_text(table)
    if fmt == "markdown":
        lines = ["| " + " | ".join(markdown(h) for h in header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(markdown(c) for c in r) + " |" for r in rows]
        return "\n".join(lines) + f"\n\n{markdown(legend)}; {'; '.join(markdown(n) for n in result.notes)}\n"
    if fmt == "latex":
        lines = [r"\begin{tabular}{l" + "r" * len(result.measures) + "}", r"\toprule",
                 " & ".join(latex(h) for h in header) + r" \\", r"\midrule"]
        lines += [" & ".join(latex(c) for c in r) + r" \\" for r in rows]
        lines += [r"\bottomrule", r"\end{tabular}", f"% {printable(legend)}",
                  *(f"% note: {printable(n)}" for n in result.notes)]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows]]
    return "\n".join(lines) + f"\n\n{legend}\n" + "".join(f"note: {n}\n" for n in result.notes)
