"""Overlap relevance as the MediaEval reference computes it, and credited once (docs/adapters.md, 'Worked examples')."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from segeval.adapters.base import Adapter, Label
from segeval.adapters.labelled import Labelled
from segeval.core.arrays import BoolArray, IntArray
from segeval.core.prepared import Prepared, kept_pairs
from segeval.core.segment import closed_overlap


def decide(
    n_units: int, rel_pairs: tuple[IntArray, IntArray], nonrel_pairs: tuple[IntArray, IntArray]
) -> tuple[npt.NDArray[np.uint8], IntArray, IntArray]:
    """Labels 1 / 0 / - from matching (unit, row) pairs, and the deciding pairs sorted by unit."""
    is_rel = np.zeros(n_units, dtype=bool)
    is_rel[rel_pairs[0]] = True
    is_non = np.zeros(n_units, dtype=bool)
    is_non[nonrel_pairs[0]] = True
    labels = np.full(n_units, Label.UNJUDGED, dtype=np.uint8)
    labels[is_non] = Label.NONRELEVANT
    labels[is_rel] = Label.RELEVANT
    keep_non = ~is_rel[nonrel_pairs[0]]
    units = np.concatenate([rel_pairs[0], nonrel_pairs[0][keep_non]])
    rows = np.concatenate([rel_pairs[1], nonrel_pairs[1][keep_non]])
    order = np.argsort(units, kind="stable")
    return labels, units[order], rows[order]


def overlap_decisions(data: Prepared) -> tuple[npt.NDArray[np.uint8], IntArray, IntArray]:
    """Dataset-wide labels 1 / 0 / - of the overlap rule and the deciding (result, qrels row) pairs."""
    run, qrels = data.run_columns, data.qrels_columns
    gid = run["gid"]
    s, e = run["start"], run["end"]
    rel_mask = data.relevant

    def pairs(mask: BoolArray) -> tuple[IntArray, IntArray]:
        rows = np.flatnonzero(mask)
        starts, ends = qrels["start"][rows], qrels["end"][rows]
        ui, j = kept_pairs(gid, qrels["gid"][rows], lambda u, j: closed_overlap(s[u], e[u], starts[j], ends[j]))
        return ui, rows[j]

    return decide(data.n_results, pairs(rel_mask), pairs(~rel_mask))


class OverlapAdapter(Adapter):
    """Relevant when the result meets a relevant qrels segment (closed intervals)."""

    name = "overlap"
    suffix = ""
    credits_once = False

    def adapt(self, data: Prepared) -> Labelled:
        labels, pu, pr = overlap_decisions(data)
        return Labelled(data, labels, data.rel.qcode, pu, pr)


class OverlapOnceAdapter(Adapter):
    """Relevant when the result is the first to overlap a merged relevant segment."""

    name = "overlap-once"
    suffix = "_once"

    def adapt(self, data: Prepared) -> Labelled:
        labels, pu, pr = overlap_decisions(data)
        run = data.run_columns
        s, e, rel = run["start"], run["end"], data.rel
        u, j = kept_pairs(run["gid"], rel.gid, lambda u, j: closed_overlap(s[u], e[u], rel.start[j], rel.end[j]))
        first = np.full(len(data.rel), data.n_results, dtype=np.int64)
        np.minimum.at(first, j, u)  # results are in rank order within each query
        credited = np.zeros(data.n_results + 1, dtype=bool)
        credited[first] = True
        labels = np.where((labels == Label.RELEVANT) & ~credited[:-1], np.uint8(Label.RELEVANT_SEEN), labels)
        return Labelled(data, labels.astype(np.uint8), data.rel.qcode, pu, pr)
