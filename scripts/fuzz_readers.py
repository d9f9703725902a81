#!/usr/bin/env python3
"""Mutation fuzzer for segeval's readers (and evaluation of what they accept).

Seeds are the example and fixture files; each iteration mutates one (byte flips, inserted
hostile tokens, deleted/duplicated/swapped fields and lines, truncation, CR/NUL/Unicode
noise), writes it to a temporary file and reads it with every reader.  The only allowed
outcomes are a result or a ``SegevalError`` naming the file (and, for a line error, the
line).  The fast lanes (``eval``'s in memory and in batches, ``me13sh``'s) read the same files
with every registered measure they compute (the families with a vectorised form): each must
give the usual path's values or give up (None), never raise, never differ.  Anything else is saved to
``--corpus`` (default ``tests/fuzz_corpus``) as a regression case.

Give-up budget (a give-up counts when a lane returns None on a file the usual path evaluates,
with at least one query in both files):

* on the unmutated seeds, which are valid files of the lanes' formats: **0** (each seed is
  checked once before the mutations; a give-up there is a failure);
* on mutated files: at most ``GIVE_UP_BUDGET`` (15%) of the (lane, file) pairs the usual path
  evaluates.  Mutations that keep a file valid are mostly ones the lanes leave to the usual path
  on purpose (lines swapped so a query's lines are no longer together, which the streaming lane
  needs; CR line ends, a control character, a blank line, an extra field: the strict reader
  decides), so the rate is not 0.  Measured on 26 Nov 2026 (400 cases each): seed 11, 13 of 117
  (11.1%: streaming lane 7, fast lane 5, me13sh lane 1); seed 0, 12 of 109 (11.0%: streaming 9,
  fast 3).  Above the budget the run fails; the give-ups are printed by lane.  Lower the budget
  when the lanes give up less.

The rate is printed with the result.  Deterministic for a given ``--seed``::

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
from typing import Any

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
#: the share of (lane, mutated file the usual path evaluates) pairs on which a lane may give up
GIVE_UP_BUDGET = 0.15
#: give-ups by lane (for the report)
GAVE_UP: dict[str, int] = {}


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
    return check_counted(kind, path, companion)[0]


def check_counted(kind: str, path: Path, companion: Path) -> tuple[str | None, int, int]:
    """(:func:`check`'s answer, lanes that gave up on a file the usual path evaluates, lanes asked on
    such a file)."""
    from segeval.core.errors import InputError, SegevalError
    from segeval.core.pipeline import evaluate
    from segeval.readers.tables import read_qrels, read_run

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
            return f"InputError names another file: {exc}", 0, 0
    except SegevalError:
        pass
    except Exception:
        return traceback.format_exc(limit=6), 0, 0
    try:
        return _check_lanes(kind, str(qrels), str(run))
    except Exception:
        return traceback.format_exc(limit=6), 0, 0


def lane_measures() -> list[str]:
    """Every registered family the lanes compute (those with a vectorised form), from the registry."""
    from segeval.measures.definitions import FAMILIES

    return [f.name for f in FAMILIES if f.batch is not None]


def _check_lanes(kind: str, qrels: str, run: str) -> tuple[str | None, int, int]:
    """A lane that answers must give the usual path's values; one that cannot must give up.  Also
    (gave up, asked): the lanes that gave up on files the usual path evaluates, out of those asked."""
    from segeval.core.errors import SegevalError
    from segeval.core.pipeline import evaluate

    alone: dict[str, Any] = {}
    if kind.startswith("trec-"):
        from segeval.core.settings import EngineOptions, Job
        from segeval.executors.lanes import lane_values

        measures = lane_measures()
        job = Job(tuple(measures))
        chunked = Job(job.measures, engine=EngineOptions(chunk_lines=3))
        answers = {"fast lane": _evaluation(lane_values(qrels, run, job)),
                   "streaming lane": _evaluation(lane_values(qrels, run, chunked, chunks=True))}
        # and each family alone (-m ndcg alone once printed 0 where it was right beside ndcg_cut), when the
        # lane answers the whole job (these do not count as more give-ups)
        if answers["fast lane"] is not None:
            alone = {f"fast lane, -m {m} alone": _evaluation(lane_values(qrels, run, Job((m,)))) for m in measures}
        usual = lambda: evaluate(qrels, run, measures)  # noqa: E731
    elif kind in ("qrels", "run"):  # against a MediaEval linking file: the me13sh lane
        from segeval.adapters.registry import me13sh_adapters
        from segeval.executors.lanes import me13sh_evaluation
        from segeval.reports.me13sh import MEASURES

        adapters = me13sh_adapters(300, 15)
        answers = {"me13sh lane": me13sh_evaluation(qrels, run, "linking", MEASURES, adapters)}
        usual = lambda: evaluate(qrels, run, MEASURES, adapters, qrels_format="mediaeval",  # noqa: E731
                                 run_format="linking")
    else:
        return None, 0, 0
    counted = list(answers)
    answers |= alone
    try:
        ev = usual()
    except SegevalError as exc:
        answered = [name for name, got in answers.items() if got is not None]
        if answered:
            return f"the {answered[0]} answered where the usual path refuses: {exc}", 0, 0
        return None, 0, 0
    # a lane leaves a file with no query to evaluate to the usual path (which writes the note): not a give-up
    gave_up = [name for name in counted if answers[name] is None] if ev.queries else []
    for name in gave_up:
        GAVE_UP[name] = GAVE_UP.get(name, 0) + 1
    for name, got in answers.items():
        if got is None:
            continue
        mine = [r for r in ev.requests if r.name in got.per_query]
        if got.queries != ev.queries or len(mine) != len(got.per_query) or \
                any(got.per_query[r.name] != ev.per_query[r.name] for r in mine):
            wrong = next((r.name for r in mine if got.per_query[r.name] != ev.per_query[r.name]), "queries")
            return f"the {name} differs from the usual path ({wrong})", len(gave_up), len(counted)
    return None, len(gave_up), len(counted) if ev.queries else 0


def _evaluation(result: Any) -> Any:
    """A lane's evaluation (None: it gave up)."""
    return None if result is None else result.evaluation


def gave_up_on_seeds(seeds: list[tuple[str, Path]] | None = None) -> list[str]:
    """The (lane, seed) pairs where a lane gives up on an unmutated seed the usual path evaluates
    (budget 0), or fails on it."""
    problems = []
    for kind, path in seeds or SEEDS:
        problem, gave_up, _ = check_counted(kind, path, COMPANIONS[kind])
        if problem:
            problems.append(f"{path.name}: {problem.strip().splitlines()[-1]}")
        elif gave_up:
            problems.append(f"a lane gave up on the valid seed {path.name} ({kind})")
    return problems


def fuzz(seconds: float = 60.0, seed: int = 0, corpus: Path = ROOT / "tests" / "fuzz_corpus",
         iterations: int | None = None, stats: dict[str, float] | None = None) -> tuple[int, int, dict[str, int]]:
    """Run until ``seconds`` pass (or ``iterations`` cases); return (executions, failures, failure kinds).

    The unmutated seeds go first (a lane that gives up on one is a failure); after the mutations, a
    give-up rate above :data:`GIVE_UP_BUDGET` is one more failure.  ``stats`` (if given) receives the
    give-ups, the lane questions on files the usual path evaluates, and the rate."""
    rng = random.Random(seed)
    seeds = []
    for kind, path in SEEDS:
        raw = path.read_bytes()
        seeds.append((kind, gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw))
    executions = failures = gave_up = asked = 0
    kinds: dict[str, int] = {}
    for problem in gave_up_on_seeds():
        failures += 1
        kinds[problem[:120]] = kinds.get(problem[:120], 0) + 1
    end = time.monotonic() + seconds
    GAVE_UP.clear()
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < end and (iterations is None or executions < iterations):
            kind, data = rng.choice(seeds)
            mutated = mutate(data, rng)
            path = Path(tmp) / ("case.gz" if rng.random() < 0.1 else "case.txt")
            path.write_bytes(gzip.compress(mutated) if path.suffix == ".gz" else mutated)
            problem, lanes_gave_up, lanes_asked = check_counted(kind, path, COMPANIONS[kind])
            gave_up += lanes_gave_up
            asked += lanes_asked
            executions += 1
            if problem:
                failures += 1
                key = problem.strip().splitlines()[-1][:80]
                kinds[key] = kinds.get(key, 0) + 1
                corpus.mkdir(parents=True, exist_ok=True)
                (corpus / f"{kind}-{executions:07d}.bin").write_bytes(mutated)
                (corpus / f"{kind}-{executions:07d}.txt").write_text(problem)
    rate = gave_up / asked if asked else 0.0
    if stats is not None:
        stats.update(gave_up=gave_up, asked=asked, rate=rate)
    if rate > GIVE_UP_BUDGET:
        failures += 1
        kinds[f"the lanes gave up on {gave_up} of {asked} valid mutated files ({rate:.1%}), budget "
              f"{GIVE_UP_BUDGET:.0%}"] = 1
    return executions, failures, kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "fuzz_corpus")
    a = parser.parse_args()
    stats: dict[str, float] = {}
    executions, failures, kinds = fuzz(a.seconds, a.seed, a.corpus, stats=stats)
    print(f"executions: {executions}, failures: {failures}, seconds: {a.seconds:g}, seed: {a.seed}")
    print(f"lanes gave up on {stats['gave_up']:g} of {stats['asked']:g} (lane, valid mutated file) pairs: "
          f"{stats['rate']:.1%} (budget {GIVE_UP_BUDGET:.0%}; on the unmutated seeds: 0)")
    for lane, n in sorted(GAVE_UP.items()):
        print(f"  {n:6d}  give-ups of the {lane}")
    for key, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:6d}  {key}")


if __name__ == "__main__":
    main()
