"""QVHighlights highlight detection: the official ``get_ap`` and Hit1, for one query (:func:`highlight_aps`) or
all queries at once (:func:`batch_highlights`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray, IntArray

ANNOTATORS = 3
CHUNK_CLIPS = 2**15  # queries are scored in chunks of about this many clips (bounds the memory)
FLOAT32_EXACT = 2**24  # below this many clips, distinct recalls k / n stay distinct in float32


def highlight_aps(labels: FloatArray, y_score: npt.NDArray[Any]) -> FloatArray:
    """The official ``get_ap`` of each column of binary clip labels ``labels`` (clips, k) ranked by one score list
    (0 without positive, 1 all positive), bit for bit."""
    clips = len(labels)
    if len(y_score) > clips:
        y_score = y_score[:clips]
    elif len(y_score) < clips:
        padded = np.zeros(clips)
        padded[: len(y_score)] = y_score
        y_score = padded
    out = np.zeros(labels.shape[1])
    constant = (labels == labels[:1]).all(axis=0)
    out[constant] = labels[0, constant] != 0
    if constant.all():
        return out
    # precision and recall at each distinct score, highest score first, as scikit-learn computes them
    order = np.argsort(y_score, kind="mergesort")[::-1]
    ranked_score, ranked_true = y_score[order], labels[order]
    cut = np.r_[np.where(np.diff(ranked_score))[0], clips - 1]
    tps = np.cumsum(ranked_true == 1, axis=0, dtype=np.float64)[cut]
    fps = 1 + cut[:, None] - tps
    precision = np.ones((len(tps) + 1, labels.shape[1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision[:-1] = (tps / (tps + fps))[::-1]
        recall = np.zeros((len(tps) + 1, labels.shape[1]))
        recall[:-1] = (tps / tps[-1])[::-1]
    recall = recall.astype(np.float32)
    precision = np.maximum.accumulate(precision, axis=0)  # the envelope from the left, as get_ap
    steps = np.diff(recall, axis=0) != 0
    for c in np.flatnonzero(~constant):  # np.mean's arithmetic: a 1-D add.reduce (pairwise), then / n
        picked = precision[:-1, c][steps[:, c]]
        out[c] = np.add.reduce(picked) / len(picked)
    return out


def batch_highlights(
    saliency: list[FloatArray], scores: list[FloatArray], minimums: tuple[float, ...]
) -> tuple[FloatArray, FloatArray]:
    """AP and Hit1 of many queries (``saliency[q]`` (clips, 3), ``scores[q]`` one per clip): one row per query, one
    column per (minimum score, annotator); the values of :func:`highlight_aps` and the official Hit1, bit for bit."""
    columns = len(minimums) * ANNOTATORS
    ap = np.zeros((len(saliency), columns))
    hit = np.zeros((len(saliency), columns))
    clips = np.array([len(s) for s in saliency], dtype=np.int64)
    size_class = np.frexp(np.maximum(clips, 1))[1]
    for size in np.unique(size_class):
        of_size = np.flatnonzero(size_class == size)
        chunks = min(len(of_size), -(-len(of_size) * 2 ** int(size) // CHUNK_CLIPS))  # bounds the memory
        for rows in np.array_split(of_size, chunks):
            ap[rows], hit[rows] = _highlight_group(
                [saliency[r] for r in rows], [scores[r] for r in rows], np.array(minimums, dtype=np.float64)
            )
    return ap, hit


def _highlight_group(
    saliency: list[FloatArray], scores: list[FloatArray], minimums: FloatArray
) -> tuple[FloatArray, FloatArray]:
    queries, columns = len(saliency), len(minimums) * ANNOTATORS
    width = max(len(s) for s in saliency)
    full = np.zeros((queries, width, ANNOTATORS))
    valid = np.zeros((queries, width), dtype=bool)
    score = np.zeros((queries, width))  # cut or zero-padded to the clip count, as the official
    for n, (s, p) in enumerate(zip(saliency, scores, strict=True)):
        full[n, : len(s)] = s
        valid[n, : len(s)] = True
        score[n, : min(len(s), len(p))] = p[: len(s)]
    count = valid.sum(axis=1)
    if (
        width == 0
        or count.min() == 0
        or count.max() >= FLOAT32_EXACT
        or min(map(len, scores)) == 0
        or any(p.dtype != np.float64 for p in scores)
    ):  # integer scores: ranked as integers
        return _one_by_one(saliency, scores, minimums)
    rows, position, lines = np.arange(queries), np.arange(width), queries * columns
    # Hit1: the clip of the highest predicted score (first on ties), positive for the annotator
    top = np.array([np.argmax(p) for p in scores], dtype=np.int64)
    graded = (full[rows, np.minimum(top, width - 1), None, :] >= minimums[None, :, None]).reshape(queries, columns)
    hit = np.where((top < count)[:, None], graded, False).astype(np.float64)
    # clips by score descending (padding last); ties in any order: only the ends of tied runs are read
    order = np.argsort(np.where(valid, -score, np.inf), axis=1, kind="stable")
    ranked = np.take_along_axis(score, order, axis=1)
    grades = full[rows[:, None], order].transpose(0, 2, 1)[:, None]  # (queries, 1, annotators, clips)
    ranked_true = (grades >= minimums[None, :, None, None]).reshape(queries, columns, width)
    tps = np.cumsum(ranked_true, axis=-1, dtype=np.int32)  # true positives down to each clip
    positives = tps[rows, :, count - 1]
    differs = np.zeros((queries, width), dtype=bool)
    differs[:, :-1] = ranked[:, 1:] != ranked[:, :-1]
    cut = valid & (differs | (position[None, :] == (count - 1)[:, None]))  # the last clip of each score
    starts = np.ones((queries, width), dtype=bool)
    starts[:, 1:] = differs[:, :-1]
    # the official sums the enveloped precision where recall changes; with fewer than 2**24 positives, float32
    # recall tps / positives changes exactly where tps does: at the cuts whose tied run holds a positive
    picked = ranked_true & cut[:, None, :]
    tied_q, tied_c = np.nonzero(cut & ~starts)  # the last clip of a run of two or more
    if len(tied_q):
        before = np.maximum.accumulate(np.where(starts, position[None, :], 0), axis=1)[tied_q, tied_c] - 1
        previous = np.where(before[:, None] >= 0, tps[tied_q, :, np.maximum(before, 0)], 0)
        picked[tied_q, :, tied_c] = tps[tied_q, :, tied_c] > previous
    at = np.flatnonzero(picked[:, :, ::-1])  # last cut first, as the official's reversed curve
    row, at = np.divmod(at, width)
    at = width - 1 - at
    steps = np.bincount(row, minlength=lines)
    within = np.arange(len(row)) - np.repeat(np.cumsum(steps) - steps, steps)
    precision = np.zeros((lines, -(-max(int(steps.max()), 1) // 8) * 8))
    precision[row, within] = tps.reshape(lines * width)[row * width + at] / (at + 1.0)  # tps / (tps + fps)
    envelope = np.maximum.accumulate(precision, axis=1)  # the best precision at this cut or one with more clips
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = (pairwise_sums(envelope, steps) / steps).reshape(queries, columns)
    constant = (positives == 0) | (positives == count[:, None])  # get_ap: 0 without positive, 1 with only
    ap = np.where(constant, (positives > 0).astype(np.float64), ap)
    return np.asarray(ap, dtype=np.float64), hit


def _one_by_one(
    saliency: list[FloatArray], scores: list[FloatArray], minimums: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The per-query route, for what the batch does not take (no clip, 2**24 clips or more, scores not float64)."""
    columns = len(minimums) * ANNOTATORS
    ap = np.zeros((len(saliency), columns))
    hit = np.zeros((len(saliency), columns))
    for n, (s, p) in enumerate(zip(saliency, scores, strict=True)):
        labels = (s[:, None, :] >= minimums[None, :, None]).reshape(len(s), columns).astype(np.float64)
        if len(labels):
            ap[n] = highlight_aps(labels, p)
            top = int(np.argmax(p))
            hit[n] = labels[top] if top < len(labels) else 0.0
    return ap, hit


def pairwise_sums(values: FloatArray, counts: IntArray) -> FloatArray:
    """``np.add.reduce(values[r, :counts[r]])`` of every row ``r``, bit for bit (entries past a row's count are
    ignored)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(len(values))
    short = counts < 8
    for k in range(min(7, values.shape[1])):  # numpy adds fewer than 8 values left to right
        out = np.where(short & (k < counts), out + values[:, k], out)
    for r in np.flatnonzero(~short).tolist():
        out[r] = np.add.reduce(values[r, : counts[r]])
    return out
