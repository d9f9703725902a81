"""The QUESST figures' parameters, declared once for the measure registry and ``segeval qbe`` (computed in
:mod:`segeval.measures.trials`; docs/speech.md, "Query by example").  Imports no NumPy."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from segeval.core.domains import POSITIVE, PROBABILITY, TINY, Domain, Key
from segeval.core.errors import ParameterError
from segeval.measures.declaration import settings, value_text

#: the task's costs: P_target 0.0008, C_miss 100, C_fa 1 (so β = 12.49)
P_TARGET, COST_MISS, COST_FA = 0.0008, 100.0, 1.0
_P_TARGET = Key("p_target", P_TARGET, PROBABILITY)
_COST_MISS = Key("cost_miss", COST_MISS, POSITIVE)
_COST_FA = Key("cost_fa", COST_FA, POSITIVE)
#: Cnxe's prior: ``effective`` (the effective prior of the costs) or a probability
_PRIOR = Key("prior", "effective", Domain(TINY, 1.0, open_high=True, words=("effective",)))
#: an unreported trial's score: ``lowest`` (the lowest score the run reports) or a number
_DEFAULT = Key("default_score", "lowest", Domain(words=("lowest",)))
#: actual TWV's decisions: ``given`` (the run's YES/NO) or ``bayes`` (YES when the score is >= ln β)
_DECISIONS = Key("decisions", "given", Domain(words=("given", "bayes"), numbers=False))

CNXE_KEYS = (_P_TARGET, _COST_MISS, _COST_FA, _PRIOR, _DEFAULT)
#: every key by name (``segeval qbe``'s options take their domains)
KEYS = {k.name: k for k in (*CNXE_KEYS, _DECISIONS)}
TWV_KEYS = (_P_TARGET, _COST_MISS, _COST_FA, _DEFAULT)
ACT_TWV_KEYS = (*TWV_KEYS, _DECISIONS)


@dataclass(frozen=True)
class QbeParameters:
    """One figure's parameters, from its normalised ``key=value`` text (:func:`parameters`)."""

    p_target: float = P_TARGET
    cost_miss: float = COST_MISS
    cost_fa: float = COST_FA
    prior: float | None = None  # None: the effective prior
    default_score: float | None = None  # None: the lowest reported score
    decisions: str = "given"

    def __post_init__(self) -> None:
        if self.prior is None and not PROBABILITY.holds(self.effective_prior):
            raise ParameterError(
                "The 'p_target', 'cost_miss' and 'cost_fa' parameters must give an effective prior P_target C_miss / "
                f"(P_target C_miss + (1 - P_target) C_fa) that is {PROBABILITY}. Got {self.effective_prior!r} instead "
                f"(from {self.p_target!r}, {self.cost_miss!r} and {self.cost_fa!r})."
            )

    @property
    def beta(self) -> float:
        """β = (C_fa / C_miss)(1 − P_target) / P_target."""
        return (self.cost_fa / self.cost_miss) * (1 - self.p_target) / self.p_target

    @property
    def effective_prior(self) -> float:
        """Cnxe's prior: ``prior``, else P_target·C_miss / (P_target·C_miss + (1 − P_target)·C_fa)."""
        if self.prior is not None:
            return self.prior
        weighted = self.cost_miss * self.p_target
        return weighted / (weighted + self.cost_fa * (1 - self.p_target))

    def text(self, keys: tuple[Key, ...]) -> str:
        """The normalised parameter text of the keys that differ from their defaults ("" when none does)."""
        given = asdict(self) | {
            "prior": "effective" if self.prior is None else self.prior,
            "default_score": "lowest" if self.default_score is None else self.default_score,
        }
        return ",".join(f"{k.name}={value_text(given[k.name])}" for k in keys if given[k.name] != k.default)


def parameters(keys: tuple[Key, ...], params: str | None) -> QbeParameters:
    """The :class:`QbeParameters` of a figure's keys and normalised parameter text (None: the defaults)."""
    p = settings(keys, params)
    prior = p.get("prior", "effective")
    default = p.get("default_score", "lowest")
    return QbeParameters(
        float(p["p_target"]),
        float(p["cost_miss"]),
        float(p["cost_fa"]),
        None if prior == "effective" else float(prior),
        None if default == "lowest" else float(default),
        str(p.get("decisions", "given")),
    )
