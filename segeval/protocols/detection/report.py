"""The detection and proposal results as rows of :mod:`segeval.reports.tables` (docs/detection.md: output)."""

from __future__ import annotations

from typing import Any

from segeval.protocols.detection.evaluate import DetectionResult
from segeval.protocols.detection.proposals import ProposalResult
from segeval.reports.tables import AVERAGE_MAP

#: a row: figure name, tIoU (None for an average over thresholds), class ('' for all), value, official text
Row = tuple[str, Any, str, float, str]
COLUMNS = (("figure", ""), ("tiou", ""), ("class", ""), ("value", ""), ("official", ""))
PROPOSAL_COLUMNS = (("figure", ""), ("an", ""), ("value", ""), ("official", ""))


def py2_str(x: float) -> str:
    """``str()`` of a double under Python 2 (what ``print '{}'.format(x)`` shows there: 12 significant digits)."""
    return format(x, ".12g")


def detection_rows(r: DetectionResult) -> list[Row]:
    """mAP per threshold, the average, then AP per class and threshold, each with the official text."""
    rows: list[Row] = []
    kit = r.protocol == "thumos14-kit"

    def text(x: float, figure: str) -> str:
        if r.protocol == "activitynet":
            return py2_str(x)
        if r.protocol == "thumos14":
            return f"{x * 100:.2f}"
        if kit:
            return f"{x:.3f}" if figure == "AP" else f"{x:f}"
        return repr(x)

    for t, m in zip(r.thresholds, r.mAP.tolist(), strict=True):
        rows.append(("mAP", t, "", m, text(m, "mAP")))
    rows.append((AVERAGE_MAP, None, "", r.average_mAP, text(r.average_mAP, AVERAGE_MAP)))
    for c, label in enumerate(r.classes):
        for k, t in enumerate(r.thresholds):
            value = float(r.ap[k, c])
            rows.append(("AP", t, label, value, text(value, "AP")))
    return rows


VIDEO_COLUMNS = (("figure", ""), ("tiou", ""), ("video", ""), ("value", ""))


def video_rows(video: str, r: DetectionResult) -> list[tuple[str, Any, str, float]]:
    """One video's mAP per threshold and Average-mAP (``detect --per-video``): :func:`detection_rows`' first rows."""
    return [(figure, t, video, value) for figure, t, _, value, _ in detection_rows(r)[: len(r.thresholds) + 1]]


def proposal_rows(r: ProposalResult) -> list[tuple[str, Any, float, str]]:
    """AUC (%), AR@1/5/10/100, then the curve (``AR@AN`` per average number of proposals per video)."""
    rows = [("AUC", None, r.auc_percent, py2_str(r.auc_percent) + "%")]
    rows += [(f"AR@{k}", None, v, py2_str(v)) for k, v in r.ar_at.items()]
    rows += [
        ("AR@AN", an, v, py2_str(v))
        for an, v in zip(r.proposals_per_video.tolist(), r.avg_recall.tolist(), strict=True)
    ]
    return rows
