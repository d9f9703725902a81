"""trec_eval's measures of the judgements met down a ranking, with its arithmetic: a ranked unit with a NaN grade
("not in the pool", -1) or a negative one ("in the pool but unjudged", -2) is unjudged."""

from __future__ import annotations

import math

import numpy as np

from segeval.adapters.base import Adapted, Label
from segeval.core.arrays import FloatArray, IntArray
from segeval.measures.arithmetic import running_sum
from segeval.measures.params import Params


def grade_values(a: Adapted) -> FloatArray:
    """Per ranked unit, its grade (NaN: not in the qrels; all 0 without grades)."""
    return a.grades if a.grades is not None else np.zeros(len(a.labels))


def num_nonrel_judged_ret(a: Adapted) -> int:
    return int((a.labels == Label.NONRELEVANT).sum())


def bpref(a: Adapted) -> float:
    big_r = a.num_rel
    if big_r == 0:
        return 0.0
    big_n = _judged_nonrelevant(a)
    above = _nonrelevant_above_relevant(a)
    bound = min(big_r, big_n)
    # min(above, R) / min(R, N) as trec_eval; for documents above <= N, while segment runs can hold more
    # non-relevant results than the qrels' N, so the count is capped at min(R, N) to keep bpref in [0, 1]
    penalties = np.where(above > 0, np.minimum(above, bound) / max(bound, 1), 0.0)
    return running_sum(1.0 - penalties) / big_r


def _judged_nonrelevant(a: Adapted) -> int:
    """Judged non-relevant units of the query (negative grades do not count)."""
    pool = a.pool if a.pool is not None else np.zeros(0)
    return int((pool >= 0).sum()) - a.num_rel


def _nonrelevant_above_relevant(a: Adapted) -> IntArray:
    """For each retrieved relevant unit, the judged non-relevant units ranked above it."""
    nonrel_so_far = np.cumsum(a.labels == Label.NONRELEVANT)
    return np.asarray(nonrel_so_far[a.relevant], dtype=np.int64)


def rankeff(a: Adapted) -> float:
    """RankEff (Ahlgren & Grönqvist): (1/R) * sum over retrieved relevant r of (1 - judged non-relevant above r
    / (|J| - |R|))."""
    big_r = a.num_rel
    if big_r == 0:
        return 0.0
    big_n = _judged_nonrelevant(a)
    above = _nonrelevant_above_relevant(a)
    capped = np.minimum(above, big_n)  # segment runs can hold more non-relevant results than the qrels' N
    return float(np.sum(1.0 - (capped / big_n if big_n else 0.0 * above))) / big_r


EPS = 1e-5


def infap(a: Adapted) -> float:
    """Inferred AP (Yilmaz & Aslam), as trec_eval computes it."""
    if a.num_rel == 0:
        return 0.0
    grades = grade_values(a)
    labels = a.labels.tolist()
    r = nr = u = 0
    total = 0.0
    for j, label in enumerate(labels):
        g = grades[j]
        if label == Label.RELEVANT:
            r += 1
            if j == 0:
                total += 1.0
            else:
                total += 1 / (j + 1) + (j / (j + 1)) * ((r - 1 + nr + u) / j) * ((r - 1 + EPS) / (r - 1 + nr + 2 * EPS))
        elif label == Label.NONRELEVANT:
            nr += 1
        elif not np.isnan(g) and g < 0:
            u += 1
    return total / a.num_rel


def unjudged_at(a: Adapted, k: int) -> float:
    return int((a.labels[:k] == Label.UNJUDGED).sum()) / k


def trec_relstring(a: Adapted, params: Params | None = None) -> str:
    """The grades of the first 10 units (``relstring.x``: ``int(x)``, C's truncation): digits, '>' above 9,
    '-' not in the qrels, '.' negative."""
    length = 10 if params is None else max(0, math.trunc(params.values[0]))
    out = []
    for g in grade_values(a)[:length].tolist():
        if math.isnan(g):
            out.append("-")
        elif g < 0:
            out.append(".")
        else:
            out.append(str(int(g)) if g <= 9 else ">")
    return "".join(out)
