"""Binned relevance, as the MediaEval reference computes it.

Time is cut into bins of ``bin_size`` seconds; a span (s, e) covers bins
``s // B`` .. ``(e - 1) // B`` (the ``bins`` rule of :mod:`segeval.segment`).
The binned ranking walks the results in rank order and appends each covered
bin the first time it appears, so it can be longer or shorter than the run.
With B = 10::

              0         1         2
              012345678901234567890123456789
        rel : [==============]
        1   : .....[===================]
        2   : ............[==]
        3   : ....................*
        labels: 11-

(1 covers bins 0, 1 and 2; 2 covers bin 1 again and is dropped; 3 is a
zero-length span on a bin boundary and covers no bin.)

A bin is relevant when a relevant qrels segment covers it (qrels are not merged
first), non-relevant when only a non-relevant one does.  ``num_rel`` is the
number of distinct relevant bins.

That is the reference script's rule (``assign="span"``).  The paper's formula
(``assign="start"``, given as ``-a binned:B:start``; reported as ``binned-start``
with the suffix ``_bin_start``) puts every result and every judged segment in the
single bin of its start time.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from segeval.adapt.base import Adapted, Adapter, Label, Reason, per_query_count, result_row
from segeval.adapt.labelled import Labelled
from segeval.adapt.overlap import decide
from segeval.errors import check_choice, check_int
from segeval.prepared import Prepared, concat_ranges, first_occurrences
from segeval.segment import bin_range
from segeval.settings import BIN_ASSIGN, BIN_SIZE

IntArray = npt.NDArray[np.int64]


def expand_bins(start: npt.NDArray[np.float64], end: npt.NDArray[np.float64], size: int,
                assign: str = "span") -> tuple[IntArray, IntArray]:
    """(source index, bin index) for every bin each span covers, in span then bin order; with
    ``assign="start"`` only the bin of each span's start."""
    if assign == "start":
        return np.arange(len(start), dtype=np.int64), np.floor_divide(start, size).astype(np.int64)
    first_f, last_f = bin_range(start, end, size)
    first, last = first_f.astype(np.int64), last_f.astype(np.int64)
    return concat_ranges(first, np.maximum(last - first + 1, 0))


def _bin_keys(gid: IntArray, bins: IntArray, q_gid: IntArray, q_bins: IntArray) -> tuple[IntArray, IntArray]:
    """One integer per (group, bin), equal for equal pairs, for the run's and the qrels' bins: each group
    numbers the bins from its lowest to its highest one after the groups before it, so the keys stay about
    as many as the bins (dense enough for :func:`first_occurrences`'s table)."""
    size = int(max(gid.max(initial=0), q_gid.max(initial=0))) + 1
    low = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(size, -1, dtype=np.int64)
    for g, b in ((gid, bins), (q_gid, q_bins)):
        np.minimum.at(low, g, b)
        np.maximum.at(high, g, b)
    width = np.maximum(high - low + 1, 0)
    base = np.cumsum(width) - width - np.minimum(low, high)  # key = base[group] + bin
    return base[gid] + bins, base[q_gid] + q_bins


class BinnedAdapter(Adapter):
    """Relevance of fixed-size time bins; each bin counted once, at its first appearance."""

    name = "binned"
    suffix = "_bin"

    def __init__(self, bin_size: int = BIN_SIZE, assign: str = "span") -> None:
        self.bin_size = check_int("bin_size", bin_size, minimum=1)
        self.assign = check_choice("assign", assign, BIN_ASSIGN)
        if assign == "start":
            self.name, self.suffix = "binned-start", "_bin_start"

    @property
    def spec(self) -> str:
        return f"binned:{self.bin_size}" + (":start" if self.assign == "start" else "")

    def unit_bin(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> int:
        """The bin index of unit ``unit``: the k-th new bin of its result, k counted over the query's units."""
        i = result_row(data, a, unit, query)
        run = data.run_columns
        lo = int(data.run_bounds[query])
        seen: set[tuple[int, int]] = set()
        k = unit - int(np.searchsorted(a.source, a.source[unit], side="left"))
        for r in range(lo, i + 1):
            _, bins = expand_bins(run["start"][r : r + 1], run["end"][r : r + 1],
                                  self.bin_size, self.assign)
            g = int(run["gid"][r])
            new = [int(b) for b in bins.tolist() if (g, int(b)) not in seen]
            if r == i:
                return new[k]
            seen.update((g, b) for b in new)
        raise AssertionError("unit not found")  # pragma: no cover

    def explain(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> list[Reason]:
        """The qrels segments covering the unit's bin (relevant ones for ``1``, else non-relevant ones)."""
        b = self.unit_bin(data, a, unit, query)
        where = f"bin {b} ({b * self.bin_size}-{(b + 1) * self.bin_size} s)"
        rows = a.matches(unit).tolist()
        if not rows:
            return [Reason(-1, f"no qrels segment covers {where}")]
        if Label(int(a.labels[unit])) == Label.RELEVANT:
            return [Reason(int(r), f"relevant, covers {where}") for r in rows]
        return [Reason(int(r), f"non-relevant, covers {where}; no relevant one does") for r in rows]

    def adapt(self, data: Prepared) -> Labelled:
        run, qrels = data.run_columns, data.qrels_columns
        src, bins = expand_bins(run["start"], run["end"], self.bin_size, self.assign)
        q_src, q_bins = expand_bins(qrels["start"], qrels["end"], self.bin_size, self.assign)
        key, q_key = _bin_keys(run["gid"][src], bins, qrels["gid"][q_src], q_bins)
        # first appearance of each (query, video, bin), in rank order
        first = first_occurrences(key)
        unit_key = key[first]
        unit_src = src[first]

        q_rel = data.relevant[q_src]
        order = np.argsort(q_key, kind="stable")
        q_key_sorted, q_row_sorted, q_rel_sorted = q_key[order], q_src[order], q_rel[order]
        # only units in a video with qrels of the query can match: look those up (usually few)
        unit_gid, q_gid = run["gid"][unit_src], qrels["gid"]
        judged = np.zeros(int(max(unit_gid.max(initial=0), q_gid.max(initial=0))) + 1, dtype=bool)
        judged[q_gid] = True
        candidates = np.flatnonzero(judged[unit_gid])
        lo = np.searchsorted(q_key_sorted, unit_key[candidates], side="left")
        hi = np.searchsorted(q_key_sorted, unit_key[candidates], side="right")
        pu, pj = concat_ranges(lo, hi - lo)
        pu = candidates[pu]
        rel_here = q_rel_sorted[pj]
        labels, mu, mr = decide(len(unit_key), (pu[rel_here], q_row_sorted[pj[rel_here]]),
                                (pu[~rel_here], q_row_sorted[pj[~rel_here]]))

        rel_qcode = qrels["qcode"][q_src[q_rel]]
        distinct_rel_qcode = rel_qcode[np.unique(q_key[q_rel], return_index=True)[1]]
        num_rel = per_query_count(distinct_rel_qcode, len(data.queries))
        unit_qcode = run["qcode"][unit_src]
        return Labelled(data, unit_qcode, labels, num_rel, mu, mr, unit_src)
