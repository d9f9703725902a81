"""sed_eval 0.2.1's event- and segment-based counts and figures, and psds_eval 0.5.3's PSDS and
intersection-based macro F1, with the official arithmetic (docs/sed.md has the rules and surprises).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from segeval.errors import InputError, ParameterError
from segeval.protocols.sed.read import Event, Events

#: sed_eval's epsilon in every rate's denominator (numpy.spacing(1))
EPS = float(np.spacing(1))
COUNTS = ("Nref", "Nsys", "Ntp", "Nsubs", "Nfp", "Nfn")
FloatArray = npt.NDArray[np.float64]


@dataclass
class Counts:
    """sed_eval's accumulated counts: overall (micro) and per class."""

    labels: list[str]
    overall: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0.0))
    per_class: dict[str, dict[str, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.per_class = {c: dict.fromkeys(COUNTS, 0.0) for c in self.labels}


def _precision(ntp: float, nsys: float, zero_score: bool) -> float:
    return 0.0 if nsys == 0 and zero_score else math.nan if nsys == 0 else ntp / nsys


def _f(p: float, r: float) -> float:
    return 0.0 if p == 0 and r == 0 else 2.0 * p * r / (1.0 * p + r)


def figures(c: dict[str, float], zero_score: bool, substitutions: bool) -> dict[str, float]:
    """F, precision, recall and the error rates of one set of counts, as sed_eval computes them."""
    p = _precision(c["Ntp"], c["Nsys"], zero_score)
    r = math.nan if c["Nref"] == 0 else c["Ntp"] / c["Nref"]
    s, d, i = (x / (c["Nref"] + EPS) for x in (c["Nsubs"] if substitutions else 0.0, c["Nfn"], c["Nfp"]))
    out = {"f_measure": _f(p, r), "precision": p, "recall": r}
    if substitutions:
        out |= {"error_rate": s + d + i, "substitution_rate": s}
    else:
        out["error_rate"] = 0.0 + d + i
    return out | {"deletion_rate": d, "insertion_rate": i, "Nref": c["Nref"], "Nsys": c["Nsys"]}


def results(counts: Counts, zero_score: bool) -> dict[str, dict[str, float]]:
    """Per class, ``micro`` (sed_eval's overall) and ``macro`` (its class-wise average, NaN left out)."""
    out = {c: figures(v, zero_score, False) for c, v in counts.per_class.items()}
    with _quiet():
        macro = {k: float(np.nanmean([out[c][k] for c in counts.labels]))
                 for k in ("f_measure", "precision", "recall", "error_rate", "deletion_rate", "insertion_rate")}
    return out | {"micro": figures(counts.overall, zero_score, True), "macro": macro}


# ----------------------------------------------------------------------------- event-based

@dataclass(frozen=True)
class Collar:
    """sed_eval's onset/offset conditions: plain float differences compared with ``<=``."""

    t_collar: float = 0.2
    percentage_of_length: float = 0.2
    onset: bool = True
    offset: bool = True

    def hit(self, ref: Event, est: Event) -> bool:
        if self.onset and not abs(ref.onset - est.onset) <= self.t_collar:
            return False
        limit = max(self.t_collar, self.percentage_of_length * (ref.offset - ref.onset))
        return not self.offset or abs(ref.offset - est.offset) <= limit


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


def _augment(v: int, preds: dict[int, list[int]], pred: dict[int, object], free: list[int],
             match: dict[int, int]) -> bool:
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
                if r.label == e.label and collar.hit(r, e):
                    graph.setdefault(i, []).append(j)
        for j, i in max_matching(graph).items():
            ref_ok[j] = est_ok[i] = True
    else:
        for j, r in enumerate(ref):
            for i, e in enumerate(est):
                if not est_ok[i] and r.label == e.label and collar.hit(r, e):
                    ref_ok[j] = est_ok[i] = True
                    break
    subs, taken = 0, [False] * len(est)
    for j in (j for j, ok in enumerate(ref_ok) if not ok):
        for i in (i for i, ok in enumerate(est_ok) if not ok):
            if not taken[i] and collar.hit(ref[j], est[i]):
                taken[i] = True
                subs += 1
                break
    tp = sum(est_ok)
    o = counts.overall
    for k, v in zip(COUNTS, (len(ref), len(est), tp, subs, len(est) - tp - subs, len(ref) - tp - subs), strict=True):
        o[k] += v
    for c, cls in counts.per_class.items():
        nref, nsys = sum(r.label == c for r in ref), sum(e.label == c for e in est)
        ntp = sum(ok and e.label == c for ok, e in zip(est_ok, est, strict=True))
        for k, v in zip(("Nref", "Nsys", "Ntp", "Nfp", "Nfn"), (nref, nsys, ntp, nsys - ntp, nref - ntp), strict=True):
            cls[k] += v


# ----------------------------------------------------------------------------- segment-based

def _roll(events: Sequence[Event], labels: list[str], resolution: float) -> FloatArray:
    length = max((e.offset for e in events), default=0.0)
    roll = np.zeros((math.ceil(length * 1 / resolution), len(labels)))
    for e in events:
        roll[math.floor(e.onset * 1 / resolution):math.ceil(e.offset * 1 / resolution),
             labels.index(e.label)] = 1
    return roll


def segment_file(counts: Counts, ref: Sequence[Event], est: Sequence[Event], resolution: float,
                 duration: float | None) -> None:
    """Add one clip's segment-based counts: its segments up to ``duration`` or, None, to the last offset."""
    if duration is None:
        duration = max([e.offset for e in (*ref, *est)], default=0.0)
    n = math.ceil(duration * 1 / resolution)
    a, b = (np.pad(x[:n], ((0, max(0, n - len(x))), (0, 0))) for x in (_roll(ref, counts.labels, resolution),
                                                                        _roll(est, counts.labels, resolution)))
    nref, nsys, tp = a.sum(axis=1), b.sum(axis=1), ((a + b) > 1).sum(axis=1)
    o = counts.overall
    o["Nref"] += nref.sum()
    o["Nsys"] += nsys.sum()
    o["Ntp"] += tp.sum()
    o["Nsubs"] += (np.minimum(nref, nsys) - tp).sum()
    o["Nfn"] += np.maximum(0, nref - nsys).sum()
    o["Nfp"] += np.maximum(0, nsys - nref).sum()
    for k, c in enumerate(counts.labels):
        cls, x, y = counts.per_class[c], a[:, k], b[:, k]
        cls["Nref"] += x.sum()
        cls["Nsys"] += y.sum()
        cls["Ntp"] += ((x + y) > 1).sum()
        cls["Nfp"] += (y > x).sum()
        cls["Nfn"] += (x > y).sum()


# ----------------------------------------------------------------------------- PSDS (psds_eval)

WORLD = "injected_psds_world_label"
SETTINGS = {"psds1": {"dtc": 0.7, "gtc": 0.7, "cttc": 0.3, "alpha_ct": 0.0, "alpha_st": 1.0, "max_efpr": 100.0},
            "psds2": {"dtc": 0.1, "gtc": 0.1, "cttc": 0.3, "alpha_ct": 0.5, "alpha_st": 1.0, "max_efpr": 100.0}}


def _kahan(values: Sequence[float]) -> float:
    """A sum as pandas' groupby ``sum`` takes it (Kahan-compensated, in row order)."""
    total = comp = 0.0
    for v in values:
        y = v - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total


def refuse_overlaps(table: Events) -> None:
    """psds_eval refuses a table with two different same-class events that intersect: so do we."""
    for events in table.clips.values():
        by_label: dict[str, list[Event]] = {}
        for e in events:
            by_label.setdefault(e.label, []).append(e)
        for same in by_label.values():
            reach: Event | None = None
            for e in sorted(same, key=lambda e: (e.onset, e.offset)):
                if reach is not None and e.onset < reach.offset and (e.onset, e.offset) != (reach.onset, reach.offset):
                    raise InputError(table.path, f"this {e.label!r} event intersects the one on line {reach.line}; "
                                     "psds_eval refuses intersecting events of one class (expected them merged)",
                                     line=e.line)
                if reach is None or e.offset > reach.offset:
                    reach = e


@dataclass
class Truth:
    """The ground truth as psds_eval holds it: per clip its duration (None: a clip of the ground truth missing
    from the durations table, whose events still count) and its events in onset order."""

    classes: list[str]
    clips: dict[str, tuple[float | None, list[Event]]]
    n_events: dict[str, int]
    class_seconds: dict[str, float]
    seconds: float


def truth(gt: Events, durations: dict[str, float]) -> Truth:
    """Zero-length events dropped; every clip of the durations table and of the ground truth."""
    refuse_overlaps(gt)
    clips = {c: (durations.get(c), sorted((e for e in gt.clips.get(c, []) if e.offset > e.onset),
                                          key=lambda e: e.onset)) for c in sorted({*durations, *gt.clips})}
    rows = sorted(((c, e.onset, i, e) for c, (_, evs) in clips.items() for i, e in enumerate(evs)),
                  key=lambda r: (r[0], r[1]))
    classes = sorted({r[3].label for r in rows})
    return Truth(classes, clips, {c: sum(r[3].label == c for r in rows) for c in classes},
                 {c: _kahan([r[3].offset - r[3].onset for r in rows if r[3].label == c]) for c in classes},
                 float(np.sum(np.array([d for d, _ in clips.values() if d is not None]))))


def intersection_counts(t: Truth, dets: Events, dtc: float, gtc: float, cttc: float) -> FloatArray:
    """psds_eval's counts: [i, i] true-positive ground truths of class i; [i, j] detections of class i
    cross-triggering class j; [i, -1] false positives of class i (detections not passing the DTC that lie
    on their clip)."""
    n = len(t.classes)
    index = {c: k for k, c in enumerate(t.classes)}
    counts = np.zeros((n + 1, n + 1))
    for clip, events in dets.clips.items():
        if clip not in t.clips:
            continue
        duration, gts = t.clips[clip]
        world = [] if duration is None else [Event(0.0, duration, WORLD, 0)]
        for d in sorted((e for e in events if e.offset > e.onset and e.label in index), key=lambda e: e.onset):
            length = d.offset - d.onset
            pairs = [(g, (min(d.offset, g.offset) - max(d.onset, g.onset))) for g in [*gts, *world]
                     if d.onset < g.offset and g.onset < d.offset]
            share = _kahan([x / length for g, x in pairs if g.label == d.label])
            if pairs and share >= dtc and any(g.label == d.label for g, _ in pairs):
                continue  # a DTC-valid detection: counted on the ground-truth side below
            for label in dict.fromkeys(g.label for g, _ in pairs if g.label != d.label):
                cross = _kahan([x / length for g, x in pairs if g.label == label])
                if label == WORLD or cross >= cttc:
                    counts[index[d.label], n if label == WORLD else index[label]] += 1
    for clip, (_, gts) in t.clips.items():
        valid = sorted((d for d in dets.clips.get(clip, []) if d.offset > d.onset and _dtc_valid(d, gts, dtc)),
                       key=lambda e: e.onset)
        for g in gts:
            covers = [(min(d.offset, g.offset) - max(d.onset, g.onset)) / (g.offset - g.onset) for d in valid
                      if d.label == g.label and d.onset < g.offset and g.onset < d.offset]
            if covers and _kahan(covers) >= gtc:
                counts[index[g.label], index[g.label]] += 1
    return counts


def _dtc_valid(d: Event, gts: Sequence[Event], dtc: float) -> bool:
    shares = [(min(d.offset, g.offset) - max(d.onset, g.onset)) / (d.offset - d.onset) for g in gts
              if g.label == d.label and d.onset < g.offset and g.onset < d.offset]
    return bool(shares) and _kahan(shares) >= dtc


@dataclass
class OperatingPoint:
    """One operating point's per-class rates (per hour)."""

    threshold: str
    tpr: FloatArray
    fpr: FloatArray
    ctr: FloatArray


def rates(t: Truth, counts: FloatArray, threshold: str) -> OperatingPoint:
    n = len(t.classes)
    tpr = np.array([counts[i, i] / t.n_events[c] for i, c in enumerate(t.classes)])
    fpr = np.array([counts[i, n] * 3600 / t.seconds for i in range(n)])
    ctr = np.full((n, n), np.nan)
    for i in range(n):
        for j, c in enumerate(t.classes):
            if j != i:
                ctr[i, j] = counts[i, j] * 3600 / t.class_seconds[c]
    return OperatingPoint(threshold, tpr, fpr, ctr)


def add_point(points: list[OperatingPoint], seen: set[tuple[object, ...]], t: Truth, dets: Events, threshold: str,
              dtc: float, gtc: float, cttc: float) -> bool:
    """Add an operating point unless its table (zero-length events left out) equals an earlier one's."""
    refuse_overlaps(dets)
    key = tuple(sorted((c, e.onset, e.offset, e.label) for c, evs in dets.clips.items() for e in evs
                       if e.offset > e.onset))
    if key in seen:
        return False
    seen.add(key)
    points.append(rates(t, intersection_counts(t, dets, dtc, gtc, cttc), threshold))
    return True


@dataclass
class Psds:
    """The score, the PSD-ROC (eFPR, eTPR) and each class's ROC on the common eFPR axis."""

    value: float
    max_efpr: float
    efpr: FloatArray
    etpr: FloatArray
    per_class: FloatArray


def _step(x: FloatArray, xp: FloatArray, yp: FloatArray) -> FloatArray:
    """psds_eval's step curve: the best TPR at each FPR, made non-decreasing, read at ``x`` (0 before)."""
    ux, inverse = np.unique(xp, return_inverse=True)
    best = np.full(ux.size, -np.inf)
    np.maximum.at(best, inverse, yp)
    best = np.maximum.accumulate(best)
    k = np.searchsorted(ux, x, side="right") - 1
    return np.where(k >= 0, best[np.maximum(k, 0)], 0.0)


def psds(points: Sequence[OperatingPoint], alpha_ct: float, alpha_st: float, max_efpr: float | None) -> Psds:
    """psds_eval's ``psds`` (step curves, no interpolation)."""
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
        raise ParameterError(f"max_efpr must be > 0: with max_efpr None the largest eFPR is {limit!r} "
                             "(psds_eval fails or gives NaN here). Give --max-efpr.")
    xs, ys = x, etpr
    if limit not in xs:
        xs = np.sort(np.concatenate([x, [limit]]))
        i = int(np.argwhere(xs == limit)[0, 0])
        ys = np.concatenate([etpr[:i], [etpr[i - 1]], etpr[i:]])
    keep = xs <= limit
    area = np.sum(np.diff(xs[keep]) * np.array(ys[keep])[:-1])
    return Psds(float(area / limit), limit, x, etpr, per_class)


def macro_f1(t: Truth, counts: FloatArray) -> tuple[float, dict[str, float]]:
    """psds_eval's ``compute_macro_f_score``: per class 2TP / (2TP + FN + FP), FN from TP / TPR (NaN when
    a class has no true positive, left out of the mean)."""
    n = len(t.classes)
    tp = np.diag(counts)[:-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = np.array([counts[i, i] / t.n_events[c] for i, c in enumerate(t.classes)])
        fn = tp / tpr - tp
        f = 2.0 * tp / (2.0 * tp + 1.0 * fn + counts[:n, n])
    with _quiet():
        return float(np.nanmean(f)), dict(zip(t.classes, map(float, f), strict=True))


@contextmanager
def _quiet() -> Iterator[None]:
    """NumPy's warnings on all-NaN slices silenced: the NaN is the official figure."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
