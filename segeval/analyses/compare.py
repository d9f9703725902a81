"""Compare runs on every qrels query: means, differences, bootstrap intervals, paired-test p-values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from segeval.analyses import stats
from segeval.core.domains import OPEN_UNIT, SEED
from segeval.core.errors import InputError, ParameterError, SegevalError, check_choice, printable
from segeval.core.limits import check_count
from segeval.core.notes import for_run, unprefixed
from segeval.core.settings import EngineOptions, Settings
from segeval.core.words import plural
from segeval.reports import tables
from segeval.reports.escaping import json_text, markdown

#: ``compare_runs``' default engine: the runs one after another in this process, no progress line
ONE_PROCESS = EngineOptions(jobs=1, quiet=True)

if TYPE_CHECKING:
    from segeval.core.evaluation import Evaluation

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
class Pair:
    """Two runs on one measure (``--all-pairs``): the mean difference ``b - a``, its interval and p-value."""

    a: str
    b: str
    measure: str
    diff: float
    ci: tuple[float, float] | None
    p: float
    significant: bool = False


@dataclass(frozen=True)
class Statistics:
    """The statistics options of ``compare``, checked when made; a None correction resolves to the test's default."""

    test: str = "t"
    correction: str | None = None
    alpha: float = 0.05
    permutations: int = 10_000
    seed: int = 0
    all_pairs: bool = False

    def __post_init__(self) -> None:
        check_choice("test", self.test, stats.TESTS)
        object.__setattr__(self, "correction", stats.resolve_correction(self.test, self.correction))
        OPEN_UNIT.check("alpha", self.alpha)
        check_count("permutations", self.permutations)
        SEED.check("seed", self.seed)


#: ``compare``'s default statistics options
DEFAULT_STATISTICS = Statistics()


@dataclass
class Comparison:
    """The result of ``compare``; ``str()`` and ``to_*`` give the table of ``compare -o``."""

    runs: list[str]
    measures: list[str]
    baseline: str
    statistics: Statistics
    queries: int
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    adapters: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # the run file of each run name
    evaluations: dict[str, Evaluation] = field(default_factory=dict, repr=False, compare=False)
    pairs: list[Pair] = field(default_factory=list)

    def __str__(self) -> str:
        return render(self, "text")

    def to_markdown(self) -> str:
        """The table in Markdown (as ``compare -o markdown``)."""
        return render(self, "markdown")

    def to_latex(self) -> str:
        """ranx's compact LaTeX table with significance superscripts (as ``compare -o latex``)."""
        return render(self, "latex")

    def to_csv(self) -> str:
        """The table as CSV (as ``compare -o csv``)."""
        return render(self, "csv")

    def to_json(self) -> str:
        """The comparison as JSON (as ``compare -o json``)."""
        return render(self, "json")

    def to_dataframe(self) -> pd.DataFrame:
        """The rows and columns of ``compare -o csv``."""
        header, rows = _long_table(self)
        return pd.DataFrame(rows, columns=header)


def compare_runs(
    qrels: pd.DataFrame,
    runs: Sequence[str | Path],
    measures: Sequence[str] = ("map",),
    *,
    adapter: str | Sequence[str] | None = None,
    baseline: str | Path | None = None,
    statistics: Statistics = DEFAULT_STATISTICS,
    engine: EngineOptions = ONE_PROCESS,
    on_note: Callable[[str], object] | None = None,
    settings: Settings | None = None,
    also: Sequence[str] = (),  # measures evaluated too (in Comparison.evaluations) but not compared
) -> Comparison:
    """Evaluate every run over all ``qrels`` queries and compare each with the baseline, or every pair."""
    from segeval.core.settings import Job
    from segeval.executors.processes import evaluate_runs, run_names

    runs = list(runs)
    if baseline is not None and str(baseline) not in {str(r) for r in runs}:
        runs = [baseline, *runs]
    names = _two_runs(run_names(runs))  # the same file twice is compared with itself: the second copy is name#2
    base_name = names[[str(r) for r in runs].index(str(baseline))] if baseline is not None else names[0]
    policies = (settings or Settings()).but(missing_queries="zero")  # every qrels query counts
    specs = () if adapter is None else (adapter,) if isinstance(adapter, str) else tuple(adapter)
    job = Job((*measures, *also), specs, policies, engine=engine)
    evaluations: dict[str, Evaluation] = {}
    for name, one in zip(names, evaluate_runs(qrels, [str(r) for r in runs], job), strict=True):
        if one.error is not None:
            raise one.error
        assert one.evaluation is not None
        if on_note is not None:
            for note in one.notes:
                on_note(note)
        evaluations[name] = one.evaluation
    paths = dict(zip(names, (str(r) for r in runs), strict=True))
    compared = None if not also else _compared(evaluations[base_name], measures)
    result = compare_evaluations(evaluations, base_name, statistics=statistics, sources=paths, columns=compared)
    result.evaluations = evaluations
    return result


def _two_runs(names: list[str]) -> list[str]:
    """``names`` when they are at least two: the baseline and a run to compare with it."""
    if len(names) < 2:
        raise ParameterError(
            f"The 'runs' parameter must name at least two runs to compare (the baseline among them). Got "
            f"{', '.join(map(repr, names)) or 'none'} instead."
        )
    return names


def _compared(ev: Evaluation, measures: Sequence[str]) -> list[str]:
    """The result columns of ``ev`` that ``measures`` ask for (not those only in ``also``)."""
    from segeval.core.pipeline import plan

    wanted = set()
    for documents in (False, True):  # the measures of either kind; a kind that refuses them adds none
        try:  # (segment measures on documents: report -m maisp on segment runs was refused)
            wanted |= {r.measure for r in plan(documents, list(measures)).requests}
        except SegevalError:
            continue
    return [r.name for r in ev.requests if r.measure in wanted and r.measure.family.aggregator != "none"]


def compare_evaluations(
    evaluations: dict[str, Evaluation],
    baseline: str,
    *,
    statistics: Statistics = DEFAULT_STATISTICS,
    sources: dict[str, str] | None = None,
    columns: Sequence[str] | None = None,
) -> Comparison:
    """:func:`compare_runs` on evaluations by run name (made with ``missing_queries="zero"``)."""
    names = list(evaluations)
    if baseline not in evaluations:
        raise ParameterError(
            f"The 'baseline' parameter must be one of the runs ({', '.join(names)}). Got {baseline!r} instead."
        )
    _two_runs(names)
    paths = sources or {n: n for n in names}
    first = next(iter(evaluations.values()))
    if columns is None:
        columns = [r.name for r in first.requests if r.measure.family.aggregator != "none"]
    columns = list(columns)
    queries = list(first.queries)
    _check_paired(evaluations, columns, queries, paths)
    result = Comparison(names, columns, baseline, statistics, len(queries), files=dict(paths))
    result.notes.append(
        f"queries paired on all {plural(len(queries), 'qrels query', 'qrels queries')}; a query "
        f"missing from a run scores 0"
    )
    result.adapters = list(dict.fromkeys(r.adapter.spec for r in first.requests if r.adapter is not None))
    for n, ev in evaluations.items():  # the notes eval gives each run (values above 1, ...)
        result.notes += [unprefixed(x) for x in for_run(n, ev.notes)]
    result.cells = {n: {m: Cell(float(ev.summary[m])) for m in columns} for n, ev in evaluations.items()}
    tested = (
        [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        if statistics.all_pairs
        else [(baseline, n) for n in names if n != baseline]
    )
    few = len(queries) < stats.MIN_QUERIES
    result.pairs = _tested(evaluations, tested, result, few)
    result.notes += _method_notes(result, len(tested), few)
    by_name = {r.name: r for r in first.requests}
    pooled = [m for m in columns if m in by_name and by_name[m].measure.family.aggregator == "pooled"]
    if pooled:
        result.notes.append(
            f"{', '.join(pooled)}: each run's value is the figure on every query's trials pooled, "
            f"not a mean over queries; the differences, intervals and p-values are over the "
            f"per-query values"
        )
    corrected = stats.correct([x.p for x in result.pairs], str(statistics.correction))  # resolved when made
    for pair, p in zip(result.pairs, corrected, strict=True):
        pair.p, pair.significant = p, p < statistics.alpha
    if not statistics.all_pairs:  # each run's cell holds its comparison with the baseline
        for pair in result.pairs:
            result.cells[pair.b][pair.measure] = Cell(
                result.cells[pair.b][pair.measure].mean, pair.diff, pair.ci, pair.p, pair.significant
            )
        result.pairs = []
    return result


def _check_paired(
    evaluations: dict[str, Evaluation], columns: list[str], queries: list[str], paths: dict[str, str]
) -> None:
    """Every run evaluated on the same queries, with a finite value of every column on each."""
    names = list(evaluations)
    for n, ev in evaluations.items():
        if ev.queries != queries:
            raise ParameterError(
                f"The runs must be evaluated on the same queries. Got "
                f"{plural(len(ev.queries), 'query', 'queries')} for "
                f"{n!r} and {len(queries)} for {names[0]!r} instead."
            )
        for m in columns:
            values = np.asarray(ev.per_query[m], dtype=float)
            bad = np.flatnonzero(~np.isfinite(values))
            if len(bad):
                raise InputError(
                    paths[n],
                    f"run {n!r} has no number for measure {m!r} on query "
                    f"{queries[int(bad[0])]!r} ({values[int(bad[0])]}); a paired test needs "
                    f"one for every query",
                )


def _tested(
    evaluations: dict[str, Evaluation], pairs: list[tuple[str, str]], result: Comparison, few: bool
) -> list[Pair]:
    """Each pair of runs on each measure of ``result``: mean difference, bootstrap interval, uncorrected p-value."""
    options, columns = result.statistics, result.measures
    test, permutations, seed = options.test, options.permutations, options.seed
    queries = list(next(iter(evaluations.values())).queries)
    scores = {n: {m: np.asarray(ev.per_query[m], dtype=float) for m in columns} for n, ev in evaluations.items()}
    names = list(evaluations)
    tukey = (
        {m: stats.tukey_p_values([scores[n][m] for n in names]) for m in columns} if test == "tukey" and not few else {}
    )
    out: list[Pair] = []
    for runs in pairs:
        for m in columns:
            a, b = scores[runs[0]][m], scores[runs[1]][m]
            ci = None if few else stats.bootstrap_ci(a, b, samples=permutations, seed=seed, runs=runs, queries=queries)
            if test == "tukey":
                p = 1.0 if few else float(tukey[m][names.index(runs[0]), names.index(runs[1])])
            else:
                p = stats.p_value(a, b, test, permutations=permutations, seed=seed, runs=runs, queries=queries)
            out.append(Pair(*runs, m, float(np.mean(b - a)), ci, p))
    return out


def _method_notes(result: Comparison, pairs: int, few: bool) -> list[str]:
    """What the p-values and intervals of ``result`` are (its test, correction, resampling)."""
    options = result.statistics
    notes: list[str] = []
    cells = pairs * len(result.measures)
    what = "run pair x measure" if options.all_pairs else "run x measure"
    if few:
        notes.append(
            f"only {result.queries} query: no paired test or interval is possible; every p is 1 and "
            f"no difference is marked significant"
        )
    notes.append(stats.describe_test(options.test, options.permutations, options.seed))
    if options.test in stats.ADJUSTED_TESTS:
        notes.append(
            f"no further correction: {options.test} adjusts over the {plural(pairs, 'pair')} of runs of each measure"
        )
    elif options.correction == "none":
        notes.append(f"p-values not corrected for the {plural(cells, 'comparison')} ({what} cells)")
    else:
        each = f"{plural(pairs, 'pair' if options.all_pairs else 'run')} x {plural(len(result.measures), 'measure')}"
        each += "" if options.all_pairs else " against the baseline"
        notes.append(f"{options.correction} correction over all {plural(cells, what + ' cell')} ({each})")
    if not few:
        resamples, comparisons = plural(options.permutations, "resample"), plural(cells, "comparison")
        notes.append(
            f"intervals: 95% percentile bootstrap of the mean difference ({resamples}, seed "
            f"{options.seed}), each at its own 95% level: not adjusted for the {comparisons}"
        )
    return notes


def format_p(p: float) -> str:
    """A p-value with 4 decimals; below 0.0001 as ``<0.0001`` (never ``0.0000``)."""
    return "<0.0001" if p < 0.0001 else f"={p:.4f}"


def cell_text(c: Cell | Pair) -> str:
    """``mean (difference [interval] p)`` of a run against the baseline, ``difference [interval] p`` of a pair."""
    if c.diff is None:
        assert isinstance(c, Cell)
        return f"{c.mean:.4f}"
    assert c.p is not None
    diff = round(c.diff, 4) + 0.0  # no "-0.0000"
    interval = ""
    if c.ci is not None:
        low, high = (round(v, 4) + 0.0 for v in c.ci)
        interval = f" [{low:+.4f}, {high:+.4f}]"
    tested = f"{diff:+.4f}{interval} p{format_p(c.p)}{'*' if c.significant else ''}"
    return tested if isinstance(c, Pair) else f"{c.mean:.4f} ({tested})"


def _long_table(result: Comparison) -> tuple[list[str], list[list[Any]]]:
    """The rows of ``-o csv``: per run (or pair) and measure."""
    rows: list[list[Any]] = []
    if result.statistics.all_pairs:
        for x in result.pairs:
            means = (result.cells[x.a][x.measure].mean, result.cells[x.b][x.measure].mean)
            rows.append([x.a, x.b, x.measure, *means, x.diff, *(x.ci or (None, None)), x.p, int(x.significant)])
        return ["run_a", "run_b", "measure", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p", "significant"], rows
    for n in result.runs:
        for m, c in result.cells[n].items():
            rows.append(
                [n, result.files.get(n, ""), m, c.mean, c.diff, *(c.ci or (None, None)), c.p, int(c.significant)]
            )
    return ["run", "file", "measure", "mean", "diff", "ci_low", "ci_high", "p", "significant"], rows


def _grids(result: Comparison) -> list[tuple[list[str], list[list[str]]]]:
    """The tables of ``text`` and ``markdown``: runs x measures, and with ``all_pairs`` pairs x measures."""
    all_pairs = result.statistics.all_pairs
    marked = {n: n + (" (baseline)" if n == result.baseline and not all_pairs else "") for n in result.runs}
    rows = [[marked[n], *[cell_text(c) for c in result.cells[n].values()]] for n in result.runs]
    grids = [(["run", *result.measures], rows)]
    if all_pairs:
        cell = {(x.a, x.b, x.measure): x for x in result.pairs}
        pairs = list(dict.fromkeys((x.a, x.b) for x in result.pairs))
        rows = [[f"{b} - {a}", *[cell_text(cell[a, b, m]) for m in result.measures]] for a, b in pairs]
        grids.append((["pair (b - a)", *result.measures], rows))
    return grids


def _latex(result: Comparison) -> str:
    """ranx's compact table: the best mean bold, the letters of the runs it beats as a superscript."""
    from string import ascii_letters

    from segeval.reports.escaping import latex

    if len(result.runs) > len(ascii_letters):
        raise ParameterError(
            f"The 'output' parameter latex names runs by the letters a-z, A-Z: at most "
            f"{plural(len(ascii_letters), 'run')}. Got {plural(len(result.runs), 'run')} instead "
            f"(-o csv has them all)."
        )
    letter = dict(zip(result.runs, ascii_letters, strict=False))
    if result.statistics.all_pairs:
        tested = [(x.a, x.b, x.measure, x.significant) for x in result.pairs]
    else:
        tested = [(result.baseline, n, m, c.significant) for n in result.runs for m, c in result.cells[n].items()]
    beats: set[tuple[str, str, str]] = set()  # (better run, worse run, measure)
    for a_run, b_run, m, significant in tested:
        a, b = result.cells[a_run][m].mean, result.cells[b_run][m].mean
        if significant and a != b:
            beats.add((b_run, a_run, m) if b > a else (a_run, b_run, m))
    rows: list[list[Any]] = [[letter[n], n] for n in result.runs]
    for m in result.measures:
        best = max(float(f"{result.cells[n][m].mean:.4f}") for n in result.runs)
        for row, n in zip(rows, result.runs, strict=True):
            shown = f"{result.cells[n][m].mean:.4f}"
            sup = "".join(letter[r] for r in result.runs if (n, r, m) in beats)
            bold = rf"\textbf{{{shown}}}" if float(shown) == best else shown
            row.append(tables.Latex(bold + (f"$^{{{sup}}}$" if sup else "")))
    against = "every other run" if result.statistics.all_pairs else f"the baseline ({letter[result.baseline]}) only"
    correction = (
        ""
        if result.statistics.correction == "none" or result.statistics.test in stats.ADJUSTED_TESTS
        else f", {result.statistics.correction} correction"
    )
    caption = tables.Latex(
        f"Each measure over {plural(result.queries, 'query', 'queries')}; the best in bold. A superscript "
        f"gives the letters of the runs that the run is significantly better than, tested against {against} "
        f"({latex(stats.TEST_NAMES[result.statistics.test])}{correction}, $p < {result.statistics.alpha:g}$)."
    )
    return tables.render([("#", ""), ("run", ""), *((m, "") for m in result.measures)], rows, "latex", caption)


def render(result: Comparison, fmt: str = "text") -> str:
    """The comparison table in ``fmt`` (text, markdown, latex, csv, json)."""
    what = (
        "difference b - a [95% bootstrap interval] p"
        if result.statistics.all_pairs
        else "mean (difference to the baseline [95% bootstrap interval] p)"
    )
    legend = (
        f"adapter: {', '.join(result.adapters) or 'none'}; test: {result.statistics.test}, correction: "
        f"{result.statistics.correction}, * p < {result.statistics.alpha}; cells: {what}"
    )
    if fmt == "json":
        options = result.statistics
        doc: dict[str, Any] = {"runs": result.runs, "measures": result.measures, "baseline": result.baseline}
        doc |= {"test": options.test, "correction": options.correction, "alpha": options.alpha}
        doc |= {"queries": result.queries, "notes": result.notes, "permutations": options.permutations}
        doc |= {"seed": options.seed, "adapters": result.adapters, "files": result.files}
        doc["cells"] = {n: {m: asdict(c) for m, c in row.items()} for n, row in result.cells.items()}
        if result.statistics.all_pairs:
            doc["pairs"] = [asdict(x) for x in result.pairs]
        return json_text(doc) + "\n"
    if fmt == "csv":
        header, table = _long_table(result)
        return tables.render([(h, "") for h in header], table, "csv")
    grids = _grids(result)
    if fmt == "markdown":
        return (
            "\n".join(tables.render([(h, "") for h in header], rows, fmt) for header, rows in grids)
            + f"\n{markdown(legend)}; {'; '.join(markdown(n) for n in result.notes)}\n"
        )
    if fmt == "latex":
        return _latex(result) + "".join(
            f"% {printable(line)}\n" for line in [legend, *(f"note: {n}" for n in result.notes)]
        )
    blocks = []
    for header, rows in grids:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        blocks.append(
            "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows])
        )
    return "\n\n".join(blocks) + f"\n\n{legend}\n" + "".join(f"note: {n}\n" for n in result.notes)
