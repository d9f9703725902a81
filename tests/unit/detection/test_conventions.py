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
