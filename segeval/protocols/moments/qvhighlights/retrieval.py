"""QVHighlights moment retrieval: the official matching and VOC AP (``MR-mAP``) and the R1 IoU, batched."""

from __future__ import annotations

import numpy as np

from segeval.adapters.tiou import best_of, tiou
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.protocols.detection.ap import voc_ap
from segeval.protocols.detection.order import descending

THRESHOLDS = tuple(float(f"{t:.2f}") for t in np.linspace(0.5, 0.95, 10))
TOP_PREDICTIONS = 10
CHUNK_QUERIES = 1024  # mAP matches at most this many queries at once


def iou_matrix(a: FloatArray, b: FloatArray) -> FloatArray:
    """Hull-form IoU (the official R1 form) of every window in ``a`` against every window in ``b``."""
    return tiou(a[:, None, 0], a[:, None, 1], b[None, :, 0], b[None, :, 1], "zero")


def batch_average_precisions(
    truths: list[FloatArray],
    predictions: list[FloatArray],
    thresholds: tuple[float, ...] = THRESHOLDS,
    top: int = TOP_PREDICTIONS,
) -> FloatArray:
    """Interpolated AP of each query's predictions (one row per query) at each IoU threshold (the official
    matching), bit for bit; queries are matched together in classes of window counts between powers of two."""
    ap = np.zeros((len(truths), len(thresholds)))
    width = min(top, max((len(p) for p in predictions), default=0))
    if width == 0:
        return ap
    # the first ``top`` predictions of every query, padded once; padding past a query's own predictions
    # changes none of its values
    preds, valid = _padded(predictions, width, 3)
    counts = np.array([len(t) for t in truths], dtype=np.int64)
    size_class = np.frexp(counts)[1]
    for size in np.unique(size_class):
        of_size = np.flatnonzero(size_class == size)
        for rows in np.array_split(of_size, -(-len(of_size) // CHUNK_QUERIES)):  # bounds the memory
            ap[rows] = _ap_group(
                [truths[r] for r in rows],
                preds[rows],
                valid[rows],
                counts[rows],
                np.array(thresholds, dtype=np.float64),
            )
    return ap


def _padded(arrays: list[FloatArray], width: int, columns: int) -> tuple[FloatArray, BoolArray]:
    """Rows of ``arrays`` (each (n, columns)) cut to ``width`` and zero-padded: (queries, width, columns), mask."""
    out = np.zeros((len(arrays), width, columns))
    counts = np.array([min(len(a), width) for a in arrays], dtype=np.int64)
    valid = np.arange(width)[None, :] < counts[:, None]
    if counts.any():
        out[valid] = np.concatenate([a[:width] for a in arrays])
    return out, valid


def _ap_group(
    truths: list[FloatArray], preds: FloatArray, valid: BoolArray, sizes: IntArray, thresholds: FloatArray
) -> FloatArray:
    """The official matching and VOC AP for queries with ``sizes`` ground-truth windows and the padded
    predictions ``preds`` (queries, width, 3), ``valid`` where a query has one."""
    queries, nthr, width = len(truths), len(thresholds), preds.shape[1]
    # the first ``top`` in list order, by score descending (stable); padding sorts last
    key = np.where(valid, -preds[:, :, 2], np.inf)
    by_score = np.argsort(key, axis=1, kind="stable")
    preds = np.take_along_axis(preds, by_score[:, :, None], axis=1)
    valid = np.take_along_axis(valid, by_score, axis=1)
    tp = np.zeros((queries, nthr, width))
    most = int(sizes.max())
    if most:  # without a window, every listed prediction is a false positive; recall is 0/0 as in the official
        truth, _ = _padded(truths, most, 2)
        s1, e1 = preds[:, :, 0, None], preds[:, :, 1, None]
        s2, e2 = truth[:, None, :, 0], truth[:, None, :, 1]
        ious = tiou(s1, e1, s2, e2, form="union")  # (queries, width, most), the union form
        # the official ``argsort()[::-1]`` of each row at the query's own length in numpy 1.x's order
        # (:func:`descending`; up to 16 windows the reversed stable sort); padding points to a slot no window
        # has and ranks last, below any threshold
        order = np.full((queries, width, most), most)
        ranked = np.full((queries, width, most), -np.inf)
        for size in np.unique(sizes[sizes > 0]).tolist():
            rows = np.flatnonzero(sizes == size)
            own = ious[rows, :, :size]
            by_iou = own.argsort(axis=-1, kind="stable")[:, :, ::-1]
            for q, i in np.ndindex(own.shape[:2]) if size > 16 else ():
                by_iou[q, i] = descending(own[q, i])
            order[rows, :, :size] = by_iou
            ranked[rows, :, :size] = np.take_along_axis(own, by_iou, axis=-1)
        # the official loop walks ``order`` and stops at the first IoU below the threshold (NaN never is)
        open_ = np.logical_and.accumulate(~(ranked[:, :, None, :] < thresholds[None, None, :, None]), axis=-1)
        locked = np.zeros((queries, nthr, most + 1), dtype=bool)
        for i in range(width):
            row = np.broadcast_to(order[:, i, None, :], (queries, nthr, most))
            free = open_[:, i] & ~np.take_along_axis(locked, row, axis=-1) & valid[:, i, None, None]
            hit = free.any(axis=-1)
            q, t = np.nonzero(hit)
            locked[q, t, row[q, t, free[q, t].argmax(axis=-1)]] = True
            tp[:, :, i] = hit
    return voc_ap(tp, valid[:, None, :], sizes[:, None])


def batch_first_ious(
    truths: list[FloatArray], predictions: list[FloatArray], k: int = 5
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per query: the official R1 IoU (the first listed prediction against the ground-truth window of highest
    mAP-form IoU, first on ties, in the hull form), the best hull IoU of the first prediction and of the first
    ``k`` (0 without prediction or truth)."""
    out = np.zeros((3, len(truths)))
    first, has_first = _padded(predictions, k, 3)
    counts = np.array([len(t) for t in truths], dtype=np.int64)
    size_class = np.frexp(counts)[1]
    for size in np.unique(size_class):
        rows = np.flatnonzero(size_class == size)
        out[:, rows] = _first_ious_group([truths[r] for r in rows], first[rows], has_first[rows])
    return out[0], out[1], out[2]


def _first_ious_group(
    truths: list[FloatArray], first: FloatArray, has_first: BoolArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    queries = len(truths)
    width = max((len(t) for t in truths), default=0)
    truth, has_truth = _padded(truths, max(width, 1), 2)
    ok = has_first[:, 0] & has_truth[:, 0]
    union_iou = np.where(
        has_truth,
        tiou(first[:, 0, 0, None], first[:, 0, 1, None], truth[:, :, 0], truth[:, :, 1], form="union"),
        -np.inf,
    )
    best = best_of(union_iou, axis=1)  # first on ties; a NaN (two empty windows) wins, as in the official
    hull = tiou(first[:, :, None, 0], first[:, :, None, 1], truth[:, None, :, 0], truth[:, None, :, 1], "zero")
    r1 = np.where(ok, hull[np.arange(queries), 0, best], 0.0)
    mask = has_first[:, :, None] & has_truth[:, None, :]
    masked = np.where(mask, hull, -np.inf)
    top1 = np.where(ok, masked[:, 0].max(axis=1, initial=-np.inf), 0.0)
    topk = np.where(ok, masked.max(axis=(1, 2), initial=-np.inf), 0.0)
    return r1, top1, topk
