#!/usr/bin/env python3
"""Segment runs against trec_eval on documents, and ``me13sh`` against the MediaEval reference script.

The targets of issue 23 in one table:

``eval``
    ``segeval eval -a ADAPTER`` on a 1,000,000-line linking run (1,000 queries of 1,000 results,
    about 66,000 qrels lines; ``benchmark_scale.py``'s generator and seed) for each adapter,
    beside ``trec_eval`` on a 1,000,000-line TREC run (1,000 queries, 300 judged documents each;
    ``benchmark_tools.py``'s data), default measures.  Each round runs trec_eval, then every
    adapter, in turn (``--repeats`` rounds); the table gives median wall time and highest peak RSS
    and the ratios to trec_eval's.
``chunked``
    ``segeval eval --memory chunked`` on a ``--chunked-lines`` linking run (default 10,000,000; the
    same generator): wall time and peak RSS (once; with ``--before``, ``--repeats`` rounds of both in turn).
``documents``
    ``segeval eval`` on the 1,000,000-line TREC run, by default (``--memory auto``), in memory and ``--memory
    chunked`` (and ``--before``'s), beside ``trec_eval``, in turn; every output must be trec_eval's (exit 1 otherwise).
``me13sh``
    ``segeval me13sh`` (median of ``--repeats``) against the reference ``sh_eval.py`` under Python 2.7
    (``--reference``; run once per run, it is slow) on 300,000-line runs: 300 queries of 1,000 results
    with about 18,000 qrels lines, light (``--hit-rate 0.05 --topical-rate 0.03``) and heavy (the
    generator's defaults), and ``benchmark.py``'s own light run (30 queries); outputs must be
    byte-identical (exit 1 otherwise).

Each command is a fresh process measured with ``os.wait4`` (``benchmark.run_measured``); data is
generated once under ``--out`` (seeded) in a child process.  Example::

    python scripts/benchmark_segments.py --trec-eval /tmp/trec_eval/trec_eval \\
        --reference /path/to/sh_eval/sh_eval.py --repeats 5
"""

from __future__ import annotations

import argparse
import filecmp
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from benchmark import find_python2, find_segeval, parse_count, prepare_in_child  # noqa: E402
from benchmark_scale import drop_repeated_judgements, make_data  # noqa: E402
from generate_data import generate, generate_trec  # noqa: E402

ADAPTERS = ("overlap", "overlap-once", "binned", "binned:10:start", "tolerance", "tiou")
#: me13sh runs: name -> (queries, hit rate, topical rate)
ME_RUNS = {"300 queries, light": (300, 0.05, 0.03), "300 queries, heavy": (300, 0.3, 0.3),
           "30 queries, light (benchmark.py)": (30, 0.05, 0.03)}
ME_LINES = 300_000


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def trec_data(out: Path) -> tuple[Path, Path]:
    qrels, run = out / "trec-1000000.qrels", out / "trec-1000000.run"
    if not (qrels.exists() and run.exists()):
        log(f"generating {run} ...")
        generate_trec(qrels, run, queries=1000, lines=1_000_000, judged=300, documents=2_000_000, seed=2013,
                      run_name="base")
    return qrels, run


def me_data(out: Path, name: str) -> tuple[Path, Path]:
    queries, hit, topical = ME_RUNS[name]
    stem = f"me-{queries}q-{hit:g}-{topical:g}-{ME_LINES}"
    qrels, run = out / f"{stem}.qrels", out / f"{stem}.run"
    if not (qrels.exists() and run.exists()):
        log(f"generating {run} ...")
        generate(qrels, run, queries=queries, lines=ME_LINES, videos=2000, kind="linking", seed=2013,
                 prefix="anchor", run_name="base", hit_rate=hit, topical_rate=topical)
        drop_repeated_judgements(qrels)
    return qrels, run


def prepare(a: argparse.Namespace) -> None:
    """The data of the chosen ``--parts`` only."""
    if "eval" in a.parts or "documents" in a.parts:
        trec_data(a.out)
    if "eval" in a.parts:
        make_data(a.out, 1_000_000, "linking")
    if "chunked" in a.parts:
        make_data(a.out, a.chunked_lines, "linking")
    if "me13sh" in a.parts:
        for name in ME_RUNS:
            me_data(a.out, name)


def measured(cmd: Sequence[str], stdout: Path, env: dict[str, str] | None = None,
             cwd: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one run of ``cmd`` (a direct child
    reaped with ``os.wait4``, as ``benchmark.run_measured``); the CPU time is the one to trust on a busy
    machine."""
    with stdout.open("wb") as out, stdout.with_name(stdout.name + ".stderr").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def rounds(cmds: Sequence[Sequence[str]], repeats: int, out: Path) -> list[tuple[float, float, float]]:
    """Per command, (median wall seconds, median CPU seconds, highest peak MiB) over ``repeats`` rounds running
    the commands in turn."""
    times: list[list[float]] = [[] for _ in cmds]
    cpus: list[list[float]] = [[] for _ in cmds]
    peaks = [0.0 for _ in cmds]
    for k in range(repeats):
        for i, cmd in enumerate(cmds):
            log(f"round {k + 1}/{repeats}: {' '.join(cmd[-4:])}")
            wall, cpu, peak = measured(cmd, out / f"segments-{i}.out")
            times[i].append(wall)
            cpus[i].append(cpu)
            peaks[i] = max(peaks[i], peak)
    return [(statistics.median(t), statistics.median(c), p) for t, c, p in zip(times, cpus, peaks, strict=True)]


def bench_eval(a: argparse.Namespace, seg: list[str]) -> list[str]:
    tq, tr = trec_data(a.out)
    sq, sr = make_data(a.out, 1_000_000, "linking")
    lines = sum(1 for _ in sq.open())
    versions = [("", seg)] + ([(" (before)", [a.before])] if a.before else [])
    cmds = [[a.trec_eval, str(tq), str(tr)]]
    names = []
    for x in ADAPTERS:
        for label, command in versions:
            cmds.append([*command, "eval", "-a", x, str(sq), str(sr)])
            names.append(f"segeval eval -a {x}{label}")
    results = rounds(cmds, a.repeats, a.out)
    (te, te_cpu, te_mib), rest = results[0], results[1:]
    rows = [f"| trec_eval, 1M document lines (300,000 qrels lines) | {te:.2f} | {te_cpu:.2f} | {te_mib:.0f} | 1.00× | "
            "1.00× | 1.00× |"]
    rows += [f"| {name}, 1M segment lines ({lines:,} qrels lines) | {t:.2f} | {c:.2f} | {p:.0f} | {t / te:.2f}× | "
             f"{c / te_cpu:.2f}× | {p / te_mib:.2f}× |" for name, (t, c, p) in zip(names, rest, strict=True)]
    return [f"`eval`, default measures; medians of wall and CPU (user + system) time and highest peak RSS of "
            f"{a.repeats} rounds (trec_eval, then each command, in turn); target: ≤ 1.0× trec_eval's time and "
            "≤ 2× its memory:", "",
            "| command | wall s | CPU s | peak MiB | × trec_eval wall | × trec_eval CPU | × trec_eval memory |",
            "|---|---:|---:|---:|---:|---:|---:|", *rows]


def bench_chunked(a: argparse.Namespace, seg: list[str]) -> list[str]:
    q, r = make_data(a.out, a.chunked_lines, "linking")
    versions = [("", seg)] + ([(" (before)", [a.before])] if a.before else [])
    repeats = a.repeats if a.before else 1
    results = rounds([[*command, "eval", "--memory", "chunked", str(q), str(r)] for _, command in versions], repeats,
                     a.out)
    return [f"`eval --memory chunked`, {a.chunked_lines:,} segment lines (overlap; target ≤ 150 MiB; medians of "
            f"{repeats}, highest peak):", "", "| command | wall s | CPU s | peak MiB |", "|---|---:|---:|---:|",
            *(f"| segeval eval --memory chunked{label} | {t:.1f} | {c:.1f} | {p:.0f} |"
              for (label, _), (t, c, p) in zip(versions, results, strict=True))]


def bench_documents(a: argparse.Namespace, seg: list[str]) -> tuple[list[str], bool]:
    """``segeval eval`` on the 1M-line TREC run (the default ``--memory auto``, ``in-memory`` and ``chunked``)
    beside trec_eval, in turn; each output must be trec_eval's, byte for byte."""
    tq, tr = trec_data(a.out)
    versions = [("", seg)] + ([(" (before)", [a.before])] if a.before else [])
    cmds = [[a.trec_eval, str(tq), str(tr)]]
    names = []
    for memory in ("auto", "in-memory", "chunked"):
        for label, command in versions:
            cmds.append([*command, "eval", "--memory", memory, str(tq), str(tr)])
            names.append(f"segeval eval --memory {memory}{' (the default)' if memory == 'auto' else ''}{label}")
    (te, te_cpu, te_mib), *rest = rounds(cmds, a.repeats, a.out)
    same = [filecmp.cmp(a.out / "segments-0.out", a.out / f"segments-{i}.out", shallow=False)
            for i in range(1, len(cmds))]
    rows = [f"| trec_eval | {te:.2f} | {te_cpu:.2f} | {te_mib:.0f} | 1.00× | 1.00× | 1.00× | |"]
    rows += [f"| {name} | {t:.2f} | {c:.2f} | {p:.0f} | {t / te:.2f}× | {c / te_cpu:.2f}× | {p / te_mib:.2f}× | "
             f"{'yes' if ok else 'NO'} |" for name, (t, c, p), ok in zip(names, rest, same, strict=True)]
    return ([f"Documents, `eval` on the 1,000,000-line TREC run (default measures; medians of {a.repeats} rounds, "
             "highest peak); aim: ≤ 0.5× trec_eval's time, ≤ 1.2× its memory:", "",
             "| command | wall s | CPU s | peak MiB | × trec_eval wall | × trec_eval CPU | × trec_eval memory "
             "| trec_eval's bytes |", "|---|---:|---:|---:|---:|---:|---:|---|", *rows], all(same))


def bench_me13sh(a: argparse.Namespace, seg: list[str]) -> tuple[list[str], bool]:
    rows, identical = [], True
    python2 = find_python2(a.python2) if a.reference is not None else None
    for name in ME_RUNS:
        q, r = me_data(a.out, name)
        qrels_lines = sum(1 for _ in q.open())
        cmds = [[*seg, "me13sh", str(q), str(r)], *([[a.before, "me13sh", str(q), str(r)]] if a.before else [])]
        (t, c, p), *before = rounds(cmds, a.repeats, a.out)
        mine = a.out / "segments-0.out"
        note = "reference not run | | |"
        ref_cpu = 0.0
        if a.reference is not None and python2 is not None:
            ref_out = a.out / f"reference-{q.stem}.out"
            env = {**os.environ, "PYTHONPATH": str(a.reference.parent)}
            log(f"reference on {r} (slow) ...")
            ref, ref_cpu, ref_mib = measured([python2, str(a.reference), str(q), str(r)], ref_out, env=env,
                                             cwd=a.reference.parent)
            same = filecmp.cmp(mine, ref_out, shallow=False)
            identical &= same
            note = (f"{ref:.1f} s, CPU {ref_cpu:.1f} s, {ref_mib:.0f} MiB | {ref / t:.1f}× | {ref_cpu / c:.1f}× | "
                    f"{'yes' if same else '**no**'}")
        rows.append(f"| {name}: {ME_LINES:,} lines, {qrels_lines:,} qrels lines | {t:.2f} | {c:.2f} | {p:.0f} | "
                    f"{note} |")
        if before:
            ((bt, bc, bp),) = before
            speed = f"{ref / bt:.1f}× | {ref_cpu / bc:.1f}×" if ref_cpu else " | "
            rows.append(f"| the same, before | {bt:.2f} | {bc:.2f} | {bp:.0f} | | {speed} | |")
    return ([f"`me13sh` (medians of {a.repeats}) against the reference sh_eval.py (Python 2.7, once); target ≥ 60×:",
             "", "| run | segeval wall s | CPU s | peak MiB | reference | speed-up (wall) | speed-up (CPU) "
                 "| identical |",
             "|---|---:|---:|---:|---|---:|---:|---|", *rows], identical)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="eval,chunked,documents,me13sh",
                        help="which measurements (default: all four)")
    parser.add_argument("--trec-eval", default=None, help="trec_eval binary (needed by 'eval')")
    parser.add_argument("--reference", type=Path, default=None, help="the MediaEval reference sh_eval.py")
    parser.add_argument("--python2", default=None, help="Python 2.7 for the reference (default: found)")
    parser.add_argument("--segeval", default=None, help="segeval command (default: the installed one)")
    parser.add_argument("--before", default=None,
                        help="another segeval command (an older version) timed beside it in 'eval' and 'me13sh'")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunked-lines", type=parse_count, default=10_000_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/segeval-segments"), help="data and outputs")
    parser.add_argument("--prepare", action="store_true", help="only generate the data")
    a = parser.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.prepare:
        prepare(a)
        return 0
    prepare_in_child(__file__, argv)
    seg = find_segeval(a.segeval)
    text: list[str] = []
    ok = True
    if "eval" in a.parts:
        if not a.trec_eval:
            parser.error("'eval' needs --trec-eval")
        text += [*bench_eval(a, seg), ""]
    if "chunked" in a.parts:
        text += [*bench_chunked(a, seg), ""]
    if "documents" in a.parts:
        if not a.trec_eval:
            parser.error("'documents' needs --trec-eval")
        rows, same = bench_documents(a, seg)
        text += [*rows, ""]
        ok = ok and same
    if "me13sh" in a.parts:
        rows, same = bench_me13sh(a, seg)
        text += [*rows, ""]
        ok = ok and same
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, load average at the end {load}.\n")
    print("\n".join(text))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
