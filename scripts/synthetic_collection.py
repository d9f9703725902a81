"""A synthetic test collection with known full truth, for pool-bias experiments.

Topics have their own word distributions; each topic has a set of candidate documents, some
relevant; every candidate is judged in the *full* truth. Groups of runs rank the candidates with
a shared group view (so a group's runs find the same documents) and a run-specific quality; the
*pooled* qrels keep only the documents some run put in its top ``depth``.

    python scripts/synthetic_collection.py OUT_DIR [--seed 0] [--topics 20] [--groups 6] [--depth 20]

writes ``truth.qrels``, ``pool.qrels``, ``groups.txt``, ``texts.tsv`` (``docno<TAB>text``) and
``runs/<run>.txt`` (TREC run format).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Collection:
    truth: list[tuple[str, str, int]]  # (query, docno, rel) for every candidate
    runs: dict[str, list[tuple[str, str, float]]]  # run -> (query, docno, score), best first per query
    groups: dict[str, str]  # run -> group
    texts: dict[str, str]  # docno -> text
    depth: int

    def pool(self) -> list[tuple[str, str, int]]:
        """The truth restricted to the documents some run put in its top ``depth``."""
        pooled: set[tuple[str, str]] = set()
        for rows in self.runs.values():
            seen: dict[str, int] = {}
            for q, d, _ in rows:
                seen[q] = seen.get(q, 0) + 1
                if seen[q] <= self.depth:
                    pooled.add((q, d))
        return [row for row in self.truth if (row[0], row[1]) in pooled]


def generate(seed: int = 0, topics: int = 20, candidates: int = 200, relevant: int = 25, groups: int = 6,
             runs_per_group: int = 2, depth: int = 20, run_length: int = 100, words: int = 60) -> Collection:
    """Generate a collection; the same arguments always give the same collection."""
    rng = np.random.default_rng(seed)
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
            share = 0.35 if is_rel else 0.08  # relevant documents use more of the topic's words
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
        view = {key: rng.normal(0, 1.0) for key in rel}  # what this group's method sees in every document
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
    return Collection(truth, runs, group_of, texts, depth)


def write(collection: Collection, out: Path) -> None:
    """Write the collection's files under ``out``."""
    (out / "runs").mkdir(parents=True, exist_ok=True)
    (out / "truth.qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in collection.truth))
    (out / "pool.qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in collection.pool()))
    (out / "groups.txt").write_text("".join(f"{n} {g}\n" for n, g in collection.groups.items()))
    (out / "texts.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in collection.texts.items()))
    for name, rows in collection.runs.items():
        ranks: dict[str, int] = {}
        lines = []
        for q, d, s in rows:
            ranks[q] = ranks.get(q, 0) + 1
            lines.append(f"{q} Q0 {d} {ranks[q]} {s} {name}\n")
        (out / "runs" / f"{name}.txt").write_text("".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--groups", type=int, default=6)
    parser.add_argument("--depth", type=int, default=20)
    args = parser.parse_args()
    write(generate(args.seed, args.topics, groups=args.groups, depth=args.depth), args.out)


if __name__ == "__main__":
    main()
