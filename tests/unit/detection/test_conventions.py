"""The worked examples of docs/detection.md: where the conventions disagree."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def _files(tmp_path: Path, gt: list[float], pred: list[float]) -> tuple[str, str]:
    g, p = tmp_path / "gt.json", tmp_path / "pred.json"
    g.write_text(json.dumps({"database": {"v": {"subset": "validation",
                                                "annotations": [{"segment": gt, "label": "A"}]}}}))
    p.write_text(json.dumps({"results": {"v": [{"segment": pred, "label": "A", "score": 1}]}}))
    return str(g), str(p)


def test_linspace_09_is_below_09(tmp_path: Path) -> None:
    # [23.66, 32.66] against [23.66, 33.66]: 9 / 10 in doubles is 8.999999999999996 / 9.999999999999996 =
    # 0.8999999999999999: a hit at linspace's 9th threshold (0.8999999999999999), a miss at a typed 0.9
    gt, pred = _files(tmp_path, [23.66, 33.66], [23.66, 32.66])
    _, out, _ = run_cli("detect", gt, pred, "-o", "json")
    at = {row["tiou"]: row["value"] for row in json.loads(out) if row["figure"] == "mAP"}
    assert at[0.8999999999999999] == 1.0 and at[0.95] == 0.0
    _, out, _ = run_cli("detect", gt, pred, "--thresholds", "0.9", "-o", "json")
    assert [row["value"] for row in json.loads(out) if row["figure"] == "mAP"] == [0.0]


def test_exactly_on_the_threshold(tmp_path: Path) -> None:
    # [0, 5] against [0, 10]: tIoU 0.5 exactly: ActivityNet (>=) hits, the THUMOS14 kit (>) misses
    gt, pred = _files(tmp_path, [0, 10], [0, 5])
    _, out, _ = run_cli("detect", gt, pred, "--thresholds", "0.5", "-o", "json")
    assert [row["value"] for row in json.loads(out) if row["figure"] == "mAP"] == [1.0]


def test_one_tied_pair_among_17_predictions(tmp_path: Path) -> None:
    # 15 misses at 0.9, 0.88, ..., 0.62, then a miss and the hit, both at 0.1 (the hit last in the file). numpy
    # 1.16's argsort()[::-1] of these 17 scores (a quicksort partition, not the insertion sort of 16 or fewer) is
    # 0, 1, ..., 16 (checked under Python 2.7 / numpy 1.16.6): the hit ranks 17th, AP 1/17; a reversed stable
    # sort would rank it 16th (1/16 = 0.0625)
    gt, pred = _files(tmp_path, [0, 10], [0, 10])
    misses = [{"segment": [100 + k, 110 + k], "label": "A", "score": 0.9 - 0.02 * k} for k in range(15)]
    tied = [{"segment": [50, 60], "label": "A", "score": 0.1}, {"segment": [0, 10], "label": "A", "score": 0.1}]
    Path(pred).write_text(json.dumps({"results": {"v": misses + tied}}))
    _, out, _ = run_cli("detect", gt, pred, "--thresholds", "0.5", "-o", "json")
    assert [row["value"] for row in json.loads(out) if row["figure"] == "AP"] == [1 / 17]
    assert 1 / 17 == 0.058823529411764705
