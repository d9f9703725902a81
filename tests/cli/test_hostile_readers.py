"""Hostile round 4, the readers' cases end to end: each exits 2 naming the file (and line), never an internal
error; the groups file keeps a U+2028 inside an item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

GT = {"database": {"v1": {"subset": "validation", "duration": 100, "annotations": [{"segment": [1, 5], "label": "A"}]}}}


@pytest.mark.parametrize("command", ["detect", "proposals"])
@pytest.mark.parametrize(("number", "problem"), [("9" * 400, "expected an integer of at most 18 digits"),
                                                 ("1e400", "expected a finite number"),
                                                 ("Infinity", "JSON has no NaN or Infinity")])
def test_detection_json_numbers(tmp_path: Path, command: str, number: str, problem: str) -> None:
    (tmp_path / "gt.json").write_text(json.dumps(GT))
    (tmp_path / "p.json").write_text('{"results": {"v1": [{"segment": [1, ' + number + '], "label": "A"}]}}')
    code, out, err = run_cli(command, str(tmp_path / "gt.json"), str(tmp_path / "p.json"))
    assert (code, out) == (2, "") and "p.json, line 1: holds the number" in err and problem in err, err
    assert "(column 37)" in err and "internal error" not in err


@pytest.mark.parametrize("protocol", [[], ["-p", "qvhighlights"], ["-p", "tvr"], ["-p", "didemo"],
                                      ["-p", "ego4d-nlq"]])
@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_a_100k_deep_ground_truth(tmp_path: Path, protocol: list[str], opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    (tmp_path / "gt").write_text(opening * 100_000 + "1" * (opening != "[") + closing * 100_000 + "\n")
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[0, 5, 0.5]]}\n')
    code, out, err = run_cli("mr", *protocol, str(tmp_path / "gt"), str(tmp_path / "p"))
    assert (code, out) == (2, "") and "internal error" not in err and "Traceback" not in err
    said = "is nested too deeply to read" if protocol else "does not look like any moment-retrieval ground truth"
    assert f"{tmp_path / 'gt'}" in err and said in err, err


def test_a_groups_item_holding_u2028(tmp_path: Path) -> None:
    (tmp_path / "g").write_text("q1 a\u2028b,c | d\n")
    (tmp_path / "r").write_text("q1 Q0 a\u2028b 1 1 r\nq1 Q0 d 2 0.5 r\n")
    code, out, err = run_cli("eval", "-m", "adr", str(tmp_path / "g"), str(tmp_path / "r"))
    # a U+2028 is not ASCII white space: 'a\u2028b' is one item, scored as the same file with 'ab' for it
    (tmp_path / "g2").write_text("q1 ab,c | d\n")
    (tmp_path / "r2").write_text("q1 Q0 ab 1 1 r\nq1 Q0 d 2 0.5 r\n")
    plain = run_cli("eval", "-m", "adr", str(tmp_path / "g2"), str(tmp_path / "r2"))
    assert code == 0 and out == plain[1] and plain[0] == 0, err
