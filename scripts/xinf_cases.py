"""Generate sampled-judgement cases (stratified qrels + TREC runs) and store sample_eval.pl's outputs.

Usage: python scripts/xinf_cases.py SAMPLE_EVAL_PL OUT_DIR [EXAMPLE_DIR]

Writes, per case, OUT_DIR/<case>.qrels[.gz], OUT_DIR/<case>.run[.gz] and the reference's output:
``<case>.q.out`` (``sample_eval.pl -q QRELS RUN``), ``<case>.G.out`` for cases with gains
(``sample_eval.pl QRELS RUN -G ...``: the reference cannot combine -q with -G) and ``<case>.m20.q.out``
for the ``short`` case (a copy of the script with ``$maxResultSize = 20``, made in a temporary
directory and never stored).  The cases:

* ``ties``: equal scores (ties broken by docno descending), zero-padded run topics, a run topic
  missing from the qrels and a qrels topic missing from the run, a docno listed twice in the run
  (the last score counts, both lines count in num_ret), unsampled (-1) and unpooled documents.
* ``strata``: strata whose string order differs from their numeric order (2, 10, 9, -3), a stratum
  with no sampled document, a sampled stratum without relevant documents, a topic without relevant
  documents, a docno judged twice in the qrels (both lines count, the last grade wins).
* ``graded``: grades 1, 2, 3 and 10 (sorted as strings for the ideal DCG), gains via -G.
* ``long``: a 1100-result topic with relevant documents past rank 1000, and a sparsely sampled
  stratum whose estimated relevant count passes 1000 (the ideal DCG's cut-off).
* ``short``: small strata with estimated counts past 20, for the 20-result variant (the ideal DCG
  stops a grade at the cut-off, and each later grade still adds its first term).
* ``random``: 12 topics, 1-4 strata each at random sampling rates, grades 0-3, runs of 0-80 results
  with scores rounded to one decimal (many ties).

With EXAMPLE_DIR, also writes the shipped example there: ``qrels.strata``, ``run_a``, ``run_b`` (a
TRECVID-like pool of two runs' top 60, depth 1-10 judged whole, 11-30 at 50 %, 31-60 at 20 %) and
``run_a.sample_eval.out`` / ``run_b.sample_eval.out`` (``sample_eval.pl -q``).
"""

from __future__ import annotations

import gzip
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

Qrels = list[tuple[str, str, int, int]]  # topic, docno, stratum, rel
Run = list[tuple[str, str, float]]  # topic, docno, score


def _qrels_text(rows: Qrels) -> str:
    return "".join(f"{t} 0 {d} {s} {r}\n" for t, d, s, r in rows)


def _run_text(rows: Run) -> str:
    out, rank = [], {}
    for t, d, score in rows:
        rank[t] = rank.get(t, 0) + 1
        out.append(f"{t} Q0 {d} {rank[t]} {score:.4f} gen\n")
    return "".join(out)


def _stratum(rng: random.Random, topic: str, stratum: int, docs: list[str], rate: float,
             grades: tuple[int, ...], p_rel: float) -> Qrels:
    rows = []
    for d in docs:
        if rng.random() < rate:
            rows.append((topic, d, stratum, rng.choice(grades) if rng.random() < p_rel else 0))
        else:
            rows.append((topic, d, stratum, -1))
    return rows


def ties() -> tuple[Qrels, Run]:
    q: Qrels = [("501", f"d{i}", 1, r) for i, r in enumerate([1, 0, 1, -1, 1, 0, -1, 1])]
    q += [("501", f"e{i}", 2, r) for i, r in enumerate([0, -1, -1, 1, -1, 0])]
    q += [("502", "d0", 1, 1), ("502", "d1", 1, 0), ("502", "d2", 2, -1), ("502", "d3", 2, 1)]
    q += [("503", "x", 1, 1)]  # not in the run
    run: Run = [("0501", d, s) for d, s in [("d0", 0.5), ("d2", 0.5), ("d1", 0.5), ("e3", 0.9), ("zz", 0.5),
                                            ("d4", 0.3), ("e0", 0.3), ("d3", 0.3), ("e1", 0.2), ("d7", 0.1),
                                            ("d5", 0.7), ("d5", 0.05)]]
    run += [("502", d, s) for d, s in [("d3", 1.0), ("d1", 1.0), ("d2", 1.0), ("d0", 0.0), ("q", 0.0)]]
    run += [("777", "d0", 1.0)]
    return q, run


def strata(rng: random.Random) -> tuple[Qrels, Run]:
    q: Qrels = []
    for t in ("11", "9", "10"):
        q += _stratum(rng, t, 2, [f"a{i}" for i in range(12)], 0.8, (1,), 0.5)
        q += _stratum(rng, t, 10, [f"b{i}" for i in range(20)], 0.3, (1,), 0.4)
        q += _stratum(rng, t, 9, [f"c{i}" for i in range(8)], 0.0, (1,), 0.5)  # nothing sampled
        q += _stratum(rng, t, -3, [f"n{i}" for i in range(6)], 1.0, (1,), 0.0)  # sampled, none relevant
    q += [("12", f"z{i}", 1, 0 if i % 2 else -1) for i in range(10)]  # no relevant document
    q += [("11", "a0", 2, 1), ("11", "a0", 10, 0)]  # judged twice
    run: Run = []
    for t in ("11", "9", "10", "12"):
        docs = [f"{p}{i}" for p, n in (("a", 12), ("b", 20), ("c", 8), ("n", 6), ("z", 10), ("u", 5))
                for i in range(n)]
        rng.shuffle(docs)
        run += [(t, d, round(rng.random(), 1)) for d in docs[:rng.randint(15, 45)]]
    return q, run


def graded(rng: random.Random) -> tuple[Qrels, Run]:
    q: Qrels = []
    run: Run = []
    for t in ("1", "2", "3"):
        q += _stratum(rng, t, 1, [f"g{i}" for i in range(15)], 1.0, (1, 2, 3, 10), 0.6)
        q += _stratum(rng, t, 2, [f"h{i}" for i in range(30)], 0.5, (1, 2, 3), 0.3)
        docs = [f"g{i}" for i in range(15)] + [f"h{i}" for i in range(30)] + ["o1", "o2"]
        rng.shuffle(docs)
        run += [(t, d, round(rng.random(), 2)) for d in docs[:35]]
    return q, run


def long_case(rng: random.Random) -> tuple[Qrels, Run]:
    q: Qrels = [("1", f"p{i}", 1, 1 if i % 3 == 0 else 0) for i in range(1100)]
    q += [("1", f"s{i}", 2, 1 if i < 2 else (0 if i < 3 else -1)) for i in range(1500)]  # ~1000 relevant
    q += [("2", f"s{i}", 5, 2 if i < 3 else (0 if i == 3 else -1)) for i in range(800)]  # ~600 of grade 2
    q += [("2", f"t{i}", 6, 1 if i < 2 else (0 if i < 4 else -1)) for i in range(1200)]  # ~600 of grade 1
    run: Run = [("1", f"p{i}", 2000 - i) for i in range(1100)]
    run += [("2", d, 1.0 - i / 1000) for i, d in enumerate([f"s{i}" for i in range(5)] + [f"t{i}" for i in range(6)])]
    return q, run


def short(rng: random.Random) -> tuple[Qrels, Run]:
    q: Qrels = [("7", f"s{i}", 1, 3 if i == 0 else (0 if i < 4 else -1)) for i in range(40)]  # ~10 of grade 3
    q += [("7", f"t{i}", 2, 2 if i < 3 else (0 if i < 5 else -1)) for i in range(50)]  # ~30 of grade 2
    q += [("7", f"u{i}", 3, 1 if i < 1 else (0 if i < 2 else -1)) for i in range(10)]  # ~5 of grade 1, past 20
    q += [("8", f"s{i}", 1, 1 if i % 2 else 0) for i in range(30)]
    run: Run = [("7", f"s{i}", 1 - i / 100) for i in range(30)]
    run += [("8", f"s{i}", round(rng.random(), 1)) for i in range(30)]
    return q, run


def random_case(rng: random.Random) -> tuple[Qrels, Run]:
    q: Qrels = []
    run: Run = []
    for t in range(1, 13):
        topic = str(100 + t)
        pool = []
        for s in range(rng.randint(1, 4)):
            docs = [f"v{rng.randint(1, 40)}_{rng.randint(1, 300)}" for _ in range(rng.randint(0, 40))]
            docs = [d for d in dict.fromkeys(docs) if d not in pool]
            pool += docs
            q += _stratum(rng, topic, s + 1, docs, rng.choice([1.0, 0.5, 0.2, 0.05]), (1, 2, 3), rng.random())
        others = [f"v{rng.randint(1, 40)}_{rng.randint(1, 300)}" for _ in range(30)]
        docs = list(dict.fromkeys(pool + others))
        rng.shuffle(docs)
        run += [(topic, d, round(rng.random(), 1)) for d in docs[:rng.randint(0, 80)]]
    return q, run


CASES = {"ties": lambda rng: ties(), "strata": strata, "graded": graded, "long": long_case, "short": short,
         "random": random_case}
GAINS = {"graded": ["1=5", "3=0", "2=0.5"], "random": ["1=2", "2=0"]}
GZIP = ("long",)


def example(rng: random.Random) -> tuple[Qrels, dict[str, Run]]:
    """Two runs over 4 topics of a 500-shot collection, pooled to depth 60 and sampled in 3 strata."""
    shots = [f"shot{v}_{s}" for v in range(1, 51) for s in range(1, 11)]
    q: Qrels = []
    runs: dict[str, Run] = {"run_a": [], "run_b": []}
    for t in ("1001", "1002", "1003", "1004"):
        good = set(rng.sample(shots, 40))
        ranked = {}
        for name, skill in (("run_a", 0.35), ("run_b", 0.15)):
            order = sorted(shots, key=lambda d: rng.random() + (skill if d in good else 0), reverse=True)[:100]
            ranked[name] = order
            runs[name] += [(t, d, round(1 - i / 100, 3)) for i, d in enumerate(order)]
        pool: dict[str, int] = {}
        for depth_from, depth_to, stratum in ((0, 10, 1), (10, 30, 2), (30, 60, 3)):
            for order in ranked.values():
                for d in order[depth_from:depth_to]:
                    pool.setdefault(d, stratum)
        rate = {1: 1.0, 2: 0.5, 3: 0.2}
        for d, stratum in pool.items():
            if rng.random() < rate[stratum]:
                q.append((t, d, stratum, (2 if rng.random() < 0.3 else 1) if d in good else 0))
            else:
                q.append((t, d, stratum, -1))
    return q, runs


def _perl(script: Path, *args: str) -> bytes:
    return subprocess.run(["perl", str(script), *args], check=True, capture_output=True).stdout


def main(reference: str, out: str) -> None:
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        short_script = Path(tmp, "sample_eval_m20.pl")
        text = Path(reference).read_text()
        assert "$maxResultSize = 1000;" in text
        short_script.write_text(text.replace("$maxResultSize = 1000;", "$maxResultSize = 20;"))
        for k, (name, make) in enumerate(CASES.items()):
            q, r = make(random.Random(17 + k))
            qp, rp = Path(tmp, f"{name}.qrels"), Path(tmp, f"{name}.run")
            qp.write_text(_qrels_text(q))
            rp.write_text(_run_text(r))
            (out_dir / f"{name}.q.out").write_bytes(_perl(Path(reference), "-q", str(qp), str(rp)))
            if name in GAINS:
                (out_dir / f"{name}.G.out").write_bytes(_perl(Path(reference), str(qp), str(rp), "-G", *GAINS[name]))
            if name == "short":
                (out_dir / f"{name}.m20.q.out").write_bytes(_perl(short_script, "-q", str(qp), str(rp)))
            for src in (qp, rp):
                if name in GZIP:
                    with open(src, "rb") as fi, gzip.GzipFile(out_dir / f"{src.name}.gz", "wb", mtime=0) as fo:
                        shutil.copyfileobj(fi, fo)
                else:
                    shutil.copy(src, out_dir / src.name)


def write_example(reference: str, out: str) -> None:
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    q, runs = example(random.Random(2016))
    (out_dir / "qrels.strata").write_text(_qrels_text(q))
    for name, rows in runs.items():
        (out_dir / name).write_text(_run_text(rows).replace(" gen\n", f" {name}\n"))
        (out_dir / f"{name}.sample_eval.out").write_bytes(
            _perl(Path(reference), "-q", str(out_dir / "qrels.strata"), str(out_dir / name)))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
    if len(sys.argv) == 4:
        write_example(sys.argv[1], sys.argv[3])
