"""Keyword search at Babel scale: segeval kws against NIST F4DE KWSEval, side by side.

    python scripts/kws_benchmark.py DIR [SCALE]          # generate the inputs in DIR and time segeval
    F4DE_BASE=/path/to/F4DE python scripts/kws_benchmark.py DIR   # and KWSEval (long)

SCALE (default 1) divides the files, terms and detections: 10 gives 1 hour, 200 terms, 20,000 detections.

The inputs: 10 hours of speech (20 files of 30 minutes, about 2.5 words a second), 2,000 terms (1,600
words and 400 two-word phrases taken from the transcript) and 200,000 detections (about 70% of the
occurrences found, jittered; the rest false alarms), YES when the score is at least 0.5. Both tools write
the summary and per-term reports; the figures are checked to be the same (the tables without KWSEval's
progress lines), and the wall-clock and CPU seconds of each whole command are printed (CPU is the fair
comparison on a shared machine).
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

FILE_SECONDS = 1800.0


def generate(folder: Path, scale: int = 1, seed: int = 2026) -> None:
    files, n_detections = 20 // scale, 200_000 // scale
    rng = random.Random(seed)
    vocabulary = [f"w{i:04d}" for i in range(4000)]
    weights = [1 / (i + 10) for i in range(len(vocabulary))]  # Zipf-like word frequencies
    lexemes: list[tuple[str, float, float, str]] = []
    for f in range(files):
        t = 0.2
        words = rng.choices(vocabulary, weights, k=int(FILE_SECONDS * 2.6))
        for word in words:
            dur = round(rng.uniform(0.15, 0.45), 2)
            if t + dur > FILE_SECONDS - 0.5:
                break
            lexemes.append((f"BAB{f:03d}", round(t, 2), dur, word))
            t += dur + round(rng.choice([0.0, 0.02, 0.05, 0.1, 0.2, 0.4]), 2)
    singles = rng.sample(vocabulary[:3000], 1600 // scale)
    pairs: set[str] = set()
    while len(pairs) < 400 // scale:
        i = rng.randrange(len(lexemes) - 1)
        if lexemes[i][0] == lexemes[i + 1][0]:
            pairs.add(f"{lexemes[i][3]} {lexemes[i + 1][3]}")
    terms = [(f"KW-{i:04d}", text) for i, text in enumerate(singles + sorted(pairs))]
    where: dict[str, list[tuple[str, float, float]]] = {}
    for i, (f, b, d, w) in enumerate(lexemes):
        where.setdefault(w, []).append((f, b, b + d))
        if i + 1 < len(lexemes) and lexemes[i + 1][0] == f:
            _, nb, nd, nw = lexemes[i + 1]
            where.setdefault(f"{w} {nw}", []).append((f, b, nb + nd))
    detections: dict[str, list[tuple[str, float, float, float]]] = {k: [] for k, _ in terms}
    count = 0
    for kwid, text in terms:
        for f, b, e in where.get(text, []):
            if rng.random() < 0.7 and count < n_detections * 0.6:
                shift = rng.uniform(-0.3, 0.3)
                detections[kwid].append((f, max(0.0, round(b + shift, 2)), round(e - b, 2), rng.betavariate(4, 2)))
                count += 1
    while count < n_detections:
        kwid = terms[rng.randrange(len(terms))][0]
        detections[kwid].append((f"BAB{rng.randrange(files):03d}", round(rng.uniform(0, FILE_SECONDS - 2), 2),
                                 round(rng.uniform(0.2, 0.8), 2), rng.betavariate(2, 4)))
        count += 1
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "bench.ecf.xml", "w") as out:
        out.write(f'<ecf source_signal_duration="{files * FILE_SECONDS:.3f}" language="x" version="bench">\n')
        for f in range(files):
            out.write(f'  <excerpt audio_filename="BAB{f:03d}.sph" channel="1" tbeg="0.000" dur="{FILE_SECONDS:.3f}" '
                      'source_type="cts"/>\n')
        out.write("</ecf>\n")
    with open(folder / "bench.rttm", "w") as out:
        for f, b, d, w in lexemes:
            out.write(f"LEXEME {f} 1 {b:.2f} {d:.2f} {w} lex spk_{f} <NA>\n")
    with open(folder / "bench.kwlist.xml", "w") as out:
        out.write('<kwlist ecf_filename="bench.ecf.xml" version="bench" language="x" compareNormalize="lowercase" '
                  'encoding="UTF-8">\n')
        for kwid, text in terms:
            out.write(f'  <kw kwid="{kwid}">\n    <kwtext>{text}</kwtext>\n  </kw>\n')
        out.write("</kwlist>\n")
    with open(folder / "bench.kwslist.xml", "w") as out:
        out.write('<kwslist kwlist_filename="bench.kwlist.xml" language="x" system_id="bench">\n')
        for kwid, _ in terms:
            out.write(f'  <detected_kwlist kwid="{kwid}" search_time="1.0" oov_count="0">\n')
            for f, b, d, s in detections[kwid]:
                out.write(f'    <kw file="{f}" channel="1" tbeg="{b:.2f}" dur="{d:.2f}" score="{s:.6f}" '
                          f'decision="{"YES" if s >= 0.5 else "NO"}"/>\n')
            out.write("  </detected_kwlist>\n")
        out.write("</kwslist>\n")


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall-clock seconds, CPU seconds of the child, its standard output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main() -> None:
    folder = Path(sys.argv[1]).resolve()
    if not (folder / "bench.kwslist.xml").exists():
        generate(folder, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    inputs = ["-e", "bench.ecf.xml", "-r", "bench.rttm", "-t", "bench.kwlist.xml", "-s", "bench.kwslist.xml"]
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    seconds, cpu, ours = timed([sys.executable, "-m", "segeval", "kws", *inputs], folder, env)
    print(f"segeval kws: {seconds:.1f} s wall, {cpu:.1f} s CPU")
    if "F4DE_BASE" in os.environ:
        base = Path(os.environ["F4DE_BASE"])
        env.update(PERL_PERTURB_KEYS="0", PERL_HASH_SEED="0")
        kwseval = ["perl", "-x", "-I", str(base / "common/lib"), "-I", str(base / "KWSEval/lib"),
                   str(base / "KWSEval/tools/KWSEval/KWSEval.pl"), *inputs, "-o", "-b", "-f", "-"]
        theirs_seconds, theirs_cpu, theirs = timed(kwseval, folder, env)
        tables = "".join(line for line in theirs.splitlines(keepends=True)
                         if not line.startswith(("Loading ", "Performing ", "Computing ", "Summary Report: ",
                                                 "Block Summary Report: ")))
        print(f"KWSEval: {theirs_seconds:.1f} s wall, {theirs_cpu:.1f} s CPU ({theirs_cpu / cpu:.1f}x the CPU); "
              f"same tables: {tables == ours}")


if __name__ == "__main__":
    main()
