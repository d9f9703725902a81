"""Matching predictions to instances: ActivityNet's highest-tIoU free instance (``segeval detect`` and the
``tiou-best`` adapter) and the THUMOS14 kit's ground-truth-first matching (docs/detection.md, "Conventions side by
side", "Ties"; a 0/0 tIoU is NaN, a hit as in the official ``tiou < θ`` test)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from segeval.adapters.tiou import tiou
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.prepared import distinct, kept_pairs
from segeval.protocols.detection.order import descending


def best_free_match(
    p_group: IntArray,
    p_start: FloatArray,
    p_end: FloatArray,
    g_group: IntArray,
    g_start: FloatArray,
    g_end: FloatArray,
    thresholds: Sequence[float],
) -> tuple[BoolArray, IntArray, BoolArray]:
    """ActivityNet's matching at each threshold of predictions in rank order, each taking only instances of its
    (class, video) group: ``tp[t, i]``, ``taken[t, i]`` (the instance row, -1 for none) and ``reach[t, i]`` (some
    instance of its group reaches the threshold: a false positive with ``reach`` repeats a found instance)."""
    n, t_count = len(p_group), len(thresholds)
    tp = np.zeros((t_count, n), dtype=np.bool_)
    taken = np.full((t_count, n), -1, dtype=np.int64)
    reach = np.zeros((t_count, n), dtype=np.bool_)
    if n == 0 or len(g_group) == 0:
        return tp, taken, reach
    codes = np.unique(np.concatenate((p_group, g_group)), return_inverse=True)[1].astype(np.int64)
    pk, gk = codes[:n], codes[n:]  # dense (class, video) codes
    g_order = np.argsort(gk, kind="stable")
    u, j = kept_pairs(pk, gk[g_order])
    rows = g_order[j]
    iou = tiou(p_start[u], p_end[u], g_start[rows], g_end[rows], form="union")  # utils.segment_iou's arithmetic
    nan = np.isnan(iou)
    low = float(min(thresholds))
    keep = nan | (iou >= low)  # a pair below every threshold is never visited
    # each prediction's instances as the official visits them: highest tIoU first (NaN first), equal tIoUs
    # later instance first (numpy's insertion sort, reversed); above 16 instances, where quicksort is not
    # stable, the order of equal visited tIoUs is :func:`descending` over all the prediction's instances
    order = np.lexsort((-rows, np.where(nan, -np.inf, -iou), u))
    order = order[keep[order]]
    _reorder_ties(order, u, iou, np.bincount(u, minlength=n))
    u_list, row_list, iou_list = u[order].tolist(), rows[order].tolist(), iou[order].tolist()
    for t, theta in enumerate(thresholds):
        locked: set[int] = set()
        last = -1
        tp_t, taken_t, reach_t = tp[t], taken[t], reach[t]
        for i, row, value in zip(u_list, row_list, iou_list, strict=True):
            if i == last or value < theta:  # decided, or below theta (NaN is not below: a hit, as the official)
                continue
            reach_t[i] = True
            if row in locked:
                continue
            locked.add(row)
            last = i
            tp_t[i] = True
            taken_t[i] = row
    return tp, taken, reach


def _reorder_ties(order: IntArray, u: IntArray, iou: FloatArray, size: IntArray) -> None:
    """Put the visited pairs ``order`` of each prediction with more than 16 instances and equal visited tIoUs in
    :func:`descending`'s order (pairs of one prediction are contiguous in ``u``, instances in file order)."""
    i, v = u[order], iou[order]
    tied = (i[1:] == i[:-1]) & ((v[1:] == v[:-1]) | (np.isnan(v[1:]) & np.isnan(v[:-1])))
    start = np.concatenate(([0], np.cumsum(size)))
    for p in distinct(i[1:][tied & (size[i[1:]] > 16)]).tolist():
        lo, hi = int(start[p]), int(start[p + 1])
        ranked = lo + descending(iou[lo:hi])  # the pairs of p, all its instances
        a, b = np.searchsorted(i, p), np.searchsorted(i, p, side="right")
        order[a:b] = ranked[np.isin(ranked, order[a:b])]


Windows = tuple[IntArray, FloatArray, FloatArray]  # video, start, end


def kit_match(detections: Windows, instances: Windows, theta: float) -> BoolArray:
    """The THUMOS14 kit's matching of one class (``TH14eventdetpr.m``) on detections in the kit's order: each
    instance in file order takes the free detection of its video of largest overlap (first on ties) when above θ
    (``intervalsingleoverlapvalseconds``: intersection over hull, 0 unless positive, the ``tiou`` hull form).  True
    for the detections taken."""
    (det_video, det_start, det_end), (gt_video, gt_start, gt_end) = detections, instances
    hit = np.zeros(len(det_video), dtype=np.bool_)
    for v in distinct(det_video).tolist():
        dets = np.flatnonzero(det_video == v)
        gts = np.flatnonzero(gt_video == v)
        if len(gts) == 0:
            continue
        free = np.ones(len(dets), dtype=np.bool_)
        for g in gts.tolist():
            idx = np.flatnonzero(free)
            if len(idx) == 0:
                break
            ov = tiou(gt_start[g], gt_end[g], det_start[dets[idx]], det_end[dets[idx]], "zero")
            best = int(np.argmax(ov))
            if ov[best] > theta:
                free[idx[best]] = False
        hit[dets[~free]] = True
    return hit
