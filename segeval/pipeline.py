"""``evaluate()``: read → validate → prepare → adapt → measure → aggregate, on one screen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from segeval.adapt import ExactAdapter
from segeval.adapt.base import Adapted
from segeval.adapt.base import judged_only as only_judged
from segeval.adapt.registry import ADAPTER_HELP as ADAPTER_HELP
from segeval.adapt.registry import make_adapter as make_adapter
from segeval.adapt.registry import make_adapters
from segeval.adapt.registry import me13sh_adapters as me13sh_adapters
from segeval.errors import ParameterError
from segeval.evaluation import Evaluation as Evaluation  # named here for readers of evaluate's results
from segeval.evaluation import summaries
from segeval.inmemory import QrelsIndex, evaluate_in_memory, in_lane
from segeval.io.frames import load_qrels, load_run
from segeval.io.tables import predicted_mask
from segeval.measures.compute import Request, compute, requests
from segeval.measures.definitions import TREC_EVAL_9, for_trec_eval
from segeval.notes import value_notes
from segeval.prepare import prepare
from segeval.settings import DEFAULT_ADAPTER, DEFAULT_MEASURES, Settings, kind, settings_of
from segeval.validate import is_documents, validate_qrels, validate_run


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
    """Evaluate a run against qrels.

    ``qrels`` and ``run`` are file paths, or tables in any shape :mod:`segeval.io.frames` accepts
    (segeval's, ir_measures' and ranx's DataFrames, dicts of dicts, their Qrels and Run objects).
    ``measures`` is a name, a set (``official``, ``all_trec``) or a list of them; label measures are
    computed once per adapter, named with the adapter's suffix.  ``adapter`` (an :class:`Adapter`
    or a name such as ``"binned:60"``) or ``adapters`` (one or a list) choose the relevance
    adapters; by default ``exact`` for document runs and ``overlap`` for segment runs.  Files are
    read in ``qrels_format``/``run_format`` (names of ``segeval.io.formats.QRELS_FORMATS`` and
    ``RUN_FORMATS``, or ``"auto"``).  The policies are a :class:`~segeval.settings.Settings`
    (``settings``); the keyword arguments named after its fields override it (None: as in
    ``settings``).
    """
    chosen = settings_of(settings).but(
        time_format=time_format, queries=queries, order=order, relevance_level=relevance_level,
        missing_queries=missing_queries, max_results=max_results, judged_only=judged_only, trec_eval=trec_eval,
        predicted=predicted)
    evaluator = Evaluator(qrels, measures, chosen, adapters=adapters, adapter=adapter, qrels_format=qrels_format)
    return evaluator.evaluate(run, run_format=run_format)


class Evaluator:
    """Qrels read and checked once, and the measures and settings to evaluate any number of runs with.

    ``Evaluator(qrels, "map", Settings(...)).evaluate(run)`` gives the :class:`Evaluation` that
    :func:`evaluate` gives for the same arguments; ``qrels`` and each run are what
    :func:`evaluate` accepts.  Document runs in memory take :mod:`segeval.inmemory` when they can
    (the qrels are indexed on the first one, then kept).
    """

    def __init__(self, qrels: object, measures: object = DEFAULT_MEASURES,
                 settings: Settings | dict[str, Any] | None = None, *, adapters: object = None,
                 adapter: object = None, qrels_format: str = "auto") -> None:
        self.settings = settings_of(settings)
        if adapters is not None and adapter is not None:
            raise ParameterError("The 'adapter' and 'adapters' parameters cannot both be given.")
        self.measures = measure_names(measures)
        self.adapters = None if adapters is None and adapter is None else \
            make_adapters(adapters if adapters is not None else adapter, self.settings)  # type: ignore[arg-type]
        self.qrels = validate_qrels(load_qrels(qrels, qrels_format, self.settings.time_format))
        self._plans: dict[bool, Plan] = {}
        self._documents = is_documents(self.qrels)
        self.plan(self._documents)  # a bad measure is reported before any run is read
        self._index: QrelsIndex | None = None  # made by the first in-memory document run (if _indexed)
        self._indexed = False

    def plan(self, documents: bool) -> Plan:
        """The requests and policies for a document (or segment) run, made once per kind."""
        if documents not in self._plans:
            self._plans[documents] = plan(documents, self.measures, self.adapters, settings=self.settings)
        return self._plans[documents]

    def evaluate(self, run: object, *, run_format: str = "auto") -> Evaluation:
        """The :class:`Evaluation` of one run (a path or a table, as :func:`evaluate` takes); its ``route``
        says how it was read: ``frame+whole`` (a run given in memory) or ``table+whole`` (a file)."""
        if self._documents and isinstance(run, pd.DataFrame | Mapping):  # documents in memory: codes, one batch
            how = self.plan(True)
            if in_lane(how.requests, how.settings.order_for(True), how.settings.judged_only):
                if not self._indexed:
                    self._indexed = True
                    self._index = QrelsIndex.of(self.qrels if how.settings.predicted != "ignore"
                                                else _predicted_lines(self.qrels, how.settings.predicted)[0])
                done = None if self._index is None else evaluate_in_memory(self._index, run, how.requests, how.settings)
                if done is not None:
                    return replace(finish(self.qrels, how, *done), route="frame+whole")
        r = validate_run(load_run(run, run_format, self.settings.time_format))
        how = self.plan(is_documents(r))
        read = "table" if isinstance(run, str | Path) else "frame"
        return replace(evaluate_validated(self.qrels, r, how), route=f"{read}+whole")


@dataclass(frozen=True)
class Plan:
    """What :func:`evaluate` resolved from its parameters: the requests, and the settings with the
    run kind's order (never None)."""

    requests: list[Request]
    settings: Settings


def plan(
    documents: bool,
    measures: object = DEFAULT_MEASURES,
    adapters: object = None,
    *,
    adapter: object = None,
    settings: Settings | None = None,
    **policies: Any,
) -> Plan:
    """Resolve :func:`evaluate`'s parameters for a document (or segment) run; ``policies`` are
    fields of :class:`Settings` that override ``settings`` (None: as in ``settings``)."""
    chosen = settings_of(settings).but(**policies)
    if adapters is None:
        given = adapter if adapter is not None else DEFAULT_ADAPTER[kind(documents)]
        adapters = [make_adapter(given, chosen)]  # type: ignore[arg-type]
    elif adapter is not None:
        raise ParameterError("The 'adapter' and 'adapters' parameters cannot both be given.")
    else:
        adapters = make_adapters(adapters, chosen)  # type: ignore[arg-type]
    names = measure_names(measures)
    # the measure set of the trec_eval version (9.0.8: its sets, no measure new in 10) and its definitions
    reqs = [m for m in names if isinstance(m, Request)] or requests(
        for_trec_eval([str(m) for m in names], chosen.trec_eval), adapters)
    timed = [x.name for x in reqs if x.measure.family.times]
    if documents and timed:
        raise ParameterError(f"The 'measures' parameter must name measures of document runs: {', '.join(timed)} "
                             f"{'needs' if len(timed) == 1 else 'need'} time spans (segment runs: video, start, end). "
                             f"Got a document run instead.")
    if chosen.trec_eval == "9":
        reqs = [replace(x, measure=replace(x.measure, family=TREC_EVAL_9[x.measure.family.name]))
                if x.measure.family.name in TREC_EVAL_9 else x for x in reqs]
    return Plan(reqs, replace(chosen, order=chosen.order_for(documents)))


def measure_names(measures: object) -> list[str] | list[Request]:
    """``measures`` as a list: one name (or an ir_measures measure object), a list of them, or prepared
    :class:`Request` objects; a ParameterError for anything else."""
    if isinstance(measures, str | Request) or _is_ir_measure(measures):
        measures = [measures]
    if isinstance(measures, Sequence):
        items = list(measures)
        if all(isinstance(m, Request) for m in items):
            return items
        if all(isinstance(m, str) or _is_ir_measure(m) for m in items):
            return [str(m) for m in items]
    raise ParameterError(f"The 'measures' parameter must be a measure name such as 'map' or 'P_10', a set such as "
                         f"'official', or a non-empty list of them. Got {measures!r} instead.")


def _is_ir_measure(x: object) -> bool:
    return type(x).__module__.split(".")[0] == "ir_measures"


def evaluate_part(q: pd.DataFrame, r: pd.DataFrame, how: Plan, queries: Sequence[str] | None = None,
                  missing_queries: str | None = None) -> tuple[list[str], dict[str, list[Any]]]:
    """Per-query values of validated qrels and run: (queries, values by request name).

    ``queries`` and ``missing_queries`` (default: the plan's) select the queries as in
    :func:`segeval.prepare.prepare`.  Queries are independent, so evaluating a run in parts
    (each query's rows and qrels in one part) gives the same values as evaluating it whole.
    """
    if how.settings.predicted == "ignore":
        q = _predicted_lines(q, how.settings.predicted)[0]
    if how.settings.trec_eval == "9":  # 9.0.8 stores scores as C floats: near-equal scores become ties
        r = r.assign(score=r["score"].to_numpy().astype(np.float32).astype(np.float64))
    s = how.settings
    data = prepare(q, r, queries=queries, order=s.order, relevance_level=s.relevance_level,
                   missing_queries=missing_queries or s.missing_queries, max_results=s.max_results)
    used = {x.adapter.spec: x.adapter for x in how.requests if x.adapter is not None}  # tiou:0.5 != tiou:0.9
    adapted: Mapping[str, Sequence[Adapted]] = {name: adapter.adapt(data) for name, adapter in used.items()}
    gone: dict[str, list[int]] = {}
    if how.settings.judged_only:
        judged = {name: [only_judged(a) for a in per_query] for name, per_query in adapted.items()}
        gone = {name: emptied(adapted[name], judged[name], s.trec_eval) for name in adapted}
        adapted = judged
    return data.queries, compute(data, adapted, how.requests, gone)


def emptied(before: Sequence[Sized], after: Sequence[Sized], trec_eval: str) -> list[int]:
    """The queries whose ranking trec_eval sees as empty (num_ret 0) under ``-J``: those ``-J`` left
    without a result.  A query ``-c`` adds (in the qrels, not in the run) counts too in trec_eval 10,
    which ranks one unjudged dummy document for it and drops that as well; 9.0.8 averages such a query
    in as 0 without evaluating it.  ``before``/``after``: each query's ranking before and after ``-J``."""
    return [q for q, (b, a) in enumerate(zip(before, after, strict=True))
            if len(a) == 0 and (len(b) > 0 or trec_eval != "9")]


def evaluate_validated(q: pd.DataFrame, r: pd.DataFrame, how: Plan) -> Evaluation:
    """The :class:`Evaluation` of validated qrels and run as ``how`` says (the qrels are not checked again)."""
    return finish(q, how, *evaluate_part(q, r, how, how.settings.queries))


def merge_parts(parts: Sequence[tuple[list[str], dict[str, list[Any]]]],
                how: Plan) -> tuple[list[str], dict[str, list[Any]]]:
    """Per-query values of disjoint parts, in query order (as one :func:`evaluate_part` would give)."""
    where = sorted((qid, k, i) for k, (qs, _) in enumerate(parts) for i, qid in enumerate(qs))
    names = [x.name for x in how.requests]
    return ([qid for qid, _, _ in where],
            {name: [parts[k][1][name][i] for _, k, i in where] for name in names})


def finish(q: pd.DataFrame, how: Plan, queries: list[str], per_query: dict[str, list[Any]]) -> Evaluation:
    """The :class:`Evaluation` of per-query values: aggregates, notes and unevaluated queries."""
    reqs = how.requests
    summary = summaries(reqs, per_query)
    lines, predicted_note = _predicted_lines(q, how.settings.predicted)
    if how.settings.missing_queries == "zero":  # trec_eval -c: num_rel sums every qrels line with rel > 0, whatever -l
        if how.settings.queries is not None:
            lines = lines[lines["query"].isin(how.settings.queries)]
        for x in reqs:
            if x.measure.name == "num_rel" and isinstance(x.adapter, ExactAdapter):
                summary[x.name] = int((lines["rel"].to_numpy() > 0).sum())
    notes = [predicted_note] if predicted_note else []
    notes += value_notes(queries, reqs, per_query)
    unevaluated = sorted(set(q["query"].unique()) - set(queries))
    return Evaluation(queries, reqs, per_query, summary, notes, unevaluated)


def _predicted_lines(qrels: pd.DataFrame, policy: str) -> tuple[pd.DataFrame, str]:
    """Completed qrels with their predicted lines used or dropped, and a note saying which."""
    mask = predicted_mask(qrels)
    if not mask.any():
        return qrels, ""
    counts = qrels["source"][mask].value_counts().sort_index()
    which = ", ".join(f"{name} {n}" for name, n in counts.items())
    if policy == "ignore":
        return qrels[~mask].reset_index(drop=True), (
            f"note: {int(mask.sum())} predicted qrels lines ({which}) are left out (--predicted ignore)")
    return qrels, (f"note: {int(mask.sum())} of {len(qrels)} qrels lines are predicted by a classifier ({which}), "
                   f"not judged by assessors (--predicted ignore leaves them out)")
