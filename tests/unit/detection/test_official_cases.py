"""segeval detect/proposals against the official evaluators' stored outputs on the generated boundary
cases (scripts/detection_cases.py; tests/fixtures/detection/*.official.json): every figure, to the bit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.detection import evaluate as E
from segeval.detection import read as R
from segeval.detection.proposals import evaluate_proposals
from tests.conftest import FIXTURES
from tests.support.scripts import load_script

OFFICIAL = FIXTURES / "detection"
CASES = sorted(p.name.removesuffix(".official.json") for p in OFFICIAL.glob("*.official.json"))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("detection_cases")
    load_script("detection_cases").write(folder)
    return folder


def _same(ours: Any, official: Any) -> None:
    assert np.array_equal(np.asarray(ours, dtype=np.float64), np.asarray(official, dtype=np.float64)), \
        (ours, official)


def test_every_case_has_a_fixture() -> None:
    assert set(CASES) == set(load_script("detection_cases").cases())


@pytest.mark.parametrize("case", CASES)
def test_official_figures(case: str, inputs: Path) -> None:
    official = json.loads((OFFICIAL / f"{case}.official.json").read_text())
    gt, pred = str(inputs / f"{case}.gt.json"), str(inputs / f"{case}.pred.json")
    if official["kind"] == "proposal":
        t = R.read_activitynet_truth(gt, "validation")
        p = R.read_activitynet_predictions(pred, t, labels=False)
        r = evaluate_proposals(t, p, official["max_avg_nr_proposals"])
        _same(r.recall, official["recall"])
        _same(r.avg_recall, official["avg_recall"])
        _same(r.proposals_per_video, official["proposals_per_video"])
        assert r.auc_percent == official["auc_percent"]
        return
    protocol = "ego4d-mq" if official["kind"] == "ego4d" else "activitynet"
    t, p = E.read_inputs(protocol, gt, pred, E.SUBSETS[protocol])
    r = E.evaluate(protocol, t, p, official["tiou_thresholds"], class_order=official["class_order"])
    assert r.classes == official["class_order"]
    for c, label in enumerate(r.classes):
        _same(r.ap[:, c], official["ap"][label])
    _same(r.mAP, official["mAP"])
    assert r.average_mAP == official["average_mAP"]


def test_the_default_thresholds_are_the_official_linspace() -> None:
    official = json.loads((OFFICIAL / "thresholds.official.json").read_text())
    assert E.THRESHOLDS["activitynet"] == tuple(official["tiou_thresholds"])
    assert E.THRESHOLDS["activitynet"][8] == 0.8999999999999999
