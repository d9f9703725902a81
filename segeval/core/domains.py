"""The domains of every parameter a user gives, declared once: what a value may be, refused as scikit-learn words it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from segeval.core.errors import ParameterError, shown

#: the largest magnitude of a real parameter a measure computes with, and the smallest non-zero one
HUGE, TINY = 1e100, 1e-100
#: the largest whole number (trec_eval compares cut-offs as C ints)
MAX_WHOLE = 2**31 - 1
#: a number as C's ``atof`` reads a plain decimal (hexadecimal, ``nan`` and ``inf`` are refused)
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def plain_decimal(text: str) -> float:
    """``text`` written as a plain decimal (sign, digits, a point, an exponent: C's ``atof`` of it), else NaN."""
    return float(text) if _NUMBER.match(text) else math.nan


def _bound(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e16 else f"{x:.0e}".replace("e+", "e")


@dataclass(frozen=True)
class Domain:
    """Finite numbers from ``low`` to ``high`` (open ends, whole ones), or one of ``words``."""

    low: float = -HUGE
    high: float = HUGE
    open_low: bool = False
    open_high: bool = False
    whole: bool = False
    words: tuple[str, ...] = ()
    numbers: bool = True
    many: bool = False  #: a comma list of such values (``--thresholds 0.3,0.5``)

    def __str__(self) -> str:
        if self.many:
            return f"a comma-separated list, each {replace(self, many=False)}"
        if not self.numbers:
            return "one of " + ", ".join(map(repr, self.words))
        kind = "an integer" if self.whole else "a number"
        if self.whole and self.high >= MAX_WHOLE:
            number = f"{kind} >= {self.low:g}"
        else:
            number = (
                f"{kind} in {'(' if self.open_low else '['}{_bound(self.low)}, {_bound(self.high)}"
                f"{')' if self.open_high else ']'}"
            )
        return " or ".join([*map(repr, self.words), number])

    def holds(self, value: object) -> bool:
        """True when ``value`` (a Python number or word) is in the domain."""
        if isinstance(value, str):
            return value in self.words
        if not self.numbers or isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.whole and not isinstance(value, int):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        below = value <= self.low if self.open_low else value < self.low
        above = value >= self.high if self.open_high else value > self.high
        return not below and not above

    def check(self, name: str, value: object) -> object:
        """``value`` when in the domain, else a ParameterError naming ``name``, the value and the domain."""
        if not self.holds(value):
            raise ParameterError(f"The '{name}' parameter must be {self}. Got {shown(value)} instead.")
        return value

    def value(self, text: str) -> float | int | str | None:
        """The value ``text`` writes (a word, a whole number, a plain decimal), None when it writes none."""
        text = text.strip()
        if text in self.words:
            return text
        if not self.numbers:
            return None
        if self.whole:
            return int(text) if re.fullmatch(r"[+-]?[0-9]{1,12}", text) else None
        number = plain_decimal(text)
        return None if math.isnan(number) else number

    def values(self, name: str, text: str) -> tuple[float | int | str, ...]:
        """The comma list ``text``, each value in the domain, else a ParameterError naming ``name``."""

        def element(part: str) -> float | int | str:
            number = part if part in self.words else plain_decimal(part)
            return int(number) if self.whole and isinstance(number, float) and number.is_integer() else number

        out = [element(part.strip()) for part in text.split(",")]
        if not all(replace(self, many=False).holds(v) for v in out):
            raise ParameterError(f"The '{name}' parameter must be {self}. Got {shown(text)} instead.")
        return tuple(out)

    def read(self, name: str, text: str) -> float | int | str:
        """The value ``text`` writes when in the domain, else a ParameterError as :meth:`check`."""
        value = self.value(text)
        if value is None or not self.holds(value):
            raise ParameterError(f"The '{name}' parameter must be {self}. Got {shown(text)} instead.")
        return value


#: common domains
REAL = Domain()
#: INST's T: from 1e-6, so that its C_i's denominator i + 2T - (gain up to i), at least 2T, is no rounding error
T_DOMAIN = Domain(1e-6, HUGE)
POSITIVE = Domain(TINY, HUGE)
NONNEGATIVE = Domain(0.0, HUGE)
UNIT = Domain(0.0, 1.0)  #: alpha
PERSISTENCE = Domain(0.0, 1.0, open_high=True)  #: RBP's p
PROBABILITY = Domain(TINY, 1.0, open_high=True)  #: a prior in (0, 1), at least TINY
CUTOFF = Domain(1, MAX_WHOLE, whole=True)
COUNT = Domain(1, HUGE, whole=True)  #: a count from 1, unbounded (-M)
SEED = Domain(0, MAX_WHOLE, whole=True)  #: a random seed
OPEN_UNIT = Domain(0.0, 1.0, open_low=True, open_high=True)  #: a smoothing weight
PROPORTION = Domain(0.0, 1.0, open_low=True)  #: a tIoU threshold, a fraction of the judgements kept
PROPORTIONS = replace(PROPORTION, many=True)  #: such numbers separated by commas
UNITS = replace(UNIT, many=True)  #: IoU thresholds separated by commas
#: cut-offs separated by commas, each also within its count's limit (segeval.core.limits)
CUTOFFS = Domain(1, HUGE, whole=True, many=True)
#: the cut-offs of measures whose work grows with the cut-off itself (a sum or a list rank by rank to k)
RANKS = Domain(1, 100_000, whole=True)


@dataclass(frozen=True)
class Key:
    """One named parameter of a measure (``p`` of ``rbp.p=0.8``): its domain and default."""

    name: str
    default: float | str | None
    domain: Domain = REAL

    def expected(self) -> str:
        return f"{self.name}={self.domain}"


#: every command's numeric options (command -> parameter -> flag and domain), as segeval.cli.options.numeric
#: declares them (listed by segeval.cli.commands.load)
OPTIONS: dict[str, dict[str, tuple[str, Domain]]] = {}


def check_options(domains: Mapping[str, tuple[str, Domain]], given: Mapping[str, object]) -> None:
    """Every option of ``domains`` (name -> flag and domain) that ``given`` holds, checked before any work."""
    for name, (flag, domain) in domains.items():
        value = given.get(name)
        if isinstance(value, str):
            domain.values(flag, value) if domain.many else domain.read(flag, value)
        elif value is not None:
            domain.check(flag, value)
