#!/usr/bin/env python3
"""segeval detect / proposals against ActivityNet's eval_detection.py / eval_proposal.py, side by side.

Generates ActivityNet-validation-scale files (``--videos`` 4,700 videos, ``--classes`` 200, 1-3 instances
per video, ``--per-video`` 100 detections and 100 proposals per video: 470,000 each at full scale; distinct
scores), then runs each tool in a fresh process and reports its CPU time (user + system of the process and
its children, from ``os.wait4``: the machine is shared, so wall time says little) and wall time.  The
official code runs under Python 2.7 (``--python27``, ``--site27`` with numpy 1.16.6, pandas 0.24.2, joblib
0.14.1; ``--anet`` = the Evaluation/ folder) with its per-class ``Parallel(n_jobs=number of classes)`` run
as ``n_jobs=1``: the same function on the same data, without 200 worker processes (which would only add
CPU time).  Both results are compared (average mAP, AUC)::

    python scripts/benchmark_detection.py --anet ActivityNet/Evaluation --python27 python2.7 --site27 site27
    python scripts/benchmark_detection.py ... --scale 0.1      # a tenth of the videos
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_OFFICIAL = r'''
import json, sys
import numpy as np
import eval_detection, eval_proposal
from joblib import Parallel
one = lambda n_jobs=None: Parallel(n_jobs=1)
eval_detection.Parallel = one
eval_proposal.Parallel = one
kind, gt, pred = sys.argv[1:4]
if kind == "detect":
    d = eval_detection.ANETdetection(gt, pred, subset="validation", verbose=False, check_status=False)
    d.evaluate()
    print(json.dumps({"average_mAP": float(d.average_mAP)}))
else:
    p = eval_proposal.ANETproposal(gt, pred, tiou_thresholds=np.linspace(0.5, 0.95, 10), max_avg_nr_proposals=100,
                                   subset="validation", verbose=False, check_status=False)
    p.evaluate()
    print(json.dumps({"auc": float(100. * np.trapz(p.avg_recall, p.proposals_per_video) / p.proposals_per_video[-1])}))
'''


def generate(folder: Path, videos: int, classes: int, per_video: int, seed: int = 25) -> None:
    """gt.json, det.json and prop.json in ``folder``."""
    rng = random.Random(seed)
    names = [f"activity {c:03d}" for c in range(classes)]
    db: dict[str, Any] = {}
    det: dict[str, list[dict[str, Any]]] = {}
    prop: dict[str, list[dict[str, Any]]] = {}
    for v in range(videos):
        vid = f"v_{v:07d}"
        duration = rng.uniform(30, 240)
        label = names[v % classes]  # every class has ground truth once videos >= classes
        anns = []
        for _ in range(rng.randint(1, 3)):
            s = rng.uniform(0, duration * 0.8)
            anns.append({"segment": [round(s, 2), round(min(duration, s + rng.uniform(2, duration / 2)), 2)],
                         "label": label})
        db[vid] = {"subset": "validation", "duration": round(duration, 2), "annotations": anns}
        rows_d, rows_p = [], []
        for _ in range(per_video):
            a = rng.choice(anns)["segment"]
            s = max(0.0, a[0] + rng.gauss(0, 5))
            e = max(s + 0.5, a[1] + rng.gauss(0, 5))
            rows_d.append({"segment": [round(s, 2), round(e, 2)], "score": rng.random(),
                           "label": label if rng.random() < 0.6 else rng.choice(names[:videos])})
            rows_p.append({"segment": [round(s, 2), round(e, 2)], "score": rng.random()})
        det[vid] = rows_d
        prop[vid] = rows_p
    (folder / "gt.json").write_text(json.dumps({"version": "bench", "taxonomy": [], "database": db}))
    for name, results in (("det.json", det), ("prop.json", prop)):
        (folder / name).write_text(json.dumps({"version": "bench", "external_data": {}, "results": results}))


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """CPU seconds (process and children), wall seconds and standard output of ``cmd``."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode()
    if status != 0:
        raise SystemExit(f"{cmd[:3]} failed with status {status}")
    return usage.ru_utime + usage.ru_stime, wall, text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--anet", required=True, help="ActivityNet's Evaluation/ folder")
    ap.add_argument("--python27", required=True)
    ap.add_argument("--site27", required=True)
    ap.add_argument("--videos", type=int, default=4700)
    ap.add_argument("--classes", type=int, default=200)
    ap.add_argument("--per-video", type=int, default=100)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of --videos")
    ap.add_argument("--skip-official", action="store_true")
    ap.add_argument("--tasks", default="detect,proposals", help="detect, proposals or both")
    args = ap.parse_args()
    videos = max(1, round(args.videos * args.scale))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, videos, args.classes, args.per_video)
        runner = folder / "official.py"
        runner.write_text(_OFFICIAL)
        env27 = {**os.environ, "PYTHONPATH": f"{args.anet}:{args.site27}"}
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        print(f"{videos} videos, {args.classes} classes, {videos * args.per_video} predictions", file=sys.stderr)
        print("| task | tool | CPU s | wall s | result |\n|---|---|---:|---:|---|")
        for task, pred in (("detect", "det.json"), ("proposals", "prop.json")):
            if task not in args.tasks.split(","):
                continue
            ours = timed([sys.executable, "-m", "segeval", task, str(folder / "gt.json"), str(folder / pred),
                          "-o", "json"], env)
            rows = json.loads(ours[2])
            key = "Average-mAP" if task == "detect" else "AUC"
            value = next(r["value"] for r in rows if r["figure"] == key)
            print(f"| {task} | segeval | {ours[0]:.1f} | {ours[1]:.1f} | {value!r} |", flush=True)
            if args.skip_official:
                continue
            off = timed([args.python27, "-B", str(runner), task, str(folder / "gt.json"), str(folder / pred)], env27)
            official = json.loads(off[2].strip().splitlines()[-1])
            print(f"| {task} | official (Python 2.7) | {off[0]:.1f} | {off[1]:.1f} | {next(iter(official.values()))!r} "
                  f"|\n| {task} | ratio (CPU) | {off[0] / ours[0]:.1f}× | | |", flush=True)


if __name__ == "__main__":
    main()
