"""trec_eval's measure-parameter syntax (``-m name.params``), parsed once for every family: the kinds, their
values and printed names, and the refusals trec_eval lacks are docs/trec_eval-semantics.md §3."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TypeVar

from segeval.core.domains import CUTOFF, PERSISTENCE, REAL, T_DOMAIN, Domain, Key, plain_decimal
from segeval.core.errors import ParameterError
from segeval.core.words import plural

KINDS = ("cutoff", "level", "reals", "gains")
_T = TypeVar("_T", int, float)

#: a cut-off as C's ``atol`` reads it when the text is a plain decimal number: the integer part
_CUTOFF = re.compile(r"\+?(?P<whole>[0-9]+)(?:\.[0-9]*)?\Z")
#: a gain level as trec_eval 10 accepts it (``valid_int``: an optional sign, then digits)
_LEVEL = re.compile(r"[+-]?[0-9]+\Z")


@dataclass(frozen=True)
class Params:
    """A ``reals`` or ``gains`` parameter: the text as given (the printed name's suffix) and its
    values as doubles (``reals``) or its ``(name, value)`` pairs (``gains``) in the given order."""

    text: str
    values: tuple[float, ...] = ()
    pairs: tuple[tuple[str, float], ...] = ()

    def __str__(self) -> str:
        return self.text

    def gain_levels(self) -> tuple[tuple[int, float], ...]:
        """The ``level=gain`` pairs whose name is an integer (as trec_eval 10's ``valid_int``), in order."""
        return tuple((int(name), value) for name, value in self.pairs if _LEVEL.match(name))

    def named(self, name: str, default: float) -> float:
        """The value of the last ``name=value`` pair (``p`` for rbp), or ``default``."""
        found = [value for key, value in self.pairs if key == name]
        return found[-1] if found else default


#: no parameter: every ``named`` value its default, no gain levels
NO_PARAMS = Params("")


def _refuse(family: str, params: str, expected: str) -> ParameterError:
    return ParameterError(f"The '{family}' parameters must be {expected}. Got {params!r} instead.")


def cutoff_help(domain: Domain = CUTOFF) -> str:
    return f"whole numbers from {domain.low:g} to {domain.high:g} separated by commas, each once (P.5,10)"


#: a real cut-off (a recall level, a multiple of R)
LEVEL = Domain(0.0, 1e6)
LEVEL_HELP = f"numbers in [0, {LEVEL.high:g}] separated by commas, each once (iprec_at_recall..1,.25)"


def cutoffs(family: str, params: str, domain: Domain = CUTOFF) -> list[int]:
    """Integer cut-offs in ``domain``, ascending (``P.20,5`` -> 5, 20; ``23.4`` -> 23, as trec_eval)."""
    values = []
    for text in params.split(","):
        m = _CUTOFF.match(text)
        value = int(m.group("whole")) if m else 0
        if not domain.holds(value):
            raise _refuse(family, params, cutoff_help(domain))
        values.append(value)
    return _distinct(family, params, sorted(values), cutoff_help(domain))


def levels(family: str, params: str) -> list[float]:
    """Real cut-offs as doubles, ascending (``..333,.155`` -> 0.155, 0.333; never rounded)."""
    values = [plain_decimal(text) for text in params.split(",")]  # C's atof of a plain decimal, else NaN
    if not all(LEVEL.holds(v) for v in values):
        raise _refuse(family, params, LEVEL_HELP)
    return _distinct(family, params, sorted(values), LEVEL_HELP)


def _distinct(family: str, params: str, values: list[_T], expected: str) -> list[_T]:
    if any(a == b for a, b in itertools.pairwise(values)):
        raise ParameterError(
            f"The '{family}' parameters must be {expected}; trec_eval refuses duplicate "
            f"cut-offs too. Got {params!r} instead."
        )
    return values


def reals(family: str, params: str, count: int | None = None, domain: Domain = REAL) -> Params:
    """Numbers in the given order (``utility.2,-1,0,0``), each in ``domain``; ``count``: exactly that many."""
    values = tuple(float(domain.read(family, text)) for text in params.split(","))
    if count is not None and len(values) != count:
        raise _refuse(family, params, f"{plural(count, 'number')} separated by commas")
    return Params(params, values=values)


#: the named parameters a ``gains`` parameter can take beside its levels (cwl_eval's, ir_measures')
PAIRS = {
    key.name: key
    for key in (
        Key("p", None, PERSISTENCE),
        Key("k", None, CUTOFF),
        Key("T", None, T_DOMAIN),
        Key("min_rel", None, REAL),
        Key("max_rel", None, REAL),
        Key("normalize", None, Domain(0, 1, whole=True)),
    )
}


def pairs(*names: str) -> tuple[Key, ...]:
    """The declared keys of ``names`` (:data:`PAIRS`)."""
    return tuple(PAIRS[name] for name in names)


def gains(family: str, params: str, keys: tuple[Key, ...] = (), domain: Domain = REAL) -> Params:
    """``name=value`` pairs in the given order: an integer name is a level and its gain (in ``domain``),
    ``keys`` (rbp's ``p``) are the measure's own, each in its domain; other names are read and left out of the
    gain table, as trec_eval 10 does (``ndcg.p=2,1=3`` is ``ndcg.1=3`` printed ``ndcg_p=2,1=3``)."""
    names = tuple(k.name for k in keys)
    expected = (
        "name=value pairs separated by commas, level=gain for the gains (ndcg.1=3,2=9)"
        if not names
        else f"name=value pairs separated by commas, level=gain for the gains and "
        f"{'/'.join(names)}=value ({family}.p=0.8,1=3)"
    )
    by_name = {k.name: k.domain for k in keys}
    found = []
    for item in params.split(","):
        name, eq, value = item.partition("=")
        if not eq or "=" in value or not name:
            raise _refuse(family, params, expected)
        found.append((name, float(by_name.get(name, domain).read(f"{family}.{name}", value))))
    return Params(params, pairs=tuple(found))


#: ir_measures' spelling with options: ``P(rel=2)@5``, ``nDCG(dcg='exp-log2')@10``, ``SetF(beta=0.5)``
_OPTIONS = re.compile(r"(?P<head>[^\W\d][\w-]*)\((?P<options>.*)\)(?:@(?P<cutoff>[^@()]+))?\Z")
#: ranx's relevance level suffix: ``ndcg@10-l2``
_RANX_LEVEL = re.compile(r"(?P<name>.+)-l(?P<level>[0-9]+)\Z")
OPTIONS_HELP = "name=value options in ir_measures' syntax, values Python literals (P(rel=2)@5)"


@dataclass(frozen=True)
class Spelling:
    """A name in ir_measures' or ranx's syntax: the name without its options (``P@5``) and the options
    (``{'rel': 2}``; ranx's ``-l2`` is ``rel=2``)."""

    name: str
    options: tuple[tuple[str, object], ...] = ()


def spelling(text: str) -> Spelling | None:
    """The options of an ir_measures (``P(rel=2)@5``) or ranx (``ndcg@10-l2``) name; None for a plain name."""
    import ast

    ranx = _RANX_LEVEL.match(text)
    if ranx and "(" not in text:
        return Spelling(ranx.group("name"), (("rel", int(ranx.group("level"))),))
    m = _OPTIONS.match(text)
    if m is None:
        return None
    head, cutoff = m.group("head"), m.group("cutoff")
    try:
        call = ast.parse(f"f({m.group('options')})", mode="eval").body
        if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
            raise ValueError(text)
        options = tuple((str(k.arg), ast.literal_eval(k.value)) for k in call.keywords)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise _refuse(head, text, OPTIONS_HELP) from None
    if len({name for name, _ in options}) != len(options):
        raise _refuse(head, text, OPTIONS_HELP + ", each once")
    return Spelling(head if cutoff is None else f"{head}@{cutoff}", options)
