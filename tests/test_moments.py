"""Moment-retrieval measures: hand-derived cases and the official QVHighlights figures (CI)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segeval.errors import InputError
from segeval.moments import Moments, average_precision, evaluate_moments, iou_matrix, read_moments, recall_at
from tests.conftest import run_cli, shared


def w(*rows: tuple[float, ...]) -> np.ndarray:  # type: ignore[type-arg]
    return np.array(rows, dtype=np.float64)


def test_iou_uses_the_hull_and_zero_for_empty_hulls() -> None:
    assert iou_matrix(w((0, 10)), w((5, 15)))[0, 0] == 5 / 15
    assert iou_matrix(w((0, 10)), w((20, 30)))[0, 0] == 0.0
    assert iou_matrix(w((3, 3)), w((3, 3)))[0, 0] == 0.0  # empty hull: 0, as the official evaluator


def test_recall_at_threshold_boundary() -> None:
    truth = w((10, 20))
    assert recall_at(truth, w((10, 15, 0.9)), 0.5) == 1.0  # IoU exactly 0.5 counts (>=)
    assert recall_at(truth, w((10, 14, 0.9)), 0.5) == 0.0  # 4/10
    # R1 looks at the first listed prediction, whatever its score; R5 at the first five
    assert recall_at(truth, w((0, 5, 0.1), (10, 20, 0.9)), 0.5) == 0.0
    assert recall_at(truth, w((0, 5, 0.1), (10, 20, 0.9)), 0.5, k=5) == 1.0


def test_average_precision_hand_derived() -> None:
    truth = w((0, 10), (20, 30))
    preds = w((0, 10, 0.9), (40, 50, 0.8), (20, 30, 0.7))
    # by score: hit, miss, hit -> precision 1, 1/2, 2/3 at recall 0.5, 0.5, 1; envelope 1 then 2/3
    # AP = 0.5 * 1 + 0.5 * 2/3
    assert average_precision(truth, preds, 0.5) == pytest.approx(0.5 + 0.5 * 2 / 3)
    # each ground-truth window is matched once: a duplicate prediction is a false positive
    assert average_precision(w((0, 10)), w((0, 10, 0.9), (0, 10, 0.8)), 0.5) == 1.0
    # only the first 10 predictions count
    many = w(*[(40, 50, 1.0 - i / 100) for i in range(10)], (0, 10, 0.001))
    assert average_precision(w((0, 10)), many, 0.5) == 0.0


def test_empty_predictions_score_zero_and_are_noted() -> None:
    m = Moments(truth={"1": w((0, 10)), "2": w((0, 10))}, predictions={"1": w((0, 10, 0.5))})
    result = evaluate_moments(m)
    assert result["full"]["MR-R1"]["0.5"] == 50.0  # query 2 counts as a miss
    assert result["full"]["queries"] == 2
    assert result["notes"][0].startswith("1 queries have no prediction and score 0")


def test_length_buckets_keep_windows_of_that_length() -> None:
    m = Moments(truth={"1": w((0, 5), (20, 60)), "2": w((0, 20))},
                predictions={"1": w((20, 60, 0.9)), "2": w((0, 20, 0.9))})
    result = evaluate_moments(m)
    assert result["short"]["queries"] == 1 and result["short"]["MR-R1"]["0.5"] == 0.0  # only 0-5 is short
    assert result["long"]["queries"] == 1 and result["long"]["MR-R1"]["0.5"] == 100.0  # 20-60 is long
    assert result["middle"]["queries"] == 1 and result["middle"]["MR-R1"]["0.5"] == 100.0  # 0-20


def test_reader_errors(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "vid": "a", "relevant_windows": [[0, 10]]}\nnot json\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[0, 10, 0.5]]}\n')
    with pytest.raises(InputError, match="line 2: is not a JSON object"):
        read_moments(tmp_path / "gt", tmp_path / "p")
    (tmp_path / "gt").write_text('{"qid": 1, "vid": "a", "relevant_windows": [[10, 0]]}\n')
    with pytest.raises(InputError, match="end < start"):
        read_moments(tmp_path / "gt", tmp_path / "p")


@pytest.mark.reference
def test_official_qvhighlights_figures() -> None:
    truth = shared("qvhighlights", "highlight_val_release.jsonl.gz")
    preds = shared("qvhighlights", "sample_val_preds.jsonl.gz")
    expected = json.loads(shared("qvhighlights", "sample_val_preds_metrics_raw.json").read_text())
    code, out, _ = run_cli("mr", "--full", str(truth), str(preds))
    assert code == 0
    got = json.loads(out)
    for bucket in ("full", "short", "middle", "long"):
        for kind in ("MR-mAP", "MR-R1"):
            assert got[bucket][kind] == pytest.approx(expected[bucket][kind], abs=0), (bucket, kind)
    for key, value in expected["brief"].items():
        if key.startswith("MR-"):
            assert got["brief"][key] == value
