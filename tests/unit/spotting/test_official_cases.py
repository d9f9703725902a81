"""``segeval spot`` against the official SoccerNet evaluator (PyPI SoccerNet 0.2.0): its stored outputs on
the generated cases of scripts/soccernet_cases.py (every figure of every metric, compared exactly; the
class sets v2, v1, ball and a JSON dictionary) and, in CI, the shared sample's official numbers."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from segeval.protocols.spotting import ap, grid, read
from tests.conftest import FIXTURES, run_cli, shared
from tests.support.scripts import load_script

SPOTTING = FIXTURES / "spotting"
#: case: figures compared (7 metrics × (1 + classes) per variant the official reports)
CASES = {"edges": 7 * 3 * 18, "many": 7 * 3 * 18, "sparse": 7 * 3 * 18, "v1": 7 * 4, "ball": 7 * 3 * 3,
         "custom": 7 * 3 * 5}
KEYS = {"all": ("a_mAP", "a_mAP_per_class"), "visible": ("a_mAP_visible", "a_mAP_per_class_visible"),
        "unshown": ("a_mAP_unshown", "a_mAP_per_class_unshown")}


def _case(name: str) -> dict[str, Any]:
    with gzip.open(SPOTTING / f"{name}.json.gz", "rt") as f:
        case: dict[str, Any] = json.load(f)
    return case


def _compare(figures: ap.Figures, official: dict[str, Any]) -> int:
    """Every figure the official reports equal to it (exactly); the number compared."""
    compared = 0
    for variant, (mean_key, class_key) in KEYS.items():
        if official[mean_key] is None:  # SoccerNet-v1: no visible / "not shown" figures
            continue
        assert figures.a_map[variant] == official[mean_key], (figures.metric, mean_key)
        assert figures.a_map_per_class[variant] == official[class_key], (figures.metric, class_key)
        compared += 1 + len(official[class_key])
    return compared


def _classes(case: dict[str, Any], tmp_path: Path) -> str:
    """The case's ``--classes``: a set's name, or a JSON file of its dictionary."""
    spec = case.get("classes", "v2")
    if isinstance(spec, str):
        return spec
    (tmp_path / "classes.json").write_text(json.dumps(spec, indent=1))
    return str(tmp_path / "classes.json")


@pytest.mark.parametrize("name", CASES)
def test_generated_case_matches_official(name: str, tmp_path: Path) -> None:
    case = _case(name)
    generator = load_script("soccernet_cases")
    assert generator.CASES[name]() == {k: v for k, v in case.items() if k != "official"}  # what the script makes
    labels, predictions = generator.write_case(case, tmp_path)
    cells = grid.build(read.read(str(labels), str(predictions), classes=read.class_set(_classes(case, tmp_path))))
    compared = sum(_compare(ap.average_map(cells, metric), case["official"][metric]) for metric in ap.METRICS)
    assert compared == CASES[name]


def test_cli_takes_each_set_s_defaults(tmp_path: Path) -> None:
    """ball: Labels-ball.json and at1 unless told; v1: Labels.json and no visible / "not shown" figures; a comma
    list scores as the JSON dictionary of the same labels in the same order."""
    generator = load_script("soccernet_cases")
    ball = _case("ball")
    code, out, err = run_cli("spot", *map(str, generator.write_case(ball, tmp_path / "ball")), "-c", "ball",
                             "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["framerate"], doc["classes"], list(doc)[5:-1]) == (25, ["PASS", "DRIVE"], ["at1"])
    assert doc["at1"]["a_mAP_per_class_visible"] == ball["official"]["at1"]["a_mAP_per_class_visible"]
    v1 = _case("v1")
    code, out, err = run_cli("spot", *map(str, generator.write_case(v1, tmp_path / "v1")), "--classes", "v1",
                             "-o", "csv")
    assert code == 0, err
    assert out.count(",visible,") == 0 and out.count(",all,") == 2 * 4
    assert repr(v1["official"]["tight"]["a_mAP"]) in out
    code, out, err = run_cli("spot", *map(str, generator.write_case(v1, tmp_path / "v1g")), "--classes", "v1",
                             "--per-game", "-o", "csv")  # per game: the set's variants (all only) too
    assert code == 0 and out.count(",visible,") == 0 and out.count(",all,") == 2 * len(v1["games"]), (err, out)
    custom = _case("custom")
    labels, predictions = map(str, generator.write_case(custom, tmp_path / "custom"))
    by_list = run_cli("spot", labels, predictions, "-c", "Foul, Goal,Throw-in ,Corner", "-o", "json")
    by_file = run_cli("spot", labels, predictions, "-c", _classes(custom, tmp_path), "-o", "json")
    assert json.loads(by_list[1])["loose"] == json.loads(by_file[1])["loose"]
    assert json.loads(by_list[1])["loose"]["a_mAP"] == custom["official"]["loose"]["a_mAP"]


def test_cli_json_keeps_the_official_keys(tmp_path: Path) -> None:
    case = _case("edges")
    labels, predictions = load_script("soccernet_cases").write_case(case, tmp_path)
    code, out, err = run_cli("spot", str(labels), str(predictions), "-o", "json", "-m", "tight", "-m", "at3")
    assert code == 0, err
    doc = json.loads(out)
    for metric in ("tight", "at3"):
        for mean_key, class_key in KEYS.values():
            assert doc[metric][mean_key] == case["official"][metric][mean_key]
            assert doc[metric][class_key] == case["official"][metric][class_key]
    assert "loose" not in doc
    # the edge case holds a replaced prediction, a negative confidence and positions beyond 120 minutes
    assert any("replaces it" in n for n in doc["notes"]) and any("negative" in n for n in doc["notes"])
    assert any("120 minutes" in n for n in doc["notes"])


@pytest.mark.reference
def test_shared_sample_reproduces_every_official_figure() -> None:
    root = shared("soccernet")
    official = json.loads((root / "sample_metrics_official.json").read_text())
    code, out, err = run_cli("spot", "--protocol", "soccernet", str(root / "labels"), str(root / "predictions"),
                             "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["classes"] == official["classes"]
    compared = 0
    for metric in ("loose", "tight"):
        for mean_key, class_key in KEYS.values():
            assert doc[metric][mean_key] == official[metric][mean_key], (metric, mean_key)
            assert doc[metric][class_key] == official[metric][class_key], (metric, class_key)
            compared += 1 + len(official[metric][class_key])
    assert compared == 108
    # the CSV output writes each figure as the official float64 (shortest round-trip)
    code, text, _ = run_cli("spot", str(root / "labels"), str(root / "predictions"), "-o", "csv")
    assert code == 0
    for metric in ("loose", "tight"):
        for mean_key, class_key in KEYS.values():
            for value in [official[metric][mean_key], *official[metric][class_key]]:
                assert repr(value) in text
