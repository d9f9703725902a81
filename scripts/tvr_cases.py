"""Generate TVR evaluation cases (ground truth JSON Lines + submission JSON) for the differential test.

Usage: python scripts/tvr_cases.py OUT_DIR

Writes OUT_DIR/<case>.gt.jsonl and OUT_DIR/<case>.submission.json for each case:

* ``boundary``: moments whose IoU with the truth is 0.5 or 0.7 exactly in decimal (prediction at the
  head, the tail, or containing the truth), among them pairs where float32 and double arithmetic
  disagree on the threshold; zero-length and reversed windows; the right moment in the wrong video;
  repeated (tied) predictions; SVMR lists mixing videos; lists longer than 100 with the only hit after
  position 100; DiDeMo-style items with 4 and 5 annotators' moments of which 1, 2 or 3 are reached;
  types v and vt only (type t has no query).
* ``random``: 200 queries over 30 videos, predictions on a 0.01 s grid near the truth, all three types.

The official evaluator (TVRetrieval standalone_eval/eval.py) is run on each pair and its output stored
in tests/fixtures/tvr/ (see its README.md); tests/unit/analyses/test_tvr.py compares segeval with it. The cases avoid
what the official script cannot evaluate (a missing query, an empty prediction list).
"""

from __future__ import annotations

import json
import random
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

#: (truth, prediction) pairs at IoU exactly θ in decimal where float32 and double disagree
#: (found by a search over a 0.01 s grid): float32 hit / double miss, and the reverse
DISAGREE = [((85.06, 85.08), (85.06, 85.07)), ((30.78, 30.82), (30.78, 30.8)), ((4.09, 4.13), (4.11, 4.13)),
            ((7.52, 7.58), (7.55, 7.58)), ((17.04, 17.14), (17.04, 17.11)), ((72.89, 72.99), (72.92, 72.99)),
            ((97.68, 97.88), (97.68, 97.82))]


def _num(d: Decimal) -> float | int:
    return int(d) if d == d.to_integral_value() else float(d)


def _videos(n: int) -> dict[str, int]:
    return {f"show_s01e{i // 10 + 1:02d}_seg02_clip_{i % 10:02d}": 1000 + 7 * i for i in range(n)}


def _filler(rng: random.Random, index: list[int], n: int) -> list[list[Any]]:
    """n predictions that never hit: a random video, a window far outside any truth (beyond 200 s)."""
    rows = []
    for _ in range(n):
        s = round(rng.uniform(200, 300), 2)
        rows.append([rng.choice(index), s, round(s + rng.uniform(0, 20), 2)])
    return rows


def boundary_case(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    video2idx = _videos(20)
    names = list(video2idx)
    index = list(video2idx.values())
    gt: list[dict[str, Any]] = []
    tasks: dict[str, list[dict[str, Any]]] = {"VCMR": [], "SVMR": [], "VR": []}

    def add(ts: Any, preds: list[list[Any]], svmr: list[list[Any]] | None = None, kind: str = "v",
            video: int | None = None) -> None:
        qid = 5000 + len(gt)
        vid = names[len(gt) % len(names)] if video is None else names[video]
        gt.append({"vid_name": vid, "duration": 150, "ts": ts, "desc": f"query {qid}", "type": kind,
                   "desc_id": qid})
        me = video2idx[vid]
        rows = [[me if r[0] is None else r[0], r[1], r[2], round(10 - i / 100, 2)] for i, r in enumerate(preds)]
        tasks["VCMR"].append({"desc_id": qid, "desc": f"query {qid}", "predictions": rows})
        srows = rows if svmr is None else [[me if r[0] is None else r[0], r[1], r[2], 1.0] for r in svmr]
        tasks["SVMR"].append({"desc_id": qid, "desc": f"query {qid}", "predictions": srows})
        vr = [[r[0], 0, 0, r[3]] for r in rows]
        tasks["VR"].append({"desc_id": qid, "desc": f"query {qid}", "predictions": vr})

    other = index[-1]
    for theta in (Decimal("0.5"), Decimal("0.7")):
        for length in (Decimal(x) for x in ("10", "7.3", "20.1", "33", "0.2", "91.17")):
            for start in (Decimal(x) for x in ("0", "12.34", "57.5")):
                inner = theta * length
                for kind in ("head", "tail", "contain"):
                    if kind == "head":
                        p = [start, start + inner]
                    elif kind == "tail":
                        p = [start + length - inner, start + length]
                    else:
                        outer = length / theta
                        if outer != outer.quantize(Decimal("0.01")):
                            continue
                        p = [start - (outer - length) / 2, start + length + (outer - length) / 2]
                        if p[0] != p[0].quantize(Decimal("0.01")) or p[0] < 0:
                            continue
                    pos = rng.randint(0, 12)
                    preds = [*_filler(rng, index, pos), [None, _num(p[0]), _num(p[1])], *_filler(rng, index, 3)]
                    add([_num(start), _num(start + length)], preds, kind=rng.choice(["v", "vt"]))
    for truth, pred in DISAGREE:
        add(list(truth), [[None, *pred]], kind="v")
        add(list(truth), [[other, *truth], [None, *pred]], kind="vt")  # perfect moment, wrong video first
    # zero-length windows: the official IoU of [5, 5] with [5, 5] is 0 (empty hull)
    add([5, 5], [[None, 5, 5], [None, 4, 6]], kind="v")
    add([0, 10], [[None, 5, 5], [None, 10, 10], [None, 0, 10]], kind="v")
    # reversed windows: IoU 0 whatever they cover
    add([0, 10], [[None, 10, 0], [None, 8, 2], [None, 0, 6]], kind="vt")
    # ties: the same prediction repeated; the wrong video with a perfect moment
    add([20, 30], [[other, 20, 30]] * 3 + [[None, 20, 30]] * 3, kind="v")
    # SVMR lists mixing videos: the first k of the ground-truth video's predictions count
    add([20, 30], [[None, 0, 5]], svmr=[[other, 20, 30]] * 8 + [[None, 0, 4]] * 4 + [[None, 21, 30]], kind="vt")
    # more than 100 predictions: the only hit at position 101
    add([40, 50], [*_filler(rng, index, 100), [None, 40, 50], *_filler(rng, index, 19)], kind="v")
    add([40, 50], [*_filler(rng, index, 99), [None, 40, 50], *_filler(rng, index, 20)], kind="v")
    # DiDeMo-style: 4 or 5 annotators; reached by 1, 2 or 3 of them at 0.5 and 0.7
    add([[0, 10], [0, 10], [30, 40], [50, 60]], [[None, 0, 10]], kind="v")          # 2 annotators: hit
    add([[0, 10], [30, 40], [50, 60], [70, 80]], [[None, 0, 10]], kind="vt")        # 1 annotator: miss
    add([[0, 10], [0, 14], [0, 20], [50, 60]], [[None, 0, 10]], kind="v")           # IoU 1, 0.714, 0.5
    add([[0, 10], [0, 15], [0, 20], [0, 25], [90, 95]], [[None, 0, 14]], kind="vt")  # 0.714 0.933 0.7 0.56
    add([[0, 10], [0, 10], [0, 10], [0, 10]], [[other, 0, 10], [None, 0, 7]], kind="v")  # wrong video; 0.7 x4
    return gt, {"video2idx": video2idx, **tasks}


def random_case(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    video2idx = _videos(30)
    names = list(video2idx)
    index = list(video2idx.values())
    gt: list[dict[str, Any]] = []
    tasks: dict[str, list[dict[str, Any]]] = {"VCMR": [], "SVMR": [], "VR": []}
    for n in range(200):
        qid = 9000 + n
        vid = rng.choice(names)
        s = round(rng.uniform(0, 80), 2)
        e = round(s + rng.choice([rng.uniform(0.5, 5), rng.uniform(5, 30)]), 2)
        gt.append({"vid_name": vid, "duration": 120, "ts": [s, e], "desc": f"q{qid}",
                   "type": rng.choices(["v", "t", "vt"], [6, 1, 2])[0], "desc_id": qid})

        def near(s: float = s, e: float = e) -> list[float]:
            a = round(max(0.0, s + rng.gauss(0, 2)), 2)
            return [a, round(max(a, e + rng.gauss(0, 2)), 2)]

        count = rng.choice([1, 3, 10, 30, 100, 130])
        rows = []
        for i in range(count):
            v = video2idx[vid] if rng.random() < 0.15 else rng.choice(index)
            rows.append([v, *near(), round(1 - i / 200, 3)])
        tasks["VCMR"].append({"desc_id": qid, "predictions": rows})
        srows = [[video2idx[vid] if rng.random() < 0.9 else rng.choice(index), *near(), 1.0]
                 for _ in range(rng.choice([1, 5, 20]))]
        tasks["SVMR"].append({"desc_id": qid, "predictions": srows})
        vr = [[rng.choice(index), 0, 0, 1.0] for _ in range(rng.choice([1, 10, 100]))]
        tasks["VR"].append({"desc_id": qid, "predictions": vr})
    rng.shuffle(tasks["VCMR"])  # the official matches queries by desc_id, not position
    return gt, {"video2idx": video2idx, **tasks}


def main(out: str) -> None:
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    for name, make in (("boundary", boundary_case), ("random", random_case)):
        gt, submission = make(random.Random(16))
        (path / f"{name}.gt.jsonl").write_text("".join(json.dumps(row) + "\n" for row in gt))
        (path / f"{name}.submission.json").write_text(json.dumps(submission) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
