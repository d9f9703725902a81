"""SoccerNet's average-mAP in the official arithmetic (docs/spotting.md, "The official conventions")."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.protocols.spotting.grid import Cells, Grid

#: tolerances in seconds of each ``--metric`` (the official ``deltas``)
METRICS: dict[str, tuple[int, ...]] = {
    "loose": tuple(range(5, 65, 5)),
    "tight": (1, 2, 3, 4, 5),
    **{f"at{k}": (k,) for k in range(1, 6)},
}
#: the official scaling of the "not shown" average-mAP (17 classes, 13 of which have "not shown" events)
UNSHOWN_SCALE = (17, 13)
VARIANTS = ("all", "visible", "unshown")
THRESHOLDS = np.linspace(0, 1, 200)


@dataclass
class Figures:
    """One metric's average-mAP, per-class values and mAP at each tolerance, per variant."""

    metric: str
    tolerances: tuple[int, ...]
    a_map: dict[str, float]
    a_map_per_class: dict[str, list[float]]
    map_at: dict[str, list[float]]


def match(cells: Cells, window: float) -> list[int]:
    """1 for every prediction of ``cells`` an event takes within ``window`` frames, else 0."""
    frames, scores = cells.pred_frames, cells.pred_scores
    taken = [0] * len(frames)
    for g in cells.event_frames:
        lo, hi = bisect_left(frames, g - window), bisect_right(frames, g + window)
        best, chosen = -1.0, -1
        for k in range(lo, hi):
            if not taken[k] and scores[k] > best:
                best, chosen = scores[k], k
        if chosen >= 0:
            taken[chosen] = 1
    return taken


@dataclass
class _Variant:
    """The predictions of one class and variant, ranked by confidence (stable), fixed for every tolerance."""

    keep: BoolArray  # of the class's ranked predictions
    first: npt.NDArray[np.intp]  # per threshold, the first ranked score >= it
    kept: npt.NDArray[np.intp]  # per threshold, how many scores are >= it
    n_events: int


@dataclass
class _Class:
    cells: list[Cells]
    order: npt.NDArray[np.intp]
    variants: dict[str, _Variant]


def _prepare(grid: Grid, c: int) -> _Class:
    cells = [row[c] for row in grid.cells]
    scores = np.array([s for x in cells for s in x.pred_scores], dtype=np.float64)
    zones = np.array([z for x in cells for z in x.zone_values()], dtype=np.int64)
    values = [v for x in cells for v in x.event_values]
    n_visible, n_unshown = sum(1 for v in values if v > 0), sum(1 for v in values if v < 0)
    order = np.argsort(scores, kind="stable")
    ranked, ranked_zones = scores[order], zones[order]
    variants = {}
    for variant, keep, n in (
        ("all", ranked_zones != 0, n_visible + n_unshown),  # zones are +1 or -1
        ("visible", ranked_zones > 0, n_visible),
        ("unshown", ranked_zones < 0, n_unshown),
    ):
        first = np.searchsorted(ranked[keep], THRESHOLDS, side="left")
        variants[variant] = _Variant(keep, first, int(keep.sum()) - first, n)
    return _Class(cells, order, variants)


def _curve(ranked_hits: IntArray, v: _Variant) -> tuple[FloatArray, FloatArray]:
    """Precision and recall at each threshold, as the official computes them (float64, 0 for 0/0)."""
    hits = ranked_hits[v.keep]
    above = np.concatenate([np.cumsum(hits[::-1])[::-1], [0]])[v.first]  # hits among scores >= threshold
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.nan_to_num(above / v.kept)
        recall = np.nan_to_num(above / np.int64(v.n_events))
    return precision.astype(np.float64), recall.astype(np.float64)


def eleven_point(precision: FloatArray, recall: FloatArray) -> float:
    """The official 11-point interpolated AP."""
    total = np.float64(0.0)
    for k in range(11):
        reached = precision[recall >= k / 10]
        total += reached.max() if reached.shape[0] else np.float64(0)
    return float(total / 11)


def map_at(classes: list[_Class], delta: int, framerate: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    """mAP and per-class AP at a tolerance of ``delta`` seconds, per variant."""
    window = (delta * framerate) / 2
    per_class: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for cls in classes:
        hits = np.array([h for cells in cls.cells for h in match(cells, window)], dtype=np.int64)[cls.order]
        for variant in VARIANTS:
            per_class[variant].append(eleven_point(*_curve(hits, cls.variants[variant])))
    means = {v: float(np.mean(np.array(per_class[v], dtype=np.float64))) for v in VARIANTS}
    return means, per_class


def _average(values: list[float]) -> float:
    """The official trapezoid over the tolerances, added left to right (cumsum)."""
    maps = np.array(values, dtype=np.float64)
    return float(np.cumsum((maps[:-1] + maps[1:]) / 2)[-1] / (len(maps) - 1))


def average_map(grid: Grid, metric: str) -> Figures:
    """The official average-mAP of ``metric`` (loose, tight, at1..at5)."""
    tolerances = METRICS[metric]
    n_classes = len(grid.classes.classes)
    classes = [_prepare(grid, c) for c in range(n_classes)]
    curve = [map_at(classes, d, grid.classes.framerate) for d in tolerances]
    map_per = {v: [m[v] for m, _ in curve] for v in VARIANTS}
    class_per = {v: [pc[v] for _, pc in curve] for v in VARIANTS}
    if len(tolerances) == 1:
        a_map = {v: map_per[v][0] for v in VARIANTS}
        a_class = {v: class_per[v][0] for v in VARIANTS}
    else:
        a_map = {v: _average(map_per[v]) for v in VARIANTS}
        a_map["unshown"] = a_map["unshown"] * UNSHOWN_SCALE[0] / UNSHOWN_SCALE[1]
        a_class = {v: [_average([at[c] for at in class_per[v]]) for c in range(n_classes)] for v in VARIANTS}
    return Figures(metric, tolerances, a_map, a_class, map_per)


def per_game(grid: Grid, metric: str) -> list[Figures]:
    """:func:`average_map` of each game alone (its two halves), in game order."""
    return [
        average_map(Grid(grid.cells[g : g + 2], grid.classes, 0, 0, 0), metric) for g in range(0, len(grid.cells), 2)
    ]
