"""Generate DiDeMo, Ego4D NLQ and recall boundary cases for the moment protocols' differential tests.

Usage: python scripts/mr_cases.py OUT_DIR

Writes into OUT_DIR:

* ``didemo.gt.json``, ``didemo.pred.json`` (the official list form) and ``didemo.pred.jsonl`` (the keyed
  form, shuffled): hand-made items first (3 of 4 annotators on the first moment, only 2 of 4, the +1
  inclusive IoU, mean rank exactly 5 and just above, 2 and 7 annotators, adjacent disjoint moments), then
  random items with full rankings of the 21 candidates;
* ``ego4d.gt.json``, ``ego4d.pred.json``: hand-made queries first (IoU exactly 0.3 and 0.5, a hit at rank 5
  and at rank 6, a zero-length truth met by a zero-length prediction at rank 2, a truth that ends before it
  starts), then random queries over 3 videos; ``ego4d-nan.*``: a zero-length first prediction on a
  zero-length truth (the official mIoU is NaN); ``ego4d-missing.pred.json``: ``ego4d.pred.json`` without
  every third result;
* ``recall.gt.jsonl``, ``recall.pred.jsonl``: QVHighlights-style lines, one truth window per query on a
  0.5 s grid (so IoU often sits exactly on 0.3, 0.5 or 0.7), 12 predictions with positive lengths listed
  in descending score order (ties kept in list order); ``charades.gt.txt``, ``charades.pred.jsonl``: the same
  case as Charades-STA lines (``VIDEO START END##SENTENCE``) and Moment-DETR-style predictions (``vid``,
  ``query``; qids offset by 100, as converters number them otherwise), shuffled.

The official scripts are run on these inputs and their outputs stored in tests/fixtures/mr (see its
README); tests/unit/analyses/test_moment_protocols.py compares segeval with them.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

CANDIDATES = [[s, e] for s in range(6) for e in range(s, 6)]


def _ranking(rng: random.Random, first: list[list[int]]) -> list[list[int]]:
    """A full ranking of the 21 candidates that starts with ``first`` (in that order)."""
    rest = [c for c in CANDIDATES if c not in first]
    rng.shuffle(rest)
    return first + rest


def didemo(rng: random.Random) -> tuple[list[dict[str, Any]], list[list[list[int]]]]:
    hand: list[tuple[list[list[int]], list[list[int]]]] = [
        ([[1, 1]] * 4, [[1, 1]]),                                    # all agree, first: rank 1, IoU 1
        ([[2, 3], [2, 3], [0, 0], [4, 5]], [[2, 3], [0, 0]]),        # 2 of 4 on the first: mean (1+1+2)/3
        ([[2, 3], [2, 3], [2, 3], [5, 5]], [[2, 3]]),                # 3 of 4: mean rank 1
        ([[0, 0]] * 4, [[0, 1], [0, 0]]),                            # +1 convention: [0,1] vs [0,0] is 1/2
        ([[1, 2], [3, 3], [4, 4], [0, 5]], [[0, 0], [0, 1], [0, 2], [1, 2], [3, 3], [4, 4]]),  # ranks 4,5,6
        ([[1, 2], [3, 3], [4, 4], [0, 5]], [[0, 0], [0, 1], [0, 2], [1, 2], [3, 3], [1, 1], [4, 4]]),  # 4,5,7
        ([[1, 2], [3, 3]], [[3, 3], [5, 5], [1, 2]]),                # 2 annotators: mean of both
        ([[0, 1], [0, 1], [1, 1], [2, 2], [0, 2], [0, 1], [5, 5]], [[0, 2], [0, 1]]),  # 7 annotators
        ([[2, 3]] * 4, [[0, 1]]),                                    # adjacent, disjoint: IoU 0
        ([[3, 5], [2, 4], [3, 4], [1, 3]], [[2, 5]]),                # partial overlaps
    ]
    truth: list[dict[str, Any]] = []
    rankings: list[list[list[int]]] = []
    for n, (times, first) in enumerate(hand):
        truth.append({"times": times, "annotation_id": 1000 + n, "video": f"hand{n}", "num_segments": 6})
        rankings.append(_ranking(rng, first))
    for n in range(60):
        segments = rng.choice([5, 6])
        pool = [c for c in CANDIDATES if c[1] < segments]
        annotators = 7 if rng.random() < 0.05 else 4
        base = rng.choice(pool)
        times = [base if rng.random() < 0.5 else rng.choice(pool) for _ in range(annotators)]
        first = rng.sample(times, rng.randint(0, 2)) if rng.random() < 0.6 else []
        first = [list(m) for m in dict.fromkeys(tuple(m) for m in first)]
        truth.append({"times": times, "annotation_id": 2000 + 3 * n, "video": f"v{n}", "num_segments": segments})
        rankings.append(_ranking(rng, first))
    return truth, rankings


def _round(x: float) -> float:
    return round(x, 3)


def ego4d(rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    hand: list[tuple[list[float], list[list[float]]]] = [
        ([0, 10], [[0, 5], [20, 30]]),                               # IoU 0.5 exactly: misses 0.5 (strict)
        ([0, 10], [[0, 3], [0, 3.5]]),                               # IoU 0.3 exactly at rank 1: misses 0.3
        ([0, 10], [[20, 21], [22, 23], [24, 25], [26, 27], [0, 9], [1, 2]]),   # hit at rank 5
        ([0, 10], [[20, 21], [22, 23], [24, 25], [26, 27], [28, 29], [0, 9]]),  # hit at rank 6 only
        ([7, 7], [[6, 8], [7, 7], [7, 7.5]]),                        # zero-length truth; 0/0 at rank 2
        ([5, 4], [[4, 5], [3, 6]]),                                  # truth ends before it starts
        ([100.25, 130.75], [[100.25, 130.75]]),                      # exact: IoU 1
    ]
    queries: list[tuple[list[float], list[list[float]]]] = list(hand)
    for _ in range(45):
        start = _round(rng.uniform(0, 400))
        end = _round(start + rng.choice([0.0, rng.uniform(0.5, 5), rng.uniform(5, 40)]))
        preds = []
        for _ in range(rng.randint(1, 8)):
            if rng.random() < 0.4:
                s = _round(start + rng.uniform(-5, 5))
                preds.append([s, _round(s + max(0.0, end - start + rng.uniform(-5, 5)))])
            else:
                s = _round(rng.uniform(0, 450))
                preds.append([s, _round(s + rng.uniform(0, 30))])
        queries.append(([start, end], preds))
    videos: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    n = 0
    for v in range(3):
        clips = []
        for c in range(2):
            annotations = []
            for a in range(2):
                take = queries[n:n + (4 if n < len(hand) else rng.randint(3, 6))]
                n += len(take)
                uid = (f"clip-{v}-{c}", f"ann-{v}-{c}-{a}")
                lqs = [{"clip_start_sec": w[0], "clip_end_sec": w[1], "query": f"q{n}-{i}", "template": "t"}
                       for i, (w, _) in enumerate(take)]
                annotations.append({"annotation_uid": uid[1], "language_queries": lqs})
                for i, (_, p) in enumerate(take):
                    results.append({"clip_uid": uid[0], "annotation_uid": uid[1], "query_idx": i,
                                    "predicted_times": p})
            clips.append({"clip_uid": f"clip-{v}-{c}", "annotations": annotations})
        videos.append({"video_uid": f"video-{v}", "clips": clips})
    rng.shuffle(results)
    return {"version": "1", "videos": videos}, results


def recall(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    truth: list[dict[str, Any]] = []
    preds: list[dict[str, Any]] = []
    for q in range(50):
        start = rng.randint(0, 40) / 2
        length = rng.randint(2, 30) / 2
        truth.append({"qid": q, "vid": f"v{q % 7}", "duration": 60, "relevant_windows": [[start, start + length]]})
        windows = []
        for _ in range(12):
            if rng.random() < 0.5:
                s = start + rng.randint(-6, 6) / 2
                e = s + max(0.5, length + rng.randint(-6, 6) / 2)
            else:
                s = rng.randint(0, 100) / 2
                e = s + rng.randint(1, 30) / 2
            score = rng.choice([0.9, 0.5, 0.5, round(rng.random(), 4)])
            windows.append([s, e, score])
        windows.sort(key=lambda w: -w[2])  # stable: ties keep their order
        preds.append({"qid": q, "pred_relevant_windows": windows})
    return truth, preds


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(16)
    truth, rankings = didemo(rng)
    (out / "didemo.gt.json").write_text(json.dumps(truth) + "\n")
    (out / "didemo.pred.json").write_text(json.dumps(rankings) + "\n")
    keyed = [{"annotation_id": t["annotation_id"], "ranking": r} for t, r in zip(truth, rankings, strict=True)]
    rng.shuffle(keyed)
    (out / "didemo.pred.jsonl").write_text("".join(json.dumps(k) + "\n" for k in keyed))
    gt, results = ego4d(rng)
    submission = {"version": "1.0", "challenge": "ego4d_nlq_challenge", "results": results}
    (out / "ego4d.gt.json").write_text(json.dumps(gt) + "\n")
    (out / "ego4d.pred.json").write_text(json.dumps(submission) + "\n")
    (out / "ego4d-missing.pred.json").write_text(json.dumps({**submission, "results": results[::3]}) + "\n")
    nan_gt = {"version": "1", "videos": [{"video_uid": "v", "clips": [{"clip_uid": "c", "annotations": [
        {"annotation_uid": "a", "language_queries": [
            {"clip_start_sec": 7, "clip_end_sec": 7, "query": "zero", "template": "t"},
            {"clip_start_sec": 0, "clip_end_sec": 10, "query": "ten", "template": "t"}]}]}]}]}
    nan_pred = {"version": "1.0", "challenge": "ego4d_nlq_challenge", "results": [
        {"clip_uid": "c", "annotation_uid": "a", "query_idx": 0, "predicted_times": [[7, 7], [6, 8]]},
        {"clip_uid": "c", "annotation_uid": "a", "query_idx": 1, "predicted_times": [[0, 5]]}]}
    (out / "ego4d-nan.gt.json").write_text(json.dumps(nan_gt) + "\n")
    (out / "ego4d-nan.pred.json").write_text(json.dumps(nan_pred) + "\n")
    rtruth, rpreds = recall(rng)
    (out / "recall.gt.jsonl").write_text("".join(json.dumps(t) + "\n" for t in rtruth))
    (out / "recall.pred.jsonl").write_text("".join(json.dumps(p) + "\n" for p in rpreds))
    # the same case in Charades-STA's own text, predictions Moment-DETR-style (vid, query), shuffled
    sentence = [f"person does thing {q}." for q in range(len(rtruth))]
    windows = [t["relevant_windows"][0] for t in rtruth]
    (out / "charades.gt.txt").write_text("".join(f"{t['vid']} {w[0]} {w[1]}##{s}\n"
                                                 for t, w, s in zip(rtruth, windows, sentence, strict=True)))
    keyed = [{**p, "qid": 100 + p["qid"], "vid": t["vid"], "query": sentence[p["qid"]]}
             for t, p in zip(rtruth, rpreds, strict=True)]
    rng.shuffle(keyed)
    (out / "charades.pred.jsonl").write_text("".join(json.dumps(k) + "\n" for k in keyed))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
