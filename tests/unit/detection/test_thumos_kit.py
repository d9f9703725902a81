"""The THUMOS14 kit's rules (thumos14-kit) checked by hand (the kit's own outputs under GNU Octave are in
test_official_cases.py), and the same files under thumos14 (ActivityNet's code at 0.3 ... 0.7): the worked
example of docs/detection.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli


def _kit(tmp_path: Path, detections: str, ambiguous: str = "v1 50 60\n") -> tuple[str, str]:
    root = tmp_path / "annotation"
    root.mkdir()
    (root / "detclasslist.txt").write_text("7 BaseballPitch\n9 Billiards\n")
    (root / "BaseballPitch_test.txt").write_text("v1 10 20\nv1 30 40\n")
    (root / "Billiards_test.txt").write_text("v2 0 10\n")
    (root / "Ambiguous_test.txt").write_text(ambiguous)
    det = tmp_path / "det.txt"
    det.write_text(detections)
    return str(root), str(det)


# d1 = GT 10-20 exactly; d2 overlaps it by 9/11; d3 lies in the Ambiguous 50-60; d4 meets GT 30-40 at
# overlap 5/10 = 0.5 exactly
EXAMPLE = "v1 10 20 7 0.9\nv1 11 21 7 0.8\nv1 52 58 7 0.7\nv1 30 35 7 0.6\nv2 0 10 9 0.5\n"


def _values(out: str, figure: str) -> dict[tuple[str, str], float]:
    """The figure's full-precision values (``-o json``) by (tIoU, class)."""
    return {(str(r["tiou"]), r["class"]): r["value"] for r in json.loads(out) if r["figure"] == figure}


def test_kit_rules_by_hand(tmp_path: Path) -> None:
    gt, det = _kit(tmp_path, EXAMPLE)
    code, out, err = run_cli("detect", "-p", "thumos14-kit", gt, det, "--thresholds", "0.4,0.5", "-o", "json")
    assert code == 0, err
    ap = _values(out, "AP")
    # θ 0.5: GT 10-20 takes d1 (overlap 1); GT 30-40's best free detection d4 has 0.5, not > 0.5; d3 is dropped
    # (unmatched, touches Ambiguous); ranking d1 hit, d2 miss, d4 miss: non-interpolated AP = 1/1 / 2 = 0.5
    assert ap[("0.5", "BaseballPitch")] == 0.5
    # θ 0.4: d4 taken too; ranking hit, miss, hit: (1 + 2/3) / 2 = 5/6
    assert ap[("0.4", "BaseballPitch")] == pytest.approx(5 / 6, abs=1e-15)
    assert ap[("0.5", "Billiards")] == 1.0
    assert _values(out, "mAP")[("0.5", "")] == 0.75  # (0.5 + 1) / 2
    text = run_cli("detect", "-p", "thumos14-kit", gt, det, "--thresholds", "0.4,0.5")[1]
    assert "mAP\t0.5\t\t0.75\t0.750000" in text and "AP\t0.4\tBaseballPitch\t0.833333\t0.833" in text


def test_the_same_files_under_activitynet_rules(tmp_path: Path) -> None:
    gt, det = _kit(tmp_path, EXAMPLE)
    code, out, err = run_cli("detect", "-p", "thumos14", gt, det, "--thresholds", "0.5", "-o", "json")
    assert code == 0, err
    # d1 hit, d2 miss, d3 miss (Ambiguous ignored), d4 hit (tIoU 0.5 >= 0.5): interpolated
    # 1/2 * 1 + 1/2 * 2/4 = 0.75
    assert _values(out, "AP")[("0.5", "BaseballPitch")] == 0.75
    assert "note: 1 Ambiguous interval ignored" in err


def test_ground_truth_first_matching(tmp_path: Path) -> None:
    # GT 10-20 then 30-40. d_a (0.9) = 10-20; d_b (0.8) = 12-20 (overlap 0.8 with GT 1). Only GT 1 is reachable,
    # so the kit takes the largest overlap among free detections, whatever its rank: d_a (1.0)
    gt, det = _kit(tmp_path, "v1 12 20 7 0.8\nv1 10 20 7 0.9\nv2 0 10 9 0.5\n")
    _, out, _ = run_cli("detect", "-p", "thumos14-kit", gt, det, "--thresholds", "0.5", "-o", "json")
    assert _values(out, "AP")[("0.5", "BaseballPitch")] == 0.5  # hit at rank 1: 1/2
    # with d_b alone above d_a in confidence, GT 1 still takes d_a (larger overlap): rank 1 miss, rank 2 hit
    (tmp_path / "x").mkdir()
    gt2, det2 = _kit(tmp_path / "x", "v1 12 20 7 0.95\nv1 10 20 7 0.9\nv2 0 10 9 0.5\n")
    _, out, _ = run_cli("detect", "-p", "thumos14-kit", gt2, det2, "--thresholds", "0.5", "-o", "json")
    assert _values(out, "AP")[("0.5", "BaseballPitch")] == 0.25  # (1/2) / 2
    # ActivityNet's prediction-first rule gives the hit to rank 1 instead: precision 1 at recall 1/2
    _, out, _ = run_cli("detect", "-p", "thumos14", gt2, det2, "--thresholds", "0.5", "-o", "json")
    assert _values(out, "AP")[("0.5", "BaseballPitch")] == 0.5


def test_kit_errors(tmp_path: Path) -> None:
    gt, det = _kit(tmp_path, "v1 10 20 8 0.9\n")
    code, _, err = run_cli("detect", "-p", "thumos14-kit", gt, det)
    assert code == 2 and "det.txt, line 1: the class id '8' is not in detclasslist.txt" in err
    (tmp_path / "annotation" / "Billiards_test.txt").write_text("")
    code, _, err = run_cli("detect", "-p", "thumos14-kit", gt, det)
    assert code == 2 and "Billiards_test.txt: has no instance; the kit stops on a class without ground truth" in err
    code, _, err = run_cli("detect", "-p", "thumos14-kit", str(tmp_path), det)
    assert code == 2 and "detclasslist.txt: is missing; expected the kit's class list" in err


@pytest.mark.parametrize(("line", "why"), [("v1 20 10 7 0.9\n", "reversed); the kit swaps its ends (min, max)"),
                                           ("v1 10 10 7 0.9\n", "zero length; the kit gives it overlap 0 with every "
                                                                "window (never a hit)")])
def test_kit_windows_refused_in_the_kit_terms(tmp_path: Path, line: str, why: str) -> None:
    gt, det = _kit(tmp_path, line)
    code, _, err = run_cli("detect", "-p", "thumos14-kit", gt, det)
    assert code == 2 and "det.txt, line 1: the detection: the window" in err and why in err


def test_the_kit_strips_mp4_only(tmp_path: Path) -> None:
    # regexprep(videonames, '\.mp4', ''): v1.mp4 is v1; v1.mpeg stays a video of its own (no ground truth)
    gt, det = _kit(tmp_path, "v1.mp4 10 20 7 0.9\nv1.mpeg 30 40 7 0.8\nv2 0 10 9 0.5\n")
    code, out, err = run_cli("detect", "-p", "thumos14-kit", gt, det, "--thresholds", "0.5", "-o", "json")
    assert code == 0, err
    assert _values(out, "AP")[("0.5", "BaseballPitch")] == 0.5  # hit, miss: (1/1) / 2
    assert "1 video of the detections not in the ground truth (e.g. 'v1.mpeg')" in err


def test_a_class_without_detections_scores_zero(tmp_path: Path) -> None:
    # the 2015 kit returns early for Billiards without setting its error outputs and stops ('bgcls_err' undefined);
    # its intent, and segeval's decision, is AP 0: MAP (0.5 + 0) / 2 at 0.5 (BaseballPitch: d1 hit of 2 instances)
    gt, det = _kit(tmp_path, "v1 10 20 7 0.9\n")
    code, out, err = run_cli("detect", "-p", "thumos14-kit", gt, det, "--thresholds", "0.5", "-o", "json")
    assert code == 0, err
    assert _values(out, "AP")[("0.5", "Billiards")] == 0.0 and _values(out, "mAP")[("0.5", "")] == 0.25
