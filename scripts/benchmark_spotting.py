"""``segeval spot`` against the official SoccerNet evaluator on a season-scale case, side by side.

Usage: python scripts/benchmark_spotting.py --official /tmp/sn [--games 100] [--predictions 1500] [--repeats 3]

where /tmp/sn holds PyPI SoccerNet 0.2.0 (``pip install --no-deps --target /tmp/sn SoccerNet==0.2.0 tqdm``).
Generates ``--games`` games in SoccerNet's layout (about 220 events per game over the 17 classes, as in
SoccerNet-v2, 20 % "not shown"; ``--predictions`` per game, two thirds near an event, the rest anywhere,
confidences with 6 decimals), then runs, each as a fresh process, alternating within each round:

    segeval   python -m segeval spot LABELS PREDICTIONS -o json            (loose and tight)
    official  evaluate(LABELS, PREDICTIONS, ..., metric=loose), then tight (dataset=None, as in
              ../shared/data/soccernet/run_official.py)

and prints the median wall and CPU time of each and their CPU-time ratio (the wall time depends on
what else the machine runs), after checking that every figure (a_mAP,
visible, unshown and the 17 per-class values of each, for both metrics: 108) is equal.  ``--write``
replaces the section between ``<!-- spotting benchmark -->`` and ``<!-- /spotting benchmark -->`` in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from soccernet_cases import CLASSES, event, prediction, write_case  # noqa: E402

#: events per game and class, roughly SoccerNet-v2's frequencies (about 220 per game)
PER_GAME = {"Ball out of play": 50, "Throw-in": 38, "Foul": 24, "Indirect free-kick": 20, "Clearance": 15,
            "Shots on target": 8, "Shots off target": 10, "Corner": 9, "Kick-off": 5, "Substitution": 7,
            "Offside": 4, "Direct free-kick": 5, "Yellow card": 4, "Goal": 3, "Penalty": 1, "Red card": 1,
            "Yellow->red card": 1}

OFFICIAL = """
import io, json, sys
from contextlib import redirect_stderr
from SoccerNet.Evaluation.ActionSpotting import evaluate
from SoccerNet.Evaluation.utils import EVENT_DICTIONARY_V2
def plain(x):
    x = x.tolist() if hasattr(x, "tolist") else x
    return [plain(v) for v in x] if isinstance(x, (list, tuple)) else float(x)
out = {}
for metric in ("loose", "tight"):
    with redirect_stderr(io.StringIO()):
        r = evaluate(sys.argv[1], sys.argv[2], prediction_file="results_spotting.json", split=None, version=2,
                     framerate=2, metric=metric, label_files="Labels-v2.json", dataset=None,
                     EVENT_DICTIONARY=EVENT_DICTIONARY_V2)
    out[metric] = {k: plain(v) for k, v in r.items()}
json.dump(out, open(sys.argv[3], "w"))
"""


def season(n_games: int, n_predictions: int, seed: int = 2526) -> dict[str, Any]:
    rng = random.Random(seed)
    games: dict[str, Any] = {}
    for g in range(n_games):
        ev: list[dict[str, Any]] = []
        pr: list[dict[str, Any]] = []
        lengths = {1: rng.randint(46 * 60, 49 * 60) * 1000, 2: rng.randint(47 * 60, 52 * 60) * 1000}
        for label, n in PER_GAME.items():
            for _ in range(max(0, n + rng.randint(-n // 3, n // 3))):
                half = rng.choice((1, 2))
                ev.append(event(half, rng.randrange(lengths[half]), label, visible=rng.random() > 0.2))
        near = 2 * n_predictions // 3
        for _ in range(near):
            e = rng.choice(ev)
            half = int(e["gameTime"][0])
            ms = max(0, int(e["position"]) + rng.randint(-30_000, 30_000))
            label = e["label"] if rng.random() < 0.8 else rng.choice(CLASSES)
            pr.append(prediction(half, ms, label, round(rng.random(), 6)))
        for _ in range(n_predictions - near):
            half = rng.choice((1, 2))
            pr.append(prediction(half, rng.randrange(lengths[half]), rng.choice(CLASSES), round(rng.random(), 6)))
        games[f"league_{g % 4}/2031-2032/game {g:03d}"] = {
            "labels": {"UrlLocal": "", "annotations": ev}, "predictions": {"UrlLocal": "", "predictions": pr}}
    return {"games": games}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[tuple[float, float], subprocess.CompletedProcess[str]]:
    """((wall seconds, CPU seconds of the child), its outcome)."""
    start, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    elapsed, used = time.perf_counter() - start, _cpu() - cpu
    if done.returncode:
        sys.exit(f"{cmd[:4]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return (elapsed, used), done


KEYS = ["a_mAP", "a_mAP_visible", "a_mAP_unshown"]


def compare(ours: dict[str, Any], official: dict[str, Any]) -> tuple[int, float]:
    """(figures compared, largest absolute difference)."""
    n, worst = 0, 0.0
    for metric in ("loose", "tight"):
        for key in KEYS:
            per = key.replace("a_mAP", "a_mAP_per_class")
            pairs = [(ours[metric][key], official[metric][key]),
                     *zip(ours[metric][per], official[metric][per], strict=True)]
            for a, b in pairs:
                n += 1
                worst = max(worst, abs(a - b))
    return n, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--official", required=True, help="folder holding the SoccerNet package (PYTHONPATH)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--predictions", type=int, default=1500, help="predictions per game")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    case = season(args.games, args.predictions)
    n_events = sum(len(g["labels"]["annotations"]) for g in case["games"].values())
    n_preds = sum(len(g["predictions"]["predictions"]) for g in case["games"].values())
    ours_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    official_env = {**os.environ, "PYTHONPATH": args.official}
    times: dict[str, list[tuple[float, float]]] = {"segeval": [], "official": []}
    with tempfile.TemporaryDirectory() as tmp:
        labels, predictions = write_case(case, Path(tmp))
        result = Path(tmp) / "official.json"
        ours: dict[str, Any] = {}
        for _ in range(args.repeats):
            t, done = _timed([sys.executable, "-m", "segeval", "spot", str(labels), str(predictions), "-o", "json"],
                             ours_env)
            times["segeval"].append(t)
            ours = json.loads(done.stdout)
            t, _ = _timed([sys.executable, "-c", OFFICIAL, str(labels), str(predictions), str(result)], official_env)
            times["official"].append(t)
        official = json.loads(result.read_text())
    n, worst = compare(ours, official)
    seg, off = (statistics.median(w for w, _ in times["segeval"]), statistics.median(w for w, _ in times["official"]))
    seg_cpu, off_cpu = (statistics.median(c for _, c in times["segeval"]),
                        statistics.median(c for _, c in times["official"]))
    table = "\n".join([
        f"{args.games} games, {n_events:,} events, {n_preds:,} predictions; loose and tight in one run each; "
        f"median of {args.repeats} (seconds, whole process: wall, and CPU user + system); Python "
        f"{platform.python_version()}, {os.cpu_count()} cores shared with other jobs (load {os.getloadavg()[0]:.0f}).",
        "",
        "| tool | wall s | CPU s | CPU ratio |",
        "|---|---:|---:|---:|",
        f"| `segeval spot` | {seg:.1f} | {seg_cpu:.1f} | 1.0× |",
        f"| official `evaluate` (SoccerNet 0.2.0), loose then tight | {off:.1f} | {off_cpu:.1f} | "
        f"{off_cpu / seg_cpu:.1f}× |",
        "",
        f"Figures compared: {n} (a_mAP, visible, unshown and their 17 per-class values, loose and tight); "
        f"largest difference {worst!r}.",
    ])
    print(table)
    if args.write:
        doc = ROOT / "docs" / "benchmarks.md"
        text = doc.read_text()
        start, end = "<!-- spotting benchmark -->", "<!-- /spotting benchmark -->"
        block = f"{start}\n{table}\n{end}"
        if start in text:
            text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        doc.write_text(text)


if __name__ == "__main__":
    main()
