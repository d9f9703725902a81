"""Measure parameters written ``key=value,...`` (``mgap.window=60,step=0``) for a :class:`KeyedFamily`'s declared
keys; the parameter is the normalised text (declared key order, numbers as ``%g`` when that keeps them), so
``mgap.step=0,window=60`` is ``mgap_window=60,step=0``.  Loads no NumPy."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from segeval.core.domains import Key
from segeval.core.errors import ParameterError
from segeval.measures.declaration import Family, Param, ParamValue


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
            out[name] = text if key.takes_word(text) else float(text)
    return out
