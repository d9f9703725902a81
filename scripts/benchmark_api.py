#!/usr/bin/env python3
"""Benchmark the Python API on data already in memory: segeval against pytrec_eval, ir_measures, ranx.

One generated collection (seeded): ``--queries`` queries, a run of ``--docs`` documents per query
(distinct scores, so no tool's tie-breaking matters) and ``--judged`` judged documents per query
(grades 0-2, half of them retrieved).  Measures: MAP, P@10 and nDCG@10.  Each tool gets the data in
its own in-memory form, built before timing, and is timed from its evaluator's construction to its
per-query values::

    segeval      Evaluator(qrels, ["map", "P_10", "ndcg_cut_10"]).evaluate(run)   (DataFrames, and dicts)
    pytrec_eval  RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10"}).evaluate(run)   (dicts)
    ir_measures  list(ir_measures.iter_calc([AP, P@10, nDCG@10], qrels, run))  (DataFrames)
    ranx         evaluate(Qrels, Run, ["map", "precision@10", "ndcg@10"], return_mean=False)  (warm:
                 its numba functions are compiled by a first call that is not timed), on Qrels and Run
                 built before timing, and from the dicts (Qrels.from_dict and Run.from_dict timed)

Rounds alternate the tools (``--repeats`` rounds); the median wall time and CPU time (user +
system, all threads) of each is reported, with the ratio to segeval's median, and segeval's
construction and evaluation apart.  Every tool's per-query values are compared with segeval's
(largest absolute difference; exit status 1 unless all are equal).  Tools that are not installed
are skipped::

    pip install pytrec-eval-terrier ir-measures ranx
    python scripts/benchmark_api.py --markdown
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

MEASURES = ("map", "P_10", "ndcg_cut_10")


def collection(queries: int, docs: int, judged: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) as DataFrames with ir_measures' column names."""
    rng = np.random.default_rng(seed)
    q_rows: list[tuple[str, str, int]] = []
    r_qid, r_doc, r_score = [], [], []
    for q in range(queries):
        qid = f"q{q}"
        pool = rng.permutation(docs * 2)
        retrieved = pool[:docs]
        scores = rng.permutation(docs) + rng.random(docs) / 2  # distinct
        r_qid += [qid] * docs
        r_doc += [f"d{d}" for d in retrieved]
        r_score += scores.tolist()
        judged_docs = np.concatenate([pool[:judged // 2], pool[docs:docs + judged - judged // 2]])
        for d, g in zip(judged_docs, rng.integers(0, 3, len(judged_docs)), strict=True):
            q_rows.append((qid, f"d{d}", int(g)))
    qrels = pd.DataFrame(q_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame({"query_id": r_qid, "doc_id": r_doc, "score": r_score})
    return qrels, run


def as_dicts(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    q: dict[str, dict[str, int]] = {}
    for qid, doc, rel in qrels.itertuples(index=False):
        q.setdefault(qid, {})[doc] = int(rel)
    r: dict[str, dict[str, float]] = {}
    for qid, doc, score in run.itertuples(index=False):
        r.setdefault(qid, {})[doc] = float(score)
    return q, r


Values = dict[str, dict[str, float]]  # measure -> query -> value


#: segeval's (construction, evaluation) wall times per round, by input form
PARTS: dict[str, list[tuple[float, float]]] = {"DataFrames": [], "dicts": []}


def tools(qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, Callable[[], Values]]:
    """Each available tool as a function of no arguments over prepared inputs."""
    import segeval

    qd, rd = as_dicts(qrels, run)
    out: dict[str, Callable[[], Values]] = {}

    def segeval_on(form: str, q: object, r: object) -> Values:
        start = time.perf_counter()
        evaluator = segeval.Evaluator(q, list(MEASURES))
        built = time.perf_counter()
        ev = evaluator.evaluate(r)
        PARTS[form].append((built - start, time.perf_counter() - built))
        return {m: dict(zip(ev.queries, map(float, ev.per_query[m]), strict=True)) for m in MEASURES}

    def segeval_frames() -> Values:
        return segeval_on("DataFrames", qrels, run)

    def segeval_dicts() -> Values:
        return segeval_on("dicts", qd, rd)

    out["segeval (DataFrames)"] = segeval_frames
    out["segeval (dicts)"] = segeval_dicts
    if importlib.util.find_spec("pytrec_eval"):
        import pytrec_eval

        def pytrec() -> Values:
            res = pytrec_eval.RelevanceEvaluator(qd, set(MEASURES)).evaluate(rd)
            return {m: {q: v[m] for q, v in res.items()} for m in MEASURES}

        out["pytrec_eval (dicts)"] = pytrec
    if importlib.util.find_spec("ir_measures"):
        import ir_measures
        from ir_measures import AP, P, nDCG

        names = {str(AP): "map", str(P @ 10): "P_10", str(nDCG @ 10): "ndcg_cut_10"}

        def irm() -> Values:
            res: Values = {m: {} for m in MEASURES}
            for row in ir_measures.iter_calc([AP, P @ 10, nDCG @ 10], qrels, run):
                res[names[str(row.measure)]][row.query_id] = row.value
            return res

        out["ir_measures (DataFrames)"] = irm
    if importlib.util.find_spec("ranx"):
        from ranx import Qrels, Run, evaluate

        rq, rr = Qrels.from_dict(qd), Run.from_dict(rd)
        ranx_names = {"map": "map", "precision@10": "P_10", "ndcg@10": "ndcg_cut_10"}

        def ranx_eval() -> Values:
            res = evaluate(rq, rr, list(ranx_names), return_mean=False)
            order = list(rr.keys())  # ranx's per-query arrays follow the run's (sorted) query order
            return {ranx_names[m]: dict(zip(order, map(float, v), strict=True)) for m, v in res.items()}

        def ranx_from_dicts() -> Values:
            q, r = Qrels.from_dict(qd), Run.from_dict(rd)
            res = evaluate(q, r, list(ranx_names), return_mean=False)
            return {ranx_names[m]: dict(zip(list(r.keys()), map(float, v), strict=True)) for m, v in res.items()}

        ranx_eval()  # compile (numba) and warm up, not timed
        out["ranx, warm (Qrels/Run)"] = ranx_eval
        out["ranx, warm (dicts: Qrels/Run.from_dict timed)"] = ranx_from_dicts
    return out


def largest_difference(a: Values, b: Values) -> tuple[float, int]:
    worst, compared = 0.0, 0
    for m in MEASURES:
        for q, v in a[m].items():
            worst = max(worst, abs(v - b[m].get(q, float("nan"))) if q in b[m] else float("inf"))
            compared += 1
    return worst, compared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000, help="run documents per query")
    parser.add_argument("--judged", type=int, default=100, help="judged documents per query")
    parser.add_argument("--repeats", type=int, default=7, help="alternating rounds (median reported)")
    parser.add_argument("--seed", type=int, default=2013)
    a = parser.parse_args(argv)
    qrels, run = collection(a.queries, a.docs, a.judged, a.seed)
    funcs = tools(qrels, run)
    times: dict[str, list[float]] = {name: [] for name in funcs}
    cpu: dict[str, list[float]] = {name: [] for name in funcs}
    values: dict[str, Values] = {}
    for _ in range(a.repeats):
        for name, f in funcs.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            values[name] = f()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    base = statistics.median(times["segeval (DataFrames)"])
    base_cpu = statistics.median(cpu["segeval (DataFrames)"])
    reference = values["segeval (DataFrames)"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{a.queries:,} queries × {a.docs:,} documents, {a.judged} judged per query; MAP, P@10, nDCG@10; "
          f"median of {a.repeats} alternating rounds; {os.cpu_count()} CPUs, load average {load:.1f}, "
          f"Python {platform.python_version()}.\n")
    print("| tool (input) | median wall s | × segeval | median CPU s | × segeval | values compared | "
          "largest difference |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    bad = False
    for name in funcs:
        med, med_cpu = statistics.median(times[name]), statistics.median(cpu[name])
        worst, compared = largest_difference(reference, values[name])
        bad |= worst != 0
        print(f"| {name} | {med:.3f} | {med / base:.2f} | {med_cpu:.3f} | {med_cpu / base_cpu:.2f} | {compared:,} | "
              f"{worst:.1e} |")
    for form, parts in PARTS.items():
        print(f"\nsegeval ({form}): construction {statistics.median(p[0] for p in parts):.3f} s, "
              f"evaluate {statistics.median(p[1] for p in parts):.3f} s (medians, wall)", end="")
    print()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
