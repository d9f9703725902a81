"""Measures over one query's adapted labels (pure functions of :class:`~segeval.adapters.Adapted`); a function
without a docstring is defined by its measure's description (docs/measures.md)."""

from __future__ import annotations

import numpy as np

from segeval.adapters.base import Adapted, Label
from segeval.measures.arithmetic import running_sum


def num_rel(a: Adapted) -> int:
    return a.num_rel


def num_ret(a: Adapted) -> int:
    return len(a.labels)


def num_rel_ret(a: Adapted) -> int:
    """Units labelled relevant (``1``; seen ones excluded)."""
    return int(a.relevant.sum())


def average_precision(a: Adapted, k: int | None = None) -> float:
    """Sum over the relevant ranks i (of the top k: map_cut) of (relevant up to i) / i, over num_rel; 0 when
    nothing is relevant."""
    if a.num_rel == 0:
        return 0.0
    ranks = np.flatnonzero(a.relevant[:k]) + 1
    return running_sum([found / rank for found, rank in enumerate(ranks.tolist(), start=1)]) / a.num_rel


def precision_at(a: Adapted, n: int) -> float:
    """Relevant units among the first n, divided by n (missing ranks count as not relevant); 0 when n is 0."""
    return int(a.relevant[:n].sum()) / n if n > 0 else 0.0


def precision_judged_at(a: Adapted, n: int) -> float:
    """P@n(j) (Büttcher et al. 2007, section 4): relevant units among the first n judged units (as trec_eval's
    ``-J`` before its P_n), divided by n."""
    judged = a.labels[a.labels != Label.UNJUDGED][:n]
    return int(np.count_nonzero(judged == Label.RELEVANT)) / n


def judged_at(a: Adapted, n: int) -> float:
    """Judged units (any label but ``-``) among the first n, divided by n."""
    return int((a.labels[:n] != Label.UNJUDGED).sum()) / n


def relstring(a: Adapted) -> str:
    return f"{a.relstring} {len(a.labels)}"
