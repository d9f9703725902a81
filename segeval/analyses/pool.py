"""Pool analysis and pool bias (Buttcher et al., SIGIR 2007; docs/pool-bias.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.adapters.registry import check_run_kind, default_adapter
from segeval.analyses import correlate
from segeval.analyses.stats import p_value
from segeval.core.domains import CUTOFF, PROPORTION
from segeval.core.errors import InputError, ParameterError, check_choice, shown
from segeval.core.limits import check_count
from segeval.core.notes import for_run
from segeval.core.pipeline import evaluate, make_adapter
from segeval.core.settings import DEFAULTS
from segeval.executors.progress import Progress
from segeval.readers.from_tables import prepare
from segeval.readers.run_groups import read_groups
from segeval.readers.validate import is_documents
from segeval.reports.tables import Column

if TYPE_CHECKING:
    from segeval.adapters.base import Adapted
    from segeval.core.prepared import Prepared

DEFAULT_MEASURES = ("map", "P_20", "bpref")

Item = tuple[str, str | int]  # (query, document) or, for segments, (query, qrels line number)


def judged_items(qrels: pd.DataFrame) -> list[Item]:
    """Each qrels line's item: (query, document), or (query, line number) for segment qrels."""
    column = qrels["item"] if is_documents(qrels) else qrels["line"].astype(int)
    return list(zip(qrels["query"].tolist(), column.tolist(), strict=True))


def top_results(
    qrels: pd.DataFrame, run: pd.DataFrame, depth: int, adapter: str | None = None
) -> tuple[Prepared, npt.NDArray[Any], npt.NDArray[Any], Sequence[Adapted]]:
    """The run's top ``depth`` per qrels query prepared with the qrels, its queries, items and labels."""
    documents = is_documents(qrels)
    data = prepare(qrels, run, order=DEFAULTS.order_for(documents), max_results=depth, missing_queries="zero")
    queries = np.asarray(data.queries, dtype=object)[data.run["qcode"].to_numpy()]
    items = data.items[data.run["icode"].to_numpy()]
    chosen = make_adapter(adapter) if adapter else default_adapter(documents)
    check_run_kind([chosen], documents)
    return data, queries, items, [] if documents else chosen.adapt(data)


def top_items(qrels: pd.DataFrame, run: pd.DataFrame, depth: int, adapter: str | None = None) -> set[Item]:
    """The judged items (documents, or qrels segments the adapter matched) in the run's top ``depth`` per query."""
    data, queries, items, adapted = top_results(qrels, run, depth, adapter)
    if is_documents(qrels):
        return set(zip(queries.tolist(), items.tolist(), strict=True))
    lines = data.qrels["line"].to_numpy()
    return {(data.queries[k], int(lines[r])) for k, a in enumerate(adapted) for r in a.match_rows}


@dataclass
class Pool:
    """Judged top-``depth`` contributions of runs and groups."""

    depth: int
    runs: dict[str, set[Item]]
    groups: dict[str, set[Item]]
    unique: dict[str, set[Item]]
    relevant: set[Item] = field(default_factory=set)

    def tables(self) -> dict[str, tuple[Sequence[Column], Sequence[Sequence[Any]]]]:
        """``pool``'s tables: per run its judged and relevant items in the top depth; per group also its unique
        judged and relevant items (groups default to one per run)."""
        runs = [[name, len(items), len(items & self.relevant)] for name, items in sorted(self.runs.items())]
        groups = [
            [g, len(items), len(items & self.relevant), len(self.unique[g]), len(self.unique[g] & self.relevant)]
            for g, items in sorted(self.groups.items())
        ]
        return {
            "runs": ([("run", ""), ("judged", ""), ("relevant", "")], runs),
            "groups": ([(c, "") for c in ("group", "judged", "relevant", "unique_judged", "unique_relevant")], groups),
        }


def contributions(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame],
    depth: int,
    groups: Mapping[str, str] | None = None,
    adapter: str | None = None,
) -> Pool:
    """Each run's and group's judged items in the top ``depth``; groups default to one per run."""
    CUTOFF.check("depth", depth)
    keys = judged_items(qrels)
    judged = set(keys)
    relevant = {k for k, rel in zip(keys, qrels["rel"].to_numpy() > 0, strict=True) if rel}
    group_of = dict(groups) if groups else {name: name for name in runs}
    missing = sorted(set(runs) - set(group_of))
    if missing:
        raise ParameterError(f"The 'groups' parameter must name every run. Got no group for {', '.join(missing)}.")
    per_run = {name: top_items(qrels, run, depth, adapter) & judged for name, run in runs.items()}
    per_group: dict[str, set[Item]] = {}
    for name, items in per_run.items():
        per_group.setdefault(group_of[name], set()).update(items)
    unique = {
        g: items - set().union(*(other for h, other in per_group.items() if h != g)) for g, items in per_group.items()
    }
    return Pool(depth, per_run, per_group, unique, relevant)


RMS_RUNS = ("left-out", "all")
#: pool-bias's table: each column's name and number format (rms_error: the left-out runs', rms_error_left_out)
BIAS_COLUMNS: list[Column] = [
    ("measure", ""),
    ("mean_abs_rank_change", ".3f"),
    ("max_down", ""),
    ("max_up", ""),
    ("rms_error", ".4f"),
    ("significant_share", ".3f"),
    ("kendall_tau", ".4f"),
    ("mean_error", "+.4f"),
    ("rms_error_all", ".4f"),
]
#: incompleteness's table (its data frame's columns): each column's name and number format
INCOMPLETENESS_COLUMNS: list[Column] = [
    ("measure", ""),
    ("fraction", "g"),
    ("mean_score", ".4f"),
    ("kendall_tau", ".4f"),
    ("min_kendall_tau", ".4f"),
]


@dataclass
class BiasRow:
    """The paper's Table 2 statistics for one measure; ``rms_error`` is one of the two variants (``rms_runs``)."""

    measure: str
    mean_abs_rank_change: float
    max_down: int
    max_up: int
    rms_error: float
    significant_share: float
    kendall_tau: float
    mean_error: float = 0.0  # signed: reduced minus full score of the left-out runs, averaged
    rms_error_left_out: float = 0.0
    rms_error_all: float = 0.0

    def cells(self) -> list[Any]:
        """The row of :data:`BIAS_COLUMNS`."""
        return [getattr(self, "rms_error_left_out" if name == "rms_error" else name) for name, _ in BIAS_COLUMNS]


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Each run's rank, 1 + the number of runs with a strictly higher score (tied runs share a rank)."""
    values = np.asarray(list(scores.values()), dtype=np.float64)
    return {n: 1 + int(np.count_nonzero(values > v)) for n, v in zip(scores, values.tolist(), strict=True)}


def run_aliases(name: str) -> tuple[str, str]:
    """What a groups file or --leave-out-runs may call a run file: its name, or its name without extensions."""
    return name, name.split(".", 1)[0]


def groups_for(path: str, names: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Group and type of each run (by display name), read from the groups file ``path``."""
    lines: dict[str, tuple[int, str]] = {}
    group_of, type_of = read_groups(path, lines)
    keys: dict[str, str] = {}  # each run's name in the file
    names = list(names)
    for name in names:
        key = next((a for a in run_aliases(name) if a in group_of), None)
        if key is None:
            raise InputError(
                path,
                f"has no line for run '{name}'; expected 'run group [type]' for every run "
                f"(its name as segeval shows it: the file name, with folders when files share a "
                f"name; or that without extensions)",
            )
        keys[name] = key
    for key in sorted(set(group_of) - set(keys.values()), key=lambda k: lines[k][0]):
        given = ", ".join(sorted(names))
        raise InputError(
            path,
            f"names run '{key}', which is not among the runs given ({given}); expected a line "
            f"for each run given and no other (file name, or file name without extensions)",
            line=lines[key][0],
            text=lines[key][1],
        )
    return {n: group_of[k] for n, k in keys.items()}, {n: type_of[k] for n, k in keys.items() if k in type_of}


def runs_left_out(spec: str, names: Iterable[str], type_of: Mapping[str, str]) -> set[str]:
    """The runs of ``--leave-out-runs`` (``RUN,RUN`` or ``type:T``); a ParameterError unless each matches a run."""
    if spec.startswith("type:"):
        found = [{n for n, t in type_of.items() if t == spec[5:]}]
    else:
        found = [{n for n in names if x in run_aliases(n)} for x in spec.split(",") if x]
    if not found or not all(found):
        raise ParameterError(f"The 'leave_out_runs' parameter must name runs given. Got {shown(spec)} instead.")
    return set().union(*found)


def rms(errors: Sequence[float]) -> float:
    """The paper's equation 3: sqrt(1/N * sum (o_i - n_i)^2) over the given differences (0.0 for none)."""
    return math.sqrt(sum(e * e for e in errors) / len(errors)) if len(errors) else 0.0


def _scores(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame],
    measures: Sequence[str],
    adapter: str | None,
    queries: list[str],
    on_note: Callable[[str], object] | None = None,
) -> tuple[dict[str, dict[str, list[float]]], dict[str, list[float]]]:
    """Per run and measure, the per-query scores over ``queries``, and per measure each run's mean in name order;
    ``on_note`` gets each run's notes."""
    out: dict[str, dict[str, list[float]]] = {}
    for n, r in runs.items():
        ev = evaluate(qrels, r, list(measures), adapter=adapter, missing_queries="zero", queries=queries)
        out[n] = {m: list(v) for m, v in ev.per_query.items()}
        if on_note is not None:
            for note in for_run(n, ev.notes):
                on_note(note)
    names = sorted(runs)
    return out, {m: [float(np.mean(out[n][m])) for n in names] for m in out[names[0]]}


def reduce_qrels(qrels: pd.DataFrame, fraction: float, rng: np.random.Generator) -> pd.DataFrame:
    """A uniform random subset of each query's judgements: round(fraction * n) of its n lines, at least one."""
    keep = np.zeros(len(qrels), dtype=bool)
    for rows in qrels.groupby("query", sort=True, observed=True).indices.values():
        k = max(1, int(np.floor(fraction * len(rows) + 0.5)))
        keep[rng.choice(rows, size=min(k, len(rows)), replace=False)] = True
    return qrels.loc[keep].reset_index(drop=True)


def incompleteness(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame],
    measures: Sequence[str] = DEFAULT_MEASURES,
    fractions: Sequence[float] = (1.0, 0.8, 0.6, 0.4, 0.2, 0.1, 0.05),
    repeats: int = 10,
    seed: int = 0,
    adapter: str | None = None,
    quiet: bool = True,
    on_note: Callable[[str], object] | None = None,
) -> pd.DataFrame:
    """Random, unbiased reductions of the qrels: mean score and Kendall's tau per measure and fraction."""
    check_count("repeats", repeats)
    for f in fractions:
        PROPORTION.check("fractions", f)
    if len(runs) < 2:
        raise ParameterError(f"The 'runs' parameter must hold at least 2 runs to rank. Got {len(runs)} instead.")
    queries = sorted(set(qrels["query"]))
    rows = []
    with Progress(1 + len(fractions) * repeats, "qrels evaluated", quiet=quiet) as progress:
        _, full_mean = _scores(qrels, runs, measures, adapter, queries, on_note)
        progress.advance()
        for f in fractions:
            rng = np.random.default_rng((seed, round(float(f) * 1e9)))  # a fraction's reductions: seed and f only
            means: dict[str, list[float]] = {m: [] for m in full_mean}
            taus: dict[str, list[float]] = {m: [] for m in full_mean}
            for _ in range(repeats):
                _, reduced = _scores(reduce_qrels(qrels, float(f), rng), runs, measures, adapter, queries)
                progress.advance()
                for m, red in reduced.items():
                    means[m].append(float(np.mean(red)))
                    taus[m].append(correlate.kendall_tau_ties_agree(full_mean[m], red))
            for m in full_mean:
                rows.append([m, float(f), float(np.mean(means[m])), float(np.mean(taus[m])), float(np.min(taus[m]))])
    return pd.DataFrame(rows, columns=[name for name, _ in INCOMPLETENESS_COLUMNS])


def leave_one_out(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame],
    depth: int,
    groups: Mapping[str, str],
    measures: Sequence[str] = DEFAULT_MEASURES,
    experiments: Mapping[str, set[str]] | None = None,
    adapter: str | None = None,
    quiet: bool = True,
    rms_runs: str = "left-out",
    on_note: Callable[[str], object] | None = None,
) -> list[BiasRow]:
    """Each experiment's unique contribution removed: the paper's Table 2 statistics per measure."""
    check_choice("rms_runs", rms_runs, RMS_RUNS)
    pool = contributions(qrels, runs, depth, groups, adapter)
    if experiments is None:
        experiments = {g: {n for n, h in groups.items() if h == g and n in runs} for g in pool.groups}

    queries = sorted(set(qrels["query"]))
    keys = judged_items(qrels)
    names = sorted(runs)
    with Progress(1 + len(experiments), "qrels evaluated", quiet=quiet) as progress:
        full, full_mean = _scores(qrels, runs, measures, adapter, queries, on_note)
        progress.advance()
        before = {m: ranks(dict(zip(names, v, strict=True))) for m, v in full_mean.items()}
        effects = {m: _Effects() for m in full_mean}
        for _, left_out in sorted(experiments.items()):
            others = set().union(*(pool.runs[n] for n in runs if n not in left_out))
            removed = set().union(*(pool.runs[n] for n in left_out)) - others
            reduced_q = qrels.loc[[k not in removed for k in keys]].reset_index(drop=True)
            reduced, red_mean = _scores(reduced_q, runs, measures, adapter, queries)
            for m, e in effects.items():
                after = ranks(dict(zip(names, red_mean[m], strict=True)))
                for n in sorted(left_out):
                    i = names.index(n)
                    e.moves.append(after[n] - before[m][n])
                    e.errors.append(red_mean[m][i] - full_mean[m][i])
                    e.significant.append(p_value(full[n][m], reduced[n][m], "t") < 0.05)
                e.errors_all += [r - f for f, r in zip(full_mean[m], red_mean[m], strict=True)]
                e.taus.append(correlate.kendall_tau_ties_agree(full_mean[m], red_mean[m]))
            progress.advance()
    return [e.row(m, rms_runs) for m, e in effects.items()]


@dataclass
class _Effects:
    """What leaving the experiments out did to one measure's scores and ranks."""

    moves: list[int] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)
    errors_all: list[float] = field(default_factory=list)
    significant: list[bool] = field(default_factory=list)
    taus: list[float] = field(default_factory=list)

    def row(self, measure: str, rms_runs: str) -> BiasRow:
        mv = np.asarray(self.moves)
        left, every = rms(self.errors), rms(self.errors_all)
        return BiasRow(
            measure,
            float(np.mean(np.abs(mv))) if len(mv) else 0.0,
            int(mv.max(initial=0)),
            int(-mv.min(initial=0)),
            left if rms_runs == "left-out" else every,
            float(np.mean(self.significant)) if self.significant else 0.0,
            float(np.mean(self.taus)) if self.taus else 1.0,
            float(np.mean(self.errors)) if self.errors else 0.0,
            left,
            every,
        )
