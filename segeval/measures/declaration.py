"""A measure's declaration (:class:`Family`, its function named by module so that declarations load without
NumPy; :class:`KeyedFamily`, whose parameter is ``key=value`` pairs) and a concrete :class:`Measure`."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Literal

from segeval.core.domains import CUTOFF, REAL, UNIT, Domain, Key
from segeval.core.errors import ParameterError
from segeval.measures import params as P

if TYPE_CHECKING:
    from segeval.measures import batch as B


#: labels: adapted labels; segments: time spans; trials: every key pair with the run's score
#: (:mod:`segeval.measures.trials`); groups, prefs: trec_eval's qrels_jg and prefs (:mod:`segeval.measures.prefs`)
Scope = Literal["labels", "segments", "trials", "groups", "prefs"]
#: pooled: the measure on every query's inputs together, not a function of the per-query values
Aggregate = Literal["sum", "mean", "gm", "none", "pooled"]
Format = Literal["count", "score", "text", "stat"]
#: cutoff, level, reals, gains: trec_eval's parameter kinds (:mod:`segeval.measures.params`);
#: recall: a recall-point position written p/100 (maisp_0.10); raw: a word (adr_tb.standin)
Param = Literal["cutoff", "level", "reals", "gains", "recall", "raw"]


ParamValue = int | float | str | P.Params


@dataclass(frozen=True)
class Deferred:
    """A function named by its module and attribute, imported on its first call."""

    module: str
    name: str

    @cached_property
    def function(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.name)  # type: ignore[no-any-return]

    def __call__(self, *args: Any) -> Any:
        return self.function(*args)

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class Family:
    """One measure name, plain (``map``: ``func(x)``) and/or with a parameter (``P_10``: ``func(x, param)``)."""

    name: str
    #: the per-query form, or a function of :mod:`segeval.measures.batch` (its :attr:`batch` form)
    func: Callable[..., Any]
    description: str
    _: KW_ONLY
    scope: Scope = "labels"
    aggregator: Aggregate = "mean"
    fmt: Format = "score"
    #: True when larger values are better, False when smaller are, None for statistics and diagnostics
    higher_is_better: bool | None = True
    #: value bounds (None: unbounded on that side; both None for text values)
    lower: float | None = None
    upper: float | None = None
    #: the value can exceed ``upper`` when the adapter credits one relevant unit to several results
    over_upper: bool = False
    #: the parameter's kind, None for a measure without one
    param: Param | None = None
    example: str = ""
    #: parameters used when the family is named alone (``P`` -> P_5 ... P_1000): it then has no plain form
    defaults: tuple[int | float, ...] = ()
    #: False for summary-only measures (gm_map is the geometric mean of map)
    per_query: bool = True
    #: ``f(num_rel[, param])``, the value where ``-J`` dropped every result (trec_eval's 0/0); None: ``func``'s
    empty: Callable[..., Any] | None = None
    #: other names of the plain measure (ir_measures: ``AP`` for ``map``)
    aliases: tuple[str, ...] = ()
    #: other names of the family before ``@n`` or ``_n`` (ir_measures: ``nDCG`` for ``ndcg_cut``)
    family_aliases: tuple[str, ...] = ()
    #: True when the measure needs stratified qrels (``topic 0 docno stratum rel``, sampled judgements)
    stratified: bool = False
    #: True when the measure needs each result's and judgement's time span (segment runs, not documents)
    times: bool = False
    #: True when the measure reads subtopic qrels (``qid subtopic docno rel``: the diversity measures)
    subtopics: bool = False

    #: the named parameters beside the gain levels that a ``gains`` parameter takes (rbp's ``p``), with domains
    pairs: tuple[Key, ...] = ()
    #: the domain of a ``cutoff`` parameter's cut-offs
    cutoffs: Domain = CUTOFF
    #: the domain of each number of a ``reals`` parameter, and of each gain of a ``gains`` one
    values: Domain = REAL
    #: the number of ``reals`` a parameter must have (utility: 4), None for any
    count: int | None = None

    @property
    def plain(self) -> bool:
        """True when the name alone is a measure (False: it means its ``defaults``)."""
        return not self.defaults

    @property
    def batch(self) -> Callable[..., list[Any]] | None:
        """``func`` when it is a function of :mod:`segeval.measures.batch`: all queries at once (one query is a batch
        of one); else None."""
        return self.func if getattr(self.func, "module", None) == "segeval.measures.batch" else None

    @property
    def pair_names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.pairs)

    def domains(self) -> tuple[tuple[str, Domain], ...]:
        """Each parameter the family takes with its domain: the values of its kind (``n`` a cut-off, ``x`` a
        level or number, ``gain`` a level's gain), then its named pairs or keys (``p``, ``alpha``)."""
        kind = {
            "cutoff": ("n", self.cutoffs),
            "level": ("x", P.LEVEL),
            "recall": ("x", UNIT),
            "reals": ("x", self.values),
            "gains": ("gain", self.values),
        }.get(self.param or "")
        return ((kind,) if kind else ()) + tuple((k.name, k.domain) for k in self.pairs)

    def canonical(self, param: ParamValue | None) -> str:
        """The measure's name: unique for each parameter value (results are keyed by it)."""
        if self.param is None or param is None:
            return self.name
        if self.param == "recall":
            return f"{self.name}_{int(param) / 100:.2f}"  # type: ignore[arg-type]
        if self.param == "level":
            shown = f"{param:.2f}"
            return f"{self.name}_{shown if float(shown) == param else repr(param)}"
        return f"{self.name}_{param}"

    def label(self, param: ParamValue | None) -> str:
        """The name trec_eval prints: real cut-offs as ``%3.2f`` (two levels can print alike), the
        parameter text verbatim otherwise (``relstring_2.9``, ``ndcg_1=3,2=9``)."""
        if self.param == "level" and param is not None:
            return f"{self.name}_{param:.2f}"
        return self.canonical(param)

    def parse(self, params: str) -> list[ParamValue]:
        """The parameter values of trec_eval's ``name.params`` syntax (:mod:`segeval.measures.params`)."""
        if self.param == "cutoff":
            return list(P.cutoffs(self.name, params, self.cutoffs))
        if self.param == "level":
            return list(P.levels(self.name, params))
        if self.param == "reals":
            return [P.reals(self.name, params, self.count, self.values)]
        if self.param == "gains":
            return [P.gains(self.name, params, self.pairs, self.values)]
        if self.param == "recall":
            values = P.levels(self.name, params)
            if any(x > 1 for x in values):
                raise ParameterError(
                    f"The '{self.name}' parameters must be levels from 0 to 1 separated by commas. "
                    f"Got {params!r} instead."
                )
            return list(dict.fromkeys(round(100 * x) for x in values))
        return [params]


@dataclass(frozen=True, kw_only=True)
class KeyedFamily(Family):
    """A family whose parameter is ``key=value`` pairs."""

    param: Param | None = "raw"
    #: its keys (declared as its ``pairs`` too)
    keys: tuple[Key, ...] = ()

    def parse(self, params: str) -> list[ParamValue]:
        return [normalise(self.name, params, self.keys)]


def normalise(family: str, params: str, keys: tuple[Key, ...]) -> str:
    """The parameter text in canonical form (declared key order, ``%g`` numbers), or a ParameterError."""
    by_name = {k.name: k for k in keys}
    given: dict[str, float | str] = {}
    for item in params.split(","):
        name, eq, text = item.partition("=")
        if not eq or name not in by_name or name in given:
            raise ParameterError(
                f"The '{family}' parameters must be key=value pairs separated by commas, each key once "
                f"({', '.join(k.expected() for k in keys)}). Got {params!r} instead."
            )
        value = by_name[name].domain.read(f"{family}.{name}", text)
        given[name] = value if isinstance(value, str) else float(value)
    return ",".join(f"{k.name}={value_text(given[k.name])}" for k in keys if k.name in given)


def value_text(value: float | str) -> str:
    """A key's value as its canonical text: a word as it is, a number as %g when that keeps it."""
    if isinstance(value, str):
        return value
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


@lru_cache(maxsize=256)
def settings(keys: tuple[Key, ...], params: str | None) -> dict[str, float | str]:
    """Every key's value: the defaults, replaced by those in ``params`` (normalised text, or None)."""
    out: dict[str, float | str] = {k.name: k.default for k in keys if k.default is not None}
    if params:
        by_name = {k.name: k for k in keys}
        for item in params.split(","):
            name, _, text = item.partition("=")
            key = by_name[name]
            out[name] = text if text in key.domain.words else float(text)
    return out


@dataclass(frozen=True)
class Measure:
    """One concrete measure: a family with its parameter, and ir_measures' per-measure options: ``level``
    (``rel=2``: this measure's own relevance level) and ``judged`` (``judged_only=True``: unjudged results
    dropped first, as trec_eval's ``-J``)."""

    family: Family
    param: ParamValue | None = None
    level: int | None = None
    judged: bool = False

    @property
    def options(self) -> str:
        """The options as ir_measures writes them (``(rel=2)``), or ``""``."""
        shown = [f"rel={self.level}"] if self.level is not None else []
        shown += ["judged_only=True"] if self.judged else []
        return f"({','.join(shown)})" if shown else ""

    @property
    def name(self) -> str:
        return self.family.canonical(self.param) + self.options

    @property
    def label(self) -> str:
        """The name trec_eval prints (:meth:`Family.label`)."""
        return self.family.label(self.param) + self.options

    def __call__(self, x: Any) -> Any:
        if self.family.batch is not None:
            return self.values([x])[0]
        if self.level is not None or self.judged:
            from segeval.measures.ecosystem import with_options

            x = with_options(x, self.level, self.judged)
            if self.judged and len(x.labels) == 0 and self.family.empty is not None:
                return self.on_empty(x.num_rel)
        return self.family.func(x) if self.param is None else self.family.func(x, self.param)

    def on_empty(self, num_rel: int) -> Any:
        """The value on a ranking trec_eval sees as empty (:attr:`Family.empty`); None when it is ``func``'s."""
        f = self.family.empty
        if f is None:
            return None
        return f(num_rel) if self.param is None else f(num_rel, self.param)

    @property
    def batchable(self) -> bool:
        """True when :meth:`batch` computes it (the batch form, no per-measure options)."""
        return self.family.batch is not None and self.level is None and not self.judged

    def batch(self, b: B.Batch) -> list[Any] | None:
        """Every query's value at once, or None when the measure is not :attr:`batchable`."""
        f = self.family.batch
        if f is None or not self.batchable:
            return None
        return f(b) if self.param is None else f(b, self.param)

    def values(self, queries: Sequence[Any]) -> list[Any]:
        """Every query's value by the family's batch form, the per-measure options applied to each query first."""
        from segeval.measures.batch import Batch
        from segeval.measures.ecosystem import with_options

        f = self.family.batch
        assert f is not None
        if self.level is not None or self.judged:
            queries = [with_options(x, self.level, self.judged) for x in queries]
        b = Batch.of(queries)
        out = f(b) if self.param is None else f(b, self.param)
        if self.judged and self.family.empty is not None:
            for q, x in enumerate(queries):
                if len(x.labels) == 0:
                    out[q] = self.on_empty(x.num_rel)
        return out
