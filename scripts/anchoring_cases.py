#!/usr/bin/env python3
"""Generate anchoring qrels and runs (seeded) and, optionally, the reference script's output on them.

    python scripts/anchoring_cases.py --out tests/fixtures/anchoring --seeds 1,2,3,4,5 \\
        --reference /tmp/sh_eval/sh_eval/sh_eval_anchoring.py --python ~/.pyenv/versions/2.7.18/bin/python

writes ``anchoring_seedN.qrels``, ``anchoring_seedN.run`` and, with ``--reference``, the script's
standard output as ``anchoring_seedN.out``.  The hyperlinking toolkit's ``sh_eval_anchoring.py``
(github.com/robinaly/sh_eval) stops before evaluating as published (it passes its options where a
task name is expected): run a copy patched to call ``loadVideoFiles(opt.task)``; it is never copied here.

The data hold the boundary cases on purpose: anchors that overlap each other and start at 0;
zero-length, reversed and ``(s, 0)`` results; results that touch an anchor, cover several, repeat
one (equal scores and ranks), or meet no judged anchor; a query with more than 1000 results (seed
3); qrels queries with only non-relevant anchors and with no result.  Every run query has a relevant
anchor, since the script divides by zero otherwise.
"""

from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path


def mmss(seconds: int) -> str:
    return f"{seconds // 60}.{seconds % 60:02d}"


def _anchors(rng: random.Random, duration: int, relevant: bool) -> list[tuple[int, int, int]]:
    out = []
    for i in range(rng.randint(1, 6)):
        start = 0 if i == 0 and rng.random() < 0.4 else rng.randint(0, duration - 30)
        length = 0 if rng.random() < 0.1 else rng.randint(1, 30)
        rel = rng.choice((1, 1, 2, 0, 0, -1)) if relevant else rng.choice((0, -1))
        out.append((start, start + length, rel))
    if relevant and not any(r > 0 for _, _, r in out):
        s, e, _ = out[0]
        out[0] = (s, e, 1)
    if relevant and rng.random() < 0.6:  # an anchor overlapping another
        s, e, _ = out[-1]
        out.append((s + (e - s) // 2, e + rng.randint(1, 10), rng.choice((0, 1))))
    return out


def _result(rng: random.Random, anchors: list[tuple[int, int, int]], duration: int) -> tuple[int, int]:
    s, e, _ = rng.choice(anchors)
    kind = rng.randrange(11)
    if kind == 0:
        return s, e  # the anchor itself
    if kind == 1:
        return max(0, s - rng.randint(1, 10)), s  # ends where the anchor starts
    if kind == 2:
        return e, e + rng.randint(0, 10)  # starts where the anchor ends
    if kind == 3:
        lo = min(a for a, _, _ in anchors)
        return lo, max(b for _, b, _ in anchors)  # covers several anchors
    if kind == 4:
        point = rng.randint(s, max(s, e))
        return point, point  # zero length
    if kind == 5:
        return (0, 0) if rng.random() < 0.5 else (rng.randint(1, duration), 0)  # the point-at-start case
    if kind == 6:
        return e + rng.randint(1, 5), max(0, s - rng.randint(0, 5))  # reversed
    if kind == 7:
        return max(0, s + rng.randint(-5, 5)), max(0, e + rng.randint(-5, 5))
    start = rng.randint(0, duration)
    return start, start + rng.randint(1, 40)  # anywhere: often unjudged


def generate(seed: int) -> tuple[str, str]:
    """The qrels and run text of one seed."""
    rng = random.Random(seed)
    queries = [f"v{seed}{i:02d}_{rng.randint(1000, 9999)}" for i in range(rng.randint(4, 7))]
    kinds = ["ret"] * (len(queries) - 2) + ["norel", "noret"]
    rng.shuffle(kinds)
    qrels_lines, run_lines = [], []
    ranked = []
    for q, kind in zip(queries, kinds, strict=True):
        duration = rng.randint(60, 400)
        anchors = _anchors(rng, duration, relevant=kind != "norel")
        qrels_lines += [f"{q} {mmss(s)} {mmss(e)} {r}" for s, e, r in anchors]
        if kind == "ret":
            ranked.append((q, anchors, duration))
    rng.shuffle(qrels_lines)
    if rng.random() < 0.5:
        qrels_lines.sort(key=lambda line: line.split()[0])
    rng.shuffle(ranked)
    for i, (q, anchors, duration) in enumerate(ranked):
        n = 1005 if seed == 3 and i == 0 else rng.choice((1, 3, 8, 12, 25))
        spans = [_result(rng, anchors, duration) for _ in range(n)]
        if n > 2 and rng.random() < 0.7:
            spans.insert(rng.randrange(len(spans)), spans[0])  # a repeated result
        score = 100.0
        for rank, (s, e) in enumerate(spans, start=1):
            score = score if rng.random() < 0.3 else score - rng.choice((0.5, 1.25, 3.0))  # ties
            shown_rank = rank - 1 if rank > 1 and rng.random() < 0.1 else rank  # a repeated rank
            run_lines.append(f"{q} Q0 {mmss(s)} {mmss(e)} {shown_rank} {score:.2f} gen{seed}")
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--prefix", default="anchoring_seed")
    parser.add_argument("--reference", type=Path, help="a patched copy of sh_eval_anchoring.py")
    parser.add_argument("--python", default="python2", help="the Python 2.7 that runs the reference")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in (int(x) for x in args.seeds.split(",")):
        qrels, run = generate(seed)
        stem = args.out / f"{args.prefix}{seed}"
        qrels_path, run_path = stem.with_suffix(".qrels"), stem.with_suffix(".run")
        qrels_path.write_text(qrels)
        run_path.write_text(run)
        if args.reference is not None:
            done = subprocess.run([args.python, str(args.reference), qrels_path.name, run_path.name],
                                  cwd=args.out, capture_output=True, check=True)
            stem.with_suffix(".out").write_bytes(done.stdout)


if __name__ == "__main__":
    main()
