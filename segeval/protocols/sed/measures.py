"""sed_eval 0.2.1's event- and segment-based figures, psds_eval 0.5.3's PSDS and macro F1 and sed_scores_eval's
PSDS, in the official arithmetic (docs/sed.md)."""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from segeval.adapters.collar import Collar
from segeval.adapters.tiou import overlap
from segeval.core.arrays import BoolArray, FloatArray
from segeval.core.errors import InputError, ParameterError
from segeval.protocols.sed.read import Event, Events

#: sed_eval's epsilon in every rate's denominator (numpy.spacing(1))
EPS = float(np.spacing(1))
COUNTS = ("Nref", "Nsys", "Ntp", "Nsubs", "Nfp", "Nfn")
_CLASS_COUNTS = ("Nref", "Nsys", "Ntp", "Nfp", "Nfn")  # sed_eval counts no substitution per class
IntArray = npt.NDArray[np.intp]


@dataclass
class Counts:
    """sed_eval's accumulated counts: overall (micro) and per class."""

    labels: list[str]
    overall: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0.0))
    per_class: dict[str, dict[str, float]] = field(init=False)

    def __post_init__(self) -> None:
        self.per_class = {c: dict.fromkeys(COUNTS, 0.0) for c in self.labels}

    def add(self, into: dict[str, float], values: Sequence[float], keys: Sequence[str] = COUNTS) -> None:
        """Add ``values`` to the counts ``keys`` of ``into`` (``overall`` or a class's)."""
        for k, v in zip(keys, values, strict=True):
            into[k] += v


def figures(c: dict[str, float], zero_score: bool, substitutions: bool) -> dict[str, float]:
    """F, precision, recall and the error rates of one set of counts, as sed_eval computes them."""
    p = 0.0 if c["Nsys"] == 0 and zero_score else math.nan if c["Nsys"] == 0 else c["Ntp"] / c["Nsys"]
    r = math.nan if c["Nref"] == 0 else c["Ntp"] / c["Nref"]
    s, d, i = (x / (c["Nref"] + EPS) for x in (c["Nsubs"] if substitutions else 0.0, c["Nfn"], c["Nfp"]))
    f = 0.0 if p == 0 and r == 0 else 2.0 * p * r / (1.0 * p + r)
    out = {"f_measure": f, "precision": p, "recall": r}
    if substitutions:
        out |= {"error_rate": s + d + i, "substitution_rate": s}
    else:
        out["error_rate"] = 0.0 + d + i
    return out | {"deletion_rate": d, "insertion_rate": i, "Nref": c["Nref"], "Nsys": c["Nsys"]}


def results(counts: Counts, zero_score: bool) -> dict[str, dict[str, float]]:
    """Per class, ``micro`` (sed_eval's overall) and ``macro`` (its class-wise average, NaN left out)."""
    out = {c: figures(v, zero_score, False) for c, v in counts.per_class.items()}
    with _quiet():
        macro = {
            k: float(np.nanmean([out[c][k] for c in counts.labels]))
            for k in ("f_measure", "precision", "recall", "error_rate", "deletion_rate", "insertion_rate")
        }
    return out | {"micro": figures(counts.overall, zero_score, True), "macro": macro}


# ----------------------------------------------------------------------------- event-based


def max_matching(graph: dict[int, list[int]]) -> dict[int, int]:
    """Hopcroft-Karp maximum matching of ``graph`` (left -> right neighbours) as right -> left, visiting
    vertices in the order sed_eval's (mir_eval's) implementation does, so it picks the same matching."""
    match: dict[int, int] = {}
    for u, vs in graph.items():
        for v in vs:
            if v not in match:
                match[v] = u
                break
    while True:
        preds: dict[int, list[int]] = {}
        free: list[int] = []
        pred: dict[int, object] = {u: free for u in graph}
        for v in match:
            del pred[match[v]]
        layer = list(pred)
        while layer and not free:
            new: dict[int, list[int]] = {}
            for u in layer:
                for v in graph[u]:
                    if v not in preds:
                        new.setdefault(v, []).append(u)
            layer = []
            for v, us in new.items():
                preds[v] = us
                if v in match:
                    layer.append(match[v])
                    pred[match[v]] = v
                else:
                    free.append(v)
        if not free:
            return match
        for v in free:
            _augment(v, preds, pred, free, match)


def _augment(
    v: int, preds: dict[int, list[int]], pred: dict[int, object], free: list[int], match: dict[int, int]
) -> bool:
    """Follow the layers back from ``v`` to a free left vertex; flip the path's edges if found."""
    if v not in preds:
        return False
    for u in preds.pop(v):
        if u in pred:
            back = pred.pop(u)
            if back is free or _augment(back, preds, pred, free, match):  # type: ignore[arg-type]
                match[v] = u
                return True
    return False


def event_file(counts: Counts, ref: Sequence[Event], est: Sequence[Event], collar: Collar, matching: str) -> None:
    """Add one clip's event-based counts (sed_eval's ``EventBasedMetrics.evaluate``)."""
    ref_ok, est_ok = [False] * len(ref), [False] * len(est)
    if matching == "optimal":
        graph: dict[int, list[int]] = {}
        for j, r in enumerate(ref):
            for i, e in enumerate(est):
                if r.label == e.label and collar.hit(r.onset, r.offset, e.onset, e.offset):
                    graph.setdefault(i, []).append(j)
        for j, i in max_matching(graph).items():
            ref_ok[j] = est_ok[i] = True
    else:
        for j, r in enumerate(ref):
            for i, e in enumerate(est):
                if not est_ok[i] and r.label == e.label and collar.hit(r.onset, r.offset, e.onset, e.offset):
                    ref_ok[j] = est_ok[i] = True
                    break
    subs, taken = 0, [False] * len(est)
    for j in (j for j, ok in enumerate(ref_ok) if not ok):
        for i in (i for i, ok in enumerate(est_ok) if not ok):
            if not taken[i] and collar.hit(ref[j].onset, ref[j].offset, est[i].onset, est[i].offset):
                taken[i] = True
                subs += 1
                break
    tp = sum(est_ok)
    counts.add(counts.overall, (len(ref), len(est), tp, subs, len(est) - tp - subs, len(ref) - tp - subs))
    for c, cls in counts.per_class.items():
        nref, nsys = sum(r.label == c for r in ref), sum(e.label == c for e in est)
        ntp = sum(ok and e.label == c for ok, e in zip(est_ok, est, strict=True))
        counts.add(cls, (nref, nsys, ntp, nsys - ntp, nref - ntp), _CLASS_COUNTS)


# ----------------------------------------------------------------------------- segment-based


def _roll(events: Sequence[Event], labels: list[str], resolution: float, n: int) -> FloatArray:
    """sed_eval's event roll cut or padded to ``n`` segments: segment floor(onset / r) to ceil(offset / r) - 1."""
    roll = np.zeros((n, len(labels)))
    for e in events:
        roll[math.floor(e.onset * 1 / resolution) : math.ceil(e.offset * 1 / resolution), labels.index(e.label)] = 1
    return roll


def segment_file(
    counts: Counts, ref: Sequence[Event], est: Sequence[Event], resolution: float, duration: float | None
) -> None:
    """Add one clip's segment-based counts: its segments up to ``duration`` or, None, to the last offset."""
    if duration is None:
        duration = max([e.offset for e in (*ref, *est)], default=0.0)
    n = math.ceil(duration * 1 / resolution)
    a, b = _roll(ref, counts.labels, resolution, n), _roll(est, counts.labels, resolution, n)
    nref, nsys, tp = a.sum(axis=1), b.sum(axis=1), ((a + b) > 1).sum(axis=1)
    fp, fn = np.maximum(0, nsys - nref), np.maximum(0, nref - nsys)
    counts.add(counts.overall, [x.sum() for x in (nref, nsys, tp, np.minimum(nref, nsys) - tp, fp, fn)])
    per_class = [a.sum(axis=0), b.sum(axis=0), ((a + b) > 1).sum(axis=0), (b > a).sum(axis=0), (a > b).sum(axis=0)]
    for c, values in zip(counts.labels, np.stack(per_class, axis=1).tolist(), strict=True):
        counts.add(counts.per_class[c], values, _CLASS_COUNTS)


# ----------------------------------------------------------------------------- PSDS (psds_eval)


@dataclass(frozen=True)
class Criteria:
    """A PSDS's parameters: intersection criteria (detection, ground truth, cross-trigger), weights, largest eFPR."""

    dtc: float
    gtc: float
    cttc: float | None
    alpha_ct: float = 0.0
    alpha_st: float = 0.0
    max_efpr: float | None = None  # psds_eval: None is the largest eFPR


#: DCASE's PSDS1 and PSDS2 settings and psds_eval's macro F1 criteria
SETTINGS = {
    "psds1": Criteria(0.7, 0.7, 0.3, 0.0, 1.0, 100.0),
    "psds2": Criteria(0.1, 0.1, 0.3, 0.5, 1.0, 100.0),
    "f1": Criteria(0.5, 0.5, 0.3),
}


#: the largest composite sort key (:func:`refuse_overlaps`); wider keys are sorted column by column
KEY_LIMIT = 2**63


def refuse_overlaps(table: Events) -> npt.NDArray[np.intp]:
    """The table's order by clip, label, onset and offset (ties in row order); refuses two different same-class
    events that intersect, as psds_eval."""
    starts, start_rank = np.unique(table.onset, return_inverse=True)
    ends, rank = np.unique(table.offset, return_inverse=True)
    groups = table.clip.astype(np.int64) * len(table.labels) + table.label
    if (int(groups.max(initial=0)) + 1) * starts.size * ends.size < KEY_LIMIT:
        order = np.argsort((groups * starts.size + start_rank) * ends.size + rank, kind="stable")
    else:
        order = np.lexsort((table.offset, table.onset, table.label, table.clip))
    clip, label, rank = table.clip[order], table.label[order], rank[order]
    on, off = table.onset[order], table.offset[order]
    group = np.r_[0, np.cumsum((np.diff(clip) != 0) | (np.diff(label) != 0))] if clip.size else clip
    # the largest offset before each event of its group: a running maximum of (group, offset rank) keys
    key = group.astype(np.int64) * (ends.size + 1) + rank + 1
    before = np.r_[0, np.maximum.accumulate(key)[:-1]] if key.size else key
    reach = np.where(before // (ends.size + 1) == group, np.r_[-np.inf, ends][before % (ends.size + 1)], -np.inf)
    for k in np.flatnonzero(on < reach):  # candidates; checked pair by pair (identical events may repeat)
        for j in range(k - 1, -1, -1):
            if group[j] != group[k]:
                break
            if on[j] < off[k] and on[k] < off[j] and (on[j], off[j]) != (on[k], off[k]):
                first, second = sorted((int(table.line[order[j]]), int(table.line[order[k]])))
                raise InputError(
                    table.path,
                    f"this {table.labels[label[k]]!r} event intersects the one on line "
                    f"{first}; psds_eval refuses intersecting events of one class (expected them "
                    "merged)",
                    line=second,
                )
    return order


@dataclass
class Truth:
    """The ground truth as psds_eval holds it: events (not zero-length) by clip, class and onset (docs/sed.md,
    "Reading and order"), each clip's duration (NaN: not in the durations table) and first event (``start``)."""

    classes: list[str]
    clip_index: dict[str, int]
    duration: FloatArray
    start: npt.NDArray[np.intp]
    onset: FloatArray
    offset: FloatArray
    cls: npt.NDArray[np.intp]
    n_events: dict[str, int]
    class_seconds: dict[str, float]
    seconds: float


def truth(gt: Events, durations: dict[str, float]) -> Truth:
    """psds_eval's ground truth from the tables: every clip of the durations table and of the ground truth."""
    refuse_overlaps(gt)
    names = sorted({*durations, *gt.clips})
    rows = [
        (k, e)
        for k, c in enumerate(names)
        for e in sorted(gt.clips.get(c, []), key=lambda e: (e.label, e.onset))
        if e.offset > e.onset
    ]
    classes = sorted({e.label for _, e in rows})
    index = {c: k for k, c in enumerate(classes)}
    clip = np.array([k for k, _ in rows], dtype=np.intp)
    cls = np.array([index[e.label] for _, e in rows], dtype=np.intp)
    # pandas' groupby sum of the lengths: Kahan-compensated, in row order
    seconds, _ = _group_sums(cls, np.array([e.offset - e.onset for _, e in rows]), len(classes))
    return Truth(
        classes,
        {c: k for k, c in enumerate(names)},
        np.array([durations.get(c, math.nan) for c in names]),
        np.searchsorted(clip, np.arange(len(names) + 1)),
        np.array([e.onset for _, e in rows]),
        np.array([e.offset for _, e in rows]),
        cls,
        {c: sum(e.label == c for _, e in rows) for c in classes},
        dict(zip(classes, seconds.tolist(), strict=True)),
        float(np.sum(np.array([durations[c] for c in names if c in durations]))),
    )


def _group_sums(groups: npt.NDArray[np.intp], values: FloatArray, n: int) -> tuple[FloatArray, BoolArray]:
    """Per group (0..n-1): the Kahan sum of its values in order (pandas' groupby ``sum``) and whether it has any."""
    sizes = np.bincount(groups, minlength=n)
    if sizes.max(initial=0) <= 2:  # Kahan's sum of one or two values is their plain sum, in order
        return np.asarray(np.bincount(groups, weights=values, minlength=n), dtype=np.float64), sizes > 0
    order = np.argsort(groups, kind="stable")
    g, v = groups[order], values[order]
    total, comp = np.zeros(n), np.zeros(n)
    first = np.r_[0, np.flatnonzero(np.diff(g)) + 1] if g.size else np.zeros(0, dtype=np.intp)
    rank = np.arange(g.size) - np.repeat(first, np.diff(np.r_[first, g.size]))
    for k in range(int(rank.max()) + 1 if g.size else 0):
        gi, vi = g[rank == k], v[rank == k]
        y = vi - comp[gi]
        s = total[gi] + y
        comp[gi] = (s - total[gi]) - y
        total[gi] = s
    return total, sizes > 0


def intersection_counts(t: Truth, dets: Events, order: npt.NDArray[np.intp], criteria: Criteria) -> FloatArray:
    """psds_eval's counts: [i, i] true-positive ground truths of class i, [i, j] detections of class i
    cross-triggering class j, [i, -1] false positives of class i (docs/sed.md); ``order``: :func:`refuse_overlaps`'s."""
    dtc, gtc, cttc = criteria.dtc, criteria.gtc, criteria.cttc
    if cttc is None:
        raise ParameterError("The 'cttc' parameter must be a number for psds_eval. Got None instead.")
    n = len(t.classes)
    to_clip = np.array([t.clip_index.get(c, -1) for c in dets.names] + [-1], dtype=np.intp)[dets.clip[order]]
    to_class = np.array([t.classes.index(c) if c in t.classes else -1 for c in dets.labels] + [-1], dtype=np.intp)[
        dets.label[order]
    ]
    on, off = dets.onset[order], dets.offset[order]
    keep = (to_clip >= 0) & (to_class >= 0) & (off > on)
    clip, on, off, cls = to_clip[keep], on[keep], off[keep], to_class[keep]
    counts = np.zeros((n + 1, n + 1))
    length = off - on
    # every (detection, ground truth of its clip) pair that intersects, detection-major
    per = t.start[clip + 1] - t.start[clip]
    det = np.repeat(np.arange(clip.size), per)
    gt = np.repeat(t.start[clip] - np.r_[0, np.cumsum(per)[:-1]], per) + np.arange(det.size)
    hit = (on[det] < t.offset[gt]) & (t.onset[gt] < off[det])
    det, gt = det[hit], gt[hit]
    inter = overlap(on[det], off[det], t.onset[gt], t.offset[gt])  # > 0: the pairs intersect
    same = t.cls[gt] == cls[det]
    share, has = _group_sums(det[same], inter[same] / length[det[same]], clip.size)
    valid = has & (share >= dtc)
    cover_pairs = same & valid[det]
    cover, has = _group_sums(gt[cover_pairs], inter[cover_pairs] / (t.offset - t.onset)[gt[cover_pairs]], t.cls.size)
    np.add.at(counts, (t.cls, t.cls), (has & (cover >= gtc)).astype(float))
    other = ~same & ~valid[det]
    key = det[other] * n + t.cls[gt[other]]  # ascending: the pairs are detection-major, ground truths by class
    head = np.r_[True, key[1:] != key[:-1]] if key.size else np.zeros(0, dtype=bool)
    cross, _ = _group_sums(np.cumsum(head) - 1, inter[other] / length[det[other]], int(head.sum()))
    hit_key = key[head][cross >= cttc]
    np.add.at(counts, (cls[hit_key // n], hit_key % n), 1.0)
    duration = t.duration[clip]
    fp = ~valid & (on < duration) & (off > 0.0)  # NaN duration (no such clip listed): False
    counts[:n, n] += np.bincount(cls[fp], minlength=n)
    return counts


@dataclass
class OperatingPoint:
    """One operating point's per-class rates (per hour)."""

    threshold: str
    tpr: FloatArray
    fpr: FloatArray
    ctr: FloatArray


def rates(t: Truth, counts: FloatArray, threshold: str) -> OperatingPoint:
    """psds_eval's per-class rates of an operating point's counts."""
    n = len(t.classes)
    tpr = np.array([counts[i, i] / t.n_events[c] for i, c in enumerate(t.classes)])
    ctr = counts[:n, :n] * 3600 / np.array([t.class_seconds[c] for c in t.classes])
    np.fill_diagonal(ctr, np.nan)
    return OperatingPoint(threshold, tpr, counts[:n, n] * 3600 / t.seconds, ctr)


def table_key(dets: Events) -> bytes:
    """A digest of the table's rows as a multiset (zero-length events left out), as psds_eval's of its sorted table."""
    keep = dets.offset > dets.onset
    names, labels = (
        np.array([hash(s) for s in strings], dtype=np.int64).view(np.uint64) for strings in (dets.names, dets.labels)
    )  # Python's str hash: the same within a run
    times = (dets.onset[keep].view(np.uint64), dets.offset[keep].view(np.uint64))
    columns = (names[dets.clip[keep]], labels[dets.label[keep]], *times)
    row = np.zeros(int(keep.sum()), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k, column in enumerate(columns):
            row = (row ^ column) * np.uint64(0x9E3779B97F4A7C15 + 2 * k)
            row ^= row >> np.uint64(29)
    return hashlib.sha256(np.sort(row).tobytes()).digest()


@dataclass
class Psds:
    """The score, the PSD-ROC (eFPR, eTPR) and each class's ROC on the common eFPR axis."""

    value: float
    max_efpr: float
    efpr: FloatArray
    etpr: FloatArray
    per_class: FloatArray


def _step(x: FloatArray, xp: FloatArray, yp: FloatArray) -> FloatArray:
    """The step curve of both tools: the best TPR at each FPR, made non-decreasing, read at ``x`` (0 before)."""
    ux, inverse = np.unique(xp, return_inverse=True)
    best = np.full(ux.size, -np.inf)
    np.maximum.at(best, inverse, yp)
    best = np.maximum.accumulate(best)
    k = np.searchsorted(ux, x, side="right") - 1
    return np.where(k >= 0, best[np.maximum(k, 0)], 0.0)


def psds(points: Sequence[OperatingPoint], criteria: Criteria) -> Psds:
    """psds_eval's ``psds`` (step curves, no interpolation)."""
    alpha_ct, alpha_st, max_efpr = criteria.alpha_ct, criteria.alpha_st, criteria.max_efpr
    if not 0 <= alpha_ct <= 1 or alpha_st < 0:
        raise ParameterError(f"alpha_ct must be in [0, 1] and alpha_st >= 0. Got {alpha_ct!r} and {alpha_st!r}.")
    tpr = np.pad(np.stack([p.tpr for p in points], axis=1), ((0, 0), (0, 1)))
    fpr = np.pad(np.stack([p.fpr for p in points], axis=1), ((0, 0), (0, 1)))
    ctr = np.pad(np.stack([p.ctr for p in points], axis=2), ((0, 0), (0, 0), (0, 1)))
    with np.errstate(invalid="ignore"), _quiet():
        efpr = fpr + alpha_ct * np.nanmean(ctr, axis=1)
        x = np.unique(np.sort(efpr.flatten()))
        per_class = np.stack([_step(x, efpr[c], tpr[c]) for c in range(tpr.shape[0])])
        mean, std = np.nanmean(per_class, axis=0), np.nanstd(per_class, axis=0)
    etpr = np.nan_to_num(mean - alpha_st * std, nan=0.0)
    etpr = np.where(etpr < 0, 0.0, etpr)
    limit = float(np.max(x)) if max_efpr is None else max_efpr
    if not limit > 0:
        raise ParameterError(
            f"max_efpr must be > 0: with max_efpr None the largest eFPR is {limit!r} "
            "(psds_eval fails or gives NaN here). Give --max-efpr."
        )
    xs, ys = x, etpr
    if limit not in xs:
        xs = np.sort(np.concatenate([x, [limit]]))
        i = int(np.argwhere(xs == limit)[0, 0])
        ys = np.concatenate([etpr[:i], [etpr[i - 1]], etpr[i:]])
    keep = xs <= limit
    area = np.sum(np.diff(xs[keep]) * np.array(ys[keep])[:-1])
    return Psds(float(area / limit), limit, x, etpr, per_class)


def macro_f1(t: Truth, counts: FloatArray) -> tuple[float, dict[str, float]]:
    """psds_eval's ``compute_macro_f_score``: per class 2TP / (2TP + FN + FP), FN from TP / TPR (docs/sed.md)."""
    n = len(t.classes)
    tp = np.diag(counts)[:-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = np.array([counts[i, i] / t.n_events[c] for i, c in enumerate(t.classes)])
        fn = tp / tpr - tp
        f = 2.0 * tp / (2.0 * tp + 1.0 * fn + counts[:n, n])
    with _quiet():
        return float(np.nanmean(f)), dict(zip(t.classes, map(float, f), strict=True))


def _quiet() -> warnings.catch_warnings[None]:
    """NumPy's warnings on all-NaN slices silenced: the NaN is the official figure."""
    return warnings.catch_warnings(action="ignore", category=RuntimeWarning)


# ----------------------------------------------------------------------------- PSDS (sed_scores_eval)


@dataclass
class ScoreCounts:
    """sed_scores_eval's counts of one class at each threshold (its distinct scores, ascending, then inf)."""

    thresholds: FloatArray
    tps: FloatArray
    fps: FloatArray
    cts: dict[str, FloatArray]


def _runs(scores: FloatArray, times: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """sed_scores_eval's ``onset_offset_curves``: per clip (rows of ``scores``) and threshold (its sorted scores),
    the runs of frames scoring >= it, padded with zero-length events."""
    cands = np.sort(scores, axis=1)
    clips, frames = scores.shape
    on = np.zeros((clips * frames, frames + 2), dtype=bool)  # (clip, threshold) x frames, padded with off
    on[:, 1:-1] = (scores[:, None, :] >= cands[:, :, None]).reshape(-1, frames)
    edge = np.flatnonzero(on[:, 1:] != on[:, :-1])  # row by row: each run's first frame, then the one after its last
    row, start = np.divmod(edge[0::2], frames + 1)
    end = edge[1::2] - row * (frames + 1)
    at = np.arange(row.size)
    rank = at - np.maximum.accumulate(np.where(np.concatenate(([True], row[1:] != row[:-1]))[: row.size], at, 0))
    width = int(rank.max()) + 1 if rank.size else 0
    onsets, offsets = np.zeros(clips * frames * width), np.zeros(clips * frames * width)
    first = (row // frames) * (frames + 1)  # the clip's first frame boundary
    onsets[row * width + rank] = times.ravel()[first + start]
    offsets[row * width + rank] = times.ravel()[first + end]
    return cands, onsets.reshape(clips, frames, width), offsets.reshape(clips, frames, width)


def _sum_last(x: FloatArray) -> FloatArray:
    """NumPy's sum over the last axis as it adds fewer than 8 values (left to right), padding zeros ignored."""
    total = x[..., 0].copy() if x.shape[-1] else np.zeros(x.shape[:-1])
    for k in range(1, x.shape[-1]):
        total += x[..., k]
    return total


def _padded(events: Sequence[Sequence[Event]]) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Onsets, offsets (clips x most events, zero-padded) and which are events."""
    sizes = np.array([len(e) for e in events], dtype=np.intp)
    flat = [e for evs in events for e in evs]
    row = np.repeat(np.arange(sizes.size), sizes)
    place = (row, np.arange(row.size) - np.repeat(np.cumsum(sizes) - sizes, sizes))
    on, off = np.zeros((sizes.size, sizes.max(initial=0))), np.zeros((sizes.size, sizes.max(initial=0)))
    real = np.zeros(on.shape, dtype=bool)
    on[place], off[place], real[place] = [e.onset for e in flat], [e.offset for e in flat], True
    return on, off, real


def _pairs(gt: list[tuple[FloatArray, FloatArray, BoolArray]]) -> tuple[IntArray, IntArray, FloatArray, FloatArray]:
    """Each (clip, class) with events: the clip, the class and the events' onsets and offsets (zero-padded)."""
    rows = [np.flatnonzero(real.any(axis=1)) for _, _, real in gt]
    width = max((int(real.sum(axis=1).max(initial=0)) for _, _, real in gt), default=0)
    on, off = np.zeros((sum(r.size for r in rows), width)), np.zeros((sum(r.size for r in rows), width))
    at = np.cumsum([0, *[r.size for r in rows]])
    for (o_on, o_off, _), r, start in zip(gt, rows, at.tolist(), strict=False):
        w = min(width, o_on.shape[1])
        on[start : start + r.size, :w], off[start : start + r.size, :w] = o_on[r, :w], o_off[r, :w]
    return np.concatenate(rows), np.repeat(np.arange(len(gt)), np.diff(at)), on, off


def _stats(
    d_on: FloatArray,
    d_off: FloatArray,
    gt: list[tuple[FloatArray, FloatArray, BoolArray]],
    c: int,
    pairs: tuple[IntArray, IntArray, FloatArray, FloatArray],
    criteria: Criteria,
) -> list[FloatArray]:
    """sed_scores_eval's intersection statistics (clips x thresholds) of class ``c``'s detections: true positives,
    false positives, cross-triggers per other class, in its arithmetic (sums rounded to 6 decimals, ``>=``)."""
    dtc, gtc, cttc = criteria.dtc, criteria.gtc, criteria.cttc
    made = d_off > d_on
    length = d_off - d_on
    valid = (np.round(dtc * length, 6) <= 0.0) * made  # a clip without events of the class: no intersection
    tps = np.zeros(made.shape[:2], dtype=np.intp)
    rows = np.flatnonzero(gt[c][2].any(axis=1))
    if rows.size:
        width = int(gt[c][2][rows].sum(axis=1).max())
        g_on, g_off, real = gt[c][0][rows, :width], gt[c][1][rows, :width], gt[c][2][rows, :width]
        inter = overlap(d_on[rows, ..., None], d_off[rows, ..., None], g_on[:, None, None, :], g_off[:, None, None, :])
        valid[rows] = (np.round(_sum_last(inter), 6) >= np.round(dtc * length[rows], 6)) * made[rows]
        covered = np.round(np.sum(valid[rows, ..., None] * inter, axis=-2), 6)
        tps[rows] = ((covered >= np.round(gtc * (g_off - g_on), 6)[:, None, :]) & real[:, None, :]).sum(-1)
    if cttc is None:
        return [np.asarray(x, dtype=np.float64) for x in (tps, made.sum(-1) - valid.sum(-1))]
    cts = np.zeros((len(gt) - 1, *tps.shape), dtype=np.intp)  # a clip without events of a class: no cross-trigger
    clip, cls, p_on, p_off = pairs
    pick = np.flatnonzero(cls != c)
    if pick.size:  # every other class's events of each clip at once, each class's summed in its own order
        rows, other = clip[pick], cls[pick] - (cls[pick] > c)
        cross = overlap(
            d_on[rows, ..., None], d_off[rows, ..., None], p_on[pick, None, None, :], p_off[pick, None, None, :]
        )
        total = np.round(_sum_last((1 - valid[rows, ..., None]) * cross), 6)
        cts[other, rows] = ((total >= np.round(cttc * length[rows], 6)) * made[rows]).sum(-1)
    return [np.asarray(x, dtype=np.float64) for x in (tps, made.sum(-1) - valid.sum(-1), *cts)]


def score_counts(
    classes: list[str],
    clips: Sequence[tuple[FloatArray, FloatArray, dict[str, list[Event]]]],
    criteria: Criteria,
    batch: int = 128,
) -> dict[str, ScoreCounts]:
    """Per class, the counts over all clips (frame boundaries, scores, events by label), ``batch`` at a time."""
    by_frames: dict[int, list[int]] = {}
    for i, (_, scores, _) in enumerate(clips):
        by_frames.setdefault(scores.shape[0], []).append(i)
    chunks = [ids[k : k + batch] for ids in by_frames.values() for k in range(0, len(ids), batch)]
    points: dict[str, list[FloatArray]] = {name: [] for name in classes}
    deltas: dict[str, list[FloatArray]] = {name: [] for name in classes}
    events = [_padded([c[2].get(k, []) for c in clips]) for k in classes]
    for ids in chunks:
        times = np.stack([clips[i][0] for i in ids])
        scores = np.ascontiguousarray(np.stack([clips[i][1] for i in ids]).transpose(2, 0, 1))  # class, clip, frame
        gt = [(on[ids], off[ids], real[ids]) for on, off, real in events]
        pairs = _pairs(gt)
        for c, name in enumerate(classes):
            cands, on, off = _runs(scores[c], times)
            table = np.stack(_stats(on, off, gt, c, pairs, criteria), axis=-1)
            step = table - np.concatenate((table[:, 1:], np.zeros_like(table[:, :1])), axis=1)
            change = np.abs(step).sum(-1) > 0  # the last of each run of equal scores carries the step
            points[name].append(cands[change])
            deltas[name].append(step[change])
    out = {}
    for name in classes:
        thresholds, inverse = np.unique(np.concatenate(points[name]), return_inverse=True)
        step = np.concatenate(deltas[name])  # whole counts: their sums are exact in any order
        summed = np.stack(
            [np.bincount(inverse, weights=column, minlength=thresholds.size) for column in step.T], axis=1
        ).astype(np.float64)
        totals = np.concatenate((np.cumsum(summed[::-1], axis=0)[::-1], np.zeros((1, summed.shape[1]))))
        others = [k for k in classes if k != name]
        cts = {
            k: totals[:, 2 + i] if criteria.cttc is not None else np.zeros(len(totals)) for i, k in enumerate(others)
        }
        out[name] = ScoreCounts(np.concatenate((thresholds, [np.inf])), totals[:, 0], totals[:, 1], cts)
    return out


def _staircase(y: FloatArray, x: FloatArray, limit: float) -> float:
    order = np.argsort(x)
    x, y = x[order], y[order]
    cut = int(np.argmax(np.r_[x > limit, True]))
    x = np.concatenate((x[:cut], [limit]))
    return float(sum((y[:cut] * (x[1:] - x[:-1])).tolist()))


@dataclass
class ScorePsds:
    """sed_scores_eval's PSDS, each class's own, the PSD-ROC and each class's ROC (TPR, eFPR)."""

    value: float
    per_class_value: dict[str, float]
    etpr: FloatArray
    efpr: FloatArray
    roc: dict[str, tuple[FloatArray, FloatArray]]


def score_psds(
    counts: dict[str, ScoreCounts],
    n_ref: dict[str, int],
    t_ref: dict[str, float],
    seconds: float,
    criteria: Criteria,
    max_efpr: float,
) -> ScorePsds:
    """sed_scores_eval's ``psds`` from the counts (rates per hour), up to ``max_efpr``."""
    alpha_ct, alpha_st = criteria.alpha_ct, criteria.alpha_st
    roc = {}
    for name, s in counts.items():
        tpr = s.tps / max(n_ref[name], 1)
        efpr = s.fps / seconds
        if alpha_ct != 0.0:
            efpr = efpr + alpha_ct * np.mean([s.cts[k] / max(t_ref[k], 1e-12) for k in s.cts], axis=0)
        efpr = efpr * 3600.0
        order = np.lexsort((tpr, efpr))
        tpr, efpr = tpr[order], efpr[order]
        best = np.maximum.accumulate(tpr)
        keep = np.r_[0, np.arange(1, tpr.size)[best[1:] > best[:-1]]]
        tpr, efpr = tpr[keep], efpr[keep]
        efpr, first = np.unique(efpr[::-1], return_index=True)
        tpr = tpr[-1 - first]
        cut = int(np.argmax(np.r_[efpr > max_efpr, True]))
        roc[name] = (tpr[:cut], efpr[:cut])
    axis = np.unique(np.sort(np.concatenate([e for _, e in roc.values()])))
    curves = [_step(axis, efpr, tpr) if tpr.size else np.zeros(axis.size) for tpr, efpr in roc.values()]
    etpr = np.maximum(np.mean(curves, axis=0) - alpha_st * np.std(curves, axis=0), 0.0)
    etpr, axis = np.concatenate((etpr, [etpr[-1]])), np.concatenate((axis, [max_efpr]))
    per_class = {c: _staircase(t, e, max_efpr) / max_efpr for c, (t, e) in roc.items()}
    return ScorePsds(_staircase(etpr, axis, max_efpr) / max_efpr, per_class, etpr, axis, roc)
