"""ActivityNet's temporal IoU matching as an adapter: ``tiou-best:θ``."""

from __future__ import annotations

import numpy as np

from segeval.adapters.base import Adapted, Adapter, Label, Reason
from segeval.adapters.labelled import Labelled
from segeval.adapters.tiou import taking_ranks, tiou, video_segments
from segeval.core.prepared import Prepared
from segeval.core.settings import THETA


class TiouBestAdapter(Adapter):
    """Relevant when the best free relevant segment of the video reaches tIoU θ (ActivityNet)."""

    name = "tiou-best"

    def __init__(self, theta: float = 0.5) -> None:
        self.theta = THETA.check(theta)
        self.suffix = f"_tioubest{self.theta:g}"

    @property
    def spec(self) -> str:
        return f"tiou-best:{self.theta!r}"

    def explain(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> list[Reason]:
        """``1``: the segment it took; ``s``: those taken earlier; ``0``: the best tIoU below θ."""
        i, rows = video_segments(data, a, unit, query)
        run, qrels = data.run_columns, data.qrels_columns
        n = len(rows)
        iou = tiou(
            np.full(n, float(run["start"][i])),
            np.full(n, float(run["end"][i])),
            qrels["start"][rows].astype(np.float64),
            qrels["end"][rows].astype(np.float64),
            form="union",
        )
        reach = ~(iou < self.theta)  # NaN (two zero-length windows) reaches, as in the official
        label = Label(int(a.labels[unit]))
        if label == Label.RELEVANT:
            (row,) = a.matches(unit).tolist()
            return [
                Reason(row, f"tIoU {float(iou[rows == row][0])!r} >= {self.theta!r}, the best free segment: taken here")
            ]
        if label == Label.RELEVANT_SEEN:
            rank = taking_ranks(a)
            return [
                Reason(int(r), f"tIoU {float(v)!r} >= {self.theta!r}, taken by rank {rank[int(r)]}")
                for r, v in zip(rows[reach], iou[reach], strict=True)
            ]
        if n and float(np.nanmax(iou)) > 0:
            best = int(np.nanargmax(iou))
            return [Reason(int(rows[best]), f"best tIoU {float(iou[best])!r}, not >= {self.theta!r}")]
        return [Reason(-1, "no relevant qrels segment of its video overlaps it")]

    def adapt(self, data: Prepared) -> Labelled:
        from segeval.protocols.detection.match import best_free_match

        run, qrels = data.run_columns, data.qrels_columns
        n = data.n_results
        rel_rows = np.flatnonzero(data.relevant)
        rel_rows = rel_rows[np.argsort(qrels["listed"][rel_rows], kind="stable")]  # file order: later lines win ties
        tp, taken, reach = best_free_match(
            run["gid"].astype(np.int64),
            run["start"].astype(np.float64),
            run["end"].astype(np.float64),
            qrels["gid"][rel_rows].astype(np.int64),
            qrels["start"][rel_rows].astype(np.float64),
            qrels["end"][rel_rows].astype(np.float64),
            [self.theta],
        )
        labels = np.full(n, Label.NONRELEVANT, dtype=np.uint8)
        labels[reach[0]] = Label.RELEVANT_SEEN
        labels[tp[0]] = Label.RELEVANT
        units = np.flatnonzero(tp[0]).astype(np.int64)
        return Labelled(data, labels, qrels["qcode"][rel_rows], units, rel_rows[taken[0][units]].astype(np.int64))
