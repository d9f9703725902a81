"""trec_eval's measures of the retrieved set, ranks ignored (one query's adapted labels); a function without a
docstring is defined by its measure's description (docs/measures.md)."""

from __future__ import annotations

from segeval.adapters.base import Adapted
from segeval.measures.params import Params


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
    """(x + 1) P R / (x P + R) over the whole retrieved set, x = 1 unless ``set_F.x``; 0 when nothing relevant
    is retrieved."""
    x = 1.0 if params is None else params.values[0]
    p, r = set_p(a), set_recall(a)
    return (x + 1) * p * r / (x * p + r) if p > 0 and r > 0 else 0.0


def utility(a: Adapted, params: Params | None = None) -> float:
    """p1 * rel_ret + p2 * nonrel_ret + p3 * rel_not_ret + p4 * (rel_ret - ret - R), the p of ``utility.p1,p2,p3,p4``
    or (1, -1, 0, 0)."""
    p1, p2, p3, p4 = (1.0, -1.0, 0.0, 0.0) if params is None else params.values
    ret, rel_ret, big_r = len(a.labels), int(a.relevant.sum()), a.num_rel
    return p1 * rel_ret + p2 * (ret - rel_ret) + p3 * (big_r - rel_ret) + p4 * (rel_ret - ret - big_r)
