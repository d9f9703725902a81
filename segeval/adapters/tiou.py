"""Temporal IoU matching, as moment retrieval evaluates segments (docs/adapters.md: the flags, 'Ties', an example)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from segeval.adapters.base import Adapted, Adapter, Label, Reason, result_row
from segeval.adapters.labelled import Labelled
from segeval.adapters.registry import BY_NAME
from segeval.core.arrays import BoolArray, Float32Array, FloatArray, IntArray
from segeval.core.errors import ParameterError, shown
from segeval.core.prepared import Prepared, kept_pairs
from segeval.core.settings import THETA, TIOU

Empty = Literal["one", "zero", "nan"]


def overlap(s1: FloatArray, e1: FloatArray, s2: FloatArray, e2: FloatArray) -> FloatArray:
    """The length two spans share (0 when apart), in doubles: the overlap of every IoU and of psds_eval."""
    return np.asarray(np.maximum(0.0, np.minimum(e1, e2) - np.maximum(s1, s2)), dtype=np.float64)


def tiou(
    s1: npt.ArrayLike,
    e1: npt.ArrayLike,
    s2: npt.ArrayLike,
    e2: npt.ArrayLike,
    empty: Empty = "one",
    form: Literal["hull", "union"] = "hull",
) -> FloatArray:
    """Temporal IoU of paired (broadcast) spans in doubles: overlap / (max(e1, e2) - min(s1, s2)); an empty hull
    scores ``empty`` (``one``: 1 when the starts are equal), ``form="union"`` ActivityNet's overlap / (len1 + len2 -
    overlap), 0/0 NaN."""
    a1, b1, a2, b2 = (np.asarray(x, dtype=np.float64) for x in (s1, e1, s2, e2))
    inter = overlap(a1, b1, a2, b2)
    if form == "union":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(inter / ((b1 - a1) + (b2 - a2) - inter), dtype=np.float64)
    union = np.maximum(b1, b2) - np.minimum(a1, a2)
    fill: Any = (a1 == a2).astype(np.float64) if empty == "one" else 0.0 if empty == "zero" else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(union > 0, inter / np.where(union > 0, union, 1.0), fill)
    return np.asarray(out, dtype=np.float64)


def best_of(union_iou: FloatArray, axis: int = -1) -> npt.NDArray[np.intp]:
    """The window of highest union-form IoU along ``axis``, as QVHighlights' R1 picks it (numpy's argmax)."""
    return np.asarray(np.argmax(union_iou, axis=axis))


def tiou32(s1: npt.ArrayLike, e1: npt.ArrayLike, s2: npt.ArrayLike, e2: npt.ArrayLike) -> Float32Array:
    """Temporal IoU of paired spans in TVR's float32 arithmetic; 0 for an empty hull."""
    a1, b1, a2, b2 = (np.asarray(x, dtype=np.float32) for x in (s1, e1, s2, e2))
    inter = np.maximum(np.float32(0), np.minimum(b1, b2) - np.maximum(a1, a2))
    hull = np.maximum(b1, b2) - np.minimum(a1, a2)
    out: Float32Array = np.divide(inter, hull, out=np.zeros_like(inter), where=hull != 0)
    return out


def video_segments(data: Prepared, a: Adapted, unit: int, query: int) -> tuple[int, IntArray]:
    """The run row of a unit and the rows of the relevant qrels segments of its video, in qrels line order."""
    i = result_row(data, a, unit, query)
    lo, hi = int(data.qrels_bounds[query]), int(data.qrels_bounds[query + 1])
    rows = np.arange(lo, hi, dtype=np.int64)
    rows = rows[data.relevant[lo:hi] & (data.qrels_columns["gid"][lo:hi] == data.run_columns["gid"][i])]
    return i, rows[np.argsort(data.qrels_columns["listed"][rows], kind="stable")]


def taking_ranks(a: Adapted) -> dict[int, int]:
    """The rank (from 1) of the result each matched qrels row went to."""
    return {int(r): int(a.source[k]) + 1 for k in range(len(a)) for r in a.matches(k).tolist()}


def take_in_rank_order(data: Prepared, u: IntArray, rows: IntArray, order: IntArray, rel_rows: IntArray) -> Labelled:
    """Labels of results that each take, in rank order, the first free qrels row of their candidates (``u``,
    ``rows`` in ``order``): ``1`` when one is free, ``s`` when all are taken, ``0`` without candidates."""
    labels = np.full(data.n_results, Label.NONRELEVANT, dtype=np.uint8)
    labels[u] = Label.RELEVANT_SEEN
    matched: set[int] = set()
    pair_unit: list[int] = []
    pair_row: list[int] = []
    for i, row in zip(u[order].tolist(), rows[order].tolist(), strict=True):
        if (pair_unit and pair_unit[-1] == i) or row in matched:
            continue
        matched.add(row)
        pair_unit.append(i)
        pair_row.append(row)
    labels[pair_unit] = Label.RELEVANT
    rel_qcode = data.qrels_columns["qcode"][rel_rows]
    return Labelled(
        data, labels, rel_qcode, np.asarray(pair_unit, dtype=np.int64), np.asarray(pair_row, dtype=np.int64)
    )


class TiouAdapter(Adapter):
    """Relevant when the temporal IoU with an unmatched relevant segment reaches theta."""

    name = "tiou"

    def __init__(
        self,
        theta: float = TIOU,
        strict: bool = False,
        float32: bool = False,
        empty: Literal["one", "zero"] = "one",
        pick: Literal["any", "best"] = "any",
    ) -> None:
        self.theta = THETA.check(theta)
        for name, value, allowed in (("empty", empty, ("one", "zero")), ("pick", pick, ("any", "best"))):
            if value not in allowed:
                raise ParameterError(
                    f"The '{name}' parameter must be '{allowed[0]}' or '{allowed[1]}'. Got {shown(value)} instead."
                )
        self.strict = bool(strict)
        self.float32 = bool(float32)
        self.empty: Empty = empty
        self.pick = pick
        declared = BY_NAME[self.name].flags  # each flag and the keywords it sets, in the spec's order
        flags = [flag for flag, keywords in declared if all(getattr(self, k) == v for k, v in keywords.items())]
        self.suffix = f"_tiou{self.theta:g}" + "".join("z" if flag == "empty0" else flag[0] for flag in flags)
        self._spec = f"tiou:{self.theta:g}" + "".join(f":{flag}" for flag in flags)

    @property
    def spec(self) -> str:
        return self._spec

    def _iou(self, s1: FloatArray, e1: FloatArray, s2: FloatArray, e2: FloatArray) -> FloatArray | Float32Array:
        return tiou32(s1, e1, s2, e2) if self.float32 else tiou(s1, e1, s2, e2, self.empty)

    def _reach(self, iou: FloatArray | Float32Array) -> BoolArray:
        theta = np.float32(self.theta) if self.float32 else self.theta
        return np.asarray(iou > theta if self.strict else iou >= theta)

    def explain(self, data: Prepared, a: Adapted, unit: int, query: int = 0) -> list[Reason]:
        """``1``: the segment it matched; ``s``: those matched earlier; ``0``: the best IoU below theta."""
        i, rows = video_segments(data, a, unit, query)
        run, qrels = data.run_columns, data.qrels_columns
        if self.pick == "best" and len(rows):
            union = tiou(run["start"][i], run["end"][i], qrels["start"][rows], qrels["end"][rows], form="union")
            rows = rows[[int(best_of(union))]]
        n = len(rows)
        iou = self._iou(
            np.full(n, run["start"][i], dtype=np.float64),
            np.full(n, run["end"][i], dtype=np.float64),
            qrels["start"][rows].astype(np.float64),
            qrels["end"][rows].astype(np.float64),
        )
        op = ">" if self.strict else ">="
        label = Label(int(a.labels[unit]))
        if label == Label.RELEVANT:
            (row,) = a.matches(unit).tolist()
            return [Reason(row, f"IoU {float(iou[rows == row][0]):.4g} {op} {self.theta:g}, matched here")]
        if label == Label.RELEVANT_SEEN:
            reach, rank = self._reach(iou), taking_ranks(a)
            return [
                Reason(int(r), f"IoU {float(v):.4g} {op} {self.theta:g}, already matched by rank {rank[int(r)]}")
                for r, v in zip(rows[reach], iou[reach], strict=True)
            ]
        if n and float(iou.max()) > 0:
            best = int(np.argmax(iou))
            value = float(iou[best])
            shown = f"{value:.4g}" if float(f"{value:.4g}") != self.theta else repr(value)  # 0.49999999999999956
            return [Reason(int(rows[best]), f"best IoU {shown}, not {op} {self.theta:g}")]
        return [Reason(-1, "no relevant qrels segment of its video overlaps it")]

    @staticmethod
    def _best_pairs(
        u: IntArray, j: IntArray, s: Any, e: Any, starts: Any, ends: Any, lines: Any
    ) -> tuple[IntArray, IntArray]:
        """Of the (result, window) pairs, each result's window of highest union-form IoU (:func:`best_of`)."""
        order = np.lexsort((lines[j], u))
        u, j = u[order], j[order]
        union = tiou(s[u], e[u], starts[j], ends[j], form="union")
        firsts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]]) if len(u) else np.zeros(0, dtype=np.int64)
        bounds = np.r_[firsts, len(u)]
        chosen = [
            int(a) + int(best_of(union[a:b])) for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        ]
        return u[chosen], j[chosen]

    def adapt(self, data: Prepared) -> Labelled:
        run, qrels = data.run_columns, data.qrels_columns
        rel_rows = np.flatnonzero(data.relevant)
        s, e = run["start"], run["end"]
        starts, ends = qrels["start"][rel_rows], qrels["end"][rel_rows]

        def iou_of(u: IntArray, j: IntArray) -> Any:
            return self._iou(s[u], e[u], starts[j], ends[j])

        if self.pick == "best":  # each result against its window of highest union-form IoU only
            u, j = kept_pairs(run["gid"], qrels["gid"][rel_rows])
            u, j = self._best_pairs(u, j, s, e, starts, ends, qrels["listed"][rel_rows])
            keep = self._reach(iou_of(u, j))
            u, j = u[keep], j[keep]
        else:
            u, j = kept_pairs(run["gid"], qrels["gid"][rel_rows], lambda u, j: self._reach(iou_of(u, j)))
        rows, iou = rel_rows[j], iou_of(u, j)
        # candidates per result, best IoU first (the first qrels line on ties), results in rank order
        return take_in_rank_order(data, u, rows, np.lexsort((qrels["listed"][rows], -iou, u)), rel_rows)
