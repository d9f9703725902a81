#!/usr/bin/env python3
"""One table: segeval against trec_eval, pytrec_eval, ir_measures and ranx, end to end from files.

For each size (``--sizes``, default 100k,1M,10M run lines) the script generates a TREC run and
qrels with ``scripts/generate_data.py`` (1,000 results and 300 judged documents per query, scores
with 3 decimals so ties occur), then runs every tool on them ``--repeats`` times, alternating the
tools within each round so that all see the same machine state.  Each run is a fresh process
measured with ``os.wait4`` (wall time, the process's own peak RSS); the table gives the medians
and the ratio to trec_eval's median.  Measures: MAP, P@10 and nDCG@10 (what every tool computes)::

    segeval      segeval eval -m map -m P_10 -m ndcg_cut_10 QRELS RUN
    trec_eval    trec_eval -m map -m P.10 -m ndcg_cut.10 QRELS RUN         (--trec-eval PATH, C)
    pytrec_eval  python: pytrec_eval.parse_qrel/parse_run, RelevanceEvaluator(...).evaluate, means
    ir_measures  ir_measures QRELS RUN "AP P@10 nDCG@10"                  (its CLI)
    ranx         python: Qrels.from_file, Run.from_file, evaluate(...)      (numba start-up included)

Every tool's three means are compared with trec_eval's (largest absolute difference; trec_eval
prints 4 decimals), and segeval's output must be byte-identical to trec_eval's.  Tools that are
not installed are skipped; the Python peers are skipped above ``--peer-max-lines`` (default 1M,
they need minutes and gigabytes at 10M) and any command is stopped after ``--timeout`` seconds.
``--write`` replaces the section between ``<!-- benchmark table -->`` and
``<!-- /benchmark table -->`` in docs/benchmarks.md (appended when absent)::

    pip install pytrec-eval-terrier ir-measures ranx
    python scripts/benchmark_tools.py --trec-eval /path/to/trec_eval --sizes 100k,1M --repeats 5 --write
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from benchmark import BenchError, find_segeval, parse_count, parse_sizes, run_measured  # noqa: E402

DOC = SCRIPTS.parent / "docs" / "benchmarks.md"
BEGIN, END = "<!-- benchmark table -->", "<!-- /benchmark table -->"
PER_QUERY, JUDGED = 1000, 300
NAMES = ("map", "P_10", "ndcg_cut_10")

PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10"}).evaluate(run)
for m in ("map", "P_10", "ndcg_cut_10"):
    print(m, "all", "%.4f" % (sum(v[m] for v in res.values()) / len(res)))
"""

RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
res = evaluate(qrels, run, ["map", "precision@10", "ndcg@10"])
for m, k in (("map", "map"), ("P_10", "precision@10"), ("ndcg_cut_10", "ndcg@10")):
    print(m, "all", "%.4f" % res[k])
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def commands(a: argparse.Namespace, qrels: Path, run: Path) -> dict[str, list[str]]:
    """The command of each available tool."""
    out: dict[str, list[str]] = {
        "segeval": [*find_segeval(a.segeval), "eval", "-m", "map", "-m", "P_10", "-m", "ndcg_cut_10",
                    str(qrels), str(run)]}
    if a.trec_eval:
        out["trec_eval"] = [a.trec_eval, "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", str(qrels), str(run)]
    if importlib.util.find_spec("pytrec_eval"):
        out["pytrec_eval"] = [sys.executable, "-c", PYTREC, str(qrels), str(run)]
    irm = shutil.which("ir_measures") or str(Path(sys.executable).with_name("ir_measures"))
    if importlib.util.find_spec("ir_measures") and Path(irm).exists():
        out["ir_measures"] = [irm, str(qrels), str(run), "AP P@10 nDCG@10"]
    if importlib.util.find_spec("ranx"):
        out["ranx"] = [sys.executable, "-W", "ignore", "-c", RANX, str(qrels), str(run)]
    return out


def means(text: str) -> dict[str, float]:
    """The three means from any tool's output (trec_eval's lines, ir_measures' ``AP\\t0.1``)."""
    alias = {"map": "map", "P_10": "P_10", "ndcg_cut_10": "ndcg_cut_10", "AP": "map", "P@10": "P_10",
             "nDCG@10": "ndcg_cut_10"}
    found: dict[str, float] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] in alias and (len(fields) == 2 or fields[1] == "all"):
            found[alias[fields[0]]] = float(fields[-1])
    return found


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, {platform.system()}, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=parse_sizes, default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=5, help="alternating rounds per size (median reported)")
    parser.add_argument("--trec-eval", default=None, help="path to a trec_eval binary (built from usnistgov/trec_eval)")
    parser.add_argument("--segeval", default=None, help="segeval command (default: the installed one)")
    parser.add_argument("--peer-max-lines", type=parse_count, default=1_000_000,
                        help="run pytrec_eval, ir_measures and ranx only up to this many lines")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before a command is stopped")
    parser.add_argument("--out", type=Path, default=Path("/tmp/segeval-tools"), help="data and outputs")
    parser.add_argument("--write", action="store_true", help=f"write the table into {DOC.name}")
    parser.add_argument("--prepare", action="store_true", help="only generate the data")
    a = parser.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.prepare:
        from generate_data import generate_trec

        for lines in a.sizes:
            qrels, run = a.out / f"trec-{lines}.qrels", a.out / f"trec-{lines}.run"
            if not (qrels.exists() and run.exists()):
                log(f"generating {run} ...")
                generate_trec(qrels, run, queries=max(1, lines // PER_QUERY), lines=lines, judged=JUDGED,
                              documents=2_000_000, seed=2013)
        return 0
    # generate in a child: a child forked from a big process would inherit its peak RSS
    subprocess.run([sys.executable, str(Path(__file__).resolve()), *(sys.argv[1:] if argv is None else argv),
                    "--prepare"], check=True)
    load = os.getloadavg()
    rows: list[str] = []
    bad = False
    for lines in a.sizes:
        qrels, run = a.out / f"trec-{lines}.qrels", a.out / f"trec-{lines}.run"
        tools = commands(a, qrels, run)
        if lines > a.peer_max_lines:
            tools = {k: v for k, v in tools.items() if k in ("segeval", "trec_eval")}
        times: dict[str, list[float]] = {k: [] for k in tools}
        peaks: dict[str, list[float]] = {k: [] for k in tools}
        failed: dict[str, str] = {}
        for r in range(a.repeats):
            for name, cmd in tools.items():
                if name in failed:
                    continue
                try:
                    m = run_measured(cmd, stdout=a.out / f"{lines}.{name}.out", timeout=a.timeout)
                except (TimeoutError, BenchError) as exc:
                    failed[name] = str(exc).splitlines()[0]
                    log(f"[{lines:,}] {name}: {failed[name]}")
                    continue
                times[name].append(m.seconds)
                peaks[name].append(m.peak_mib or float("nan"))
                log(f"[{lines:,}] round {r + 1}/{a.repeats} {name}: {m.seconds:.2f} s, {m.peak_mib or 0:.0f} MiB")
        ref = means((a.out / f"{lines}.trec_eval.out").read_text()) if "trec_eval" in times else {}
        base = statistics.median(times["trec_eval"]) if times.get("trec_eval") else None
        for name in tools:
            if name in failed or not times[name]:
                rows.append(f"| {lines:,} | {name} | – | – | – | – | {failed.get(name, 'not run')} |")
                continue
            med, peak = statistics.median(times[name]), statistics.median(peaks[name])
            got = means((a.out / f"{lines}.{name}.out").read_text())
            if ref:
                diffs = [abs(got[k] - ref[k]) if k in got else float("inf") for k in NAMES]
                check = f"{max(diffs):.4f}"
                if name == "segeval":
                    outputs = [(a.out / f"{lines}.{t}.out").read_bytes() for t in ("segeval", "trec_eval")]
                    same = outputs[0] == outputs[1]
                    check += ", byte-identical" if same else ", **output differs**"
                    bad |= not same
            else:
                check = "no trec_eval"
            ratio = f"{med / base:.2f}×" if base else "–"
            rows.append(f"| {lines:,} | {name} | {med:.2f} | {ratio} | {peak:.0f} | {len(times[name])} | {check} |")
    text = "\n".join([
        BEGIN,
        f"MAP, P@10 and nDCG@10 from files, end to end (a fresh process each, start-up included); generated "
        f"TREC runs, {PER_QUERY:,} results and {JUDGED} judged documents per query; median of {a.repeats} "
        f"rounds alternating the tools. Machine: {machine()}; load average at the start "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min). Regenerate with "
        f"`python scripts/benchmark_tools.py --trec-eval PATH --write`.",
        "",
        "| run lines | tool | seconds | × trec_eval | peak MiB | runs | largest difference to trec_eval's means |",
        "|---:|---|---:|---:|---:|---:|---|",
        *rows,
        END])
    print(text)
    if a.write:
        doc = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        doc = pattern.sub(lambda _: text, doc) if pattern.search(doc) else doc.rstrip("\n") + "\n\n" + text + "\n"
        DOC.write_text(doc)
        log(f"wrote {DOC}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
