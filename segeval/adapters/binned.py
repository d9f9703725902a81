"""Binned relevance, as the MediaEval reference computes it (docs/adapters.md, 'binned' and 'Worked examples')."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from segeval.adapters.base import Adapted, Adapter, Label
from segeval.adapters.labelled import Labelled
from segeval.adapters.overlap import decide
from segeval.core.arrays import FloatArray, IntArray
from segeval.core.prepared import PAIR_ROWS, Prepared, concat_ranges, first_occurrences, query_slices
from segeval.core.segment import bin_range
from segeval.core.settings import ASSIGN, BIN_SIZE, BINS


def expand_bins(start: FloatArray, end: FloatArray, size: int, assign: str = "span") -> tuple[IntArray, IntArray]:
    """(source index, bin index) for every bin each span covers (``start``: the bin of its start)."""
    if assign == "start":
        return np.arange(len(start), dtype=np.int64), np.floor_divide(start, size).astype(np.int64)
    first_f, last_f = bin_range(start, end, size)
    first, last = first_f.astype(np.int64), last_f.astype(np.int64)
    return concat_ranges(first, np.maximum(last - first + 1, 0))


def _bin_keys(gid: IntArray, bins: IntArray, q_gid: IntArray, q_bins: IntArray) -> tuple[IntArray, IntArray]:
    """One integer per (group, bin) of the run's and the qrels' bins, about as many keys as bins (each group numbers
    its bins from its lowest after the groups before it)."""
    low_gid = int(min(gid.min(initial=np.iinfo(np.int64).max), q_gid.min(initial=np.iinfo(np.int64).max)))
    if low_gid == np.iinfo(np.int64).max:
        return gid.copy(), q_gid.copy()  # no bins
    g, q_g = gid - low_gid, q_gid - low_gid
    size = int(max(g.max(initial=0), q_g.max(initial=0))) + 1
    low = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(size, -1, dtype=np.int64)
    for groups, b in ((g, bins), (q_g, q_bins)):
        np.minimum.at(low, groups, b)
        np.maximum.at(high, groups, b)
    width = np.maximum(high - low + 1, 0)
    base = np.cumsum(width) - width - np.minimum(low, high)  # key = base[group] + bin
    return base[g] + bins, base[q_g] + q_bins


def _rows_of(sorted_keys: IntArray, keys: IntArray) -> tuple[IntArray, IntArray]:
    """For each of ``keys``, where its equal entries of ``sorted_keys`` start and end."""
    n = len(sorted_keys)
    head = np.ones(n, dtype=bool)
    head[1:] = sorted_keys[1:] != sorted_keys[:-1]
    bounds = np.append(np.flatnonzero(head), n)  # each distinct key's first row, then the end
    distinct_keys = sorted_keys[bounds[:-1]]
    at = np.searchsorted(distinct_keys, keys, side="left")
    lo = bounds[at]
    found = np.zeros(len(keys), dtype=bool)
    inside = at < len(distinct_keys)
    found[inside] = distinct_keys[at[inside]] == keys[inside]
    return lo, np.where(found, bounds[np.minimum(at + 1, len(distinct_keys))], lo)


@dataclass
class _Units:
    """A slice of queries' units, their deciding pairs, and the query of each distinct relevant qrels bin."""

    source: IntArray
    rel: tuple[IntArray, IntArray]
    nonrel: tuple[IntArray, IntArray]
    rel_qcode: IntArray


class BinnedAdapter(Adapter):
    """Relevance of fixed-size time bins; each bin counted once, at its first appearance."""

    name = "binned"
    suffix = "_bin"

    def __init__(self, bin_size: int = BIN_SIZE, assign: str = "span") -> None:
        self.bin_size = BINS.check(bin_size)
        self.assign = ASSIGN.check(assign)
        #: the explained query's units' bins (``unit_bin``): (data, query, bins)
        self._explained: tuple[object, int, IntArray] = (None, -1, np.zeros(0, dtype=np.int64))
        if assign == "start":
            self.name, self.suffix = "binned-start", "_bin_start"

    @property
    def spec(self) -> str:
        return f"binned:{self.bin_size}" + (":start" if self.assign == "start" else "")

    def unit_bin(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> int:
        """The bin index of unit ``unit`` of query ``query`` (its units: each (video, bin) at its first appearance)."""
        if self._explained[0] is not data or self._explained[1] != query:  # by identity: data holds arrays
            run = data.run_columns
            lo, hi = int(data.run_bounds[query]), int(data.run_bounds[query + 1])
            src, bins = expand_bins(run["start"][lo:hi], run["end"][lo:hi], self.bin_size, self.assign)
            none = np.zeros(0, dtype=np.int64)
            key, _ = _bin_keys(run["gid"][lo:hi][src], bins, none, none)
            self._explained = (data, query, bins[first_occurrences(key)])
        return int(self._explained[2][unit])

    def reasons(self, data: Prepared, a: Adapted, unit: int, query: int) -> dict[Label | None, str]:
        """The qrels segments covering the unit's bin (relevant ones for ``1``, else non-relevant ones)."""
        b = self.unit_bin(data, a, unit, query)
        where = f"bin {b} ({b * self.bin_size}-{(b + 1) * self.bin_size} s)"
        return {
            Label.RELEVANT: f"relevant, covers {where}",
            Label.NONRELEVANT: f"non-relevant, covers {where}; no relevant one does",
            None: f"no qrels segment covers {where}",
        }

    def adapt(self, data: Prepared) -> Labelled:
        """Every query's units and labels, made for slices of whole queries (:func:`query_slices`)."""
        parts = [self._units(data, a, b) for a, b in query_slices(data.run_bounds, PAIR_ROWS)]
        offsets = np.cumsum([0] + [len(p.source) for p in parts])
        unit_src = np.concatenate([p.source for p in parts])

        def joined(pairs: list[tuple[IntArray, IntArray]]) -> tuple[IntArray, IntArray]:
            return (
                np.concatenate([u + at for (u, _), at in zip(pairs, offsets[:-1].tolist(), strict=True)]),
                np.concatenate([r for _, r in pairs]),
            )

        rel, nonrel = joined([p.rel for p in parts]), joined([p.nonrel for p in parts])
        rel_qcode = np.concatenate([p.rel_qcode for p in parts])
        del parts
        labels, mu, mr = decide(len(unit_src), rel, nonrel)
        del rel, nonrel
        return Labelled(data, labels, rel_qcode, mu, mr, unit_src)

    def _units(self, data: Prepared, first_query: int, end_query: int) -> _Units:
        """The :class:`_Units` of queries ``first_query`` to ``end_query`` (excluded)."""
        run, qrels = data.run_columns, data.qrels_columns
        lo, hi = int(data.run_bounds[first_query]), int(data.run_bounds[end_query])
        q_lo, q_hi = int(data.qrels_bounds[first_query]), int(data.qrels_bounds[end_query])
        src, bins = expand_bins(run["start"][lo:hi], run["end"][lo:hi], self.bin_size, self.assign)
        q_src, q_bins = expand_bins(qrels["start"][q_lo:q_hi], qrels["end"][q_lo:q_hi], self.bin_size, self.assign)
        src += lo
        q_src += q_lo
        key, q_key = _bin_keys(run["gid"][src], bins, qrels["gid"][q_src], q_bins)
        del bins, q_bins
        # first appearance of each (query, video, bin), in rank order
        first = first_occurrences(key)
        unit_key = key[first]
        unit_src = src[first]
        del key, src, first

        q_rel = data.relevant[q_src]
        order = np.argsort(q_key, kind="stable")
        q_key_sorted, q_row_sorted, q_rel_sorted = q_key[order], q_src[order], q_rel[order]
        # only units in a video with qrels of the query can match: look those up (usually few)
        q_gid = qrels["gid"][q_lo:q_hi]
        low_gid = int(q_gid.min(initial=0))
        judged = np.zeros(int(q_gid.max(initial=-1)) + 2 - low_gid, dtype=bool)  # the qrels' groups, then one more
        judged[q_gid - low_gid] = True
        at = np.clip(run["gid"][unit_src] - low_gid, -1, len(judged) - 1)  # other groups: the last entry (False)
        candidates = np.flatnonzero(judged[at])
        del at, judged
        lo_j, hi_j = _rows_of(q_key_sorted, unit_key[candidates])
        pu, pj = concat_ranges(lo_j, hi_j - lo_j)
        pu = candidates[pu]
        rel_here = q_rel_sorted[pj]
        rel_qcode = qrels["qcode"][q_src[q_rel]]
        distinct_rel_qcode = rel_qcode[np.unique(q_key[q_rel], return_index=True)[1]]
        return _Units(
            unit_src,
            (pu[rel_here], q_row_sorted[pj[rel_here]]),
            (pu[~rel_here], q_row_sorted[pj[~rel_here]]),
            distinct_rel_qcode,
        )
