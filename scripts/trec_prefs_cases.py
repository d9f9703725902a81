"""Generate judgement-group and preference cases (trec_eval's ``-R qrels_jg``, ``prefs``, ``qrels_prefs``) and
store trec_eval 10.0's and 9.0.8's outputs.

Usage: python scripts/trec_prefs_cases.py TREC_EVAL_10 TREC_EVAL_9 OUT_DIR

Writes OUT_DIR/cases.json (each case's format, judgements, run, run for ``-c`` and flag sets) and
OUT_DIR/outputs.json.gz (each binary's exit code, a signal as 128 + its number, and output, by
``case|flags|version``).  Every case is drawn from a seed (:func:`case`): judgement
groups whose ids sort differently as strings and numbers, groups without a relevant document or with one level
only, negative grades, documents judged by some groups only; preferences in groups of one subgroup (a document
listed twice at one level, levels 0 and fractions) and of several (drawn from one hidden order per group, so
their transitive closure never contradicts itself); runs with scores rounded to one decimal (ties, which
trec_eval's preference code breaks by docno ascending), a run query without judgements, and under ``-c`` a judged
query without results.  The ``bad.*`` cases
are judgements trec_eval refuses: a document at two levels of one subgroup, level 0 and above 0 in one group,
contradicting subgroups (trec_eval aborts), a document twice in one judgement group of qrels_jg.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

SEEDS = range(6)
#: the flag sets of each format (trec_eval's sets; -q, -c, -M, and for judgement groups -l, -J, parameters)
FLAGS = {
    "qrels_jg": {"q": ("-q", "-m", "qrels_jg"), "sum": ("-m", "qrels_jg"), "c": ("-q", "-c", "-m", "qrels_jg"),
                 "M": ("-q", "-M", "4", "-m", "qrels_jg"), "l2": ("-q", "-l", "2", "-m", "qrels_jg"),
                 "J": ("-q", "-J", "-m", "qrels_jg"),
                 "params": ("-q", "-m", "P_avgjg.3,7", "-m", "Rprec_mult_avgjg.0.5,1.5", "-m", "map_avgjg")},
    "prefs": {"q": ("-q", "-m", "all_prefs"), "sum": ("-m", "all_prefs"), "c": ("-q", "-c", "-m", "all_prefs"),
              "M": ("-q", "-M", "4", "-m", "all_prefs"), "short": ("-q", "-m", "prefs")},
}
FLAGS["qrels_prefs"] = FLAGS["prefs"]
DOCS = [f"d{i}" for i in range(24)]


def _run(rng: random.Random, queries: list[str]) -> str:
    out = []
    for q in queries:
        docs = rng.sample(DOCS, rng.randint(1, 18))
        out += [f"{q} Q0 {d} {r} {round(rng.random(), 1)} run{q}\n" for r, d in enumerate(docs, start=1)]
    return "".join(out)


def qrels_jg(rng: random.Random) -> tuple[str, str]:
    lines = []
    for q in ("1", "2", "10", "3"):
        for g in rng.sample(["u1", "u2", "u10", "9", "a"], rng.randint(1, 4)):
            top = rng.choice([0, 1, 3])  # 0: a group without a relevant document
            grades = [-1, *range(top + 1)]
            lines += [f"{q} {g} {d} {rng.choice(grades)}\n" for d in rng.sample(DOCS, rng.randint(1, 14))]
    rng.shuffle(lines)
    return "".join(lines), _run(rng, ["1", "2", "10", "3", "4"])


def _levels(rng: random.Random) -> list[float]:
    return rng.choice([[0.0, 1.0], [0.0, 1.0, 2.0, 3.5], [1.0, 2.0, 3.0], [0.0, 0.5, 2.0], [0.0, 0.0, 0.0, 1.0, 2.0]])


def prefs(rng: random.Random) -> tuple[str, str]:
    lines = []
    for q in ("1", "2", "10", "3"):
        for g in rng.sample(["u1", "u2", "u10", "x"], rng.randint(1, 3)):
            hidden = {d: rng.choice(_levels(rng)) for d in rng.sample(DOCS, rng.randint(2, 12))}
            for s in range(rng.choice([1, 1, 2, 3])):
                scale, shift = rng.choice([1.0, 2.0]), rng.choice([0.0, 0.25])
                for d in rng.sample(sorted(hidden), rng.randint(2, len(hidden))):
                    level = hidden[d] and hidden[d] * scale + shift  # 0 stays 0: one order in every subgroup
                    lines.append(f"{q} {g} s{s} {d} {level}\n")
                    if rng.random() < 0.05:
                        lines.append(lines[-1])  # listed twice at one level
    rng.shuffle(lines)
    return "".join(lines), _run(rng, ["1", "2", "10", "3", "4"])


def qrels_prefs(rng: random.Random) -> tuple[str, str]:
    lines = []
    for q in ("1", "2", "10", "3"):
        for g in rng.sample(["0", "1", "u10"], rng.randint(1, 3)):
            lines += [f"{q} {g} {d} {rng.choice(_levels(rng))}\n" for d in rng.sample(DOCS, rng.randint(1, 16))]
    rng.shuffle(lines)
    return "".join(lines), _run(rng, ["1", "2", "10", "3", "4"])


RUN = "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n1 Q0 c 3 1 r\n"
BAD = {
    "two_levels": ("prefs", "1 g s a 2\n1 g s b 1\n1 g s a 1\n"),
    "zero_and_above": ("prefs", "1 g s a 2\n1 g s b 0\n1 g t b 1\n1 g t c 0\n"),
    "contradiction": ("prefs", "1 g s a 2\n1 g s b 1\n1 g t b 2\n1 g t c 1\n1 g u c 2\n1 g u a 1\n"),
    "duplicate_jg": ("qrels_jg", "1 g a 1\n1 g b 0\n1 g a 0\n"),
}


def cases() -> dict[str, tuple[str, str, str]]:
    """Every case: (format, judgements, run)."""
    out = {f"{f.__name__}.{seed}": (f.__name__, *f(random.Random(seed)))
           for f in (qrels_jg, prefs, qrels_prefs) for seed in SEEDS}
    out.update({f"bad.{name}": (fmt, text, RUN) for name, (fmt, text) in BAD.items()})
    return out


def flag_sets(name: str, fmt: str) -> dict[str, tuple[str, ...]]:
    return {"q": FLAGS[fmt]["q"]} if name.startswith("bad.") else FLAGS[fmt]


def run_for(run: str, flags_name: str) -> str:
    """The run of a flag set: without query 3 for -c (which evaluates it on an empty ranking); every judged
    query has results otherwise (trec_eval 10 stops at a judged query without results: exit 4)."""
    return "".join(line for line in run.splitlines(keepends=True) if flags_name != "c" or line.split()[0] != "3")


def run_binary(binary: str, fmt: str, judgements: str, run: str, flags: tuple[str, ...],
               work: Path) -> tuple[int, str]:
    """The binary's exit code (a signal as 128 + its number) and output."""
    (work / "rel").write_text(judgements)
    (work / "run").write_text(run)
    done = subprocess.run([binary, "-R", fmt, *flags, str(work / "rel"), str(work / "run")], capture_output=True,
                          text=True, check=False)
    return (done.returncode if done.returncode >= 0 else 128 - done.returncode), done.stdout


def main(argv: list[str]) -> None:
    te10, te9, out = argv
    stored: dict[str, tuple[int, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (fmt, judgements, run) in cases().items():
            for flags_name, flags in flag_sets(name, fmt).items():
                for version, binary in (("10", te10), ("9", te9)):
                    stored[f"{name}|{flags_name}|{version}"] = run_binary(
                        binary, fmt, judgements, run_for(run, flags_name), flags, Path(tmp))
    Path(out).mkdir(parents=True, exist_ok=True)
    shown = {name: {"format": fmt, "judgements": judgements, "run": run, "run_c": run_for(run, "c"),
                    "flags": flag_sets(name, fmt)} for name, (fmt, judgements, run) in cases().items()}
    Path(out, "cases.json").write_text(json.dumps(shown, indent=0, sort_keys=True) + "\n")
    with gzip.GzipFile(Path(out, "outputs.json.gz"), "wb", mtime=0) as f:
        f.write(json.dumps(stored, sort_keys=True).encode())
    print(f"{len(stored)} outputs stored in {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
