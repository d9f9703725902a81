"""Moment retrieval and highlight detection (QVHighlights): the official evaluator's figures.

Follows moment_detr's ``standalone_eval`` (its formulas, dtypes and numpy reductions):

* ``MR-mAP@t``: per query, the first 10 predictions sorted by score (descending; equal scores keep
  list order), each matched greedily to the unmatched ground-truth window of highest IoU >= t, where
  IoU = overlap / (len1 + len2 - overlap); VOC interpolated AP; averaged over queries, then over
  t = 0.50, 0.55 .. 0.95.
* ``MR-R1@t``: the first listed prediction (list order) against the ground-truth window of highest
  IoU in the mAP form (first on ties); a hit when overlap / (max(e1, e2) - min(s1, s2)) >= t (the
  hull form, 0 when the hull is empty).
* Length buckets ``short`` (0, 10], ``middle`` (10, 30], ``long`` (30, 150] keep only the ground
  truth windows of that length and the queries that have one; ``full`` keeps everything.
* Highlight detection from ``saliency_scores`` (3 annotators, 2-second clips) and
  ``pred_saliency_scores``: ``HL-min-{Fair,Good,VeryGood}`` take scores >= 2, 3, 4 as positive;
  ``HL-mAP`` is the interpolated AP of each annotator's labels (predictions cut or zero-padded to the
  clip count), averaged; ``HL-Hit1`` is 1 when the top-scored clip (first on ties) is positive for
  any annotator.
* segeval's additions (not in the official output): ``MR-R5`` at 0.5 and 0.7 (any of the first five
  listed, hull IoU), ``MR-mIoU`` (hull IoU of the first listed prediction with its best window) and the
  query count per bucket.

Where the official script fails (it asserts that both files hold the same queries, stops on a query
without predictions and on an empty bucket), segeval goes on and says what it did in the notes: a
ground-truth query without predictions scores 0, predictions for unknown queries are ignored, an
empty bucket is ``null``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.analysis.moments.protocol import MrOptions, MrResult
from segeval.analysis.moments.qvh_highlights import batch_highlights
from segeval.analysis.moments.qvh_input import FloatArray, Moments, read_moments
from segeval.errors import ParameterError

THRESHOLDS = tuple(float(f"{t:.2f}") for t in np.linspace(0.5, 0.95, 10))
BUCKETS = {"short": (0.0, 10.0), "middle": (10.0, 30.0), "long": (30.0, 150.0), "full": (0.0, 150.0)}
SALIENCY_LEVELS = {"Fair": 2, "Good": 3, "VeryGood": 4}
TOP_PREDICTIONS = 10
CHUNK_QUERIES = 1024  # mAP matches at most this many queries at once


def iou_matrix(a: FloatArray, b: FloatArray) -> FloatArray:
    """Hull-form IoU of every window in ``a`` against every window in ``b`` (0 for an empty hull);
    the official R1 form."""
    inter = np.maximum(0.0, np.minimum(a[:, None, 1], b[None, :, 1]) - np.maximum(a[:, None, 0], b[None, :, 0]))
    hull = np.maximum(a[:, None, 1], b[None, :, 1]) - np.minimum(a[:, None, 0], b[None, :, 0])
    return np.asarray(np.divide(inter, hull, out=np.zeros_like(inter), where=hull != 0), dtype=np.float64)


def average_precisions(truth: FloatArray, predictions: FloatArray,
                       thresholds: tuple[float, ...] = THRESHOLDS, top: int = TOP_PREDICTIONS) -> FloatArray:
    """Interpolated AP of one query's predictions at each IoU threshold (the official matching)."""
    return np.asarray(batch_average_precisions([truth], [predictions], thresholds, top)[0], dtype=np.float64)


def batch_average_precisions(truths: list[FloatArray], predictions: list[FloatArray],
                             thresholds: tuple[float, ...] = THRESHOLDS,
                             top: int = TOP_PREDICTIONS) -> FloatArray:
    """``average_precisions`` of many queries at once: one row per query, the same values bit for bit.

    Every IoU row is sorted at its query's number of ground-truth windows (one argsort per number), the
    length the official per-query ``argsort`` sees (its order of ties can depend on the length); queries
    are matched together in classes of window counts between powers of two (padding stays under 2x)."""
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
            ap[rows] = _ap_group([truths[r] for r in rows], preds[rows], valid[rows], counts[rows],
                                 np.array(thresholds, dtype=np.float64))
    return ap


def _padded(arrays: list[FloatArray], width: int, columns: int) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Rows of ``arrays`` (each (n, columns)) cut to ``width`` and zero-padded: (queries, width, columns), mask."""
    out = np.zeros((len(arrays), width, columns))
    counts = np.array([min(len(a), width) for a in arrays], dtype=np.int64)
    valid = np.arange(width)[None, :] < counts[:, None]
    if counts.any():
        out[valid] = np.concatenate([a[:width] for a in arrays])
    return out, valid


def _ap_group(truths: list[FloatArray], preds: FloatArray, valid: npt.NDArray[np.bool_],
              sizes: npt.NDArray[np.int64], thresholds: FloatArray) -> FloatArray:
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
        s1, e1 = preds[:, :, 0], preds[:, :, 1]
        s2, e2 = truth[:, :, 0], truth[:, :, 1]
        areas1, areas2 = e1 - s1, e2 - s2
        inter = np.clip(np.minimum(e1[:, :, None], e2[:, None, :]) - np.maximum(s1[:, :, None], s2[:, None, :]),
                        0, None)
        union = areas1[:, :, None] + areas2[:, None, :] - inter
        with np.errstate(divide="ignore", invalid="ignore"):
            ious = inter / union  # (queries, width, most), the union form
        # numpy's default sort of each row at the query's own length, as the official; padding points to a
        # slot no window has and ranks last, below any threshold
        order = np.full((queries, width, most), most)
        ranked = np.full((queries, width, most), -np.inf)
        for size in np.unique(sizes[sizes > 0]).tolist():
            rows = np.flatnonzero(sizes == size)
            own = ious[rows, :, :size]
            order[rows, :, :size] = by_iou = own.argsort(axis=-1)[:, :, ::-1]
            ranked[rows, :, :size] = np.take_along_axis(own, by_iou, axis=-1)
        # the official loop walks ``order`` and stops at the first IoU below the threshold (NaN never is)
        open_ = np.logical_and.accumulate(~(ranked[:, :, None, :] < thresholds[None, None, :, None]), axis=-1)
        locked = np.zeros((queries, nthr, most + 1), dtype=bool)
        if most == 1:  # one window: the first prediction that reaches it takes it
            reach = open_[:, :, :, 0] & valid[:, :, None]  # (queries, width, thresholds)
            tp = (reach & (np.cumsum(reach, axis=1) == 1)).transpose(0, 2, 1).astype(np.float64)
        for i in range(width if most > 1 else 0):
            row = np.broadcast_to(order[:, i, None, :], (queries, nthr, most))
            free = open_[:, i] & ~np.take_along_axis(locked, row, axis=-1) & valid[:, i, None, None]
            hit = free.any(axis=-1)
            q, t = np.nonzero(hit)
            locked[q, t, row[q, t, free[q, t].argmax(axis=-1)]] = True
            tp[:, :, i] = hit
    fp = (valid[:, None, :] & (tp == 0)).astype(np.float64)
    tp_cum = np.cumsum(tp, axis=-1)
    fp_cum = np.cumsum(fp, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = tp_cum / sizes.astype(np.float64)[:, None, None]
        precision = tp_cum / (tp_cum + fp_cum)
    # VOC AP; positions past a query's last prediction repeat its last precision and recall, which
    # adds no recall step and leaves the envelope unchanged
    mp = np.zeros((queries, nthr, width + 2))
    mp[:, :, 1:-1] = precision
    mr = np.zeros((queries, nthr, width + 2))
    mr[:, :, 1:-1] = recall
    mr[:, :, -1] = 1
    mp = np.maximum.accumulate(mp[:, :, ::-1], axis=-1)[:, :, ::-1]
    step = mr[:, :, 1:] != mr[:, :, :-1]
    terms = np.where(step, (mr[:, :, 1:] - mr[:, :, :-1]) * mp[:, :, 1:], 0.0)
    ap = np.zeros((queries, nthr))
    for k in range(width + 1):  # numpy sums fewer than 8 values left to right; skipped terms add +0.0
        ap += terms[:, :, k]
    many = step.sum(axis=-1) >= 8  # numpy's pairwise blocks: sum those rows as the official does
    for q, t in zip(*np.nonzero(many), strict=True):
        ap[q, t] = np.sum(terms[q, t][step[q, t]])
    ap[~valid.any(axis=1)] = 0.0  # no prediction: 0
    return ap


def average_precision(truth: FloatArray, predictions: FloatArray, threshold: float,
                      top: int = TOP_PREDICTIONS) -> float:
    """Interpolated AP of one query's predictions at one IoU threshold."""
    return float(average_precisions(truth, predictions, (threshold,), top)[0])


def r1_iou(truth: FloatArray, predictions: FloatArray) -> float:
    """The official R1 IoU: the first listed prediction against the ground-truth window of highest
    mAP-form IoU (first on ties), measured in the hull form; 0 without prediction or truth."""
    return float(batch_first_ious([truth], [predictions])[0][0])


def batch_first_ious(truths: list[FloatArray], predictions: list[FloatArray],
                     k: int = 5) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per query, from the listed predictions: the official R1 IoU (see ``r1_iou``), the best hull IoU of
    the first prediction (``top1_iou``), and the largest hull IoU of the first ``k`` against any window
    (0 without prediction or truth). The same values as the per-query functions, bit for bit; queries are
    taken in classes of window counts between powers of two."""
    out = np.zeros((3, len(truths)))
    first, has_first = _padded(predictions, k, 3)
    counts = np.array([len(t) for t in truths], dtype=np.int64)
    size_class = np.frexp(counts)[1]
    for size in np.unique(size_class):
        rows = np.flatnonzero(size_class == size)
        out[:, rows] = _first_ious_group([truths[r] for r in rows], first[rows], has_first[rows])
    return out[0], out[1], out[2]


def _first_ious_group(truths: list[FloatArray], first: FloatArray,
                      has_first: npt.NDArray[np.bool_]) -> tuple[FloatArray, FloatArray, FloatArray]:
    queries = len(truths)
    width = max((len(t) for t in truths), default=0)
    truth, has_truth = _padded(truths, max(width, 1), 2)
    ok = has_first[:, 0] & has_truth[:, 0]
    s1, e1 = first[:, 0, 0, None], first[:, 0, 1, None]
    s2, e2 = truth[:, :, 0], truth[:, :, 1]
    inter = np.clip(np.minimum(e1, e2) - np.maximum(s1, s2), 0, None)
    union = (e1 - s1) + (e2 - s2) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        union_iou = np.where(has_truth, inter / union, -np.inf)
    best = np.argmax(union_iou, axis=1)  # first on ties; a NaN (two empty windows) wins, as in the official
    hull = _hull_iou(first[:, :, None, :2], truth[:, None, :, :])  # (queries, k, windows)
    r1 = np.where(ok, hull[np.arange(queries), 0, best], 0.0)
    mask = has_first[:, :, None] & has_truth[:, None, :]
    masked = np.where(mask, hull, -np.inf)
    top1 = np.where(ok, masked[:, 0].max(axis=1, initial=-np.inf), 0.0)
    topk = np.where(ok, masked.max(axis=(1, 2), initial=-np.inf), 0.0)
    return r1, top1, topk


def _hull_iou(a: FloatArray, b: FloatArray) -> FloatArray:
    """``iou_matrix``'s arithmetic on broadcast (..., 2) windows."""
    inter = np.maximum(0.0, np.minimum(a[..., 1], b[..., 1]) - np.maximum(a[..., 0], b[..., 0]))
    hull = np.maximum(a[..., 1], b[..., 1]) - np.minimum(a[..., 0], b[..., 0])
    return np.asarray(np.divide(inter, hull, out=np.zeros_like(inter), where=hull != 0), dtype=np.float64)


def recall_at(truth: FloatArray, predictions: FloatArray, threshold: float, k: int = 1) -> float:
    """1 when a hit at ``threshold``: R1 as the official (see ``r1_iou``); for k > 1, any of the first
    k listed predictions with hull IoU >= threshold against any ground-truth window."""
    if k == 1:
        return float(r1_iou(truth, predictions) >= threshold)
    if len(predictions) == 0 or len(truth) == 0:
        return 0.0
    return float((iou_matrix(predictions[:k, :2], truth).max(axis=1) >= threshold).any())


def top1_iou(truth: FloatArray, predictions: FloatArray) -> float:
    """Hull IoU of the first listed prediction with its best ground-truth window (0 without prediction)."""
    if len(predictions) == 0 or len(truth) == 0:
        return 0.0
    return float(iou_matrix(predictions[:1, :2], truth).max())


def _pct(value: float | np.floating[Any]) -> float | None:
    return None if math.isnan(float(value)) else float(f"{100 * value:.2f}")


def _evaluate_highlights(m: Moments, queries: list[str]) -> dict[str, dict[str, float | None]]:
    levels = tuple(float(v) for v in SALIENCY_LEVELS.values())
    hit = np.zeros((len(levels), len(queries), 3))
    ap = np.zeros((len(levels), len(queries), 3))
    rows = [n for n, q in enumerate(queries) if q in m.pred_saliency]  # no prediction: 0
    if rows:
        aps, hits = batch_highlights([m.saliency[queries[n]] for n in rows],
                                     [m.pred_saliency[queries[n]] for n in rows], levels)
        ap[:, rows] = aps.reshape(len(rows), len(levels), 3).transpose(1, 0, 2)
        hit[:, rows] = hits.reshape(len(rows), len(levels), 3).transpose(1, 0, 2)
    out: dict[str, dict[str, float | None]] = {}
    for level, name in enumerate(SALIENCY_LEVELS):
        out[f"HL-min-{name}"] = {"HL-mAP": _pct(np.mean(ap[level])) if queries else None,
                                 "HL-Hit1": _pct(np.mean(np.max(hit[level], 1))) if queries else None}
    return out


def _evaluate_buckets(m: Moments, truths: dict[str, dict[str, FloatArray]],
                      orders: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Each bucket's MR figures over its order (queries with predictions first, in the file's order); the
    queries of all buckets are scored in one batch, each bucket then averages its own rows."""
    empty = np.zeros((0, 3))
    truth = [truths[name][q] for name, order in orders.items() for q in order]
    preds = [m.predictions.get(q, empty) for order in orders.values() for q in order]
    ap_all = batch_average_precisions(truth, preds)
    r1_all, top1_all, top5_all = batch_first_ious(truth, preds, 5)
    out: dict[str, dict[str, Any]] = {}
    end = 0
    for name, order in orders.items():
        start, end = end, end + len(order)
        if not order:
            maps: dict[str, float | None] = {str(t): None for t in THRESHOLDS}
            maps["average"] = None
            out[name] = {"MR-mAP": maps, "MR-R1": {str(t): None for t in THRESHOLDS},
                         "MR-R5": {"0.5": None, "0.7": None}, "MR-mIoU": None, "queries": 0}
            continue
        # the bucket's rows as arrays of their own, as the per-bucket arithmetic had them
        ap_array, r1_ious, top1, top5 = (np.array(a[start:end], dtype=np.float64)
                                         for a in (ap_all, r1_all, top1_all, top5_all))
        ap_thds = ap_array.mean(0)
        maps = {str(t): _pct(v) for t, v in zip(THRESHOLDS, ap_thds, strict=True)}
        maps["average"] = _pct(np.mean(ap_thds))
        r1 = {str(t): _pct(np.mean(r1_ious >= t)) for t in THRESHOLDS}
        r5 = {str(t): _pct(np.mean((top5 >= t).astype(np.float64))) for t in (0.5, 0.7)}
        out[name] = {"MR-mAP": maps, "MR-R1": r1, "MR-R5": r5, "MR-mIoU": _pct(np.mean(top1)), "queries": len(order)}
    return out


def _bucket_truths(truth: dict[str, FloatArray]) -> dict[str, dict[str, FloatArray]]:
    """Per bucket, the ground-truth windows of that length per query (queries without one left out)."""
    out: dict[str, dict[str, FloatArray]] = {}
    queries = list(truth)
    counts = np.array([len(truth[q]) for q in queries], dtype=np.int64)
    windows = np.concatenate([truth[q] for q in queries]) if queries else np.zeros((0, 2))
    owner = np.repeat(np.arange(len(queries)), counts)
    length = windows[:, 1] - windows[:, 0]
    for name, (lo, hi) in BUCKETS.items():
        if name == "full":
            out[name] = truth
            continue
        keep = (length > lo) & (length <= hi)
        kept = np.bincount(owner[keep], minlength=len(queries))
        ends = np.cumsum(kept).tolist()
        cut = windows[keep]
        out[name] = {queries[n]: cut[ends[n] - kept[n]:ends[n]] for n in np.flatnonzero(kept).tolist()}
    return out


def evaluate_moments(m: Moments) -> dict[str, Any]:
    """The official output (``brief``, ``HL-min-*``, buckets; values x 100, two decimals), segeval's
    additions (MR-R5, MR-mIoU, query counts) and notes on what differs from the official run."""
    notes: list[str] = []
    listed = [q for q in (m.predictions if m.moments else m.pred_saliency) if q in m.truth]  # file order
    no_truth = [q for q in m.truth if len(m.truth[q]) == 0]
    if m.moments and no_truth:
        notes.append(f"{len(no_truth)} ground-truth queries have no relevant window (e.g. {no_truth[0]}) and are "
                     "left out of MR; the official evaluator stops on them")
    mr_order = [q for q in listed if len(m.predictions[q]) and len(m.truth[q])] if m.moments else []
    scored = set(mr_order)
    mr_missing = [q for q in m.truth if len(m.truth[q]) and q not in scored]
    seen = set(listed)
    hl_missing = [q for q in m.truth if q not in seen]
    if m.moments and mr_missing:
        notes.append(f"{len(mr_missing)} ground-truth queries have no predicted window (e.g. {mr_missing[0]}) and "
                     "score 0 in MR; the official evaluator refuses such a submission")
    if m.highlights and hl_missing:
        notes.append(f"{len(hl_missing)} ground-truth queries have no pred_saliency_scores (e.g. {hl_missing[0]}) "
                     "and score 0 in HL; the official evaluator refuses such a submission")
    if m.unknown:
        notes.append(f"{len(m.unknown)} predicted queries are not in the ground truth (e.g. {m.unknown[0]}) and "
                     "are ignored; the official evaluator refuses such a submission (a qid matches only a qid that "
                     "Python finds equal: the string \"5\" is not the number 5)")
    if m.respelled:
        notes.append(f"{len(m.respelled)} predicted qids are written otherwise than the ground truth's (e.g. "
                     f"{m.respelled[0]}); they are paired by Python equality, as the official evaluator does")
    order = mr_order + mr_missing  # the official averages in the submission's order
    buckets: dict[str, Any] = {}
    if m.moments:
        truths = _bucket_truths(m.truth)
        buckets = _evaluate_buckets(m, truths, {name: [q for q in order if q in truths[name]] for name in BUCKETS})
        for name, (lo, hi) in BUCKETS.items():
            if not buckets[name]["queries"]:
                notes.append(f"no ground-truth window falls in the {name} bucket {_range(lo, hi)}: its figures are "
                             "null (the official evaluator stops here)")
    highlights = _evaluate_highlights(m, listed + hl_missing) if m.highlights else {}
    brief: dict[str, float | None] = {}
    if m.moments:
        full = buckets["full"]
        official = {"MR-full-mAP": full["MR-mAP"]["average"], "MR-full-mAP@0.5": full["MR-mAP"]["0.5"],
                    "MR-full-mAP@0.75": full["MR-mAP"]["0.75"],
                    "MR-short-mAP": buckets["short"]["MR-mAP"]["average"],
                    "MR-middle-mAP": buckets["middle"]["MR-mAP"]["average"],
                    "MR-long-mAP": buckets["long"]["MR-mAP"]["average"],
                    "MR-full-R1@0.5": full["MR-R1"]["0.5"], "MR-full-R1@0.7": full["MR-R1"]["0.7"]}
        brief.update(sorted(official.items()))
    for level, values in highlights.items():
        for key, value in values.items():
            brief[f"{level}-{key.split('-')[1]}"] = value
    if m.moments:
        brief["MR-full-mIoU"] = buckets["full"]["MR-mIoU"]
    out: dict[str, Any] = {"brief": brief}
    out.update(sorted({**highlights, **buckets}.items()))
    out["notes"] = notes
    return out


def _range(lo: float, hi: float) -> str:
    return f"({lo:g}, {hi:g}] s"


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The QVHighlights protocol (``segeval mr --protocol qvhighlights``)."""
    unused = [k for k, v in vars(options).items() if v is not None]
    if unused:
        raise ParameterError(f"The qvhighlights protocol has fixed thresholds and cut-offs; it takes no "
                             f"{', '.join('--' + k.replace('_', '-') for k in unused)}.")
    result = evaluate_moments(read_moments(truth, predictions))
    figures = {k: v for k, v in result.items() if k != "notes"}
    return MrResult(figures=figures, brief=result["brief"], notes=result["notes"])
