#!/usr/bin/env python3
"""Benchmark ``segeval check`` (and ``segeval eval --lenient``) on runs where every line is bad.

Each reported problem used to re-read the whole file, which made both quadratic in the number of
bad lines; problems are now collected in one pass.  For each size (default 2,000, 8,000 and
32,000 lines) and each kind of bad line, a run is generated under ``--out`` (default
``/tmp/segeval-check-bench``) and timed (wall time of the whole command, best of ``--repeats``)::

    python scripts/benchmark_check.py
    python scripts/benchmark_check.py --sizes 32000 --kinds duplicate --eval

Every line but the first is bad, in one of four ways: ``syntax`` (a TREC run line whose rank is
not an integer: the line parser), ``duplicate`` (a TREC run repeating one document),
``reversed`` (MediaEval linking run segments that end before they start) and ``rank`` (rank 0):
the last three are found after reading, by the value checks.  ``check`` must exit with status 2
and report exactly one problem per bad line, ``eval --lenient`` skip exactly the bad lines (status 3); the
script exits with status 1 otherwise.  The result is a Markdown table.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

KINDS = ("syntax", "duplicate", "reversed", "rank")
DOCUMENT_QRELS = "".join(f"q{i} 0 d{i} 1\n" for i in range(10))
SEGMENT_QRELS = "".join(f"a{i} Q0 v{i} 1.00 2.00 1\n" for i in range(10))


def run_lines(kind: str, n: int) -> str:
    """A good line, then ``n`` lines bad in the way ``kind`` says."""
    if kind == "syntax":
        return "q1 Q0 d1 1 2.5 run\n" + "".join(f"q{i % 10} Q0 d{i} x{i} 2.5 run\n" for i in range(n))
    if kind == "duplicate":  # every line after the first repeats its document
        return "".join(f"q1 Q0 d1 {i + 1} {n - i} run\n" for i in range(n + 1))
    first = "a1 Q0 v1 1.00 2.00 1 0.5 run\n"
    if kind == "reversed":
        return first + "".join(f"a{i % 10} Q0 v{i} 3.00 2.00 {i + 1} 0.5 run\n" for i in range(n))
    return first + "".join(f"a{i % 10} Q0 v{i} 1.00 2.00 0 0.5 run\n" for i in range(n))


def command(base: list[str], qrels: Path, run: Path, evaluate: bool) -> list[str]:
    if evaluate:
        return [*base, "eval", str(qrels), str(run), "--lenient", "--memory", "in-memory"]
    return [*base, "check", str(qrels), str(run)]


def time_one(cmd: list[str], n: int, evaluate: bool, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - start)
        reported = done.stderr.count("\nsegeval: skipped ") + done.stderr.startswith("segeval: skipped ")
        ok = (done.returncode == 3 and reported == n) if evaluate else (
            done.returncode == 2 and done.stdout.splitlines()[-1:] == [f"{n} problems"])
        if not ok:
            sys.stderr.write(f"unexpected result of {' '.join(cmd)} (exit {done.returncode}):\n"
                             f"{done.stdout[-500:]}{done.stderr[-500:]}\n")
            raise SystemExit(1)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000,8000,32000", help="bad lines per run, comma separated")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"kinds of bad line ({', '.join(KINDS)})")
    parser.add_argument("--eval", action="store_true", help="also time 'segeval eval --lenient'")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/segeval-check-bench"))
    parser.add_argument("--segeval", default=f"{sys.executable} -m segeval",
                        help="the command that runs segeval (to time another version)")
    args = parser.parse_args()
    base = shlex.split(args.segeval)
    sizes = [int(s) for s in args.sizes.split(",")]
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    args.out.mkdir(parents=True, exist_ok=True)
    documents, segments = args.out / "documents.qrels", args.out / "segments.qrels"
    documents.write_text(DOCUMENT_QRELS)
    segments.write_text(SEGMENT_QRELS)
    commands = ["check"] + (["eval --lenient"] if args.eval else [])
    print("| command | kind | " + " | ".join(f"{n:,} lines" for n in sizes) + " |")
    print("|---|---|" + "---:|" * len(sizes))
    for name in commands:
        evaluate = name != "check"
        for kind in kinds:
            cells = []
            for n in sizes:
                run = args.out / f"{kind}-{n}.run"
                run.write_text(run_lines(kind, n))
                qrels = documents if kind in ("syntax", "duplicate") else segments
                seconds = time_one(command(base, qrels, run, evaluate), n, evaluate, args.repeats)
                cells.append(f"{seconds:.2f} s")
            print(f"| {name} | {kind} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
