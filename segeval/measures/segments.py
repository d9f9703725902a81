"""Measures over one query's run segments and merged relevant segments (no adapter); a function without a
docstring is defined by its measure's description (docs/measures.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.prepared import kept_pairs
from segeval.core.segment import closed_overlap

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared


@dataclass(frozen=True)
class QuerySegments:
    """One query's ranked results and merged relevant segments (by video within the query: ``*_gid``; ``rel_*``
    sorted by video and start, disjoint within a video)."""

    run_gid: IntArray
    run_start: FloatArray
    run_end: FloatArray
    rel_gid: IntArray
    rel_start: FloatArray
    rel_end: FloatArray
    #: which results meet a relevant segment of their video (:func:`meets_relevant`), when found beforehand
    #: for every query at once (:func:`query_segments`); None: found when needed
    meets: BoolArray | None = None

    def by_video(self) -> dict[int, list[tuple[float, float]]]:
        """The merged relevant segments of each video, ascending (their starts are the onsets)."""
        out: dict[int, list[tuple[float, float]]] = {}
        for g, s, e in zip(self.rel_gid.tolist(), self.rel_start.tolist(), self.rel_end.tolist(), strict=True):
            out.setdefault(g, []).append((s, e))
        return out

    @cached_property
    def maisp(self) -> MaispState:
        """The MAiSP walk over this query's results (computed once)."""
        return maisp_walk(self)


def meets_relevant(
    run_gid: IntArray,
    run_start: FloatArray,
    run_end: FloatArray,
    rel_gid: IntArray,
    rel_start: FloatArray,
    rel_end: FloatArray,
) -> BoolArray:
    """Whether each result meets (closed rule) a relevant segment of its video; ``rel_gid`` sorted."""
    found = np.zeros(len(run_gid), dtype=bool)
    if len(run_gid) == 0 or len(rel_gid) == 0:
        return found
    base = min(int(run_gid.min()), int(rel_gid.min()))  # ids from the lowest: kept_pairs counts up to the highest
    u, j = kept_pairs(run_gid - base, rel_gid - base)
    found[u[closed_overlap(run_start[u], run_end[u], rel_start[j], rel_end[j])]] = True
    return found


def query_segments(data: Prepared) -> list[QuerySegments]:
    """Per-query run segments and merged relevant segments, in ``data.queries`` order."""
    gid, start, end = data.run_columns["gid"], data.run_columns["start"], data.run_columns["end"]
    rel = data.rel
    meets = meets_relevant(gid, start, end, rel.gid, rel.start, rel.end)
    rb, lb = data.run_bounds.tolist(), data.rel_bounds.tolist()
    return [
        QuerySegments(gid[a:b], start[a:b], end[a:b], rel.gid[c:d], rel.start[c:d], rel.end[c:d], meets[a:b])
        for a, b, c, d in zip(rb[:-1], rb[1:], lb[:-1], lb[1:], strict=True)
    ]


def videos_ret(q: QuerySegments) -> int:
    return len(set(q.run_gid.tolist()))


def videos_rel(q: QuerySegments) -> int:
    return len(set(q.rel_gid.tolist()))


def avglength_ret(q: QuerySegments) -> float:
    return float((q.run_end - q.run_start).sum()) / len(q.run_start) if len(q.run_start) else 0.0


def avglength_rel(q: QuerySegments) -> float:
    """Mean length (s) of the merged relevant segments; 0 when none."""
    return float((q.rel_end - q.rel_start).sum()) / len(q.rel_start) if len(q.rel_start) else 0.0


@dataclass(frozen=True)
class MaispState:
    """Outcome of the MAiSP walk: seconds counts, recall points, interpolated precisions."""

    rel_secs: int
    ret_secs: int
    rel_ret_secs: int
    points: list[int]
    isp: list[float]


def recall_points(rel_secs: int) -> list[int]:
    """Recall points in seconds of relevant content (about 100 of them for long ground truth)."""
    if rel_secs > 100:
        rest = rel_secs % 100
        step = math.floor(rel_secs / 100.0) if rest <= 50 else math.ceil(rel_secs / 100.0)
        points = list(range(0, rel_secs, step))
        points[-1] += rest
        return points
    return [*range(rel_secs), rel_secs]


def maisp_walk(q: QuerySegments) -> MaispState:
    """The MAiSP walk: the reference's user model (MediaEval Search & Hyperlinking 2013)."""
    rel_secs_f = float(np.maximum(q.rel_end - q.rel_start, 0).sum())
    rel_secs = int(rel_secs_f)
    points = recall_points(rel_secs)
    contrib = np.maximum(q.run_end - q.run_start, 0)
    remaining = q.by_video()
    # candidates: results meeting (closed rule) a relevant segment of their video
    candidate = (
        q.meets
        if q.meets is not None
        else meets_relevant(q.run_gid, q.run_start, q.run_end, q.rel_gid, q.rel_start, q.rel_end)
    )
    other = np.where(candidate, 0, contrib)
    which = np.flatnonzero(candidate)  # the candidates' values as Python numbers, taken at once
    # the other results' seconds before each candidate: the running sum up to the result before it
    other_before = np.cumsum(other)[which - 1].tolist() if len(which) else []
    if len(which) and which[0] == 0:
        other_before[0] = 0.0
    sp: list[float] = []
    k = 1
    rel_ret = 0.0
    cand_ret = 0.0
    for before, s, e, g in zip(
        other_before, q.run_start[which].tolist(), q.run_end[which].tolist(), q.run_gid[which].tolist(), strict=True
    ):
        ret = before + cand_ret
        w0 = s
        seen = 0.0
        kept: list[tuple[float, float]] = []
        for r0, r1 in remaining[g]:
            # the window [w0, e] meets [r0, r1]: the reference's test, which differs from the closed rule once
            # the window has been shifted past its end (w0 > e)
            if not ((r0 <= w0 <= r1) or (w0 <= r0 <= e)):
                kept.append((r0, r1))
                continue
            o0 = max(r0, w0)
            rel_over = max(r1 - o0, 0.0)
            rel_ret += rel_over
            seen += (o0 - w0) + rel_over
            while k < len(points) and points[k] <= rel_ret:
                sp.append(points[k] / (ret + seen - (rel_ret - points[k])))
                k += 1
            if r0 < o0 and (o0 - 1) - r0 >= 0.01:  # the unwatched part before o0 stays
                kept.append((r0, o0 - 1))
            w0 = w0 + seen
        remaining[g] = kept
        cand_ret += max(seen, e - s)
    isp = [0.0] * len(sp)
    best = -math.inf
    for pos in range(len(sp) - 1, -1, -1):
        best = max(best, sp[pos])
        isp[pos] = best
    ret_secs = float(other.sum()) + cand_ret
    return MaispState(rel_secs, int(ret_secs), int(rel_ret), points, isp)


#: the MAiSP walk's seconds: relevant, watched (results extended to the end of relevant content), relevant watched
num_rel_secs, num_ret_secs, num_rel_ret_secs = (
    attrgetter(f"maisp.{k}") for k in ("rel_secs", "ret_secs", "rel_ret_secs")
)


def maisp(q: QuerySegments, position: int | None = None) -> float:
    """Mean interpolated segment precision over the recall points, or the one at recall-point ``position`` (else 0)."""
    if position is not None:
        isp = q.maisp.isp
        return isp[position] if position < len(isp) else 0.0
    st = q.maisp
    if not st.isp:
        return 0.0
    total = 1.0
    for v in st.isp:
        total += v
    return total / len(st.points)
