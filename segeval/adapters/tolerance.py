"""Tolerance to irrelevance, as the MediaEval reference computes it (the rule: docs/adapters.md, 'Worked examples')."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from segeval.adapters.base import Adapted, Adapter, Label
from segeval.adapters.labelled import Labelled
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.prepared import PAIR_ROWS, Intervals, Prepared, concat_ranges, distinct, kept_pairs
from segeval.core.segment import whole_seconds_overlap
from segeval.core.settings import TOLERANCE, WINDOW


def _meets(gid: IntArray, a: FloatArray, b: FloatArray, ivl: Intervals) -> tuple[IntArray, IntArray]:
    """(unit, interval) pairs where look-up [a, b) meets the interval (``whole_seconds``)."""
    return kept_pairs(gid, ivl.gid, lambda u, j: whole_seconds_overlap(a[u], b[u], ivl.start[j], ivl.end[j]))


def _credited(gid: IntArray, a: FloatArray, b: FloatArray, seen_end: FloatArray) -> BoolArray:
    """For relevant hits in rank order (look-ups [a, b), each adding the span (a, seen_end) when credited): whether each
    is credited, i.e. meets (``whole_seconds``) no span added by an earlier credited hit of its group."""
    n = len(gid)
    credited = np.ones(n, dtype=bool)
    if n == 0:
        return credited
    by_group = np.argsort(gid, kind="stable")  # each group's hits in rank order
    g = gid[by_group]
    head = np.ones(n, dtype=bool)
    head[1:] = g[1:] != g[:-1]
    first = np.flatnonzero(head)
    pos = np.arange(n, dtype=np.int64) - np.repeat(first, np.diff(np.append(first, n)))
    # every (later i, earlier j) pair of a group, as positions in by_group order, PAIR_ROWS later hits at a time
    starts = np.arange(n, dtype=np.int64) - pos
    hits: list[IntArray] = []
    priors: list[IntArray] = []
    total = np.cumsum(pos)  # pairs up to each later hit: cut where each slice holds about PAIR_ROWS pairs
    cuts = distinct(np.concatenate([[0], np.searchsorted(total, np.arange(PAIR_ROWS, int(total[-1]), PAIR_ROWS)), [n]]))
    for at, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        owner, earlier = concat_ranges(starts[at:stop], pos[at:stop])
        hit, prior = by_group[owner + at], by_group[earlier]
        meets = np.asarray(whole_seconds_overlap(a[hit], b[hit], a[prior], seen_end[prior]), dtype=bool)
        hits.append(hit[meets])
        priors.append(prior[meets])
    hit, prior = np.concatenate(hits), np.concatenate(priors)
    del hits, priors
    step_of = np.empty(n, dtype=np.int64)
    step_of[by_group] = pos  # each hit's position in its group (by_group inverted without a sort)
    step = step_of[hit]  # the position in its group of each pair's later hit
    del step_of
    order = np.argsort(step, kind="stable")
    hit, prior, step = hit[order], prior[order], step[order]
    cuts = np.searchsorted(step, np.arange(int(pos.max()) + 2))
    for k in range(1, int(pos.max()) + 1):
        lo, hi = int(cuts[k]), int(cuts[k + 1])
        if lo < hi:
            credited[hit[lo:hi][credited[prior[lo:hi]]]] = False
    return credited


class ToleranceAdapter(Adapter):
    """Relevant when relevant content starts within ``tolerance`` seconds of the result's start."""

    name = "tolerance"
    suffix = "_tol"
    credits_once = False

    def __init__(self, tolerance: int = TOLERANCE) -> None:
        self.tolerance = WINDOW.check(tolerance)

    @property
    def spec(self) -> str:
        return f"tolerance:{self.tolerance}"

    def reasons(self, data: Prepared, a: Adapted, unit: int, query: int) -> dict[Label | None, str]:
        """Relevant rows met within T seconds of the start (``1``/``s``), else non-relevant rows met (``0``/``S``)."""
        within, seen = f"within {self.tolerance} s of its start", "the result meets content seen at an earlier rank"
        return {
            Label.RELEVANT: f"relevant, met {within}",
            Label.RELEVANT_SEEN: f"relevant, met {within}; {seen}",
            Label.NONRELEVANT: f"non-relevant, meets it; no relevant one {within}",
            Label.NONRELEVANT_SEEN: f"non-relevant, meets it; {seen}",
            None: f"no relevant qrels segment {within}, no qrels segment meets it",
        }

    def adapt(self, data: Prepared) -> Labelled:
        """Labels 1 / s / 0 / S / - of every result: the look-ups, then the seen list in rank order."""
        run = data.run_columns
        n, gid, s, e = data.n_results, run["gid"], run["start"], run["end"]
        tol_end = s + self.tolerance
        hits = _look_ups(data, tol_end)
        labels = np.full(n, Label.UNJUDGED, dtype=np.uint8)
        labels[hits.nonrel] = Label.NONRELEVANT
        labels[hits.rel] = Label.RELEVANT
        # a relevant hit is 's' when [s, e) meets a span seen before it, else '1', its span joining the seen list
        credited = _credited(gid[hits.rel], s[hits.rel], e[hits.rel], hits.seen_end)
        labels[hits.rel[~credited]] = Label.RELEVANT_SEEN
        # a non-relevant hit is 'S' when [s, e) meets a span added at an earlier rank
        labels[_seen_earlier(gid, s, e, hits.nonrel, hits.rel[credited], hits.seen_end[credited])] = (
            Label.NONRELEVANT_SEEN
        )
        units, rows = _deciding_rows(data, tol_end, hits)
        return Labelled(data, labels, data.rel.qcode, units, rows)


@dataclass(frozen=True)
class _Hits:
    """The results whose [s, s + T) meets a merged relevant segment (``rel``), the end each would add to the seen
    list (``seen_end``), and the others whose [s, e) meets a merged non-relevant one (``nonrel``)."""

    rel: IntArray
    seen_end: FloatArray
    nonrel: IntArray


def _look_ups(data: Prepared, tol_end: FloatArray) -> _Hits:
    """The :class:`_Hits`, looked up for the results in a video with qrels of their query only."""
    run = data.run_columns
    gid, s, e = run["gid"], run["start"], run["end"]
    q_gid = data.qrels_columns["gid"]
    judged = np.zeros(int(max(gid.max(initial=0), q_gid.max(initial=0))) + 1, dtype=bool)
    judged[q_gid] = True
    near = np.flatnonzero(judged[gid])
    u, j = _meets(gid[near], s[near], tol_end[near], data.rel)  # u ascending: each hit's pairs together
    new = np.ones(len(u), dtype=bool)
    new[1:] = u[1:] != u[:-1]
    rel = near[u[new]]
    # the latest end of each hit's met segments (its pairs together), at least s + T
    ends = data.rel.end[j]
    seen_end = np.maximum(np.maximum.reduceat(ends, np.flatnonzero(new)) if len(ends) else ends, tol_end[rel])
    del ends
    others = np.ones(len(near), dtype=bool)
    others[u] = False
    rest = near[others]
    nu, _ = _meets(gid[rest], s[rest], e[rest], data.nonrel)
    met = np.zeros(len(rest), dtype=bool)
    met[nu] = True
    return _Hits(rel, seen_end, rest[met])


def _seen_earlier(
    gid: IntArray, s: FloatArray, e: FloatArray, hits: IntArray, added: IntArray, added_end: FloatArray
) -> IntArray:
    """The results of ``hits`` whose [s, e) meets a span a credited relevant hit added at an earlier rank."""
    if not len(added) or not len(hits):
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(gid[added], kind="stable")
    at, a_gid, a_s, a_e = added[order], gid[added][order], s[added][order], added_end[order]
    h_s, h_e = s[hits], e[hits]
    u, _ = kept_pairs(
        gid[hits], a_gid, lambda u, j: (at[j] < hits[u]) & whole_seconds_overlap(h_s[u], h_e[u], a_s[j], a_e[j])
    )
    return hits[u]


def _deciding_rows(data: Prepared, tol_end: FloatArray, hits: _Hits) -> tuple[IntArray, IntArray]:
    """The deciding (result, qrels row) pairs, sorted by result (raw qrels rows, relevant for 1/s, else 0/S)."""
    run, qrels = data.run_columns, data.qrels_columns
    gid, s = run["gid"], run["start"]
    qg, qs, qe = qrels["gid"], qrels["start"], qrels["end"]

    def raw(units: IntArray, b: FloatArray, rows: IntArray) -> tuple[IntArray, IntArray]:
        starts, ends = qs[rows].astype(np.float64), qe[rows].astype(np.float64)
        u_s, u_b = s[units], b[units]
        u, j = kept_pairs(gid[units], qg[rows], lambda u, j: whole_seconds_overlap(u_s[u], u_b[u], starts[j], ends[j]))
        return units[u], rows[j]

    u1, r1 = raw(hits.rel, tol_end, np.flatnonzero(data.relevant))
    u0, r0 = raw(hits.nonrel, run["end"], np.flatnonzero(~data.relevant))
    units = np.concatenate([u1, u0])
    rows = np.concatenate([r1, r0])
    order = np.argsort(units, kind="stable")
    return units[order], rows[order]
