"""The didemo, ego4d-nlq and recall moment protocols: official outputs, drawn timelines, bad input."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.protocols.moments import didemo, ego4d_nlq, recall
from segeval.protocols.moments.protocol import MrOptions
from tests.conftest import FIXTURES, ROOT, run_cli, shared
from tests.support.timeline import spans

MR = FIXTURES / "mr"
CASES = ("didemo.gt.json", "didemo.pred.json", "didemo.pred.jsonl", "ego4d.gt.json", "ego4d.pred.json",
         "ego4d-missing.pred.json", "ego4d-nan.gt.json", "ego4d-nan.pred.json", "recall.gt.jsonl",
         "recall.pred.jsonl", "charades.gt.txt", "charades.pred.jsonl")


def mr(*args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_cli("mr", "-o", "json", *args)
    return code, (json.loads(out) if code == 0 else {}), err


def close(got: dict[str, Any], expected: dict[str, Any]) -> int:
    """Assert every expected key is in ``got`` within 1e-9; return how many values were compared."""
    for key, value in expected.items():
        assert key in got, key
        if isinstance(value, float) and math.isnan(value):
            assert got[key] is None, key
        else:
            assert abs(got[key] - value) <= 1e-9, (key, got[key], value)
    return len(expected)


# ----------------------------------------------------------------------------------------------- CI-only


@pytest.mark.reference
def test_official_didemo_figures() -> None:
    expected = json.loads(shared("didemo", "sample_metrics_official.json").read_text())
    code, got, err = mr("-p", "didemo", str(shared("didemo", "val_data.json.gz")),
                        str(shared("didemo", "sample_val_predictions.json.gz")))
    assert code == 0 and err == ""
    assert close(got, expected) == 3  # rank@1, rank@5, miou as fractions


@pytest.mark.reference
def test_official_ego4d_nlq_figures() -> None:
    ref = json.loads(shared("ego4d_nlq", "sample_metrics_official.json").read_text())
    code, got, _ = mr("-p", "ego4d-nlq", str(shared("ego4d_nlq", "synthetic_gt.json.gz")),
                      str(shared("ego4d_nlq", "synthetic_predictions.json.gz")))
    assert code == 0
    expected = {f"Rank@{k} mIoU@{t}": 100 * ref["recall"][i][j]
                for j, k in enumerate(ref["topK"]) for i, t in enumerate(ref["thresholds"])}
    expected["mIoU"] = 100 * ref["mIoU"]
    assert close(got, expected) == 5
    assert list(got)[:5] == list(expected)  # the official table's order
    assert any("and 4 ground-truth windows have end < start" in n for n in got["notes"])  # 4 such windows


# ------------------------------------------------------------------- official outputs on generated cases


def test_the_generator_reproduces_the_stored_inputs(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "mr_cases.py"), str(tmp_path)], check=True)
    for name in CASES:
        assert (tmp_path / name).read_bytes() == gzip.decompress((MR / f"{name}.gz").read_bytes()), name


@pytest.mark.parametrize("form", ["didemo.pred.json", "didemo.pred.jsonl"])
def test_didemo_official_output_on_boundary_cases(form: str) -> None:
    expected = json.loads((MR / "didemo.official.json").read_text())
    code, got, err = mr("-p", "didemo", str(MR / "didemo.gt.json.gz"), str(MR / f"{form}.gz"))
    assert code == 0 and err == ""
    assert close(got, expected) == 3
    assert got["rank@1"] == expected["rank@1"] and got["miou"] == expected["miou"]  # bit for bit


def test_didemo_official_values_per_item() -> None:
    times, _ = didemo.read_truth(MR / "didemo.gt.json.gz")
    rankings = json.loads(gzip.decompress((MR / "didemo.pred.json.gz").read_bytes()))
    ref = json.loads((MR / "didemo.official-peritem.json").read_text())
    for n, (t, r, (r1, r5, miou)) in enumerate(zip(times, rankings, ref, strict=True)):
        rank, iou = didemo.query_scores([tuple(m) for m in r], t)
        assert [float(rank <= 1), float(rank <= 5), iou] == [r1, r5, miou], n
    assert len(ref) == 70


def test_ego4d_official_output_on_boundary_cases() -> None:
    ref = json.loads((MR / "ego4d.official.json").read_text())
    gt, pred = str(MR / "ego4d.gt.json.gz"), str(MR / "ego4d.pred.json.gz")
    code, got, _ = mr("-p", "ego4d-nlq", gt, pred)
    assert code == 0 and close(got, ref["default"]) == 5
    code, got, _ = mr("-p", "ego4d-nlq", "--thresholds", "0.25,0.5,0.75", "--top-k", "1,3,10", gt, pred)
    assert code == 0 and close(got, ref["thresholds 0.25,0.5,0.75 top-k 1,3,10"]) == 10
    assert list(got)[:10] == list(ref["thresholds 0.25,0.5,0.75 top-k 1,3,10"])


def test_ego4d_official_values_per_query() -> None:
    ref = json.loads((MR / "ego4d.official.json").read_text())["per_query"]
    truth = ego4d_nlq.read_truth(MR / "ego4d.gt.json.gz")
    predictions = ego4d_nlq.read_predictions(MR / "ego4d.pred.json.gz", truth)
    compared = 0
    for clip, ann, idx, expected in ref:
        key = (clip, ann, idx)
        got, _ = ego4d_nlq.evaluate({key: truth[key]}, {key: predictions[key]})
        compared += close(got, expected)
    assert compared == 5 * 50


def test_ego4d_nan_miou_as_the_official() -> None:
    ref = json.loads((MR / "ego4d.official.json").read_text())["nan"]
    assert math.isnan(ref["mIoU"])
    code, got, err = mr("-p", "ego4d-nlq", str(MR / "ego4d-nan.gt.json.gz"), str(MR / "ego4d-nan.pred.json.gz"))
    assert code == 0 and close(got, ref) == 5 and got["mIoU"] is None
    assert "0/0 = NaN" in err


def test_ego4d_missing_queries_score_zero_and_the_note_gives_the_official_figures() -> None:
    ref = json.loads((MR / "ego4d.official.json").read_text())["missing"]
    code, got, _ = mr("-p", "ego4d-nlq", str(MR / "ego4d.gt.json.gz"), str(MR / "ego4d-missing.pred.json.gz"))
    assert code == 0
    # 17 of the 50 queries submitted: the official averages over 17, segeval over 50 with zeros
    assert close(got, {k: v * 17 / 50 for k, v in ref.items()}) == 5
    note = next(n for n in got["notes"] if "no prediction" in n)
    assert note.startswith("33 of 50 ground-truth queries have no prediction")
    assert ", ".join(f"{k} {v:.2f}" for k, v in ref.items()) in note


@pytest.mark.parametrize("form", [("recall.gt.jsonl", "recall.pred.jsonl"), ("charades.gt.txt", "charades.pred.jsonl")])
@pytest.mark.parametrize("nms", ["0.4", "0.5", "1.0"])
def test_recall_matches_2d_tan_with_strict_iou_and_nms(nms: str, form: tuple[str, str]) -> None:
    # the Charades-STA form is the same case: its text told from content (no --protocol), joined on vid and query
    ref = json.loads((MR / "recall.official.json").read_text())["2D-TAN"][f"nms {nms}"]
    args = ("--thresholds", "0.3,0.5,0.7", "--iou-compare", "gt") if "charades" in form[0] else \
        ("-p", "recall", "--thresholds", "0.3,0.5,0.7", "--iou-compare", "gt")
    code, got, _ = mr(*args, "--nms", nms, *(str(MR / f"{name}.gz") for name in form))
    assert code == 0 and close(got, ref) == 7 and got["queries"] == 50
    if nms == "1.0":  # nothing has IoU > 1: the same as no NMS
        _, plain, _ = mr(*args, *(str(MR / f"{name}.gz") for name in form))
        assert close(plain, ref) == 7


def test_recall_default_ge_matches_moment_detr_r1() -> None:
    ref = json.loads((MR / "recall.official.json").read_text())["moment_detr compute_mr_r1"]
    code, got, _ = mr("-p", "recall", "--thresholds", "0.3,0.5,0.7", "--top-k", "1", str(MR / "recall.gt.jsonl.gz"),
                      str(MR / "recall.pred.jsonl.gz"))
    assert code == 0
    assert {t: float(f"{got[f'R@1,IoU@{t}']:.2f}") for t in ref} == ref
    # one query sits exactly on 0.7: >= counts it, 2D-TAN's > does not
    strict = json.loads((MR / "recall.official.json").read_text())["2D-TAN"]["nms 1.0"]
    assert got["R@1,IoU@0.7"] == 22.0 and strict["R@1,IoU@0.7"] == 20.0


# --------------------------------------------------------------------------------- drawn timelines


def window(drawing: str) -> list[float]:
    (s, e), = spans(drawing)
    return [float(s), float(e)]


def write(path: Path, rows: list[dict[str, Any]] | dict[str, Any] | list[Any]) -> str:
    if isinstance(rows, list) and rows and isinstance(rows[0], dict) and "qid" in rows[0]:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(rows))
    return str(path)


def ego4d_files(tmp_path: Path, queries: list[tuple[str, list[str]]]) -> tuple[str, str]:
    """One clip and annotation; each query a truth drawing and its predictions' drawings (rank order)."""
    lqs = [{"clip_start_sec": window(t)[0], "clip_end_sec": window(t)[1]} for t, _ in queries]
    gt = {"videos": [{"clips": [{"clip_uid": "c", "annotations": [{"annotation_uid": "a", "language_queries": lqs}]}]}]}
    results = [{"clip_uid": "c", "annotation_uid": "a", "query_idx": i, "predicted_times": [window(p) for p in ps]}
               for i, (_, ps) in enumerate(queries)]
    pred = {"version": "1.0", "challenge": "ego4d_nlq_challenge", "results": results}
    return write(tmp_path / "gt.json", gt), write(tmp_path / "pred.json", pred)


def test_timeline_ego4d_iou_exactly_at_the_threshold_misses(tmp_path: Path) -> None:
    gt, pred = ego4d_files(tmp_path, [
        # truth:   0-10          prediction 1: 0-5, IoU 5/10 = 0.5 exactly; prediction 2: 0-3, IoU 0.3
        ("[=========]", ["[====]", "[==]"]),
    ])
    code, got, _ = mr("-p", "ego4d-nlq", gt, pred)
    # strict >: 0.5 misses at 0.5 (hit at 0.3); rank 2's 0.3 misses at 0.3
    assert code == 0
    assert got == {"Rank@1 mIoU@0.3": 100.0, "Rank@1 mIoU@0.5": 0.0, "Rank@5 mIoU@0.3": 100.0,
                   "Rank@5 mIoU@0.5": 0.0, "mIoU": 50.0, "notes": []}
    code, got, _ = mr("-p", "ego4d-nlq", "--thresholds", "0.29,0.49", "--top-k", "1", gt, pred)
    assert got["Rank@1 mIoU@0.29"] == 100.0 and got["Rank@1 mIoU@0.49"] == 100.0


def test_timeline_ego4d_miou_uses_only_the_first_prediction(tmp_path: Path) -> None:
    gt, pred = ego4d_files(tmp_path, [
        ("[=========]", ["..........[=]", "[=========]"]),  # first: disjoint (IoU 0); second: exact
    ])
    _, got, _ = mr("-p", "ego4d-nlq", gt, pred)
    assert got["mIoU"] == 0.0 and got["Rank@5 mIoU@0.5"] == 100.0  # mIoU 0 although rank 2 is exact


def test_timeline_ego4d_zero_length_windows(tmp_path: Path) -> None:
    gt, pred = ego4d_files(tmp_path, [
        (".......*", [".......*"]),        # 7-7 against 7-7: 0/0 = NaN, not a hit; mIoU NaN
        (".......*", ["......[=]"]),       # 7-7 against 6-8: overlap 0, IoU 0
    ])
    code, got, err = mr("-p", "ego4d-nlq", gt, pred)
    assert code == 0 and got["mIoU"] is None and got["Rank@1 mIoU@0.3"] == 0.0
    assert "1 first predictions are zero-length" in err


def test_timeline_ego4d_empty_predictions_score_zero(tmp_path: Path) -> None:
    gt, pred = ego4d_files(tmp_path, [("[=========]", []), ("[=========]", ["[=========]"])])
    _, got, _ = mr("-p", "ego4d-nlq", gt, pred)
    assert got["Rank@1 mIoU@0.5"] == 50.0 and got["mIoU"] == 50.0  # (0 + 1) / 2
    assert "1 query has empty predicted_times" in got["notes"][0]


def recall_files(tmp_path: Path, truth: list[str], predictions: list[list[tuple[str, float]]]) -> tuple[str, str]:
    gt = [{"qid": n, "relevant_windows": [window(t)]} for n, t in enumerate(truth)]
    pred = [{"qid": n, "pred_relevant_windows": [[*window(d), s] for d, s in ps]} for n, ps in enumerate(predictions)]
    return write(tmp_path / "gt.jsonl", gt), write(tmp_path / "pred.jsonl", pred)


def test_timeline_recall_ge_and_gt_at_the_threshold(tmp_path: Path) -> None:
    # truth 0-10, prediction 0-5: IoU 5/10 = 0.5 exactly (and 0-7: 0.7 exactly)
    gt, pred = recall_files(tmp_path, ["[=========]"] * 2, [[("[====]", 1.0)], [("[======]", 1.0)]])
    _, ge, _ = mr("-p", "recall", gt, pred)
    assert ge["R@1,IoU@0.5"] == 100.0 and ge["R@1,IoU@0.7"] == 50.0  # >=: both hit at 0.5, 0-7 at 0.7
    _, gt_, _ = mr("-p", "recall", "--iou-compare", "gt", gt, pred)
    assert gt_["R@1,IoU@0.5"] == 50.0 and gt_["R@1,IoU@0.7"] == 0.0  # >: 0.5 and 0.7 exactly miss
    assert ge["mIoU"] == gt_["mIoU"] == pytest.approx(60.0, abs=1e-12)  # (0.5 + 0.7) / 2


def test_timeline_recall_ranks_by_score_and_nms_drops_near_duplicates(tmp_path: Path) -> None:
    gt, pred = recall_files(tmp_path, ["..........[=========]"], [[
        ("[========]", 0.5),               # 0-9: disjoint from the truth, score 0.5
        ("[=========]", 0.9),              # 0-10: the best score, IoU 0 with the truth (touches at 10)
        ("..........[=========]", 0.1),    # 10-20: exact, the lowest score
    ]])
    _, got, _ = mr("-p", "recall", "--top-k", "1,2,3", gt, pred)
    assert got["R@1,IoU@0.5"] == 0.0 and got["R@2,IoU@0.5"] == 0.0 and got["R@3,IoU@0.5"] == 100.0
    # 0-9 against 0-10: IoU 0.9 > 0.5, suppressed; the exact window moves up to rank 2
    _, got, _ = mr("-p", "recall", "--top-k", "1,2,3", "--nms", "0.5", gt, pred)
    assert got["R@2,IoU@0.5"] == 100.0
    # at θ 0.9 the IoU 0.9 is not > θ: kept
    _, got, _ = mr("-p", "recall", "--top-k", "1,2,3", "--nms", "0.9", gt, pred)
    assert got["R@2,IoU@0.5"] == 0.0


def test_timeline_recall_empty_and_missing_predictions(tmp_path: Path) -> None:
    gt, pred = recall_files(tmp_path, ["[=========]", "[=========]", "[=========]"],
                            [[("[=========]", 1.0)], []])
    (tmp_path / "pred.jsonl").write_text((tmp_path / "pred.jsonl").read_text().splitlines()[0] + "\n")
    code, got, err = mr("-p", "recall", gt, pred)
    assert code == 0 and got["R@1,IoU@0.5"] == pytest.approx(100 / 3) and got["queries"] == 3
    assert "2 ground-truth queries have no predicted window" in err


def didemo_files(tmp_path: Path, items: list[tuple[list[str], list[str]]]) -> tuple[str, str]:
    """Moments drawn on 5-second units (one character per unit, inclusive): annotators' and the ranking."""
    def moment(d: str) -> list[int]:
        return [int(x) for x in window(d)]
    truth = [{"times": [moment(t) for t in ts], "annotation_id": n} for n, (ts, _) in enumerate(items)]
    rankings = [[moment(r) for r in rs] for _, rs in items]
    return write(tmp_path / "gt.json", truth), write(tmp_path / "pred.json", rankings)


def test_timeline_didemo_inclusive_units_and_annotator_agreement(tmp_path: Path) -> None:
    gt, pred = didemo_files(tmp_path, [
        # 3 of 4 annotators chose unit 2 alone; the ranking puts it first: mean rank 1, IoU 1
        ([*["..*"] * 3, "[====]"], ["..*", "[====]"]),
        # only 2 of 4 chose units 2-3: best 3 ranks 1, 1, 2 -> mean 4/3, no rank@1
        (["..[]", "..[]", "*", "....[]"], ["..[]", "*", "....[]"]),
        # all chose unit 0; the first moment is units 0-1: (0 + 1) / (1 + 1) = 1/2 (0 in seconds' IoU)
        (["*"] * 4, ["[]", "*"]),
    ])
    code, got, _ = mr("-p", "didemo", gt, pred)
    assert code == 0
    assert got["rank@1"] == pytest.approx(1 / 3) and got["rank@5"] == 1.0
    # IoUs: query 1: 1, 1, 1 (best 3 of 1,1,1,1/6); query 2: 1, 1, 0 -> 2/3; query 3: 1/2
    assert got["miou"] == pytest.approx((1 + 2 / 3 + 1 / 2) / 3, abs=1e-15)


def test_didemo_iou_hand_derived() -> None:
    assert didemo.iou((0, 1), (0, 0)) == 0.5      # 1 shared unit of 2
    assert didemo.iou((2, 2), (2, 2)) == 1.0      # a single unit with itself
    assert didemo.iou((0, 1), (2, 3)) == 0.0      # adjacent units share nothing
    assert didemo.iou((0, 5), (2, 3)) == 2 / 6


def test_didemo_mean_rank_exactly_five() -> None:
    t = [(1, 2), (3, 3), (4, 4), (0, 5)]
    assert didemo.query_scores([(0, 0), (0, 1), (0, 2), (1, 2), (3, 3), (4, 4), (0, 5)], t)[0] == 5.0  # 4,5,6
    assert didemo.query_scores([(0, 0), (0, 1), (0, 2), (1, 2), (3, 3), (1, 1), (4, 4)], t)[0] == 16 / 3


def test_didemo_missing_partial_and_empty_rankings(tmp_path: Path) -> None:
    gt, _ = didemo_files(tmp_path, [(["*"] * 4, ["*"])] * 3)
    pred = write(tmp_path / "short.json", [[[0, 0]], []])  # item 0 ranked; item 1 empty; item 2 missing
    code, got, err = mr("-p", "didemo", gt, pred)
    assert code == 0 and got["rank@1"] == pytest.approx(1 / 3) and got["miou"] == pytest.approx(1 / 3)
    assert "the last 1 score 0" in err and "1 ranking is empty and scores 0" in err
    keyed = tmp_path / "keyed.jsonl"
    keyed.write_text('{"annotation_id": 2, "ranking": [[1, 1]]}\n')
    code, got, err = mr("-p", "didemo", gt, str(keyed))
    assert code == 0 and got == {"rank@1": 0.0, "rank@5": 0.0, "miou": 0.0, "notes": got["notes"]}
    assert "2 ground-truth items have no ranking" in err and "1 ranking leaves out an annotator's moment" in err


# ----------------------------------------------------------------------------------------- bad input

EGO_GT = {"videos": [{"clips": [{"clip_uid": "c", "annotations": [{"annotation_uid": "a", "language_queries": [
    {"clip_start_sec": 0, "clip_end_sec": 10}]}]}]}]}
EGO_ROW = {"clip_uid": "c", "annotation_uid": "a", "query_idx": 0, "predicted_times": [[0, 5]]}


def ego_pred(*rows: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"version": "1.0", "challenge": "ego4d_nlq_challenge", "results": list(rows), **top}


@pytest.mark.parametrize(("truth", "pred", "where", "expected"), [
    ({"videos": {"clips": []}}, ego_pred(EGO_ROW), "gt", "the top level: is .*expected an object with a list 'videos'"),
    ({"videos": [{"clips": [{"annotations": []}]}]}, ego_pred(EGO_ROW), "gt",
     r"videos\[0\]\.clips\[0\]: is \{\"annotations\": \[\]\}; expected an object with a string 'clip_uid'"),
    ({"videos": [{"clips": [{"clip_uid": "c", "annotations": [{"annotation_uid": 7, "language_queries": []}]}]}]},
     ego_pred(EGO_ROW), "gt", r"annotations\[0\]: is .*; expected an object with a string 'annotation_uid'"),
    ({"videos": [{"clips": [{"clip_uid": "c", "annotations": [{"annotation_uid": "a", "language_queries": [
        {"clip_start_sec": 0}]}]}]}]}, ego_pred(EGO_ROW), "gt",
     r"videos\[0\].clips\[0\].annotations\[0\].language_queries\[0\]: .*expected numbers clip_start_sec"),
    ({"videos": [{"clips": [{"clip_uid": "c", "annotations": [{"annotation_uid": "a", "language_queries": []}] * 2}]}]},
     ego_pred(EGO_ROW), "gt", r"annotations\[1\]: repeats clip_uid c with annotation_uid a"),
    (EGO_GT, {"results": [EGO_ROW]}, "pred", "expected \"1.0\" and \"ego4d_nlq_challenge\""),
    (EGO_GT, ego_pred({**EGO_ROW, "clip_uid": "x"}), "pred", r"results\[0\]: clip_uid x .* not in the ground truth"),
    (EGO_GT, ego_pred({**EGO_ROW, "query_idx": 1}), "pred", "query_idx is 1; expected an integer from 0 to 0"),
    (EGO_GT, ego_pred({**EGO_ROW, "query_idx": -1}), "pred", "query_idx is -1"),
    (EGO_GT, ego_pred(EGO_ROW, EGO_ROW), "pred", r"results\[1\]: query c/a/0 appears twice"),
    (EGO_GT, ego_pred({**EGO_ROW, "predicted_times": [[0, 5, 1]]}), "pred",
     r"results\[0\]: 'predicted_times' has the window \[0, 5, 1\]; expected every window as \[start, end\]"),
    (EGO_GT, ego_pred({**EGO_ROW, "predicted_times": [0, 5]}), "pred", r"'predicted_times' has the window 0; expected"),
    (EGO_GT, ego_pred({k: v for k, v in EGO_ROW.items() if k != "query_idx"}), "pred", "expected the keys"),
])
def test_ego4d_bad_input_exits_2(tmp_path: Path, truth: Any, pred: Any, where: str, expected: str) -> None:
    gt, pr = write(tmp_path / "gt.json", truth), write(tmp_path / "pred.json", pred)
    code, _, err = mr("-p", "ego4d-nlq", gt, pr)
    assert code == 2 and "Traceback" not in err
    assert (gt if where == "gt" else pr) in err
    import re
    assert re.search(expected, err), err


@pytest.mark.parametrize(("truth", "pred", "where", "expected"), [
    ({"times": [[0, 0]]}, [[[0, 0]]], "gt", "expected the DiDeMo ground truth"),
    ([{"time": [[0, 0]]}], [[[0, 0]]], "gt", "item 0: is .*expected an object with 'times'"),
    ([{"times": [[0, 0, 1]]}], [[[0, 0]]], "gt", "item 0: 'times' holds \\[0, 0, 1\\]; expected every moment"),
    ([{"times": [[0.5, 1]]}], [[[0, 0]]], "gt", "integer 5-second units"),
    ([{"times": [[0, 0], [0, True]]}], [[[0, 0]]], "gt", "item 0: 'times' holds \\[0, true\\]; expected every"),
    ([{"times": [[-1, 0]]}], [[[0, 0]]], "gt", "'times' holds \\[-1, 0\\]; expected every moment"),
    ([{"times": [[0, 0]]}], [[[0, 1], [2, 3], [0, 1]]], "pred", "names the moment \\[0, 1\\] twice"),
    ([{"times": [[0, 0]]}], [[[0, 0]], [[1, 1]]], "pred", "holds 2 rankings for 1 ground-truth item"),
    ([{"times": [[0, 0]]}], [[[0, 0], [0, 0]]], "pred", "ranking 0: 'ranking' names the moment \\[0, 0\\] twice"),
    ([{"times": [[0, 0]]}], [[[1, 0]]], "pred", "0 <= start <= end"),
])
def test_didemo_bad_input_exits_2(tmp_path: Path, truth: Any, pred: Any, where: str, expected: str) -> None:
    import re
    gt, pr = write(tmp_path / "gt.json", truth), write(tmp_path / "pred.json", pred)
    code, _, err = mr("-p", "didemo", gt, pr)
    assert code == 2 and "Traceback" not in err and (gt if where == "gt" else pr) in err
    assert re.search(expected, err), err


@pytest.mark.parametrize(("lines", "expected"), [
    ('{"annotation_id": 9, "ranking": [[0, 0]]}', "line 1: annotation_id 9 is not in the ground truth"),
    ('{"annotation_id": 1, "ranking": [[0, 0]]}\n{"annotation_id": 1, "ranking": [[0, 0]]}',
     "line 2: annotation_id 1 appears twice"),
    ('{"annotation_id": 1}', "line 1: has no 'ranking'; expected JSON Lines of"),
    ('{"annotation_id": 1, "ranking": [[0, 0, 7]]}', "line 1: 'ranking' holds \\[0, 0, 7\\]"),
])
def test_didemo_keyed_bad_input_names_the_line(tmp_path: Path, lines: str, expected: str) -> None:
    import re
    gt = write(tmp_path / "gt.json", [{"times": [[0, 0]], "annotation_id": 1}])
    (tmp_path / "pred.jsonl").write_text(lines + "\n")
    code, _, err = mr("-p", "didemo", gt, str(tmp_path / "pred.jsonl"))
    assert code == 2 and str(tmp_path / "pred.jsonl") in err and re.search(expected, err), err



def test_recall_refuses_a_ground_truth_without_any_window_naming_it(tmp_path: Path) -> None:
    gt = write(tmp_path / "gt.jsonl", [{"qid": 1, "relevant_windows": []}])
    pred = write(tmp_path / "p.jsonl", [{"qid": 1, "pred_relevant_windows": [[0, 1, 0.5]]}])
    code, _, err = mr("-p", "recall", gt, pred)
    assert code == 2 and err == (f"segeval: error: {gt}: has no query with a relevant window; expected at least one "
                                 "[start, end] in 'relevant_windows'\n"), err
    from segeval.core.errors import InputError

    with pytest.raises(InputError, match=r"^ground truth: has no query with a relevant window"):
        recall.evaluate({"1": np.zeros((0, 2))}, {})


CHARADES = "3MSZA 24.3 30.4##person turn a light on.\nAMT7R 4.5 12.5##a person is putting a picture onto the wall.\n" \
    "3MSZA 24.3 30.4##person flipped the light switch near the door.\n"


def test_charades_sta_text_with_moment_detr_predictions(tmp_path: Path) -> None:
    (tmp_path / "gt.txt").write_text(CHARADES)
    pred = write(tmp_path / "p.jsonl", [
        {"qid": 9, "vid": "AMT7R", "query": "a person is putting a picture onto the wall.",
         "pred_relevant_windows": [[4.5, 8.5, 0.9], [4.5, 12.5, 0.5]]},
        {"qid": 7, "vid": "3MSZA", "query": "person turn a light on.", "pred_relevant_windows": [[24.3, 30.4, 0.2],
                                                                                                [20, 30.4, 0.8]]}])
    code, got, err = mr(str(tmp_path / "gt.txt"), pred)
    assert code == 0 and "protocol recall" in err and "Charades-STA" in err
    # line 0: first by score [20, 30.4]: IoU 6.1 / 10.4 = 0.587, [24.3, 30.4] second: 1; line 1: IoU 4 / 8 = 0.5
    # exactly (>= hits), [4.5, 12.5] second: 1; line 2: no prediction, 0
    assert got["R@1,IoU@0.5"] == pytest.approx(200 / 3) and got["R@1,IoU@0.7"] == 0
    assert got["R@5,IoU@0.5"] == got["R@5,IoU@0.7"] == pytest.approx(200 / 3)
    assert got["mIoU"] == pytest.approx(100 * (6.1 / 10.4 + 0.5 + 0) / 3)
    assert "1 ground-truth queries have no predicted window (e.g. 2)" in got["notes"][0]
    _, strict, _ = mr("--iou-compare", "gt", str(tmp_path / "gt.txt"), pred)
    assert strict["R@1,IoU@0.5"] == pytest.approx(100 / 3)  # 0.5 is not > 0.5


@pytest.mark.parametrize(("truth", "prediction", "expected"), [
    ("3MSZA 24.3##a.\n", None, r"gt.txt, line 1: expected VIDEO START END##SENTENCE"),
    ("3MSZA 24.3 3O.4##a.\n", None, r"gt.txt, line 1: end is '3O.4'; expected a finite number"),
    (CHARADES + "3MSZA 1 2##person turn a light on.\n", None, r"gt.txt, line 4: video 3MSZA has this sentence on "
                                                            r"line 1 too"),
    (CHARADES, {"qid": 0, "vid": "3MSZA", "query": "person turn a light on", "pred_relevant_windows": [[0, 1, 1]]},
     r"p.jsonl, line 1: names no line of the Charades-STA ground truth"),
    (CHARADES, {"qid": 0, "pred_relevant_windows": [[0, 1, 1]]}, r"p.jsonl, line 1: names no line"),
])
def test_charades_sta_bad_input_exits_2(tmp_path: Path, truth: str, prediction: dict[str, Any] | None,
                                       expected: str) -> None:
    import re
    (tmp_path / "gt.txt").write_text(truth)
    pred = write(tmp_path / "p.jsonl", [prediction or {"qid": 0, "pred_relevant_windows": [[0, 1, 1]]}])
    code, _, err = mr("-p", "recall", str(tmp_path / "gt.txt"), pred)
    assert code == 2 and re.search(expected, err), err


def test_recall_bad_input_exits_2(tmp_path: Path) -> None:
    gt = write(tmp_path / "gt.jsonl", [{"qid": 1, "relevant_windows": [[0, 10]]}])
    pred = write(tmp_path / "p.jsonl", [{"qid": 2, "pred_relevant_windows": [[0, 10, 1]]}])
    code, _, err = mr("-p", "recall", gt, pred)
    assert code == 2 and "predicts query 2, which is not in the ground truth" in err
    pred = write(tmp_path / "p.jsonl", [{"qid": 1, "pred_relevant_windows": [[0, 10]]}])
    code, _, err = mr("-p", "recall", gt, pred)
    assert code == 2 and "line 1" in err and "[start, end, score]" in err
    pred = write(tmp_path / "p.jsonl", [{"qid": 1, "pred_relevant_windows": [[0, 10, 1]]}] * 2)
    code, _, err = mr("-p", "recall", gt, pred)
    assert code == 2 and "query 1 appears twice" in err


@pytest.mark.parametrize(("args", "expected"), [
    (("-p", "didemo", "--top-k", "1"), "The didemo protocol takes no options; it does not take --top-k."),
    (("-p", "qvhighlights", "--nms", "0.5"), "it takes no --nms"),
    (("-p", "ego4d-nlq", "--nms", "0.5"), "The ego4d-nlq protocol takes --thresholds, --top-k; it does not take --nms"),
    (("-p", "recall", "--thresholds", "0.5,x"), "'--thresholds' parameter must be a comma-separated list, "
     "each a number in [0, 1]"),
    (("-p", "recall", "--thresholds", "1.5"), "'--thresholds' parameter must be a comma-separated list, "
     "each a number in [0, 1]"),
    (("-p", "recall", "--top-k", "0"), "'--top-k' parameter must be a comma-separated list, each an integer >= 1"),
    (("-p", "recall", "--iou-compare", "lt"), "'iou-compare' parameter must be one of 'ge', 'gt'"),
    (("-p", "recall", "--nms", "2"), "'--nms' parameter must be a number in [0, 1]"),
])
def test_options_a_protocol_does_not_take_are_refused(tmp_path: Path, args: tuple[str, ...], expected: str) -> None:
    gt = write(tmp_path / "gt.jsonl", [{"qid": 1, "relevant_windows": [[0, 10]]}])
    pred = write(tmp_path / "p.jsonl", [{"qid": 1, "pred_relevant_windows": [[0, 10, 1]]}])
    code, _, err = mr(*args, gt, pred)
    assert code == 2 and expected in err, err


def test_protocol_functions_take_options_directly() -> None:
    truth = {"q": np.array([[0.0, 10.0]])}
    preds = {"q": np.array([[0.0, 5.0, 1.0]])}
    got, _ = recall.evaluate(truth, preds, (0.5,), (1,), "gt")
    assert got["R@1,IoU@0.5"] == 0.0  # 5/10 is not > 0.5
    with pytest.raises(Exception, match="does not take --nms"):
        didemo.evaluate_files("x", "y", MrOptions(nms=0.5))


def test_didemo_keyed_form_needs_distinct_annotation_ids(tmp_path: Path) -> None:
    gt = write(tmp_path / "gt.json", [{"times": [[0, 0]]}, {"times": [[1, 1]]}])
    (tmp_path / "pred.jsonl").write_text('{"annotation_id": 1, "ranking": [[0, 0]]}\n')
    code, _, err = mr("-p", "didemo", gt, str(tmp_path / "pred.jsonl"))
    assert code == 2 and "without a distinct 'annotation_id'; expected the list form" in err
    pred = write(tmp_path / "pred.json", [[[0, 0]], [[1, 1], [0, 0]]])  # the list form needs no ids
    code, got, _ = mr("-p", "didemo", gt, pred)
    assert code == 0 and got["rank@1"] == 1.0 and got["miou"] == 1.0


@pytest.mark.parametrize("seed", range(20))
def test_hit_rates_equal_any_of_the_first_k_reaching_t(seed: int) -> None:
    # R@k,IoU@t by its definition, query by query: any of the first k IoUs >= t (> t when strict); NaN reaches
    # nothing, and a query without IoUs has no hit
    rng = np.random.default_rng(seed)
    overlaps = [rng.choice([0.0, 0.3, 0.5, 0.7, 1.0, np.nan], size=int(rng.integers(0, 6))) for _ in range(8)]
    thresholds, top_k, strict = (0.3, 0.5, 0.7), (1, 2, 5), bool(seed % 2)
    rows: dict[str, dict[str, float | None]] = {}
    recall.mean_figures("R@{k},IoU@{t}", overlaps, thresholds, top_k, strict, rows, [str(n) for n in range(8)])
    for n, overlap in enumerate(overlaps):
        for k in top_k:
            for t in thresholds:
                hit = bool((overlap[:k] > t).any() if strict else (overlap[:k] >= t).any())
                assert rows[str(n)][f"R@{k},IoU@{t}"] == 100.0 * hit, (n, k, t)
