"""Rank correlation with ties: SciPy for Kendall's tau-b and Spearman's rho, tau_AP against an
implementation written here from Yilmaz et al.'s definition, hand-derived values, the command."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from segeval.analyses import correlate as C
from segeval.core.errors import ParameterError
from tests.conftest import run_cli


def tied_vectors(seed: int) -> tuple[list[float], list[float]]:
    """Two short score vectors with many ties (some constant, some of length 0 or 1)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 9))
    return rng.integers(0, 4, n).astype(float).tolist(), rng.integers(0, 4, n).astype(float).tolist()


def test_kendall_and_spearman_equal_scipy_with_ties_and_constant_rankings() -> None:
    compared, undefined, worst = 0, 0, 0.0
    for seed in range(600):
        x, y = tied_vectors(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy warns on constant input
            references = [(C.kendall_tau(x, y), stats.kendalltau(x, y).statistic)]
            if len(x) >= 2:
                references.append((C.spearman_rho(x, y), stats.spearmanr(x, y).statistic))
            else:
                assert math.isnan(C.spearman_rho(x, y))
        for ours, theirs in references:
            if math.isnan(theirs):
                assert math.isnan(ours), (x, y)
                undefined += 1
            else:
                worst = max(worst, abs(ours - theirs))
                compared += 1
    assert compared > 700 and undefined > 150  # both kinds were generated
    assert worst < 1e-12


def yilmaz_tau_ap(truth: list[float], ranking: list[int]) -> float:
    """tau_AP of a strict ranking (item indices, best first) from the paper's definition:
    2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1, C(i) = items above rank i that the truth does not
    rank below the item at rank i (a pair the truth ties is no error)."""
    n = len(ranking)
    total = 0.0
    for i in range(1, n):
        item = ranking[i]
        total += sum(1 for j in ranking[:i] if truth[j] >= truth[item]) / i
    return 2 * total / (n - 1) - 1


def tau_ap_by_enumeration(truth: list[float], other: list[float]) -> float:
    """The mean of Yilmaz's tau_AP over every strict order of ``other``'s tied items (tau_AP,a)."""
    levels = sorted(set(other), reverse=True)
    groups = [[i for i, v in enumerate(other) if v == level] for level in levels]
    values = [yilmaz_tau_ap(truth, [i for part in parts for i in part])
              for parts in itertools.product(*(itertools.permutations(g) for g in groups))]
    return sum(values) / len(values)


def test_tau_ap_equals_the_enumeration_of_tied_orders() -> None:
    checked, worst = 0, 0.0
    for seed in range(1500):
        x, y = tied_vectors(seed)
        if len(set(x)) < 2 or len(set(y)) < 2:
            assert math.isnan(C.tau_ap(x, y))
            continue
        worst = max(worst, abs(C.tau_ap(x, y) - tau_ap_by_enumeration(x, y)))
        checked += 1
    assert checked > 800 and worst < 1e-12


def test_tau_ap_without_ties_is_yilmaz() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 12))
        x, y = rng.permutation(n).astype(float).tolist(), rng.permutation(n).astype(float).tolist()
        order = sorted(range(n), key=lambda i: -y[i])
        assert C.tau_ap(x, y) == pytest.approx(yilmaz_tau_ap(x, order), abs=1e-12)


def test_tau_ap_hand_derived_values() -> None:
    # truth A > B > C, other A > C > B: rank 2 (C) has A above, correct: 1/1; rank 3 (B) has A (correct) and C
    # (wrong): 1/2.  2 / 2 * (1 + 1/2) - 1 = 0.5
    assert C.tau_ap([3, 2, 1], [3, 1, 2]) == 0.5
    # other ties B and C: orders A B C (1) and A C B (0.5), each with weight 1/2 -> 0.75
    assert C.tau_ap([3, 2, 1], [2, 1, 1]) == pytest.approx(0.75)
    # the truth ties A and B; other ranks C, B, A: rank 2 (B) below C, which the truth ranks lower: 0/1;
    # rank 3 (A) below C (wrong) and B (tied in the truth: no error): 1/2 -> (0 + 1/2) - 1 = -0.5
    assert C.tau_ap([2, 2, 1], [1, 2, 3]) == pytest.approx(-0.5)
    # ... and A, B, C is perfect: the tie in the truth is not an error
    assert C.tau_ap([2, 2, 1], [3, 2, 1]) == 1.0


@pytest.mark.parametrize("seed", range(50))
def test_tau_ap_with_itself_is_one_and_listing_order_does_not_matter(seed: int) -> None:
    x, y = tied_vectors(seed + 10_000)
    if len(set(x)) < 2 or len(set(y)) < 2:
        return
    assert C.tau_ap(x, x) == pytest.approx(1.0, abs=1e-12)
    perm = np.random.default_rng(seed).permutation(len(x))
    for f in (C.tau_ap, C.kendall_tau, C.spearman_rho, C.kendall_tau_ties_agree):
        assert f([x[i] for i in perm], [y[i] for i in perm]) == pytest.approx(f(x, y), abs=1e-12)


def test_constant_rankings_are_undefined_with_a_note() -> None:
    x, flat = [0.3, 0.2, 0.1], [0.5, 0.5, 0.5]
    for f in (C.kendall_tau, C.spearman_rho, C.tau_ap):
        assert math.isnan(f(x, flat)) and math.isnan(f(flat, x)) and math.isnan(f(flat, flat))
        assert math.isnan(f([0.1], [0.2]))
    assert C.kendall_tau_ties_agree(x, flat) == 1.0  # its convention: every pair tied on one side agrees
    assert math.isnan(C.kendall_tau_ties_agree([0.1], [0.2]))
    assert C.notes(x, x) == []
    (note,) = C.notes(x, flat)
    assert note.startswith("setting 2 gives every item the same score (0.5)")
    with pytest.raises(ParameterError, match=r"must score the same items\. Got 3 and 2 scores"):
        C.kendall_tau(x, [0.1, 0.2])
    with pytest.raises(ParameterError, match=r"must be numbers\. Got nan for item 1"):
        C.tau_ap(x, [0.1, math.nan, 0.3])


def test_correlate_command_prints_null_and_the_note(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 1\n")
    runs = []
    for name, docs in (("r1", "d1 d9"), ("r2", "d9 d2"), ("r3", "d8 d9")):
        (tmp_path / name).write_text("".join(f"q1 Q0 {d} {i} {3 - i} {name}\n" for i, d in enumerate(docs.split(), 1)))
        runs.append(str(tmp_path / name))
    # P_1: 1, 0, 0 under setting 1; P_5 ... under setting 2 (--measure2 num_ret): 2, 2, 2, constant
    code, out, err = run_cli("correlate", str(tmp_path / "q"), *runs, "-m", "P_1", "--measure2", "num_ret",
                             "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["setting2"] == [2.0, 2.0, 2.0]
    assert doc["kendall_tau_b"] is None and doc["spearman_rho"] is None and doc["tau_ap"] is None
    assert "setting 2 gives every item the same score (2)" in err
    assert doc["notes"][0].startswith("setting 2 gives every item the same score")
    assert "tau_AP,a, Urbano & Marrero 2017" in doc["notes"][-1]
    # a file named twice is refused with the reason
    code, _, err = run_cli("correlate", str(tmp_path / "q"), runs[0], runs[0])
    assert code == 2 and "must name at least two different runs" in err and "twice" in err


def test_correlate_gives_one_note_per_kind_not_per_run(tmp_path: Path) -> None:
    """Every run's 'bpref above 1' note (the overlap adapter) was printed once per run and setting."""
    from tests.conftest import FIXTURES

    run = (FIXTURES / "gen_linking.run").read_text().splitlines()
    runs = []
    for k in range(4):
        runs.append(tmp_path / f"run{k}")
        runs[-1].write_text("\n".join(x for i, x in enumerate(run) if i % (k + 2)) + "\n")
    code, out, err = run_cli("correlate", str(FIXTURES / "gen_linking.qrels"), *map(str, runs), "-m", "bpref",
                             "-a", "overlap", "-o", "json")
    assert code == 0, err
    above = [n for n in json.loads(out)["notes"] if "bpref is above 1" in n]
    # one note: the first run's, then the 7 other (run, setting) pairs with the same kind of note
    assert len(above) == 1 and above[0].startswith("run0 (setting 1): bpref is above 1 for ")
    assert above[0].endswith("; the same for 7 more: run1 (setting 1), run2 (setting 1), run3 (setting 1), "
                             "run0 (setting 2), run1 (setting 2), run2 (setting 2), run3 (setting 2)")
    assert err.count("bpref is above 1") == 1


def test_one_per_kind_keeps_different_kinds_apart() -> None:
    from segeval.core.notes import one_per_kind

    notes = one_per_kind([("a", "note: map is above 1 for 2 of 5 queries (first: q1): x"),
                          ("b", "note: map is above 1 for 3 of 5 queries (first: q4): x"),
                          ("b", "note: 2 results have no score")])
    assert notes == ["a: map is above 1 for 2 of 5 queries (first: q1): x; the same for 1 more: b",
                     "b: 2 results have no score"]
