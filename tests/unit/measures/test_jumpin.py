"""Jump-in point measures (mgap, mrr_window, masp, masdwp) on hand-made segments, each value derived by hand,
their key=value parameters, and two properties (bounds; a perfect run scores 1) on seeded generated runs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from segeval.core.errors import ParameterError
from segeval.measures import jumpin as J
from segeval.measures import segments as S
from segeval.measures.definitions import expand, measure


def segs(run: list[tuple[int, float, float]], rel: list[tuple[int, float, float]]) -> S.QuerySegments:
    """(video, start, end) results in rank order and merged relevant segments (sorted, disjoint)."""
    r = np.array(run, dtype=np.float64).reshape(-1, 3)
    q = np.array(rel, dtype=np.float64).reshape(-1, 3)
    return S.QuerySegments(r[:, 0].astype(np.int64), r[:, 1], r[:, 2], q[:, 0].astype(np.int64), q[:, 1], q[:, 2])


def value(name: str, q: S.QuerySegments) -> float:
    """The registry's measure ``name`` on ``q`` (as ``segeval eval -m name`` computes it)."""
    return float(measure(name)(q))


# ------------------------------------------------------------------- the reward

@pytest.mark.parametrize(("distance", "window", "step", "expected"), [
    (0.0, 150, 15, 1.0),  # on the onset
    (14.9, 150, 15, 1.0),  # inside the first 15 s step: no whole step of distance
    (15.0, 150, 15, 0.9),  # exactly on the first step edge: one whole step, 1 - 15/150
    (44.0, 150, 15, 0.8),  # 44 -> two whole steps (30 s): 1 - 30/150
    (149.0, 150, 15, 0.1),  # nine whole steps (135 s): 1 - 135/150
    (150.0, 150, 15, 0.0),  # on the window edge: nothing
    (30.0, 60, 0, 0.5),  # no steps: 1 - 30/60
    (60.0, 60, 0, 0.0),  # no steps, on the window edge
    (61.0, 60, 0, 0.0),  # beyond the window
])
def test_reward(distance: float, window: float, step: float, expected: float) -> None:
    assert J.reward(distance, window, step) == pytest.approx(expected)


# ----------------------------------------------------------------------- mgap

# one onset, v1 at 100 s; results: v1 from 130 (30 s away), v2 (no onset), v1 from 100 (on the onset)
NEAR_TWICE = segs([(1, 130, 160), (2, 0, 30), (1, 100, 130)], [(1, 100, 200)])


def test_mgap_credits_an_onset_once_by_default() -> None:
    # rewards 0.8 (two 15 s steps), 0, 0 (the onset is taken by rank 1): (0.8 * 0.8/1) / 1 = 0.64
    assert value("mgap", NEAR_TWICE) == pytest.approx(0.64)
    assert J.rewards(NEAR_TWICE, 150, 15, once=True) == pytest.approx([0.8, 0.0, 0.0])


def test_mgap_match_all_credits_every_result_and_can_exceed_one() -> None:
    # rewards 0.8, 0, 1: 0.8 * 0.8/1 + 1 * (0.8 + 0 + 1)/3 = 0.64 + 0.6 = 1.24 over one onset
    assert value("mgap_match=all", NEAR_TWICE) == pytest.approx(1.24)


def test_mgap_window_and_step_parameters() -> None:
    q = segs([(1, 145, 150)], [(1, 100, 200)])  # 45 s from the onset
    assert value("mgap", q) == pytest.approx(0.7 * 0.7)  # three whole 15 s steps: 0.7; 0.7 * 0.7/1
    assert value("mgap_window=60,step=0", q) == pytest.approx(0.25 * 0.25)  # 1 - 45/60 = 0.25; 0.25 * 0.25/1
    assert value("mgap_window=60,step=15", q) == pytest.approx(0.25 * 0.25)  # 45 = 3 whole steps: 1 - 45/60
    assert value("mgap_window=60,step=20", q) == pytest.approx((1 / 3) ** 2)  # 45 -> 40: 1 - 40/60 = 1/3
    assert value("mgap_window=45", q) == 0.0  # on the window edge: nothing


def test_mgap_a_result_takes_its_best_onset_and_the_next_one_the_other() -> None:
    # onsets v1 0 and v1 40; rank 1 from 30 s: 10 s from 40 (1.0) rather than 30 s from 0 (0.8);
    # rank 2 from 0: onset 0 still free (1.0): (1 * 1/1 + 1 * 2/2) / 2 onsets = 1
    q = segs([(1, 30, 35), (1, 0, 5)], [(1, 0, 20), (1, 40, 60)])
    assert J.rewards(q, 150, 15, once=True) == [1.0, 1.0]
    assert value("mgap", q) == 1.0


def test_mgap_normalises_by_the_onsets_of_the_qrels() -> None:
    # two onsets (v1 0, v2 0), one found at rank 2 exactly: (1 * 1/2) / 2 = 0.25
    q = segs([(3, 0, 10), (1, 0, 10)], [(1, 0, 20), (2, 0, 20)])
    assert value("mgap", q) == 0.25
    assert value("mgap", segs([(1, 0, 10)], [])) == 0.0  # no onset: 0, not 0/0


# ----------------------------------------------------------------- mrr_window

def test_mrr_window_edges() -> None:
    # onset v1 100; rank 1 from 140 (40 s), rank 2 from 70 (30 s), rank 3 from 95 (5 s)
    q = segs([(1, 140, 150), (1, 70, 80), (1, 95, 99)], [(1, 100, 120)])
    assert value("mrr_window_60", q) == 1.0  # 40 <= 60 at rank 1
    assert value("mrr_window_30", q) == 0.5  # 30 <= 30 (the edge counts) at rank 2
    assert value("mrr_window_10", q) == pytest.approx(1 / 3)  # 5 <= 10 at rank 3
    assert value("mrr_window_4", q) == 0.0  # none within 4 s
    assert value("mrr_window_60", segs([(2, 100, 110)], [(1, 100, 120)])) == 0.0  # right time, other video


def test_mrr_window_defaults_are_the_mediaeval_windows() -> None:
    assert [m.name for m in expand("mrr_window")] == ["mrr_window_10", "mrr_window_30", "mrr_window_60"]


# --------------------------------------------------------------- masp, masdwp

# relevant v1 100-160 (60 s); results: v1 0-60 (no relevant content), v1 90-150 (50 s of it in 60 s),
# v2 0-30 (none), v1 140-170 (20 s in 30 s)
SEGMENTS = segs([(1, 0, 60), (1, 90, 150), (2, 0, 30), (1, 140, 170)], [(1, 100, 160)])


def test_masp() -> None:
    assert J.relevant_seconds(SEGMENTS) == [0.0, 50.0, 0.0, 20.0]
    # SP at rank 2 = 50/120, at rank 4 = 70/180; two ranks hold relevant content: (50/120 + 70/180) / 2
    assert value("masp", SEGMENTS) == pytest.approx((50 / 120 + 70 / 180) / 2)  # 0.402778
    # norm=qrels: over the one relevant segment instead: 50/120 + 70/180 = 0.805556
    assert value("masp_norm=qrels", SEGMENTS) == pytest.approx(50 / 120 + 70 / 180)


def test_masdwp() -> None:
    # starts 90 and 140 against onset 100: 10 s (no whole step: 1.0) and 40 s (two steps: 0.8)
    assert value("masdwp", SEGMENTS) == pytest.approx((50 / 120 * 1.0 + 70 / 180 * 0.8) / 2)  # 0.363889
    # window=60,step=0: 1 - 10/60 = 5/6 and 1 - 40/60 = 1/3
    assert value("masdwp_window=60,step=0", SEGMENTS) == pytest.approx((50 / 120 * 5 / 6 + 70 / 180 / 3) / 2)
    assert value("masdwp_norm=qrels", SEGMENTS) == pytest.approx(50 / 120 + 70 / 180 * 0.8)  # over 1 segment


def test_masp_content_two_results_share_counts_for_both() -> None:
    # relevant 0-10; ranks 1 and 2 both 0-10: SP 10/10, then 20/20: (1 + 1) / 2 = 1
    assert value("masp", segs([(1, 0, 10), (1, 0, 10)], [(1, 0, 10)])) == 1.0
    # norm=qrels divides by the one relevant segment: (1 + 1) / 1 = 2, above 1 (the bound's '*')
    assert value("masp_norm=qrels", segs([(1, 0, 10), (1, 0, 10)], [(1, 0, 10)])) == 2.0
    # touching is no content: a result 10-20 holds none, so nothing is averaged
    assert value("masp", segs([(1, 10, 20)], [(1, 0, 10)])) == 0.0


# ------------------------------------------------------------------ parameters

@pytest.mark.parametrize(("given", "canonical"), [
    ("mgap.step=0,window=60", "mgap_window=60,step=0"),  # declared key order
    ("mgap.window=60.0", "mgap_window=60"),  # numbers as %g
    ("mgap.window=0.25", "mgap_window=0.25"),
    ("mgap.match=all", "mgap_match=all"),
    ("masdwp.norm=qrels,step=5", "masdwp_step=5,norm=qrels"),
])
def test_parameters_are_normalised(given: str, canonical: str) -> None:
    assert [m.name for m in expand(given)] == [canonical]
    assert measure(canonical).name == canonical


@pytest.mark.parametrize("name", [
    "mgap.window=0", "mgap.step=-1", "mgap.window=nan", "mgap.window=inf", "mgap.size=3", "mgap.window=6,window=7",
    "mgap.match=some", "mgap.window", "mgap.=3", "masp.window=60", "masp.norm=all",
])
def test_parameters_refused(name: str) -> None:
    refused = r"key=value pairs separated by commas, each key once|The 'm\w+\.\w+' parameter must be"
    with pytest.raises(ParameterError, match=refused):
        expand(name)


def test_an_underscore_name_with_a_bad_parameter_is_an_unknown_measure() -> None:
    with pytest.raises(ParameterError, match="must be a known measure"):
        measure("mgap_window=x")


# ------------------------------------------------------------------ properties

def generated(rng: random.Random) -> tuple[S.QuerySegments, S.QuerySegments]:
    """A random query (results anywhere in two videos) and the perfect run for its relevant segments."""
    rel = []
    for g in (1, 2):
        t = rng.randint(0, 50)
        for _ in range(rng.randint(0, 3)):
            length = rng.randint(1, 40)
            rel.append((g, t, t + length))
            t += length + rng.randint(1, 200)
    run = [(rng.choice((1, 2, 3)), s, s + rng.randint(0, 90)) for s in (rng.randint(0, 900) for _ in range(12))]
    return segs(run, rel), segs(rel, rel)


MEASURES = ["mgap", "mgap_window=60,step=0", "mrr_window_10", "masp", "masdwp", "masdwp_window=30,step=10"]


def test_bounds_and_perfect_runs_on_generated_queries() -> None:
    rng = random.Random(26)
    checked = 0
    for _ in range(300):
        q, perfect = generated(rng)
        for name in MEASURES:
            assert 0.0 <= value(name, q) <= 1.0, name
            if len(perfect.rel_start):
                assert value(name, perfect) == pytest.approx(1.0), name  # every onset exactly, nothing else
                checked += 1
    assert checked > 1000


def test_the_worked_example_of_speech_md() -> None:
    # docs/speech.md, "Worked example": onset v1 100 (relevant 100-160); results 0-60, 90-150, v2 0-30, 140-170
    q = segs([(1, 0, 60), (1, 90, 150), (2, 0, 30), (1, 140, 170)], [(1, 100, 160)])
    assert value("mgap", q) == pytest.approx(0.16)  # rank 1, 100 s: 0.4, takes the onset: 0.4 * 0.4 / 1
    assert value("mgap_match=all", q) == pytest.approx(0.16 + 0.7 + 0.44)  # 0.4, 1.0, 0, 0.8 (see the doc)
    assert value("mgap_window=60,step=0", q) == pytest.approx(25 / 72)  # rank 2 takes it: 5/6 * 5/6 / 2
    assert value("mrr_window_10", q) == value("mrr_window_60", q) == 0.5
    assert value("masp", q) == pytest.approx(0.402778, abs=5e-7)
    assert value("masp_norm=qrels", q) == pytest.approx(0.805556, abs=5e-7)
    assert value("masdwp", q) == pytest.approx(0.363889, abs=5e-7)
    assert value("masdwp_window=60,step=0", q) == pytest.approx(0.238426, abs=5e-7)
