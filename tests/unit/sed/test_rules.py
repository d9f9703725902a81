"""``segeval sed``: hand-derived figures at the float collar limits and for greedy vs optimal matching, and
bad input refused with the file, line and text (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from segeval.adapters.collar import Collar
from segeval.protocols.sed import measures
from segeval.protocols.sed.read import Event
from tests.conftest import run_cli

HEAD = "filename\tonset\toffset\tevent_label\n"


def _ev(onset: float, offset: float, label: str = "Dog") -> Event:
    return Event(onset, offset, label, 0)


@pytest.mark.parametrize(("ref", "est", "hit"), [
    ((2.3, 6.3), (2.5, 6.3), False),  # 2.5 - 2.3 = 0.20000000000000018 > 0.2
    ((1.0, 3.0), (1.2, 3.0), True),  # 1.2 - 1.0 = 0.19999999999999996 <= 0.2
    ((1.0, 3.0), (1.0, 3.4), True),  # offset limit max(0.2, 0.2 * 2.0) = 0.4; 3.4 - 3.0 = 0.3999999999999999
    ((1.0, 3.0), (1.0, 3.41), False),  # 0.41 > 0.4
    ((0.0, 0.0), (0.1, 0.2), True),  # zero-length reference: collars 0.2 on both ends
])
def test_collar_is_a_plain_float_difference(ref: tuple[float, float], est: tuple[float, float], hit: bool) -> None:
    assert Collar().hit(*ref, *est) is hit


def test_greedy_loses_a_match_that_optimal_finds() -> None:
    # A hits X and Y, B hits only X; X comes first: greedy gives A X and leaves B, optimal A Y and B X
    ref = [_ev(0.0, 1.0), _ev(0.3, 1.3)]
    est = [_ev(0.15, 1.15), _ev(0.0, 1.0)]
    figures = {}
    for matching in ("greedy", "optimal"):
        counts = measures.Counts(["Dog"])
        measures.event_file(counts, ref, est, Collar(), matching)
        figures[matching] = measures.results(counts, zero_score=True)["micro"]
    assert figures["greedy"]["f_measure"] == 0.5  # P = R = 1/2
    assert figures["greedy"]["error_rate"] == 2 / (2 + measures.EPS)  # one deletion, one insertion
    assert figures["optimal"]["f_measure"] == 1.0 and figures["optimal"]["error_rate"] == 0.0


def test_class_without_truth_nan_f_and_huge_error_rate() -> None:
    counts = measures.Counts(["Bird", "Dog"])
    measures.event_file(counts, [_ev(1.0, 2.0)], [_ev(1.0, 2.0), _ev(5.0, 6.0, "Bird")], Collar(), "optimal")
    r = measures.results(counts, zero_score=True)
    assert r["Bird"]["recall"] != r["Bird"]["recall"]  # NaN: no reference
    assert r["Bird"]["error_rate"] == 0.0 + 0 / measures.EPS + 1 / measures.EPS  # one insertion over eps
    assert r["macro"]["f_measure"] == 1.0  # Bird's NaN F left out
    assert r["macro"]["error_rate"] == (0.0 + 1 / measures.EPS) / 2  # its ER kept


def test_segments_end_at_the_last_event_or_the_duration() -> None:
    # a reference [0.5, 1.5] and nothing detected: segments 0 and 1, or 0..9 with a 10 s duration
    for duration, nref in ((None, 2.0), (10.0, 2.0)):
        counts = measures.Counts(["Dog"])
        measures.segment_file(counts, [_ev(0.5, 1.5)], [], 1.0, duration)
        assert counts.overall["Nref"] == nref and counts.overall["Nfn"] == 2.0
    counts = measures.Counts(["Dog"])
    measures.segment_file(counts, [_ev(2.0, 2.0), _ev(3.5, 3.5)], [], 1.0, None)
    assert counts.overall["Nref"] == 1.0  # zero-length: none at 2.0 (floor 2, ceil 2), one at 3.5


def _write(tmp: Path, name: str, text: str) -> str:
    (tmp / name).write_text(text)
    return str(tmp / name)


@pytest.mark.parametrize(("text", "line", "problem"), [
    ("filename\tonset\tevent_label\nA.wav\t1\tDog\n", 1, "no column 'offset'"),
    (HEAD + "a.wav\t1.0\t2.0\tDog\na.wav\tx\t2.0\tDog\n", 3, "expected a tab-separated row"),
    (HEAD + "a.wav\t3.0\t2.0\tDog\n", 2, "onset <= offset"),
    (HEAD + "a.wav\t1.0\t2.0\n", 2, "3 cells, the header has 4"),
])
def test_bad_rows_refused_with_file_line_and_text(tmp_path: Path, text: str, line: int, problem: str) -> None:
    gt = _write(tmp_path, "gt.tsv", text)
    det = _write(tmp_path, "det.tsv", HEAD)
    code, out, err = run_cli("sed", gt, det)
    assert code == 2 and out == ""
    shown = text.splitlines()[line - 1].replace("\t", "\\t")  # tabs escaped in messages
    assert f"gt.tsv, line {line}: " in err and problem in err and f"  line {line}: {shown}" in err


def test_psds_refuses_intersecting_events_of_one_class(tmp_path: Path) -> None:
    gt = _write(tmp_path, "gt.tsv", HEAD + "a.wav\t1.0\t3.0\tDog\na.wav\t2.0\t4.0\tDog\n")
    durations = _write(tmp_path, "d.tsv", "filename\tduration\na.wav\t10\n")
    (tmp_path / "ops").mkdir()
    _write(tmp_path / "ops", "p_th_0.5.tsv", HEAD)
    code, _, err = run_cli("sed", gt, str(tmp_path / "ops"), "-d", durations, "-m", "psds1")
    assert code == 2 and "gt.tsv, line 3: " in err and "intersects the one on line 2" in err


def test_parameters_checked_before_reading(tmp_path: Path) -> None:
    code, _, err = run_cli("sed", "nofile", "nofile", "-m", "psds7")
    assert code == 2 and "The 'metric' parameter must be one of" in err
    code, _, err = run_cli("sed", "nofile", "nofile", "-m", "psds1")
    assert code == 2 and "needs --durations" in err


def test_dropped_detections_noted_and_json_figures(tmp_path: Path) -> None:
    gt = _write(tmp_path, "gt.tsv", HEAD + "a.wav\t1.0\t2.0\tDog\n")
    det = _write(tmp_path, "det.tsv", HEAD + "a.wav\t1.1\t2.1\tDog\nb.wav\t1.0\t2.0\tDog\n")
    code, out, err = run_cli("sed", gt, det, "-o", "json")
    assert code == 0 and "1 detection in 1 clip not in the ground truth left out" in err
    doc = json.loads(out)
    assert doc["overall"]["f_measure"] == 1.0 and doc["class_wise"]["Dog"]["Nsys"] == 1.0


def _psds_case(tmp: Path) -> tuple[str, str, str]:
    # Dog 1-3 s detected at 1.2-3.2 (DTC 0.9, GTC 0.9), Cat 2.3-6.3 at 2.5-7.1 (DTC 0.83, GTC 0.95)
    gt = _write(tmp, "gt.tsv", HEAD + "a.wav\t1.0\t3.0\tDog\na.wav\t2.3\t6.3\tCat\n")
    durations = _write(tmp, "d.tsv", "filename\tduration\na.wav\t10\n")
    (tmp / "ops").mkdir()
    _write(tmp / "ops", "p_th_0.5.tsv", HEAD + "a.wav\t1.2\t3.2\tDog\na.wav\t2.5\t7.1\tCat\n")
    _write(tmp / "ops", "p_th_0.7.tsv", HEAD + "a.wav\t1.2\t3.2\tDog\n")
    return gt, str(tmp / "ops"), durations


def test_psds_json_has_each_operating_point_and_roc(tmp_path: Path) -> None:
    gt, ops, durations = _psds_case(tmp_path)
    code, out, _ = run_cli("sed", gt, ops, "-d", durations, "-m", "psds1", "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["classes"] == ["Cat", "Dog"]
    assert [p["tpr"] for p in doc["operating_points"]] == [{"Cat": 1.0, "Dog": 1.0}, {"Cat": 0.0, "Dog": 1.0}]
    # no false positive anywhere: every eFPR is 0, the PSD-ROC is the mean - std of TPR 1 and 1 at eFPR 0
    assert doc["psd_roc"]["efpr"] == [0.0] and doc["psds"] == 1.0


def test_plot_draws_the_rocs(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    gt, ops, durations = _psds_case(tmp_path)
    code, _, err = run_cli("sed", gt, ops, "-d", durations, "-m", "psds2", "--plot", str(tmp_path / "roc.png"))
    assert code == 0, err
    assert (tmp_path / "roc.png").read_bytes()[:4] == b"\x89PNG"
    code, _, err = run_cli("sed", gt, ops, "-m", "event", "--plot", str(tmp_path / "x.png"))
    assert code == 2 and "has none" in err


def test_bad_score_table_refused(tmp_path: Path) -> None:
    gt = _write(tmp_path, "gt.tsv", HEAD + "a.wav\t1.0\t3.0\tDog\n")
    durations = _write(tmp_path, "d.tsv", "filename\tduration\na.wav\t10\n")
    (tmp_path / "scores").mkdir()
    _write(tmp_path / "scores", "a.tsv", "onset\toffset\tDog\n0.0\t0.5\t0.1\n0.5\t1.0\tx\n")
    code, _, err = run_cli("sed", gt, str(tmp_path / "scores"), "-d", durations, "-m", "psds1",
                           "--psds-tool", "sed_scores_eval")
    assert code == 2 and "a.tsv, line 3: " in err and "a finite score per class" in err


def _kahan(values: list[float]) -> float:
    """pandas' groupby ``sum`` of one group: Kahan-compensated, in row order."""
    total = comp = 0.0
    for v in values:
        y = v - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total


def test_group_sums_equal_pandas_kahan_sum_on_every_route() -> None:
    # seeded sweep: groups of one or two values (the bincount route) and of up to six (the Kahan loop)
    import numpy as np

    rng = np.random.default_rng(39)
    for most in (2, 6):
        groups = np.sort(rng.integers(0, 40, size=200))
        groups = np.concatenate([groups[groups == g][:most] for g in range(40)])
        values = rng.random(groups.size) * 10.0 ** rng.integers(-8, 8, size=groups.size)
        order = rng.permutation(groups.size)
        total, has = measures._group_sums(groups[order], values[order], 40)
        for g in range(40):
            mine = values[order][groups[order] == g]
            assert has[g] == bool(mine.size) and total[g] == _kahan(mine.tolist())


def test_operating_point_identity_ignores_row_order_and_zero_length_events(tmp_path: Path) -> None:
    from segeval.protocols.sed.read import read_events

    a = _write(tmp_path, "a.tsv", HEAD + "a.wav\t1.0\t2.0\tDog\nb.wav\t0.5\t1.0\tCat\n")
    b = _write(tmp_path, "b.tsv", HEAD + "b.wav\t0.5\t1.0\tCat\nb.wav\t3.0\t3.0\tCat\na.wav\t1.0\t2.0\tDog\n")
    c = _write(tmp_path, "c.tsv", HEAD + "a.wav\t1.0\t2.0\tCat\nb.wav\t0.5\t1.0\tDog\n")  # labels swapped
    key = [measures.table_key(read_events(p)) for p in (a, b, c)]
    assert key[0] == key[1] != key[2]


def test_refuse_overlaps_equals_the_pairwise_rule() -> None:
    # seeded sweep against psds_eval's rule read literally: two same-class events of a clip that intersect
    # (onset1 < offset2 and onset2 < offset1) and are not identical; zero-length and repeated events included
    import random

    import numpy as np

    from segeval.core.errors import InputError
    from segeval.protocols.sed.read import Events

    rng = random.Random(39)
    for _ in range(400):
        rows = [(rng.randrange(2), float(rng.randrange(6)), rng.randrange(2)) for _ in range(rng.randrange(1, 6))]
        rows = [(c, on, on + rng.choice([0.0, 0.5, 1.0, 2.5]), lab) for c, on, lab in rows]
        bad = any(a[0] == b[0] and a[3] == b[3] and a[1] < b[2] and b[1] < a[2] and a[1:3] != b[1:3]
                  for i, a in enumerate(rows) for b in rows[i + 1:])
        table = Events("t", ["a", "b"], np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                       np.array([r[2] for r in rows]), ["Cat", "Dog"], np.array([r[3] for r in rows]),
                       np.arange(2, len(rows) + 2))
        try:
            measures.refuse_overlaps(table)
            refused = False
        except InputError:
            refused = True
        assert refused == bad, rows
