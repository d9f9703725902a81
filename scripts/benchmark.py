#!/usr/bin/env python3
"""Benchmark ``segeval me13sh`` against the reference MediaEval evaluator ``sh_eval.py``.

For each run size the script generates a linking-format qrels file and run with
``scripts/generate_data.py`` (seeded, so reproducible) into the output directory, times
``segeval me13sh QRELS RUN`` and, when the reference is given, ``python2 sh_eval.py QRELS RUN``,
checks that both print byte-identical output, and prints a Markdown table::

    python scripts/benchmark.py                                   # segeval only, 300k and 1M lines
    python scripts/benchmark.py --sizes 300000 \\
        --reference /path/to/sh_eval/sh_eval.py                   # with the reference, light workload
    python scripts/benchmark.py --workload heavy --sizes 300k,1M \\
        --reference /path/to/sh_eval.py --reference-max-lines 1M --json bench-out/heavy.json

The reference script is never copied: it is run in place from the path given, with its folder
as working directory and on ``PYTHONPATH`` (it imports sibling modules), with default options
only (its ``-B``/``-T`` options crash).  It is slow, so by default it only runs for sizes up to
``--reference-max-lines`` (300,000).  The generator writes one qrels file per size, because
the qrels it draws depend on the run length.

Workloads (generator settings; both with 30 queries and 2,000 videos):

* ``light`` (default): 5% of results near a judged segment, 3% of the others in a judged video
  of the query (``--hit-rate 0.05 --topical-rate 0.03``).  The reference needs about 16 s at
  300,000 lines (measured on a 2-core AMD EPYC VM), as the figure quoted for it.
* ``heavy``: the generator defaults (``--hit-rate 0.3 --topical-rate 0.3``), the data of
  ``examples/`` and the test fixtures.  The reference needs about 60-70 s at 300,000 lines:
  its cost grows with the number of results that fall in judged videos.

Measurement: each command runs as a direct child (no shell) and is reaped with ``os.wait4``,
which returns the resource usage of that one child, so its ``ru_maxrss`` is the child's own
peak resident set size (no deltas of ``RUSAGE_CHILDREN``, no polling that could miss a short
peak, no dependence on ``/usr/bin/time``).  Wall-clock time is ``time.perf_counter`` around
start and reaping.  segeval is timed ``--repeats`` times (best time, highest peak reported),
the reference ``--reference-repeats`` times (default once).  Peaks are in MiB (2**20 bytes).
Speed-up is reference time / segeval time; memory ratio is reference peak / segeval peak.

Exit status: 0 when every comparison made was byte-identical, 1 when an output differed,
2 on bad usage or when a command failed.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent
PROJECT = SCRIPTS.parent
DEFAULT_OUT = PROJECT / "bench-out"
PYENV_PYTHON2 = Path("/root/.pyenv/versions/2.7.18/bin/python")

WORKLOADS: dict[str, dict[str, float]] = {
    "light": {"hit_rate": 0.05, "topical_rate": 0.03},
    "heavy": {"hit_rate": 0.3, "topical_rate": 0.3},
}


class BenchError(Exception):
    """A command failed or the setup is unusable (exit status 2)."""


@dataclass
class Measurement:
    """Wall-clock seconds and peak RSS (MiB, ``None`` when unknown) of one command."""

    seconds: float
    peak_mib: float | None


@dataclass
class Row:
    """One line of the result table."""

    lines: int
    qrels: str
    run: str
    segeval_seconds: float
    segeval_peak_mib: float | None
    segeval_all_seconds: list[float] = field(default_factory=list)
    reference_seconds: float | None = None
    reference_peak_mib: float | None = None
    reference_status: str = "not given"
    identical: bool | None = None

    @property
    def speedup(self) -> float | None:
        if self.reference_seconds is None or self.segeval_seconds <= 0:
            return None
        return self.reference_seconds / self.segeval_seconds

    @property
    def memory_ratio(self) -> float | None:
        if self.reference_peak_mib is None or not self.segeval_peak_mib:
            return None
        return self.reference_peak_mib / self.segeval_peak_mib


def parse_count(text: str) -> int:
    """Parse a line count such as ``300000``, ``300_000``, ``300k`` or ``1M``."""
    t = text.strip().replace("_", "").lower()
    factor = 1
    if t.endswith("k"):
        factor, t = 1_000, t[:-1]
    elif t.endswith("m"):
        factor, t = 1_000_000, t[:-1]
    try:
        value = int(float(t) * factor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a line count: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"line count must be positive: {text!r}")
    return value


def parse_sizes(text: str) -> list[int]:
    """Parse a comma-separated list of line counts."""
    sizes = [parse_count(part) for part in text.split(",") if part.strip()]
    if not sizes:
        raise argparse.ArgumentTypeError("no sizes given")
    return sizes


def rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1: {text!r}")
    return value


def load_generator() -> Callable[..., None]:
    """Import ``generate()`` from ``generate_data.py`` next to this script."""
    path = SCRIPTS / "generate_data.py"
    spec = importlib.util.spec_from_file_location("segeval_generate_data", path)
    if spec is None or spec.loader is None:
        raise BenchError(f"cannot import the generator {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    generate: Callable[..., None] = module.generate
    return generate


def maxrss_mib(ru_maxrss: int) -> float:
    """``ru_maxrss`` is in KiB on Linux and the BSDs, in bytes on macOS."""
    return ru_maxrss / 2**20 if sys.platform == "darwin" else ru_maxrss / 1024


def run_measured(cmd: Sequence[str], *, stdout: Path, cwd: Path | None = None,
                 env: dict[str, str] | None = None, timeout: float | None = None) -> Measurement:
    """Run ``cmd`` with stdout to a file; return its wall time and its own peak RSS.

    Raises ``TimeoutError`` when ``timeout`` seconds pass (the child is killed) and
    ``BenchError`` when it exits with a non-zero status.
    """
    stderr = stdout.with_name(stdout.name + ".stderr")
    timed_out = threading.Event()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, cwd=cwd, env=env)

        def kill() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer is not None:
            timer.start()
        try:
            if hasattr(os, "wait4"):
                _, status, usage = os.wait4(proc.pid, 0)
                seconds = time.perf_counter() - start
                proc.returncode = os.waitstatus_to_exitcode(status)
                peak: float | None = maxrss_mib(usage.ru_maxrss)
            else:  # no per-child rusage (Windows): time only
                proc.wait()
                seconds = time.perf_counter() - start
                peak = None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            if timer is not None:
                timer.cancel()
    if timed_out.is_set() and proc.returncode == -signal.SIGKILL:
        raise TimeoutError(f"{cmd[0]} killed after {timeout:g} s")
    if proc.returncode != 0:
        tail = stderr.read_text(errors="replace")[-2000:]
        raise BenchError(f"command failed with status {proc.returncode}: {' '.join(cmd)}\n{tail}")
    return Measurement(seconds, peak)


def compile_segeval() -> None:
    """Write the bytecode of the segeval package this Python imports, as ``pip install`` does, so that
    no timed run compiles sources (an editable install run with ``PYTHONDONTWRITEBYTECODE`` set would
    compile every module of segeval at every start: about 35 ms)."""
    spec = importlib.util.find_spec("segeval")
    if spec is not None and spec.origin is not None:
        compileall.compile_dir(Path(spec.origin).parent, quiet=1)


def prepare_in_child(script: str, argv: Sequence[str] | None) -> None:
    """Run ``script`` with the same arguments and ``--prepare`` in a child process, which generates the data:
    a child forked from a big process would inherit its peak RSS."""
    args = sys.argv[1:] if argv is None else list(argv)
    subprocess.run([sys.executable, str(Path(script).resolve()), *args, "--prepare"], check=True)


def find_segeval(explicit: str | None) -> list[str]:
    """The command that runs segeval: ``--segeval``, the one next to this Python, or on PATH (the
    package's bytecode written first: :func:`compile_segeval`)."""
    compile_segeval()
    if explicit:
        return [explicit]
    beside = Path(sys.executable).parent / "segeval"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("segeval")
    if found:
        return [found]
    return [sys.executable, "-m", "segeval"]


def probe_python2(candidate: str) -> str | None:
    """The real interpreter path if ``candidate`` runs as Python 2 (pyenv shims may not)."""
    code = "import sys; sys.stdout.write(sys.executable if sys.version_info[0] == 2 else '')"
    try:
        done = subprocess.run([candidate, "-c", code], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = done.stdout.strip()
    return path if done.returncode == 0 and path else None


def find_python2(explicit: str | None) -> str:
    candidates = [explicit] if explicit else [shutil.which("python2.7"), shutil.which("python2"),
                                              str(PYENV_PYTHON2)]
    for candidate in candidates:
        if candidate:
            found = probe_python2(candidate)
            if found:
                return found
    tried = ", ".join(c for c in candidates if c) or "nothing"
    raise BenchError(f"no working Python 2 interpreter (tried {tried}); pass --python2 PATH")


def first_difference(a: Path, b: Path) -> str:
    la, lb = a.read_bytes().splitlines(), b.read_bytes().splitlines()
    for i, (x, y) in enumerate(zip(la, lb, strict=False), start=1):
        if x != y:
            return f"line {i}: segeval {x!r} vs reference {y!r}"
    return f"segeval has {len(la)} lines, reference {len(lb)}"


def fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "–" if value is None else f"{value:.{digits}f}{suffix}"


def markdown(rows: list[Row]) -> str:
    head = ["lines", "segeval s", "segeval peak MiB", "reference s", "reference peak MiB",
            "speed-up", "memory ratio", "identical"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    for r in rows:
        same = {None: r.reference_status, True: "yes", False: "**no**"}[r.identical]
        cells = [f"{r.lines:,}", fmt(r.segeval_seconds), fmt(r.segeval_peak_mib, 0),
                 fmt(r.reference_seconds, 1), fmt(r.reference_peak_mib, 0),
                 fmt(r.speedup, 1, "×"), fmt(r.memory_ratio, 2, "×"), same]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=parse_sizes, default=[300_000, 1_000_000],
                        help="comma-separated run sizes in result lines; k/M suffixes allowed "
                             "(default: 300000,1000000)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="directory for the generated data and outputs (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="segeval runs per size; the best time is reported (default: 3)")
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="light",
                        help="generator settings: light (reference ~16 s at 300k lines) or heavy "
                             "(generator defaults, reference ~60-70 s at 300k) (default: light)")
    gen = parser.add_argument_group("generator (override the workload)")
    gen.add_argument("--hit-rate", type=rate, default=None,
                     help="share of results placed near a judged segment")
    gen.add_argument("--topical-rate", type=rate, default=None,
                     help="share of the other results placed in a judged video of the query")
    gen.add_argument("--queries", type=int, default=30, help="number of queries (default: 30)")
    gen.add_argument("--videos", type=int, default=2000, help="number of videos (default: 2000)")
    gen.add_argument("--seed", type=int, default=2013, help="generator seed (default: 2013)")
    ref = parser.add_argument_group("reference evaluator")
    ref.add_argument("--reference", type=Path, default=None, metavar="PATH/TO/sh_eval.py",
                     help="the reference sh_eval.py, run in place (never copied); without it only "
                          "segeval is measured")
    ref.add_argument("--python2", default=None, metavar="PATH",
                     help="Python 2.7 interpreter for the reference (default: python2.7 or python2 "
                          f"on PATH if it works, else {PYENV_PYTHON2})")
    ref.add_argument("--reference-max-lines", type=parse_count, default=300_000, metavar="N",
                     help="run the reference only for sizes up to N lines (default: 300000)")
    ref.add_argument("--reference-repeats", type=int, default=1,
                     help="reference runs per size, best time reported (default: 1)")
    ref.add_argument("--reference-timeout", type=float, default=None, metavar="SECONDS",
                     help="kill the reference after this long and report it as timed out")
    parser.add_argument("--segeval", default=None, metavar="PATH",
                        help="segeval executable (default: the one next to this Python, else on PATH)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the settings and results as JSON to FILE")
    return parser


def benchmark(args: argparse.Namespace) -> int:
    if args.repeats < 1 or args.reference_repeats < 1:
        raise BenchError("--repeats and --reference-repeats must be at least 1")
    settings = dict(WORKLOADS[args.workload])
    if args.hit_rate is not None:
        settings["hit_rate"] = args.hit_rate
    if args.topical_rate is not None:
        settings["topical_rate"] = args.topical_rate

    segeval = find_segeval(args.segeval)
    reference: Path | None = None
    python2: str | None = None
    if args.reference is not None:
        reference = args.reference.resolve()
        if not reference.is_file():
            raise BenchError(f"reference script not found: {args.reference}")
        python2 = find_python2(args.python2)

    generate = load_generator()
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    tag = f"{args.workload}-h{settings['hit_rate']:g}-t{settings['topical_rate']:g}"
    rows: list[Row] = []
    failed = False
    for lines in args.sizes:
        stem = f"{tag}-{lines}"
        qrels, run = out / f"{stem}.qrels", out / f"{stem}.run"
        log(f"[{lines:,}] generating {run.name} ({args.queries} queries, {args.videos} videos, "
            f"hit rate {settings['hit_rate']:g}, topical rate {settings['topical_rate']:g})")
        generate(qrels, run, queries=args.queries, lines=lines, videos=args.videos, kind="linking",
                 seed=args.seed, prefix="anchor", run_name="synthetic", **settings)

        seg_out = out / f"{stem}.segeval.out"
        times: list[float] = []
        peaks: list[float] = []
        for i in range(args.repeats):
            m = run_measured([*segeval, "me13sh", str(qrels), str(run)], stdout=seg_out)
            times.append(m.seconds)
            if m.peak_mib is not None:
                peaks.append(m.peak_mib)
            log(f"[{lines:,}] segeval run {i + 1}/{args.repeats}: {m.seconds:.2f} s, "
                f"{fmt(m.peak_mib, 0)} MiB")
        row = Row(lines, str(qrels), str(run), min(times), max(peaks) if peaks else None, times)

        if reference is not None and python2 is not None:
            if lines > args.reference_max_lines:
                row.reference_status = "skipped"
                log(f"[{lines:,}] reference skipped (more than --reference-max-lines "
                    f"{args.reference_max_lines:,})")
            else:
                ref_out = out / f"{stem}.reference.out"
                env = dict(os.environ)
                env["PYTHONPATH"] = os.pathsep.join(
                    p for p in (str(reference.parent), env.get("PYTHONPATH", "")) if p)
                done: list[Measurement] = []
                try:
                    for i in range(args.reference_repeats):
                        log(f"[{lines:,}] reference run {i + 1}/{args.reference_repeats} ...")
                        m = run_measured([python2, str(reference), str(qrels), str(run)],
                                         stdout=ref_out, cwd=reference.parent, env=env,
                                         timeout=args.reference_timeout)
                        log(f"[{lines:,}] reference: {m.seconds:.1f} s, {fmt(m.peak_mib, 0)} MiB")
                        done.append(m)
                except TimeoutError as exc:
                    row.reference_status = "timed out"
                    log(f"[{lines:,}] reference {exc}")
                if done and len(done) == args.reference_repeats:
                    ref_peaks = [m.peak_mib for m in done if m.peak_mib is not None]
                    row.reference_seconds = min(m.seconds for m in done)
                    row.reference_peak_mib = max(ref_peaks) if ref_peaks else None
                    row.identical = seg_out.read_bytes() == ref_out.read_bytes()
                    row.reference_status = "ran"
                    if not row.identical:
                        failed = True
                        log(f"[{lines:,}] OUTPUTS DIFFER, {first_difference(seg_out, ref_out)}")
        rows.append(row)

    print(f"Workload `{args.workload}`: linking runs, {args.queries} queries, {args.videos} videos, "
          f"seed {args.seed}, hit rate {settings['hit_rate']:g}, topical rate "
          f"{settings['topical_rate']:g}; segeval best of {args.repeats}"
          + (f", reference best of {args.reference_repeats}" if reference else ", no reference")
          + f". Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs.\n")
    print(markdown(rows))

    if args.json is not None:
        report: dict[str, Any] = {
            "workload": args.workload,
            "generator": {"queries": args.queries, "videos": args.videos, "seed": args.seed,
                          "kind": "linking", **settings},
            "segeval": segeval,
            "reference": str(reference) if reference else None,
            "python2": python2,
            "repeats": args.repeats,
            "reference_repeats": args.reference_repeats,
            "reference_max_lines": args.reference_max_lines,
            "platform": {"python": platform.python_version(), "machine": platform.machine(),
                         "system": platform.system(), "cpus": os.cpu_count()},
            "rows": [asdict(r) | {"speedup": r.speedup, "memory_ratio": r.memory_ratio} for r in rows],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.json}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return benchmark(args)
    except BenchError as exc:
        print(f"benchmark: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
