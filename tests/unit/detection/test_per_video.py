"""``segeval detect --per-video``: each video's figures by hand, and equal to ``detect`` on files holding that video
alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts.detad_cases import CASES
from tests.conftest import run_cli
from tests.unit.detection.test_thumos_kit import EXAMPLE, _kit


def _write(tmp_path: Path, gt: dict[str, Any], pred: dict[str, Any], stem: str = "") -> tuple[str, str]:
    g, p = tmp_path / f"{stem}gt.json", tmp_path / f"{stem}pred.json"
    g.write_text(json.dumps(gt))
    p.write_text(json.dumps(pred))
    return str(g), str(p)


def _rows(out: str) -> dict[tuple[Any, str], float]:
    return {(r["tiou"], r["video"]): r["value"] for r in json.loads(out)}


def test_by_hand(tmp_path: Path) -> None:
    ann = [{"segment": [0, 10], "label": "A"}]
    gt = {"database": {"v1": {"subset": "validation", "annotations": ann},
                       "v2": {"subset": "validation", "annotations": [*ann, {"segment": [20, 30], "label": "B"}]}}}
    pred = {"results": {"v1": [{"segment": [0, 10], "label": "A", "score": 0.9}],
                        "v2": [{"segment": [50, 60], "label": "A", "score": 0.8},
                               {"segment": [0, 10], "label": "A", "score": 0.7}],
                        "v3": [{"segment": [0, 10], "label": "A", "score": 0.95}]}}
    code, out, err = run_cli("detect", *_write(tmp_path, gt, pred), "--per-video", "--thresholds", "0.5", "-o", "json")
    assert code == 0, err
    # v1: one hit, AP 1; v2: A hit at rank 2 (precision 1/2, recall 1: AP 0.5), B without prediction AP 0: mAP 0.25;
    # v3 has no instance: no row, a note
    assert _rows(out) == {(0.5, "v1"): 1.0, (None, "v1"): 1.0, (0.5, "v2"): 0.25, (None, "v2"): 0.25}
    assert "1 video with predictions but no ground-truth instance" in err


def test_the_kit_keeps_each_videos_ambiguous(tmp_path: Path) -> None:
    gt, det = _kit(tmp_path, EXAMPLE)
    code, out, err = run_cli("detect", "-p", "thumos14-kit", gt, det, "--thresholds", "0.4", "--per-video",
                             "-o", "json")
    assert code == 0, err
    # v1 (BaseballPitch only) at 0.4: d1 hit, d2 miss, d3 dropped (Ambiguous 50-60), d4 hit: (1 + 2/3) / 2;
    # v2: its one detection hits
    assert _rows(out)[0.4, "v1"] == pytest.approx(5 / 6, abs=1e-15) and _rows(out)[0.4, "v2"] == 1.0


@pytest.mark.parametrize("protocol", ["activitynet", "thumos14"])
def test_equal_to_detect_on_each_video_alone(tmp_path: Path, protocol: str) -> None:
    _, (gt, pred) = CASES["detad_anet"]
    code, out, err = run_cli("detect", *_write(tmp_path, gt, pred), "-p", protocol, "--subset", "validation",
                             "--per-video", "-o", "json")
    assert code == 0, err
    per_video = _rows(out)
    videos = [v for v, entry in gt["database"].items() if entry["subset"] == "validation"]
    assert {v for _, v in per_video} == set(videos)
    for v in videos:
        mine = gt["database"][v]
        labels = {a["label"] for a in mine["annotations"]}
        alone = {"results": {v: [r for r in pred["results"].get(v, []) if r["label"] in labels]}}
        files = _write(tmp_path, {"database": {v: mine}}, alone, stem=v)
        code, out, err = run_cli("detect", *files, "-p", protocol, "--subset", "validation", "-o", "json")
        assert code == 0, err
        whole = {r["tiou"]: r["value"] for r in json.loads(out) if r["figure"] in ("mAP", "Average-mAP")}
        assert whole == {t: x for (t, video), x in per_video.items() if video == v}


def test_bad_input_exits_2_as_the_overall_figure(tmp_path: Path) -> None:
    gt = {"database": {"v1": {"subset": "validation", "annotations": [{"segment": [0, 10], "label": "A"}]}}}
    pred = {"results": {"v1": [{"segment": [0, 10], "label": "Z", "score": 0.9}]}}
    for flag in ("--per-video", "--errors"):
        code, out, err = run_cli("detect", *_write(tmp_path, gt, pred), flag)
        assert code == 2 and out == "" and "the label 'Z' is not a class of the ground truth" in err
