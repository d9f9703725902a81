"""Hand-derived figures of ``segeval spot`` (one derivation per case), the grid's rules, and every bad
input of docs/spotting.md's table: exit 2 naming the file, the record, its line and what was expected, or
the official behaviour with a note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from segeval.core.errors import InputError
from segeval.protocols.spotting import ap, grid, read
from tests.conftest import run_cli


def _files(tmp_path: Path, events: list[dict[str, Any]], preds: list[dict[str, Any]]) -> tuple[str, str]:
    gt, pred = tmp_path / "Labels-v2.json", tmp_path / "results_spotting.json"
    gt.write_text(json.dumps({"annotations": events}, indent=1))
    pred.write_text(json.dumps({"predictions": preds}, indent=1))
    return str(gt), str(pred)


def ev(ms: int, label: str = "Goal", half: int = 1, shown: bool = True) -> dict[str, Any]:
    return {"gameTime": f"{half} - 00:00", "label": label, "position": str(ms),
            "visibility": "visible" if shown else "not shown"}


def pr(ms: int, conf: Any, label: str = "Goal", half: Any = "1") -> dict[str, Any]:
    return {"label": label, "position": str(ms), "half": half, "confidence": conf}


def figures(tmp_path: Path, events: list[dict[str, Any]], preds: list[dict[str, Any]], metric: str) -> ap.Figures:
    return ap.average_map(grid.build(read.read(*_files(tmp_path, events, preds))), metric)


# ------------------------------------------------------------------ hand-derived figures

@pytest.mark.parametrize(("position", "metric", "hit"), [
    (10_500, "at1", True),    # frame 21 vs event frame 20: |1| <= 1·2/2 frames
    (11_000, "at1", False),   # frame 22: |2| > 1
    (11_000, "at2", True),    # |2| <= 2·2/2
    (8_999, "at1", False),    # frame int(17.998) = 17: |3| > 1 (the truncation, not rounding)
    (9_000, "at1", False),    # frame 18: |2| > 1
    (9_500, "at1", True),     # frame 19: |1| <= 1
])
def test_tolerance_edge(tmp_path: Path, position: int, metric: str, hit: bool) -> None:
    f = figures(tmp_path, [ev(10_000)], [pr(position, "0.5")], metric)
    goal = read.V2.labels["Goal"]
    # a hit: precision 1 and recall 1 at thresholds <= 0.5, nothing kept above: AP = 11·1/11 = 1; the
    # mean over 17 classes of one 1 and sixteen 0 is 1/17; a miss: precision 0 everywhere, AP 0
    assert f.a_map_per_class["all"][goal] == (1.0 if hit else 0.0)
    assert f.a_map["all"] == (1 / 17 if hit else 0.0)


def test_later_prediction_on_a_frame_replaces_the_earlier(tmp_path: Path) -> None:
    # 10,000 and 10,400 ms are both frame 20: the later (0.2) replaces 0.9; the event at frame 20 takes it;
    # a second event at frame 40 takes the prediction at frame 41 (0.6). Thresholds <= 0.2: 2 kept, 2 hits
    # (p 1, r 1); (0.2, 0.6]: 1 kept, 1 hit (p 1, r 0.5); above: none (p 0, r 0). AP = (1·11)/11 = 1.
    f = figures(tmp_path, [ev(10_000), ev(20_000)], [pr(10_000, "0.9"), pr(10_400, "0.2"), pr(20_500, "0.6")],
                "at1")
    assert f.a_map_per_class["all"][read.V2.labels["Goal"]] == 1.0
    # with the negative confidence last, the frame holds no prediction: one hit of two events; precision 1
    # at recall 0.5 for thresholds <= 0.6, so the points r >= 0, 0.1, ..., 0.5 give 1 (6 of 11): AP 6/11
    f = figures(tmp_path, [ev(10_000), ev(20_000)], [pr(10_000, "0.9"), pr(10_400, "-1"), pr(20_500, "0.6")],
                "at1")
    assert f.a_map_per_class["all"][read.V2.labels["Goal"]] == 6 / 11


def test_equal_confidences_go_to_the_earlier_frame(tmp_path: Path) -> None:
    # both within 1 frame of the event; equal scores: the first in frame order (19) is taken, 21 stays a
    # false positive. The visibility zone of both is the event's; precision 1/2 at recall 1: AP 0.5
    f = figures(tmp_path, [ev(10_000)], [pr(9_500, "0.5"), pr(10_500, "0.5")], "at1")
    assert f.a_map_per_class["all"][read.V2.labels["Goal"]] == 0.5


def test_unshown_zone_and_scaling(tmp_path: Path) -> None:
    # one "not shown" Goal at frame 20 and its hit: the unshown AP of Goal is 1 at every tolerance, the
    # visible one 0 (no visible event, no prediction in a visible zone); unshown mAP 1/17 at each tolerance;
    # average-mAP of tight: four trapezoids of (1/17 + 1/17)/2 over 4, then ×17/13, i.e. 1/13 up to rounding
    f = figures(tmp_path, [ev(10_000, shown=False)], [pr(10_000, "0.5")], "tight")
    goal = read.V2.labels["Goal"]
    assert f.a_map_per_class["unshown"][goal] == 1.0 and f.a_map_per_class["visible"][goal] == 0.0
    assert f.map_at["unshown"] == [1 / 17] * 5
    assert f.a_map["unshown"] == pytest.approx(1 / 13, rel=1e-15)
    # a single tolerance (at1) is not scaled
    assert figures(tmp_path, [ev(10_000, shown=False)], [pr(10_000, "0.5")], "at1").a_map["unshown"] == 1 / 17


def test_prediction_in_a_half_without_events_is_a_not_shown_false_positive(tmp_path: Path) -> None:
    # a visible Goal hit in half 1 and a Goal prediction in half 2 (no Goal there, zone "not shown"):
    # all: 2 kept, 1 hit at thresholds <= 0.3: p 0.5, r 1; (0.3, 0.9]: the half-2 prediction alone, p 0,
    # r 0. AP = 11·0.5/11 = 0.5. visible: only the hit: AP 1
    f = figures(tmp_path, [ev(10_000)], [pr(10_000, "0.3"), pr(10_000, "0.9", half="2")], "at1")
    goal = read.V2.labels["Goal"]
    assert f.a_map_per_class["all"][goal] == 0.5
    assert f.a_map_per_class["visible"][goal] == 1.0


def test_zones_split_halfway_rounded_down() -> None:
    # events at frames 0 and 7: zones start at 0 and (0 + 7) // 2 = 3, so frame 3 is the second event's
    cells = grid.Cells([0, 7], [1, -1], [2, 3, 9], [0.1, 0.2, 0.3])
    assert cells.zone_values() == [1, -1, -1]
    assert grid.Cells([], [], [5], [0.5]).zone_values() == [-1]


def test_frame_of_truncates_and_clamps() -> None:
    assert [grid.frame_of(ms) for ms in (0, 499, 500, 999, 1000, 7_199_999, 7_200_000, 9_999_999)] == \
        [0, 0, 1, 1, 2, 14_399, 14_399, 14_399]


# ------------------------------------------------------------------ bad input: exit 2 or the official with a note

BAD = [
    ("gt", '{"annotations": [\n {"label": "Goal",, }]}', ["Labels-v2.json, line 2", "is not valid JSON",
                                                          "expected a SoccerNet Labels-v2.json"]),
    ("gt", '{"events": []}', ['no "annotations" key', "expected a SoccerNet Labels-v2.json"]),
    ("gt", '{"annotations": {}}', ['"annotations" is dict, not a list']),
    ("gt", '{"annotations": [\n {"label": "Goal", "position": "1000"}\n]}',
     ["line 2", 'annotations[0]: has no "gameTime" key']),
    ("gt", '{"annotations": [\n {"gameTime": "1 - 00:01", "label": "Goal", "position": "-1000"}\n]}',
     ["line 2", "annotations[0]", "negative; expected milliseconds >= 0"]),
    ("gt", '{"annotations": [\n {"gameTime": "3 - 00:01", "label": "Goal", "position": "1000"}\n]}',
     ["line 2", "expected half 1 or 2"]),
    ("gt", '{"annotations": [\n {"gameTime": "first half", "label": "Goal"}\n]}',
     ["line 2", 'expected "HALF - MM:SS"']),
    ("gt", '{"annotations": [\n {"gameTime": "1 - 00:01", "label": "Goal", "position": "1.5s"}\n]}',
     ["line 2", 'expected milliseconds, an integer or its text']),
    ("gt", '{"annotations": [\n {"gameTime": "1 - 00:01", "label": "Goal", "label": "Foul"}\n]}',
     ["line 2", 'has the key "label" twice']),
    ("pred", '{"predictions": [\n {"label": "Goal", "position": "1000", "half": "1", "confidence": "nan"}\n]}',
     ["results_spotting.json, line 2", "predictions[0]", "expected a finite number", "drops a NaN"]),
    ("pred", '{"predictions": [\n {"label": "Goal", "position": "1000", "half": "1", "confidence": NaN}\n]}',
     ["line 2", "expected a finite number"]),
    ("pred", '{"predictions": [{"label": "Goal", "position": "1000", "half": "1", "confidence": "high"}]}',
     ["line 1", 'expected a finite number in ASCII digits']),
    ("pred", '{"predictions": [\n {"label": "Goal", "position": "1000", "confidence": "0.5"}\n]}',
     ["line 2", 'has no "half" key']),
    ("pred", '{"predictions": [\n {"label": "Goal", "position": "1000", "half": 0, "confidence": "0.5"}\n]}',
     ["line 2", "expected half 1 or 2", "drops any other half silently"]),
    ("pred", '{"predictions": [\n {"label": 7, "position": "1000", "half": 1, "confidence": 0.5}\n]}',
     ["line 2", "expected a label of --classes v2 as text"]),
    ("pred", '{"predictions": [\n "Goal"\n]}', ['predictions[0] ("Goal"): is str, not an object']),
]


@pytest.mark.parametrize(("which", "text", "expected"), BAD, ids=[f"{i}-{b[0]}" for i, b in enumerate(BAD)])
def test_bad_input_exits_2_naming_file_record_and_line(tmp_path: Path, which: str, text: str,
                                                       expected: list[str]) -> None:
    gt, pred = _files(tmp_path, [ev(1000)], [pr(1000, "0.5")])
    Path(gt if which == "gt" else pred).write_text(text)
    code, out, err = run_cli("spot", gt, pred)
    assert code == 2 and out == ""
    for part in expected:
        assert part in err, (part, err)
    assert "Traceback" not in err


def test_unknown_labels_are_skipped_with_a_note(tmp_path: Path) -> None:
    plain = run_cli("spot", *_files(tmp_path, [ev(1000)], [pr(1000, "0.5")]), "-o", "json")
    code, out, err = run_cli("spot", *_files(tmp_path, [ev(1000), ev(5000, "Drop ball")],
                                            [pr(1000, "0.5"), pr(5000, "0.9", "Drop ball")]), "-o", "json")
    assert code == 0 and plain[0] == 0
    assert json.loads(out)["loose"] == json.loads(plain[1])["loose"]
    assert 'Labels-v2.json: 1 annotation with a label outside the 17 classes of --classes v2 skipped' in err
    assert '"Drop ball" (1)' in err and "results_spotting.json: 1 prediction" in err


def test_duplicates_and_out_of_game_positions_are_noted(tmp_path: Path) -> None:
    code, _, err = run_cli("spot", *_files(tmp_path, [ev(1000), ev(1200, shown=False)],
                                           [pr(1000, "0.5"), pr(1000, "0.7"), pr(7_500_000, "0.1")]))
    assert code == 0
    assert "note: 1 ground-truth event on the 2 fps frame" in err
    assert "note: 1 prediction on the 2 fps frame" in err
    assert "note: 1 position at or beyond 120 minutes" in err


def _game(root: Path, name: str, file: str, doc: dict[str, Any]) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / file).write_text(json.dumps(doc))


def test_folders_match_games_by_relative_path(tmp_path: Path) -> None:
    gt, pred = tmp_path / "gt", tmp_path / "pred"
    for name in ("l/2030/g1", "l/2030/g2"):
        _game(gt, name, "Labels-v2.json", {"annotations": [ev(1000)]})
    _game(pred, "l/2030/g1", "results_spotting.json", {"predictions": [pr(1000, "0.5")]})
    code, _, err = run_cli("spot", str(gt), str(pred))
    assert code == 2 and "has no results_spotting.json for 1 of 2 games" in err and "l/2030/g2" in err
    _game(pred, "l/2030/g2", "results_spotting.json", {"predictions": []})
    _game(pred, "l/2030/g3", "results_spotting.json", {"predictions": [pr(1000, "0.5")]})
    code, out, err = run_cli("spot", str(gt), str(pred), "-o", "csv", "-m", "at1")
    assert code == 0, err
    assert "1 game with predictions but no Labels-v2.json" in err and "l/2030/g3" in err
    # two Goal events, one hit at 0.5: precision 1 at recall 0.5, AP 6/11 (points 0..0.5), mAP (6/11)/17
    assert f"Average-mAP,at1,all,Goal,{6 / 11!r}" in out.splitlines()
    assert f"Average-mAP,at1,all,,{(6 / 11) / 17!r}" in out.splitlines()


def test_file_and_folder_mixed_is_an_error(tmp_path: Path) -> None:
    gt, _ = _files(tmp_path, [ev(1000)], [])
    code, _, err = run_cli("spot", gt, str(tmp_path))
    assert code == 2 and f"{tmp_path}: is a folder but the other input is a file" in err


@pytest.mark.parametrize("option", [["--metric", "at6"], ["--protocol", "thumos"], ["-o", "xml"]])
def test_bad_option_exits_2(tmp_path: Path, option: list[str]) -> None:
    code, _, err = run_cli("spot", *_files(tmp_path, [ev(1000)], [pr(1000, "0.5")]), *option)
    assert code == 2 and "must be one of" in err


def test_every_spelling_of_a_record_reads_alike(tmp_path: Path) -> None:
    # every spelling of the one number grammar (text, JSON numbers, "+", exponents, leading zeros) gives the
    # same predictions: each record written in six spellings
    spellings = [lambda ms, h, c: pr(ms, f"{c:.6f}", half=str(h)),
                 lambda ms, h, c: {**pr(ms, round(c, 6), half=h), "position": ms},
                 lambda ms, h, c: {**pr(ms, f"+{c:.6f}", half=f"+{h}"), "position": f"+{ms}"},
                 lambda ms, h, c: pr(ms, f"{c * 1e6:.0f}e-6", half=h),
                 lambda ms, h, c: {**pr(ms, f"{c:.6f}", half=str(h)), "position": float(ms)},
                 lambda ms, h, c: {**pr(ms, f"{c:.6f}", half=str(h)), "position": f"00{ms}"}]
    base = [(ms, 1 + ms % 2, (ms % 997) / 997) for ms in range(0, 2_000_000, 15_013)]
    expected = [read.Prediction(h, read.V2.labels["Goal"], ms, float(f"{c:.6f}")) for ms, h, c in base]
    for spell in spellings:
        path = tmp_path / "results_spotting.json"
        path.write_text(json.dumps({"predictions": [spell(ms, h, c) for ms, h, c in base]}))
        assert read.read_predictions(str(path)) == (expected, [])


# ------------------------------------------------------------------ --classes

@pytest.mark.parametrize(("position", "hit"), [(10_480, True), (10_520, False), (9_520, True), (9_480, False)])
def test_ball_is_25_fps_at_1_second(tmp_path: Path, position: int, hit: bool) -> None:
    # event frame int(25 · 10.0) = 250; 10,480 ms is frame 262 (|12| <= 1·25/2), 10,520 frame 263 (13 > 12.5),
    # 9,520 frame 238, 9,480 frame 237; a hit: AP 1 for PASS, 0 for DRIVE (no events): mean 1/2
    gt, pred = _files(tmp_path, [ev(10_000, "PASS")], [pr(position, "0.5", "PASS")])
    code, out, err = run_cli("spot", gt, pred, "--classes", "ball", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["at1"]["a_mAP"] == (0.5 if hit else 0.0) and "loose" not in json.loads(out)


def test_several_labels_of_one_class(tmp_path: Path) -> None:
    # v1: y-card and r-card are both "card" (class 0), the prediction's "card" takes either; two events, the
    # one prediction hits one: thresholds <= 0.5 precision 1 recall 1/2, AP = 6/11 (recall >= 0..0.5)
    gt, pred = _files(tmp_path, [ev(10_000, "y-card"), ev(90_000, "r-card")], [pr(10_000, "0.5", "card")])
    f = ap.average_map(grid.build(read.read(gt, pred, classes=read.SETS["v1"])), "at1")
    assert f.a_map_per_class["all"] == [6 / 11, 0.0, 0.0]
    (tmp_path / "dict.json").write_text('{"y-card": 0, "r-card": 0, "card": 0, "Foul": 1}')  # Foul: no file
    classes = read.class_set(str(tmp_path / "dict.json"))
    assert classes.classes == ("y-card", "Foul")  # each class named by its first label
    with pytest.raises(InputError, match=r'dict\.json, line 1: "Foul" is the label of no event or prediction'):
        read.read(gt, pred, classes=classes)
    (tmp_path / "dict.json").write_text('{"y-card": 0, "r-card": 0, "card": 0}')
    g = ap.average_map(grid.build(read.read(gt, pred, classes=read.class_set(str(tmp_path / "dict.json")))), "at1")
    assert g.a_map_per_class["all"] == [6 / 11]


@pytest.mark.parametrize(("spec", "text", "expected"), [
    ("Goal,Gaol", None, ["'classes' parameter must name labels", "'Gaol'", "which no file holds"]),
    ("", None, ["'classes' parameter must be v1, v2, ball, a comma list", "Got '' instead"]),
    ("Goal,,Foul", None, ["none empty", "Got 'Goal,,Foul'"]),
    ("Goal,Goal", None, ["each label once"]),
    ("c.json", '{"Goal": 0,\n "Foul": 1,', ["c.json, line 2", "is not valid JSON", "expected v1, v2, ball"]),
    ("c.json", '{"Goal": 0,\n "Foul": "1"}', ["c.json, line 2", '"Foul" maps to "1"', "expected a class index"]),
    ("c.json", '{"Goal": 0,\n "Foul": 2}', ["c.json, line 2", '"Foul" maps to 2']),
    ("c.json", '["Goal"]', ["c.json", "not an object of labels"]),
    ("c.json", '{"Goal": 0,\n "Gaol": 1}', ["c.json, line 2", '"Gaol" is the label of no event or prediction']),
    ("missing.json", None, ["missing.json"]),
])
def test_bad_classes_exit_2(tmp_path: Path, spec: str, text: str | None, expected: list[str]) -> None:
    gt, pred = _files(tmp_path, [ev(1000), ev(3000, "Foul")], [pr(1000, "0.5")])
    if text is not None:
        (tmp_path / spec).write_text(text)
    code, out, err = run_cli("spot", gt, pred, "--classes", str(tmp_path / spec) if spec.endswith(".json") else spec)
    assert code == 2 and out == "", err
    for part in expected:
        assert part in err, (part, err)
    assert "Traceback" not in err
