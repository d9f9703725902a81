"""Measures on hand-made labels and segments, each value derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from segeval.adapters.base import Adapted
from segeval.core.aggregate import aggregate
from segeval.core.errors import ParameterError
from segeval.measures import measure
from segeval.measures import segments as S
from segeval.measures import trec_ranks as TR
from segeval.measures.definitions import expand


def labelled(text: str, num_rel: int) -> Adapted:
    codes = np.frombuffer(text.encode(), dtype=np.uint8).copy()
    n = len(codes)
    return Adapted(codes, num_rel, np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                   np.arange(n, dtype=np.int64))


A = labelled("1-0s1S--1", num_rel=4)


def test_counts() -> None:
    assert measure("num_ret")(A) == 9
    assert measure("num_rel")(A) == 4
    assert measure("num_rel_ret")(A) == 3  # ranks 1, 5, 9; 's' is not counted


def test_average_precision() -> None:
    # (1/1 + 2/5 + 3/9) / 4 = (1 + 0.4 + 0.33333) / 4 = 0.433333
    assert measure("map")(A) == pytest.approx((1 + 2 / 5 + 3 / 9) / 4)
    assert measure("map")(labelled("--0", 2)) == 0.0  # nothing relevant found
    # overlap credit: 3 relevant results for 1 relevant segment -> (1 + 1 + 1) / 1 = 3
    assert measure("map")(labelled("111", 1)) == 3.0


def test_precision_and_judged_at() -> None:
    assert measure("P_5")(A) == 2 / 5  # 1 at ranks 1 and 5
    assert measure("P_20")(A) == 3 / 20  # missing ranks count as not relevant
    assert measure("Judged_5")(A) == 4 / 5  # 1, 0, s, 1 judged; rank 2 '-'


def test_judged_counts_seen_labels_as_judged() -> None:
    # ranks 1 '1', 3 '0', 4 's', 5 '1', 6 'S', 9 '1' are judged: 6 of the first 10
    assert measure("Judged_10")(A) == 6 / 10


def test_relstring() -> None:
    assert TR.relstring(A) == "1-0s1S--1 9"
    assert TR.relstring(labelled("", 0)) == " 0"


def test_aggregate_sum_mean_none() -> None:
    assert aggregate([1, 2, 3], "sum") == 6
    assert aggregate([0.5, 0.25], "mean") == 0.375
    assert aggregate([], "mean") == 0.0
    assert aggregate([], "sum") == 0
    assert aggregate(["x"], "none") is None


@pytest.mark.parametrize(("name", "canonical"), [
    ("P_10", "P_10"), ("P@10", "P_10"), ("map", "map"), ("AP", "map"), ("Judged@30", "Judged_30"),
    ("Judged_10", "Judged_10"), ("maisp_0.05", "maisp_0.05"), ("maisp", "maisp"), ("relString", "relString"),
])
def test_measure_names(name: str, canonical: str) -> None:
    assert measure(name).name == canonical


@pytest.mark.parametrize("name", ["P_0", "P_x", "foo@10", "P_1.5", "maisp_2.00", ""])
def test_unknown_measure_names(name: str) -> None:
    with pytest.raises(ParameterError, match="The 'measure' parameter must be a known measure"):
        measure(name)


# ------------------------------------------------------------------------------- MAiSP

def segs(run: list[tuple[int, int, int]], rel: list[tuple[int, int, int]]) -> S.QuerySegments:
    r = np.array(run, dtype=np.float64).reshape(-1, 3)
    q = np.array(rel, dtype=np.float64).reshape(-1, 3)
    return S.QuerySegments(r[:, 0].astype(np.int64), r[:, 1], r[:, 2], q[:, 0].astype(np.int64), q[:, 1], q[:, 2])


@pytest.mark.parametrize(("rel_secs", "points"), [
    (0, [0]),
    (3, [0, 1, 2, 3]),
    (100, list(range(101))),  # up to 100 s: one point per second, 0 included
])
def test_recall_points_small_cases(rel_secs: int, points: list[int]) -> None:
    assert S.recall_points(rel_secs) == points


def test_recall_points_rounding() -> None:
    # 351 s: 351 / 100 = 3.51, rest 51 > 50 -> step ceil = 4: 0, 4, ..., 348, last raised by 51 -> 399
    pts = S.recall_points(351)
    assert pts[:3] == [0, 4, 8] and pts[-2:] == [344, 348 + 51] and len(pts) == 88
    # 250 s: rest 50 <= 50 -> step floor = 2: 0 .. 248 (125 points), last 248 + 50 = 298
    pts = S.recall_points(250)
    assert len(pts) == 125 and pts[-1] == 298


def test_maisp_single_result_watching_into_relevant_content() -> None:
    q = segs([(1, 5, 12)], [(1, 10, 20)])
    st = q.maisp
    # rel 10 s -> points 0..10; the user watches 5-10 (5 s) then 10-20 (relevant, 10 s): seen 15,
    # rel_ret 10; precision at point p = p / (0 + 15 - (10 - p)) = p / (5 + p), increasing in p,
    # so every interpolated value is the last: 10 / 15
    assert (st.rel_secs, st.ret_secs, st.rel_ret_secs) == (10, 15, 10)
    assert st.isp == pytest.approx([10 / 15] * 10)
    assert S.maisp(q) == pytest.approx((1 + 10 * 10 / 15) / 11)  # 0.69697
    assert S.maisp(q, 5) == pytest.approx(10 / 15)
    assert S.maisp(q, 10) == 0.0  # only 10 values: positions 0..9


def test_maisp_nonrelevant_results_first_lower_precision() -> None:
    q = segs([(2, 0, 10), (1, 10, 20)], [(1, 10, 20)])
    # result 1 (other video) adds 10 watched seconds; result 2 watches 10 relevant seconds: p / (10 + 10 -
    # (10 - p)) = p / (10 + p), increasing -> all interpolated = 10 / 20
    st = q.maisp
    assert (st.ret_secs, st.rel_ret_secs) == (20, 10)
    assert S.maisp(q) == pytest.approx((1 + 10 * 0.5) / 11)


def test_maisp_nothing_relevant_found_is_zero() -> None:
    q = segs([(1, 0, 5)], [(1, 10, 20)])
    assert S.maisp(q) == 0.0
    assert q.maisp.ret_secs == 5


def test_maisp_reference_module_example() -> None:
    # the example in the reference's maisp.py; it prints 0.151515... = 5/33
    q = segs([(1, 0, 5), (1, 5, 10), (1, 10, 15), (1, 23, 23), (1, 27, 27), (1, 100, 200), (3, 10, 15)],
             [(1, 15, 25), (1, 30, 35), (2, 3, 20)])
    # rel 10 + 5 + 17 = 32 s -> 33 points; results 1, 2 (5 s each) reach 10 s watched; result 3 (10-15)
    # meets 15-25 at its end: o0 = 15, watches 5 + 10 = 15 s, rel_ret 10 -> precision p / (10 + 15 - (10 - p))
    # = p / (15 + p) for p = 1..10, max 10/25 = 0.4; nothing else relevant is reached -> 1 + 10 * 0.4 = 5
    # over 33 points
    assert S.maisp(q) == pytest.approx(5 / 33)


def test_segment_statistics() -> None:
    q = segs([(1, 0, 10), (1, 5, 6), (2, 0, 4)], [(1, 0, 4), (3, 10, 30)])
    assert S.videos_ret(q) == 2
    assert S.videos_rel(q) == 2
    assert S.avglength_ret(q) == 5.0  # (10 + 1 + 4) / 3
    assert S.avglength_rel(q) == 12.0  # (4 + 20) / 2
    assert S.avglength_rel(segs([(1, 0, 1)], [])) == 0.0


@pytest.mark.parametrize(("gids", "expected"), [
    ([], 0), ([7], 1), ([7, 7, 7], 1), ([3, 5, 3, 4], 3),  # a dense range: counted
    ([0, 1000, 0, 10**12], 3),  # spread wider than 4 x the results: sorted instead
])
def test_videos_ret_counts_distinct_group_ids(gids: list[int], expected: int) -> None:
    assert S.videos_ret(segs([(g, 0, 1) for g in gids], [])) == expected
    assert S.videos_rel(segs([], [(g, 0, 1) for g in gids])) == expected


def test_every_declared_function_resolves_to_a_function_of_its_module() -> None:
    # the declarations name their functions by module (Deferred): a misspelt name must fail here, not in a run
    import importlib
    import pickle

    from segeval.measures.declaration import Deferred
    from segeval.measures.definitions import FAMILIES, TREC_EVAL_9

    families = (*FAMILIES, *TREC_EVAL_9.values())
    for ref in (f.func for f in families):  # a per-query form or a batch one (a function of segeval.measures.batch)
        assert isinstance(ref, Deferred) and ref.function is getattr(importlib.import_module(ref.module), ref.name)
        assert pickle.loads(pickle.dumps(ref)) == ref
    with pytest.raises(AttributeError):
        Deferred("segeval.measures.trec_ranks", "no_such_measure")()  # resolved on the call
    assert measure("P_2")(labelled("1-0", num_rel=1)) == 0.5  # 1 relevant in the top 2, through the reference


@pytest.mark.parametrize(("name", "suggested"), [("mapp", "map"), ("ndcgg@10", "nDCG@10"), ("Rprc", "Rprec"),
                                                 ("bperf", "bpref"), ("officail", "official")])
def test_unknown_names_suggest_the_nearest(name: str, suggested: str) -> None:
    with pytest.raises(ParameterError) as info:
        measure(name) if name != "officail" else expand(name)
    text = str(info.value)
    assert ": did you mean " in text and suggested in text.split("?")[0] and text.endswith(f"Got {name!r} instead.")
    assert "-l N" in text  # grades are a flag, not part of a name


def test_nothing_near_suggests_nothing() -> None:
    with pytest.raises(ParameterError) as info:
        measure("zzzzqqqq")
    assert "did you mean" not in str(info.value)
