"""``evaluate()``: read → validate → prepare → adapt → measure → aggregate, on one screen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from segeval.adapt import (
    Adapter,
    BinnedAdapter,
    ExactAdapter,
    OverlapAdapter,
    OverlapOnceAdapter,
    TiouAdapter,
    ToleranceAdapter,
)
from segeval.adapt.base import judged_only as only_judged
from segeval.aggregate import aggregate
from segeval.errors import ParameterError, check_choice, check_int
from segeval.measures.compute import Request, compute, requests
from segeval.measures.definitions import TREC_EVAL_9
from segeval.notes import value_notes
from segeval.prepare import ORDERS, default_order, prepare
from segeval.read import predicted_mask, read_qrels, read_run
from segeval.validate import is_documents, validate_qrels, validate_run


@dataclass
class Evaluation:
    """Per-query values and aggregates of the requested measures."""

    queries: list[str]
    requests: list[Request]
    per_query: dict[str, list[Any]]
    summary: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    #: qrels queries that were not evaluated (no results, or not selected)
    unevaluated: list[str] = field(default_factory=list)

    def frame(self) -> pd.DataFrame:
        """Per-query values as a wide DataFrame (queries × measures)."""
        return pd.DataFrame(self.per_query, index=pd.Index(self.queries, name="query"))

    def long(self) -> pd.DataFrame:
        """Per-query values as a long DataFrame with columns query, measure, value."""
        rows = [(qid, r.name, self.per_query[r.name][i])
                for i, qid in enumerate(self.queries) for r in self.requests if r.measure.family.per_query]
        return pd.DataFrame(rows, columns=["query", "measure", "value"])


def evaluate(
    qrels: pd.DataFrame | str | Path,
    run: pd.DataFrame | str | Path,
    measures: Sequence[str] | Sequence[Request] = ("official",),
    adapters: Sequence[Adapter] | None = None,
    *,
    adapter: Adapter | str | None = None,
    qrels_format: str = "auto",
    run_format: str = "auto",
    time_format: str = "mmss",
    queries: Sequence[str] | None = None,
    order: str | None = None,
    relevance_level: int = 1,
    missing_queries: str = "skip",
    max_results: int | None = None,
    judged_only: bool = False,
    trec_eval: str = "10",
    predicted: str = "use",
) -> Evaluation:
    """Evaluate a run against qrels.

    ``measures`` are names or sets (``official``, ``all_trec``; label measures are
    computed once per adapter, named with the adapter's suffix) or prepared
    :class:`Request` objects.  ``adapter`` (an :class:`Adapter` or a name such as
    ``"binned:60"``) or ``adapters`` choose the relevance adapters; by default
    ``exact`` for document runs and ``overlap`` for segment runs.  ``order``
    defaults to ``"score"`` for document runs (trec_eval) and ``"rank"`` for
    segment runs (the MediaEval reference).  Files are
    read in ``qrels_format``/``run_format`` (names of ``segeval.read.QRELS_FORMATS``
    and ``RUN_FORMATS``, or ``"auto"``).  ``queries`` and ``order`` are the
    policies of :func:`segeval.prepare.prepare`, as are ``relevance_level``,
    ``missing_queries`` and ``max_results``; ``judged_only`` drops unjudged results
    after adaptation (trec_eval ``-J``).  ``trec_eval="9"`` reproduces 9.0.8 (which
    pytrec_eval wraps): scores rounded to 32-bit floats before ordering.  ``predicted``
    says what to do with classifier-predicted lines of completed qrels: ``use`` them (a
    note counts them) or ``ignore`` them.
    """
    q = validate_qrels(qrels if isinstance(qrels, pd.DataFrame) else read_qrels(qrels, qrels_format, time_format))
    r = validate_run(run if isinstance(run, pd.DataFrame) else read_run(run, run_format, time_format))
    how = plan(is_documents(r), measures, adapters, adapter=adapter, queries=queries, order=order,
               relevance_level=relevance_level, missing_queries=missing_queries, max_results=max_results,
               judged_only=judged_only, trec_eval=trec_eval, predicted=predicted)
    return finish(q, how, *evaluate_part(q, r, how, queries))


@dataclass(frozen=True)
class Plan:
    """What :func:`evaluate` resolved from its parameters: the requests and the policies."""

    requests: list[Request]
    queries: list[str] | None
    order: str
    relevance_level: int
    missing_queries: str
    max_results: int | None
    judged_only: bool
    trec_eval: str
    predicted: str = "use"


def plan(
    documents: bool,
    measures: Sequence[str] | Sequence[Request] = ("official",),
    adapters: Sequence[Adapter] | None = None,
    *,
    adapter: Adapter | str | None = None,
    queries: Sequence[str] | None = None,
    order: str | None = None,
    relevance_level: int = 1,
    missing_queries: str = "skip",
    max_results: int | None = None,
    judged_only: bool = False,
    trec_eval: str = "10",
    predicted: str = "use",
) -> Plan:
    """Resolve :func:`evaluate`'s parameters for a document (or segment) run."""
    if adapters is None:
        chosen = adapter if adapter is not None else ("exact" if documents else "overlap")
        adapters = [make_adapter(chosen) if isinstance(chosen, str) else chosen]
    elif adapter is not None:
        raise ParameterError("The 'adapter' and 'adapters' parameters cannot both be given.")
    if order is None:
        order = default_order(documents)
    check_choice("trec_eval", trec_eval, ("9", "10"))
    check_choice("order", order, ORDERS)
    check_choice("missing_queries", missing_queries, ("skip", "zero"))
    check_choice("predicted", predicted, ("use", "ignore"))
    if max_results is not None:
        check_int("max_results", max_results, minimum=1)
    reqs = [m for m in measures if isinstance(m, Request)] or requests([str(m) for m in measures], adapters)
    if trec_eval == "9":
        reqs = [replace(x, measure=replace(x.measure, family=TREC_EVAL_9[x.measure.family.name]))
                if x.measure.family.name in TREC_EVAL_9 else x for x in reqs]
    return Plan(reqs, None if queries is None else list(queries), order, relevance_level, missing_queries,
                max_results, judged_only, trec_eval, predicted)


def evaluate_part(q: pd.DataFrame, r: pd.DataFrame, how: Plan, queries: Sequence[str] | None = None,
                  missing_queries: str | None = None) -> tuple[list[str], dict[str, list[Any]]]:
    """Per-query values of validated qrels and run: (queries, values by request name).

    ``queries`` and ``missing_queries`` (default: the plan's) select the queries as in
    :func:`segeval.prepare.prepare`.  Queries are independent, so evaluating a run in parts
    (each query's rows and qrels in one part) gives the same values as evaluating it whole.
    """
    if how.predicted == "ignore":
        q = _predicted_lines(q, how.predicted)[0]
    if how.trec_eval == "9":  # 9.0.8 stores scores as C floats: near-equal scores become ties
        r = r.assign(score=r["score"].to_numpy().astype(np.float32).astype(np.float64))
    data = prepare(q, r, queries=queries, order=how.order, relevance_level=how.relevance_level,
                   missing_queries=missing_queries or how.missing_queries, max_results=how.max_results)
    used = {x.adapter.spec: x.adapter for x in how.requests if x.adapter is not None}  # tiou:0.5 != tiou:0.9
    adapted = {name: adapter.adapt(data) for name, adapter in used.items()}
    if how.judged_only:
        adapted = {name: [only_judged(a) for a in per_query] for name, per_query in adapted.items()}
    return data.queries, compute(data, adapted, how.requests)


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
    summary = {x.name: aggregate(per_query[x.name], x.measure.aggregate) for x in reqs}
    lines, predicted_note = _predicted_lines(q, how.predicted)
    if how.missing_queries == "zero":  # trec_eval -c: num_rel sums every qrels line with rel > 0, whatever -l
        if how.queries is not None:
            lines = lines[lines["query"].isin(how.queries)]
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


ADAPTER_HELP = ("exact, overlap, overlap-once, binned[:B[:start]], tolerance[:T], "
                "tiou[:theta[:strict][:float32]]")


def make_adapter(spec: str) -> Adapter:
    """An adapter from its name: ``exact``, ``overlap``, ``overlap-once``, ``binned[:B[:start]]``,
    ``tolerance[:T]`` or ``tiou[:theta[:strict][:float32]]``."""
    name, *args = spec.split(":")
    fixed: dict[str, type[ExactAdapter] | type[OverlapAdapter] | type[OverlapOnceAdapter]] = {
        "exact": ExactAdapter, "overlap": OverlapAdapter, "overlap-once": OverlapOnceAdapter}
    try:
        if name in fixed and not args:
            return fixed[name]()
        if name == "binned" and len(args) <= 2 and (len(args) < 2 or args[1] in ("start", "span")):
            return BinnedAdapter(int(args[0]) if args else 300, args[1] if len(args) == 2 else "span")
        if name == "tolerance" and len(args) <= 1:
            return ToleranceAdapter(int(args[0]) if args else 15)
        flags = args[1:]
        if name == "tiou" and flags in ([], ["strict"], ["float32"], ["strict", "float32"]):
            return TiouAdapter(float(args[0]) if args else 0.5, strict="strict" in flags, float32="float32" in flags)
    except ValueError:
        pass
    raise ParameterError(f"The 'adapter' parameter must be one of {ADAPTER_HELP}. Got {spec!r} instead.")


def me13sh_adapters(bin_size: int = 300, tolerance: int = 15) -> list[Adapter]:
    """The reference's three adapters, in its report order."""
    return [OverlapAdapter(), BinnedAdapter(bin_size), ToleranceAdapter(tolerance)]
