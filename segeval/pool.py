"""Pool analysis and pool bias (Buttcher, Clarke, Yeung & Soboroff, SIGIR 2007), for document runs.

* :func:`contributions`: the judged documents each run puts in its top ``depth``, per group the
  union over its runs, and each group's *unique* contribution (judged documents no other group
  has in its top ``depth``), with relevant counts (the paper's Tables 1 and 4).
* :func:`leave_one_out`: for each group (or a chosen set of runs), remove its unique
  contribution from the qrels, re-evaluate every run, and report per measure the paper's
  Table 2: average absolute rank change of the left-out runs, the largest move down and up,
  the RMS error of their scores, the share whose score changed significantly (paired t-test,
  p < 0.05) and Kendall's tau (the paper's 1 - 2 * inversions / pairs: ties agree) between the
  full and reduced rankings of all runs (mean over the experiments).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from segeval.errors import InputError, ParameterError

Item = tuple[str, str]  # (query, document)


def read_groups(path: str | Path) -> tuple[dict[str, str], dict[str, str]]:
    """``run group [type]`` lines: run name -> group, and run name -> type (when given)."""
    from segeval.read import read_bytes

    name = str(path)
    group: dict[str, str] = {}
    kind: dict[str, str] = {}
    for number, raw in enumerate(read_bytes(path).decode("utf-8", "replace").splitlines(), start=1):
        fields = raw.split()
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise InputError(name, f"has {len(fields)} fields; expected 'run group [type]'", line=number, text=raw)
        if fields[0] in group:
            raise InputError(name, f"run '{fields[0]}' appears again; expected each run once", line=number, text=raw)
        group[fields[0]] = fields[1]
        if len(fields) == 3:
            kind[fields[0]] = fields[2]
    return group, kind


def top_items(qrels: pd.DataFrame, run: pd.DataFrame, depth: int) -> set[Item]:
    """The (query, document) pairs of the run's top ``depth`` per query (trec_eval order)."""
    from segeval.prepare import prepare

    data = prepare(qrels, run, order="score", max_results=depth, missing_queries="zero")
    queries = np.asarray(data.queries, dtype=object)[data.run["qcode"].to_numpy()]
    items = data.items[data.run["icode"].to_numpy()]
    return set(zip(queries.tolist(), items.tolist(), strict=True))


@dataclass
class Pool:
    """Judged top-``depth`` contributions of runs and groups."""

    depth: int
    runs: dict[str, set[Item]]
    groups: dict[str, set[Item]]
    unique: dict[str, set[Item]]
    relevant: set[Item] = field(default_factory=set)

    def table(self) -> pd.DataFrame:
        """Per group: runs, judged and relevant in the top depth, and unique judged and relevant."""
        rows = []
        for g in sorted(self.groups):
            rows.append({"group": g, "judged": len(self.groups[g]), "relevant": len(self.groups[g] & self.relevant),
                         "unique_judged": len(self.unique[g]), "unique_relevant": len(self.unique[g] & self.relevant)})
        return pd.DataFrame(rows)


def contributions(qrels: pd.DataFrame, runs: Mapping[str, pd.DataFrame], depth: int,
                  groups: Mapping[str, str] | None = None) -> Pool:
    """Each run's and group's judged documents in the top ``depth``; groups default to one per run."""
    if depth < 1:
        raise ParameterError(f"The 'depth' parameter must be an integer >= 1. Got {depth} instead.")
    judged = set(zip(qrels["query"].tolist(), qrels["item"].tolist(), strict=True))
    relevant = set(zip(qrels.loc[qrels["rel"] > 0, "query"].tolist(), qrels.loc[qrels["rel"] > 0, "item"].tolist(),
                       strict=True))
    group_of = dict(groups) if groups else {name: name for name in runs}
    missing = sorted(set(runs) - set(group_of))
    if missing:
        raise ParameterError(f"The 'groups' parameter must name every run. Got no group for {', '.join(missing)}.")
    per_run = {name: top_items(qrels, run, depth) & judged for name, run in runs.items()}
    per_group: dict[str, set[Item]] = {}
    for name, items in per_run.items():
        per_group.setdefault(group_of[name], set()).update(items)
    unique = {g: items - set().union(*(other for h, other in per_group.items() if h != g))
              for g, items in per_group.items()}
    return Pool(depth, per_run, per_group, unique, relevant)


@dataclass
class BiasRow:
    """The paper's Table 2 statistics for one measure."""

    measure: str
    mean_abs_rank_change: float
    max_down: int
    max_up: int
    rms_error: float
    significant_share: float
    kendall_tau: float


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    order = sorted(scores, key=lambda n: (-scores[n], n))  # 1 = best; ties by name
    return {n: i + 1 for i, n in enumerate(order)}


def leave_one_out(qrels: pd.DataFrame, runs: Mapping[str, pd.DataFrame], depth: int, groups: Mapping[str, str],
                  measures: Sequence[str] = ("map", "P_20", "bpref"),
                  experiments: Mapping[str, set[str]] | None = None, adapter: str | None = None) -> list[BiasRow]:
    """Remove each experiment's unique contribution (default: one experiment per group, leaving its
    runs out) and compare the reduced evaluation with the full one (``adapter``: as in evaluate)."""
    from segeval import correlate
    from segeval.pipeline import evaluate
    from segeval.stats import p_value

    pool = contributions(qrels, runs, depth, groups)
    if experiments is None:
        experiments = {g: {n for n, h in groups.items() if h == g and n in runs} for g in pool.groups}

    def scores(q: pd.DataFrame) -> dict[str, dict[str, list[float]]]:
        out: dict[str, dict[str, list[float]]] = {}
        for n, r in runs.items():
            ev = evaluate(q, r, list(measures), adapter=adapter, missing_queries="zero",
                          queries=sorted(set(qrels["query"])))
            out[n] = {m: list(v) for m, v in ev.per_query.items()}
        return out

    full = scores(qrels)
    names = sorted(runs)
    moves: dict[str, list[int]] = {m: [] for m in full[names[0]]}
    errors: dict[str, list[float]] = {m: [] for m in moves}
    significant: dict[str, list[bool]] = {m: [] for m in moves}
    taus: dict[str, list[float]] = {m: [] for m in moves}
    for _, left_out in sorted(experiments.items()):
        others = set().union(*(pool.runs[n] for n in runs if n not in left_out))
        removed = set().union(*(pool.runs[n] for n in left_out)) - others
        keep = [(q, d) not in removed for q, d in zip(qrels["query"], qrels["item"], strict=True)]
        reduced_q = qrels.loc[keep].reset_index(drop=True)
        reduced = scores(reduced_q)
        for m in moves:
            full_mean = {n: float(np.mean(full[n][m])) for n in names}
            red_mean = {n: float(np.mean(reduced[n][m])) for n in names}
            before, after = _ranks(full_mean), _ranks(red_mean)
            for n in sorted(left_out):
                moves[m].append(after[n] - before[n])
                errors[m].append(red_mean[n] - full_mean[n])
                significant[m].append(p_value(full[n][m], reduced[n][m], "t") < 0.05)
            taus[m].append(correlate.kendall_tau_ties_agree([full_mean[n] for n in names],
                                                            [red_mean[n] for n in names]))
    rows = []
    for m in moves:
        mv = np.asarray(moves[m])
        rows.append(BiasRow(m, float(np.mean(np.abs(mv))) if len(mv) else 0.0, int(mv.max(initial=0)),
                            int(-mv.min(initial=0)), float(np.sqrt(np.mean(np.square(errors[m])))) if errors[m]
                            else 0.0, float(np.mean(significant[m])) if significant[m] else 0.0,
                            float(np.mean(taus[m])) if taus[m] else 1.0))
    return rows
