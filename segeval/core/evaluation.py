"""What an evaluation gives: :class:`Evaluation`, without pandas until a table is asked for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from segeval.core.aggregate import aggregate
from segeval.core.errors import ParameterError, SegevalError
from segeval.core.words import natural_order

if TYPE_CHECKING:
    import pandas as pd

    from segeval.measures.compute import Request


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
    #: qrels queries ``-c`` evaluated without results (:func:`segeval.core.pipeline.without_results`)
    without_results: list[str] = field(default_factory=list)
    #: the reader and executor that computed it (:mod:`segeval.executors.route`), when known
    route: str = ""

    def __getitem__(self, measure: object) -> Any:
        """The summary value of ``measure`` (its name, any spelling of it, an ir_measures object; ``num_q``)."""
        if measure == "num_q":
            return len(self.queries)
        return self.summary[self._key(measure)]

    def __contains__(self, measure: object) -> bool:
        try:
            return measure == "num_q" or self._key(measure) in self.summary
        except SegevalError:
            return False

    def _key(self, measure: object) -> str:
        """The reported name of ``measure`` (a name, a spelling or an ir_measures object) among the summary's."""
        name = str(measure)
        if name in self.summary:
            return name
        from segeval.measures.definitions import ECOSYSTEM, expand

        shown = ", ".join(self.summary)
        try:
            wanted = expand(name)
        except ParameterError:
            why = ECOSYSTEM.missing.get(name)
            why = f" ({name}: {why})" if why else ""
            raise ParameterError(
                f"The 'measure' parameter must be one of the evaluated measures ({shown}) or a "
                f"spelling of one{why}. Got {name!r} instead."
            ) from None
        found = [r.name for r in self.requests if r.measure in wanted and r.name in self.summary]
        if len(found) != 1:
            what = "a name of several of them (a family, or one per adapter)" if found else "not evaluated"
            raise ParameterError(
                f"The 'measure' parameter must be one of the evaluated measures ({shown}). Got "
                f"{name!r}, {what}, instead."
            )
        return found[0]

    def keys(self) -> list[str]:
        """The evaluated measures' names, in report order."""
        return list(self.summary)

    @property
    def _by_query(self) -> list[str]:
        """The names of the requests with a value per query."""
        return [r.name for r in self.requests if r.measure.family.per_query]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Per-query values as pytrec_eval gives them: ``{query: {measure: value}}``, numbers as floats."""
        names = self._by_query
        return {q: {n: _number(self.per_query[n][i]) for n in names} for i, q in enumerate(self.queries)}

    def to_dataframe(self, per_query: bool = False) -> pd.DataFrame:
        """The summary as a one-row DataFrame, or with ``per_query`` :meth:`report`."""
        import pandas as pd

        if per_query:
            return self.report()
        return pd.DataFrame([self.summary], index=pd.Index(["all"], name="query"))

    def frame(self) -> pd.DataFrame:
        """Per-query values as a wide DataFrame (queries × measures), queries in natural order (q2 before q10)."""
        import pandas as pd

        table = pd.DataFrame(self.per_query, index=pd.Index(self.queries, name="query"))
        return table.iloc[natural_order(self.queries)]

    def long(self) -> pd.DataFrame:
        """Per-query values as a long DataFrame with columns query, measure, value (queries in natural order)."""
        import pandas as pd

        names = self._by_query
        rows = [(self.queries[i], n, self.per_query[n][i]) for i in natural_order(self.queries) for n in names]
        return pd.DataFrame(rows, columns=["query", "measure", "value"])

    def report(self) -> pd.DataFrame:
        """The per-query measures as :meth:`frame` gives them, and a last row ``all`` with their summary."""
        table = self.frame()[self._by_query]
        table.loc["all"] = [self.summary[n] for n in self._by_query]
        return table


def _number(value: Any) -> Any:
    """A value as pytrec_eval gives it: a number (a count too) as a float, text as it is."""
    return float(value) if isinstance(value, int | float) else value


def summaries(reqs: Sequence[Request], per_query: dict[str, list[Any]]) -> dict[str, Any]:
    """Each request's aggregate of its per-query values, by request name."""
    return {x.name: aggregate(per_query[x.name], x.measure.family.aggregator) for x in reqs}
