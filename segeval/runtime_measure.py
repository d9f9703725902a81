"""segeval's measures as ir_measures measures (its runtime-definition interface, ``ir_measures.define``), so
that ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and PyTerrier's ``pt.Experiment(eval_metrics=...)``
compute them with segeval's adapters::

    import ir_measures, segeval
    m = segeval.measure("map", adapter="tiou:0.5")
    ir_measures.calc_aggregate([m], qrels, run)   # qrels/run DataFrames: query_id, doc_id (or video), start, end

The measure is evaluated by :func:`segeval.evaluate` on the DataFrames ir_measures passes (one call for
all queries), with the given adapter and settings; ir_measures needs segeval's columns, so a segment
adapter asks for ``start`` and ``end`` too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from segeval.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd


def measure(name: str, adapter: str | None = None, **settings: Any) -> Any:
    """An ir_measures measure computing segeval's ``name`` (one measure: ``map``, ``P@10``, ``P(rel=2)@5``)
    with ``adapter`` (default: ``exact`` for documents) and :func:`segeval.evaluate`'s keyword settings
    (``relevance_level``, ``judged_only``, ``trec_eval``, ...).  Needs ir_measures installed."""
    try:
        import ir_measures
    except ImportError:
        raise ParameterError("segeval.measure needs ir_measures installed (pip install ir-measures). Got "
                             "no ir_measures instead.") from None
    from segeval.adapt.registry import make_adapter
    from segeval.measures.definitions import expand

    found = expand(name)
    if len(found) != 1:
        raise ParameterError(f"The 'name' parameter must name one measure (ir_measures computes one value per "
                             f"measure). Got {name!r}, a name of several measures, instead.")
    chosen = make_adapter(adapter if adapter is not None else "exact")
    segments = chosen.name != "exact"
    ir_name = found[0].name + chosen.suffix  # the name segeval reports it under (map_tiou0.5)

    def values(qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[tuple[str, float]]:
        from segeval.pipeline import evaluate

        ev = evaluate(qrels, run, [name], adapter=chosen, **settings)
        (key,) = ev.per_query
        for query, value in zip(ev.queries, ev.per_query[key], strict=True):
            yield str(query), float(value)

    item = ["doc_id", "start", "end"] if segments else ["doc_id"]
    return ir_measures.define(values, name=ir_name, support_cutoff=False,
                              run_inputs=["query_id", *item, "score"], qrel_inputs=["query_id", *item, "relevance"],
                              pretty_name=ir_name, short_desc=found[0].family.description)
