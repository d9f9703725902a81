"""Generate SoccerNet action-spotting boundary cases and score them with the official evaluator.

Usage: PYTHONPATH=/tmp/sn python scripts/soccernet_cases.py OUT_DIR

where /tmp/sn holds the official tool (``pip install --no-deps --target /tmp/sn SoccerNet==0.2.0 tqdm``;
numpy from the running Python).  Writes OUT_DIR/<case>.json.gz for each case: ``{"games": {relative game
folder: {"labels": label file document, "predictions": results_spotting.json document}}, "official":
{metric: what the official ``evaluate`` returns}}`` for the metrics loose, tight and at1..at5 (SoccerNet
0.2.0, ``SoccerNet.Evaluation.ActionSpotting.evaluate(..., split=None, version=2, framerate=2,
dataset=None, EVENT_DICTIONARY=EVENT_DICTIONARY_V2)`` on the case written out as SoccerNet's folders).
The cases of another class set also hold ``"classes"`` (``segeval spot --classes``: a set's name, or the
label dictionary a JSON file holds) and ``"official_call"`` (the ``evaluate`` arguments that differ).
tests/unit/spotting/test_official_cases.py rebuilds the folders and compares every figure.

Cases (all deterministic):

* ``edges``: one game, both halves; for each tolerance δ (1..5 and 5..60 s) predictions exactly δ
  frames (δ/2 s) before and after an event (inside) and δ+1 frames away (outside); positions on the
  half-second boundaries (999/1000/1499/1500 ms); two predictions (and two events) of a class on one
  frame (the later replaces the earlier), a negative confidence replacing a positive one; equal
  confidences competing for one event; confidences exactly on thresholds k/199, 0 and 1; classes
  without events, with and without predictions; "not shown" events; positions beyond 120 minutes.
* ``many``: 12 games of random events (all 17 classes, mixed visibility) and predictions jittered
  around them on a 0.1 s grid, confidences from a coarse set (ties) and free.
* ``sparse``: 3 games; a game with no predictions, a half without events, rare classes in one game only,
  labels outside the 17 classes (skipped), events without ``position`` (``gameTime`` seconds).
* ``v1``: 4 games of SoccerNet-v1 (``Labels.json``; ``version=1, EVENT_DICTIONARY=EVENT_DICTIONARY_V1``):
  ground truth labelled as v1 is (soccer-ball, soccer-ball-own, y-card, r-card, yr-card, substitution-in,
  which the official reads by ``"card" in label`` ...) plus labels of no class, predictions labelled with
  the dictionary's names (card, subs, soccer; the official crashes on any other).
* ``ball``: 3 games of Ball Action Spotting at 25 fps (``Labels-ball.json``; ``framerate=25,
  EVENT_DICTIONARY=EVENT_DICTIONARY_BALL``, as ``dataset="Ball"`` picks it): dense PASS and DRIVE events,
  predictions 12 and 13 frames away (the at1 edge, 12.5 frames), on 40 ms frame edges, beyond 120 minutes.
* ``custom``: 4 games of ``many``'s kind scored with a dictionary of 4 of the 17 classes, in another order
  (``EVENT_DICTIONARY={"Foul": 0, "Goal": 1, "Throw-in": 2, "Corner": 3}``): the other labels skipped.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import sys
import tempfile
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

V1_LABELS = {"y-card": "card", "r-card": "card", "yr-card": "card", "substitution-in": "subs",
             "soccer-ball": "soccer", "soccer-ball-own": "soccer"}
CUSTOM = {"Foul": 0, "Goal": 1, "Throw-in": 2, "Corner": 3}
CLASSES = ["Penalty", "Kick-off", "Goal", "Substitution", "Offside", "Shots on target", "Shots off target",
           "Clearance", "Ball out of play", "Throw-in", "Foul", "Indirect free-kick", "Direct free-kick", "Corner",
           "Yellow card", "Red card", "Yellow->red card"]
METRICS = ["loose", "tight", "at1", "at2", "at3", "at4", "at5"]
THRESHOLDS = [k / 199 for k in range(199)] + [1.0]


def game_time(half: int, ms: int) -> str:
    sec = ms // 1000
    return f"{half} - {sec // 60:02d}:{sec % 60:02d}"


def event(half: int, ms: int, label: str, visible: bool = True, position: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"gameTime": game_time(half, ms), "label": label}
    if position:
        out["position"] = str(ms)
    out["team"] = "home"
    out["visibility"] = "visible" if visible else "not shown"
    return out


def prediction(half: int, ms: int, label: str, confidence: float | str, as_text: bool = True) -> dict[str, Any]:
    conf: Any = (confidence if isinstance(confidence, str) else f"{confidence:.6f}") if as_text else confidence
    return {"gameTime": game_time(half, ms), "label": label, "position": str(ms) if as_text else ms,
            "half": str(half) if as_text else half, "confidence": conf}


def edges() -> dict[str, Any]:
    ev: list[dict[str, Any]] = []
    pr: list[dict[str, Any]] = []
    # tolerance edges: one class per tolerance family, events 200 s apart
    for i, delta in enumerate([1, 2, 3, 4, 5, 10, 15, 20, 30, 45, 60]):
        half, label = 1 + i % 2, CLASSES[i % 6 + 5]
        t = 300_000 + i * 200_000
        ev.append(event(half, t, label, visible=i % 3 != 0))
        step = delta * 500  # δ frames at 2 fps = δ/2 seconds
        pr.append(prediction(half, t - step, label, 0.61 + i / 100))
        pr.append(prediction(half, t + step, label, 0.41 + i / 100))
        pr.append(prediction(half, t + step + 500, label, 0.91 - i / 100))
        pr.append(prediction(half, t - step - 500, label, 0.31 + i / 100))
    # half-second boundaries: positions 999 and 1000 ms fall on frames 1 and 2
    for ms, conf in ((120_999, 0.7), (121_000, 0.6), (121_499, 0.5), (121_500, 0.4)):
        pr.append(prediction(2, ms, "Foul", conf))
    ev.append(event(2, 121_000, "Foul"))
    ev.append(event(2, 121_600, "Foul", visible=False))
    # same frame: the later prediction replaces the earlier, even a negative one; the later event too
    ev.append(event(1, 600_000, "Corner"))
    pr.append(prediction(1, 600_100, "Corner", 0.95))
    pr.append(prediction(1, 600_400, "Corner", 0.15))
    pr.append(prediction(1, 602_000, "Corner", 0.8))
    pr.append(prediction(1, 602_300, "Corner", -0.5))
    ev.append(event(1, 900_000, "Throw-in", visible=False))
    ev.append(event(1, 900_200, "Throw-in", visible=True))
    pr.append(prediction(1, 900_000, "Throw-in", 0.5))
    # equal confidences competing for one event: the earlier frame wins
    ev.append(event(2, 700_000, "Clearance"))
    pr.append(prediction(2, 699_000, "Clearance", 0.5))
    pr.append(prediction(2, 701_000, "Clearance", 0.5))
    # confidences exactly on thresholds (as JSON numbers and as full-precision text), 0 and 1
    for k, th in enumerate(THRESHOLDS[::13]):
        ms = 1_500_000 + k * 7_000
        ev.append(event(1 + k % 2, ms, "Ball out of play", visible=k % 4 != 1))
        pr.append(prediction(1 + k % 2, ms + 1000 * (k % 3), "Ball out of play", th, as_text=k % 2 == 0))
        pr.append(prediction(1 + k % 2, ms + 3000, "Ball out of play", repr(th)))
    pr.append(prediction(1, 2_000_000, "Ball out of play", "0"))
    pr.append(prediction(2, 2_000_000, "Ball out of play", "1"))
    # a class without events, with predictions; "Penalty" without either
    pr.append(prediction(1, 50_000, "Red card", 0.9))
    pr.append(prediction(2, 50_000, "Red card", 0.2))
    # predictions of a class in a half where it has no event (a "not shown" false positive)
    ev.append(event(1, 400_000, "Goal"))
    pr.append(prediction(1, 400_500, "Goal", 0.7))
    pr.append(prediction(2, 400_500, "Goal", 0.9))
    # beyond 120 minutes: the last frame
    ev.append(event(2, 7_199_800, "Kick-off"))
    pr.append(prediction(2, 7_300_000, "Kick-off", 0.66))
    pr.append(prediction(1, 7_250_000, "Kick-off", 0.55))
    # events at frame 0 and zones split at an odd number of frames
    ev.append(event(1, 0, "Offside"))
    ev.append(event(1, 3_500, "Offside", visible=False))
    pr += [prediction(1, ms, "Offside", 0.1 + ms / 10_000) for ms in (0, 1_000, 1_500, 2_000, 3_000, 5_000)]
    rng = random.Random(25)
    rng.shuffle(pr)
    return {"games": {"edge_league/2030-2031/2030-08-01 - 20-00 A 1 - 0 B": {
        "labels": {"UrlLocal": "", "annotations": ev}, "predictions": {"UrlLocal": "", "predictions": pr}}}}


def many(n_games: int = 12, seed: int = 2525) -> dict[str, Any]:
    rng = random.Random(seed)
    games: dict[str, Any] = {}
    coarse = [0.1, 0.25, 0.5, 0.75, 0.9]
    for g in range(n_games):
        ev, pr = [], []
        for half in (1, 2):
            length = rng.randint(45 * 60, 50 * 60) * 1000
            for label in CLASSES:
                for _ in range(rng.choice([0, 1, 2, 4, 8])):
                    ms = rng.randrange(0, length)
                    ev.append(event(half, ms, label, visible=rng.random() > 0.2))
                    for _ in range(rng.randint(0, 3)):
                        jitter = rng.randint(-300, 300) * 100
                        conf = rng.choice(coarse) if rng.random() < 0.4 else round(rng.random(), 6)
                        pr.append(prediction(half, max(0, ms + jitter), label, conf))
                for _ in range(rng.randint(0, 6)):
                    pr.append(prediction(half, rng.randrange(0, length), label, round(rng.random(), 6)))
        rng.shuffle(pr)
        games[f"league_{g % 2}/2031-2032/game {g:02d}"] = {
            "labels": {"UrlLocal": "", "annotations": ev}, "predictions": {"UrlLocal": "", "predictions": pr}}
    return {"games": games}


def sparse() -> dict[str, Any]:
    base = many(3, seed=77)["games"]
    names = sorted(base)
    base[names[0]]["predictions"]["predictions"] = []
    second = base[names[1]]
    second["labels"]["annotations"] = [a for a in second["labels"]["annotations"] if a["gameTime"][0] == "1"]
    second["labels"]["annotations"].append(event(1, 123_456, "Yellow->red card"))
    second["labels"]["annotations"].append(event(1, 654_000, "Penalty", position=False))
    second["labels"]["annotations"].append(event(2, 77_000, "Drop ball"))
    second["predictions"]["predictions"].append(prediction(1, 123_000, "Yellow->red card", 0.3))
    second["predictions"]["predictions"].append(prediction(1, 654_900, "Penalty", 0.8))
    second["predictions"]["predictions"].append(prediction(2, 77_000, "Drop ball", 0.99))
    third = base[names[2]]
    for a in third["labels"]["annotations"][::3]:
        del a["position"]
    return {"games": base}


def write_case(case: dict[str, Any], root: Path) -> tuple[Path, Path]:
    """The case as SoccerNet's folders: root/labels/GAME/Labels-v2.json (or the case's label file),
    root/predictions/GAME/results_spotting.json."""
    label_file = case.get("label_file", "Labels-v2.json")
    for game, files in case["games"].items():
        for kind, name in (("labels", label_file), ("predictions", "results_spotting.json")):
            folder = root / kind / game
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(json.dumps(files[kind], indent=1))
    return root / "labels", root / "predictions"


def _plain(x: Any) -> Any:
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    return float(x)


def _plain_or_none(x: Any) -> Any:
    return None if x is None else _plain(x)


def official(labels: Path, predictions: Path, case: dict[str, Any]) -> dict[str, Any]:
    from SoccerNet.Evaluation import utils  # the official tool (PYTHONPATH)
    from SoccerNet.Evaluation.ActionSpotting import evaluate

    call: dict[str, Any] = {"version": 2, "framerate": 2, "EVENT_DICTIONARY": "EVENT_DICTIONARY_V2"}
    call |= case.get("official_call", {})
    if isinstance(call["EVENT_DICTIONARY"], str):
        call["EVENT_DICTIONARY"] = getattr(utils, call["EVENT_DICTIONARY"])
    out = {}
    for metric in METRICS:
        with redirect_stderr(io.StringIO()):
            r = evaluate(str(labels), str(predictions), prediction_file="results_spotting.json", split=None,
                         metric=metric, label_files=case.get("label_file", "Labels-v2.json"), dataset=None, **call)
        out[metric] = {k: _plain_or_none(v) for k, v in r.items()}
    return out


def v1(seed: int = 101) -> dict[str, Any]:
    rng = random.Random(seed)
    games: dict[str, Any] = {}
    for g in range(4):
        ev, pr = [], []
        for half in (1, 2):
            for label, name in V1_LABELS.items():
                for _ in range(rng.choice([0, 1, 2, 3])):
                    ms = rng.randrange(0, 2_800_000)
                    ev.append(event(half, ms, label, visible=rng.random() > 0.2, position=rng.random() > 0.2))
                    for _ in range(rng.randint(0, 3)):
                        conf = rng.choice([0.25, 0.5, 0.75]) if rng.random() < 0.4 else round(rng.random(), 6)
                        pr.append(prediction(half, max(0, ms + rng.randint(-200, 200) * 100), name, conf))
            for label in ("Goal", "kick-off"):  # no v1 class: skipped
                ev.append(event(half, rng.randrange(0, 2_800_000), label))
            for name in ("card", "subs", "soccer"):
                for _ in range(rng.randint(0, 4)):
                    pr.append(prediction(half, rng.randrange(0, 2_800_000), name, round(rng.random(), 6)))
        rng.shuffle(pr)
        games[f"england_epl/2014-2015/v1 game {g}"] = {
            "labels": {"annotations": ev}, "predictions": {"predictions": pr}}
    return {"games": games, "classes": "v1", "label_file": "Labels.json",
            "official_call": {"version": 1, "EVENT_DICTIONARY": "EVENT_DICTIONARY_V1"}}


def ball(seed: int = 202) -> dict[str, Any]:
    rng = random.Random(seed)
    games: dict[str, Any] = {}
    for g in range(3):
        ev, pr = [], []
        for half in (1, 1, 1, 2):
            ms = rng.randrange(0, 20_000) // 40 * 40
            while ms < 240_000:
                label = rng.choice(["PASS", "PASS", "DRIVE"])
                ev.append(event(half, ms, label, visible=rng.random() > 0.1))
                for frames in rng.sample([0, 1, 6, -6, 12, -12, 13, -13, 25], rng.randint(0, 3)):
                    conf = rng.choice([0.2, 0.5, 0.8]) if rng.random() < 0.3 else round(rng.random(), 6)
                    pr.append(prediction(half, max(0, ms + frames * 40 + rng.choice([0, 0, 39])), label, conf))
                ms += rng.randint(12, 120) * 40
        ev.append(event(1, 7_200_100, "PASS"))
        pr.append(prediction(1, 7_300_000, "PASS", 0.4))
        ev.append(event(2, 77_000, "HEADER"))  # a 2024 class: outside PASS and DRIVE, skipped
        rng.shuffle(pr)
        games[f"ball/2019-2020/ball game {g}"] = {"labels": {"annotations": ev}, "predictions": {"predictions": pr}}
    return {"games": games, "classes": "ball", "label_file": "Labels-ball.json",
            "official_call": {"framerate": 25, "EVENT_DICTIONARY": "EVENT_DICTIONARY_BALL"}}


def custom() -> dict[str, Any]:
    return {"games": many(4, seed=303)["games"], "classes": CUSTOM, "official_call": {"EVENT_DICTIONARY": CUSTOM}}


CASES = {"edges": edges, "many": many, "sparse": sparse, "v1": v1, "ball": ball, "custom": custom}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, make in CASES.items():
        case = make()
        with tempfile.TemporaryDirectory() as tmp:
            case["official"] = official(*write_case(case, Path(tmp)), case)
        data = json.dumps(case, separators=(",", ":"), sort_keys=False).encode()
        with open(out / f"{name}.json.gz", "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as z:
            z.write(data)
        print(f"{name}: {len(case['games'])} games, loose a_mAP {case['official']['loose']['a_mAP']!r}",
              file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main(sys.argv[1])
