"""The shared ActivityNet sample (../shared/data/activitynet): every figure the official tools printed or
stored, reproduced exactly (CI-only: skipped without ../shared)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from segeval.protocols.detection import evaluate as E
from segeval.protocols.detection import read as R
from segeval.protocols.detection.proposals import evaluate_proposals
from segeval.protocols.detection.report import detection_rows, proposal_rows, py2_str
from tests.conftest import run_cli, shared

pytestmark = pytest.mark.reference


def _detection(name: str) -> None:
    official = json.loads(shared("activitynet", name).read_text())
    gt, pred = str(shared("activitynet", "sample_gt.json.gz")), str(shared("activitynet", "sample_detections.json.gz"))
    t, p = E.read_inputs("activitynet", gt, pred, "validation")
    r = E.evaluate("activitynet", t, p, official["tiou_thresholds"], class_order=official["class_order"])
    for c, label in enumerate(r.classes):
        assert np.array_equal(r.ap[:, c], official["ap"][label]), label
    assert r.mAP.tolist() == official["mAP"]
    assert r.average_mAP == official["average_mAP"]
    printed = [line for line in official["stdout"] if "Average-mAP" in line]
    assert printed == [f"\tAverage-mAP: {py2_str(r.average_mAP)}"]
    assert {row[4] for row in detection_rows(r) if row[0] == "Average-mAP"} == {printed[0].split(": ")[1]}


def test_detection_linspace() -> None:
    _detection("sample_detections_metrics_official.json")


def test_detection_thumos_thresholds() -> None:
    _detection("sample_detections_metrics_official_tiou0.3-0.7.json")


def test_detection_cli_in_file_order_differs_by_at_most_one_ulp() -> None:
    official = json.loads(shared("activitynet", "sample_detections_metrics_official.json").read_text())
    code, out, _ = run_cli("detect", str(shared("activitynet", "sample_gt.json.gz")),
                           str(shared("activitynet", "sample_detections.json.gz")), "-o", "json")
    assert code == 0
    rows = json.loads(out)
    m = [row["value"] for row in rows if row["figure"] == "mAP"]
    assert [abs(a - b) <= np.spacing(b) for a, b in zip(m, official["mAP"], strict=True)] == [True] * 10
    assert [row["value"] for row in rows if row["figure"] == "Average-mAP"] == [official["average_mAP"]]


def test_proposals() -> None:
    official = json.loads(shared("activitynet", "sample_proposals_metrics_official.json").read_text())
    t = R.read_activitynet_truth(str(shared("activitynet", "sample_gt.json.gz")), "validation")
    p = R.read_activitynet_predictions(str(shared("activitynet", "sample_proposals.json.gz")), t, labels=False)
    r = evaluate_proposals(t, p, official["max_avg_nr_proposals"])
    assert r.recall.tolist() == official["recall"]
    assert r.avg_recall.tolist() == official["avg_recall"]
    assert r.proposals_per_video.tolist() == official["proposals_per_video"]
    assert r.auc_percent == official["auc_percent"]
    for k in (1, 5, 10, 100):
        assert r.ar_at[k] == official[f"AR@{k}"]
    printed = [line for line in official["stdout"] if "Area Under" in line]
    assert printed == [f"\tArea Under the AR vs AN curve: {py2_str(r.auc_percent)}%"]
    assert proposal_rows(r)[0][3] == printed[0].split(": ")[1]
