"""Time ``segeval sed`` against the official tools on a DCASE-sized set (whole processes, one run each).

    python scripts/benchmark_sed.py --official-python /tmp/tools/dcase/V/bin/python [--clips 2500] [--out DIR]
        [--repeats 3] [--runs 2,3,4,5]

The set comes from scripts/sed_cases.py's generator: 2,500 clips of 10 s, 10 classes, 50 operating
points (thresholds 0.01, 0.03, ..., 0.99).  Each measure runs ``--repeats`` times per tool, the official
tool (through ``sed_cases.py run``) and segeval in turn; the medians and their ratios go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import sed_cases  # noqa: E402

RUNS = [
    ("event-based (sed_eval, optimal)", {**sed_cases.EVENT, "matching": "optimal"}, ["-m", "event"]),
    ("segment-based (sed_eval, 1 s)", {"tool": "segment", "resolution": 1.0, "length": "last_offset"},
     ["-m", "segment"]),
    ("PSDS1 (psds_eval, 50 operating points)", {"tool": "psds_eval", **sed_cases.PSDS1}, ["-m", "psds1"]),
    ("PSDS2 (psds_eval, 50 operating points)", {"tool": "psds_eval", **sed_cases.PSDS2}, ["-m", "psds2"]),
    ("PSDS1 (sed_scores_eval, every threshold)", {"tool": "sed_scores_eval", **sed_cases.PSDS1, "cttc": None},
     ["-m", "psds1", "--psds-tool", "sed_scores_eval"]),
    ("PSDS2 (sed_scores_eval, every threshold)", {"tool": "sed_scores_eval", **sed_cases.PSDS2},
     ["-m", "psds2", "--psds-tool", "sed_scores_eval"]),
]
SYSTEMS = ["detections.tsv", "detections.tsv", "operating_points", "operating_points", "scores", "scores"]


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of the whole process: on a loaded machine the CPU time is
    the steadier figure."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "0"})
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--official-python", required=True)
    ap.add_argument("--clips", type=int, default=2500)
    ap.add_argument("--out", default="/tmp/sed_benchmark")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runs", default="", help="comma-separated indices of RUNS (default: all)")
    args = ap.parse_args()
    case = sed_cases.random_case(9900, args.clips, sed_cases.CLASSES, thresholds=50, empty_share=0.1)
    sed_cases.write_case(args.out, case, [r for _, r, _ in RUNS])
    d = args.out
    print(f"{args.clips} clips, {len(case['truth'])} events, "  # type: ignore[arg-type]
          f"{len(case['detections'])} detections at 0.5", file=sys.stderr)  # type: ignore[arg-type]
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(HERE, "..", "segeval")], check=True)
    print("| measure | official wall / CPU (s) | segeval wall / CPU (s) | ratio wall / CPU |\n|---|---:|---:|---:|")
    for k in [int(x) for x in args.runs.split(",")] if args.runs else range(len(RUNS)):
        name, _, flags = RUNS[k]
        system = os.path.join(d, SYSTEMS[k])
        times: dict[str, list[tuple[float, float]]] = {"official": [], "segeval": []}
        for _ in range(args.repeats):  # in turn, so that both see the same machine load
            times["official"].append(timed([args.official_python, os.path.join(HERE, "sed_cases.py"), "run", d,
                                            str(k)]))
            times["segeval"].append(timed([sys.executable, "-m", "segeval", "sed", os.path.join(d, "ground_truth.tsv"),
                                           system, "-d", os.path.join(d, "durations.tsv"), *flags]))
        (ow, oc), (sw, sc) = ((statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
                              for v in times.values())
        print(f"| {name} | {ow:.2f} / {oc:.2f} | {sw:.2f} / {sc:.2f} | {ow / sw:.1f}x / {oc / sc:.1f}x |", flush=True)
        print(f"  {name}: CPU official {[round(c, 2) for _, c in times['official']]}, "
              f"segeval {[round(c, 2) for _, c in times['segeval']]}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
