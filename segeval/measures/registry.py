"""Every measure declared once: name, parameter, input, aggregator, format, description.

Canonical names follow trec_eval (``P_10``, ``map``); ir_measures spellings
(``P@10``, ``AP``, ``Judged@10``) are accepted on input.  Help text and the
README measure table are generated from :data:`FAMILIES`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from segeval.errors import ParameterError
from segeval.measures import labels as L
from segeval.measures import segments as S

Scope = Literal["labels", "segments"]
Aggregate = Literal["sum", "mean", "none"]
Format = Literal["count", "score", "text", "stat"]


@dataclass(frozen=True)
class Family:
    """A measure family; parameterised families (``P``) take one parameter (``P_10``)."""

    name: str
    scope: Scope
    func: Callable[..., Any]
    aggregate: Aggregate
    fmt: Format
    description: str
    param: Literal["int", "recall", None] = None
    example: str = ""

    def canonical(self, param: int | None) -> str:
        if self.param is None:
            return self.name
        if self.param == "recall":
            return f"{self.name}_{(param or 0) / 100:.2f}"
        return f"{self.name}_{param}"


@dataclass(frozen=True)
class Measure:
    """One concrete measure: a family with its parameter."""

    family: Family
    param: int | None = None

    @property
    def name(self) -> str:
        return self.family.canonical(self.param)

    @property
    def scope(self) -> Scope:
        return self.family.scope

    @property
    def aggregate(self) -> Aggregate:
        return self.family.aggregate

    @property
    def fmt(self) -> Format:
        return self.family.fmt

    def __call__(self, x: Any) -> Any:
        return self.family.func(x) if self.param is None else self.family.func(x, self.param)


FAMILIES: tuple[Family, ...] = (
    Family("videos_ret", "segments", S.videos_ret, "mean", "stat", "distinct videos among the results"),
    Family("videos_rel", "segments", S.videos_rel, "mean", "stat", "videos with a relevant segment"),
    Family("avglength_ret", "segments", S.avglength_ret, "mean", "stat", "mean result length (s)"),
    Family("avglength_rel", "segments", S.avglength_rel, "mean", "stat",
           "mean merged relevant segment length (s)"),
    Family("num_rel", "labels", L.num_rel, "sum", "count", "relevant units (merged segments, bins)"),
    Family("num_ret", "labels", L.num_ret, "sum", "count", "ranked units (results, bins)"),
    Family("num_rel_ret", "labels", L.num_rel_ret, "sum", "count", "units labelled relevant"),
    Family("map", "labels", L.average_precision, "mean", "score",
           "average precision; above 1 possible with the overlap adapter"),
    Family("P", "labels", L.precision_at, "mean", "score", "precision at cut-off n", "int", "P_10"),
    Family("Judged", "labels", L.judged_at, "mean", "score", "share of judged units in the top n", "int",
           "Judged_10"),
    Family("relString", "labels", L.relstring, "none", "text", "the labels in rank order and their count"),
    Family("num_rel_secs", "segments", S.num_rel_secs, "sum", "count", "seconds of relevant content"),
    Family("num_ret_secs", "segments", S.num_ret_secs, "sum", "count", "seconds watched by the MAiSP user"),
    Family("num_rel_ret_secs", "segments", S.num_rel_ret_secs, "sum", "count",
           "relevant seconds watched by the MAiSP user"),
    Family("maisp", "segments", S.maisp, "mean", "score", "mean average interpolated segment precision"),
    Family("maisp", "segments", S.maisp_at, "mean", "score",
           "interpolated segment precision at recall-point position p, written p/100", "recall",
           "maisp_0.10"),
)
_PLAIN = {f.name: f for f in FAMILIES if f.param is None}
_WITH_PARAM = {f.name: f for f in FAMILIES if f.param is not None}

ALIASES = {"AP": "map", "MAP": "map", "NumRel": "num_rel", "NumRet": "num_ret", "NumRelRet": "num_rel_ret"}

_PARAM = re.compile(r"(?P<family>[A-Za-z]+)(?:_|@)(?P<value>[0-9]+(?:\.[0-9]+)?)\Z")


def measure(name: str) -> Measure:
    """The :class:`Measure` for a canonical or ir_measures-style name (``P_10``, ``P@10``, ``AP``)."""
    name = ALIASES.get(name, name)
    if name in _PLAIN:
        return Measure(_PLAIN[name])
    m = _PARAM.match(name)
    if m and m.group("family") in _WITH_PARAM:
        fam = _WITH_PARAM[m.group("family")]
        value = m.group("value")
        if fam.param == "recall":
            p = round(float(value) * 100) if "." in value else int(value)
            if 0 <= p <= 100:
                return Measure(fam, p)
        elif "." not in value and int(value) >= 1:
            return Measure(fam, int(value))
    known = ", ".join([*_PLAIN, *(f.example for f in _WITH_PARAM.values())])
    raise ParameterError(f"The 'measure' parameter must be a known measure ({known}). Got {name!r} instead.")


def measure_table() -> str:
    """A Markdown table of the measure families, for the README and help text."""
    rows = ["| measure | input | aggregate | description |", "|---|---|---|---|"]
    for f in FAMILIES:
        label = f"`{f.name}`" if f.param is None else f"`{f.name}_n` (e.g. `{f.example}`)"
        rows.append(f"| {label} | {f.scope} | {f.aggregate} | {f.description} |")
    return "\n".join(rows)
