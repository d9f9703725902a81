"""The common shape of a moment-retrieval protocol: options in, official figures and notes out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class MrOptions:
    """Options of ``segeval mr``; None means the protocol's own default (a protocol refuses what it does not use)."""

    thresholds: tuple[float, ...] | None = None
    top_k: tuple[int, ...] | None = None
    iou_compare: str | None = None  # "ge" or "gt"
    nms: float | None = None


@dataclass
class MrResult:
    """``figures``: the official output (its keys, order and rounding), printed by ``-o json``;
    ``brief``: the headline figures, printed by ``-o text``; ``notes``: what differs from the official run."""

    figures: dict[str, Any]
    brief: dict[str, Any]
    notes: list[str] = field(default_factory=list)


class Evaluate(Protocol):
    def __call__(self, truth: str, predictions: str, options: MrOptions) -> MrResult: ...
