"""``segeval detect --errors`` against DETAD's own false-positive analysis on generated cases (its stored outputs:
scripts/detad_cases.py), and hand-derived types."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from scripts.detad_cases import CASES
from segeval.protocols.detection import errors as X
from segeval.protocols.detection import evaluate as E
from tests.conftest import run_cli

FIXTURES = Path(__file__).parents[2] / "fixtures" / "detection"
DETAD_NAMES = dict(zip(X.TYPES, ("True Positive", "Double Detection Err", "Wrong Label Err", "Localization Err",
                                 "Confusion Err", "Background Err"), strict=True))


def _run(tmp_path: Path, name: str) -> tuple[dict[str, Any], X.ErrorResult, list[tuple[Any, ...]], dict[Any, Any]]:
    thresholds, (gt, pred) = CASES[name]
    g, p = tmp_path / "gt.json", tmp_path / "pred.json"
    g.write_text(json.dumps(gt))
    p.write_text(json.dumps(pred))
    detad = json.loads((FIXTURES / f"{name}.detad.json").read_text())
    chosen = E.parse_thresholds(None if thresholds == "anet" else ",".join(map(str, thresholds)), "activitynet")
    t, preds = E.read_inputs("activitynet", str(g), str(p), "validation")
    result = X.analyse("activitynet", t, preds, chosen)
    mine = {(preds.videos[preds.video[i]], preds.start[i], preds.end[i], t.classes[preds.label[i]], preds.score[i]):
            result.types[:, k].tolist() for k, i in enumerate(result.rows.tolist())}
    return detad, result, X.error_rows(result), mine


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["video"], row["segment"][0], row["segment"][1], row["label"], row["score"]


@pytest.mark.parametrize(("name", "figures"), [("detad_anet", 198), ("detad_thumos", 90)])
def test_every_figure_equals_detad(tmp_path: Path, name: str, figures: int) -> None:
    detad, result, rows, mine = _run(tmp_path, name)
    assert mine == {_key(r): r["types"] for r in detad["predictions"]}  # the same predictions, the same types
    tious = [str(t) for t in detad["thresholds"]] + ["avg"]
    got = {(f, "avg" if t is None else str(t), top, kind): v for f, t, top, kind, v in rows}
    compared = 0
    for figure in ("count", "fraction"):
        for column in tious:
            for kind in X.TYPES:
                assert got[figure, column, "top 10G", kind] == detad[figure][column][DETAD_NAMES[kind]]
                compared += 1
    for g, values in detad["slices"].items():
        for kind in X.TYPES:
            value, theirs = got["fraction", "avg", f"{g}G", kind], values[DETAD_NAMES[kind]]
            assert value == theirs or (math.isnan(value) and math.isnan(theirs))  # an empty slice: 0/0
            compared += 1
    assert result.average_map_n == detad["average_mAP_N"]
    assert {DETAD_NAMES[k]: v for k, v in result.gain.items()} == detad["average_mAP_N_gain"]
    assert compared + 6 == figures  # every figure DETAD prints or plots


def test_the_cut_at_10_g(tmp_path: Path) -> None:
    detad, result, _, _ = _run(tmp_path, "detad_thumos")
    # the flooded class keeps 10 × its instances: fewer predictions analysed than the file holds
    given = sum(map(len, CASES["detad_thumos"][1][1]["results"].values()))
    assert len(result.rows) == len(detad["predictions"]) < given


def test_a_video_without_truth_is_background_where_detad_reuses_another_video(tmp_path: Path) -> None:
    detad, _, rows, mine = _run(tmp_path, "detad_stale")
    theirs = {_key(r): r["types"] for r in detad["predictions"]}
    stale = [k for k in theirs if k[0] == "zz_no_truth"]
    assert {k: v for k, v in theirs.items() if k not in stale} == {k: v for k, v in mine.items() if k not in stale}
    assert all(mine[k] == [5, 5, 5] for k in stale)
    # DETAD: the first (in its sort) is background, the two others double detections of the previous video's instances
    assert sorted(theirs[k][0] for k in stale) == [1, 1, 5]
    got = {(f, t, top, kind): v for f, t, top, kind, v in rows}
    assert got["count", 0.5, "top 10G", "background"] == detad["count"]["0.5"]["Background Err"] + 2
    # class0: 3 instances, 9 predictions (slices 1G-3G); class1: 6 and 24 (1G-4G): 5G to 10G empty, 0/0 = NaN
    assert all(math.isnan(got["fraction", None, f"{g}G", k]) and math.isnan(detad["slices"][str(g)][DETAD_NAMES[k]])
               for g in range(5, 11) for k in X.TYPES)


def test_hand_derived_types(tmp_path: Path) -> None:
    g, p = tmp_path / "gt.json", tmp_path / "pred.json"
    g.write_text(json.dumps({"database": {"v": {"subset": "validation", "annotations": [
        {"segment": [0, 10], "label": "A"}, {"segment": [20, 30], "label": "B"}]}}}))
    # tIoU with [0, 10]: 1 (hit), 1 (double), 8/12 = 0.667 (localization at 0.7), 2/10 (localization at 0.5 too);
    # with [20, 30]: 1 but label A (wrong label); [50, 60] nothing (background); B on [0, 9] 0.9 (wrong label),
    # B on [5, 15] 5/15 with A's instance only (confusion)
    preds = [([0, 10], "A", 0.9), ([0, 10], "A", 0.8), ([2, 12], "A", 0.7), ([8, 10], "A", 0.6),
             ([20, 30], "A", 0.5), ([50, 60], "A", 0.4), ([0, 9], "B", 0.3), ([5, 15], "B", 0.25),
             ([40, 41], "B", 0.2)]
    p.write_text(json.dumps({"results": {"v": [{"segment": s, "label": lab, "score": sc} for s, lab, sc in preds]}}))
    code, out, _ = run_cli("detect", str(g), str(p), "--thresholds", "0.5,0.7", "--errors", "-o", "json")
    assert code == 0
    counts = {(r["tiou"], r["type"]): r["value"] for r in json.loads(out)
              if r["figure"] == "count" and r["tiou"] is not None}
    # A: 6 predictions (10 G = 10 for 1 instance); B: 3; at 0.5 [2, 12] (8/12) is a double detection, at 0.7 a
    # localization error; [8, 10] (0.2) a localization error at both; [40, 41] (0) background
    assert [counts[0.5, k] for k in X.TYPES] == [1, 2, 2, 1, 1, 2]
    assert [counts[0.7, k] for k in X.TYPES] == [1, 1, 2, 2, 1, 2]


def test_errors_refused_with_the_kit_or_per_video(tmp_path: Path) -> None:
    g, p = tmp_path / "gt.json", tmp_path / "pred.json"
    g.write_text(json.dumps({"database": {"v": {"subset": "validation", "annotations": [
        {"segment": [0, 10], "label": "A"}]}}}))
    p.write_text(json.dumps({"results": {"v": []}}))
    code, _, err = run_cli("detect", str(g), str(p), "--errors", "--per-video")
    assert code == 2 and "cannot be used together" in err
    code, _, err = run_cli("detect", str(g), str(p), "--errors", "-p", "thumos14-kit")
    assert code == 2 and "'--errors'" in err
