"""Moment-retrieval protocols, each benchmark's official evaluation with its conventions stated.

``PROTOCOLS`` maps a protocol name to the module that implements it; each such module has
``evaluate_files(truth, predictions, options: MrOptions) -> MrResult``.
"""

from __future__ import annotations

import importlib

from segeval.protocols.moments.protocol import Evaluate, MrOptions, MrResult
from segeval.protocols.moments.qvhighlights.highlights import batch_highlights, highlight_ap, highlight_aps
from segeval.protocols.moments.qvhighlights.reading import Moments, read_moments
from segeval.protocols.moments.qvhighlights.report import BUCKETS, SALIENCY_LEVELS, evaluate_moments
from segeval.protocols.moments.qvhighlights.retrieval import (
    THRESHOLDS,
    average_precision,
    average_precisions,
    batch_average_precisions,
    batch_first_ious,
    iou_matrix,
    r1_iou,
    recall_at,
)

PROTOCOLS: dict[str, str] = {
    "qvhighlights": "segeval.protocols.moments.qvhighlights",
    "didemo": "segeval.protocols.moments.didemo",
    "ego4d-nlq": "segeval.protocols.moments.ego4d_nlq",
    "recall": "segeval.protocols.moments.recall",
    "tvr": "segeval.protocols.moments.tvr",
}


def protocol(name: str) -> Evaluate:
    """The ``evaluate_files`` function of protocol ``name`` (imported on first use)."""
    from segeval.core.errors import check_choice

    check_choice("protocol", name, tuple(PROTOCOLS))
    function: Evaluate = importlib.import_module(PROTOCOLS[name]).evaluate_files
    return function


__all__ = [
    "BUCKETS",
    "PROTOCOLS",
    "SALIENCY_LEVELS",
    "THRESHOLDS",
    "Evaluate",
    "Moments",
    "MrOptions",
    "MrResult",
    "average_precision",
    "average_precisions",
    "batch_average_precisions",
    "batch_first_ious",
    "batch_highlights",
    "evaluate_moments",
    "highlight_ap",
    "highlight_aps",
    "iou_matrix",
    "protocol",
    "r1_iou",
    "read_moments",
    "recall_at",
]
