#!/usr/bin/env python3
"""Generate synthetic MediaEval-format and TREC-format qrels and runs (seeded, reproducible).

Used for ``examples/``, test fixtures and the benchmark; never derived from
reference data.  Times are written as ``M.S`` (minutes.seconds).
"""

from __future__ import annotations

import argparse
import gzip
import random
from pathlib import Path
from typing import TextIO


def mmss(seconds: int) -> str:
    """Format whole seconds as the MediaEval ``M.S`` time (two-digit seconds)."""
    return f"{seconds // 60}.{seconds % 60:02d}"


def _open(path: Path) -> TextIO:
    if path.suffix == ".gz":
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return path.open("w", encoding="utf-8", newline="\n")


def generate(
    qrels_path: Path,
    run_path: Path,
    *,
    queries: int,
    lines: int,
    videos: int,
    kind: str,
    seed: int,
    prefix: str = "query",
    run_name: str = "synthetic",
    hit_rate: float = 0.3,
    topical_rate: float = 0.3,
) -> None:
    """Write one qrels file and one run with about ``lines`` result lines in total.

    ``hit_rate`` is the share of results placed near (within a minute of) a judged segment and
    ``topical_rate`` the share of the other results placed in one of the query's judged videos
    (the rest go to any video).  The defaults (0.3, 0.3) give the output used for ``examples/``
    and the test fixtures; lower values make a lighter workload for interval-based evaluators.
    """
    for name, rate in (("hit_rate", hit_rate), ("topical_rate", topical_rate)):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"{name} must be between 0 and 1, got {rate!r}")
    rng = random.Random(seed)
    video_ids = [f"v2008{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}_{i:05d}" for i in range(videos)]
    per_query = max(1, lines // queries)
    with _open(qrels_path) as qf, _open(run_path) as rf:
        for q in range(1, queries + 1):
            qid = f"{prefix}_{q}"
            topical = rng.sample(video_ids, k=min(len(video_ids), rng.randint(3, 25)))
            judged: list[tuple[str, int, int, int]] = []
            for v in topical:
                for _ in range(rng.randint(1, 8)):
                    start = rng.randint(0, 3600)
                    end = start + rng.randint(0, 240)
                    judged.append((v, start, end, 1 if rng.random() < 0.45 else 0))
            for v, start, end, rel in judged:
                qf.write(f"{qid} Q0 {v} {mmss(start)} {mmss(end)} {rel}\n")
            score = 20.0
            for rank in range(1, per_query + 1):
                if rng.random() < hit_rate and judged:
                    v, js, _je, _ = rng.choice(judged)
                    start = max(0, js + rng.randint(-60, 60))
                else:
                    v = rng.choice(topical if rng.random() < topical_rate else video_ids)
                    start = rng.randint(0, 3600)
                end = start + rng.randint(0, 180)
                score -= rng.random() * 0.01
                fields = [qid, "Q0", v, mmss(start), mmss(end)]
                if kind == "search":
                    fields.append(mmss(start))
                fields += [str(rank), f"{score:.6f}", run_name]
                rf.write(" ".join(fields) + "\n")


def generate_trec(
    qrels_path: Path,
    run_path: Path,
    *,
    queries: int,
    lines: int,
    judged: int,
    documents: int,
    seed: int,
    run_name: str = "synthetic",
) -> None:
    """TREC qrels (``judged`` lines per query, grades 0-3) and a run of about ``lines`` lines.

    Scores are rounded to 3 decimals so ties are common; about a third of each
    query's results are judged documents.
    """
    rng = random.Random(seed)
    per_query = max(1, lines // queries)
    with _open(qrels_path) as qf, _open(run_path) as rf:
        for q in range(1, queries + 1):
            qid = str(300 + q)
            pool = rng.sample(range(documents), k=min(documents, judged))
            grades = [rng.choice((0, 0, 0, 0, 1, 1, 2, 3)) for _ in pool]
            qf.writelines(f"{qid} 0 DOC-{d:07d} {g}\n" for d, g in zip(pool, grades, strict=True))
            picked = set(rng.sample(pool, k=min(len(pool), per_query // 3)))
            while len(picked) < per_query:
                picked.add(rng.randrange(documents))
            docs = list(picked)
            rng.shuffle(docs)
            rf.writelines(f"{qid} Q0 DOC-{d:07d} {rank} {rng.random() * 20:.3f} {run_name}\n"
                          for rank, d in enumerate(docs, start=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("qrels", type=Path)
    parser.add_argument("run", type=Path)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--lines", type=int, default=3000, help="total result lines in the run")
    parser.add_argument("--videos", type=int, default=2000)
    parser.add_argument("--kind", choices=["linking", "search", "trec"], default="linking",
                        help="MediaEval linking or search segments, or TREC documents")
    parser.add_argument("--judged", type=int, default=300, help="qrels lines per query (trec kind)")
    parser.add_argument("--documents", type=int, default=2_000_000, help="collection size (trec kind)")
    parser.add_argument("--prefix", default=None, help="query id prefix (default: anchor/query by kind)")
    parser.add_argument("--run-name", default="synthetic")
    parser.add_argument("--seed", type=int, default=2013)
    parser.add_argument("--hit-rate", type=float, default=0.3,
                        help="share of results placed near a judged segment (default 0.3)")
    parser.add_argument("--topical-rate", type=float, default=0.3,
                        help="share of the other results put in a judged video of the query (default 0.3)")
    a = parser.parse_args()
    for flag, value in (("--hit-rate", a.hit_rate), ("--topical-rate", a.topical_rate)):
        if not 0.0 <= value <= 1.0:
            parser.error(f"{flag} must be between 0 and 1, got {value}")
    if a.kind == "trec":
        generate_trec(a.qrels, a.run, queries=a.queries, lines=a.lines, judged=a.judged, documents=a.documents,
                      seed=a.seed, run_name=a.run_name)
        return
    prefix = a.prefix or ("anchor" if a.kind == "linking" else "query")
    generate(a.qrels, a.run, queries=a.queries, lines=a.lines, videos=a.videos, kind=a.kind,
             seed=a.seed, prefix=prefix, run_name=a.run_name, hit_rate=a.hit_rate,
             topical_rate=a.topical_rate)


if __name__ == "__main__":
    main()
