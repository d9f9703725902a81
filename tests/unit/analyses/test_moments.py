"""Moment-retrieval measures: hand-derived cases and the official QVHighlights figures (CI)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from segeval.core.errors import InputError
from segeval.protocols.detection.order import descending
from segeval.protocols.moments.qvhighlights import SALIENCY_LEVELS, evaluate_moments
from segeval.protocols.moments.qvhighlights.highlights import batch_highlights
from segeval.protocols.moments.qvhighlights.reading import Moments, read_moments
from segeval.protocols.moments.qvhighlights.retrieval import (
    THRESHOLDS,
    batch_average_precisions,
    batch_first_ious,
    iou_matrix,
)
from tests.conftest import FIXTURES, ROOT, run_cli, shared
from tests.support.timeline import spans


def w(*rows: tuple[float, ...]) -> np.ndarray:  # type: ignore[type-arg]
    return np.array(rows, dtype=np.float64)


def average_precision(truth: np.ndarray, predictions: np.ndarray, threshold: float) -> float:  # type: ignore[type-arg]
    return float(batch_average_precisions([truth], [predictions], (threshold,))[0, 0])


def highlight_ap(y_true: np.ndarray, y_score: np.ndarray) -> float:  # type: ignore[type-arg]
    ap, _ = batch_highlights([np.repeat(y_true[:, None], 3, axis=1)], [y_score], (1.0,))
    return float(ap[0, 0])


def recall_at(truth: np.ndarray, predictions: np.ndarray, threshold: float, k: int = 1) -> float:  # type: ignore[type-arg]
    """R1 as the official, R5 as segeval's MR-R5: the best hull IoU of the first ``k``."""
    iou = batch_first_ious([truth], [predictions], k)[0 if k == 1 else 2][0]
    return float(iou >= threshold)


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
    assert result["notes"][:1] == ["1 ground-truth queries have no predicted window (e.g. 2) and score 0 in MR; "
                               "the official evaluator refuses such a submission"]


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
    (tmp_path / "gt").write_text('{"qid": 1, "vid": "a", "relevant_windows": [[10, 0], [0, 10]]}\n')
    # a window with end < start is read as given, as the official reads it: IoU 0 with [0, 10, 0.5], but one of
    # the 2 truth windows; the prediction matches [0, 10]: precision 1 up to recall 1/2, AP 0.5 at every threshold
    code, out, _ = run_cli("mr", "-o", "json", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0 and json.loads(out)["brief"]["MR-full-mAP"] == 50.0
    assert "0 predicted and 1 ground-truth windows have end < start; evaluated as given" in out
    # the recall protocol reads the same files: IoU 0 for the reversed window, R@1 at 0.5 is 1 (the prediction
    # [0, 10] against [0, 10]), and the same note
    code, out, err = run_cli("mr", "-p", "recall", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0 and "R@1,IoU@0.5\t100.0" in out
    assert "note: 0 predicted and 1 ground-truth windows have end < start; evaluated as given: they overlap nothing" \
        in err


@pytest.mark.reference
def test_official_qvhighlights_figures() -> None:
    truth = shared("qvhighlights", "highlight_val_release.jsonl.gz")
    preds = shared("qvhighlights", "sample_val_preds.jsonl.gz")
    expected = json.loads(shared("qvhighlights", "sample_val_preds_metrics_raw.json").read_text())
    code, out, err = run_cli("mr", "-p", "qvhighlights", "-o", "json", str(truth), str(preds))
    assert code == 0 and err == ""
    got = json.loads(out)
    # every figure of the official output, MR and HL: 104 values, 12 of them HL
    assert _official_values(got, expected) == 104


def _official_values(got: dict[str, object], expected: dict[str, object], where: str = "") -> int:
    """Assert every key of the official output is in ``got`` with the same value; return how many."""
    count = 0
    for key, value in expected.items():
        assert isinstance(got, dict) and key in got, f"{where}/{key} missing"
        if isinstance(value, dict):
            count += _official_values(got[key], value, f"{where}/{key}")  # type: ignore[arg-type]
        else:
            assert got[key] == value, (f"{where}/{key}", got[key], value)
            count += 1
    return count


QVH = FIXTURES / "qvh"


@pytest.mark.parametrize("case", ["thresholds", "random", "reversed"])
def test_official_output_on_generated_boundary_cases(case: str) -> None:
    # the official eval.py's JSON on scripts/qvh_cases.py inputs (tests/fixtures/qvh/README.md)
    expected = json.loads((QVH / f"{case}.official.json").read_text())
    code, out, _ = run_cli("mr", "-o", "json", str(QVH / f"{case}.gt.jsonl.gz"), str(QVH / f"{case}.pred.jsonl.gz"))
    assert code == 0
    got = json.loads(out)
    assert _official_values(got, expected) == 104
    assert list(got)[:8] == list(expected)  # the official key order, segeval's notes after
    assert list(got["brief"])[:14] == list(expected["brief"])


@pytest.mark.parametrize("case", ["thresholds", "random"])
def test_official_per_query_values_exactly(case: str) -> None:
    # unrounded per-query AP (10 thresholds), R1 hits, HL AP per annotator and Hit1 of the official functions
    m = read_moments(QVH / f"{case}.gt.jsonl.gz", QVH / f"{case}.pred.jsonl.gz")
    ref = json.loads(gzip.decompress((QVH / f"{case}.official-perquery.json.gz").read_bytes()))
    compared = 0
    for q, r in ref.items():
        ap = batch_average_precisions([m.truth[q]], [m.predictions[q]])[0]
        np.testing.assert_array_equal(ap, np.array(r["ap"]), err_msg=q)  # NaN equals NaN here
        iou = float(batch_first_ious([m.truth[q]], [m.predictions[q]])[0][0])
        assert [100.0 * (iou >= t) for t in THRESHOLDS] == [r["r1"][str(t)] for t in THRESHOLDS], q
        for name, minimum in SALIENCY_LEVELS.items():
            labels = (m.saliency[q] >= minimum).astype(float)
            assert [highlight_ap(labels[:, a], m.pred_saliency[q]) for a in range(3)] == r["hl_ap"][name], q
            top = int(np.argmax(m.pred_saliency[q]))
            assert 100.0 * (labels[top].max() if top < len(labels) else 0.0) == r["hl_hit1"][name], q
        compared += 10 + 10 + 3 * 4
    assert compared == {"thresholds": 920, "random": 200}[case] * 32


def moments_from(picture: str, scale: float = 1.0) -> Moments:
    """One query from an ASCII timeline: ``rel`` lines are truth windows, ``N`` the prediction at list
    position N (score 1/N); the drawings start at the 6th character (column 0), one character is
    1/scale seconds."""
    truth: list[tuple[float, float]] = []
    preds: dict[int, tuple[float, float]] = {}
    for line in picture.strip("\n").splitlines():
        name, drawing = line[:5].rstrip(": "), line[5:]
        found = [(s / scale, e / scale) for s, e in spans(drawing)]
        if name == "rel":
            truth += found
        else:
            preds[int(name)] = found[0]
    rows = [(s, e, 1 / n) for n, (s, e) in sorted(preds.items())]
    return Moments(truth={"q": w(*truth)}, predictions={"q": w(*rows)})


def test_timeline_iou_exactly_half_in_integer_seconds() -> None:
    m = moments_from("""
rel: [===================]
1:   [=========]
""")
    # truth 0-20, prediction 0-10: 10/20 = 0.5 in both forms (exact in doubles): a hit at 0.5, a miss at 0.55
    r = evaluate_moments(m)["full"]
    assert r["MR-R1"]["0.5"] == 100.0 and r["MR-R1"]["0.55"] == 0.0
    assert r["MR-mAP"]["0.5"] == 100.0 and r["MR-mAP"]["0.55"] == 0.0


def test_timeline_map_uses_the_union_form_and_r1_the_hull_form() -> None:
    # one character is 0.1 s: truth 0-0.8, prediction 0-0.4
    m = moments_from("""
rel: [=======]
1:   [===]
""", scale=10)
    # hull: 0.4 / 0.8 = 0.5 exactly -> R1@0.5 hit;
    # union: (0.4 + 0.8) - 0.4 = 1.2000000000000002 - 0.4 = 0.8000000000000002 -> 0.49999999999999994 < 0.5
    r = evaluate_moments(m)["full"]
    assert r["MR-R1"]["0.5"] == 100.0
    assert r["MR-mAP"]["0.5"] == 0.0


def test_timeline_union_form_can_reach_the_threshold_where_the_hull_form_misses() -> None:
    m = moments_from("""
rel: [===]
1:   [==]
""", scale=10)
    # truth 0-0.4, prediction 0-0.3: hull 0.3 / 0.4 = 0.7499999999999999 < 0.75 (R1 miss);
    # union (0.3 + 0.4) - 0.3 = 0.39999999999999997, 0.3 / that = 0.75 (mAP hit)
    r = evaluate_moments(m)["full"]
    assert r["MR-R1"]["0.75"] == 0.0 and r["MR-R1"]["0.7"] == 100.0
    assert r["MR-mAP"]["0.75"] == 100.0 and r["MR-mAP"]["0.8"] == 0.0


def test_issue_example_at_095() -> None:
    # [0, 70.3] against [0, 74]: hull 70.3 / 74 = 0.95 (a hit); union 70.3 / 74.00000000000001 = 0.9499999999999997
    m = Moments(truth={"q": w((0, 74))}, predictions={"q": w((0, 70.3, 1.0))})
    r = evaluate_moments(m)["full"]
    assert r["MR-R1"]["0.95"] == 100.0 and r["MR-mAP"]["0.95"] == 0.0 and r["MR-mAP"]["0.9"] == 100.0


def test_timeline_iou_tie_between_truth_windows_locks_the_later_one() -> None:
    m = moments_from("""
rel: [=========]..........[=========]
1:   .....[====================]
2:   .....................[=========]
""")
    # truth 0-10 and 21-31; prediction 1 at 5-26 overlaps each by 5 (IoU 5/(21+10-5) = 5/26 both);
    # prediction 2 is 21-31 exactly. At 0.15 prediction 1 matches the tied window the official's
    # argsort()[::-1] puts first, the later one (21-31); prediction 2 then finds it locked: AP = 1 * 1/2
    ap = average_precision(m.truth["q"], m.predictions["q"], 0.15)
    assert ap == 0.5
    # at 0.5 prediction 1 misses and prediction 2 matches 21-31: precision 1/2 at recall 1/2 -> 0.25
    assert average_precision(m.truth["q"], m.predictions["q"], 0.5) == 0.25


def test_negative_starts_are_evaluated_as_given(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "relevant_windows": [[-4, 6]]}\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[-4, 1, 0.5]]}\n')
    code, out, err = run_cli("mr", "-o", "json", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0, err
    got = json.loads(out)
    # IoU 5 / 10 = 0.5: a hit at 0.5 only; mAP = 1/10 over the 10 thresholds
    assert got["full"]["MR-R1"]["0.5"] == 100.0 and got["full"]["MR-R1"]["0.55"] == 0.0
    assert got["full"]["MR-mAP"]["average"] == 10.0


def test_empty_bucket_is_null_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "relevant_windows": [[0, 20]]}\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[0, 20, 0.5]]}\n')
    code, out, err = run_cli("mr", "-o", "json", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0
    got = json.loads(out)
    assert got["brief"]["MR-short-mAP"] is None and got["short"]["MR-R1"]["0.5"] is None
    assert got["brief"]["MR-middle-mAP"] == 100.0  # 0-20 is middle: found at every threshold
    assert "no ground-truth window falls in the short bucket (0, 10] s" in err
    assert any("long bucket" in n for n in got["notes"])


def test_ties_are_not_called_a_difference(tmp_path: Path) -> None:
    m = Moments(truth={"q": w((0, 10))}, predictions={"q": w((0, 10, 0.5))})
    assert evaluate_moments(m)["notes"] == [
        "no ground-truth window falls in the middle bucket (10, 30] s: its figures are null "
        "(the official evaluator stops here)",
        "no ground-truth window falls in the long bucket (30, 150] s: its figures are null "
        "(the official evaluator stops here)"]


def test_unknown_prediction_queries_get_a_note(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "relevant_windows": [[0, 5]]}\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[0, 5, 0.5]]}\n'
                                '{"qid": 7, "pred_relevant_windows": [[0, 5, 0.5]]}\n'
                                '{"qid": 8, "pred_relevant_windows": [[0, 5, 0.5]]}\n')
    code, _, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0
    assert "note: 2 predicted queries are not in the ground truth (e.g. 7) and are ignored" in err


@pytest.mark.parametrize(("pred", "problem"), [
    ('{"qid": 1, "pred_relevant_windows": [[0, 5], [6, 9]]}',
     "'pred_relevant_windows' has the window [0, 5]; expected every window as [start, end, score] with 3 finite"),
    ('{"qid": 1, "pred_relevant_windows": [0, 5, 0.5]}',
     "'pred_relevant_windows' has the window 0; expected every window as [start, end, score]"),
    ('{"qid": 1, "pred_relevant_windows": [[0, 5, 0.5, 1]]}', "has the window [0, 5, 0.5, 1]; expected"),
    ('{"qid": 1, "pred_relevant_windows": [[0, 5, "0.5"]]}', "has the window [0, 5, \"0.5\"]; expected"),
    ('{"qid": 1, "pred_relevant_windows": [[0, 5, NaN]]}',
     "holds the number NaN (column 45); expected a finite number (JSON has no NaN or Infinity)"),
    ('{"qid": 1, "pred_relevant_windows": ' + "[" * 5000 + "]" * 5000 + "}",
     "is nested too deeply to read (column 5036); expected arrays and objects at most about 900 levels deep"),
])
def test_bad_prediction_windows_exit_2_naming_file_line_and_text(tmp_path: Path, pred: str, problem: str) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "relevant_windows": [[0, 5]]}\n')
    (tmp_path / "p").write_text('{"qid": 0, "pred_relevant_windows": [[0, 5, 0.5]]}\n' + pred + "\n")
    code, out, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 2 and out == ""
    assert f"{tmp_path / 'p'}, line 2: " in err and problem in err
    assert f"line 2: {pred[:40]}" in err
    assert "Traceback" not in err and "internal error" not in err


def test_deeply_nested_ground_truth_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "relevant_windows": [[0, 5]]}\n{"a": ' + "[" * 100000 + "\n")
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[0, 5, 0.5]]}\n')
    code, _, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 2 and f"{tmp_path / 'gt'}, line 2: is " in err
    assert "RecursionError" not in err and "internal error" not in err


def test_highlight_ap_hand_derived() -> None:
    # ranked 1,0,1,0: precision 1 at recall 1/2, 2/3 at recall 1 -> (1 + 2/3) / 2
    assert highlight_ap(np.array([1.0, 0, 1, 0]), np.array([0.9, 0.8, 0.7, 0.1])) == (1 + 2 / 3) / 2
    # two clips tied on score: one cut-off, precision 1/2 at recall 1
    assert highlight_ap(np.array([1.0, 0]), np.array([0.5, 0.5])) == 0.5
    assert highlight_ap(np.array([0.0, 0, 0]), np.array([0.1, 0.2, 0.3])) == 0.0  # no positive clip
    assert highlight_ap(np.array([1.0, 1]), np.array([0.1, 0.2])) == 1.0  # every clip positive
    # a prediction shorter than the clip count is padded with 0, a longer one cut:
    # scores 0.4, 0 (pad), 0 (pad) for labels 0, 1, 1: the positives tie last -> precision 2/3 at recall 1
    assert highlight_ap(np.array([0.0, 1, 1]), np.array([0.4])) == 2 / 3
    assert highlight_ap(np.array([1.0, 0]), np.array([0.2, 0.1, 9.0])) == 1.0


def test_highlights_from_the_cli(tmp_path: Path) -> None:
    # 8 s = 4 clips; clips 1 and 2 rated [4, 2, 0] and [3, 3, 1]
    (tmp_path / "gt").write_text('{"qid": 1, "duration": 8, "relevant_windows": [[2, 6]], '
                                 '"relevant_clip_ids": [1, 2], "saliency_scores": [[4, 2, 0], [3, 3, 1]]}\n')
    # top score tied on clips 0 and 2: the first (clip 0, all zero) is the Hit@1 clip
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[2, 6, 1]], '
                                '"pred_saliency_scores": [0.9, 0.5, 0.9, 0.1]}\n')
    code, out, err = run_cli("mr", "-o", "json", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0, err
    got = json.loads(out)
    assert got["HL-min-Fair"]["HL-Hit1"] == 0.0
    # min 2 (Fair): annotator labels [0,1,1,0], [0,1,1,0], [0,0,0,0]; ranking by score {0,2} > 1 > 3:
    # a: 1 of 2 at the first cut (recall 1/2, precision 1/2), then 2 of 3 (recall 1) -> envelope (2/3 + 2/3) / 2;
    # c: no positive -> 0; mean (2/3 + 2/3 + 0) / 3 = 44.44
    assert got["HL-min-Fair"]["HL-mAP"] == 44.44
    # min 4 (VeryGood): only annotator a's clip 1 -> ranked third after a tie of two: precision 1/3 -> 1/9
    assert got["HL-min-VeryGood"]["HL-mAP"] == 11.11 and got["brief"]["HL-min-VeryGood-mAP"] == 11.11


def test_highlight_input_errors(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "duration": 8, "relevant_windows": [[2, 6]], '
                                 '"relevant_clip_ids": [1, 4], "saliency_scores": [[4, 2, 0], [3, 3, 1]]}\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[2, 6, 1]], "pred_saliency_scores": [1]}\n')
    code, _, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 2 and "gt, line 1: 'relevant_clip_ids' holds 4; expected clip ids from 0 to 3" in err
    (tmp_path / "gt").write_text('{"qid": 1, "relevant_windows": [[2, 6]]}\n')
    code, _, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 2 and "gt, line 1: 'duration' is null; expected a number >= 2" in err


def test_highlight_only_predictions_give_only_hl_keys(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text('{"qid": 1, "duration": 4, "relevant_windows": [[0, 2]], '
                                 '"relevant_clip_ids": [0], "saliency_scores": [[4, 4, 4]]}\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_saliency_scores": [0.2, 0.1]}\n')
    code, out, _ = run_cli("mr", "-o", "json", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 0
    got = json.loads(out)
    # as the official: no pred_relevant_windows, no MR keys; clip 0 (top score) positive for all: 100
    assert list(got) == ["brief", "HL-min-Fair", "HL-min-Good", "HL-min-VeryGood", "notes"]
    assert got["brief"] == {"HL-min-Fair-mAP": 100.0, "HL-min-Fair-Hit1": 100.0, "HL-min-Good-mAP": 100.0,
                            "HL-min-Good-Hit1": 100.0, "HL-min-VeryGood-mAP": 100.0, "HL-min-VeryGood-Hit1": 100.0}


@pytest.mark.parametrize(("truth", "pred", "where", "problem"), [
    ('{"qid": 1, "relevant_windows": [[0, 2]], "duration": 4, "relevant_clip_ids": [0], '
     '"saliency_scores": [[4, 4, 4]]}\n{"qid": 2, "relevant_windows": [[0, 2]], "duration": 4, '
     '"relevant_clip_ids": [0], "saliency_scores": [[4, 4, 4]]}',
     '{"qid": 1, "pred_saliency_scores": [1, 0]}\n{"qid": 2, "pred_relevant_windows": [[0, 2, 1]]}',
     "p, line 2", "'pred_saliency_scores' must be a non-empty list of finite numbers"),
    ('{"qid": 1, "relevant_windows": [[0, 2]]}', '{"qid": 1, "windows": [[0, 2, 1]]}',
     "p, line 1", "has neither 'pred_relevant_windows' nor 'pred_saliency_scores'"),
    ('{"qid": 1, "relevant_windows": [[0, 2, 1]]}', '{"qid": 1, "pred_relevant_windows": [[0, 2, 1]]}',
     "gt, line 1", "'relevant_windows' has the window [0, 2, 1]; expected every window as [start, end]"),
    ('{"qid": 1, "relevant_windows": [[0, 2]], "duration": 4, "relevant_clip_ids": [0, 0], '
     '"saliency_scores": [[4, 4, 4], [1, 1, 1]]}', '{"qid": 1, "pred_saliency_scores": [1, 0]}',
     "gt, line 1", "'relevant_clip_ids' names a clip twice"),
    ('{"qid": 1, "relevant_windows": [[0, 2]], "duration": 4, "relevant_clip_ids": [0], '
     '"saliency_scores": [[4, 4]]}', '{"qid": 1, "pred_saliency_scores": [1, 0]}',
     "gt, line 1", "'saliency_scores' must hold one [a, b, c] list of 3 numbers per relevant clip"),
    ('{"qid": 1, "relevant_windows": [[0, 2]]}', '{"qid": 1, "pred_relevant_windows": [[0, 2, 1e999]]}',
     "p, line 1", "holds the number 1e999 (column 45); expected a finite number"),
])
def test_more_input_errors(tmp_path: Path, truth: str, pred: str, where: str, problem: str) -> None:
    (tmp_path / "gt").write_text(truth + "\n")
    (tmp_path / "p").write_text(pred + "\n")
    code, out, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert code == 2 and out == "" and f"{where}: " in err and problem in err, err


def test_query_without_truth_window_is_left_out_of_mr_with_a_note() -> None:
    m = Moments(truth={"1": w((0, 10)), "2": np.zeros((0, 2))}, predictions={"1": w((0, 10, 1)), "2": w((0, 5, 1))})
    result = evaluate_moments(m)
    assert result["full"]["queries"] == 1 and result["full"]["MR-mAP"]["average"] == 100.0
    assert result["notes"][0] == ("1 ground-truth queries have no relevant window (e.g. 2) and are left out of MR; "
                                  "the official evaluator stops on them")


def test_the_generator_reproduces_the_stored_inputs(tmp_path: Path) -> None:
    # the official outputs in tests/fixtures/qvh belong to exactly these generated inputs
    import subprocess
    import sys

    subprocess.run([sys.executable, str(ROOT / "scripts" / "qvh_cases.py"), str(tmp_path)], check=True)
    for case in ("thresholds", "random"):
        for part in ("gt", "pred"):
            stored = gzip.decompress((QVH / f"{case}.{part}.jsonl.gz").read_bytes())
            assert (tmp_path / f"{case}.{part}.jsonl").read_bytes() == stored, (case, part)


@pytest.mark.parametrize("case", ["thresholds", "random"])
def test_batched_figures_equal_the_official_per_query_values(case: str) -> None:
    # the evaluator scores all queries of a bucket at once (grouped by window count, padded): the
    # result must be the official per-query values bit for bit, whatever the other queries hold
    m = read_moments(QVH / f"{case}.gt.jsonl.gz", QVH / f"{case}.pred.jsonl.gz")
    ref = json.loads(gzip.decompress((QVH / f"{case}.official-perquery.json.gz").read_bytes()))
    queries = list(ref)
    ap = batch_average_precisions([m.truth[q] for q in queries], [m.predictions[q] for q in queries])
    np.testing.assert_array_equal(ap, np.array([ref[q]["ap"] for q in queries]))
    r1, top1, top5 = batch_first_ious([m.truth[q] for q in queries], [m.predictions[q] for q in queries])
    for n, q in enumerate(queries):
        assert [100.0 * (r1[n] >= t) for t in THRESHOLDS] == [ref[q]["r1"][str(t)] for t in THRESHOLDS], q
        # the per-query reference forms (iou_matrix) of segeval's additions
        assert top1[n] == iou_matrix(m.predictions[q][:1, :2], m.truth[q]).max(), q
        assert top5[n] == iou_matrix(m.predictions[q][:5, :2], m.truth[q]).max(), q
        levels = tuple(float(v) for v in SALIENCY_LEVELS.values())
        assert batch_highlights([m.saliency[q]], [m.pred_saliency[q]], levels)[0][0].tolist() == [
            v for name in SALIENCY_LEVELS for v in ref[q]["hl_ap"][name]], q
    assert len(queries) == {"thresholds": 920, "random": 200}[case]


def test_batched_ap_with_many_matches_and_ties_equals_one_query_at_a_time() -> None:
    # 8+ recall steps take numpy's pairwise summation, 17+ windows another argsort; ties everywhere
    rng = np.random.default_rng(7)
    truths, preds = [], []
    for n in range(300):
        k = int(rng.integers(1, 24))
        starts = rng.integers(0, 20, k).astype(float)
        truths.append(np.stack([starts, starts + rng.integers(0, 6, k)], axis=1))
        p = int(rng.integers(0, 13))
        ps = rng.integers(0, 20, p).astype(float)
        pred = np.stack([ps, ps + rng.integers(0, 6, p), rng.integers(0, 3, p).astype(float)], axis=1)
        if n % 3 == 0:  # copies of truth windows: many matches
            pred[:, :2] = truths[-1][rng.integers(0, k, p)]
        preds.append(pred)
    batch = batch_average_precisions(truths, preds)
    single = np.array([official_loop_ap(t, p) for t, p in zip(truths, preds, strict=True)])
    np.testing.assert_array_equal(batch, single)
    assert (batch > 0).any() and (batch == 0).any()
    assert max(int(np.count_nonzero(t[:, 1] - t[:, 0] >= 0)) for t in truths) > 16


def official_loop_ap(truth: np.ndarray, predictions: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    """moment_detr's compute_average_precision_detection for one query, loop for loop (a reference)."""
    preds = predictions[:10]
    preds = preds[np.argsort(-preds[:, 2], kind="stable")]
    tp = np.zeros((len(THRESHOLDS), len(preds)))
    fp = np.zeros((len(THRESHOLDS), len(preds)))
    locked = np.zeros((len(THRESHOLDS), len(truth)), dtype=bool)
    for i in range(len(preds)):
        inter = np.clip(np.minimum(preds[i, 1], truth[:, 1]) - np.maximum(preds[i, 0], truth[:, 0]), 0, None)
        with np.errstate(divide="ignore", invalid="ignore"):
            ious = inter / ((preds[i, 1] - preds[i, 0]) + (truth[:, 1] - truth[:, 0]) - inter)
        order = descending(ious)  # ious.argsort()[::-1] under numpy 1.x, whatever the local numpy
        for t, threshold in enumerate(THRESHOLDS):
            for j in order:
                if ious[j] < threshold:
                    fp[t, i] = 1
                    break
                if locked[t, j]:
                    continue
                tp[t, i] = 1
                locked[t, j] = True
                break
            else:
                fp[t, i] = tp[t, i] == 0
    ap = np.zeros(len(THRESHOLDS))
    if len(preds) == 0:
        return ap
    tp_cum, fp_cum = np.cumsum(tp, axis=1), np.cumsum(fp, axis=1)
    recall, precision = tp_cum / float(len(truth)), tp_cum / (tp_cum + fp_cum)
    for t in range(len(THRESHOLDS)):
        mp = np.hstack([[0], precision[t], [0]])
        mr = np.hstack([[0], recall[t], [1]])
        for i in range(len(mp) - 1)[::-1]:
            mp[i] = max(mp[i], mp[i + 1])
        idx = np.where(mr[1::] != mr[0:-1])[0] + 1
        ap[t] = np.sum((mr[idx] - mr[idx - 1]) * mp[idx])
    return ap
