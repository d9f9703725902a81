"""Recall at k at IoU t and mIoU, the common report of Charades-STA, ActivityNet Captions and TACoS: MMN's
evaluation by default, 2D-TAN's with ``--iou-compare gt`` and ``--nms`` (docs/moments.md, 'recall')."""

from __future__ import annotations

import math

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.protocols.moments.protocol import MrOptions, MrResult, refuse_options
from segeval.protocols.moments.qvhighlights.reading import read_moments
from segeval.protocols.moments.qvhighlights.retrieval import iou_matrix
from segeval.protocols.moments.reading import reversed_notes

THRESHOLDS = (0.5, 0.7)
TOP_K = (1, 5)
COMPARE = "ge"
NAME = "R@{k},IoU@{t}"  #: a figure's name (:func:`mean_figures`)


def nms(windows: FloatArray, threshold: float) -> FloatArray:
    """Greedy temporal NMS over ``windows`` (already in rank order): drop a window whose IoU with an earlier
    kept window is > ``threshold``."""
    if len(windows) == 0:
        return windows
    overlaps = iou_matrix(windows[:, :2], windows[:, :2])
    suppressed = np.zeros(len(windows), dtype=bool)
    for i in range(len(windows)):
        if not suppressed[i]:
            suppressed[i + 1 :] |= overlaps[i, i + 1 :] > threshold
    return windows[~suppressed]


def ranked(predictions: FloatArray, nms_threshold: float | None = None) -> FloatArray:
    """[start, end] of the predictions by descending score (stable), after NMS when a threshold is given."""
    order = predictions[np.argsort(-predictions[:, 2], kind="stable")] if len(predictions) else predictions
    if nms_threshold is not None:
        order = nms(order, nms_threshold)
    return order[:, :2]


def mean_figures(
    name: str,
    overlaps: list[FloatArray],
    thresholds: tuple[float, ...],
    top_k: tuple[int, ...],
    strict: bool,
    per_query: dict[str, dict[str, float | None]] | None = None,
    queries: list[str] | None = None,
) -> dict[str, float | None]:
    """Per cut-off k and threshold t (``name`` with ``{k}`` and ``{t}``) the share of queries one of whose first k
    ``overlaps`` reaches t (exceeds it when ``strict``), and the mean first IoU (``mIoU``, None for NaN), in percent;
    ``per_query`` gets each of ``queries``' values."""
    names = [name.format(k=k, t=t) for k in top_k for t in thresholds]
    # the best of the first k IoUs, NaN left out (NaN reaches no threshold), -inf without any
    best = np.array([[np.fmax.reduce(overlap[:k], initial=-np.inf) for overlap in overlaps] for k in top_k])
    limits = np.array(thresholds)[None, :, None]
    rows = (best[:, None, :] > limits if strict else best[:, None, :] >= limits).reshape(len(names), -1)
    first = np.array([overlap[0] if len(overlap) else 0.0 for overlap in overlaps])
    if per_query is not None:
        for n, q in enumerate(queries or []):
            values: dict[str, float | None] = {f: 100.0 * bool(rows[i, n]) for i, f in enumerate(names)}
            per_query[q] = {**values, "mIoU": 100.0 * float(first[n])}
    out: dict[str, float | None] = {f: float(np.mean(rows[i])) * 100 for i, f in enumerate(names)}
    miou = float(np.mean(first)) * 100
    out["mIoU"] = None if math.isnan(miou) else miou
    return out


def evaluate(
    truth: dict[str, FloatArray],
    predictions: dict[str, FloatArray],
    thresholds: tuple[float, ...] = THRESHOLDS,
    top_k: tuple[int, ...] = TOP_K,
    compare: str = COMPARE,
    nms_threshold: float | None = None,
    per_query: dict[str, dict[str, float | None]] | None = None,
    name: str = "ground truth",
) -> tuple[dict[str, float | int | None], list[str]]:
    """R@k,IoU@t and mIoU in percent over the ground-truth queries that have a window, and notes; ``per_query``
    gets each query's values; ``name`` is the ground truth's file (refused without any window)."""
    notes: list[str] = []
    queries = [q for q in truth if len(truth[q])]
    if len(queries) < len(truth):
        left = next(q for q in truth if not len(truth[q]))
        notes.append(
            f"{len(truth) - len(queries)} ground-truth queries have no relevant window (e.g. {left}) and are left out"
        )
    if not queries:
        raise InputError(
            name, "has no query with a relevant window; expected at least one [start, end] in 'relevant_windows'"
        )
    missing = [q for q in queries if not len(predictions.get(q, ()))]
    if missing:
        notes.append(f"{len(missing)} ground-truth queries have no predicted window (e.g. {missing[0]}) and score 0")
    notes += reversed_notes(truth, predictions, "evaluated as given: they overlap nothing (IoU 0)")
    empty = np.zeros((0, 3))
    overlaps = []  # each listed window's IoU with its best ground-truth window
    for q in queries:
        windows = ranked(predictions.get(q, empty), nms_threshold)
        overlaps.append(iou_matrix(windows, truth[q]).max(axis=1) if len(windows) else np.zeros(0))
    figures: dict[str, float | int | None] = dict(
        mean_figures(NAME, overlaps, thresholds, top_k, compare == "gt", per_query, queries)
    )
    figures["queries"] = len(queries)
    return figures, notes


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The recall protocol (``segeval mr --protocol recall``)."""
    refuse_options(options, "recall", ("thresholds", "top_k", "iou_compare", "nms"))
    m = read_moments(truth, predictions)
    if not m.moments:
        raise InputError(
            predictions,
            "has no 'pred_relevant_windows'; expected QVHighlights-style predictions "
            '{"qid", "pred_relevant_windows": [[start, end, score], ...]}',
        )
    if m.unknown:
        raise InputError(
            predictions,
            f"predicts query {m.unknown[0]}, which is not in the ground truth {truth} "
            f"({len(m.unknown)} such queries); expected ground-truth qids only",
        )
    rows: dict[str, dict[str, float | None]] = {}
    thresholds, top_k = options.thresholds or THRESHOLDS, options.top_k or TOP_K
    figures, notes = evaluate(
        m.truth, m.predictions, thresholds, top_k, options.iou_compare or COMPARE, options.nms, rows, truth
    )
    brief = {k: v for k, v in figures.items() if k != "queries"}
    return MrResult(figures=figures, brief=brief, notes=notes, per_query=rows)
