"""Generate a small TREC case for ``compare -o latex`` and run ranx's ``compare`` + ``Report.to_latex()`` on it.

Usage: python scripts/ranx_cases.py OUT_DIR   (ranx importable: pip install ranx, 0.3.21 for the stored outputs)

Writes into OUT_DIR: ``case.qrels`` (30 queries, 100 documents each, 4-14 relevant) and four runs
``bm25_base``, ``rm3_run``, ``dense_v1``, ``dense_v2`` whose scores mix noise with a run-specific weight on
relevance (distinct scores, no ties), so that some pairs differ significantly at p <= 0.05 and some do not.
With ranx: its ``compare(qrels, runs, ["map", "precision@10"], stat_test="student", max_p=0.05,
rounding_digits=4)`` as ``ranx.tex`` (``Report.to_latex()``) and ``ranx.json`` (``Report.to_dict()``: each
run's means and p-values against the others).  tests/unit/analyses/test_compare_latex.py compares segeval's
``compare --all-pairs --test t --correction none --alpha 0.05 -o latex`` with them.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

RUNS = {"bm25_base": 0.6, "rm3_run": 0.75, "dense_v1": 1.3, "dense_v2": 1.4}


def main(out: Path, ranx: bool = True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(38)
    relevant = {f"q{q}": set(rng.sample(range(100), rng.randint(4, 14))) for q in range(30)}
    (out / "case.qrels").write_text("".join(f"{q} 0 d{d} {int(d in rel)}\n" for q, rel in relevant.items()
                                            for d in range(100)))
    for name, weight in RUNS.items():
        lines = []
        for q, rel in relevant.items():
            scores = {d: rng.random() + weight * (d in rel) * rng.random() for d in range(100)}
            ranked = sorted(scores, key=lambda d: -scores[d])
            lines += [f"{q} Q0 d{d} {r} {scores[d]!r} {name}\n" for r, d in enumerate(ranked, 1)]
        (out / name).write_text("".join(lines))
    if not ranx:
        return
    from ranx import Qrels, Run, compare

    qrels = Qrels.from_file(str(out / "case.qrels"), kind="trec")
    runs = []
    for name in RUNS:
        run = Run.from_file(str(out / name), kind="trec")
        run.name = name
        runs.append(run)
    report = compare(qrels, runs, ["map", "precision@10"], stat_test="student", max_p=0.05, rounding_digits=4)
    (out / "ranx.tex").write_text(report.to_latex() + "\n")
    kept = {n: {k: v for k, v in d.items() if k != "win_tie_loss"} for n, d in report.to_dict().items()
            if n in RUNS}  # the means and p-values
    (out / "ranx.json").write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
