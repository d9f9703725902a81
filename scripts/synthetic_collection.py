"""A synthetic test collection with known full truth, for pool-bias experiments.

Topics have their own word distributions; each topic has a set of candidate documents, some
relevant; every candidate is judged in the *full* truth. Groups of runs rank the candidates with
a shared group view (so a group's runs find the same documents) and a run-specific quality; the
*pooled* qrels keep only the documents some run put in its top ``depth``.

    python scripts/synthetic_collection.py OUT_DIR [--seed 0] [--topics 20] [--groups 6] [--depth 20] [--segments]
        [--biased-without G,G] [--hard]

writes ``truth.qrels``, ``pool.qrels``, ``groups.txt``, ``texts.tsv`` (``docno<TAB>text``) and
``runs/<run>.txt`` (TREC run format); with ``--segments`` the same collection as video segments
(MediaEval qrels and search runs, ``transcript.txt`` of timed lines); ``--biased-without G3,G4``
adds ``biased.qrels``, the pool of the other groups only.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Synthetic:
    truth: list[tuple[str, str, int]]  # (query, docno, rel) for every candidate
    runs: dict[str, list[tuple[str, str, float]]]  # run -> (query, docno, score), best first per query
    groups: dict[str, str]  # run -> group
    texts: dict[str, str]  # docno -> text
    depth: int

    def pool(self, without: Collection[str] = ()) -> list[tuple[str, str, int]]:
        """The truth restricted to the documents some run (not of a group in ``without``) put in its top
        ``depth``: a pool biased against the groups left out."""
        pooled: set[tuple[str, str]] = set()
        for name, rows in self.runs.items():
            if self.groups[name] in without:
                continue
            seen: dict[str, int] = {}
            for q, d, _ in rows:
                seen[q] = seen.get(q, 0) + 1
                if seen[q] <= self.depth:
                    pooled.add((q, d))
        return [row for row in self.truth if (row[0], row[1]) in pooled]


def generate(seed: int = 0, topics: int = 20, candidates: int = 200, relevant: int = 25, groups: int = 6,
             runs_per_group: int = 2, depth: int = 20, run_length: int = 100, words: int = 60,
             topic_share: tuple[float, float] = (0.35, 0.08), view: float = 1.0) -> Synthetic:
    """Generate a collection; the same arguments always give the same collection."""
    rng = np.random.default_rng(seed)
    view_sd = view
    vocabulary = [f"w{i}" for i in range(2000)]
    truth: list[tuple[str, str, int]] = []
    texts: dict[str, str] = {}
    docs: dict[str, list[str]] = {}
    rel: dict[tuple[str, str], int] = {}
    for t in range(topics):
        q = f"t{t + 1}"
        topic_words = rng.choice(len(vocabulary), size=40, replace=False)
        docs[q] = []
        for c in range(candidates):
            d = f"{q}-d{c:04d}"
            is_rel = int(c < relevant)
            share = topic_share[0] if is_rel else topic_share[1]  # relevant documents use more of the topic's words
            n_topic = rng.binomial(words, share)
            ids = np.concatenate([rng.choice(topic_words, size=n_topic),
                                  rng.integers(0, len(vocabulary), size=words - n_topic)])
            texts[d] = " ".join(vocabulary[i] for i in rng.permutation(ids))
            truth.append((q, d, is_rel))
            docs[q].append(d)
            rel[q, d] = is_rel
    runs: dict[str, list[tuple[str, str, float]]] = {}
    group_of: dict[str, str] = {}
    for g in range(groups):
        group = f"G{g + 1}"
        view = {key: rng.normal(0, view_sd) for key in rel}  # what this group's method sees in every document
        for k in range(runs_per_group):
            name = f"{group}r{k + 1}"
            quality = 1.0 + 1.5 * rng.random()
            rows: list[tuple[str, str, float]] = []
            for q in docs:
                scores = {d: quality * rel[q, d] + view[q, d] + rng.normal(0, 0.5) for d in docs[q]}
                best = sorted(scores, key=lambda d: (-scores[d], d))[:run_length]
                rows.extend((q, d, round(float(scores[d]), 6)) for d in best)
            runs[name] = rows
            group_of[name] = group
    return Synthetic(truth, runs, group_of, texts, depth)


#: the setting of the completion tests and the README walk-through: enough relevant text per topic for a
#: classifier, texts that share more of the background, and groups whose unique finds matter
HARD: dict[str, Any] = {"candidates": 300, "relevant": 40, "words": 300, "topic_share": (0.2, 0.1), "view": 2.0,
                        "groups": 4}


def segment_of(docno: str) -> tuple[str, int, int]:
    """Where a candidate lives as a segment: ten 60-second segments per video, 10 seconds apart."""
    q, d = docno.rsplit("-d", 1)
    k = int(d)
    return f"{q}-v{k // 10:02d}", (k % 10) * 70, (k % 10) * 70 + 60


def mmss(seconds: int) -> str:
    return f"{seconds // 60}.{seconds % 60:02d}"


def write(collection: Synthetic, out: Path, segments: bool = False, biased_without: Collection[str] = ()) -> None:
    """Write the collection's files under ``out``: documents, or (``segments``) the same collection as
    video segments with a timed transcript (four 15-second lines per segment), MediaEval formats and
    M.S times.  ``biased_without`` also writes ``biased.qrels``, the pool without those groups."""
    (out / "runs").mkdir(parents=True, exist_ok=True)

    def qrels_lines(rows: list[tuple[str, str, int]]) -> str:
        if not segments:
            return "".join(f"{q} 0 {d} {r}\n" for q, d, r in rows)
        return "".join(f"{q} Q0 {v} {mmss(a)} {mmss(b)} {r}\n" for q, d, r in rows for v, a, b in [segment_of(d)])

    (out / "truth.qrels").write_text(qrels_lines(collection.truth))
    (out / "pool.qrels").write_text(qrels_lines(collection.pool()))
    if biased_without:
        (out / "biased.qrels").write_text(qrels_lines(collection.pool(biased_without)))
    (out / "groups.txt").write_text("".join(f"{n} {g}\n" for n, g in collection.groups.items()))
    if segments:
        lines = []
        for d, text in collection.texts.items():
            v, a, _ = segment_of(d)
            words = text.split()
            step = -(-len(words) // 4)
            for j in range(4):
                text = " ".join(words[j * step:(j + 1) * step])
                lines.append(f"{v} {mmss(a + 15 * j)} {mmss(a + 15 * j + 15)} {text}\n")
        (out / "transcript.txt").write_text("".join(lines))
    else:
        (out / "texts.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in collection.texts.items()))
    for name, rows in collection.runs.items():
        ranks: dict[str, int] = {}
        out_lines = []
        for q, d, s in rows:
            ranks[q] = ranks.get(q, 0) + 1
            if segments:
                v, a, b = segment_of(d)
                out_lines.append(f"{q} Q0 {v} {mmss(a)} {mmss(b)} {mmss(a)} {ranks[q]} {s} {name}\n")
            else:
                out_lines.append(f"{q} Q0 {d} {ranks[q]} {s} {name}\n")
        (out / "runs" / f"{name}.txt").write_text("".join(out_lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--groups", type=int, default=6)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--segments", action="store_true", help="video segments with a timed transcript")
    parser.add_argument("--biased-without", default="", metavar="G,G",
                        help="also write biased.qrels: the pool of the other groups' runs")
    parser.add_argument("--hard", action="store_true",
                        help="the completion setting: 40 of 300 candidates relevant, 300-word texts closer to "
                             "the background, groups that see documents differently (view 2.0), 4 groups")
    args = parser.parse_args()
    options = HARD if args.hard else {"groups": args.groups}
    write(generate(args.seed, args.topics, depth=args.depth, **options), args.out, args.segments,
          [g for g in args.biased_without.split(",") if g])


if __name__ == "__main__":
    main()
