"""DETAD's false-positive analysis (``segeval detect --errors``, docs/detection.md#false-positive-analysis)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from segeval.adapters.tiou import best_of, tiou
from segeval.core.arrays import IntArray
from segeval.core.prepared import distinct
from segeval.protocols.detection import read as R
from segeval.protocols.detection.evaluate import class_aps, matched, rankings

TYPES = ("true positive", "double detection", "wrong label", "localization", "confusion", "background")
FACTOR = 10  # DETAD's limit_factor: each class's top 10 G predictions, G its number of instances
MIN_TIOU = 0.1  # DETAD's min_tiou_thr: below it (with every instance of the video) a background error
COLUMNS = (("figure", ""), ("tiou", ""), ("predictions", ""), ("type", ""), ("value", ""))


@dataclass
class ErrorResult:
    """``types[t, i]`` (into :data:`TYPES`) of the analysed prediction row ``rows[i]`` at ``thresholds[t]``, its G
    slice, DETAD's Average-mAP_N and its gain when each error type is removed."""

    thresholds: list[float]
    rows: IntArray
    slices: IntArray
    types: IntArray
    average_map_n: float
    gain: dict[str, float]


def analyse(protocol: str, t: R.Truth, p: R.Predictions, thresholds: Sequence[float]) -> ErrorResult:
    """Each analysed prediction's type at each threshold (docs/detection.md, "False-positive analysis")."""
    n_classes = len(t.classes)
    npos = np.bincount(t.label, minlength=n_classes)
    ranked = [r[: FACTOR * int(npos[c])] for c, r in enumerate(rankings(protocol, p, n_classes))]
    rows, bounds, tp = matched(t, p, thresholds, ranked)
    slices = np.concatenate([np.arange(len(r)) // max(int(npos[c]), 1) for c, r in enumerate(ranked)] + [rows[:0]])
    top = np.full(len(rows), -np.inf)
    same = np.zeros(len(rows), dtype=np.bool_)
    for v in distinct(p.video[rows]).tolist():
        mine, gts = np.flatnonzero(p.video[rows] == v), np.flatnonzero(t.video == v)
        if len(gts):
            iou = tiou(p.start[rows[mine], None], p.end[rows[mine], None], t.start[gts], t.end[gts], form="union")
            best = best_of(iou)
            top[mine] = iou[np.arange(len(mine)), best]
            same[mine] = t.label[gts[best]] == p.label[rows[mine]]
    theta = np.asarray(thresholds, dtype=np.float64)[:, None]
    types = np.where(top >= theta, np.where(same, 1, 2), np.where(top >= MIN_TIOU, np.where(same, 3, 4), 5))
    types[tp] = 0
    scale = len(t.label) / n_classes  # DETAD's average_num_instance_per_class

    base = float(class_aps(tp, bounds, npos, None, scale).mean(axis=1).mean())  # DETAD's self.ap.mean(axis=1).mean()
    gain = {
        name: float(class_aps(tp, bounds, npos, types != e, scale).mean()) - base for e, name in enumerate(TYPES) if e
    }
    return ErrorResult(list(thresholds), rows, slices, types, base, gain)


def error_rows(r: ErrorResult) -> list[tuple[str, Any, str, str, float]]:
    """The rows of ``detect --errors`` (docs/detection.md, "False-positive analysis")."""
    out: list[tuple[str, Any, str, str, float]] = []
    every = f"top {FACTOR}G"
    counts = np.array([np.bincount(row, minlength=len(TYPES)) for row in r.types])
    mean = counts.sum(axis=0) / len(r.thresholds)  # DETAD's avg column: pandas' mean of the counts
    for k, theta in enumerate([*r.thresholds, None]):
        values = counts[k] if theta is not None else mean
        out += [("count", theta, every, name, values[e]) for e, name in enumerate(TYPES)]
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0: NaN, as DETAD's pandas division
        for k, theta in enumerate([*r.thresholds, None]):
            values = (counts[k] if theta is not None else mean) / np.float64(len(r.rows))
            out += [("fraction", theta, every, name, values[e]) for e, name in enumerate(TYPES)]
        for g in range(FACTOR):
            part = r.slices == g
            total = np.array([np.bincount(row[part], minlength=len(TYPES)) for row in r.types]).sum(axis=0)
            values = total / len(r.thresholds) / np.float64(part.sum())
            out += [("fraction", None, f"{g + 1}G", name, values[e]) for e, name in enumerate(TYPES)]
    out.append(("Average-mAP_N", None, "", "", r.average_map_n))
    out += [("Average-mAP_N gain", None, "", name, value) for name, value in r.gain.items()]
    return out
