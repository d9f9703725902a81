"""Overlap relevance credited once: each merged relevant segment counts for one result (docs/adapters.md)."""

from __future__ import annotations

import numpy as np

from segeval.adapters.base import Adapter, Label
from segeval.adapters.labelled import Labelled
from segeval.adapters.overlap import overlap_decisions
from segeval.core.prepared import Prepared, kept_pairs
from segeval.core.segment import closed_overlap


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
