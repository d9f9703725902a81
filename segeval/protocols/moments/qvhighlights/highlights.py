"""QVHighlights highlight detection: the official ``get_ap`` and Hit1 of all queries at once
(:func:`batch_highlights`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray
from segeval.measures.arithmetic import pairwise_sums

ANNOTATORS = 3
CHUNK_CLIPS = 2**15  # queries are scored in chunks of about this many clips (bounds the memory)
FLOAT32_EXACT = 2**24  # below this many clips, distinct recalls k / n stay distinct in float32


def batch_highlights(
    saliency: list[FloatArray], scores: list[FloatArray], minimums: tuple[float, ...]
) -> tuple[FloatArray, FloatArray]:
    """AP and Hit1 of many queries (``saliency[q]`` (clips, 3), ``scores[q]`` one per clip): one row per query, one
    column per (minimum score, annotator); the official ``get_ap`` (0 without positive, 1 all positive; 0 without
    clip) and Hit1, bit for bit, for fewer than 2**24 clips a query."""
    columns = len(minimums) * ANNOTATORS
    ap = np.zeros((len(saliency), columns))
    hit = np.zeros((len(saliency), columns))
    clips = np.array([len(s) for s in saliency], dtype=np.int64)
    if clips.max(initial=0) >= FLOAT32_EXACT:
        raise ValueError(f"a query has {clips.max()} clips; expected fewer than {FLOAT32_EXACT}")
    size_class = np.frexp(clips)[1]  # class 0: no clip, AP and Hit1 0
    for size in np.unique(size_class[clips > 0]):
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
    scores = [p if p.dtype == np.float64 else _float_ranks(p) for p in scores]
    width = max(len(s) for s in saliency)
    full = np.zeros((queries, width, ANNOTATORS))
    valid = np.zeros((queries, width), dtype=bool)
    score = np.zeros((queries, width))  # cut or zero-padded to the clip count, as the official
    for n, (s, p) in enumerate(zip(saliency, scores, strict=True)):
        full[n, : len(s)] = s
        valid[n, : len(s)] = True
        score[n, : min(len(s), len(p))] = p[: len(s)]
    count = valid.sum(axis=1)
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


def _float_ranks(scores: npt.NDArray[Any]) -> FloatArray:
    """Scores that float64 may not hold exactly (integers from 2**53 on) as float64 numbers that order and tie as
    they do, 0 (the padding's score) staying 0."""
    _, rank = np.unique(np.append(scores, 0), return_inverse=True)
    return np.asarray(rank[:-1] - rank[-1], dtype=np.float64)
