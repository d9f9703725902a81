"""segeval's measures as ir_measures measures (``ir_measures.define``) for ``calc_aggregate``, ``iter_calc`` and
PyTerrier: docs/api.md, "segeval.measure"."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from segeval.core.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd


class Unevaluated(float):
    """ir_measures' value (0) for a query segeval did not evaluate: left out of segeval's aggregate."""


class Aggregator(list[float]):
    """ir_measures' aggregator (``add``, ``result``): the measure's segeval aggregate of the evaluated queries."""

    def __init__(self, how: Any) -> None:
        super().__init__()
        self.how = how

    def add(self, value: float) -> None:
        if not isinstance(value, Unevaluated):
            self.append(value)

    def result(self) -> Any:
        from segeval.core.aggregate import aggregate

        return aggregate(self, self.how)


def measure(name: str, adapter: str | None = None, **settings: Any) -> Any:
    """An ir_measures measure computing segeval's ``name`` (one measure) with ``adapter`` (default ``exact``) and
    :class:`segeval.Settings`' fields as keywords, named ``segeval:name[adapter,settings]`` (docs/api.md)."""
    try:
        import ir_measures
    except ImportError:
        raise ParameterError(
            "segeval.measure needs ir_measures installed (pip install ir-measures). Got no ir_measures instead."
        ) from None
    from segeval.adapters.registry import make_adapter
    from segeval.core.settings import DEFAULTS, settings_of
    from segeval.measures.definitions import expand

    found = expand(name)
    if len(found) != 1:
        raise ParameterError(
            f"The 'name' parameter must name one measure (ir_measures computes one value per "
            f"measure). Got {name!r}, a name of several measures, instead."
        )
    (m,) = found
    if m.family.aggregator in ("none", "pooled") or m.family.scope == "trials":
        raise ParameterError(
            f"The 'name' parameter must name a measure with a number per query that its "
            f"aggregate combines (ir_measures adds per-query values). Got {name!r} instead."
        )
    chosen = settings_of(settings.pop("settings", None)).but(**settings)
    labeller = make_adapter(adapter if adapter is not None else "exact", chosen)
    segments = labeller.name != "exact"
    shown = [f"adapter={labeller.spec}"] * segments + [
        f"{f.name}={getattr(chosen, f.name)!r}"
        for f in fields(chosen)
        if getattr(chosen, f.name) != getattr(DEFAULTS, f.name)
    ]
    ir_name = f"segeval:{m.name}" + (f"[{','.join(shown)}]" if shown else "")

    def values(qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[tuple[str, float]]:
        from segeval.core.pipeline import evaluate

        ev = evaluate(qrels, run, [name], adapter=labeller, settings=chosen)
        (key,) = ev.per_query
        for query, value in zip(ev.queries, ev.per_query[key], strict=True):
            yield str(query), float(value)

    item = ["doc_id", "start", "end"] if segments else ["doc_id"]
    out = ir_measures.define(
        values,
        name=ir_name,
        support_cutoff=False,
        run_inputs=["query_id", *item, "score"],
        qrel_inputs=["query_id", *item, "relevance"],
        pretty_name=ir_name,
        short_desc=m.family.description,
    )
    out.DEFAULT = Unevaluated(0.0)
    out.aggregator = lambda: Aggregator(m.family.aggregator)
    return out
