"""What a job computes, without pandas: its :class:`Plan`, values (:func:`measured`), evaluation (:func:`finished`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from segeval.adapters import ExactAdapter
from segeval.adapters.base import Adapted, Adapter
from segeval.adapters.base import judged_only as only_judged
from segeval.adapters.registry import check_run_kind, default_adapter, make_adapters
from segeval.core.errors import ParameterError, shown
from segeval.core.evaluation import Evaluation, summaries
from segeval.core.notes import evidence, evidence_notes, value_notes
from segeval.core.settings import DEFAULT_ADAPTER, DEFAULT_MEASURES, Job, Settings, settings_of
from segeval.measures.compute import Request, compute, requests
from segeval.measures.definitions import TREC_EVAL_9, for_trec_eval

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared


@dataclass(frozen=True)
class Plan:
    """What :func:`evaluate` resolved: the requests, the settings with the kind's order, the default adapter."""

    requests: list[Request]
    settings: Settings
    default: str | None = None


def plan(
    documents: bool,
    measures: object = DEFAULT_MEASURES,
    adapters: object = None,
    *,
    adapter: object = None,
    settings: Settings | None = None,
    rel_info: str = "qrels",
    **policies: Any,
) -> Plan:
    """Resolve :func:`evaluate`'s parameters for a document (or segment) run; ``policies`` override ``settings``'
    fields, ``rel_info`` is the judgements' format (``-R``)."""
    chosen = settings_of(settings).but(**policies)
    made = adapters_of(adapters, adapter, chosen)
    default = DEFAULT_ADAPTER["segments"] if made is None and not documents else None
    used = made or [default_adapter(documents, chosen)]
    names = measure_names(measures)
    # the measure set of the trec_eval version (9.0.8: its sets, no measure new in 10) and its definitions
    reqs = [m for m in names if isinstance(m, Request)] or requests(
        for_trec_eval([str(m) for m in names], chosen.trec_eval), used
    )
    check_run_kind(used, documents)
    timed = [x.name for x in reqs if x.measure.family.times]
    if documents and timed:
        raise ParameterError(
            f"The 'measures' parameter must name measures of document runs: {', '.join(timed)} "
            f"{'needs' if len(timed) == 1 else 'need'} time spans (segment runs: video, start, end). "
            f"Got a document run instead."
        )
    _check_subtopics(documents, reqs)
    check_rel_info(reqs, rel_info)
    trials = [x.name for x in reqs if x.measure.family.scope == "trials"]
    if not documents and trials:
        raise ParameterError(
            f"The 'measures' parameter must name measures of segment runs: {', '.join(trials)} "
            f"{'scores' if len(trials) == 1 else 'score'} (query, utterance) trials (a QUESST key or "
            f"TREC qrels, and an STD list or TREC run), not time spans. Got a segment run instead."
        )
    if chosen.trec_eval == "9":
        reqs = [
            replace(x, measure=replace(x.measure, family=TREC_EVAL_9[x.measure.family.name]))
            if x.measure.family.name in TREC_EVAL_9
            else x
            for x in reqs
        ]
    return Plan(reqs, replace(chosen, order=chosen.order_for(documents)), default)


def adapters_of(adapters: object, adapter: object, settings: Settings | None = None) -> list[Adapter] | None:
    """The adapters ``adapters`` or ``adapter`` give (a spec, an adapter, or a list of them; None: neither is given),
    else a ParameterError (both given: which one is meant?)."""
    if adapters is not None and adapter is not None:
        raise ParameterError("The 'adapter' and 'adapters' parameters cannot both be given.")
    given = adapters if adapters is not None else adapter
    return None if given is None else make_adapters(given, settings)  # type: ignore[arg-type]


def job_plan(job: Job, documents: bool) -> Plan:
    """The :class:`Plan` of ``job`` for a document (or segment) run."""
    return plan(documents, list(job.measures), adapters=list(job.adapters) or None, settings=job.settings)


#: the judgement formats (trec_eval's -R) each measure scope reads; every other scope reads qrels
REL_INFO = {"groups": ("qrels_jg",), "prefs": ("prefs", "qrels_prefs")}


def check_rel_info(measures: object, rel_info: str) -> None:
    """A ParameterError unless every measure (what :func:`plan` takes) reads ``rel_info`` judgements (-R)."""
    reqs = _exact_requests(measures)
    wrong = [x for x in reqs if rel_info not in REL_INFO.get(x.measure.family.scope, ("qrels",))]
    if wrong:
        raise ParameterError(
            f"The 'measures' parameter must name measures of {rel_info} judgements (-R {rel_info}); {wrong[0].name} "
            f"reads {' or '.join(REL_INFO.get(wrong[0].measure.family.scope, ('qrels',)))} (-R). Got "
            f"{', '.join(x.name for x in wrong[:3])}{', ...' if len(wrong) > 3 else ''} instead."
        )


def _check_subtopics(documents: bool, reqs: Sequence[Request]) -> None:
    """The diversity measures read subtopic qrels of documents, judged by the exact adapter, and alone."""
    wanted = [x.name for x in reqs if x.measure.family.subtopics]
    if not wanted:
        return
    labelled = [x.adapter.spec for x in reqs if x.adapter is not None and not isinstance(x.adapter, ExactAdapter)]
    if not documents or labelled:
        why = f"the {labelled[0]} adapter" if labelled else "a segment run"
        raise ParameterError(
            f"The 'measures' parameter's diversity measures ({', '.join(wanted)}) read subtopic qrels of documents "
            f"(qid subtopic docno rel) judged by the exact adapter; a segment has no subtopic label. Got {why} instead."
        )
    others = [x.name for x in reqs if not x.measure.family.subtopics]
    if others:
        raise ParameterError(
            f"The 'measures' parameter must name the diversity measures ({', '.join(wanted)}) without other measures: "
            "their qrels judge a document once per subtopic; evaluate "
            f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''} in another call. Got both instead."
        )


def reads_subtopics(measures: object) -> bool:
    """Whether ``measures`` (what :func:`plan` takes) name a diversity measure (the qrels are then read with their
    subtopic column); a bad name is reported here, before the qrels are read."""
    return any(x.measure.family.subtopics for x in _exact_requests(measures))


def _exact_requests(measures: object) -> list[Request]:
    """The requests of ``measures`` (what :func:`plan` takes) under the exact adapter."""
    names = measure_names(measures)
    return [m for m in names if isinstance(m, Request)] or requests([str(m) for m in names], [ExactAdapter()])


def measure_names(measures: object) -> list[str] | list[Request]:
    """``measures`` as a list of names (or of :class:`Request` objects); a ParameterError for anything else."""
    if isinstance(measures, str | Request) or _is_ir_measure(measures):
        measures = [measures]
    if isinstance(measures, Sequence):
        items = list(measures)
        if all(isinstance(m, Request) for m in items):
            return items
        if all(isinstance(m, str) or _is_ir_measure(m) for m in items):
            return [str(m) for m in items]
    raise ParameterError(
        f"The 'measures' parameter must be a measure name such as 'map' or 'P_10', a set such as "
        f"'official', or a non-empty list of them. Got {shown(measures)} instead."
    )


def _is_ir_measure(x: object) -> bool:
    return type(x).__module__.split(".")[0] == "ir_measures"


def emptied(before: Sequence[Sized], after: Sequence[Sized], trec_eval: str) -> list[int]:
    """The queries whose ranking trec_eval sees as empty (num_ret 0) under ``-J`` (docs/trec_eval-semantics.md)."""
    return [
        q
        for q, (b, a) in enumerate(zip(before, after, strict=True))
        if len(a) == 0 and (len(b) > 0 or trec_eval != "9")
    ]


def measured(data: Prepared, how: Plan) -> dict[str, list[Any]]:
    """Per-query values (by request name) of prepared inputs, and the evidence for the notes."""
    used = {x.adapter.spec: x.adapter for x in how.requests if x.adapter is not None}  # tiou:0.5 != tiou:0.9
    adapted: Mapping[str, Sequence[Adapted]] = {name: adapter.adapt(data) for name, adapter in used.items()}
    gone: dict[str, list[int]] = {}
    if how.settings.judged_only:
        judged = {name: [only_judged(a) for a in per_query] for name, per_query in adapted.items()}
        gone = {name: emptied(adapted[name], judged[name], how.settings.trec_eval) for name in adapted}
        adapted = judged
    return compute(data, adapted, how.requests, gone) | evidence(data, adapted, how.settings.time_format, how.default)


def finished(
    how: Plan,
    queries: list[str],
    per_query: dict[str, list[Any]],
    qrels_queries: set[str],
    relevant_lines: int,
    notes: Sequence[str] = (),
) -> Evaluation:
    """The :class:`Evaluation` of per-query values: aggregates, notes, and the qrels queries not evaluated."""
    reqs = how.requests
    names = {x.name for x in reqs}
    found = {k: v for k, v in per_query.items() if k not in names}
    per_query = {k: v for k, v in per_query.items() if k in names}
    summary = summaries(reqs, per_query)
    if how.settings.missing_queries == "zero":
        for x in reqs:
            if x.measure.name == "num_rel" and isinstance(x.adapter, ExactAdapter):
                summary[x.name] = relevant_lines
    return Evaluation(
        queries,
        reqs,
        per_query,
        summary,
        [*notes, *evidence_notes(queries, found, how.default), *value_notes(queries, reqs, per_query)],
        sorted(qrels_queries - set(queries)),
    )
