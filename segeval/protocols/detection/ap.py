"""Average precision of rankings of hits, in each official tool's arithmetic: ActivityNet's interpolated AP
(:func:`voc_ap`) and the THUMOS14 kit's (:func:`kit_ap`)."""

from __future__ import annotations

import numpy as np

from segeval.adapters.base import Adapted
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.measures.arithmetic import pairwise_sums


def voc_ap(
    tp: FloatArray | BoolArray, valid: BoolArray, npos: FloatArray | IntArray, scale: float | None = None
) -> FloatArray:
    """ActivityNet's ``interpolated_prec_rec`` (VOC 2011) of each ranking, summed as its ``np.sum``: ``tp[..., i]``
    a hit at rank i, ``valid[..., i]`` a prediction there (not padding), ``npos[...]`` the instances (0: the
    official's 0/0 recalls); no prediction: AP 0.  ``scale``: DETAD's normalized precision (docs/detection.md)."""
    shape, width = tp.shape[:-1], tp.shape[-1]
    tp = np.asarray(tp, dtype=np.float64).reshape(-1, width)
    valid = np.broadcast_to(valid, (*shape, width)).reshape(-1, width)
    tp_cum = np.cumsum(tp, axis=-1)
    fp_cum = np.cumsum(valid & (tp == 0), axis=-1, dtype=np.float64)
    mp = np.zeros((len(tp), width + 2))
    mr = np.zeros((len(tp), width + 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        mr[:, 1:-1] = tp_cum / np.broadcast_to(np.asarray(npos, dtype=np.float64), shape).reshape(-1, 1)
        mp[:, 1:-1] = (
            tp_cum / (tp_cum + fp_cum) if scale is None else mr[:, 1:-1] * scale / (mr[:, 1:-1] * scale + fp_cum)
        )
    mr[:, -1] = 1
    mp = np.maximum.accumulate(mp[:, ::-1], axis=-1)[:, ::-1]  # the official's backward max loop
    step = mr[:, 1:] != mr[:, :-1]
    terms = (mr[:, 1:] - mr[:, :-1]) * mp[:, 1:]
    # np.sum over each ranking's steps, gathered to the left of its row
    count = step.sum(axis=-1)
    gathered = np.zeros((len(tp), max(int(count.max(initial=0)), 1)))
    rows, cols = np.nonzero(step)
    gathered[rows, (np.cumsum(step, axis=-1) - 1)[rows, cols]] = terms[rows, cols]
    ap = pairwise_sums(gathered, count)
    ap[~valid.any(axis=-1)] = 0.0
    return ap.reshape(shape)


def interpolated_ap(hits: BoolArray, npos: int, scale: float | None = None) -> float:
    """:func:`voc_ap` of one ranking ``hits``, recall over ``npos`` instances (0 without prediction or instance)."""
    if len(hits) == 0 or npos <= 0:
        return 0.0
    return float(voc_ap(np.asarray(hits)[None], np.ones((1, len(hits)), dtype=np.bool_), np.array([npos]), scale)[0])


def kit_ap(hits: BoolArray, npos: int) -> float:
    """The THUMOS14 kit's non-interpolated AP: sum of precision at each hit, left to right, / npos."""
    if npos <= 0:
        return 0.0
    tp = np.cumsum(hits, dtype=np.float64)
    prec = tp / np.arange(1, len(hits) + 1, dtype=np.float64)  # tp ./ (fp + tp): the same doubles
    return float(np.cumsum(prec[hits])[-1]) / npos if hits.any() else 0.0  # cumsum: left to right


def ap_interp(a: Adapted) -> float:
    """The ``ap_interp`` measure: :func:`interpolated_ap` of the relevant (``1``) results over num_rel."""
    return interpolated_ap(np.asarray(a.relevant, dtype=np.bool_), int(a.num_rel))
