"""Average precision of one ranking of hits, in each official tool's arithmetic.

``interpolated_ap``: ActivityNet's ``interpolated_prec_rec`` (VOC 2011 all-point interpolation) on
``tp_cumsum / npos`` and ``tp_cumsum / (tp_cumsum + fp_cumsum)``, summed with ``np.sum`` over the
same array as the official, so the value is the official's to the last bit.
``kit_ap``: the THUMOS14 kit's ``prap``: the precisions at the hits, added left to right, over npos
(no interpolation).
"""

from __future__ import annotations

import numpy as np

from segeval.adapt.base import Adapted
from segeval.arrays import BoolArray


def interpolated_ap(hits: BoolArray, npos: int) -> float:
    """All-point interpolated AP of ``hits`` in rank order, recall over ``npos`` instances (0 when
    there is no prediction or no instance)."""
    if len(hits) == 0 or npos <= 0:
        return 0.0
    tp = np.cumsum(hits, dtype=np.float64)
    fp = np.cumsum(~hits, dtype=np.float64)
    rec = tp / float(npos)
    prec = tp / (tp + fp)
    mprec = np.concatenate(([0.0], prec, [0.0]))
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mprec = np.maximum.accumulate(mprec[::-1])[::-1]  # the official's backward max loop
    idx = np.flatnonzero(mrec[1:] != mrec[:-1]) + 1
    return float(np.sum((mrec[idx] - mrec[idx - 1]) * mprec[idx]))


def kit_ap(hits: BoolArray, npos: int) -> float:
    """The THUMOS14 kit's non-interpolated AP: sum of precision at each hit, left to right, / npos."""
    if npos <= 0:
        return 0.0
    tp = np.cumsum(hits, dtype=np.float64)
    prec = tp / np.arange(1, len(hits) + 1, dtype=np.float64)  # tp ./ (fp + tp): the same doubles
    total = 0.0
    for p in prec[hits].tolist():
        total += p
    return total / npos


def ap_interp(a: Adapted) -> float:
    """The ``ap_interp`` measure: :func:`interpolated_ap` of the relevant (``1``) results over num_rel."""
    return interpolated_ap(np.asarray(a.relevant, dtype=np.bool_), int(a.num_rel))
