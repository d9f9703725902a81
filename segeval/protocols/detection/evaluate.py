"""The detection protocols: each benchmark's official reader, matching, AP, thresholds and subset
(docs/detection.md, "Conventions side by side")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from segeval.adapters.tiou import tiou
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.domains import PROPORTIONS
from segeval.core.errors import check_choice
from segeval.core.words import plural
from segeval.protocols.detection import read as R
from segeval.protocols.detection.ap import interpolated_ap, kit_ap
from segeval.protocols.detection.match import best_free_match, kit_match
from segeval.protocols.detection.order import descending, py2_dict_order

_Rows = TypeVar("_Rows", R.Truth, R.Predictions)
PROTOCOLS = ("activitynet", "thumos14", "thumos14-kit", "ego4d-mq")
#: each protocol's default tIoU thresholds and subset
THRESHOLDS: dict[str, tuple[float, ...]] = {
    "activitynet": tuple(np.linspace(0.5, 0.95, 10).tolist()),  # its 9th value is 0.8999999999999999
    "thumos14": (0.3, 0.4, 0.5, 0.6, 0.7),
    "thumos14-kit": (0.3, 0.4, 0.5, 0.6, 0.7),
    "ego4d-mq": (0.1, 0.2, 0.3, 0.4, 0.5),
}
SUBSETS = {"activitynet": "validation", "thumos14": "test", "thumos14-kit": "test", "ego4d-mq": "val"}


@dataclass
class DetectionResult:
    """``ap[t, c]`` at ``thresholds[t]`` for ``classes[c]``, ``mAP[t]`` (summed in ``classes`` order), their mean."""

    protocol: str
    thresholds: list[float]
    classes: list[str]
    ap: FloatArray
    mAP: FloatArray
    average_mAP: float
    notes: list[str] = field(default_factory=list)


def parse_thresholds(text: str | None, protocol: str) -> list[float]:
    """``--thresholds``: numbers in (0, 1] separated by commas (:data:`PROPORTIONS`), or the protocol's default."""
    if text is None:
        return list(THRESHOLDS[protocol])
    return [float(v) for v in PROPORTIONS.values("--thresholds", text)]


def read_inputs(protocol: str, truth: str, predictions: str, subset: str) -> tuple[R.Truth, R.Predictions]:
    """The ground truth and predictions of ``protocol``'s files."""
    check_choice("protocol", protocol, PROTOCOLS)
    kit_folder = Path(truth).is_dir()
    if protocol == "thumos14-kit" or (protocol == "thumos14" and kit_folder):
        t = R.read_kit_truth(truth, subset)
        p = R.read_kit_detections(predictions, t)
        if protocol == "thumos14" and t.ambiguous:
            p.notes.append(
                f"{plural(len(t.ambiguous), 'Ambiguous interval')} ignored: the thumos14 protocol runs "
                "ActivityNet's code, which has no Ambiguous class (thumos14-kit drops the detections "
                "touching them)"
            )
    else:
        ego4d = protocol == "ego4d-mq"
        t = R.read_activitynet_truth(truth, subset, ignore_case=protocol == "thumos14", ego4d=ego4d)
        p = R.read_activitynet_predictions(predictions, t, skip_unknown=ego4d)
    p.notes.extend(R.duplicate_note(p))
    return t, p


def rankings(protocol: str, p: R.Predictions, n_classes: int) -> list[IntArray]:
    """Each class's prediction rows in the official rank order (docs/detection.md, "Ties")."""
    rows = np.arange(len(p.video))
    if protocol == "activitynet" and p.keys:
        position = np.zeros(len(p.videos), dtype=np.int64)
        position[np.array(p.keys)[py2_dict_order([p.videos[v] for v in p.keys])]] = np.arange(len(p.keys))
        rows = np.argsort(position[p.video], kind="stable")
    by_class = rows[np.argsort(p.label[rows], kind="stable")]
    bounds = np.searchsorted(p.label[by_class], np.arange(n_classes + 1)).tolist()
    return [by_class[lo:hi][descending(p.score[by_class[lo:hi]])] for lo, hi in pairwise(bounds)]


def official_classes(t: R.Truth) -> list[str]:
    """``eval_detection.py``'s class order (``activity_index``): first appearance in Python 2's dict order."""
    if not t.keys:
        return list(t.classes)
    position = {t.keys[k]: i for i, k in enumerate(py2_dict_order(t.keys))}
    rank = np.array([position[v] for v in t.videos], dtype=np.int64)
    labels = t.label[np.argsort(rank[t.video], kind="stable")]
    return [t.classes[c] for c in dict.fromkeys(labels.tolist())]


def matched(
    t: R.Truth, p: R.Predictions, thresholds: Sequence[float], ranked: list[IntArray]
) -> tuple[IntArray, IntArray, BoolArray]:
    """The rows of the rankings ``ranked`` end to end, each class's bounds in them and ``tp[t, i]``."""
    order = np.concatenate([*ranked, np.zeros(0, dtype=np.int64)])
    n_videos = len(p.videos)
    groups = p.label[order] * n_videos + p.video[order]  # (class, video)
    tp, _, _ = best_free_match(
        groups, p.start[order], p.end[order], t.label * n_videos + t.video, t.start, t.end, thresholds
    )
    return order, np.cumsum([0, *map(len, ranked)]), tp


def class_aps(
    tp: BoolArray, bounds: IntArray, npos: IntArray, keep: BoolArray | None = None, scale: float | None = None
) -> FloatArray:
    """``ap[t, c]``: the interpolated AP of each class's ranking (rows ``bounds[c]:bounds[c + 1]`` of ``tp``, those
    of ``keep``) at each threshold; no prediction: AP 0."""
    ap = np.zeros((len(tp), len(npos)), dtype=np.float64)
    for c in range(len(npos)):
        lo, hi = int(bounds[c]), int(bounds[c + 1])
        for k in range(len(tp)):
            hits = tp[k, lo:hi] if keep is None else tp[k, lo:hi][keep[k, lo:hi]]
            ap[k, c] = interpolated_ap(hits, int(npos[c]), scale)
    return ap


def activitynet_ap(protocol: str, t: R.Truth, p: R.Predictions, thresholds: Sequence[float]) -> FloatArray:
    """``ap[t, c]`` by ActivityNet's rules."""
    _, bounds, tp = matched(t, p, thresholds, rankings(protocol, p, len(t.classes)))
    return class_aps(tp, bounds, np.bincount(t.label, minlength=len(t.classes)))


def kit_aps(t: R.Truth, p: R.Predictions, thresholds: Sequence[float]) -> FloatArray:
    """``ap[t, c]`` by the THUMOS14 kit's rules (``TH14eventdetpr.m``)."""
    ap = np.zeros((len(thresholds), len(t.classes)), dtype=np.float64)
    # a detection touches Ambiguous when any Ambiguous interval of its video overlaps it (sum(ovamb) > 0)
    touches = np.zeros(len(p.video), dtype=np.bool_)
    for v, s, e in t.ambiguous:
        same = p.video == v
        touches[same] |= tiou(s, e, p.start[same], p.end[same], "zero") > 0
    names = np.array(p.videos, dtype=object)
    for c in range(len(t.classes)):
        dets = np.flatnonzero(p.label == c)
        gts = np.flatnonzero(t.label == c)
        # the kit's order: videos in sorted name order (MATLAB unique), each video's detections by confidence
        # (stable), then a stable sort by confidence: -confidence, video name, file order
        ranked = dets[np.lexsort((names[p.video[dets]], -p.score[dets]))] if len(dets) else dets
        detections = (p.video[ranked], p.start[ranked], p.end[ranked])
        instances = (t.video[gts], t.start[gts], t.end[gts])
        for k, theta in enumerate(thresholds):
            hit = kit_match(detections, instances, theta)
            kept = hit | ~touches[ranked]  # unmatched detections touching Ambiguous are dropped
            ap[k, c] = kit_ap(hit[kept], len(gts))
    return ap


def evaluate(
    protocol: str,
    truth: R.Truth,
    predictions: R.Predictions,
    thresholds: Sequence[float],
    class_order: Sequence[str] | None = None,
) -> DetectionResult:
    """Per-class AP, mAP per threshold and average mAP (the mean summed in ``class_order``, default the official's)."""
    check_choice("protocol", protocol, PROTOCOLS)
    kit = protocol == "thumos14-kit"
    ap = kit_aps(truth, predictions, thresholds) if kit else activitynet_ap(protocol, truth, predictions, thresholds)
    classes = list(truth.classes)
    if class_order is None and protocol == "activitynet":
        class_order = official_classes(truth)
    if class_order is not None:
        index = {c: i for i, c in enumerate(classes)}
        ap = ap[:, [index[c] for c in class_order]]
        classes = list(class_order)
    ap = np.ascontiguousarray(ap)
    # the kit: MATLAB mean(ap_all, 1), the classes added in order (cumsum); else the official self.ap.mean(axis=1)
    m = np.cumsum(ap, axis=1)[:, -1] / ap.shape[1] if kit else ap.mean(axis=1)
    notes = list(predictions.notes)
    per_class = np.bincount(predictions.label[predictions.label >= 0], minlength=len(truth.classes))
    empty = [c for c in classes if per_class[truth.classes.index(c)] == 0]
    if empty:
        notes.append(
            f"{plural(len(empty), 'class', 'classes')} without predictions (e.g. {empty[0]!r}) count with "
            "AP 0 in the mean, as the official code counts them"
        )
    return DetectionResult(protocol, list(thresholds), classes, ap, m, float(m.mean()), notes)


def per_video(
    protocol: str, t: R.Truth, p: R.Predictions, thresholds: Sequence[float]
) -> list[tuple[str, DetectionResult]]:
    """:func:`evaluate` on each video with instances alone (docs/detection.md, "Per video")."""
    out = []
    for v in dict.fromkeys(t.video.tolist()):
        mine = t.video == v
        kept = list(dict.fromkeys(t.label[mine].tolist()))
        code = np.full(len(t.classes), -1, dtype=np.int64)
        code[kept] = np.arange(len(kept))
        tv = _take(t, mine, code, classes=[t.classes[c] for c in kept], ambiguous=[a for a in t.ambiguous if a[0] == v])
        take = (p.video == v) & (code[p.label] >= 0) & (p.label >= 0)
        pv = _take(p, take, code, score=p.score[take], notes=[])
        out.append((t.videos[v], evaluate(protocol, tv, pv, thresholds)))
    return out


def _take(table: _Rows, rows: BoolArray, code: IntArray, **changes: Any) -> _Rows:
    """``table`` (truth or predictions) with only ``rows``, their labels recoded by ``code``."""
    starts, ends = table.start[rows], table.end[rows]
    return replace(table, video=table.video[rows], start=starts, end=ends, label=code[table.label[rows]], **changes)
