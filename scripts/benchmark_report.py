#!/usr/bin/env python3
"""Benchmark ``segeval report`` against ``segeval compare`` on the same runs (issue 38).

Generates (under ``--out``, default ``/tmp/segeval-report``) a seeded document-level collection of
``--runs`` runs x ``--queries`` queries (30 judged documents per query, grades 0-2, ``--depth``
results per query, half of them judged), then runs, alternating, ``--repeats`` rounds of::

    segeval compare QRELS RUN... -m map -m P_10 -j JOBS --quiet -o json
    segeval report  QRELS RUN... -m map -m P_10 -j JOBS --quiet -o report.html

and prints a Markdown table: median wall and CPU seconds (user + system of the command and its
worker processes, from ``os.wait4``), the largest single process's peak resident memory, the
report's size, and the ratio report / compare.  Exits with status 1 when the report's comparison
cells are not compare's (the check of ``tests/unit/reports/test_report.py`` on the big case).

    python scripts/benchmark_report.py                      # 50 runs x 5,000 queries
    python scripts/benchmark_report.py --runs 12 --queries 500 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path


def generate(out: Path, runs: int, queries: int, depth: int, seed: int = 0) -> tuple[Path, list[Path]]:
    """The qrels and the runs (the same arguments give the same files)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    qrels, folder = out / "qrels", out / "runs"
    folder.mkdir(exist_ok=True)
    pools = {}
    with qrels.open("w") as f:
        for q in range(1, queries + 1):
            pools[q] = rng.sample(range(1000), 30)
            f.writelines(f"q{q} 0 d{d} {rng.choice((0, 0, 0, 1, 2))}\n" for d in pools[q])
    paths = []
    for k in range(runs):
        path = folder / f"run{k:02d}.txt"
        with path.open("w") as f:
            for q in range(1, queries + 1):
                docs = rng.sample(pools[q], depth // 2) + rng.sample(range(1000, 2000), depth - depth // 2)
                rng.shuffle(docs)
                f.writelines(f"q{q} Q0 d{d} {r} {depth - r}.{k} run{k}\n" for r, d in enumerate(docs, 1))
        paths.append(path)
    return qrels, paths


def measured(cmd: list[str], stdout: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (the command and its reaped workers) and peak MiB of its largest process."""
    with stdout.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def same_cells(page: Path, compared: Path) -> bool:
    """Every comparison cell of the report starts with compare's mean (4 decimals) for that run and measure."""
    doc = json.loads(compared.read_text())
    table = page.read_text().split('id="comparison"', 1)[1].split("</table>", 1)[0]
    means = [m.group(1) for m in re.finditer(r"<td class=\"\w*\">([\d.]+)", table)]
    return means == [f"{doc['cells'][n][m]['mean']:.4f}" for n in doc["runs"] for m in doc["measures"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("/tmp/segeval-report"))
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    case = args.out / f"{args.runs}x{args.queries}"
    if not (case / "runs" / f"run{args.runs - 1:02d}.txt").exists():
        generate(case, args.runs, args.queries, args.depth)
    qrels, runs = case / "qrels", sorted((case / "runs").iterdir())
    common = [str(qrels), *map(str, runs), "-m", "map", "-m", "P_10", "-j", str(args.jobs), "--quiet"]
    segeval = [sys.executable, "-m", "segeval"]
    commands = {"compare": ([*segeval, "compare", *common, "-o", "json"], case / "compare.json"),
                "report": ([*segeval, "report", *common, "-o", str(case / "report.html")], case / "report.out")}
    times: dict[str, list[tuple[float, float, float]]] = {k: [] for k in commands}
    loads = []
    for _ in range(args.repeats):
        for name, (cmd, out) in commands.items():
            loads.append(os.getloadavg()[0])
            times[name].append(measured(cmd, out))
            print(f"{name}: {times[name][-1][0]:.1f} s wall, {times[name][-1][1]:.1f} s CPU", file=sys.stderr)
    ok = same_cells(case / "report.html", case / "compare.json")
    median = {k: [statistics.median(v[i] for v in rows) for i in range(2)] + [max(v[2] for v in rows)]
              for k, rows in times.items()}
    size = (case / "report.html").stat().st_size / 2**20
    print(f"{args.runs} runs x {args.queries} queries ({args.depth} results each), -j {args.jobs}, "
          f"{args.repeats} alternating rounds, load average {min(loads):.1f} to {max(loads):.1f} on "
          f"{os.cpu_count()} cores\n")
    print("| command | median wall s | median CPU s | peak MiB (largest process) | output MiB |\n|---|---|---|---|---|")
    print(f"| compare | {median['compare'][0]:.1f} | {median['compare'][1]:.1f} | {median['compare'][2]:.0f} | - |")
    print(f"| report | {median['report'][0]:.1f} | {median['report'][1]:.1f} | {median['report'][2]:.0f} | "
          f"{size:.1f} |")
    print(f"| report / compare | {median['report'][0] / median['compare'][0]:.2f}x | "
          f"{median['report'][1] / median['compare'][1]:.2f}x | | |")
    print(f"\nreport's comparison cells equal compare's: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
