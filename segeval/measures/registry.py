"""The measure registry: what a measure declaration holds and how names are resolved.

The declarations themselves are in :mod:`segeval.measures.definitions` (one per name).
Canonical names follow trec_eval (``P_10``, ``map``); ir_measures spellings declared
as aliases (``P@10``, ``AP``, ``Judged@10``) are accepted on input.  A declaration names its
functions by module (:class:`Deferred`), so the registry loads without NumPy: the help texts,
``segeval measures`` and the generated docs need no more.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from segeval.errors import ParameterError
from segeval.measures import params as P

if TYPE_CHECKING:
    from segeval.measures import batch as B

#: labels: adapted labels; segments: time spans; trials: every key pair with the run's score
#: (:mod:`segeval.measures.trials`)
Scope = Literal["labels", "segments", "trials"]
#: pooled: the measure on every query's inputs together, not a function of the per-query values
Aggregate = Literal["sum", "mean", "gm", "none", "pooled"]
Format = Literal["count", "score", "text", "stat"]
#: cutoff, level, reals, gains: trec_eval's parameter kinds (:mod:`segeval.measures.params`);
#: recall: a recall-point position written p/100 (maisp_0.10); raw: a word (adr_tb.standin)
Param = Literal["cutoff", "level", "reals", "gains", "recall", "raw"]


ParamValue = int | float | str | P.Params


class Deferred:
    """A function named by its module and attribute, imported on its first call."""

    __slots__ = ("_function", "module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self._function: Callable[..., Any] | None = None

    def resolve(self) -> Callable[..., Any]:
        """The function itself (its module imported now if not yet)."""
        if self._function is None:
            self._function = getattr(importlib.import_module(self.module), self.name)
        return self._function

    def __call__(self, *args: Any) -> Any:
        return (self._function or self.resolve())(*args)

    def __reduce__(self) -> tuple[type[Deferred], tuple[str, str]]:
        return Deferred, (self.module, self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deferred) and (self.module, self.name) == (other.module, other.name)

    def __hash__(self) -> int:
        return hash((self.module, self.name))

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True, kw_only=True)
class Family:
    """One measure name: the value without a parameter (``map``) and/or with one (``P`` -> ``P_10``).

    ``func(x)`` computes the plain measure, ``func(x, param)`` the parameterised one.
    """

    name: str
    scope: Scope
    func: Callable[..., Any]
    aggregator: Aggregate
    fmt: Format
    description: str
    #: True when larger values are better, False when smaller are, None for statistics and diagnostics
    higher_is_better: bool | None
    #: value bounds (None: unbounded on that side; both None for text values)
    lower: float | None = None
    upper: float | None = None
    #: the value can exceed ``upper`` when the adapter credits one relevant unit to several results
    #: (overlap, tolerance): the measure divides a count of relevant results by num_rel or an ideal
    over_upper: bool = False
    #: the parameter's kind, None for a measure without one
    param: Param | None = None
    #: False when the name needs a parameter (``P`` alone means its ``defaults``)
    plain: bool = True
    example: str = ""
    #: parameters used when a family without a plain form is named alone (``P`` -> P_5 ... P_1000)
    defaults: tuple[int | float, ...] = ()
    #: False for summary-only measures (gm_map is the geometric mean of map)
    per_query: bool = True
    #: all queries at once (:mod:`segeval.measures.batch`), equal to ``func`` query by query
    batch: Callable[..., list[Any] | None] | None = None
    #: the value on a ranking trec_eval sees as empty (num_ret 0: ``-J`` dropped every result), from
    #: num_rel (and the parameter): trec_eval's 0/0 where it divides by num_ret; None: ``func``'s value
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

    #: names beside the gain levels that a ``gains`` parameter takes (rbp's ``p``)
    pair_names: tuple[str, ...] = ()
    #: the number of ``reals`` a parameter must have (utility: 4), None for any
    count: int | None = None

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
            return list(P.cutoffs(self.name, params))
        if self.param == "level":
            return list(P.levels(self.name, params))
        if self.param == "reals":
            return [P.reals(self.name, params, self.count)]
        if self.param == "gains":
            return [P.gains(self.name, params, self.pair_names)]
        if self.param == "recall":
            values = P.levels(self.name, params)
            if any(x > 1 for x in values):
                raise ParameterError(f"The '{self.name}' parameters must be levels from 0 to 1 separated by commas. "
                                     f"Got {params!r} instead.")
            return list(dict.fromkeys(round(100 * x) for x in values))
        return [params]


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

    @property
    def scope(self) -> Scope:
        return self.family.scope

    @property
    def aggregate(self) -> Aggregate:
        return self.family.aggregator

    @property
    def fmt(self) -> Format:
        return self.family.fmt

    def __call__(self, x: Any) -> Any:
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
        """True when :meth:`batch` computes it (a vectorised family, no per-measure options)."""
        return self.family.batch is not None and self.level is None and not self.judged

    def batch(self, b: B.Batch) -> list[Any] | None:
        """Every query's value at once, or None when the family has no vectorised form."""
        f = self.family.batch
        if f is None or self.level is not None or self.judged:
            return None
        if self.param is None:
            return f(b)
        if self.family.param == "level":  # the batched forms take hundredths: only levels written so
            hundredths = round(float(self.param) * 100)  # type: ignore[arg-type]
            return f(b, hundredths) if hundredths / 100 == self.param else None
        return f(b, self.param)


_PARAM = re.compile(r"(?P<family>[^\W\d]\w*?)(?P<sep>_|@)(?P<value>[0-9]*(?:\.[0-9]+)?)\Z")


@dataclass(frozen=True)
class Option:
    """An ir_measures option of one segeval family beyond ``rel`` and ``judged_only`` (which every measure
    takes): with ``value`` (None: any value) the measure becomes ``family`` ("": the same) and its parameter
    is ``param`` filled with the value: ``"{}"`` the value's text, ``"gains"`` a gain dict's ``level=gain``
    pairs, ``"p="`` a ``p=value`` pair added to the parameter (``"normalize=0"``: that pair), ``""``
    unchanged (ir_measures' default)."""

    measure: str
    option: str
    value: object = None
    family: str = ""
    param: str = ""


@dataclass(frozen=True)
class Ecosystem:
    """Names that ir_measures and ranx give segeval's measures beyond the families' own aliases: ``names``
    whole names (``MRR``, ``r-precision``) to canonical names; ``at_names`` names before ``@k`` to families
    (ranx's ``ndcg@10`` is ``ndcg_cut_10``); ``dotted`` ranx's ``name.NN`` persistence spelling (``rbp.95``)
    to a family taking ``p``; ``options`` the measure options (:class:`Option`)."""

    names: Mapping[str, str]
    at_names: Mapping[str, str]
    dotted: Mapping[str, str]
    options: tuple[Option, ...]
    #: ir_measures' names that segeval does not compute, with why (the "did you mean" says it)
    missing: Mapping[str, str]
    #: where a name's value differs from the peer's, and why (docs/measures.md)
    exceptions: Mapping[str, str] = field(default_factory=dict)


NO_ECOSYSTEM = Ecosystem({}, {}, {}, (), {})
_JUDGED = re.compile(r"P@(?P<value>[0-9]+)\(j\)\Z")


class Registry:
    """Name resolution over the declared families and named sets; every name and alias once."""

    def __init__(self, families: Sequence[Family], sets: Mapping[str, tuple[str, ...]],
                 set_descriptions: Mapping[str, str], ecosystem: Ecosystem = NO_ECOSYSTEM) -> None:
        self.families = tuple(families)
        self.ecosystem = ecosystem
        self.sets = dict(sets)
        self.set_descriptions = dict(set_descriptions)
        self.by_name: dict[str, Family] = {}
        self.aliases: dict[str, str] = {}
        self.family_aliases: dict[str, str] = {}
        for f in self.families:
            if f.name in self.by_name:
                raise ValueError(f"measure {f.name!r} declared twice")
            self.by_name[f.name] = f
        for f in self.families:
            for table, names in ((self.aliases, f.aliases), (self.family_aliases, f.family_aliases)):
                for alias in names:
                    if alias in table or alias in self.by_name or alias in self.sets:
                        raise ValueError(f"alias {alias!r} of {f.name!r} is already a name")
                    table[alias] = f.name
        for alias, target in ecosystem.names.items():
            if alias in self.aliases or alias in self.by_name or alias in self.sets:
                raise ValueError(f"ecosystem name {alias!r} is already a name")
            self.aliases[alias] = target
        for target in (*ecosystem.at_names.values(), *ecosystem.dotted.values(),
                       *(o.measure for o in ecosystem.options), *(o.family for o in ecosystem.options if o.family)):
            if target not in self.by_name:
                raise ValueError(f"ecosystem name for an undeclared measure {target!r}")
        self.plain = {f.name: f for f in self.families if f.plain}
        self.with_param = {f.name: f for f in self.families if f.param is not None}
        #: families whose parameter is kept as text, longest name first (rbp_resid before rbp)
        self.with_text = sorted((f for f in self.families if f.param in ("reals", "gains", "raw")),
                                key=lambda f: -len(f.name))

    def measure(self, name: str) -> Measure:
        """The :class:`Measure` for a canonical or ir_measures-style name (``P_10``, ``P@10``, ``AP``; the
        paper's ``P@20(j)`` for ``P_judged_20``), ranx's (``ndcg@10``, ``mrr``, ``ndcg@10-l2``, ``rbp.95``) and
        ir_measures' with options (``P(rel=2)@5``, ``nDCG(dcg='exp-log2')@10``)."""
        spelled = P.spelling(name)
        if spelled is not None:
            return self.with_options(self.measure(spelled.name), spelled.options, name)
        head, dot, persistence = name.partition(".")
        if dot and head in self.ecosystem.dotted and persistence.isdigit():
            fam = self.by_name[self.ecosystem.dotted[head]]
            return Measure(fam, fam.parse(f"p=0.{persistence}")[0])
        judged = _JUDGED.match(name)
        name = f"P_judged_{judged.group('value')}" if judged else self.aliases.get(name, name)
        if name in self.plain:
            return Measure(self.plain[name])
        m = _PARAM.match(name)
        family = self.family_aliases.get(m.group("family"), m.group("family")) if m else ""
        if m and m.group("sep") == "@":
            family = self.ecosystem.at_names.get(m.group("family"), family)
        if m and family in self.with_param and m.group("value") not in ("", "."):
            fam = self.with_param[family]
            value = m.group("value")
            try:
                if fam.param == "cutoff" and "." in value:
                    raise ParameterError(value)  # P_10.5 is no canonical name
                if fam.param == "recall" and "." not in value:
                    value = str(int(value) / 100)  # maisp_10: position 10, written maisp_0.10
                if fam.param in ("gains", "raw") and "k" in fam.pair_names and m.group("sep") == "@":
                    value = f"k={value}"  # a cut-off given as name@k (ir_measures' RBP@10, alpha_nDCG@20)
                return Measure(fam, fam.parse(value)[0])
            except ParameterError:
                pass
        for fam in self.with_text:  # the text parameters' canonical names: utility_2,-1,0,0, ndcg_1=3, rbp_p=0.8
            if name.startswith(fam.name + "_") and len(name) > len(fam.name) + 1:
                try:
                    return Measure(fam, fam.parse(name[len(fam.name) + 1:])[0])
                except ParameterError:
                    break
        missing = self.ecosystem.missing.get(re.split(r"[(@]", name)[0])
        if missing:
            raise ParameterError(f"The 'measure' parameter must be a measure segeval computes; {missing}. Got "
                                 f"{name!r} instead.")
        if "(" in name or ")" in name:
            raise ParameterError(f"The 'measure' parameter must be a known measure, with options in ir_measures' "
                                 f"syntax Name(option=value,...)@k (P(rel=2)@5). Got {name!r} instead.")
        raise ParameterError(f"The 'measure' parameter must be a known measure{self.nearest(name)} ('segeval "
                             f"measures' lists them all; a relevance level is -l N, or rel=N for one measure: "
                             f"P(rel=2)@5). Got {name!r} instead.")

    def with_options(self, m: Measure, options: Sequence[tuple[str, object]], text: str) -> Measure:
        """``m`` with ir_measures' options: ``rel`` and ``judged_only`` for any measure, the others as the
        ecosystem declares them for ``m``'s family (:class:`Option`)."""
        level, judged, family, param = m.level, m.judged, m.family, m.param
        for key, value in options:
            found = [o for o in self.ecosystem.options if o.measure == family.name and o.option == key and
                     (o.value is None or (o.value == value and type(o.value) is type(value)))]
            if found:  # NumRet(rel=1) is num_rel_ret: the option names the family, and is still the level
                family, param = self._option(found[0], family, param, value, text)
            if key == "rel" and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                level = value
            elif key == "judged_only" and isinstance(value, bool):
                judged = value
            elif not found:
                takes = sorted({o.option for o in self.ecosystem.options if o.measure == family.name})
                raise ParameterError(
                    f"The '{text}' options must be rel=N (an integer >= 0), judged_only=True|False"
                    f"{''.join(f', {t}=...' for t in takes)} as ir_measures gives them for {family.name} "
                    f"(segeval's measure for this name). Got {key}={value!r} instead.")
        return Measure(family, param, level, judged)

    def _option(self, o: Option, family: Family, param: ParamValue | None, value: object,
                text: str) -> tuple[Family, ParamValue | None]:
        target = self.by_name[o.family] if o.family else family
        if o.param == "{}":
            param = target.parse(str(value))[0]
        elif o.param == "gains":
            if not isinstance(value, dict) or not value:
                raise ParameterError(f"The '{text}' gains must be a non-empty dict of grade: gain. Got {value!r} "
                                     f"instead.")
            cutoff = f"k={param}," if isinstance(param, int) else ""  # nDCG(gains=...)@10: the cut-off kept
            param = target.parse(cutoff + ",".join(f"{k}={v}" for k, v in value.items()))[0]
        elif "=" in o.param:  # a pair added to the parameter: "p=" takes the value, "normalize=0" is fixed
            given = f"{param}," if isinstance(param, P.Params) or (target.param == "raw" and param) else ""
            param = target.parse(given + o.param + (str(value) if o.param.endswith("=") else ""))[0]
        return target, param

    def nearest(self, name: str) -> str:
        """``: did you mean A, B or C?`` with the three known names nearest to ``name`` (any case), or ``""``."""
        import difflib

        known = [*self.plain, *(f.example for f in self.with_param.values()), *self.aliases,
                 *(f"{a}@10" for a in (*self.family_aliases, *self.ecosystem.at_names)), *self.sets]
        by_case = {k.lower(): k for k in reversed(known)}
        close = [by_case[k] for k in difflib.get_close_matches(name.lower(), list(by_case), n=3, cutoff=0.5)]
        if not close:
            return ""
        return ": did you mean " + (" or ".join(close) if len(close) < 3 else f"{close[0]}, {close[1]} or {close[2]}")\
            + "?"

    def expand(self, name: str) -> list[Measure]:
        """Concrete measures for a name: ``P_10``, ``P@10`` (``Success@1,5,10``: several), a family alone
        (``P``: its default cut-offs), a set (``official``), or trec_eval's parameter syntax (``P.5,10``,
        ``iprec_at_recall..10,.25``; cut-offs are truncated to integers and sorted, as trec_eval prints them)."""
        if name in self.sets:
            return [m for member in self.sets[name] for m in self.expand(member)]
        if self._ecosystem_spelling(name):
            return [self.measure(name)]
        if name in self.family_aliases and name not in self.aliases and name not in self.plain:
            name = self.family_aliases[name]  # ir_measures' name of a family alone (ERR_IA: err_ia's cut-offs)
        if name in self.with_param and name not in self.plain:
            fam = self.with_param[name]
            return [Measure(fam, p) for p in fam.defaults]
        head, at, values_at = name.partition("@")
        if at and "," in values_at:  # ir_measures spelling with several cut-offs: Success@1,5,10
            found = {m.param: m for m in (self.measure(f"{head}@{v}") for v in values_at.split(","))}
            return [found[p] for p in sorted(found, key=lambda p: (str(type(p)), p))]
        family, dot, params = name.partition(".")
        if dot and family in self.with_param:
            if not params:
                raise ParameterError(f"The '{family}' parameters must follow the dot ({family}.<parameters>); "
                                     f"trec_eval refuses an empty one too. Got {name!r} instead.")
            fam = self.with_param[family]
            return [Measure(fam, v) for v in fam.parse(params)]
        return [self.measure(name)]

    def _ecosystem_spelling(self, name: str) -> bool:
        """True for ir_measures' options (``P(rel=2)@5``), ranx's ``-lN`` and ``rbp.95``: no trec_eval syntax."""
        head, dot, persistence = name.partition(".")
        return P.spelling(name) is not None or (bool(dot) and head in self.ecosystem.dotted and persistence.isdigit())

    def resolve(self, names: Sequence[str]) -> list[Measure]:
        """The measures of several names, each once, by trec_eval's rule for a measure given twice: the
        first ``family.params`` of a family wins, and replaces that family's defaults in a set or named
        alone (``-m P.10 -m P.20 -m P`` is P_10 only; ``-m all_trec -m P.5`` has P_5 as its only P).
        The later parameters are still checked.  Other spellings (``P_20``, ``P@20``) add their measure, as
        do segeval's word parameters (``-m adr_tb -m adr_tb.standin``: both)."""
        first: dict[str, str] = {}
        expanded: list[tuple[str, str | None, list[Measure]]] = []
        for name in names:
            family, dot, _ = name.partition(".")
            given = (bool(dot) and family in self.with_param and self.with_param[family].param in P.KINDS
                     and not self._ecosystem_spelling(name))
            if given:
                first.setdefault(family, name)
            expanded.append((name, family if given else None, self.expand(name)))
        wanted: list[Measure] = []
        for name, given_for, members in expanded:
            if given_for is not None:
                wanted += members if first[given_for] == name else []
            elif name in self.sets or name in self.with_param:
                wanted += [m for m in members if m.family.name not in first]
            else:
                wanted += members
        return list(dict.fromkeys(wanted))

    def help(self, default: str, repeatable: bool = True) -> str:
        """The help text of a ``--measure`` option: the accepted spellings, the sets and the default."""
        if not repeatable:
            return (f"Measure: a name (map, P_10, ndcg_cut_10), an ir_measures spelling (P@10, AP, P(rel=2)@5) or "
                    f"a ranx one (ndcg@10); "
                    f"'segeval measures' lists all {len(self.families)}. Default: {default}.")
        return (f"Measure (repeatable): a name (map, P_10, ndcg_cut_10), a family alone for its default cut-offs "
                f"(P), trec_eval's syntax (P.5,10), an ir_measures spelling (P@10, AP, P(rel=2)@5), a ranx one "
                f"(ndcg@10, mrr@10) or a set "
                f"({', '.join(self.sets)}); 'segeval measures' lists all {len(self.families)}. Default: {default}.")

    def rows(self) -> list[dict[str, Any]]:
        """One record per measure (for ``segeval measures -o json|csv``)."""
        return [{"name": f.name, "example": f.example or f.name, "input": f.scope, "aggregator": f.aggregator,
                 "higher_is_better": f.higher_is_better, "lower": f.lower, "upper": f.upper,
                 "over_upper": f.over_upper, "parameter": f.param, "defaults": list(f.defaults),
                 "aliases": [*f.aliases, *(f"{a}@n" for a in f.family_aliases)], "description": f.description}
                for f in self.families]

    def doc(self) -> str:
        """``docs/measures.md``: the measures, the named sets and the aliases, generated from the registry."""
        return "\n".join([
            "# Measures", "",
            "<!-- generated from segeval/measures/definitions.py by scripts/update_readme.py: do not edit -->", "",
            "Canonical names follow trec_eval (`P_10`, `map`); the ir_measures spellings below are accepted on input "
            "and reported under the canonical name. `segeval measures` prints these tables.", "",
            "*better*: the direction in which a value is better (blank for statistics and diagnostics). *bounds*: "
            "the values a measure can take. A bound marked `*` holds when each relevant unit is credited at most "
            "once (documents, and the overlap-once, binned and tiou adapters); these measures divide a count of "
            "relevant results by num_rel or by an ideal ranking, so under the overlap and tolerance adapters, "
            "which can credit one relevant segment to several results, they may exceed 1 (and segeval prints a "
            "note when they do).", "",
            "*input*: `labels` (each result labelled by an adapter), `segments` (time spans), `trials` (every "
            "(query, utterance) pair of the key with the run's score: docs/speech.md, \"Query by example\"). "
            "*aggregate*: the `all` line; `pooled`: the measure on every query's inputs together, not a function "
            "of the per-query values.", "",
            "## Measures", "", self.table(), "",
            "## Named sets", "", self.sets_table(), "",
            "## Accepted aliases", "", self.aliases_table(), "",
            "## Subtopic qrels", "", self.subtopics_doc(), "",
            "## ir_measures and ranx", "", self.ecosystem_doc(), ""])

    def subtopics_doc(self) -> str:
        """The diversity measures' qrels: format, example and the measures that read them."""
        names = ", ".join(f"`{f.name}`" for f in self.families if f.subtopics)
        return "\n".join([
            f"The diversity measures ({names}) are NIST ndeval's (TREC Web track 2009-2014; ir_measures computes "
            "them with pyndeval) and read subtopic qrels: `qid subtopic docno rel`, one line per query, subtopic "
            "and document judged. Only when one of them is asked does segeval keep the second field (the "
            "`subtopic` column of a table, or ir_measures' `iteration`); every other measure reads it as trec_eval "
            "does, ignored. A plain qrels (`0` there) is one subtopic.", "",
            "```", "wt09-1 1 clueweb09-en0003-55-31884 1", "wt09-1 2 clueweb09-en0003-55-31884 0",
            "wt09-1 3 clueweb09-en0003-55-31884 1", "wt09-1 2 clueweb09-en0010-03-09851 1", "```", "",
            "```", "segeval eval qrels.diversity run -m alpha_nDCG@20 -m ERR_IA@20 -m P_IA@10 -m StRecall@20 "
            "-m 'NRBP(alpha=0.5,beta=0.8)'", "```", "",
            "A subtopic grade at least the relevance level (`-l`, or `rel=N` for one measure) counts 1, others 0; "
            "a result without a qrels line is relevant to no subtopic; a subtopic without a relevant document "
            "does not count. The arithmetic is ndeval's: each result's novelty gain sums (1 - alpha)^(results "
            "above it relevant to the subtopic) over its subtopics, numbered by their first line over the whole qrels "
            "as pyndeval numbers them (ndeval's own numeric order on NIST's qrels, whose queries list subtopics 1, "
            "2, ... in order; in another order the sums' last bits, and through near ties the greedy ideal "
            "ranking, can differ); the ideal ranking is ndeval's greedy one over the query's judged documents, "
            "ties to the larger docno; ERR-IA and alpha-DCG are divided by the \"ideal ideal\" (every subtopic at "
            "every rank) except at rank 1, as ndeval does; nNRBP is NaN for a query without a relevant subtopic. "
            "ndeval's cut-offs stop at 20 (pyndeval refuses more); segeval computes any cut-off by the same rule.",
            "",
            "They are asked alone: their qrels judge a document once per subtopic, which the other measures would "
            "read as judged twice (segeval refuses the mix, exit 2). Under `-J` (`judged_only=True`) a result is "
            "dropped when it has no qrels line, or only lines with a negative grade. Segment runs are refused: no "
            "segment adapter labels a segment with subtopics (a merged relevant segment has no subtopic of its "
            "own).", "",
            "Checked by tests/unit/measures/test_diversity.py: hand-derived values, and every ir_measures "
            "variant (cut-offs 1 to 20, alpha, beta, rel) equal to pyndeval's value bit for bit on generated "
            "graded subtopic qrels with ties and unjudged results."])

    def ecosystem_doc(self) -> str:
        """The ir_measures and ranx spellings, their options, the names segeval lacks and the exceptions."""
        eco = self.ecosystem
        rows = [
            "Every name ir_measures parses (`P(rel=2)@5`, `nDCG(judged_only=True)@10`, `nDCG(dcg='exp-log2')@10`, "
            "`SetF(beta=0.5)`), its measure objects in the API, and ranx's metric names (`ndcg@10`, `mrr@10`, "
            "`hit_rate@5`, `ndcg@10-l2`, `rbp.95`) mean what they mean there. `rel=N` (ranx: `-lN`) is that "
            "measure's own relevance level (others keep `-l`; positive grades below it gain 0), `judged_only=True` "
            "drops its unjudged results first (trec_eval's `-J`, for that measure only); the result is reported "
            "with the options in its name (`P_5(rel=2)`). Checked by tests/unit/measures/test_ecosystem.py "
            "against ir_measures' own providers and ranx on generated graded data with ties. "
            "`segeval.measure(name, adapter=...)` makes an ir_measures measure of any segeval measure "
            "(`ir_measures.define`), for `ir_measures.calc_aggregate` and PyTerrier's `pt.Experiment`.", "",
            "| name | measure |", "|---|---|"]
        rows += [f"| `{a}` | `{n}` |" for a, n in eco.names.items()]
        rows += [f"| `{a}@n` | `{n}_{'k=' if self.by_name[n].param == 'gains' else ''}n` |"
                 for a, n in eco.at_names.items()]
        rows += [f"| `{a}.NN` | `{n}_p=0.NN` |" for a, n in eco.dotted.items()]
        rows += ["", "| measure | option | value | becomes |", "|---|---|---|---|"]
        rows += [f"| `{o.measure}` | `{o.option}` | {'any' if o.value is None else f'`{o.value!r}`'} | "
                 f"{f'`{o.family}`' if o.family else 'the same measure'}{', its parameter' if o.param else ''} |"
                 for o in eco.options]
        rows += ["", "Documented differences from the peers:", ""]
        rows += [f"- `{name}`: {why}" for name, why in eco.exceptions.items()]
        rows += ["", "ir_measures' names segeval does not compute (refused with this reason):", ""]
        by_reason: dict[str, list[str]] = {}
        for name, why in eco.missing.items():
            by_reason.setdefault(why, []).append(f"`{name}`")
        rows += [f"- {', '.join(names)}: {why}" for why, names in by_reason.items()]
        return "\n".join(rows)

    def table(self) -> str:
        """A Markdown table of the measures."""
        rows = ["| measure | input | aggregate | better | bounds | description |", "|---|---|---|---|---|---|"]
        for f in self.families:
            label = f"`{f.name}`"
            if f.param is not None:
                label = f"`{f.name}`, `{f.name}_n` (e.g. `{f.example}`)" if f.plain else \
                    f"`{f.name}_n` (e.g. `{f.example}`)"
            better = {True: "higher", False: "lower", None: ""}[f.higher_is_better]
            rows.append(f"| {label} | {f.scope} | {f.aggregator} | {better} | {_bounds(f)} | {f.description} |")
        return "\n".join(rows)

    def sets_table(self) -> str:
        """A Markdown table of the named sets and their members."""
        rows = ["| set | members | description |", "|---|---|---|"]
        for name, members in self.sets.items():
            rows.append(f"| `{name}` | {', '.join(members)} | {self.set_descriptions.get(name, '')} |")
        return "\n".join(rows)

    def aliases_table(self) -> str:
        """A Markdown table of the accepted aliases and the canonical names they stand for."""
        rows = ["| alias | measure |", "|---|---|"]
        rows += [f"| `{a}` | `{n}` |" for a, n in self.aliases.items()]
        rows += [f"| `{a}@n` | `{n}_{'k=' if 'k' in self.by_name[n].pair_names else ''}n` |"
                 for a, n in self.family_aliases.items()]
        rows.append("| `P@n(j)` | `P_judged_n` |")
        rows.append("| `name@n` | `name_n`, for every measure with a parameter (`P@10`, `Judged@10`) |")
        return "\n".join(rows)


def _bounds(f: Family) -> str:
    if f.lower is None and f.upper is None:
        return ""
    lower = "-inf" if f.lower is None else f"{f.lower:g}"
    upper = "inf" if f.upper is None else f"{f.upper:g}"
    return f"[{lower}, {upper}]" + ("*" if f.over_upper else "")
