"""The measure stage: apply each requested measure to each query's adapted labels or segments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from segeval.adapters.base import Adapted, Adapter
from segeval.core.errors import ParameterError
from segeval.measures.batch import Batch
from segeval.measures.declaration import Measure
from segeval.measures.definitions import resolve

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared
    from segeval.measures.segments import QuerySegments
    from segeval.measures.trials import Trials


@dataclass(frozen=True)
class Request:
    """A measure to report under ``name``; label measures name the adapter that labels for them."""

    name: str
    measure: Measure
    adapter: Adapter | None = None


def requests(names: Sequence[str], adapters: Sequence[Adapter]) -> list[Request]:
    """Label measures once per adapter (name + adapter suffix); segment measures once."""
    out: list[Request] = []
    wanted = resolve(names)  # each measure once; the first family.params wins, as in trec_eval
    leveled = [m.name for m in wanted if m.level is not None]
    segment = [a.spec for a in adapters if a.name != "exact"]
    if leveled and segment:  # a segment adapter merges the relevant segments at the run's level
        raise ParameterError(
            f"The 'measure' parameter's rel=N (ir_measures' per-measure relevance level) applies "
            f"to the exact adapter (documents); a segment adapter takes the level as -l N "
            f"(relevance_level). Got {leveled[0]} with the {segment[0]} adapter instead."
        )
    for adapter in adapters:
        out += [Request(m.name + adapter.suffix, m, adapter) for m in wanted if m.family.scope == "labels"]
    out += [Request(m.name, m, None) for m in wanted if m.family.scope != "labels"]
    return out


def compute(
    data: Prepared,
    adapted: Mapping[str, Sequence[Adapted]],
    reqs: Sequence[Request],
    emptied: Mapping[str, Sequence[int]] | None = None,
) -> dict[str, list[Any]]:
    """Per-query values: ``result[request.name][q]`` for the q-th query of ``data.queries``; the queries
    ``emptied`` (by adapter spec: ``-J`` dropped every result) take :meth:`Measure.on_empty`."""
    segments: list[QuerySegments] | None = None
    trials: list[Trials] | None = None
    batches: dict[str, Batch] = {}
    result: dict[str, list[Any]] = {}
    for r in reqs:
        if r.measure.family.scope == "labels":
            if r.adapter is None:
                raise ValueError(f"measure {r.name} needs an adapter")
            per_query = adapted[r.adapter.spec]
            values = None
            if r.measure.batchable:  # the vectorised form: same values, all queries at once
                if r.adapter.spec not in batches:
                    from segeval.adapters.labelled import Labelled  # not on import: the fast lanes have their batch

                    batches[r.adapter.spec] = (
                        per_query.batch if isinstance(per_query, Labelled) else Batch.of(per_query)
                    )  # an adapter's batch, or -J's lists
                values = r.measure.batch(batches[r.adapter.spec])
            elif r.measure.family.batch is not None:  # the batch form, the measure's options applied first
                values = r.measure.values(per_query)
            result[r.name] = values if values is not None else [r.measure(a) for a in per_query]
            if emptied and r.measure.family.empty is not None:
                for q in emptied.get(r.adapter.spec, ()):
                    result[r.name][q] = r.measure.on_empty(per_query[q].num_rel)
        elif r.measure.family.scope == "trials":
            from segeval.measures.trials import Pooled, query_trials

            if trials is None:
                trials = query_trials(data)
            result[r.name] = [
                Pooled(r.measure(t), t, r.measure) if r.measure.family.aggregator == "pooled" else r.measure(t)
                for t in trials
            ]
        else:
            if segments is None:
                from segeval.measures.segments import query_segments

                segments = query_segments(data)
            result[r.name] = [r.measure(s) for s in segments]
    return result


def batched(batch: Batch, reqs: Sequence[Request]) -> dict[str, list[Any]] | None:
    """Every request's per-query values over ``batch``, by request name; None when one has no batch form."""
    out: dict[str, list[Any]] = {}
    for r in reqs:
        values = r.measure.batch(batch)
        if values is None:
            return None
        out[r.name] = values
    return out
