#!/usr/bin/env python3
"""The speed targets of segeval's command line in one table: start-up, ``eval`` against trec_eval,
the chunked path against the in-memory one, auto mode's memory on a big run, ``mr`` on QVHighlights
and ``me13sh`` against the MediaEval reference script.

Every command is a fresh process measured with ``os.wait4`` (wall time, its own peak RSS); the
commands of a row pair alternate within each of ``--repeats`` rounds and the table gives medians.
Data: the generated TREC runs of ``scripts/benchmark_tools.py`` (``--tools-out``, made with its
``--prepare``), a light 300,000-line linking run of ``scripts/benchmark.py`` (``--me-out``), and the
QVHighlights sample when ``--qvhighlights DIR`` is given.  Rows whose inputs or tools are missing are
skipped::

    python scripts/benchmark_tools.py --prepare --sizes 1M,10M
    python scripts/benchmark_targets.py --trec-eval /path/to/trec_eval --qvhighlights ../shared/data/qvhighlights \\
        --reference /path/to/sh_eval.py
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from benchmark import find_python2, find_segeval, run_measured  # noqa: E402

Row = tuple[str, str, float, float, str]


def median_of(cmds: Sequence[Sequence[str]], repeats: int, out: Path) -> list[tuple[float, float]]:
    """Per command, (median seconds, largest peak MiB) over ``repeats`` rounds alternating the commands."""
    times: list[list[float]] = [[] for _ in cmds]
    peaks: list[float] = [0.0 for _ in cmds]
    for _ in range(repeats):
        for i, cmd in enumerate(cmds):
            m = run_measured(cmd, stdout=out / f"target-{i}.out")
            times[i].append(m.seconds)
            peaks[i] = max(peaks[i], m.peak_mib or 0.0)
    return [(statistics.median(t), p) for t, p in zip(times, peaks, strict=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trec-eval", default=None, help="path to a trec_eval binary")
    parser.add_argument("--tools-out", type=Path, default=Path("/tmp/segeval-tools"),
                        help="benchmark_tools.py's data folder")
    parser.add_argument("--me-out", type=Path, default=SCRIPTS.parent / "bench-out",
                        help="benchmark.py's data folder (run it once with --sizes 300k to make the run)")
    parser.add_argument("--qvhighlights", type=Path, default=None, help="folder of the QVHighlights sample")
    parser.add_argument("--reference", type=Path, default=None, help="the MediaEval reference sh_eval.py")
    parser.add_argument("--python2", default=None, help="Python 2.7 for the reference (default: found)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("/tmp/segeval-targets"))
    a = parser.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    seg = find_segeval(None)
    rows: list[Row] = []
    for args in (["--version"], ["--help"], ["eval", "--help"]):
        ((t, p),) = median_of([[*seg, *args]], a.repeats, a.out)
        rows.append((f"segeval {' '.join(args)}", "≤ 0.15 s", t, p, ""))
    q1, r1 = a.tools_out / "trec-1000000.qrels", a.tools_out / "trec-1000000.run"
    if q1.exists() and a.trec_eval:
        (s, sp), (t, tp) = median_of([[*seg, "eval", str(q1), str(r1)], [a.trec_eval, str(q1), str(r1)]],
                                     a.repeats, a.out)
        rows.append(("eval, 1M lines, default measures", "≤ 1.0× trec_eval time, ≤ 2× its memory", s, sp,
                     f"trec_eval {t:.2f} s, {tp:.0f} MiB: {s / t:.2f}× time, {sp / tp:.2f}× memory"))
    if q1.exists():
        (m, mp), (c, cp) = median_of([[*seg, "eval", "--memory", "in-memory", str(q1), str(r1)],
                                      [*seg, "eval", "--memory", "chunked", "--chunk-lines", "1000", str(q1), str(r1)]],
                                     max(3, a.repeats // 2), a.out)
        rows.append(("eval, 1M lines, --chunk-lines 1000", "≤ 2× in-memory", c, cp,
                     f"in-memory {m:.2f} s, {mp:.0f} MiB: {c / m:.2f}×"))
    q10, r10 = a.tools_out / "trec-10000000.qrels", a.tools_out / "trec-10000000.run"
    if q10.exists():
        ((t, p),) = median_of([[*seg, "eval", str(q10), str(r10)]], 1, a.out)
        rows.append(("eval, 10M lines, --memory auto", "≤ 300 MiB", t, p, ""))
    if a.qvhighlights is not None:
        gt, pred = a.qvhighlights / "highlight_val_release.jsonl.gz", a.qvhighlights / "sample_val_preds.jsonl.gz"
        ((t, p),) = median_of([[*seg, "mr", "--protocol", "qvhighlights", str(gt), str(pred)]], a.repeats, a.out)
        rows.append(("mr --protocol qvhighlights (1,550 queries)", "≤ 0.5 s", t, p, ""))
    me_runs = sorted(a.me_out.glob("light-*-300000.run")) if a.me_out.exists() else []
    if me_runs and a.reference is not None:
        run = me_runs[0]
        qrels = run.with_suffix(".qrels")
        ((t, p),) = median_of([[*seg, "me13sh", str(qrels), str(run)]], a.repeats, a.out)
        ((rt, _),) = median_of([[find_python2(a.python2), str(a.reference), str(qrels), str(run)]], 1, a.out)
        rows.append(("me13sh, 300k lines (light)", "≥ 40× the reference", t, p,
                     f"reference {rt:.1f} s: {rt / t:.1f}×"))
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Machine: {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, load average at the end "
          f"{load}; medians of {a.repeats} alternating rounds.\n")
    print("| command | target | seconds | peak MiB | compared |\n|---|---|---:|---:|---|")
    for name, target, t, p, note in rows:
        print(f"| {name} | {target} | {t:.2f} | {p:.0f} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
