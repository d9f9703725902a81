"""ActivityNet proposals (``eval_proposal.py``): AR@AN, its area (AUC, %) and AR@k as BSN/BMN/G-TAD report it,
in the official arithmetic (docs/detection.md: the conventions table and worked example 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from segeval.adapters.tiou import tiou
from segeval.core.arrays import FloatArray
from segeval.core.words import plural
from segeval.protocols.detection import read as R
from segeval.protocols.detection.order import descending

THRESHOLDS = tuple(np.linspace(0.5, 0.95, 10).tolist())
AR_AT = (1, 5, 10, 100)


@dataclass
class ProposalResult:
    """``recall[t, j]`` at threshold t and curve point j; ``avg_recall[j]``; ``proposals_per_video[j]``."""

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
    an = float(max_proposals)
    ratio = an * float(n_videos) / len(p.video) if len(p.video) else 0.0
    sizes = np.bincount(p.video, minlength=len(p.videos))[gt_videos]
    kept = np.minimum((sizes * ratio).astype(np.int64), sizes)  # min(int(n x ratio), n) per video
    kept_total = int(kept.sum())
    per_video = _kept_ious(t, p, gt_videos, kept.tolist())
    pcn = np.arange(1, 101) / 100.0 * (an * float(n_videos) / kept_total) if kept_total else np.full(100, np.inf)
    positives = np.array([s.shape[0] for s in per_video], dtype=np.float64)
    recall = _matches(per_video, th, pcn) / positives.sum()
    avg = recall.mean(axis=0)
    per = pcn * (float(kept_total) / n_videos)
    auc = float(np.trapezoid(avg, per)) if kept_total else 0.0
    ar_at = {k: float(np.mean(recall[:, k - 1])) for k in AR_AT}
    notes = [*p.notes, *_notes(int((sizes == 0).sum()), max_proposals, int(kept.min()), ratio)]
    auc_percent = 100.0 * auc / float(per[-1]) if kept_total else 0.0
    return ProposalResult(recall, avg, per, auc_percent, ar_at, notes)


def _kept_ious(t: R.Truth, p: R.Predictions, gt_videos: list[int], kept: list[int]) -> list[FloatArray]:
    """Per ground-truth video, the tIoU of each instance with each of its ``kept`` best proposals (instances x
    kept; one column of zeros for a video without proposals)."""
    by_video = np.argsort(p.video, kind="stable")
    bounds = np.searchsorted(p.video[by_video], np.arange(len(p.videos) + 1))
    gt_by_video = np.argsort(t.video, kind="stable")
    gt_bounds = np.searchsorted(t.video[gt_by_video], np.arange(len(p.videos) + 1))
    per_video: list[FloatArray] = []
    for v, keep in zip(gt_videos, kept, strict=True):
        gts = gt_by_video[gt_bounds[v] : gt_bounds[v + 1]]
        rows = by_video[bounds[v] : bounds[v + 1]]
        if len(rows) == 0:
            per_video.append(np.zeros((len(gts), 1), dtype=np.float64))
            continue
        rows = rows[descending(p.score[rows])][:keep]
        starts, ends = t.start[gts][:, None], t.end[gts][:, None]
        iou = tiou(p.start[rows][None, :], p.end[rows][None, :], starts, ends, form="union")
        per_video.append(iou)
    return per_video


def _matches(per_video: list[FloatArray], th: FloatArray, pcn: FloatArray) -> FloatArray:
    """Instances recalled per threshold and curve point, summed over videos (whole counts: exact in any order)."""
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
    """Notes on videos without proposals, AR@k not at k proposals and every proposal kept."""
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
