#!/usr/bin/env python3
"""Benchmark ``segeval eval`` at scale: many runs with ``--jobs``, memory of the chunked path, Dask overhead.

Three measurements, each printed as a Markdown table (data generated under ``--out``, default
``/tmp/segeval-scale``, with ``scripts/generate_data.py``: MediaEval linking runs, 1,000 results
per query, 2,000 videos, the generator's default hit rates; measures: the default ``official``
set with the default overlap adapter, summary rows only)::

    python scripts/benchmark_scale.py                      # all three (about 10 minutes on 2 cores)
    python scripts/benchmark_scale.py --parts memory --big-lines 2M

``jobs``
    ``--runs`` runs of ``--lines`` lines each (one generated run; the others rotate each
    query's results by a different amount, so every run ranks differently), evaluated with
    ``--jobs 1`` and ``--jobs 2``: wall time (best of ``--repeats``) and speed-up.
``memory``
    Peak resident memory and time of one run of ``--lines`` and of ``--big-lines`` lines, a
    linking run and a TREC run (1,000 queries, 300 judged documents each, as
    ``generate_data.py --kind trec``), with ``--memory in-memory``, ``auto`` (the default),
    ``chunked`` with the default chunk size and with ``--chunk-lines 1000``, and, for the TREC run,
    ``trec_eval -q`` when ``--trec-eval PATH`` is given (its output must be segeval's, byte for
    byte); the variants alternate, ``--memory-repeats`` rounds, median time and highest peak.
``dask``
    ``--dask-runs`` runs of ``--dask-lines`` lines: ``--jobs 1`` against ``--engine dask`` with
    a local cluster started by segeval (2 workers, start-up included) and with ``--scheduler``
    pointing at a cluster this script started beforehand in a child process (start-up excluded).

The data is generated in a child process first, so the measured commands are not forked from a
big process (a child's peak RSS includes what it inherited at fork).  Every variant's output is
compared with the ``--jobs 1`` / in-memory output; the script exits with status 1 when one
differs.  Each command runs as a direct child reaped with ``os.wait4``; its memory is the peak of
the resident memory summed over every process working for it, sampled every 10 ms with psutil:
the command, its worker processes (``--jobs 2``, a local Dask cluster with its scheduler, which runs
in the command) and, for ``--scheduler``, the whole cluster this script started in a child process
(scheduler, nannies and workers), and at least the command's own ``ru_maxrss``; the tables give
the number of processes summed at the peak.  Sampling can miss a peak shorter than 10 ms.
"""

from __future__ import annotations

import argparse
import filecmp
import itertools
import os
import platform
import statistics
import subprocess
import sys
import threading
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from benchmark import find_segeval, parse_count, prepare_in_child, run_measured  # noqa: E402
from generate_data import generate, generate_trec  # noqa: E402

PER_QUERY = 1000


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def make_data(out: Path, lines: int, kind: str = "linking") -> tuple[Path, Path]:
    """A qrels file and run of ``lines`` lines, generated once: ``linking`` (1,000 lines per query) or
    ``trec`` (1,000 queries, 300 judged documents each)."""
    qrels, run = out / f"{kind}-{lines}.qrels", out / f"{kind}-{lines}.run"
    if not (qrels.exists() and run.exists()):
        log(f"generating {run} ...")
        if kind == "trec":
            generate_trec(qrels, run, queries=1000, lines=lines, judged=300, documents=2_000_000, seed=2013,
                          run_name="base")
        else:
            generate(qrels, run, queries=max(1, lines // PER_QUERY), lines=lines, videos=2000, kind="linking",
                     seed=2013, prefix="anchor", run_name="base")
            drop_repeated_judgements(qrels)
    return qrels, run


def drop_repeated_judgements(qrels: Path) -> None:
    """Keep the first judgement of a (query, video, start, end): the generator may draw one segment twice,
    and segeval (like trec_eval) refuses a qrels file that judges something twice."""
    seen: set[tuple[str, ...]] = set()
    kept = []
    with qrels.open() as fh:
        for line in fh:
            f = line.split()
            key = (f[0], *f[2:5])
            if key not in seen:
                seen.add(key)
                kept.append(line)
    qrels.write_text("".join(kept))


def make_runs(out: Path, run: Path, count: int, lines: int) -> Path:
    """``count`` runs in a folder: ``run`` and copies whose queries' results are rotated (new ranks)."""
    folder = out / f"runs-{count}x{lines}"
    folder.mkdir(exist_ok=True)
    missing = [k for k in range(count) if not (folder / f"run{k:02d}.txt").exists()]
    if not missing:
        return folder
    log(f"writing {len(missing)} runs into {folder} ...")
    with run.open() as fh:
        rows = [line.split() for line in fh]
    starts = [i for i in range(len(rows)) if i == 0 or rows[i][0] != rows[i - 1][0]] + [len(rows)]
    for k in missing:
        with (folder / f"run{k:02d}.txt").open("w") as f:
            for a, b in itertools.pairwise(starts):
                block = rows[a:b]
                shift = (k * 37) % len(block)
                for rank, fields in enumerate(block[shift:] + block[:shift], start=1):
                    f.write(f"{' '.join(fields[:5])} {rank} {1000 - rank / 1000:.6f} run{k:02d}\n")
    return folder


def timed(cmd: list[str], out: Path, repeats: int) -> tuple[float, float, int]:
    """Best wall time, highest peak MiB and the number of processes summed at that peak, of ``repeats``
    runs of ``cmd`` (stdout to ``out``); the peak is that of the memory summed over all processes working
    for the command (see the module doc)."""
    best, peak, processes = float("inf"), 0.0, 1
    for _ in range(repeats):
        sampler = TreeMemory()
        try:
            m = run_measured(cmd, stdout=out)
        finally:
            summed, count = sampler.stop()
        best = min(best, m.seconds)
        if max(m.peak_mib or 0.0, summed) > peak:
            peak, processes = max(m.peak_mib or 0.0, summed), max(count, 1)
    return best, peak, processes


class TreeMemory:
    """Samples the resident memory summed over every descendant of this process (the measured command,
    its workers, a cluster's scheduler and workers) every ``interval`` seconds; ``stop`` returns the peak
    in MiB and how many processes were summed then."""

    def __init__(self, interval: float = 0.01) -> None:
        import psutil

        self._me = psutil.Process()
        self._interval = interval
        self._peak = (0, 0)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> tuple[int, int]:
        import psutil

        total = count = 0
        for proc in self._me.children(recursive=True):
            try:
                total += proc.memory_info().rss
                count += 1
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue  # ended between listing and reading
        return total, count

    def _run(self) -> None:
        while not self._done.is_set():
            self._peak = max(self._peak, self._sample())
            self._done.wait(self._interval)

    def stop(self) -> tuple[float, int]:
        self._done.set()
        self._thread.join()
        return self._peak[0] / 2**20, self._peak[1]


def same(a: Path, b: Path) -> str:
    return "yes" if filecmp.cmp(a, b, shallow=False) else "**no**"


def bench_jobs(a: argparse.Namespace, segeval: list[str]) -> list[str]:
    qrels, run = make_data(a.out, a.lines)
    folder = make_runs(a.out, run, a.runs, a.lines)
    rows = []
    results = {}
    for jobs in (1, 2):
        log(f"jobs: {a.runs} runs x {a.lines:,} lines, --jobs {jobs} ...")
        dest = a.out / f"jobs{jobs}.out"
        results[jobs] = timed([*segeval, "eval", "--quiet", "-j", str(jobs), str(qrels), str(folder)], dest, a.repeats)
        rows.append(f"| --jobs {jobs} | {results[jobs][0]:.1f} | {results[1][0] / results[jobs][0]:.2f}× | "
                    f"{results[jobs][1]:.0f} ({results[jobs][2]}) | {same(a.out / 'jobs1.out', dest)} |")
    return [f"{a.runs} runs × {a.lines:,} lines (`segeval eval QRELS DIR`, default measures); best of "
            f"{a.repeats}; memory summed over the command and its workers:", "",
            "| command | seconds | speed-up | peak MiB (processes) | output identical |",
            "|---|---:|---:|---:|---|", *rows]


def bench_memory(a: argparse.Namespace, segeval: list[str]) -> list[str]:
    rows = []
    for kind in ("linking", "trec"):
        for lines in (a.lines, a.big_lines):
            qrels, run = make_data(a.out, lines, kind)
            size = run.stat().st_size / 2**20
            variants = {"in-memory": ["--memory", "in-memory"], "auto (default)": [],
                        "chunked": ["--memory", "chunked"],
                        "chunked, --chunk-lines 1000": ["--memory", "chunked", "--chunk-lines", "1000"]}
            commands = {name: [*segeval, "eval", "-q", *flags, str(qrels), str(run)]
                        for name, flags in variants.items()}
            if kind == "trec" and a.trec_eval:
                commands["trec_eval -q (C)"] = [a.trec_eval, "-q", str(qrels), str(run)]
            dest = {name: a.out / f"memory-{kind}-{lines}-{k}.out" for k, name in enumerate(commands)}
            seconds: dict[str, list[float]] = {name: [] for name in commands}
            peaks = dict.fromkeys(commands, 0.0)
            for round_ in range(a.memory_repeats):  # the variants alternate
                for name, cmd in commands.items():
                    log(f"memory: {kind} {lines:,} lines, {name}, round {round_ + 1} ...")
                    t, peak, _ = timed(cmd, dest[name], 1)
                    seconds[name].append(t)
                    peaks[name] = max(peaks[name], peak)
            base = statistics.median(seconds["in-memory"])
            for name in commands:
                median = statistics.median(seconds[name])
                rows.append(f"| {kind} {lines:,} ({size:.0f} MiB) | {name} | {median:.1f} | {median / base:.2f}× | "
                            f"{peaks[name]:.0f} | {same(dest['in-memory'], dest[name])} |")
    return [f"One run, default measures with -q; median time and highest peak RSS of {a.memory_repeats} "
            "alternating rounds:", "",
            "| run lines (file) | command | seconds | × in-memory | peak MiB | output identical |",
            "|---|---|---:|---:|---:|---|", *rows]


#: a child process holding a local Dask cluster (scheduler in it, 2 worker processes under it) until its
#: standard input closes; it prints the scheduler's address
CLUSTER = """
import logging, sys
from dask.distributed import LocalCluster
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                       silence_logs=logging.ERROR)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()
cluster.close()
"""


def bench_dask(a: argparse.Namespace, segeval: list[str]) -> list[str]:
    qrels, run = make_data(a.out, a.dask_lines)
    folder = make_runs(a.out, run, a.dask_runs, a.dask_lines)
    base = [*segeval, "eval", "--quiet", str(qrels), str(folder)]
    log("dask: --jobs 1 ...")
    one, one_mib, one_n = timed([*base, "-j", "1"], a.out / "dask-jobs1.out", a.repeats)
    log("dask: local cluster started by segeval ...")
    local, local_mib, local_n = timed([*base, "--engine", "dask", "-j", "2"], a.out / "dask-local.out", a.repeats)
    # the cluster runs in a child so that its scheduler and workers are summed with the command
    cluster = subprocess.Popen([sys.executable, "-c", CLUSTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        assert cluster.stdout is not None
        address = cluster.stdout.readline().strip()
        if not address:
            raise RuntimeError("the Dask cluster did not start")
        log(f"dask: existing cluster at {address} ...")
        warm, warm_mib, warm_n = timed([*base, "--engine", "dask", "--scheduler", address],
                                       a.out / "dask-existing.out", a.repeats)
    finally:
        assert cluster.stdin is not None
        cluster.stdin.close()
        try:
            cluster.wait(timeout=60)
        except subprocess.TimeoutExpired:
            cluster.kill()
            cluster.wait()
    first = a.out / "dask-jobs1.out"
    return [f"{a.dask_runs} runs × {a.dask_lines:,} lines; best of {a.repeats} (the whole command, including "
            f"Python start-up); memory summed over every process: the command, its workers and scheduler "
            f"(the processes summed at the peak in brackets):", "",
            "| command | seconds | overhead | peak MiB (processes) | output identical |",
            "|---|---:|---:|---:|---|",
            f"| --jobs 1 | {one:.2f} | | {one_mib:.0f} ({one_n}) | yes |",
            f"| --engine dask -j 2 (starts a local cluster) | {local:.2f} | {local - one:+.2f} s | "
            f"{local_mib:.0f} ({local_n}) | {same(first, a.out / 'dask-local.out')} |",
            f"| --engine dask --scheduler ADDRESS (scheduler and 2 workers running) | {warm:.2f} | "
            f"{warm - one:+.2f} s | {warm_mib:.0f} ({warm_n}) | {same(first, a.out / 'dask-existing.out')} |"]


def prepare(a: argparse.Namespace) -> None:
    """Generate the data of the measurements asked for."""
    wanted = a.parts.split(",")
    if "jobs" in wanted:
        make_runs(a.out, make_data(a.out, a.lines)[1], a.runs, a.lines)
    if "memory" in wanted:
        for kind in ("linking", "trec"):
            make_data(a.out, a.lines, kind)
            make_data(a.out, a.big_lines, kind)
    if "dask" in wanted:
        make_runs(a.out, make_data(a.out, a.dask_lines)[1], a.dask_runs, a.dask_lines)


def machine() -> str:
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="jobs,memory,dask", help="which measurements (default: all three)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/segeval-scale"), help="data and outputs")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lines", type=parse_count, default=1_000_000, help="lines per run (k/M allowed)")
    parser.add_argument("--big-lines", type=parse_count, default=10_000_000, help="the big run of 'memory'")
    parser.add_argument("--dask-runs", type=int, default=4)
    parser.add_argument("--dask-lines", type=parse_count, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="timings per command (best is reported)")
    parser.add_argument("--memory-repeats", type=int, default=3, help="alternating rounds of 'memory'")
    parser.add_argument("--trec-eval", default=None, help="trec_eval binary, for a row of 'memory' (optional)")
    parser.add_argument("--segeval", default=None, help="segeval command (default: the installed one)")
    parser.add_argument("--prepare", action="store_true", help="only generate the data")
    a = parser.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.prepare:
        prepare(a)
        return 0
    prepare_in_child(__file__, argv)
    segeval = find_segeval(a.segeval)
    parts = {"jobs": bench_jobs, "memory": bench_memory, "dask": bench_dask}
    lines = [f"Machine: {machine()}.", ""]
    for name in a.parts.split(","):
        lines += [*parts[name](a, segeval), ""]
    text = "\n".join(lines)
    print(text)
    return 1 if "**no**" in text else 0


if __name__ == "__main__":
    sys.exit(main())
