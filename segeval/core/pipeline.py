"""``evaluate()``: read → validate → prepare → adapt → measure → aggregate, on one screen."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from segeval.adapters.registry import make_adapter as make_adapter
from segeval.core.evaluation import Evaluation as Evaluation  # named here for readers of evaluate's results
from segeval.core.ordering import stored_scores
from segeval.core.plan import Plan, adapters_of, finished, measured, reads_subtopics
from segeval.core.plan import measure_names as measure_names
from segeval.core.plan import plan as plan
from segeval.core.prepared import chosen_queries
from segeval.core.settings import DEFAULT_MEASURES, Settings, settings_of
from segeval.measures.compute import Request
from segeval.readers.frames import check_segment_columns, load_qrels, load_run
from segeval.readers.from_frames import CodedQrels, frame_prepared
from segeval.readers.from_tables import prepare
from segeval.readers.tables import predicted_mask
from segeval.readers.validate import check_trials, is_documents, validate_qrels, validate_run
from segeval.reports.trec import TREC_ORDER


def evaluate(
    qrels: object,
    run: object,
    measures: object = DEFAULT_MEASURES,
    adapters: object = None,
    *,
    adapter: object = None,
    settings: Settings | dict[str, Any] | None = None,
    qrels_format: str = "auto",
    run_format: str = "auto",
    time_format: str | None = None,
    queries: Sequence[str] | None = None,
    order: str | None = None,
    relevance_level: int | None = None,
    missing_queries: str | None = None,
    max_results: int | None = None,
    judged_only: bool | None = None,
    trec_eval: str | None = None,
    predicted: str | None = None,
) -> Evaluation:
    """Evaluate a run against qrels."""
    chosen = settings_of(settings).but(
        time_format=time_format,
        queries=queries,
        order=order,
        relevance_level=relevance_level,
        missing_queries=missing_queries,
        max_results=max_results,
        judged_only=judged_only,
        trec_eval=trec_eval,
        predicted=predicted,
    )
    check_segment_columns(qrels, run)
    evaluator = Evaluator(qrels, measures, chosen, adapters=adapters, adapter=adapter, qrels_format=qrels_format)
    return evaluator.evaluate(run, run_format=run_format)


class Evaluator:
    """Qrels read and checked once, and the measures and settings to evaluate any number of runs with."""

    def __init__(
        self,
        qrels: object,
        measures: object = DEFAULT_MEASURES,
        settings: Settings | dict[str, Any] | None = None,
        *,
        adapters: object = None,
        adapter: object = None,
        qrels_format: str = "auto",
    ) -> None:
        self.settings = settings_of(settings)
        self.adapters = adapters_of(adapters, adapter, self.settings)
        self.measures = measure_names(measures)
        self.qrels = validate_qrels(
            load_qrels(qrels, qrels_format, self.settings.time_format, reads_subtopics(self.measures))
        )
        self._plans: dict[bool, Plan] = {}
        self._documents = is_documents(self.qrels)
        self.plan(self._documents)  # a bad measure is reported before any run is read
        self._coded: CodedQrels | None = None  # made by the first document run in memory

    def plan(self, documents: bool) -> Plan:
        """The requests and policies for a document (or segment) run, made once per kind."""
        if documents not in self._plans:
            self._plans[documents] = plan(documents, self.measures, self.adapters, settings=self.settings)
        return self._plans[documents]

    def evaluate(self, run: object, *, run_format: str = "auto") -> Evaluation:
        """The :class:`Evaluation` of one run (a path or a table), with its ``route``."""
        how = self.plan(True) if self._documents and isinstance(run, pd.DataFrame | Mapping) else None
        if (
            how
            and how.settings.order_for(True) == "score"
            and all(x.measure.family.scope != "trials" for x in how.requests)
        ):
            if self._coded is None:  # documents in memory: coded (the qrels once)
                self._coded = CodedQrels.of(_predicted_lines(self.qrels, how.settings.predicted)[0])
            data = frame_prepared(self._coded, run, how.settings)
            if data is not None:
                return replace(finish(self.qrels, how, data.queries, measured(data, how)), route="frame+whole")
        r = validate_run(load_run(run, run_format, self.settings.time_format))
        how = self.plan(is_documents(r))
        read = "table" if isinstance(run, str | Path) else "frame"
        return replace(evaluate_validated(self.qrels, r, how), route=f"{read}+whole")


def evaluate_part(
    q: pd.DataFrame, r: pd.DataFrame, how: Plan, queries: Sequence[str] | None = None, missing_queries: str = "skip"
) -> tuple[list[str], dict[str, list[Any]]]:
    """Per-query values of validated qrels and run: (queries, values by request name)."""
    if how.settings.predicted == "ignore":
        q = _predicted_lines(q, how.settings.predicted)[0]
    if how.settings.trec_eval == "9":
        r = r.assign(score=stored_scores(r["score"].to_numpy(dtype=np.float64), "9"))
    s = how.settings
    if any(x.measure.family.scope == "trials" for x in how.requests):
        check_trials(q, r)
    data = prepare(
        q,
        r,
        queries=queries,
        order=s.order,
        relevance_level=s.relevance_level,
        missing_queries=missing_queries,
        max_results=s.max_results,
    )
    return data.queries, measured(data, how)


#: what evaluates a run's rows for some queries: (run, plan, queries, missing_queries) -> (queries, values)
Part = Callable[[pd.DataFrame, Plan, Sequence[str] | None, str], tuple[list[str], dict[str, list[Any]]]]

#: the one document trec_eval 10 ranks for a qrels query without results under ``-c`` (at score 1)
PLACEHOLDER = "ceci_nest_pas_un_docno"


def without_results(
    q: pd.DataFrame, how: Plan, evaluated: Sequence[str], run: pd.DataFrame | None = None, part: Part | None = None
) -> tuple[list[str], dict[str, list[Any]]]:
    """Per-query values of the qrels queries ``-c`` adds to ``evaluated``, as trec_eval 10 evaluates them
    (docs/trec_eval-semantics.md: the placeholder, the leftovers cleared)."""
    wanted = chosen_queries(set(q["query"].unique()), set(), how.settings.queries, "zero")
    missing = sorted(set(wanted) - set(evaluated))
    if not missing or how.settings.trec_eval == "9":
        return missing, {x.name: [_zero(x)] * len(missing) for x in how.requests}
    part = part or partial(evaluate_part, q)
    placed = [x for x in how.requests if is_documents(q) and x.measure.family.name in TREC_ORDER]
    rest = [x for x in how.requests if x not in placed]
    rows = len(missing) if placed else 0
    alone = pd.DataFrame(
        {
            "query": missing[:rows],
            "item": [PLACEHOLDER] * rows,
            "start": np.nan,
            "end": np.nan,
            "jumpin": np.nan,
            "rank": 1,
            "score": 1.0,
            "run": "",
            "line": 0,
        }
    )
    values: dict[str, list[Any]] = {}
    if placed:
        values |= part(alone, replace(how, requests=placed), missing, "zero")[1]
    if rest:  # only QUESST's trials read other queries' results (the run's lowest score)
        whole = run if run is not None and any(x.measure.family.scope == "trials" for x in rest) else None
        names, got = part(
            alone.iloc[:0] if whole is None else whole,
            replace(how, requests=rest),
            missing if whole is None else wanted,
            "zero",
        )
        at = {name: i for i, name in enumerate(names)}
        values |= {k: [v[at[name]] for name in missing] for k, v in got.items()}
    for x in how.requests:
        family, bare = x.measure.family.name, x.measure.param is None
        if family in ("num_ret", "unj") or (bare and family in ("utility", "relstring", "rbp_resid")):
            values[x.name] = [_zero(x)] * len(missing)
    return missing, values


def _zero(x: Request) -> Any:
    """0 in a request's format ('' for text)."""
    return {"count": 0, "text": ""}.get(x.measure.family.fmt, 0.0)


def evaluate_validated(q: pd.DataFrame, r: pd.DataFrame, how: Plan) -> Evaluation:
    """The :class:`Evaluation` of validated qrels and run as ``how`` says (the qrels are not checked again)."""
    return finish(q, how, *evaluate_part(q, r, how, how.settings.queries), run=r)


def merge_parts(
    parts: Sequence[tuple[list[str], dict[str, list[Any]]]], how: Plan
) -> tuple[list[str], dict[str, list[Any]]]:
    """Per-query values of disjoint parts, in query order (as one :func:`evaluate_part` would give)."""
    where = sorted((qid, k, i) for k, (qs, _) in enumerate(parts) for i, qid in enumerate(qs))
    names = [x.name for x in how.requests]
    names += [name for name in dict.fromkeys(n for _, values in parts for n in values) if name not in names]
    return (
        [qid for qid, _, _ in where],  # a part without a value that is not a request's (evidence): None
        {name: [parts[k][1][name][i] if name in parts[k][1] else None for _, k, i in where] for name in names},
    )


def finish(
    q: pd.DataFrame,
    how: Plan,
    queries: list[str],
    per_query: dict[str, list[Any]],
    run: pd.DataFrame | None = None,
    part: Part | None = None,
) -> Evaluation:
    """The :class:`Evaluation` of per-query values, with ``-c`` the queries without results added."""
    added: tuple[list[str], dict[str, list[Any]]] = ([], {})
    if how.settings.missing_queries == "zero":
        added = without_results(q, how, queries, run, part)
        queries, per_query = merge_parts([(queries, per_query), added], how)
    lines, predicted_note = _predicted_lines(q, how.settings.predicted)
    if how.settings.queries is not None:
        lines = lines[lines["query"].isin(how.settings.queries)]
    relevant = int((lines["rel"].to_numpy() > 0).sum())  # trec_eval -c's num_rel: every line with rel > 0
    return replace(
        finished(
            how, queries, per_query, set(q["query"].unique()), relevant, [predicted_note] if predicted_note else []
        ),
        without_results=added[0],
    )


def _predicted_lines(qrels: pd.DataFrame, policy: str) -> tuple[pd.DataFrame, str]:
    """Completed qrels with their predicted lines used or dropped, and a note saying which."""
    mask = predicted_mask(qrels)
    if not mask.any():
        return qrels, ""
    counts = qrels["source"][mask].value_counts().sort_index()
    which = ", ".join(f"{name} {n}" for name, n in counts.items())
    if policy == "ignore":
        return qrels[~mask].reset_index(drop=True), (
            f"note: {int(mask.sum())} predicted qrels lines ({which}) are left out (--predicted ignore)"
        )
    return qrels, (
        f"note: {int(mask.sum())} of {len(qrels)} qrels lines are predicted by a classifier ({which}), "
        f"not judged by assessors (--predicted ignore leaves them out)"
    )
