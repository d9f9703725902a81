"""Graded measures asked alone: every route builds its batch with the grades and pools, so ``-m ndcg``
alone gives trec_eval's values (it printed 0.0000 on the fast lanes when no ``ndcg_cut`` was asked)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from segeval import Evaluator
from tests.conftest import run_cli

QRELS = "q1 0 d1 {g}\nq1 0 d2 1\nq2 0 d3 1\nq2 0 d4 3\n"
RUN = "q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\nq2 Q0 d3 1 3.0 t\nq2 Q0 d4 2 1.0 t\n"
# q1: DCG 1/log2(2) + 2/log2(3) = 2.26186, ideal 2 + 1/log2(3) = 2.63093: 0.8597
# q2: DCG 1 + 3/log2(3) = 2.89279, ideal 3 + 1/log2(3) = 3.63093: 0.7967; mean 0.8282
EXPECTED = {"q1": "0.8597", "q2": "0.7967", "all": "0.8282"}
ROUTES = [[], ["--memory", "chunked", "--chunk-lines", "1"], ["--memory", "in-memory"]]


@pytest.mark.parametrize("grade", ["2", "02", "+2"])  # trec_eval reads each as 2
@pytest.mark.parametrize("route", ROUTES, ids=["default", "chunked", "in-memory"])
@pytest.mark.parametrize("measure", ["ndcg", "ndcg_cut.10"])
def test_ndcg_alone_every_file_route(tmp_path: Path, grade: str, route: list[str], measure: str) -> None:
    (tmp_path / "q").write_text(QRELS.format(g=grade))
    (tmp_path / "r").write_text(RUN)
    code, out, err = run_cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", measure, "-q", *route)
    assert code == 0, err
    got = {line.split("\t")[1]: line.split("\t")[2] for line in out.splitlines()}
    assert got == EXPECTED


@pytest.mark.parametrize("shape", ["frame", "dict"])
def test_ndcg_alone_api(shape: str) -> None:
    qrels = pd.DataFrame([line.split() for line in QRELS.format(g=2).splitlines()],
                         columns=["query_id", "iteration", "doc_id", "relevance"]).astype({"relevance": int})
    rows = [line.split() for line in RUN.splitlines()]
    frame = pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                          "score": [float(r[4]) for r in rows]})
    run: object = frame if shape == "frame" else {q: dict(zip(g["doc_id"], g["score"], strict=True))
                                                  for q, g in frame.groupby("query_id")}
    ev = Evaluator(qrels.drop(columns="iteration"), "ndcg").evaluate(run)
    assert [f"{v:.4f}" for v in ev.per_query["ndcg"]] == [EXPECTED["q1"], EXPECTED["q2"]]
