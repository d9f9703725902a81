"""Reading SoccerNet's spotting files (``Labels-v2.json``, ``results_spotting.json``), one game's or two folders
of games, as the official evaluator reads them; what it misreads is refused or noted (docs/spotting.md)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from segeval.core.errors import InputError, ParameterError
from segeval.core.words import plural
from segeval.protocols.moments.reading import is_number
from segeval.readers.directories import bad_entry_name, regular_file
from segeval.readers.files import read_text
from segeval.readers.formats import NUMBER, WHOLE, parse_float, parse_int
from segeval.readers.json_records import document_head, load_document, walk_objects


@dataclass(frozen=True)
class ClassSet:
    """The classes of ``spot --classes``: names by index, each label's class, and the set's official settings."""

    name: str
    classes: tuple[str, ...]
    labels: dict[str, int]
    framerate: int = 2
    metrics: tuple[str, ...] = ("loose", "tight")
    label_file: str = "Labels-v2.json"
    #: the official reports the visible and "not shown" figures (None in SoccerNet-v1)
    visibility: bool = True


def _set(name: str, classes: str, aliases: dict[str, int] | None = None, **settings: Any) -> ClassSet:
    names = tuple(classes.split(","))
    return ClassSet(name, names, {c: i for i, c in enumerate(names)} | (aliases or {}), **settings)


#: the named sets: SoccerNet-v2's ``EVENT_DICTIONARY_V2``; v1's 3 classes (``EVENT_DICTIONARY_V1``'s names,
#: v1's own labels as the official's ``"card" in label`` reading gives them); Ball Action Spotting's
#: ``EVENT_DICTIONARY_BALL`` at 25 fps, mAP at 1 s (``evaluate(..., framerate=25, metric="at1")``)
SETS = {
    s.name: s
    for s in (
        _set(
            "v2",
            "Penalty,Kick-off,Goal,Substitution,Offside,Shots on target,Shots off target,Clearance,Ball out of "
            "play,Throw-in,Foul,Indirect free-kick,Direct free-kick,Corner,Yellow card,Red card,Yellow->red card",
        ),
        _set(
            "v1",
            "card,subs,soccer",
            {"y-card": 0, "r-card": 0, "yr-card": 0, "substitution-in": 1, "soccer-ball": 2, "soccer-ball-own": 2},
            label_file="Labels.json",
            visibility=False,
        ),
        _set("ball", "PASS,DRIVE", framerate=25, metrics=("at1",), label_file="Labels-ball.json"),
    )
}
V2 = SETS["v2"]
_CLASSES_EXPECTED = (
    'v1, v2, ball, a comma list of labels ("Goal,Corner") or a JSON file of labels to class '
    'indices 0, 1, ... ({"Goal": 0, "Corner": 1})'
)


def _label_error(path: str, text: str, label: str, problem: str) -> InputError:
    """An error on ``label``'s entry in a JSON file of labels, at the line it first appears on."""
    line = text.count("\n", 0, max(0, text.find(json.dumps(label)))) + 1
    return InputError(
        path, f"{json.dumps(label, ensure_ascii=False)} {problem}", line=line, text=text.split("\n")[line - 1].strip()
    )


def class_set(spec: str) -> ClassSet:
    """The set ``spot --classes`` names: a named set, a JSON file (label to class index), or a comma list."""
    if spec in SETS:
        return SETS[spec]
    if "," not in spec and (spec.endswith(".json") or os.path.isfile(spec)):
        text = read_text(spec)
        doc = load_document(spec, text, _CLASSES_EXPECTED)
        if not isinstance(doc, dict) or not doc:
            raise InputError(spec, f"is {json.dumps(doc)[:60]}, not an object of labels; expected {_CLASSES_EXPECTED}")
        names = {i: label for label, i in reversed(doc.items())}  # each class named by its first label
        for label, index in doc.items():
            if type(index) is not int or not 0 <= index < len(names):
                raise _label_error(
                    spec,
                    text,
                    label,
                    f"maps to {json.dumps(index)}; expected a class index from 0 "
                    f"to {len(names) - 1}, each used (several labels may share one)",
                )
        return ClassSet(spec, tuple(names[i] for i in range(len(names))), dict(doc))
    labels = [label.strip() for label in spec.split(",")]
    if not all(labels) or len(set(labels)) < len(labels):
        raise ParameterError(
            f"The 'classes' parameter must be {_CLASSES_EXPECTED}, each label once and none "
            f"empty. Got {spec!r} instead."
        )
    return _set(spec, ",".join(labels))


PREDICTION_FILE = "results_spotting.json"

_GAME_TIME = re.compile(r"([0-9]).*([0-9][0-9]):([0-9][0-9])", re.DOTALL)

_GT_EXPECTED = (
    'a SoccerNet Labels-v2.json: {"annotations": [{"gameTime": "1 - 00:08", "label": ..., '
    '"position": "8194", "visibility": "visible"}, ...]}'
)
_PRED_EXPECTED = (
    'a SoccerNet results_spotting.json: {"predictions": [{"label": ..., "position": "8034", '
    '"half": "1", "confidence": "0.059"}, ...]}'
)


@dataclass(frozen=True)
class Event:
    """One ground-truth annotation: half (1, 2), class index, position in ms, visible or "not shown"."""

    half: int
    cls: int
    position_ms: int
    visible: bool
    #: no ``position``: the frame comes from the whole seconds of ``gameTime`` (official)
    seconds: int | None = None


@dataclass(frozen=True)
class Prediction:
    """One prediction: half (1, 2), class index, position in ms, confidence (float64 as NumPy reads it)."""

    half: int
    cls: int
    position_ms: int
    confidence: float


@dataclass
class Game:
    """One game: its name (the relative folder, or the file name for a single pair), events and predictions."""

    name: str
    events: list[Event] = field(default_factory=list)
    predictions: list[Prediction] = field(default_factory=list)


@dataclass
class Spotting:
    """Every game of an evaluation, in the order of their names, and the notes reading them gave."""

    games: list[Game]
    notes: list[str]
    classes: ClassSet = field(default_factory=lambda: V2)


class _Document:
    """One JSON file's records (``doc[key]``), with errors that name the file, the record and its line."""

    def __init__(self, path: str, key: str, expected: str) -> None:
        self.path, self.key, self.expected = path, key, expected
        self.text = read_text(path, head=document_head(path, expected))
        doc = load_document(path, self.text, expected)
        if not isinstance(doc, dict) or key not in doc:
            raise InputError(path, f'has no "{key}" key at the top level; expected {expected}')
        if not isinstance(doc[key], list):
            raise InputError(path, f'"{key}" is {type(doc[key]).__name__}, not a list; expected {expected}')
        self.records: list[Any] = doc[key]

    def error(self, index: int, problem: str) -> InputError:
        """The error on record ``index``, at the line where it starts (found again: slow, for errors only)."""
        starts: dict[int, int] = {}

        def visit(pairs: list[tuple[str, Any]], start: int, end: int) -> dict[str, Any]:
            value = dict(pairs)
            starts[id(value)] = start
            return value

        try:
            start = starts.get(id(walk_objects(self.text, visit)[self.key][index]))
        except (LookupError, TypeError):
            start = None
        line = None if start is None else self.text.count("\n", 0, start) + 1  # an object's line (not a value's)
        text = None if line is None else self.text.split("\n")[line - 1].strip()
        where = f"{self.key}[{index}]"
        if line is None or text is None or len(text) < 3:  # the object opens a line of its own
            shown = json.dumps(self.records[index], ensure_ascii=False)
            shown = shown if len(shown) <= 200 else shown[:200] + "..."
            return InputError(self.path, f"{where} ({shown}): {problem}", line=line)
        return InputError(self.path, f"{where}: {problem}", line=line, text=text)

    def field(self, index: int, record: Any, name: str) -> Any:
        if not isinstance(record, dict):
            raise self.error(index, f"is {type(record).__name__}, not an object; expected {self.expected}")
        if name not in record:
            raise self.error(index, f'has no "{name}" key; expected {self.expected}')
        return record[name]


def _position(doc: _Document, index: int, value: Any) -> int:
    """A position in ms >= 0, an integer or its text (a JSON fraction truncated, as ``int()``)."""
    ms = parse_int(value) if isinstance(value, str) else int(value) if is_number(value) else None
    if ms is None:
        raise doc.error(
            index, f'"position" is {json.dumps(value)}; expected milliseconds, an integer or its text ({WHOLE})'
        )
    if ms < 0:
        raise doc.error(
            index,
            f'"position" is {json.dumps(value)}: negative; expected milliseconds >= 0 (the '
            f"official evaluator would put it on a frame counted from the half's end)",
        )
    return ms


def _half(doc: _Document, index: int, value: Any, what: str) -> int:
    half = parse_int(value) if isinstance(value, str) else value if type(value) is int else None
    if half not in (1, 2):
        raise doc.error(
            index,
            f"{what} is {json.dumps(value)}; expected half 1 or 2 (the official evaluator "
            f"drops any other half silently)",
        )
    return int(half)


class _Labels:
    """Labels outside the class set, counted for one note per file (the official skips them)."""

    def __init__(self, classes: ClassSet) -> None:
        self.classes, self.unknown = classes, Counter[str]()

    def index(self, doc: _Document, index: int, value: Any) -> int | None:
        if not isinstance(value, str):
            raise doc.error(
                index, f'"label" is {json.dumps(value)}; expected a label of --classes {self.classes.name} as text'
            )
        cls = self.classes.labels.get(value)
        if cls is None:
            self.unknown[value] += 1
        return cls

    def notes(self, path: str, what: str) -> list[str]:
        if not self.unknown:
            return []
        listed = ", ".join(f"{json.dumps(k, ensure_ascii=False)} ({n})" for k, n in self.unknown.most_common(5))
        more = f" and {len(self.unknown) - 5} more" if len(self.unknown) > 5 else ""
        n = plural(len(self.classes.classes), "class", "classes")
        return [
            f"{path}: {plural(sum(self.unknown.values()), what)} with a label outside the {n} of --classes "
            f"{self.classes.name} skipped, as the official evaluator skips them: {listed}{more}"
        ]


def read_labels(path: str, classes: ClassSet = V2) -> tuple[list[Event], list[str]]:
    """The events of one ``Labels-v2.json`` and the notes on it."""
    doc = _Document(path, "annotations", _GT_EXPECTED)
    labels = _Labels(classes)
    events: list[Event] = []
    odd_visibility: Counter[str] = Counter()
    for i, record in enumerate(doc.records):
        time = doc.field(i, record, "gameTime")
        label = doc.field(i, record, "label")
        match = _GAME_TIME.fullmatch(time.strip()) if isinstance(time, str) else None
        if match is None:
            raise doc.error(i, f'"gameTime" is {json.dumps(time)}; expected "HALF - MM:SS" such as "1 - 00:08"')
        half = _half(doc, i, match.group(1), '"gameTime"\'s half')
        cls = labels.index(doc, i, label)
        if "position" in record:
            ms, seconds = _position(doc, i, record["position"]), None
        else:
            ms, seconds = 0, int(match.group(3)) + 60 * int(match.group(2))
        visibility = record.get("visibility", "visible")
        if visibility not in ("visible", "not shown"):
            odd_visibility[json.dumps(visibility, ensure_ascii=False)] += 1
        if cls is not None:
            events.append(Event(half, cls, ms, visibility != "not shown", seconds))
    notes = labels.notes(path, "annotation")
    if odd_visibility:
        listed = ", ".join(f"{k} ({n})" for k, n in odd_visibility.most_common(5))
        notes.append(
            f'{path}: {plural(sum(odd_visibility.values()), "annotation")} with a "visibility" other than '
            f'"visible" or "not shown" counted as visible, as the official evaluator does: {listed}'
        )
    return events, notes


def _confidence(doc: _Document, index: int, value: Any) -> float:
    """The confidence as the official float64 vector holds it: a JSON number, or its text."""
    number = parse_float(value) if isinstance(value, str) else float(value) if is_number(value) else None
    if number is None:
        raise doc.error(
            index,
            f'"confidence" is {json.dumps(value)}; expected {NUMBER}, as text or a JSON number '
            "(the official evaluator drops a NaN prediction silently and keeps an infinite one "
            "above every threshold)",
        )
    return number


def read_predictions(path: str, classes: ClassSet = V2) -> tuple[list[Prediction], list[str]]:
    """The predictions of one ``results_spotting.json`` and the notes on it."""
    doc = _Document(path, "predictions", _PRED_EXPECTED)
    labels = _Labels(classes)
    predictions: list[Prediction] = []
    negative = 0
    for i, record in enumerate(doc.records):
        try:  # the common record: decimal text, checked without the error-wording helpers
            position, label = record["position"], record["label"]
            half_value, value = record["half"], record["confidence"]
            ms = _position(doc, i, position)
            half = 1 if half_value == "1" else 2 if half_value == "2" else _half(doc, i, half_value, '"half"')
            confidence = _confidence(doc, i, value)
            cls = classes.labels[label]
        except (KeyError, TypeError):  # a missing key, not an object, an unknown or unhashable label
            ms = _position(doc, i, doc.field(i, record, "position"))
            label = doc.field(i, record, "label")
            half = _half(doc, i, doc.field(i, record, "half"), '"half"')
            confidence = _confidence(doc, i, doc.field(i, record, "confidence"))
            found = labels.index(doc, i, label)
            if found is None:
                continue
            cls = found
        negative += confidence < 0
        predictions.append(Prediction(half, cls, ms, confidence))
    notes = labels.notes(path, "prediction")
    if negative:
        notes.append(
            f"{path}: {plural(negative, 'prediction')} with a negative confidence: no prediction, as in the "
            f"official evaluator (one still replaces an earlier prediction on its frame)"
        )
    return predictions, notes


# ------------------------------------------------------------------ games: one pair of files, or two folders


def _files(root: Path, name: str) -> dict[str, str]:
    """Every file called ``name`` under ``root`` (links followed, loops refused), by its folder's relative path."""
    found: dict[str, str] = {}
    read: set[str] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        if (real := os.path.realpath(folder)) in read:
            raise InputError(
                folder,
                f"is a symbolic link to a folder read already (a loop, or a game twice); "
                f"expected game folders (league/season/game/{name}) each reached once",
            )
        read.add(real)
        if name in files or os.path.lexists(os.path.join(folder, name)):
            found[Path(folder).relative_to(root).as_posix()] = regular_file(
                os.path.join(folder, name), f"a game's {name}"
            )
    return found


def read(
    truth: str,
    predictions: str,
    *,
    classes: ClassSet = V2,
    label_file: str | None = None,
    prediction_file: str = PREDICTION_FILE,
) -> Spotting:
    """The games of ``truth`` and ``predictions``: two files (one game) or two folders of games matched by
    their relative paths (docs/spotting.md).  ``label_file``: the set's by default."""
    label_file = classes.label_file if label_file is None else label_file
    for option, name in (("label_file", label_file), ("prediction_file", prediction_file)):
        if (why := bad_entry_name(name)) is not None:
            raise ParameterError(
                f"The '{option}' parameter must be a file name (the file each game folder holds). "
                f"Got {name!r} instead, which {why}."
            )
    gt_dir, pred_dir = os.path.isdir(truth), os.path.isdir(predictions)
    if gt_dir != pred_dir:
        raise InputError(
            truth if gt_dir else predictions,
            "is a folder but the other input is a file; expected two files (one game's "
            f"{label_file} and {prediction_file}) or two folders of games",
        )
    notes: list[str] = []
    if gt_dir:
        gt_files, pred_files = _files(Path(truth), label_file), _files(Path(predictions), prediction_file)
    else:  # one game, named by its folder
        game = Path(truth).parent.name or truth
        gt_files, pred_files = {game: truth}, {game: predictions}
    if not gt_files:
        raise InputError(
            truth,
            f"holds no {label_file} in any folder; expected games in SoccerNet's layout "
            f"(league/season/game/{label_file})",
        )
    missing = sorted(set(gt_files) - set(pred_files))
    if missing:
        raise InputError(
            predictions,
            f"has no {prediction_file} for {len(missing)} of {plural(len(gt_files), 'game')} "
            f"of {truth}; expected {os.path.join(predictions, missing[0], prediction_file)}"
            " (an empty list of predictions is written "
            '{"predictions": []})',
        )
    extra = sorted(set(pred_files) - set(gt_files))
    if extra:
        notes.append(
            f"{predictions}: {plural(len(extra), 'game')} with predictions but no {label_file} in "
            f"{truth} ignored (first: {extra[0]}), as the official evaluator ignores them"
        )
    games = []
    for name in sorted(gt_files):
        events, gt_notes = read_labels(gt_files[name], classes)
        preds, pred_notes = read_predictions(pred_files[name], classes)
        games.append(Game(name, events, preds))
        notes += gt_notes + pred_notes
    return _checked(Spotting(games, notes, classes))


def _checked(spotting: Spotting) -> Spotting:
    """``spotting``, or an error naming a class of a user's --classes that no file holds (a typo)."""
    classes = spotting.classes
    if classes.name in SETS:
        return spotting
    used = {e.cls for game in spotting.games for e in game.events} | {
        p.cls for game in spotting.games for p in game.predictions
    }
    unused = [name for i, name in enumerate(classes.classes) if i not in used]
    if unused and os.path.isfile(classes.name):
        raise _label_error(
            classes.name,
            read_text(classes.name),
            unused[0],
            "is the label of no event or prediction (a typo?); expected labels of the ground truth or the predictions",
        )
    if unused:
        raise ParameterError(
            f"The 'classes' parameter must name labels of the ground truth or the predictions. "
            f"Got {', '.join(map(repr, unused))} in {classes.name!r}, which no file holds."
        )
    return spotting
