"""Generate QVHighlights boundary cases (ground truth + predictions JSON Lines) for the differential test.

Usage: python scripts/qvh_cases.py OUT_DIR

Writes OUT_DIR/<case>.gt.jsonl and OUT_DIR/<case>.pred.jsonl for each case:

* ``thresholds``: one window per query whose IoU with the truth is a threshold 0.50 .. 0.95 exactly in
  decimal (e.g. [0, 70.3] against [0, 74]), nested, shifted and containing, with negative starts too;
* ``random``: several truth windows on a 0.1 s grid (negative starts, zero-length windows, IoU ties
  between truth windows), up to 12 predictions with tied scores, saliency with ties, prediction lists
  shorter and longer than the clip count, all-negative and all-positive clip labels;
* ``reversed``: the ``random`` case with windows whose end < start, predicted and in the ground truth (some
  of opposite length to a window they meet: the official mAP's IoU is then 0/0).

The official evaluator (moment_detr standalone_eval/eval.py) is run on each pair and its output
stored as tests/fixtures/qvh/<case>.official.json; tests/unit/analyses/test_moments.py compares segeval with it.
The cases avoid what the official script cannot evaluate (a query without windows, an empty bucket).
"""

from __future__ import annotations

import json
import random
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

THRESHOLDS = [Decimal(50 + 5 * i) / 100 for i in range(10)]
LENGTHS = [Decimal(x) for x in ("74", "7", "20", "3.3", "12.6", "40", "100", "140", "9.8", "28.4")]
STARTS = [Decimal(x) for x in ("0", "2.7", "31.3", "-4.2")]


def _num(d: Decimal) -> float | int:
    return int(d) if d == d.to_integral_value() else float(d)


def _saliency(rng: random.Random, duration: float) -> dict[str, Any]:
    clips = int(duration / 2)
    kind = rng.random()
    if kind < 0.1:  # every clip relevant, all annotators high: all labels positive
        ids = list(range(clips))
        scores = [[4, 4, 4] for _ in ids]
    elif kind < 0.2:  # low scores only: no positive label at min 2
        ids = sorted(rng.sample(range(clips), max(1, clips // 3)))
        scores = [[rng.choice([0, 1]) for _ in range(3)] for _ in ids]
    else:
        ids = sorted(rng.sample(range(clips), rng.randint(1, clips)))
        scores = [[rng.randint(0, 4) for _ in range(3)] for _ in ids]
    return {"duration": duration, "relevant_clip_ids": ids, "saliency_scores": scores}


def _pred_saliency(rng: random.Random, clips: int) -> list[float]:
    n = rng.choice([clips, clips, clips - 1, clips + 3, max(1, clips // 2)])
    n = max(1, n)
    kind = rng.random()
    if kind < 0.1:
        return [0.5] * n  # all tied
    if kind < 0.5:
        return [rng.choice([0.0, 0.1, 0.2, 0.5, 1.0]) for _ in range(n)]  # many ties
    return [round(rng.uniform(-1, 1), 4) for _ in range(n)]


def thresholds_case(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    gt, preds = [], []
    qid = 0
    for t in THRESHOLDS:
        for length in LENGTHS:
            for start in STARTS:
                inner = (t * length).normalize()
                for kind in ("head", "tail", "contain"):
                    if kind == "head":
                        p = [start, start + inner]
                    elif kind == "tail":
                        p = [start + length - inner, start + length]
                    else:  # prediction contains the truth: length / t must be a short decimal
                        outer = length / t
                        if outer != outer.quantize(Decimal("0.0001")):
                            continue
                        p = [start - (outer - length), start + length]
                    qid += 1
                    duration = 20
                    g = {"qid": qid, "vid": f"v{qid}", "relevant_windows": [[_num(start), _num(start + length)]]}
                    g.update(_saliency(rng, duration))
                    gt.append(g)
                    windows = [[_num(p[0]), _num(p[1]), 0.9]]
                    if rng.random() < 0.5:  # a second, tied prediction that is a miss
                        windows.append([_num(start + length + 50), _num(start + length + 60), 0.9])
                    preds.append({"qid": qid, "pred_relevant_windows": windows,
                                  "pred_saliency_scores": _pred_saliency(rng, duration // 2)})
    return gt, preds


def _window(rng: random.Random) -> list[float]:
    start = round(rng.uniform(-10, 140), 1)
    length = round(rng.choice([rng.uniform(0, 10), rng.uniform(10, 30), rng.uniform(30, 150)]), 1)
    if rng.random() < 0.03:
        length = 0.0
    if rng.random() < 0.1:
        length = float(rng.choice([10, 30, 150]))  # on a bucket edge
    return [start, round(start + length, 1)]


def random_case(rng: random.Random, queries: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    gt, preds = [], []
    for qid in range(1, queries + 1):
        truth = [_window(rng) for _ in range(rng.choice([1, 1, 2, 3, 4]))]
        if rng.random() < 0.15 and truth:  # two truth windows equally far from a predicted one
            s, e = truth[0]
            truth.append([round(s + 2 * (e - s), 1) if e > s else s, round(e + 2 * (e - s), 1)])
        windows: list[list[float]] = []
        for _ in range(rng.randint(1, 12)):
            r = rng.random()
            if r < 0.4 and truth:  # near a truth window
                s, e = rng.choice(truth)
                d = round(rng.uniform(-3, 3), 1)
                w = [round(s + d, 1), round(max(s + d, e + round(rng.uniform(-3, 3), 1)), 1)]
            elif r < 0.5 and len(truth) > 1:  # between two truth windows
                w = [truth[0][0], truth[1][1]] if truth[1][1] >= truth[0][0] else [truth[1][0], truth[0][1]]
            else:
                w = _window(rng)
            score = rng.choice([0.9, 0.5, 0.5, round(rng.random(), 3)])
            windows.append([w[0], w[1], score])
        if rng.random() < 0.1 and truth:  # duplicate of the first prediction
            windows.insert(1, list(windows[0]))
        duration = rng.choice([150, 20, 30, 31, 29.5, 4, 2])
        g = {"qid": qid, "vid": f"v{qid}", "relevant_windows": truth}
        g.update(_saliency(rng, duration))
        gt.append(g)
        preds.append({"qid": qid, "pred_relevant_windows": windows,
                      "pred_saliency_scores": _pred_saliency(rng, int(duration / 2))})
    rng.shuffle(preds)  # the official averages in the submission's order
    return gt, preds


def reversed_case(rng: random.Random, queries: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    gt, preds = random_case(rng, queries)
    for g in gt:
        if rng.random() < 0.15:  # a reversed truth window besides the others (every query keeps a normal one)
            s, e = g["relevant_windows"][0]
            g["relevant_windows"].append([e + 5, s + 5] if e > s else [s + 3, s])
    for p in preds:
        for w in p["pred_relevant_windows"]:
            r = rng.random()
            if r < 0.1:
                w[0], w[1] = w[1], w[0]  # reversed as given
            elif r < 0.15:  # of opposite length to the query's first truth window, from its end
                truth = next(g for g in gt if g["qid"] == p["qid"])["relevant_windows"][0]
                w[0], w[1] = truth[1], round(truth[1] - (truth[1] - truth[0]), 1)
    return gt, preds


def write(out: Path, name: str, gt: list[dict[str, Any]], preds: list[dict[str, Any]]) -> None:
    (out / f"{name}.gt.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gt))
    (out / f"{name}.pred.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    write(out, "thresholds", *thresholds_case(random.Random(13)))
    write(out, "random", *random_case(random.Random(2), 200))
    write(out, "reversed", *reversed_case(random.Random(5), 200))


if __name__ == "__main__":
    main()
