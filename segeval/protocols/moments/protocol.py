"""The common shape of a moment-retrieval protocol: options in, official figures and notes out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from segeval.core.domains import CUTOFFS, UNIT, UNITS


@dataclass(frozen=True)
class MrOptions:
    """Options of ``segeval mr``; None means the protocol's own default (a protocol refuses what it does not use)."""

    thresholds: tuple[float, ...] | None = None
    top_k: tuple[int, ...] | None = None
    iou_compare: str | None = None  # "ge" or "gt"
    nms: float | None = None


@dataclass
class MrResult:
    """The official output (``figures``, ``-o json``), its headline figures (``brief``, ``-o text``), notes on what
    differs from the official run, and each query's ``brief`` values (``mr -q``; docs/moments.md)."""

    figures: dict[str, Any]
    brief: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    per_query: dict[str, dict[str, float | None]] = field(default_factory=dict)


class Evaluate(Protocol):
    def __call__(self, truth: str, predictions: str, options: MrOptions) -> MrResult: ...


def refuse_options(
    options: MrOptions, protocol: str, accepted: tuple[str, ...] = (), reason: str | None = None
) -> None:
    """A ParameterError when ``options`` sets one that ``protocol`` does not take (``accepted``: those it takes;
    ``reason``: why, instead of the list of those it takes)."""
    from segeval.core.errors import ParameterError

    refused = ", ".join(
        "--" + k.replace("_", "-") for k, v in vars(options).items() if v is not None and k not in accepted
    )
    if refused and reason:
        raise ParameterError(f"The {protocol} protocol {reason}; it takes no {refused}.")
    if refused:
        takes = ", ".join("--" + k.replace("_", "-") for k in accepted) if accepted else "no options"
        raise ParameterError(f"The {protocol} protocol takes {takes}; it does not take {refused}.")


def parse_options(
    thresholds: str | None = None, top_k: str | None = None, iou_compare: str | None = None, nms: float | None = None
) -> MrOptions:
    """MrOptions from the command line's text (``--thresholds 0.3,0.5 --top-k 1,5 --iou-compare ge --nms 0.5``)."""
    from segeval.core.errors import check_choice
    from segeval.core.limits import check_count

    return MrOptions(
        thresholds=None if thresholds is None else tuple(map(float, UNITS.values("--thresholds", thresholds))),
        top_k=None if top_k is None else tuple(check_count("top-k", k) for k in CUTOFFS.values("--top-k", top_k)),
        iou_compare=None if iou_compare is None else check_choice("iou-compare", iou_compare, ("ge", "gt")),
        nms=None if nms is None else float(UNIT.check("--nms", nms)),  # type: ignore[arg-type]
    )
