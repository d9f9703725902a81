"""Inputs the official tools misread or stop on (issue 25, item 5): an error naming the file, the record and
what was expected (exit 2), or the official behaviour with a note; docs/detection.md has the table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

GT = {"version": "x", "taxonomy": [], "database": {
    "v1": {"subset": "validation", "annotations": [{"segment": [0, 10], "label": "A"},
                                                   {"segment": [20, 30], "label": "B"}]},
    "t1": {"subset": "training", "annotations": [{"segment": [0, 10], "label": "D"}]}}}


def _run(tmp_path: Path, results: dict[str, Any], *extra: str, gt: dict[str, Any] = GT,
         command: str = "detect") -> tuple[int, str, str]:
    g, p = tmp_path / "gt.json", tmp_path / "pred.json"
    g.write_text(json.dumps(gt))
    p.write_text(json.dumps({"version": "x", "external_data": {}, "results": results}).replace('"NAN"', "NaN"))
    return run_cli(command, str(g), str(p), *extra)


def _pred(s: float, e: float, label: str = "A", score: Any = 0.9) -> dict[str, Any]:
    return {"segment": [s, e], "label": label, "score": score}


def test_label_absent_from_the_ground_truth(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, {"v1": [_pred(0, 10), _pred(0, 10, "Z")]})
    assert code == 2
    assert "pred.json: results[\"v1\"][1]: the label 'Z' is not a class of the ground truth; the official " \
           "eval_detection.py stops with a KeyError: expected one of the 2 classes of subset 'validation'" in err


def test_class_only_in_another_subset(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, {"v1": [_pred(0, 10, "D")]})
    assert code == 2 and "the label 'D' has no ground-truth instance in subset 'validation' (it occurs only in " \
                         "other subsets)" in err


def test_ego4d_skips_unknown_labels_with_a_note(tmp_path: Path) -> None:
    gt = {"v1": {"subset": "val", "annotations": [{"start_time": 0, "end_time": 10, "label": "A"}]}}
    code, out, err = _run(tmp_path, {"v1": [_pred(0, 10), _pred(0, 10, "Z")]}, "-p", "ego4d-mq", gt=gt)
    assert code == 0, err
    assert "note: 1 prediction with 1 label not in the ground truth (e.g. 'Z') skipped, as the Ego4D MQ port does" \
        in err
    assert "mAP\t0.5\t\t1.0\t" in out


@pytest.mark.parametrize(("window", "word"), [([10, 5], "ends before it starts (reversed)"),
                                              ([5, 5], "has zero length")])
def test_reversed_and_zero_length_windows(tmp_path: Path, window: list[float], word: str) -> None:
    code, _, err = _run(tmp_path, {"v1": [_pred(*window)]})
    assert code == 2 and f"pred.json: results[\"v1\"][0]: the window [{float(window[0])!r}, " \
                         f"{float(window[1])!r}] {word}" in err and "expected start < end" in err


def test_zero_length_ground_truth(tmp_path: Path) -> None:
    gt = json.loads(json.dumps(GT))
    gt["database"]["v1"]["annotations"][1]["segment"] = [20, 20]
    code, _, err = _run(tmp_path, {"v1": [_pred(0, 10)]}, gt=gt)
    assert code == 2 and "gt.json: database[\"v1\"]['annotations'][1]: the window [20.0, 20.0] has zero length" in err


def test_duplicates_are_kept_with_a_note(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, {"v1": [_pred(0, 10), _pred(0, 10)]}, "--thresholds", "0.5")
    assert code == 0
    assert "note: 1 prediction repeat an earlier one exactly" in err
    # A: hit then repeat (false positive): AP 1 (interpolated: precision 1 up to recall 1); B: no prediction: 0
    assert "AP\t0.5\tA\t1.0\t" in out and "AP\t0.5\tB\t0.0\t" in out


def test_duplicate_video_key_is_an_error(tmp_path: Path) -> None:
    g, p = tmp_path / "gt.json", tmp_path / "pred.json"
    g.write_text(json.dumps(GT))
    p.write_text('{"results": {"v1": [], "v1": []}}')
    code, _, err = run_cli("detect", str(g), str(p))
    assert code == 2 and 'has the key "v1" twice in one object' in err


def test_unknown_and_other_subset_videos_are_false_positives_with_a_note(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, {"zz": [_pred(0, 10, score=0.95)], "t1": [_pred(0, 10, score=0.93)],
                                     "v1": [_pred(0, 10)]}, "--thresholds", "0.5")
    assert code == 0
    assert "note: 1 video of the predictions not in the ground truth (e.g. 'zz')" in err
    assert "note: 1 video of the predictions from another subset (e.g. 't1')" in err
    # A: FP, FP, hit: precision 1/3 at recall 1 -> AP 1/3
    assert "AP\t0.5\tA\t0.333333\t" in out


def test_class_without_predictions_counts_as_zero_with_a_note(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, {"v1": [_pred(0, 10)]}, "--thresholds", "0.5")
    assert code == 0 and "note: 1 class without predictions (e.g. 'B') count with AP 0 in the mean" in err
    assert "mAP\t0.5\t\t0.5\t" in out


@pytest.mark.parametrize("score", ["NAN", None, "0.5"])
def test_nan_or_missing_scores(tmp_path: Path, score: Any) -> None:
    code, _, err = _run(tmp_path, {"v1": [_pred(0, 10, score=score)]})
    if score == "NAN":  # refused by the JSON reader, at its line and column
        assert code == 2 and "pred.json, line 1: holds the number NaN (column" in err and "expected a finite" in err
        return
    assert code == 2 and "pred.json: results[\"v1\"][0]: the score" in err and "expected a finite number" in err


def test_proposals_reject_bad_windows_too(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, {"v1": [{"segment": [3, 1], "score": 1}]}, command="proposals")
    assert code == 2 and "ends before it starts" in err
    code, _, err = _run(tmp_path, {"v1": [{"segment": [3, 3], "score": 1}]}, command="proposals")
    assert code == 2 and "has zero length; its tIoU is 0 with any other window and 0/0 = NaN with a zero-length " \
                         "one, which eval_detection.py counts as a match at every threshold and eval_proposal.py as " \
                         "no match: expected start < end" in err


def test_proposals_of_unknown_videos_shrink_the_budget_with_a_note(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, {"v1": [{"segment": [0, 10], "score": 1}], "zz": [{"segment": [0, 10], "score": 1}]},
                        command="proposals")
    assert code == 0, err
    assert "note: 1 video of the proposals not in the ground truth (e.g. 'zz'): their proposals are not evaluated, " \
           "but they count in the total that sets each video's budget (ratio = AN x videos / proposals)" in err


def test_write_lines_refuses_a_repeated_instance(tmp_path: Path) -> None:
    # the official counts both copies (npos 2; two predictions on them: AP 1.0); qrels hold a segment once, so
    # eval would count one: --write-lines refuses rather than write lines whose AP differs
    gt = json.loads(json.dumps(GT))
    gt["database"]["v1"]["annotations"].append({"segment": [0, 10], "label": "A"})
    code, out, _ = _run(tmp_path, {"v1": [_pred(0, 10), _pred(0, 10, score=0.8)]}, "--thresholds", "0.5", gt=gt)
    assert code == 0 and "AP\t0.5\tA\t1.0\t" in out
    code, _, err = _run(tmp_path, {"v1": [_pred(0, 10), _pred(0, 10, score=0.8)]}, "--write-lines",
                        str(tmp_path / "lines"), gt=gt)
    assert code == 2 and "gt.json: lists the instance 'A' [0.0, 10.0] of video 'v1' more than once; the official " \
                         "code counts each copy" in err and "expected each instance once" in err
    assert not (tmp_path / "lines.qrels").exists()


def test_write_lines_refuses_what_lines_cannot_say(tmp_path: Path) -> None:
    # the lines' writer of segeval mr (segeval.protocols.moments.lines): a negative time, a video id with white space
    lines = str(tmp_path / "lines")
    code, _, err = _run(tmp_path, {"v1": [_pred(-0.5, 10)]}, "--write-lines", lines)
    assert code == 2 and "pred.json: a prediction has the negative time -0.5; the lines' seconds format has no " \
                         "negative times (--write-lines)" in err
    code, _, err = _run(tmp_path, {"v 2": [_pred(0, 10)]}, "--write-lines", lines)
    assert code == 2 and "pred.json: the video id 'v 2' has white space or is empty; expected a single token to " \
                         "write it as a line field (--write-lines)" in err
    assert not (tmp_path / "lines.qrels").exists()


def test_bad_thresholds_and_protocol(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, {"v1": []}, "--thresholds", "0.5,1.5")
    assert code == 2 and "The '--thresholds' parameter must be a comma-separated list, each a number in (0, 1]" in err
    code, _, err = _run(tmp_path, {"v1": []}, "-p", "thumos15")
    assert code == 2 and "The 'protocol' parameter must be one of" in err


def test_empty_subset(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, {"v1": []}, "--subset", "testing")
    assert code == 2 and "gt.json: has no ground-truth instance in subset 'testing'" in err \
        and "'training', 'validation'" in err
