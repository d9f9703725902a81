"""Name resolution over the measure declarations (:mod:`segeval.measures.definitions`): trec_eval's canonical
names (``P_10``), and ir_measures' and ranx's spellings and options on input."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from segeval.core.errors import ParameterError, shown
from segeval.measures import params as P
from segeval.measures.declaration import Family, Measure, ParamValue

_PARAM = re.compile(r"(?P<family>[^\W\d]\w*?)(?P<sep>_|@)(?P<value>[0-9]*(?:\.[0-9]+)?)\Z")


@dataclass(frozen=True)
class Option:
    """An ir_measures option of one segeval family beyond ``rel`` and ``judged_only`` (which every measure takes): with
    ``value`` (None: any value) the measure becomes ``family`` ("": the same) and its parameter is ``param`` filled with
    the value: ``"{}"`` the value's text, ``"gains"`` a gain dict's ``level=gain`` pairs, ``"p="`` a ``p=value`` pair
    added to the parameter (``"normalize=0"``: that pair), ``""`` unchanged (ir_measures' default)."""

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
    #: ir_measures' names whose all line is segeval's default (the run's queries), not ``-c``'s (every other)
    run_queries: tuple[str, ...] = ()


_JUDGED = re.compile(r"P@(?P<value>[0-9]+)\(j\)\Z")


class Registry:
    """Name resolution over the declared families and named sets."""

    def __init__(
        self,
        families: Sequence[Family],
        sets: Mapping[str, tuple[str, ...]],
        set_descriptions: Mapping[str, str],
        ecosystem: Ecosystem,
    ) -> None:
        self.families = tuple(families)
        self.ecosystem = ecosystem
        self.sets = dict(sets)
        self.set_descriptions = dict(set_descriptions)
        #: every name and alias once (tests/unit/measures/test_registry.py)
        self.by_name = {f.name: f for f in self.families}
        self.aliases = {a: f.name for f in self.families for a in f.aliases} | dict(ecosystem.names)
        self.family_aliases = {a: f.name for f in self.families for a in f.family_aliases}
        self.plain = {f.name: f for f in self.families if f.plain}
        self.with_param = {f.name: f for f in self.families if f.param is not None}
        #: families whose parameter is kept as text, longest name first (rbp_resid before rbp)
        self.with_text = sorted(
            (f for f in self.families if f.param in ("reals", "gains", "raw")), key=lambda f: -len(f.name)
        )

    def measure(self, name: str) -> Measure:
        """The :class:`Measure` for a canonical name (``P_10``), the paper's ``P@20(j)``, an ir_measures name
        (``P@10``, ``P(rel=2)@5``) or a ranx one (``ndcg@10-l2``, ``rbp.95``)."""
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
                    return Measure(fam, fam.parse(name[len(fam.name) + 1 :])[0])
                except ParameterError:
                    break
        missing = self.ecosystem.missing.get(re.split(r"[(@]|-l[0-9]", name)[0])
        if missing:
            raise ParameterError(
                f"The 'measure' parameter must be a measure segeval computes; {missing}. Got {name!r} instead."
            )
        if "(" in name or ")" in name:
            raise ParameterError(
                f"The 'measure' parameter must be a known measure, with options in ir_measures' "
                f"syntax Name(option=value,...)@k (P(rel=2)@5). Got {name!r} instead."
            )
        raise ParameterError(
            f"The 'measure' parameter must be a known measure{self.nearest(name)} ('segeval measures' lists them all; "
            f"a relevance level is -l N, or rel=N for one measure: P(rel=2)@5). Got {name!r} instead."
        )

    def with_options(self, m: Measure, options: Sequence[tuple[str, object]], text: str) -> Measure:
        """``m`` with ir_measures' options: ``rel``, ``judged_only`` and those its family declares (:class:`Option`)."""
        level, judged, family, param = m.level, m.judged, m.family, m.param
        for key, value in options:
            found = [
                o
                for o in self.ecosystem.options
                if o.measure == family.name
                and o.option == key
                and (o.value is None or (o.value == value and type(o.value) is type(value)))
            ]
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
                    f"(segeval's measure for this name). Got {key}={shown(value)} instead."
                )
        return Measure(family, param, level, judged)

    def _option(
        self, o: Option, family: Family, param: ParamValue | None, value: object, text: str
    ) -> tuple[Family, ParamValue | None]:
        target = self.by_name[o.family] if o.family else family
        if o.param == "{}":
            param = target.parse(str(value))[0]
        elif o.param == "gains":
            if not isinstance(value, dict) or not value:
                raise ParameterError(
                    f"The '{text}' gains must be a non-empty dict of grade: gain. Got {shown(value)} instead."
                )
            cutoff = f"k={param}," if isinstance(param, int) else ""  # nDCG(gains=...)@10: the cut-off kept
            param = target.parse(cutoff + ",".join(f"{k}={v}" for k, v in value.items()))[0]
        elif "=" in o.param:  # a pair added to the parameter: "p=" takes the value, "normalize=0" is fixed
            given = f"{param}," if isinstance(param, P.Params) or (target.param == "raw" and param) else ""
            param = target.parse(given + o.param + (str(value) if o.param.endswith("=") else ""))[0]
        return target, param

    def nearest(self, name: str) -> str:
        """``: did you mean A, B or C?`` with the three known names nearest to ``name`` (any case), or ``""``."""
        import difflib

        known = [
            *self.plain,
            *(f.example for f in self.with_param.values()),
            *self.aliases,
            *(f"{a}@10" for a in (*self.family_aliases, *self.ecosystem.at_names)),
            *self.sets,
        ]
        by_case = {k.lower(): k for k in reversed(known)}
        close = [by_case[k] for k in difflib.get_close_matches(name.lower(), list(by_case), n=3, cutoff=0.5)]
        if not close:
            return ""
        *head, last = close
        return f": did you mean {', '.join(head)} or {last}?" if head else f": did you mean {last}?"

    def expand(self, name: str) -> list[Measure]:
        """Concrete measures for a name: ``P_10``, ``Success@1,5,10``, a family alone (its default cut-offs), a set,
        or trec_eval's parameter syntax (``P.5,10``: cut-offs truncated and sorted, as trec_eval prints them)."""
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
                raise ParameterError(
                    f"The '{family}' parameters must follow the dot ({family}.<parameters>); "
                    f"trec_eval refuses an empty one too. Got {name!r} instead."
                )
            fam = self.with_param[family]
            return [Measure(fam, v) for v in fam.parse(params)]
        return [self.measure(name)]

    def _ecosystem_spelling(self, name: str) -> bool:
        """True for ir_measures' options (``P(rel=2)@5``), ranx's ``-lN`` and ``rbp.95``: no trec_eval syntax."""
        head, dot, persistence = name.partition(".")
        return P.spelling(name) is not None or (bool(dot) and head in self.ecosystem.dotted and persistence.isdigit())

    def resolve(self, names: Sequence[str]) -> list[Measure]:
        """The measures of several names, each once, by trec_eval's rule for a measure given twice
        (docs/trec_eval-semantics.md §3); other spellings (``P_20``, ``adr_tb.standin``) add their measure."""
        first = self._first_params(names)
        wanted: list[Measure] = []
        for name in names:
            members, given_for = self.expand(name), self._params_of(name)
            if given_for is not None:
                wanted += members if first[given_for] == name else []
            elif name in self.sets or name in self.with_param:
                wanted += [m for m in members if m.family.name not in first]
            else:
                wanted += members
        return list(dict.fromkeys(wanted))

    def _params_of(self, name: str) -> str | None:
        """The family ``name`` gives trec_eval's ``family.params`` of (``P`` for ``P.5,10``), else None."""
        family, dot, _ = name.partition(".")
        given = (
            bool(dot)
            and family in self.with_param
            and self.with_param[family].param in P.KINDS
            and not self._ecosystem_spelling(name)
        )
        return family if given else None

    def _first_params(self, names: Sequence[str]) -> dict[str, str]:
        """Each family given parameters, and the first name that gives them."""
        return {f: name for name in reversed(names) if (f := self._params_of(name)) is not None}

    def dropped(self, names: Sequence[str]) -> list[str]:
        """Notes on the ``family.params`` that :meth:`resolve` leaves out (a family given parameters before),
        with the one spelling that keeps them all where the parameters are a list (``P.5,10``)."""
        first, notes = self._first_params(names), []
        for name in dict.fromkeys(names):
            family = self._params_of(name)
            if family is None or first[family] == name:
                continue
            text = (
                f"note: -m {name} is not computed: as in trec_eval, a measure takes the first parameters "
                f"given to it (-m {first[family]})"
            )
            if self.with_param[family].param in ("cutoff", "level"):
                both = dict.fromkeys([*first[family].partition(".")[2].split(","), *name.partition(".")[2].split(",")])
                text += f"; -m {family}.{','.join(both)} gives both"
            notes.append(text)
        return notes

    def help(self, default: str, repeatable: bool = True) -> str:
        """The help text of a ``--measure`` option: the accepted spellings, the sets and the default."""
        if not repeatable:
            return (
                "Measure: a name (map, P_10, ndcg_cut_10), an ir_measures spelling (P@10, AP, P(rel=2)@5) or a ranx "
                f"one (ndcg@10); 'segeval measures' lists all {len(self.families)}. Default: {default}."
            )
        return (
            "Measure (repeatable): a name (map, P_10, ndcg_cut_10), a family alone for its default cut-offs (P), "
            "trec_eval's syntax (P.5,10), an ir_measures spelling (P@10, AP, P(rel=2)@5), a ranx one (ndcg@10, mrr@10) "
            f"or a set ({', '.join(self.sets)}); 'segeval measures' lists all {len(self.families)}. Default: {default}."
        )
