"""Generate temporal-detection boundary cases and run the official evaluators on them.

Usage:
    python scripts/detection_cases.py write OUT_DIR
        writes OUT_DIR/<case>.gt.json and OUT_DIR/<case>.pred.json for every case (deterministic)
    python scripts/detection_cases.py official OUT_DIR FIXTURES_DIR ACTIVITYNET_EVALUATION EGO4D_MQ_EVALUATION \\
            PYTHON27 PY27_SITE PYTHON3 PY3_SITE TH14_KIT [CASE ...]
        writes the cases, runs the official code on each (or the CASEs named) and stores its output as
        FIXTURES_DIR/<case>.official.json; numpy 1.16's argsort and Python 2's dict order on
        :func:`order_inputs` as FIXTURES_DIR/orders.py27.json (digests)

The official tools: activitynet/ActivityNet ``Evaluation/`` (eval_detection.py, eval_proposal.py, commit
82304fa9f4a7219421df13dae6347a445c4cf5bc) under Python 2.7.18 with numpy 1.16.6, pandas 0.24.2, joblib 0.14.1;
EGO4D/episodic-memory ``MQ/Evaluation/`` (ego4d/eval_detection.py and utils.py, as a package) under Python 3.11
with numpy 1.23.5 and pandas 1.5.3 (np.float still exists there).  Both are called as their front ends call
them, with ``check_status=False`` (the blocked-video server no longer answers).

The cases (tests/unit/detection/test_official_cases.py compares segeval with the stored outputs):

* ``thresholds``: one instance and one prediction per video whose tIoU is each ActivityNet threshold in
  decimal (``[0, 100]`` against ``[0, 100 t]``), the same offset by 13.37 s (the doubles land a last bit
  either side), binary fractions (``[0, 64]``), and tIoU 0.9 against linspace's 0.8999999999999999;
  scored at linspace(0.5, 0.95, 10) and, as ``thresholds_thumos``, at 0.3 ... 0.7.
* ``ties``: tied scores (within one video, at most 16 predictions per class, where numpy's sort is
  stable in every version) and a prediction at the same tIoU with two instances, whose choice decides
  whether the next prediction falls through.
* ``line_ties``: equal tIoUs whose winner is decided by the ground truth's order (the later instance first),
  listed against their start order, with 16 instances at one tIoU in one video (the most numpy's argsort
  keeps stable); scored at 0.3 and 0.5.
* ``fall_through``: a locked best instance; the next prediction takes its second-best instance while that
  reaches θ, and is a false positive above.
* ``missing``: a class without predictions, a ground-truth video without predictions, predictions on an
  unknown video and on a training video, training-only ground truth.
* ``many_classes``: 60 classes on a 0.5 s grid (tIoU ties and exact thresholds by construction).
* ``random0`` ... ``random2``: medium random submissions.
* ``proposals_ratio``: proposals per video from 3 to 140, proposal-only videos, a ground-truth video
  without proposals, tied scores; AN = 100 (``proposals_ratio``) and AN = 10 (``proposals_an10``).
* ``ego4d_unknown``: the Ego4D MQ layout with predicted labels outside the ground truth (skipped).
* ``tie_pairs``: classes of 17 to 40 predictions with one tied pair, a hit and a miss (numpy's quicksort).
* ``ties_everywhere0`` ... ``5``, ``proposals_ties0``/``1``, ``ego4d_ties0``/``1``: windows of a few lengths on
  a 1 s grid (equal tIoUs among up to 40 instances of a class in a video, repeated instances), scores of a
  few levels shared across videos, more than 16 predictions per class.
* ``ego4d_subsets``: subsets that are substrings of the requested ``val`` (kept by the port) and others.
* ``kit_ties0`` ... ``3``, ``kit_mp4``: THUMOS14 kit folders and detection files (confidence ties across
  videos, overlap ties, Ambiguous, unknown videos; ``.mp4`` and ``.mpeg`` names), run under GNU Octave.

The kit is the 2015 copy of ``TH14evalDet.m`` (``TH14eventdetpr.m`` as a subfunction, with the error classes,
``regexprep(videonames,'\\.mp4','')``) and ``intervaloverlapvalseconds.m``, in TH14_KIT, called as
``TH14evalDet_Updated(det, annotation, 'test', θ)``; a class without detections returns before setting its error
outputs there, which stops the kit, so every generated class has detections.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

THR_ANET = [0.5 + 0.05 * k for k in range(10)]  # for the generator only: decimal-ish targets
DECIMAL = ["0.5", "0.55", "0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95", "0.3", "0.4"]

Video = list[tuple[float, float, str]]


def _gt(videos: dict[str, Video], other: dict[str, Video] | None = None, *, ego4d: bool = False,
        subset: str = "validation") -> dict[str, Any]:
    def entry(items: Video, sub: str) -> dict[str, Any]:
        if ego4d:
            return {"subset": sub, "annotations": [{"start_time": s, "end_time": e, "label": c} for s, e, c in items]}
        return {"subset": sub, "duration": 200.0, "annotations": [{"segment": [s, e], "label": c} for s, e, c in items]}

    db = {v: entry(items, subset) for v, items in videos.items()}
    db.update({v: entry(items, "training") for v, items in (other or {}).items()})
    return db if ego4d else {"version": "generated", "taxonomy": [], "database": db}


def _pred(results: dict[str, list[tuple[float, float, str, float]]], labels: bool = True) -> dict[str, Any]:
    return {"version": "generated", "external_data": {},
            "results": {v: [{"segment": [s, e], **({"label": c} if labels else {}), "score": sc}
                            for s, e, c, sc in items] for v, items in results.items()}}


def _thresholds() -> tuple[dict[str, Any], dict[str, Any]]:
    gt: dict[str, Video] = {}
    pr: dict[str, list[tuple[float, float, str, float]]] = {}
    k = 0

    def add(g: tuple[float, float], p: tuple[float, float], label: str) -> None:
        nonlocal k
        v = f"thr{k:03d}"
        gt[v] = [(g[0], g[1], label)]
        pr[v] = [(p[0], p[1], label, round(0.99 - k * 0.001, 6))]
        k += 1

    for text in DECIMAL:
        t = float(text)
        add((0.0, 100.0), (0.0, round(100 * t, 6)), "decimal")
        add((13.37, 113.37), (13.37, round(13.37 + 100 * t, 6)), "offset")
        add((0.0, round(100 * t, 6)), (0.0, 100.0), "contains")
        add((5.0, 105.0), (round(5.0 + 100 * (1 - t), 6), 105.0), "tail")
    for num in (32, 40, 48, 56, 60, 62):  # binary fractions of 64
        add((0.0, 64.0), (0.0, float(num)), "binary")
    add((0.0, 10.0), (0.0, 9.0), "ninety")  # 0.9 >= 0.8999999999999999
    add((0.0, 10.0), (0.0, 8.999999999), "ninety")
    return _gt(gt), _pred(pr)


def _ties() -> tuple[dict[str, Any], dict[str, Any]]:
    gt = {"tie1": [(0.0, 10.0, "A"), (2.0, 12.0, "A"), (30.0, 40.0, "A"), (50.0, 60.0, "B"), (52.0, 62.0, "B")],
          "tie2": [(0.0, 20.0, "A"), (40.0, 60.0, "B")]}
    pr = {"tie1": [(1.0, 11.0, "A", 0.9),   # tIoU 9/11 with both A instances: the later one (2-12) first
                   (2.0, 12.0, "A", 0.8),   # its best is taken: falls to 0-10 at 8/12 (hit below 2/3)
                   (30.0, 40.0, "A", 0.5), (31.0, 41.0, "A", 0.5), (29.0, 39.0, "A", 0.5),
                   (0.0, 10.0, "A", 0.5), (51.0, 61.0, "B", 0.7), (50.0, 60.0, "B", 0.7),
                   (52.0, 62.0, "B", 0.7), (53.0, 63.0, "B", 0.4), (50.0, 61.0, "B", 0.4)],
          "tie2": [(0.0, 20.0, "A", 0.6), (1.0, 19.0, "A", 0.6), (40.0, 58.0, "B", 0.3)]}
    return _gt(gt), _pred(pr)


def _line_ties() -> tuple[dict[str, Any], dict[str, Any]]:
    # 0-10 has tIoU 1/2 with every 5 s window inside it: 15 from 2-7 to 3.75-8.75 (step 1/8, listed from the
    # last), then 0-5 (16 windows: numpy's argsort is an insertion sort, stable, up to 16 values; reversed, the
    # later line first); 0-5 (rank 2) then finds its twin taken and the others below 1/2 (3/7 at best): a false
    # positive.  Taking the first line (2-7) or the lowest start (0-5 free for rank 2) would make it a hit.
    window = [(2 + k / 8, 7 + k / 8, "A") for k in range(14, -1, -1)]
    gt = {"lt1": [*window, (0.0, 5.0, "A")], "lt2": [(10.0, 20.0, "B"), (0.0, 10.0, "B")]}
    pr = {"lt1": [(0.0, 10.0, "A", 0.9), (0.0, 5.0, "A", 0.8)],
          "lt2": [(5.0, 15.0, "B", 0.9), (0.0, 10.0, "B", 0.8)]}  # 1/3 with both: 0-10 taken, rank 2 falls to 0
    return _gt(gt), _pred(pr)


def _fall_through() -> tuple[dict[str, Any], dict[str, Any]]:
    gt = {"ft": [(0.0, 10.0, "A"), (1.0, 11.0, "A"), (3.0, 13.0, "A"), (20.0, 30.0, "A")]}
    pr = {"ft": [(0.0, 10.0, "A", 0.9), (0.0, 10.0, "A", 0.8), (0.0, 10.0, "A", 0.7), (0.0, 10.0, "A", 0.6),
                 (20.5, 30.5, "A", 0.5), (20.0, 30.0, "A", 0.4)]}
    return _gt(gt), _pred(pr)


def _missing() -> tuple[dict[str, Any], dict[str, Any]]:
    gt = {"m1": [(0.0, 10.0, "A"), (20.0, 30.0, "B")], "m2": [(5.0, 15.0, "A"), (40.0, 50.0, "C")],
          "m3": [(0.0, 50.0, "B")]}
    other = {"tr1": [(0.0, 10.0, "A"), (0.0, 10.0, "D")]}
    pr = {"m1": [(0.0, 10.0, "A", 0.9), (21.0, 30.0, "B", 0.8), (0.0, 9.0, "B", 0.85)],
          "unknown": [(0.0, 10.0, "A", 0.95), (5.0, 15.0, "B", 0.5)],
          "tr1": [(0.0, 10.0, "A", 0.7)]}
    return _gt(gt, other), _pred(pr)


def _random(seed: int, n_videos: int, n_classes: int, per_video: int, grid: float) -> tuple[dict[str, Any],
                                                                                            dict[str, Any]]:
    rng = random.Random(seed)
    classes = [f"class {c:02d}" for c in range(n_classes)]
    gt: dict[str, Video] = {}
    pr: dict[str, list[tuple[float, float, str, float]]] = {}
    used: set[float] = set()
    for v in range(n_videos):
        mine = rng.sample(classes, min(len(classes), rng.randint(1, 3)))
        items: Video = []
        for _ in range(rng.randint(1, 4)):
            s = round(rng.randint(0, int(150 / grid)) * grid, 6)
            items.append((s, round(s + rng.randint(1, int(40 / grid)) * grid, 6), rng.choice(mine)))
        gt[f"r{seed}v{v:03d}"] = items
    present = sorted({c for items in gt.values() for _, _, c in items})  # a label outside them stops the official
    for name, items in gt.items():
        preds = []
        for _ in range(per_video):
            if rng.random() < 0.6:
                s0, e0, c = rng.choice(items)
                s = max(0.0, round(s0 + rng.randint(-6, 6) * grid, 6))
                e = round(max(s + grid, e0 + rng.randint(-6, 6) * grid), 6)
                c = c if rng.random() < 0.85 else rng.choice(present)
            else:
                s = round(rng.randint(0, int(150 / grid)) * grid, 6)
                e, c = round(s + rng.randint(1, int(40 / grid)) * grid, 6), rng.choice(present)
            score = round(rng.random(), 9)
            while score in used:
                score = round(rng.random(), 9)
            used.add(score)
            preds.append((s, e, c, score))
        pr[name] = preds
    return _gt(gt), _pred(pr)


def _proposals() -> tuple[dict[str, Any], dict[str, Any]]:
    rng = random.Random(77)
    gt: dict[str, Video] = {}
    pr: dict[str, list[tuple[float, float, str, float]]] = {}
    for v in range(12):
        name = f"p{v:02d}"
        items: Video = []
        for _ in range(rng.randint(1, 3)):
            s = round(rng.randint(0, 300) * 0.5, 6)
            items.append((s, round(s + rng.randint(2, 60) * 0.5, 6), "act"))
        gt[name] = items
        if v == 5:
            continue  # a ground-truth video without proposals
        n = [3, 140, 100, 57, 12, 100, 99, 101, 16, 33, 120, 7][v]
        props = []
        for k in range(n):
            s0, e0, _ = rng.choice(items)
            s = max(0.0, round(s0 + rng.randint(-10, 10) * 0.5, 6))
            e = round(max(s + 0.5, e0 + rng.randint(-10, 10) * 0.5), 6)
            # distinct scores (numpy's sort is unstable above 16), except video 8: 16 proposals, tied scores
            score = round(rng.random(), 9) if v != 8 else [0.5, 0.25][k % 2]
            props.append((s, e, "", score))
        pr[name] = props
    pr["extra"] = [(0.0, 5.0, "", 0.5)] * 40  # proposals of a video without ground truth count in the ratio
    return _gt(gt), _pred(pr, labels=False)


def _ego4d() -> tuple[dict[str, Any], dict[str, Any]]:
    gt, pr = _random(9, 30, 8, 12, 0.25)
    videos = {v: [(a["segment"][0], a["segment"][1], a["label"]) for a in e["annotations"]]
              for v, e in gt["database"].items()}
    for items in pr["results"].values():
        if len(items) > 3:
            items[3]["label"] = "not a class"
    return _gt(videos, ego4d=True, subset="val"), pr


def _tie_pairs(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Classes of 17 to 40 predictions with distinct scores but one tied pair, a hit and a miss."""
    rng = random.Random(seed)
    gt: dict[str, Video] = {}
    pr: dict[str, list[tuple[float, float, str, float]]] = {}
    for c in range(12):
        label, n = f"pair{c:02d}", rng.randint(17, 40)
        video = f"tp{c:02d}"
        gt[video] = [(0.0, 10.0, label)]
        scores = rng.sample(range(1, 1000), n - 1)
        tied = rng.choice(scores)
        preds = [(100.0 + k, 110.0 + k, label, s / 1000) for k, s in enumerate(scores)]  # misses
        hit = (0.0, 10.0, label, tied / 1000)
        preds.insert(rng.randint(0, n - 1), hit)
        pr[video] = preds
    return _gt(gt), _pred(pr)


def _ties_everywhere(seed: int, *, labels: bool = True, ego4d: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ties everywhere: windows of a few lengths on a 1 s grid in a short stretch (many equal tIoUs; up to
    40 instances of a class in a video), scores of a few levels shared across videos, 17+ predictions per
    class."""
    rng = random.Random(seed)
    classes = ["A", "B", "C"] if labels else [""]
    gt: dict[str, Video] = {}
    pr: dict[str, list[tuple[float, float, str, float]]] = {}
    levels = [round(0.1 * k, 1) for k in range(1, rng.randint(3, 8))]
    for v in range(rng.randint(4, 9)):
        video = f"tie{seed}v{v:02d}"
        items: Video = []
        for _ in range(rng.choice([2, 5, 20, 40])):
            s = float(rng.randint(0, 30))
            items.append((s, s + rng.choice([4.0, 10.0, 10.0, 12.0]), rng.choice(classes)))
        gt[video] = items
        preds = []
        for _ in range(rng.randint(10, 60)):
            s = float(rng.randint(0, 34))
            preds.append((s, s + rng.choice([4.0, 10.0, 12.0]), rng.choice(classes), rng.choice(levels)))
        pr[video] = preds
    if ego4d:
        return _gt(gt, ego4d=True, subset="val"), _pred(pr)
    present = sorted({c for items in gt.values() for _, _, c in items})  # another label stops the official
    pr = {v: [(s, e, c if c in present else present[0], sc) for s, e, c, sc in items] for v, items in pr.items()}
    return _gt(gt), _pred(pr, labels=labels)


def _ego4d_subsets() -> tuple[dict[str, Any], dict[str, Any]]:
    """Ego4D MQ subsets that are substrings of the requested ``val`` (kept by the port) and ones that are not."""
    g, p = _ties_everywhere(5, ego4d=True)
    for k, entry in enumerate(g.values()):
        entry["subset"] = ["val", "al", "", "v", "train", "trainval", "val ", "VAL", "l"][k % 9]
    return g, p


def cases() -> dict[str, dict[str, Any]]:
    """Every case: ``gt``, ``pred``, ``kind`` (detection, proposal, ego4d, kit), ``thresholds`` or ``an``;
    kit cases hold ``files`` (path: text) instead of ``gt`` and ``pred``."""
    thr_gt, thr_pred = _thresholds()
    out: dict[str, dict[str, Any]] = {
        "thresholds": {"gt": thr_gt, "pred": thr_pred, "kind": "detection", "thresholds": None},
        "thresholds_thumos": {"gt": thr_gt, "pred": thr_pred, "kind": "detection",
                              "thresholds": [0.3, 0.4, 0.5, 0.6, 0.7]},
    }
    for name, make in (("ties", _ties), ("fall_through", _fall_through), ("missing", _missing)):
        g, p = make()
        out[name] = {"gt": g, "pred": p, "kind": "detection", "thresholds": None}
    g, p = _line_ties()
    out["line_ties"] = {"gt": g, "pred": p, "kind": "detection", "thresholds": [0.3, 0.5]}
    g, p = _random(1, 80, 60, 8, 0.5)
    out["many_classes"] = {"gt": g, "pred": p, "kind": "detection", "thresholds": None}
    for seed in range(3):
        g, p = _random(100 + seed, 40, 6, 15, 0.01 if seed else 0.1)
        out[f"random{seed}"] = {"gt": g, "pred": p, "kind": "detection", "thresholds": None}
    g, p = _proposals()
    out["proposals_ratio"] = {"gt": g, "pred": p, "kind": "proposal", "an": 100}
    out["proposals_an10"] = {"gt": g, "pred": p, "kind": "proposal", "an": 10}
    g, p = _ego4d()
    ego4d_thresholds = [0.1, 0.2, 0.3, 0.4, 0.5]
    out["ego4d_unknown"] = {"gt": g, "pred": p, "kind": "ego4d", "thresholds": ego4d_thresholds}
    g, p = _tie_pairs(17)
    out["tie_pairs"] = {"gt": g, "pred": p, "kind": "detection", "thresholds": None}
    for seed in range(6):
        g, p = _ties_everywhere(seed)
        out[f"ties_everywhere{seed}"] = {"gt": g, "pred": p, "kind": "detection",
                                         "thresholds": None if seed % 2 else [0.3, 0.4, 0.5, 0.6, 0.7]}
    for seed in range(2):
        g, p = _ties_everywhere(10 + seed, labels=False)
        out[f"proposals_ties{seed}"] = {"gt": g, "pred": p, "kind": "proposal", "an": [100, 5][seed]}
        g, p = _ties_everywhere(20 + seed, ego4d=True)
        out[f"ego4d_ties{seed}"] = {"gt": g, "pred": p, "kind": "ego4d", "thresholds": ego4d_thresholds}
    g, p = _ego4d_subsets()
    out["ego4d_subsets"] = {"gt": g, "pred": p, "kind": "ego4d", "thresholds": ego4d_thresholds}
    out.update(kit_cases())
    return out


# ----------------------------------------------------------------------------------------- THUMOS14 kit

KIT_THRESHOLDS = [0.1, 0.3, 0.5, 0.7]


def _kit_case(seed: int, *, suffixes: bool = False) -> dict[str, Any]:
    """A kit annotation folder and detection file: windows on a 1 s grid (overlap ties), confidences of a few
    levels shared across videos, Ambiguous intervals, detections on unknown videos; with ``suffixes`` video
    names written with ``.mp4`` (stripped by the kit) and ``.mpeg`` (kept: unknown videos)."""
    rng = random.Random(seed)
    ids = {"BaseballPitch": 7, "Billiards": 9, "CliffDiving": 22}
    videos = [f"video_test_{seed:02d}{v:03d}" for v in range(rng.randint(3, 7))]
    files: dict[str, str] = {"annotation/detclasslist.txt": "".join(f"{i} {c}\n" for c, i in ids.items())}
    for name in [*ids, "Ambiguous"]:
        lines = []
        for _ in range(rng.randint(1 if name != "Ambiguous" else 0, 12)):
            s = float(rng.randint(0, 40))
            lines.append(f"{rng.choice(videos)} {s!r} {s + rng.choice([2.0, 5.0, 10.0])!r}\n")
        files[f"annotation/{name}_test.txt"] = "".join(lines)
    levels = [round(0.1 * k, 1) for k in range(1, rng.randint(3, 7))]
    det = []
    for cid in ids.values():  # every class has detections (a class without any stops the kit)
        for _ in range(rng.randint(17, 50)):
            video = rng.choice([*videos, "video_unknown"]) if rng.random() < 0.9 else videos[0]
            if suffixes:
                video += rng.choice(["", ".mp4", ".mpeg"])
            s = float(rng.randint(0, 44))
            det.append(f"{video} {s!r} {s + rng.choice([2.0, 5.0, 10.0])!r} {cid} {rng.choice(levels)!r}\n")
    rng.shuffle(det)
    files["det.txt"] = "".join(det)
    return {"files": files, "kind": "kit", "thresholds": KIT_THRESHOLDS}


def kit_cases() -> dict[str, dict[str, Any]]:
    """The THUMOS14 kit's cases."""
    out = {f"kit_ties{seed}": _kit_case(seed) for seed in range(4)}
    out["kit_mp4"] = _kit_case(9, suffixes=True)
    return out


# ----------------------------------------------------------------------------------------- sort orders

def order_inputs(seed: int = 37) -> dict[str, list[list[Any]]]:
    """Arrays for numpy's argsort (sizes 1 to 200, a few levels each: many ties; some NaNs; adversarial
    inputs that drive numpy's introsort into heapsort, as is and with ties) and lists of distinct video ids
    for Python 2's dict order (200 of up to 400 ids, and 20000 and 60000 ids)."""
    rng = random.Random(seed)
    arrays: list[list[Any]] = []
    for _ in range(2000):
        levels = rng.choice([1, 2, 3, 5, 10, 50])
        values = [rng.randrange(levels) / 4 for _ in range(rng.randint(1, 200))]
        if rng.random() < 0.1:
            values = [math.nan if rng.random() < 0.2 else v for v in values]
        arrays.append(values)
    for n in range(17, 201, 3):
        killer = _quicksort_killer(n)
        arrays += [killer, [float(int(v) // 2) for v in killer]]
    keys: list[list[Any]] = []
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-"
    for _ in range(200):
        ids = [rng.choice(["v_", "video_test_", "", "x"])
               + "".join(rng.choice(letters) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 400))]
        keys.append(list(dict.fromkeys(ids)))
    keys += [[f"v_{rng.getrandbits(40):011x}" for _ in range(n)] for n in (20000, 60000)]  # past 50000: 2x resizes
    return {"arrays": arrays, "keys": keys}


def _quicksort_killer(n: int) -> list[float]:
    """McIlroy's adversary against numpy's median-of-3 quicksort: values fixed lazily so that partitions stay
    lopsided (the introsort then falls back to heapsort)."""
    from segeval.protocols.detection.order import _introsort

    gas, value, state = n, [n] * n, {"solid": 0, "candidate": 0}

    class Lazy:
        def __init__(self, i: int) -> None:
            self.i = i

        def __lt__(self, other: Lazy) -> bool:
            x, y = self.i, other.i
            if value[x] == gas and value[y] == gas:
                value[x if x == state["candidate"] else y] = state["solid"]
                state["solid"] += 1
            if value[x] == gas:
                state["candidate"] = x
            elif value[y] == gas:
                state["candidate"] = y
            return value[x] < value[y]

    _introsort([Lazy(i) for i in range(n)])  # type: ignore[list-item]
    return [float(v) for v in value]


def digest(items: list[int]) -> str:
    """A short digest of a permutation (the same text and hash under Python 2 and 3)."""
    return hashlib.sha1(",".join(str(i) for i in items).encode()).hexdigest()[:12]


def write(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Write every case's ``<case>.gt.json`` and ``<case>.pred.json`` (kit cases: the folder ``<case>/``
    with ``annotation/`` and ``det.txt``); return the cases."""
    out_dir.mkdir(parents=True, exist_ok=True)
    all_cases = cases()
    for name, case in all_cases.items():
        for rel, text in case.get("files", {}).items():
            (out_dir / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (out_dir / name / rel).write_text(text)
        if "gt" in case:
            (out_dir / f"{name}.gt.json").write_text(json.dumps(case["gt"], indent=0) + "\n")
            (out_dir / f"{name}.pred.json").write_text(json.dumps(case["pred"], indent=0) + "\n")
    return all_cases


_PY27 = r'''
import json, sys
import numpy as np
kind, gt, pred, out, extra = sys.argv[1:6]
fl = lambda x: [float(v) for v in x]
if kind == "detection":
    from eval_detection import ANETdetection
    thr = np.linspace(0.5, 0.95, 10) if extra == "-" else np.array([float(t) for t in extra.split(",")])
    d = ANETdetection(gt, pred, tiou_thresholds=thr, subset="validation", verbose=False, check_status=False)
    d.evaluate()
    names = dict((v, k) for k, v in d.activity_index.items())
    res = {"ap": dict((names[c], fl(d.ap[:, c])) for c in names), "mAP": fl(d.mAP),
           "average_mAP": float(d.average_mAP), "class_order": [names[c] for c in sorted(names)],
           "tiou_thresholds": fl(thr)}
else:
    from eval_proposal import ANETproposal
    thr = np.linspace(0.5, 0.95, 10)
    p = ANETproposal(gt, pred, tiou_thresholds=thr, max_avg_nr_proposals=int(extra), subset="validation",
                     verbose=False, check_status=False)
    p.evaluate()
    res = {"recall": [fl(r) for r in p.recall], "avg_recall": fl(p.avg_recall),
           "proposals_per_video": fl(p.proposals_per_video),
           "auc_percent": float(100. * float(np.trapz(p.avg_recall, p.proposals_per_video))
                                / p.proposals_per_video[-1]),
           "max_avg_nr_proposals": int(extra)}
json.dump(res, open(out, "w"), sort_keys=True)
'''

_PY3_EGO4D = r'''
import json, sys
import numpy as np
from MQ.Evaluation.ego4d.eval_detection import ANETdetection
gt, pred, out, extra = sys.argv[1:5]
thr = np.array([float(t) for t in extra.split(",")])
d = ANETdetection(gt, pred, tiou_thresholds=thr, subset="val", verbose=False, check_status=False)
m, avg = d.evaluate()
names = dict((v, k) for k, v in d.activity_index.items())
fl = lambda x: [float(v) for v in x]
json.dump({"ap": {names[c]: fl(d.ap[:, c]) for c in names}, "mAP": fl(m), "average_mAP": float(avg),
           "class_order": [names[c] for c in sorted(names)], "tiou_thresholds": fl(thr)},
          open(out, "w"), sort_keys=True)
'''


_PY27_ORDERS = r'''
import hashlib, json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
digest = lambda p: hashlib.sha1(",".join(str(int(i)) for i in p)).hexdigest()[:12]
argsort = [digest(np.array(a, dtype=np.float64).argsort()[::-1]) for a in d["arrays"]]
orders = []
for keys in d["keys"]:
    text = "{" + ", ".join(json.dumps(k) + ": " + str(i) for i, k in enumerate(keys)) + "}"
    obj = json.loads(text)
    orders.append(digest([obj[k] for k in obj]))
json.dump({"argsort": argsort, "dict_order": orders}, open(sys.argv[2], "w"))
'''

_OCTAVE_KIT = """addpath('{kit}');
for th = [{thresholds}]
  [pr, ap, m] = TH14evalDet_Updated('{det}', '{gt}', 'test', th);
  fprintf('AP_ALL'); fprintf(' %.17g', ap); fprintf('\\nMAP_ALL %.17g\\n', m);
end
"""


def _run_kit(case: dict[str, Any], folder: Path, kit: str) -> dict[str, Any]:
    """The kit's AP per class (detclasslist order) and MAP at each threshold, under GNU Octave."""
    script = _OCTAVE_KIT.format(kit=kit, thresholds=" ".join(map(repr, case["thresholds"])), det=folder / "det.txt",
                                gt=folder / "annotation")
    out = subprocess.run(["octave-cli", "--no-gui", "-q", "--eval", script], check=True, capture_output=True,
                         text=True).stdout
    aps = [[float(x) for x in line.split()[1:]] for line in out.splitlines() if line.startswith("AP_ALL")]
    maps = [float(line.split()[1]) for line in out.splitlines() if line.startswith("MAP_ALL")]
    names = [line.split()[1] for line in case["files"]["annotation/detclasslist.txt"].splitlines()]
    return {"ap": {c: [row[i] for row in aps] for i, c in enumerate(names)}, "mAP": maps, "class_order": names,
            "tiou_thresholds": case["thresholds"]}


def official(out_dir: Path, fixtures: Path, anet: str, ego4d_root: str, py27: str, site27: str, py3: str,
             site3: str, kit: str, only: list[str] | None = None) -> None:
    """Run the official evaluators on every case (or the cases ``only`` names) and on the sort-order inputs;
    store their outputs in ``fixtures``."""
    all_cases = {k: v for k, v in write(out_dir).items() if not only or k in only}
    fixtures.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        runner27, runner3, orders27 = Path(tmp, "run27.py"), Path(tmp, "run3.py"), Path(tmp, "orders27.py")
        runner27.write_text(_PY27)
        runner3.write_text(_PY3_EGO4D)
        orders27.write_text(_PY27_ORDERS)
        Path(tmp, "orders.json").write_text(json.dumps(order_inputs()))
        subprocess.run([py27, "-B", str(orders27), str(Path(tmp, "orders.json")), str(Path(tmp, "orders.out"))],
                       check=True, env={**os.environ, "PYTHONPATH": site27}, cwd=tmp)
        result = json.loads(Path(tmp, "orders.out").read_text())
        result["tool"] = "Python 2.7.18, numpy 1.16.6: a.argsort()[::-1] and json.loads' dict order"
        (fixtures / "orders.py27.json").write_text(json.dumps(result, indent=0, sort_keys=True) + "\n")
        for name, case in all_cases.items():
            gt, pred, out = out_dir / f"{name}.gt.json", out_dir / f"{name}.pred.json", Path(tmp, f"{name}.json")
            if case["kind"] == "kit":
                out.write_text(json.dumps(_run_kit(case, out_dir / name, kit)))
                tool = "THUMOS14 kit TH14evalDet.m (2015, .mp4 stripped, error classes) under GNU Octave 7.3.0"
            elif case["kind"] == "ego4d":
                env = {**os.environ, "PYTHONPATH": f"{ego4d_root}:{site3}"}
                subprocess.run([py3, "-B", str(runner3), str(gt), str(pred), str(out),
                                ",".join(map(str, case["thresholds"]))], check=True, env=env, cwd=tmp)
                tool = "EGO4D/episodic-memory MQ/Evaluation/ego4d/eval_detection.py (Python 3.11, numpy 1.23.5)"
            else:
                env = {**os.environ, "PYTHONPATH": f"{anet}:{site27}"}
                extra = str(case["an"]) if case["kind"] == "proposal" else \
                    ("-" if case["thresholds"] is None else ",".join(map(str, case["thresholds"])))
                subprocess.run([py27, "-B", str(runner27), case["kind"], str(gt), str(pred), str(out), extra],
                               check=True, env=env, cwd=tmp)
                tool = ("activitynet/ActivityNet Evaluation/ 82304fa9f4a7219421df13dae6347a445c4cf5bc "
                        "(Python 2.7.18, numpy 1.16.6, pandas 0.24.2)")
            result = json.loads(out.read_text())
            result["case"], result["kind"], result["tool"] = name, case["kind"], tool
            (fixtures / f"{name}.official.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
            print(f"{name}: done", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(Path(sys.argv[2]))
    elif len(sys.argv) >= 11 and sys.argv[1] == "official":
        official(Path(sys.argv[2]), Path(sys.argv[3]), *sys.argv[4:11], only=sys.argv[11:])
    else:
        sys.exit(__doc__)
