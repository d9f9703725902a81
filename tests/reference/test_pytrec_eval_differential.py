"""Differential test against pytrec_eval (trec_eval 9.0.8) on seeded random document runs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.support.reference import require_module

pytrec_eval = require_module("pytrec_eval", why="pip install -e '.[test]'")

from segeval.adapters import ExactAdapter  # noqa: E402
from segeval.core.pipeline import evaluate  # noqa: E402

CUTS = (1, 5, 10, 20)
BOTH = ["map", "Rprec", "recip_rank", "bpref", "ndcg", "num_rel", "num_ret", "num_rel_ret",
        *(f"P_{k}" for k in CUTS), *(f"recall_{k}" for k in CUTS), *(f"ndcg_cut_{k}" for k in CUTS),
        *(f"map_cut_{k}" for k in CUTS), "success_1", "success_5", "success_10",
        *(f"iprec_at_recall_{x / 10:.2f}" for x in range(11))]


def random_case(seed: int) -> tuple[str, str, dict, dict]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    qrels_lines, run_lines = [], []
    for q in range(rng.randint(2, 6)):
        qid = f"q{q}"
        docs = [f"d{rng.randint(0, 60):03d}" for _ in range(40)]
        if q == 0 or rng.random() < 0.85:  # some queries only in the run (q0 is always in both)
            judged = dict.fromkeys(rng.sample(sorted(set(docs)), k=min(15, len(set(docs)))))
            qrels[qid] = {d: rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]) for d in judged}
            qrels_lines += [f"{qid} 0 {d} {g}" for d, g in qrels[qid].items()]
        if q == 0 or rng.random() < 0.85:  # some queries only in the qrels
            run[qid] = {}
            for d in dict.fromkeys(docs):
                r = rng.random()
                score = round(rng.uniform(0, 3), 1) if r < 0.3 else (  # ties
                    1.0 + rng.choice([0.0, 1e-9, 2e-9]) if r < 0.4 else rng.uniform(0, 3))  # near-equal
                run[qid][d] = score
            run_lines += [f"{qid} Q0 {d} 0 {s!r} r" for d, s in run[qid].items()]
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n", qrels, run


@pytest.mark.parametrize("seed", range(30))
def test_agrees_with_pytrec_eval(tmp_path: Path, seed: int) -> None:
    qrels_text, run_text, qrels, run = random_case(seed)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    ev = evaluate(tmp_path / "qrels", tmp_path / "run", BOTH, [ExactAdapter()], order="score", trec_eval="9")
    cuts = ",".join(str(k) for k in CUTS)
    wanted = {"map", "Rprec", "recip_rank", "bpref", "ndcg", "num_rel", "num_ret", "num_rel_ret", "iprec_at_recall",
              f"P.{cuts}", f"recall.{cuts}", f"ndcg_cut.{cuts}", f"map_cut.{cuts}", "success.1,5,10"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, wanted).evaluate(run)
    frame = ev.frame()
    assert set(ev.queries) == set(reference)  # the same queries evaluated
    mismatches = []
    for qid in ev.queries:
        for name in BOTH:
            ours, theirs = float(frame.loc[qid, name]), float(reference[qid][name])
            if ours != theirs:  # the same doubles: trec_eval's summation order, not only its algebra
                mismatches.append((qid, name, ours, theirs))
    assert not mismatches


IN_MEMORY = [m for m in BOTH if not m.startswith("map_cut")]  # the measures with a batch form


@pytest.mark.parametrize("seed", range(30))
def test_frame_reader_agrees_with_pytrec_eval(seed: int) -> None:
    # the same dicts pytrec_eval gets, given to segeval in memory: the frame reader (segeval/readers/from_frames.py)
    from segeval.core.pipeline import Evaluator
    from segeval.readers.from_frames import CodedQrels, frame_prepared

    _, _, qrels, run = random_case(seed)
    evaluator = Evaluator(qrels, IN_MEMORY, {"trec_eval": "9"})
    assert frame_prepared(CodedQrels.of(evaluator.qrels), run, evaluator.settings) is not None  # coded
    ev = evaluator.evaluate(run)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "Rprec", "recip_rank", "bpref", "ndcg", "num_rel",
                                                       "num_ret", "num_rel_ret", "iprec_at_recall", "P.1,5,10,20",
                                                       "recall.1,5,10,20", "ndcg_cut.1,5,10,20",
                                                       "success.1,5,10"}).evaluate(run)
    assert set(ev.queries) == set(reference)
    mismatches = [(qid, name, ev.per_query[name][i], reference[qid][name])
                  for i, qid in enumerate(ev.queries) for name in IN_MEMORY
                  if float(ev.per_query[name][i]) != float(reference[qid][name])]
    assert not mismatches
