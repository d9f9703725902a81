"""``segeval spot --per-game``: each game's figures by hand, and equal to ``spot`` on the game alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.unit.spotting.test_rules import ev, pr


def _game(root: Path, name: str, file: str, key: str, records: list[dict[str, Any]]) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / file).write_text(json.dumps({key: records}))


GAMES = {  # the worked example of docs/spotting.md; one Goal hit; a Goal missed and a Penalty hit in half 2
    "l/g1": ([ev(10_000), ev(30_000, shown=False)], [pr(10_400, 0.9), pr(11_000, 0.8), pr(29_000, 0.4)]),
    "l/g2": ([ev(5_000)], [pr(5_000, 0.7)]),
    "l/g3": ([ev(5_000, half=2), ev(60_000, "Penalty", half=2)], [pr(90_000, 0.6, half="2"),
                                                                    pr(60_000, 0.5, "Penalty", half="2")]),
}


def _folders(tmp_path: Path, games: dict[str, Any]) -> tuple[str, str]:
    gt, pred = tmp_path / "gt", tmp_path / "pred"
    for name, (events, preds) in games.items():
        _game(gt, name, "Labels-v2.json", "annotations", events)
        _game(pred, name, "results_spotting.json", "predictions", preds)
    return str(gt), str(pred)


def _values(out: str) -> dict[tuple[str, str, str], float]:
    return {(r["game"], r["metric"], r["variant"]): r["value"] for r in json.loads(out)}


def test_by_hand(tmp_path: Path) -> None:
    code, out, err = run_cli("spot", *_folders(tmp_path, GAMES), "-m", "at1", "-m", "at2", "--per-game", "-o", "json")
    assert code == 0, err
    got = _values(out)
    # g1 alone is docs/spotting.md's worked example: at1 Goal AP 6/11 (the 16 classes without events 0), at2 the
    # official order's sum 0.8484848484848484
    assert got["l/g1", "at1", "all"] == 0.0320855614973262 and got["l/g1", "at1", "unshown"] == 0.0
    assert got["l/g1", "at2", "all"] == 0.8484848484848484 / 17
    # g2: one event, its hit: AP 1, mAP 1/17 at every tolerance
    assert got["l/g2", "at1", "all"] == got["l/g2", "at2", "visible"] == 1 / 17
    # g3: Penalty hit (AP 1), Goal missed (AP 0): 1/17
    assert got["l/g3", "at1", "all"] == 1 / 17
    assert len(got) == 3 * 2 * 3


def test_equal_to_spot_on_each_game_alone(tmp_path: Path) -> None:
    code, out, err = run_cli("spot", *_folders(tmp_path / "all", GAMES), "--per-game", "-o", "json")
    assert code == 0, err
    per_game = _values(out)
    for name, game in GAMES.items():
        code, out, err = run_cli("spot", *_folders(tmp_path / name, {name: game}), "-o", "csv")
        assert code == 0, err
        alone = {(m, v): float(x) for f, m, v, c, x in (line.split(",") for line in out.splitlines()[1:]) if c == ""}
        assert alone == {(m, v): x for (g, m, v), x in per_game.items() if g == name}
        assert len(alone) == 2 * 3  # loose and tight, three variants


def test_per_game_text_and_bad_metric(tmp_path: Path) -> None:
    code, out, _ = run_cli("spot", *_folders(tmp_path, GAMES), "--per-game", "-m", "at1")
    assert code == 0 and out.splitlines()[0] == "figure\tmetric\tvariant\tgame\tvalue"
    code, _, err = run_cli("spot", *_folders(tmp_path, GAMES), "--per-game", "-m", "at9")
    assert code == 2 and "must be one of" in err
