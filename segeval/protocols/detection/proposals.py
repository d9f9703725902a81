"""ActivityNet proposals (``eval_proposal.py``): AR@AN, its area (AUC, %) and AR@k as BSN/BMN/G-TAD report it,
in the official arithmetic (docs/detection.md: the conventions table and worked example 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray
from segeval.core.words import plural
from segeval.protocols.detection import read as R
from segeval.protocols.detection.match import official_tiou
from segeval.protocols.detection.order import descending

THRESHOLDS = tuple(np.linspace(0.5, 0.95, 10).tolist())
AR_AT = (1, 5, 10, 100)


@dataclass
class ProposalResult:
    """``recall[t, j]`` at ``thresholds[t]`` and curve point j; ``avg_recall[j]``; ``proposals_per_video[j]``."""

    thresholds: list[float]
    max_proposals: int
    recall: FloatArray
    avg_recall: FloatArray
    proposals_per_video: FloatArray
    auc_percent: float
    ar_at: dict[int, float]
    notes: list[str] = field(default_factory=list)


def evaluate_proposals(
    t: R.Truth, p: R.Predictions, max_proposals: int = 100, thresholds: Sequence[float] = THRESHOLDS
) -> ProposalResult:
    """AR@AN, AUC and AR@k of proposals ``p`` against ``t`` (labels ignored)."""
    th = np.asarray(list(thresholds), dtype=np.float64)
    gt_videos = [int(v) for v in dict.fromkeys(t.video.tolist())]  # ground_truth['video-id'].unique()
    n_videos = len(gt_videos)
    total = len(p.video)
    an = float(max_proposals)
    ratio = an * float(n_videos) / total if total else 0.0
    by_video = np.argsort(p.video, kind="stable")
    bounds = np.searchsorted(p.video[by_video], np.arange(len(p.videos) + 1))
    per_video, kept_total, missing = _kept_ious(t, p, gt_videos, by_video, bounds, ratio)
    pcn = np.arange(1, 101) / 100.0 * (an * float(n_videos) / kept_total) if kept_total else np.full(100, np.inf)
    positives = np.array([s.shape[0] for s in per_video], dtype=np.float64)
    recall = _matches(per_video, th, pcn) / positives.sum()
    avg = recall.mean(axis=0)
    per = pcn * (float(kept_total) / n_videos)
    auc = float(np.trapezoid(avg, per)) if kept_total else 0.0
    ar_at = {k: float(np.mean(recall[:, k - 1])) for k in AR_AT}
    kept_counts = [min(int((bounds[v + 1] - bounds[v]) * ratio), int(bounds[v + 1] - bounds[v])) for v in gt_videos]
    notes = [*p.notes, *_notes(missing, max_proposals, min(kept_counts, default=0), ratio)]
    return ProposalResult(
        list(th.tolist()),
        max_proposals,
        recall,
        avg,
        per,
        100.0 * auc / float(per[-1]) if kept_total else 0.0,
        ar_at,
        notes,
    )


def _kept_ious(
    t: R.Truth,
    p: R.Predictions,
    gt_videos: list[int],
    by_video: npt.NDArray[np.intp],
    bounds: npt.NDArray[np.intp],
    ratio: float,
) -> tuple[list[FloatArray], int, int]:
    """Per ground-truth video, the tIoU of each instance with each kept proposal (instances x kept; one column
    of zeros for a video without proposals); the proposals kept in all; the videos without proposals."""
    gt_by_video = np.argsort(t.video, kind="stable")
    gt_bounds = np.searchsorted(t.video[gt_by_video], np.arange(len(p.videos) + 1))
    per_video: list[FloatArray] = []
    kept_total = 0
    missing = 0
    for v in gt_videos:
        gts = gt_by_video[gt_bounds[v] : gt_bounds[v + 1]]
        rows = by_video[bounds[v] : bounds[v + 1]]
        if len(rows) == 0:
            per_video.append(np.zeros((len(gts), 1), dtype=np.float64))
            missing += 1
            continue
        rows = rows[descending(p.score[rows])]
        keep = min(int(len(rows) * ratio), len(rows))
        kept_total += keep
        rows = rows[:keep]
        iou = official_tiou(p.start[rows][None, :], p.end[rows][None, :], t.start[gts][:, None], t.end[gts][:, None])
        per_video.append(iou)
    return per_video, kept_total, missing


def _matches(per_video: list[FloatArray], th: FloatArray, pcn: FloatArray) -> FloatArray:
    """Instances recalled, summed over videos, per threshold and curve point: whole counts, so any order gives
    the official's matches.sum(axis=0) exactly."""
    matches = np.zeros((len(th), len(pcn)), dtype=np.float64)
    for score in per_video:
        k = score.shape[1]
        if k == 0 or score.shape[0] == 0:  # int(n x ratio) kept none
            continue
        counts = np.minimum((k * pcn).astype(np.int64), k)
        hits = score[None, :, :] >= th[:, None, None]
        # the first proposal reaching θ per instance: recalled with n proposals when it is < n
        first = np.where(hits.any(axis=2), hits.argmax(axis=2), k)
        matches += np.count_nonzero(first[:, :, None] < counts[None, None, :], axis=1)
    return matches


def _notes(missing: int, max_proposals: int, fewest_kept: int, ratio: float) -> list[str]:
    """What differs from the figures' plain reading: videos without proposals, AR@k not at k proposals, every
    proposal kept."""
    notes = []
    if missing:
        notes.append(
            f"{plural(missing, 'video')} with ground truth but no proposal: their instances count as not "
            "recalled, as the official code counts them"
        )
    if max_proposals != 100 or fewest_kept < 100:
        notes.append(
            "AR@k is the mean of recall[t][k-1], the curve's k-th point: k proposals per video only when "
            "AN = 100 and every video keeps at least 100"
        )
    if ratio > 1:
        notes.append(f"the file has fewer proposals than AN x videos (ratio {ratio:g} > 1): every proposal is kept")
    return notes
