#!/usr/bin/env python3
"""Benchmark ``segeval eval`` against trec_eval (C) on a generated TREC document run.

Generates (``scripts/generate_data.py --kind trec``) a run of ``--lines`` lines over
``--queries`` queries with ``--judged`` qrels lines per query, times both tools with the
default measures (best of ``--repeats``, alternating so that both see the same machine
state), checks that their outputs are identical and prints a Markdown table.  trec_eval is
run from the path given (build it from usnistgov/trec_eval with ``make``); it is not part
of this project::

    python scripts/benchmark_eval.py --trec-eval /path/to/trec_eval            # 1M lines, 300k qrels
"""

from __future__ import annotations

import argparse
import filecmp
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from benchmark import find_segeval, run_measured  # noqa: E402
from generate_data import generate_trec  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trec-eval", required=True, help="path to a trec_eval binary")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=300, help="qrels lines per query")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--segeval", default=None, help="segeval command (default: the installed one)")
    a = parser.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    qrels = a.out / f"trec-{a.lines}.qrels"
    run = a.out / f"trec-{a.lines}.run"
    if not (qrels.exists() and run.exists()):
        generate_trec(qrels, run, queries=a.queries, lines=a.lines, judged=a.judged, documents=2_000_000,
                      seed=2013)
    segeval = [*find_segeval(a.segeval), "eval"]
    best: dict[str, tuple[float, float | None]] = {}
    for _ in range(a.repeats):
        for name, cmd in (("segeval", [*segeval, str(qrels), str(run)]),
                          ("trec_eval", [a.trec_eval, str(qrels), str(run)])):
            m = run_measured(cmd, stdout=a.out / f"trec-{a.lines}.{name}.out")
            if name not in best or m.seconds < best[name][0]:
                best[name] = (m.seconds, m.peak_mib)
    same = filecmp.cmp(a.out / f"trec-{a.lines}.segeval.out", a.out / f"trec-{a.lines}.trec_eval.out", shallow=False)
    (s_time, s_mem), (t_time, t_mem) = best["segeval"], best["trec_eval"]
    print(f"TREC run: {a.lines:,} lines, {a.queries} queries, {a.judged * a.queries:,} qrels lines; "
          f"default measures; best of {a.repeats}.\n")
    print("| tool | seconds | peak MiB |\n|---|---:|---:|")
    print(f"| segeval eval | {s_time:.2f} | {s_mem or 0:.0f} |\n| trec_eval | {t_time:.2f} | {t_mem or 0:.0f} |")
    print(f"\nsegeval / trec_eval time: {s_time / t_time:.2f}; outputs identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
