"""The reader's coded columns (categoricals with known UTF-8 tokens) and plain string columns give
the same evaluation: the joint docno codes and integer score order of ``prepare`` change no value."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pandas as pd
import pytest

from segeval.core.pipeline import evaluate
from segeval.readers.tables import read_qrels, read_run
from segeval.readers.tokenizer import category_bytes
from tests.conftest import sliced

MEASURES = ["all_trec"]


def as_strings(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for name in ("query", "item", "run"):
        if name in out:
            out[name] = out[name].astype(object)
    out.attrs = dict(df.attrs)
    return out


def write_case(tmp_path: Path, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    names = ["d1", "d10", "d9", "D9", "é1", "e1", "doc-" + "x" * 20, "a", "aa", "b"] + [f"n{i}" for i in range(60)]
    qrels, run = [], []
    for q in range(rng.randint(1, 8)):
        qid = rng.choice(["1", "01", "10", "2", "q", "é"]) + str(q)
        docs = rng.sample(names, k=rng.randint(1, len(names)))
        if rng.random() < 0.9:
            qrels += [f"{qid} 0 {d} {rng.choice([-1, 0, 1, 2, 3])}" for d in rng.sample(names, k=rng.randint(1, 30))]
        if rng.random() < 0.9:
            for i, d in enumerate(docs):
                score = rng.choice([1.0, 2.0, 0.0, -0.0, 0.5]) if rng.random() < 0.5 else rng.uniform(-2, 2)
                run.append(f"{qid} Q0 {d} {i + 1} {score!r} r{seed}")
    if not qrels:
        qrels = ["x 0 d1 1"]
    if not run:
        run = ["x Q0 d1 1 1.0 r"]
    rng.shuffle(run)
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (tmp_path / "run").write_text("\n".join(run) + "\n", encoding="utf-8")
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("seed", sliced(range(30), 5))
@pytest.mark.parametrize("version", ["10", "9"])
def test_coded_and_string_columns_agree(tmp_path: Path, seed: int, version: str) -> None:
    qrels_path, run_path = write_case(tmp_path, seed)
    q, r = read_qrels(qrels_path), read_run(run_path)
    assert isinstance(r["item"].dtype, pd.CategoricalDtype)
    assert category_bytes(r["item"].cat.categories) is not None
    options = {"missing_queries": "zero", "trec_eval": version}
    plain = evaluate(as_strings(q), as_strings(r), MEASURES, **options)  # type: ignore[arg-type]
    # both coded; the qrels as plain strings; the qrels unpickled (as a worker process gets them)
    for qrels in (q, as_strings(q), pickle.loads(pickle.dumps(q))):
        coded = evaluate(qrels, r, MEASURES, **options)  # type: ignore[arg-type]
        assert coded.queries == plain.queries
        assert coded.per_query == plain.per_query
        assert coded.summary == plain.summary


def test_large_run_with_few_distinct_scores(tmp_path: Path) -> None:
    """Over 20,000 results with few distinct scores take the hashed score ranks; still the same values."""
    rng = random.Random(7)
    run = [f"q{q} Q0 d{d} 1 {rng.randint(0, 50) / 4} r" for q in range(30) for d in rng.sample(range(5000), 900)]
    qrels = [f"q{q} 0 d{d} {rng.randint(0, 2)}" for q in range(32) for d in rng.sample(range(5000), 300)]
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    q, r = read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")
    coded = evaluate(q, r, ["official", "ndcg"], missing_queries="zero")
    plain = evaluate(as_strings(q), as_strings(r), ["official", "ndcg"], missing_queries="zero")
    assert coded.per_query == plain.per_query and coded.summary == plain.summary
