#!/usr/bin/env python3
"""Mutation fuzzer for segeval's readers (and evaluation of what they accept).

Seeds are the example and fixture files; each iteration mutates one (byte flips, inserted
hostile tokens, deleted/duplicated/swapped fields and lines, truncation, CR/NUL/Unicode
noise), writes it to a temporary file and reads it with every reader.  The only allowed
outcomes are a result or a ``SegevalError`` naming the file (and, for a line error, the
line).  The fast lanes (``eval``'s in memory and in batches, ``me13sh``'s) read the same files:
each must give the usual path's values or give up (None), never raise.  Anything else is saved
to ``--corpus`` (default ``tests/fuzz_corpus``) as a
regression case.  Deterministic for a given ``--seed``::

    python scripts/fuzz_readers.py --seconds 600
"""

from __future__ import annotations

import argparse
import gzip
import random
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [
    ("qrels", ROOT / "examples/mediaeval/linking.qrels"),
    ("run", ROOT / "examples/mediaeval/linking_run.txt"),
    ("run", ROOT / "tests/fixtures/gen_search.run.gz"),
    ("qrels", ROOT / "examples/music/groundtruth.txt"),
    ("run", ROOT / "examples/music/run_a.txt"),
    ("qrels", ROOT / "examples/audio/qrels.txt"),
    ("trec-qrels", ROOT / "tests/fixtures/judged_only.qrels"),
    ("trec-run", ROOT / "tests/fixtures/judged_only.run"),
]
#: the file each kind is evaluated against
COMPANIONS = {"qrels": ROOT / "examples/mediaeval/linking_run.txt", "run": ROOT / "examples/mediaeval/linking.qrels",
              "trec-qrels": ROOT / "tests/fixtures/judged_only.run",
              "trec-run": ROOT / "tests/fixtures/judged_only.qrels"}
TOKENS = [b"", b" ", b"\t", b"\r", b"\r\n", b"\x00", b"\xff\xfe", b"\xc2\xa0", b"1e308", b"-0", b"0x10", b"nan", b"inf",
          b"-1", b"59.59", b"0.60", b"-0.01", b"1e3", b"99999999999999999999", b"1.5", b"|", b",", b"\"a b\"",
          "\u00e9\u4e2d\U0001f600".encode(), b"x" * 5000, b"Q0", b"0", b"1", b"3.0"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")[:200]
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(8)
        i = rng.randrange(len(lines)) if lines else 0
        if not lines:
            lines = [rng.choice(TOKENS)]
        elif kind == 0:  # replace a field
            fields = lines[i].split(b" ")
            fields[rng.randrange(len(fields))] = rng.choice(TOKENS)
            lines[i] = b" ".join(fields)
        elif kind == 1:  # delete or duplicate a field
            fields = lines[i].split(b" ")
            j = rng.randrange(len(fields))
            fields = [*fields[:j], *fields[j + 1:]] if rng.random() < 0.5 else [*fields[:j], fields[j], *fields[j:]]
            lines[i] = b" ".join(fields)
        elif kind == 2:  # flip bytes
            b = bytearray(lines[i] or b" ")
            for _ in range(rng.randint(1, 3)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            lines[i] = bytes(b)
        elif kind == 3:  # insert a token inside a line
            pos = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:pos] + rng.choice(TOKENS) + lines[i][pos:]
        elif kind == 4:  # duplicate or drop a line
            lines = [*lines[:i], *lines[i + 1:]] if rng.random() < 0.5 else [*lines[:i], lines[i], *lines[i:]]
        elif kind == 5:  # swap lines
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 6:  # truncate
            lines = lines[: rng.randint(0, len(lines))]
        else:  # change line endings
            return rng.choice([b"\r\n", b"\r", b"\n\n"]).join(lines)
    return b"\n".join(lines)


def check(kind: str, path: Path, companion: Path) -> str | None:
    """None when the outcome is allowed, else a description of the failure."""
    from segeval.errors import InputError, SegevalError
    from segeval.io.tables import read_qrels, read_run
    from segeval.pipeline import evaluate

    qrels, run = (path, companion) if kind.endswith("qrels") else (companion, path)
    try:
        if kind.endswith("qrels"):
            q = read_qrels(path)
            evaluate(q, companion, ["map", "P_10", "adr"], adapter="overlap" if q["start"].notna().all() else None)
        else:
            r = read_run(path)
            evaluate(companion, r, ["map", "P_10"])
    except InputError as exc:
        if exc.path not in (str(path), str(companion)):
            return f"InputError names another file: {exc}"
    except SegevalError:
        pass
    except Exception:
        return traceback.format_exc(limit=6)
    try:
        return _check_lanes(kind, str(qrels), str(run))
    except Exception:
        return traceback.format_exc(limit=6)


def _check_lanes(kind: str, qrels: str, run: str) -> str | None:
    """A lane that answers must give the usual path's values; one that cannot must give up."""
    from segeval.errors import SegevalError
    from segeval.pipeline import evaluate

    if kind.startswith("trec-"):
        from segeval.engines.fastlane import lane_values
        from segeval.engines.streamlane import stream_values
        from segeval.settings import EngineOptions, Job

        job = Job(("official", "ndcg_cut"))
        answers = {"fast lane": lane_values(qrels, run, job),
                   "streaming lane": stream_values(qrels, run, Job(job.measures, engine=EngineOptions(chunk_lines=3)))}
        measures = list(job.measures)
        usual = lambda: evaluate(qrels, run, measures)  # noqa: E731
    elif kind in ("qrels", "run"):  # against a MediaEval linking file: the me13sh lane
        from segeval.adapt.registry import me13sh_adapters
        from segeval.engines.me13sh_lane import me13sh_evaluation
        from segeval.report.me13sh import MEASURES

        adapters = me13sh_adapters(300, 15)
        answers = {"me13sh lane": me13sh_evaluation(qrels, run, "linking", MEASURES, adapters)}
        usual = lambda: evaluate(qrels, run, MEASURES, adapters, qrels_format="mediaeval",  # noqa: E731
                                 run_format="linking")
    else:
        return None
    for name, got in answers.items():
        if got is None:
            continue
        try:
            ev = usual()
        except SegevalError as exc:
            return f"the {name} answered where the usual path refuses: {exc}"
        if got.queries != ev.queries or any(got.per_query[r.name] != ev.per_query[r.name] for r in ev.requests):
            return f"the {name} differs from the usual path"
    return None


def fuzz(seconds: float = 60.0, seed: int = 0, corpus: Path = ROOT / "tests" / "fuzz_corpus",
         iterations: int | None = None) -> tuple[int, int, dict[str, int]]:
    """Run until ``seconds`` pass (or ``iterations`` cases); return (executions, failures, failure kinds)."""
    rng = random.Random(seed)
    seeds = []
    for kind, path in SEEDS:
        raw = path.read_bytes()
        seeds.append((kind, gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw))
    executions = failures = 0
    kinds: dict[str, int] = {}
    end = time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < end and (iterations is None or executions < iterations):
            kind, data = rng.choice(seeds)
            mutated = mutate(data, rng)
            path = Path(tmp) / ("case.gz" if rng.random() < 0.1 else "case.txt")
            path.write_bytes(gzip.compress(mutated) if path.suffix == ".gz" else mutated)
            problem = check(kind, path, COMPANIONS[kind])
            executions += 1
            if problem:
                failures += 1
                key = problem.strip().splitlines()[-1][:80]
                kinds[key] = kinds.get(key, 0) + 1
                corpus.mkdir(parents=True, exist_ok=True)
                (corpus / f"{kind}-{executions:07d}.bin").write_bytes(mutated)
                (corpus / f"{kind}-{executions:07d}.txt").write_text(problem)
    return executions, failures, kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "fuzz_corpus")
    a = parser.parse_args()
    executions, failures, kinds = fuzz(a.seconds, a.seed, a.corpus)
    print(f"executions: {executions}, failures: {failures}, seconds: {a.seconds:g}, seed: {a.seed}")
    for key, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:6d}  {key}")


if __name__ == "__main__":
    main()
