"""Moment retrieval (QVHighlights-style): R@k and mAP at temporal IoU thresholds, mIoU, length buckets.

Matches the official QVHighlights evaluator (moment_detr ``standalone_eval``):

* IoU of windows [s1, e1] and [s2, e2] is overlap / (max(e1, e2) - min(s1, s2)), and 0 when
  that hull is empty.
* ``R1@t``: the first listed prediction (list order, not re-sorted by score) against the ground
  truth window with the highest IoU with it; a hit when IoU >= t.  ``R5@t``: any of the first five.
* ``mAP@t``: per query, the first 10 predictions sorted by score (descending; equal scores keep
  list order), each matched greedily to the unmatched ground-truth window of highest IoU >= t;
  VOC interpolated average precision; averaged over queries, then over t = 0.50, 0.55 .. 0.95.
* Length buckets: ``short`` (0, 10], ``middle`` (10, 30], ``long`` (30, 150] keep only the ground
  truth windows of that length and the queries that have one; ``full`` keeps everything.
* Differences, stated in the output's notes: a query with no prediction scores 0 (the official
  script leaves it out of mAP and fails on it for R1); ties are broken deterministically.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.errors import InputError

THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
BUCKETS = {"short": (0.0, 10.0), "middle": (10.0, 30.0), "long": (30.0, 150.0), "full": (0.0, 150.0)}
FloatArray = npt.NDArray[np.float64]


@dataclass
class Moments:
    """Per query: ground-truth windows and predicted (start, end, score) in list order."""

    truth: dict[str, FloatArray] = field(default_factory=dict)
    predictions: dict[str, FloatArray] = field(default_factory=dict)
    videos: dict[str, str] = field(default_factory=dict)


def _jsonl(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    from segeval.read import read_bytes

    name = str(path)
    raw = read_bytes(path)  # any readable file or '-', gunzipped, within the input limits
    rows = []
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(name, f"is not a JSON object ({exc.msg}); expected one JSON object per line",
                             line=number, text=line[:200]) from None
        if not isinstance(value, dict) or "qid" not in value:
            raise InputError(name, "expected a JSON object with a 'qid'", line=number, text=line[:200])
        rows.append((number, value))
    if not rows:
        raise InputError(name, "has no data lines; expected JSON Lines")
    return rows


def _windows(value: Any, width: int, path: str, number: int, key: str) -> FloatArray:
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1, width)
    except (TypeError, ValueError):
        raise InputError(path, f"'{key}' must be a list of [start, end{', score' if width == 3 else ''}] lists",
                         line=number, text=json.dumps(value)[:200]) from None
    if arr.size and (not np.isfinite(arr).all() or (arr[:, 1] < arr[:, 0]).any() or (arr[:, 0] < 0).any()):
        raise InputError(path, f"'{key}' has a window with a non-finite or negative time, or end < start",
                         line=number, text=json.dumps(value)[:200])
    return arr


def read_moments(truth_path: str | Path, predictions_path: str | Path) -> Moments:
    """QVHighlights JSON Lines: ground truth (``relevant_windows``) and a submission
    (``pred_relevant_windows`` of [start, end, score])."""
    m = Moments()
    for number, row in _jsonl(truth_path):
        qid = str(row["qid"])
        m.truth[qid] = _windows(row.get("relevant_windows", []), 2, str(truth_path), number, "relevant_windows")
        m.videos[qid] = str(row.get("vid", ""))
    for number, row in _jsonl(predictions_path):
        qid = str(row["qid"])
        if qid in m.predictions:
            raise InputError(str(predictions_path), f"query {qid} appears twice; expected one line per query",
                             line=number, text=json.dumps(row)[:200])
        m.predictions[qid] = _windows(row.get("pred_relevant_windows", []), 3, str(predictions_path), number,
                                      "pred_relevant_windows")
    return m


def iou_matrix(a: FloatArray, b: FloatArray) -> FloatArray:
    """IoU of every window in ``a`` against every window in ``b`` (hull as denominator)."""
    inter = np.maximum(0.0, np.minimum(a[:, None, 1], b[None, :, 1]) - np.maximum(a[:, None, 0], b[None, :, 0]))
    hull = np.maximum(a[:, None, 1], b[None, :, 1]) - np.minimum(a[:, None, 0], b[None, :, 0])
    return np.asarray(np.divide(inter, hull, out=np.zeros_like(inter), where=hull != 0), dtype=np.float64)


def average_precision(truth: FloatArray, predictions: FloatArray, threshold: float, top: int = 10) -> float:
    """Interpolated AP of one query's predictions at an IoU threshold (the official matching)."""
    preds = predictions[:top]
    if len(preds) == 0 or len(truth) == 0:
        return 0.0
    preds = preds[np.argsort(-preds[:, 2], kind="stable")]
    ious = iou_matrix(preds[:, :2], truth)
    locked = np.zeros(len(truth), dtype=bool)
    tp = np.zeros(len(preds))
    for i in range(len(preds)):
        for j in np.argsort(ious[i], kind="stable")[::-1]:
            if ious[i, j] < threshold:
                break
            if not locked[j]:
                locked[j] = True
                tp[i] = 1.0
                break
    tp_cum = np.cumsum(tp)
    precision = tp_cum / np.arange(1, len(preds) + 1)
    recall = tp_cum / len(truth)
    mp = np.concatenate([[0.0], precision, [0.0]])
    mr = np.concatenate([[0.0], recall, [1.0]])
    for i in range(len(mp) - 2, -1, -1):
        mp[i] = max(mp[i], mp[i + 1])
    idx = np.flatnonzero(mr[1:] != mr[:-1]) + 1
    return float(np.sum((mr[idx] - mr[idx - 1]) * mp[idx]))


def recall_at(truth: FloatArray, predictions: FloatArray, threshold: float, k: int = 1) -> float:
    """1 when one of the first k listed predictions has IoU >= threshold with a ground-truth window."""
    if len(predictions) == 0 or len(truth) == 0:
        return 0.0
    return float((iou_matrix(predictions[:k, :2], truth).max(axis=1) >= threshold).any())


def top1_iou(truth: FloatArray, predictions: FloatArray) -> float:
    """IoU of the first listed prediction with its best ground-truth window (0 without prediction)."""
    if len(predictions) == 0 or len(truth) == 0:
        return 0.0
    return float(iou_matrix(predictions[:1, :2], truth).max())


def evaluate_moments(m: Moments) -> dict[str, Any]:
    """The official metric layout (values x 100, two decimals) per bucket, plus R5, mIoU and notes."""
    out: dict[str, Any] = {"brief": {}}
    missing = sorted(q for q in m.truth if q not in m.predictions or len(m.predictions[q]) == 0)
    for name, (lo, hi) in BUCKETS.items():
        truth = {q: w for q, w in m.truth.items()}
        if name != "full":
            truth = {q: w[(w[:, 1] - w[:, 0] > lo) & (w[:, 1] - w[:, 0] <= hi)] for q, w in truth.items()}
            truth = {q: w for q, w in truth.items() if len(w)}
        queries = sorted(truth)
        empty = np.zeros((0, 3))
        preds = {q: m.predictions.get(q, empty) for q in queries}
        ap = {t: [average_precision(truth[q], preds[q], t) for q in queries] for t in THRESHOLDS}
        maps = {str(t): _pct(np.mean(ap[t]) if queries else 0.0) for t in THRESHOLDS}
        maps["average"] = _pct(np.mean([np.mean(ap[t]) for t in THRESHOLDS]) if queries else 0.0)
        r1 = {str(t): _pct(np.mean([recall_at(truth[q], preds[q], t) for q in queries]) if queries else 0.0)
              for t in THRESHOLDS}
        r5 = {str(t): _pct(np.mean([recall_at(truth[q], preds[q], t, 5) for q in queries]) if queries else 0.0)
              for t in (0.5, 0.7)}
        miou = _pct(np.mean([top1_iou(truth[q], preds[q]) for q in queries]) if queries else 0.0)
        out[name] = {"MR-mAP": maps, "MR-R1": r1, "MR-R5": r5, "MR-mIoU": miou, "queries": len(queries)}
        out["brief"][f"MR-{name}-mAP"] = maps["average"]
    full = out["full"]
    out["brief"] = {"MR-full-R1@0.5": full["MR-R1"]["0.5"], "MR-full-R1@0.7": full["MR-R1"]["0.7"],
                    "MR-full-mAP": full["MR-mAP"]["average"], "MR-full-mAP@0.5": full["MR-mAP"]["0.5"],
                    "MR-full-mAP@0.75": full["MR-mAP"]["0.75"], "MR-long-mAP": out["long"]["MR-mAP"]["average"],
                    "MR-middle-mAP": out["middle"]["MR-mAP"]["average"],
                    "MR-short-mAP": out["short"]["MR-mAP"]["average"], "MR-full-mIoU": full["MR-mIoU"]}
    out["notes"] = [f"{len(missing)} queries have no prediction and score 0 (the official evaluator leaves "
                    f"them out of mAP)" if missing else "every query has predictions",
                    "equal scores keep the submission's order (deterministic)"]
    return out


def _pct(value: float | np.floating[Any]) -> float:
    return float(f"{100 * float(value):.2f}") if not math.isnan(float(value)) else 0.0
