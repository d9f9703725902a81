"""trec_eval's measures over one query's adapted labels (pure functions of :class:`~segeval.adapters.Adapted`):
counts, ranks and cut-offs, the retrieved set and the judgements met down the ranking, with its arithmetic
(:mod:`segeval.measures.arithmetic`); a unit with a NaN grade (not in the pool) or a negative one (pooled, not
judged) is unjudged; a function without a docstring is defined by its measure's description (docs/measures.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from segeval.adapters.base import Adapted, Label
from segeval.core.arrays import FloatArray
from segeval.measures.arithmetic import lround
from segeval.measures.params import Params


def precision_judged_at(a: Adapted, n: int) -> float:
    """P@n(j) (Büttcher et al. 2007): relevant among the first n judged units (-J, then P_n), over n."""
    judged = a.labels[a.labels != Label.UNJUDGED][:n]
    return int(np.count_nonzero(judged == Label.RELEVANT)) / n


def relstring(a: Adapted) -> str:
    return f"{a.relstring} {len(a.labels)}"


def set_p(a: Adapted) -> float:
    return int(a.relevant.sum()) / len(a.labels) if len(a.labels) else 0.0


def set_recall(a: Adapted) -> float:
    return int(a.relevant.sum()) / a.num_rel if a.num_rel else 0.0


def set_relative_p(a: Adapted) -> float:
    n = len(a.labels)
    return int(a.relevant.sum()) / min(n, a.num_rel) if n and a.num_rel else 0.0


def set_map(a: Adapted) -> float:
    n, rr = len(a.labels), int(a.relevant.sum())
    return rr * rr / (n * a.num_rel) if n and a.num_rel else 0.0


def set_f(a: Adapted, params: Params | None = None) -> float:
    """(x + 1) P R / (x P + R) of the retrieved set, x = 1 unless ``set_F.x``; 0 when nothing relevant is."""
    x = 1.0 if params is None else params.values[0]
    p, r = set_p(a), set_recall(a)
    return (x + 1) * p * r / (x * p + r) if p > 0 and r > 0 else 0.0


def utility(a: Adapted, params: Params | None = None) -> float:
    """p1 * rel_ret + p2 * nonrel_ret + p3 * rel_not_ret + p4 * (rel_ret - ret - R), the p of ``utility.p1,p2,p3,p4``
    or (1, -1, 0, 0)."""
    p1, p2, p3, p4 = (1.0, -1.0, 0.0, 0.0) if params is None else params.values
    ret, rel_ret, big_r = len(a.labels), int(a.relevant.sum()), a.num_rel
    return p1 * rel_ret + p2 * (ret - rel_ret) + p3 * (big_r - rel_ret) + p4 * (rel_ret - ret - big_r)


def relative_p_at(a: Adapted, k: int) -> float:
    return int(a.relevant[:k].sum()) / min(k, a.num_rel) if a.num_rel else 0.0


def iprec_cutoff(level: float, num_rel: int, version: str = "10") -> int:
    """The relevant results interpolated precision at ``level`` needs: trec_eval 10's ``lround(level * R)``,
    or 9.0.8's ``(long)(level * R + 0.9)`` (in doubles, so 0.7 * 3 + 0.9 = 2.9999999999999996 needs 2)."""
    return lround(level * num_rel) if version == "10" else int(level * num_rel + 0.9)


def on_empty(num_rel: int, levels: Sequence[float], version: str = "10") -> float:
    """trec_eval's interpolated precision on an empty ranking (after ``-J``): NaN (its 0/0) when a level's
    cut-off needs 0 relevant results (every level when num_rel is 0) or no level is given, else 0."""
    cutoffs = [iprec_cutoff(x, num_rel, version) for x in levels]
    return math.nan if 0 in cutoffs or not cutoffs else 0.0


def iprec_empty(num_rel: int, level: float, version: str = "10") -> float:
    """iprec_at_recall on a ranking trec_eval sees as empty (:func:`on_empty`)."""
    return on_empty(num_rel, [level], version)


ELEVEN_LEVELS = tuple(step / 10 for step in range(11))


def _levels(params: Params | None) -> Sequence[float]:
    return ELEVEN_LEVELS if params is None else params.values


def eleven_pt_avg(a: Adapted, params: Params | None = None, version: str = "10") -> float:
    """Mean interpolated precision at recall 0, 0.1, ..., 1 or ``11pt_avg.l1,l2,...``, summed as trec_eval walks
    up from the last rank (levels out of reach add nothing): for ascending levels,
    :func:`segeval.measures.batch.iprec_at_recall`'s."""
    levels = _levels(params)
    if not levels:
        return math.nan
    cutoffs = [iprec_cutoff(x, a.num_rel, version) for x in levels]
    ranks = (np.flatnonzero(a.relevant) + 1).tolist()
    found = len(ranks)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > found:
        current -= 1
    # the best precision at each rank or below it: the running maximum of the walk up
    precision = a.found / np.arange(1, len(a.labels) + 1)
    best = np.maximum.accumulate(precision[::-1])[::-1].tolist()
    total = 0.0
    for k in range(found, 0, -1):
        while current >= 0 and cutoffs[current] == k:
            total += best[ranks[k - 1] - 1]
            current -= 1
    final = best[ranks[0] - 1] if found else 0.0  # nothing relevant retrieved: precision 0
    while current >= 0:
        total += final
        current -= 1
    return total / len(levels)


def eleven_pt_empty(num_rel: int, params: Params | None = None, version: str = "10") -> float:
    """11pt_avg on a ranking trec_eval sees as empty (:func:`on_empty`)."""
    return on_empty(num_rel, _levels(params), version)


#: trec_eval 9.0.8's versions (:func:`iprec_cutoff`)
iprec_empty_9 = partial(iprec_empty, version="9")
eleven_pt_avg_9 = partial(eleven_pt_avg, version="9")
eleven_pt_empty_9 = partial(eleven_pt_empty, version="9")


def grade_values(a: Adapted) -> FloatArray:
    """Per ranked unit, its grade (NaN: not in the qrels; all 0 without grades)."""
    return a.grades if a.grades is not None else np.zeros(len(a.labels))


def num_nonrel_judged_ret(a: Adapted) -> int:
    return int((a.labels == Label.NONRELEVANT).sum())


def rankeff(a: Adapted) -> float:
    """RankEff (Ahlgren & Grönqvist): (1/R) sum over retrieved relevant r of 1 - N_above(r) / (|J| - |R|), J the
    judged units of the pool (negative grades do not count)."""
    big_r = a.num_rel
    if big_r == 0:
        return 0.0
    pool = a.pool if a.pool is not None else np.zeros(0)
    big_n = int((pool >= 0).sum()) - big_r
    above = np.cumsum(a.labels == Label.NONRELEVANT)[a.relevant]
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
