"""Jump-in point measures over one query's ranked segments (mGAP, MASP, MASDWP, MRR with a window), results judged
by their start (docs/speech.md, "Jump-in points").  Imports no NumPy (the registry reads the keys)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from segeval.core.domains import NONNEGATIVE, POSITIVE, Domain, Key
from segeval.measures.declaration import settings

if TYPE_CHECKING:
    from segeval.measures.segments import QuerySegments

#: CLEF CL-SR: the reward falls by step/window (0.1) for every whole 15 s step of distance, 0 from 150 s on
WINDOW, STEP = 150.0, 15.0
_WINDOW = Key("window", WINDOW, POSITIVE)
_STEP = Key("step", STEP, NONNEGATIVE)
#: once: each onset credited to one result at most (the first in rank order that reaches it);
#: all: every result scored against its nearest onset, so several results near one onset all score
_MATCH = Key("match", "once", Domain(words=("once", "all"), numbers=False))
#: retrieved: divide by the number of results that hold relevant content (Eskevich et al.'s n);
#: qrels: by the number of relevant segments in the qrels (as average precision's R)
_NORM = Key("norm", "retrieved", Domain(words=("retrieved", "qrels"), numbers=False))

MGAP_KEYS = (_WINDOW, _STEP, _MATCH)
MASP_KEYS = (_NORM,)
MASDWP_KEYS = (_WINDOW, _STEP, _NORM)
#: mrr_window's default windows (s): the MediaEval RSR 2011 and S&H 2012 reports
MRR_WINDOWS = (10, 30, 60)


def reward(distance: float, window: float, step: float) -> float:
    """The credit of a start ``distance`` seconds from an onset: 1 at 0, falling linearly to 0 at ``window``,
    the distance first cut down to whole ``step`` s (CLEF CL-SR: 14.9 s earns 1, 15 s earns 0.9)."""
    if distance >= window:
        return 0.0
    if step > 0 and math.isfinite(distance / step):  # a step too small to count is none
        distance = math.floor(distance / step) * step
    return max(0.0, 1.0 - distance / window)


def _results(q: QuerySegments) -> list[tuple[int, float, float]]:
    return list(zip(q.run_gid.tolist(), q.run_start.tolist(), q.run_end.tolist(), strict=True))


def rewards(q: QuerySegments, window: float, step: float, once: bool) -> list[float]:
    """Each result's reward in rank order.  A result takes the onset of its video that gives it the
    highest reward (the earlier onset on a tie); with ``once`` only onsets no earlier result took."""
    spans = q.by_video()
    taken: set[tuple[int, int]] = set()
    out = []
    for g, start, _ in _results(q):
        best, which = 0.0, -1
        for j, (onset, _) in enumerate(spans.get(g, ())):
            if once and (g, j) in taken:
                continue
            r = reward(abs(start - onset), window, step)
            if r > best:
                best, which = r, j
        if once and which >= 0:
            taken.add((g, which))
        out.append(best)
    return out


def mgap(q: QuerySegments, params: str | None = None) -> float:
    """Generalized average precision: (1/R) sum over ranks k of p_k * (p_1 + ... + p_k) / k, where p_k
    is the k-th result's reward and R the number of onsets (0 when there are none)."""
    p = settings(MGAP_KEYS, params)
    onsets = len(q.rel_start)
    if onsets == 0:
        return 0.0
    total = cumulative = 0.0
    for k, pk in enumerate(rewards(q, float(p["window"]), float(p["step"]), p["match"] == "once"), start=1):
        cumulative += pk
        if pk > 0:
            total += pk * cumulative / k
    return total / onsets


def reciprocal_rank_window(q: QuerySegments, window: int) -> float:
    """1 / the rank of the first result starting within ``window`` s (inclusive) of an onset of its video, else 0."""
    spans = q.by_video()
    for k, (g, start, _) in enumerate(_results(q), start=1):
        if any(abs(start - onset) <= window for onset, _ in spans.get(g, ())):
            return 1.0 / k
    return 0.0


def relevant_seconds(q: QuerySegments) -> list[float]:
    """Each result's overlap (s) with its video's merged relevant segments, each result on its own."""
    spans = q.by_video()
    return [sum(max(0.0, min(end, e) - max(start, s)) for s, e in spans.get(g, ())) for g, start, end in _results(q)]


def _average_segment_precision(q: QuerySegments, weights: list[float], norm: str) -> float:
    """(1/n) sum over ranks r holding relevant content of SP[r] * weight[r], with SP[r] the relevant
    seconds over the seconds of the first r results; n by ``norm`` (0 when n is 0)."""
    rel = relevant_seconds(q)
    total = seconds = relevant = 0.0
    holding = 0
    for (_, start, end), r, w in zip(_results(q), rel, weights, strict=True):
        seconds += max(0.0, end - start)
        relevant += r
        if r > 0:
            holding += 1
            total += relevant / seconds * w
    n = holding if norm == "retrieved" else len(q.rel_start)
    return total / n if n else 0.0


def masp(q: QuerySegments, params: str | None = None) -> float:
    """Average segment precision (Eskevich, Magdy & Jones 2012)."""
    p = settings(MASP_KEYS, params)
    return _average_segment_precision(q, [1.0] * len(q.run_start), str(p["norm"]))


def masdwp(q: QuerySegments, params: str | None = None) -> float:
    """MASP with each rank's precision weighted by its start's :func:`reward` against the nearest onset."""
    p = settings(MASDWP_KEYS, params)
    weights = rewards(q, float(p["window"]), float(p["step"]), once=False)
    return _average_segment_precision(q, weights, str(p["norm"]))
