"""Named measure parameters written ``key=value,...`` (``mgap.window=60,step=0``), for measures whose
policies are several named choices rather than one cut-off.

A :class:`KeyedFamily` declares its keys (:class:`Key`: a number with its lower bound, or a word from a
list) and their defaults.  Its parameter is the normalised text (keys in declared order, each
once, numbers written with ``%g`` when that keeps their value), so ``mgap.step=0,window=60`` and
``mgap_window=60,step=0`` are one measure; :func:`settings` turns the text back into values for
the computation.  Every refusal is a :class:`~segeval.core.errors.ParameterError` naming the measure,
the text and what was expected (exit 2).
Loads no NumPy (the registry's declarations import it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from segeval.core.errors import ParameterError
from segeval.measures.declaration import Family, ParamValue
from segeval.measures.params import plain_decimal


@dataclass(frozen=True)
class Key:
    """One named parameter: a number (``words`` empty) from ``lower`` to ``upper`` (both excluded when
    ``strict``; an infinite bound is no bound), or one of ``words``; with ``numbers`` as well a word or
    a number; ``default`` is its value when not given."""

    name: str
    default: float | str
    lower: float = 0.0
    strict: bool = False
    words: tuple[str, ...] = ()
    #: a whole number (a cut-off)
    integer: bool = False
    upper: float = math.inf
    numbers: bool = False

    def expected(self) -> str:
        bounds = [f"{'>' if self.strict else '>='} {self.lower:g}"] if math.isfinite(self.lower) else []
        bounds += [f"{'<' if self.strict else '<='} {self.upper:g}"] if math.isfinite(self.upper) else []
        number = f"{'a whole number' if self.integer else 'a number'}{' ' + ' and '.join(bounds) if bounds else ''}"
        if self.words:
            return f"{self.name}={'|'.join(self.words)}{f' or {number}' if self.numbers else ''}"
        return f"{self.name}={number}"

    def takes_word(self, text: str) -> bool:
        """True when ``text`` is one of the key's words (not a number)."""
        return text in self.words


@dataclass(frozen=True, kw_only=True)
class KeyedFamily(Family):
    """A family whose parameter is ``key=value`` pairs (declared with ``param="raw"``)."""

    keys: tuple[Key, ...] = ()

    def parse(self, params: str) -> list[ParamValue]:
        return [normalise(self.name, params, self.keys)]


def _refuse(family: str, params: str, keys: tuple[Key, ...]) -> ParameterError:
    wanted = ", ".join(k.expected() for k in keys)
    return ParameterError(f"The '{family}' parameters must be key=value pairs separated by commas, each key once "
                          f"({wanted}). Got {params!r} instead.")


def _value(family: str, params: str, keys: tuple[Key, ...], key: Key, text: str) -> float | str:
    if key.takes_word(text):
        return text
    if key.words and not key.numbers:
        raise _refuse(family, params, keys)
    value = plain_decimal(text)
    if not math.isfinite(value) or value < key.lower or value > key.upper or \
            (key.strict and value in (key.lower, key.upper)) or (key.integer and not value.is_integer()):
        raise _refuse(family, params, keys)
    return value


def normalise(family: str, params: str, keys: tuple[Key, ...]) -> str:
    """The parameter text in canonical form (declared key order, ``%g`` numbers), or a ParameterError."""
    by_name = {k.name: k for k in keys}
    given: dict[str, float | str] = {}
    for item in params.split(","):
        name, eq, text = item.partition("=")
        if not eq or name not in by_name or name in given:
            raise _refuse(family, params, keys)
        given[name] = _value(family, params, keys, by_name[name], text)
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
    out: dict[str, float | str] = {k.name: k.default for k in keys}
    if params:
        by_name = {k.name: k for k in keys}
        for item in params.split(","):
            name, _, text = item.partition("=")
            key = by_name[name]
            out[name] = text if key.takes_word(text) else float(text)
    return out
