"""sed_eval's event-based collar as an adapter: ``collar:t:p`` (``collar:t:p:onset``: onsets only; docs/adapters.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from segeval.adapters.base import Adapted, Adapter, Label, Reason
from segeval.adapters.labelled import Labelled
from segeval.adapters.tiou import take_in_rank_order, taking_ranks, video_segments
from segeval.core.prepared import Prepared, kept_pairs
from segeval.core.settings import COLLAR, LENGTH_SHARE, T_COLLAR


@dataclass(frozen=True)
class Collar:
    """sed_eval's onset/offset conditions: plain float differences compared with ``<=``."""

    t_collar: float = 0.2
    percentage_of_length: float = 0.2
    onset: bool = True
    offset: bool = True

    def hit(self, ref_onset: Any, ref_offset: Any, onset: Any, offset: Any) -> Any:
        """Whether a detection (``onset``, ``offset``) hits a reference event, on numbers or arrays alike."""
        on = abs(ref_onset - onset) <= self.t_collar if self.onset else True
        gap = abs(ref_offset - offset)
        off = (gap <= self.t_collar) | (gap <= self.percentage_of_length * (ref_offset - ref_onset))
        return on & off if self.offset else on


class CollarAdapter(Adapter):
    """Relevant when the result is the first to hit a relevant segment under sed_eval's collars."""

    name = "collar"

    def __init__(self, t_collar: float = COLLAR, percentage_of_length: float = COLLAR, offset: bool = True) -> None:
        self.rule = Collar(T_COLLAR.check(t_collar), LENGTH_SHARE.check(percentage_of_length), True, bool(offset))
        self.suffix = f"_collar{self.rule.t_collar:g}p{self.rule.percentage_of_length:g}" + ("" if offset else "o")

    @property
    def spec(self) -> str:
        return f"collar:{self.rule.t_collar!r}:{self.rule.percentage_of_length!r}" + (
            "" if self.rule.offset else ":onset"
        )

    def explain(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> list[Reason]:
        """``1``: the segment it took; ``s``: the segments it hits, each taken at an earlier rank; ``0``: none."""
        i, rows = video_segments(data, a, unit, query)
        run, qrels = data.run_columns, data.qrels_columns
        label = Label(int(a.labels[unit]))

        def apart(r: int) -> str:
            return (
                f"onsets {abs(float(qrels['start'][r]) - float(run['start'][i]))!r} s, offsets "
                f"{abs(float(qrels['end'][r]) - float(run['end'][i]))!r} s apart"
            )

        if label == Label.RELEVANT:
            return [Reason(r, f"{apart(r)}: within the collars, taken here") for r in a.matches(unit).tolist()]
        hit = self.rule.hit(qrels["start"][rows], qrels["end"][rows], run["start"][i], run["end"][i])
        rank = taking_ranks(a)
        return [
            Reason(int(r), f"{apart(int(r))}: within the collars, taken by rank {rank[int(r)]}") for r in rows[hit]
        ] or [Reason(-1, "no relevant qrels segment of its video within the collars")]

    def adapt(self, data: Prepared) -> Labelled:
        run, qrels = data.run_columns, data.qrels_columns
        rel_rows = np.flatnonzero(data.relevant)
        starts, ends = qrels["start"][rel_rows], qrels["end"][rel_rows]
        u, j = kept_pairs(
            run["gid"],
            qrels["gid"][rel_rows],
            lambda u, j: self.rule.hit(starts[j], ends[j], run["start"][u], run["end"][u]),
        )
        rows = rel_rows[j]
        return take_in_rank_order(data, u, rows, np.lexsort((qrels["listed"][rows], u)), rel_rows)
