"""segeval detect/proposals against the official evaluators' stored outputs on the generated boundary
cases (scripts/detection_cases.py; tests/fixtures/detection/*.official.json): every figure, to the bit;
and the official orders (numpy 1.16's argsort, Python 2's dict order) against tests/fixtures/detection/
orders.py27.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.protocols.detection import evaluate as E
from segeval.protocols.detection import read as R
from segeval.protocols.detection.order import descending, py2_dict_order
from segeval.protocols.detection.proposals import evaluate_proposals
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
    protocol = {"ego4d": "ego4d-mq", "kit": "thumos14-kit"}.get(official["kind"], "activitynet")
    if protocol == "thumos14-kit":
        gt, pred = str(inputs / case / "annotation"), str(inputs / case / "det.txt")
    t, p = E.read_inputs(protocol, gt, pred, E.SUBSETS[protocol])
    r = E.evaluate(protocol, t, p, official["tiou_thresholds"])  # in segeval's class order: the official's
    assert r.classes == official["class_order"]
    for c, label in enumerate(r.classes):
        _same(r.ap[:, c], official["ap"][label])
    _same(r.mAP, official["mAP"])
    assert protocol == "thumos14-kit" or r.average_mAP == official["average_mAP"]


def test_the_official_orders() -> None:
    """numpy 1.16's ``argsort()[::-1]`` on 2000 tied arrays (sizes 1 to 200) and 124 adversarial ones that reach
    its heapsort, and Python 2.7's dict order of 200 sets of video ids, as the stored digests of the real ones."""
    script = load_script("detection_cases")
    official = json.loads((OFFICIAL / "orders.py27.json").read_text())
    inputs = script.order_inputs()
    ours = [script.digest(descending(np.array(a, dtype=np.float64)).tolist()) for a in inputs["arrays"]]
    assert ours == official["argsort"]
    assert [script.digest(py2_dict_order(keys)) for keys in inputs["keys"]] == official["dict_order"]


def test_the_default_thresholds_are_the_official_linspace() -> None:
    official = json.loads((OFFICIAL / "thresholds.official.json").read_text())
    assert E.THRESHOLDS["activitynet"] == tuple(official["tiou_thresholds"])
    assert E.THRESHOLDS["activitynet"][8] == 0.8999999999999999
