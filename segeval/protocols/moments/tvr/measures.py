"""TVR's measures in the official 32-bit float arithmetic: IoU, hits per prediction slot, and VCMR, SVMR
and VR recall at k per query, overall and by description type."""

from __future__ import annotations

from typing import Any

import numpy as np

from segeval.core.arrays import BoolArray, Float32Array
from segeval.protocols.moments.tvr.reading import MAX_PREDICTIONS, TYPES, Tvr, key

THRESHOLDS = (0.5, 0.7)
TOP_K = (1, 5, 10, 100)
LEAST_ANNOTATORS = 2


def iou32(predictions: Float32Array, moment: Float32Array) -> Float32Array:
    """The official float32 IoU of (…, 2) [start, end] predictions with one [start, end] moment:
    overlap / hull, 0 where the hull is empty."""
    from segeval.adapters.tiou import tiou32

    return tiou32(predictions[..., 0], predictions[..., 1], moment[..., 0], moment[..., 1])


def hits(data: Tvr, task: str, thresholds: tuple[float, ...]) -> tuple[BoolArray, BoolArray, BoolArray]:
    """Per query (ground-truth order) and prediction slot (first 100): (valid, video matched, hit per θ).

    Shapes (queries, 100), (queries, 100), (thresholds, queries, 100); a missing query has no valid slot."""
    n = len(data.queries)
    rows = np.zeros((n, MAX_PREDICTIONS, 3), dtype=np.float32)
    valid = np.zeros((n, MAX_PREDICTIONS), dtype=bool)
    preds = data.predictions[task]
    for i, q in enumerate(data.queries):
        p = preds.get(key(q.desc_id))
        if p is not None and len(p):
            rows[i, : len(p)] = p.astype(np.float32)
            valid[i, : len(p)] = True
    gt_video = np.array([data.video2idx[q.video] for q in data.queries], dtype=np.float32)
    matched = (rows[:, :, 0] == gt_video[:, None]) & valid
    correct = np.zeros((len(thresholds), n, MAX_PREDICTIONS), dtype=bool)
    single = np.array([len(q.windows) == 1 for q in data.queries], dtype=bool)
    moments = np.zeros((n, 2), dtype=np.float32)
    moments[single] = np.array([q.windows[0] for q in data.queries if len(q.windows) == 1], dtype=np.float32).reshape(
        -1, 2
    )
    scores = iou32(rows[:, :, 1:3], moments[:, None, :]) * matched
    for t, theta in enumerate(thresholds):
        correct[t] = (scores >= np.float32(theta)) & valid & single[:, None]
    for i in np.flatnonzero(~single).tolist():  # DiDeMo-style: at least 2 annotators' moments reached
        counts = np.zeros((len(thresholds), MAX_PREDICTIONS), dtype=np.int64)
        for w in data.queries[i].windows.astype(np.float32):
            s = iou32(rows[i, :, 1:3], w) * matched[i]
            for t, theta in enumerate(thresholds):
                counts[t] += s >= np.float32(theta)
        correct[:, i] = (counts >= LEAST_ANNOTATORS) & valid[i]
    return valid, matched, correct


def pct(count: int | np.integer[Any], total: int) -> float | None:
    """The official percentage: count / total x 100 rounded to 2 decimals as NumPy rounds (None for 0/0)."""
    if total == 0:
        return None
    return float(np.round(np.float64(count) / total * 100, 2))


def per_query(
    data: Tvr, task: str, thresholds: tuple[float, ...] = THRESHOLDS, top_k: tuple[int, ...] = TOP_K
) -> dict[str, BoolArray]:
    """Official key (``0.5-r1``, ``r1``) -> whether each ground-truth query has a hit there."""
    _, matched, correct = hits(data, task, thresholds)
    found: dict[str, BoolArray] = {}  # official key -> per-query hit
    if task == "VR":
        for k in top_k:
            found[f"r{k}"] = np.asarray(matched[:, :k].any(axis=1))
    else:
        rank = np.cumsum(matched, axis=1)  # SVMR: position among the ground-truth video's predictions
        for t, theta in enumerate(thresholds):
            for k in top_k:
                chosen = correct[t][:, :k] if task == "VCMR" else correct[t] & matched & (rank <= k)
                found[f"{theta}-r{k}"] = np.asarray(chosen.any(axis=1))
    return found


def task_figures(
    data: Tvr, task: str, thresholds: tuple[float, ...], top_k: tuple[int, ...]
) -> tuple[dict[str, float | None], dict[str, Any] | None]:
    """One task's official figures and, when the ground truth has types, its ``_by_type`` figures."""
    found = per_query(data, task, thresholds, top_k)
    n = len(data.queries)
    metrics = {name: pct(int(hit.sum()), n) for name, hit in found.items()}
    if any(q.type is None for q in data.queries):
        return metrics, None
    types = np.array([q.type for q in data.queries])
    by_type: dict[str, Any] = {}
    for kind in TYPES:
        mine = types == kind
        for name, hit in found.items():
            by_type[f"{kind}-{name}"] = pct(int((hit & mine).sum()), int(mine.sum()))
    ratios = [pct(int((types == kind).sum()), n) for kind in TYPES]
    by_type["desc_type_ratio"] = "v {} t {} vt {}".format(*["nan" if r is None else r for r in ratios])
    return metrics, by_type
