"""The jump-in point measures on the MediaEval 2014 Search & Hyperlinking search qrels and runs in ../shared
(no official scorer exists for them): a perfect run built from the merged relevant segments scores 1 on
every query, and mgap and mrr_window on the real runs equal a small independent implementation written here
from the definitions (docs/speech.md) over the raw lines."""

from __future__ import annotations

import gzip
import math
import os
from pathlib import Path

import pytest

import segeval
from tests.conftest import shared

#: the real run in the default suite; the three heavy-overlap and long-segment runs with SEGEVAL_FULL=1 (CI)
RUNS = ["me14sh_UT-HMI2014_S_1_Sh_U_N.txt.gz"] + (["180-60-over.txt.gz", "600-200-noover.txt.gz",
                                                  "galuskacova-over.txt.gz"] if os.environ.get("SEGEVAL_FULL") else [])


def seconds(mmss: str) -> float:
    minutes, _, secs = mmss.partition(".")
    return 60 * int(minutes) + int(secs or 0)


def lines(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt") as f:
        return [x.split() for x in f if x.strip()]


def onsets(qrels: Path) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """Merged relevant segments (touching or overlapping merged) by query and video."""
    spans: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for q, _, video, start, end, rel in lines(qrels):
        if int(rel) >= 1:
            spans.setdefault(q, {}).setdefault(video, []).append((seconds(start), seconds(end)))
    for videos in spans.values():
        for video, found in videos.items():
            merged: list[tuple[float, float]] = []
            for s, e in sorted(found):
                if merged and s <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], e))
                else:
                    merged.append((s, e))
            videos[video] = merged
    return spans


def ranked(run: Path) -> dict[str, list[tuple[str, float]]]:
    """(video, start) by query, in rank order (equal ranks in file order); search lines have 9 or 8 fields."""
    out: dict[str, list[tuple[int, int, str, float]]] = {}
    for n, f in enumerate(lines(run)):
        out.setdefault(f[0], []).append((int(f[6]), n, f[2], seconds(f[3])))
    return {q: [(v, s) for _, _, v, s in sorted(rows)] for q, rows in out.items()}


def oracle_mrr(results: list[tuple[str, float]], rel: dict[str, list[tuple[float, float]]], window: float) -> float:
    for k, (video, start) in enumerate(results, start=1):
        if any(abs(start - s) <= window for s, _ in rel.get(video, [])):
            return 1 / k
    return 0.0


def oracle_mgap(results: list[tuple[str, float]], rel: dict[str, list[tuple[float, float]]]) -> float:
    """150 s window, 15 s steps, each onset to the first result that earns something from it."""
    free = {(v, s) for v, spans in rel.items() for s, _ in spans}
    total = found = 0.0
    for k, (video, start) in enumerate(results, start=1):
        best, which = 0.0, None
        for v, s in sorted(free):
            d = abs(start - s)
            p = 1 - math.floor(d / 15) * 15 / 150 if v == video and d < 150 else 0.0
            if p > best:
                best, which = p, (v, s)
        if which is not None:
            free.discard(which)
            found += best
            total += best * found / k
    return total / sum(len(x) for x in rel.values())


@pytest.mark.parametrize("name", RUNS)
def test_mgap_and_mrr_window_equal_an_independent_implementation(name: str) -> None:
    qrels = shared("mediaeval", "me14sh_search_testSet.qrel.gz")
    run = shared("mediaeval", name)
    ev = segeval.evaluate(qrels, run, ["mgap", "mrr_window"])
    rel, results = onsets(qrels), ranked(run)
    compared = 0
    for q, mgap, mrr10, mrr60 in zip(ev.queries, ev.per_query["mgap"], ev.per_query["mrr_window_10"],
                                     ev.per_query["mrr_window_60"], strict=True):
        assert mgap == pytest.approx(oracle_mgap(results[q], rel.get(q, {})), abs=1e-12), q
        assert mrr10 == oracle_mrr(results[q], rel.get(q, {}), 10), q
        assert mrr60 == oracle_mrr(results[q], rel.get(q, {}), 60), q
        compared += 3
    assert compared >= 3 * 25


def test_the_perfect_run_scores_one_on_every_query(tmp_path: Path) -> None:
    qrels = shared("mediaeval", "me14sh_search_testSet.qrel.gz")
    rel = onsets(qrels)
    text = []
    for q, videos in rel.items():
        spans = sorted((s, e, v) for v, found in videos.items() for s, e in found)
        text += [f"{q} Q0 {v} {int(s) // 60}.{int(s) % 60:02d} {int(e) // 60}.{int(e) % 60:02d} {k} 1 p\n"
                 for k, (s, e, v) in enumerate(spans, start=1)]
    (tmp_path / "perfect").write_text("".join(text))
    names = ["mgap", "mgap.window=60,step=0", "mrr_window_10", "masp", "masdwp"]
    ev = segeval.evaluate(qrels, tmp_path / "perfect", names)
    assert len(ev.queries) == len(rel) > 20
    for name in ["mgap", "mgap_window=60,step=0", "mrr_window_10", "masp", "masdwp"]:
        assert ev.per_query[name] == [1.0] * len(rel), name
