"""Reading detection ground truth and predictions (ActivityNet and Ego4D MQ JSON, the THUMOS14 kit's folder and
detection file) into :class:`Truth` and :class:`Predictions`; bad inputs as docs/detection.md, "Bad inputs"."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray, IntArray
from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.protocols.moments.reading import is_number, load_json, record_error, shown
from segeval.readers.directories import bad_entry_name, regular_file
from segeval.readers.files import read_text
from segeval.readers.formats import read_number


@dataclass
class Truth:
    """The ground truth of the evaluated subset: its classes in order of first appearance, its videos in file
    order, and per instance (file order) ``video`` and ``label`` (indices into them), ``start``, ``end``."""

    path: str
    subset: str
    classes: list[str]
    videos: list[str]
    video: IntArray
    start: FloatArray
    end: FloatArray
    label: IntArray
    #: labels that occur only in other subsets (a prediction with one is named as such)
    other_labels: set[str] = field(default_factory=set)
    #: videos of the file in other subsets
    other_videos: set[str] = field(default_factory=set)
    #: THUMOS14 kit: the Ambiguous intervals, (video index, start, end)
    ambiguous: list[tuple[int, float, float]] = field(default_factory=list)
    #: THUMOS14 kit: the class ids of detclasslist.txt, in class order
    class_ids: list[int] = field(default_factory=list)
    #: JSON: every video key of the file (all subsets) in file order
    keys: list[str] = field(default_factory=list)


@dataclass
class Predictions:
    """Predictions in file order: ``video`` indexes ``videos`` (the truth's, then prediction-only ones), ``label``
    the truth's classes (-1 for proposals)."""

    path: str
    videos: list[str]
    video: IntArray
    start: FloatArray
    end: FloatArray
    label: IntArray
    score: FloatArray
    notes: list[str] = field(default_factory=list)
    #: JSON: the video (index into ``videos``) of each key of ``results``, in file order
    keys: list[int] = field(default_factory=list)

    @classmethod
    def of_rows(
        cls, path: str, videos: list[str], rows: list[tuple[int, float, float, int, float]], notes: list[str]
    ) -> Predictions:
        """The predictions of ``rows`` read as (video, start, end, label, score)."""
        video, start, end, label, score = np.array(rows, dtype=np.float64).reshape(-1, 5).T.copy()
        return cls(path, videos, video.astype(np.int64), start, end, label.astype(np.int64), score, notes)


def _segment(path: str, where: str, value: Any, what: str = "segment") -> tuple[float, float]:
    """``[start, end]``: two finite numbers with start < end."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_number(x) for x in value):
        raise record_error(path, where, f"{what} {shown(value)} is not [start, end]; expected two finite numbers")
    s, e = float(value[0]), float(value[1])
    _window(path, where, s, e)
    return s, e


def _window(
    path: str, where: str, s: float, e: float, line: int | None = None, text: str | None = None, kit: bool = False
) -> None:
    if e <= s:
        what = "ends before it starts (reversed)" if e < s else "has zero length"
        why = _WINDOW_WHY[kit, e < s]
        raise InputError(
            path, f"{where}: the window [{s!r}, {e!r}] {what}; {why}: expected start < end", line=line, text=text
        )


#: why a reversed or zero-length window is refused: (kit, reversed) -> what the official tool does with it
_WINDOW_WHY = {
    (True, True): "the kit swaps its ends (min, max)",
    (False, True): "the official code computes a negative length and a meaningless tIoU",
    (True, False): "the kit gives it overlap 0 with every window (never a hit)",
    (False, False): (
        "its tIoU is 0 with any other window and 0/0 = NaN with a zero-length one, which eval_detection.py "
        "counts as a match at every threshold and eval_proposal.py as no match"
    ),
}


def _object(path: str, data: Any, key: str | None, expected: str) -> dict[str, Any]:
    value = data if key is None else (data.get(key) if isinstance(data, dict) else None)
    if not isinstance(value, dict):
        where = "the file" if key is None else f"'{key}'"
        raise InputError(path, f"{where} is not an object; expected {expected}")
    return value


def _finish_truth(
    path: str,
    subset: str,
    rows: list[tuple[str, float, float, str]],
    videos: list[str],
    other_labels: set[str],
    other_videos: set[str],
    subsets: set[str] | None = None,
) -> Truth:
    """The truth of ``rows`` (video, start, end, label); none is an error (naming the file's ``subsets``, if any)."""
    if not rows:
        listed = "" if subsets is None else f" (subsets in the file: {', '.join(map(repr, sorted(subsets))) or 'none'})"
        raise InputError(path, f"has no ground-truth instance in subset {subset!r}; expected at least one{listed}")
    classes = {label: i for i, label in enumerate(dict.fromkeys(r[3] for r in rows))}
    index = {v: i for i, v in enumerate(videos)}
    video = np.array([index[r[0]] for r in rows], dtype=np.int64)
    label = np.array([classes[r[3]] for r in rows], dtype=np.int64)
    start, end = np.array([r[1:3] for r in rows], dtype=np.float64).T.copy()
    return Truth(
        path, subset, list(classes), videos, video, start, end, label, other_labels - set(classes), other_videos
    )


def read_activitynet_truth(path: str, subset: str, *, ignore_case: bool = False, ego4d: bool = False) -> Truth:
    """ActivityNet's ground truth, or Ego4D MQ's; ``ignore_case``: subsets compared as ActionFormer's loader does."""
    expected = (
        "Ego4D MQ ground truth {video: {subset, annotations: [{start_time, end_time, label}]}}"
        if ego4d
        else "ActivityNet ground truth {database: {video: {subset, annotations: [{segment, label}]}}}"
    )
    data = load_json(path, expected)
    database = _object(path, data, None if ego4d else "database", expected)
    rows: list[tuple[str, float, float, str]] = []
    videos: list[str] = []
    other_labels: set[str] = set()
    other_videos: set[str] = set()
    subsets: set[str] = set()
    want = subset.lower() if ignore_case else subset
    for video, entry in database.items():
        where = f"database[{shown(video)}]" if not ego4d else f"[{shown(video)}]"
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("subset"), str)
            or not isinstance(entry.get("annotations"), list)
        ):
            raise record_error(path, where, "expected an object with 'subset' (text) and 'annotations' (a list)")
        name = entry["subset"]
        subsets.add(name)
        inside = name in want if ego4d else (name.lower() if ignore_case else name) == want
        if inside:
            videos.append(video)
        else:
            other_videos.add(video)
        for k, ann in enumerate(entry["annotations"]):
            at = f"{where}['annotations'][{k}]"
            if not isinstance(ann, dict) or not isinstance(ann.get("label"), str):
                raise record_error(path, at, f"{shown(ann)} has no text 'label'; expected an annotation object")
            if not inside:
                other_labels.add(ann["label"])
                continue
            if ego4d:
                s, e = _segment(path, at, [ann.get("start_time"), ann.get("end_time")], "start_time/end_time")
            else:
                s, e = _segment(path, at, ann.get("segment"))
            rows.append((video, s, e, ann["label"]))
    truth = _finish_truth(path, subset, rows, videos, other_labels, other_videos, subsets)
    truth.keys = list(database)
    return truth


class _VideoTable:
    """Video names to indices: the truth's, then prediction-only ones, with a count of the latter."""

    def __init__(self, truth: Truth) -> None:
        self.names = list(truth.videos)
        self.index = {v: i for i, v in enumerate(truth.videos)}
        self.known = len(self.names)
        self.other = truth.other_videos

    def get(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def notes(self, what: str, proposals: bool = False) -> list[str]:
        extra = self.names[self.known :]
        if not extra:
            return []
        fate = (
            (
                "not evaluated, but they count in the total that sets each video's budget (ratio = AN x videos / "
                "proposals), as the official code counts them"
            )
            if proposals
            else "false positives, as the official code counts them"
        )
        unknown = ([v for v in extra if v not in self.other], "not in the ground truth")
        other = ([v for v in extra if v in self.other], "from another subset")
        return [
            f"{plural(len(group), 'video')} of the {what} {where} (e.g. {group[0]!r}): their {what} are {fate}"
            for group, where in (unknown, other)
            if group
        ]


def read_activitynet_predictions(
    path: str, truth: Truth, *, skip_unknown: bool = False, labels: bool = True
) -> Predictions:
    """ActivityNet's predictions (``labels=False``: proposals); a label outside the truth's classes is an error,
    or with ``skip_unknown`` skipped with a note (the Ego4D port)."""
    expected = (
        "a submission {results: {video: [{segment, label, score}]}}"
        if labels
        else "a proposal submission {results: {video: [{segment, score}]}}"
    )
    data = load_json(path, expected)
    results = _object(path, data, "results", expected)
    classes = {c: i for i, c in enumerate(truth.classes)}
    table = _VideoTable(truth)
    rows: list[tuple[int, float, float, int, float]] = []
    skipped: dict[str, int] = {}
    keys = []
    for video, items in results.items():
        if not isinstance(items, list):
            raise record_error(path, f"results[{shown(video)}]", f"is {shown(items)}; expected a list of predictions")
        v = table.get(video)
        keys.append(v)
        for k, item in enumerate(items):
            try:  # the common case without building messages: then the checks that name the problem
                seg, score = item["segment"], item["score"]
                st, en = seg
                good = type(st) in _NUMBER and type(en) in _NUMBER and type(score) in _NUMBER
                good = good and st - st == en - en == score - score == 0 and st < en  # finite, in order
                label = item["label"] if labels else None
            except (TypeError, KeyError, ValueError):
                good = False
            if not good or (labels and type(label) is not str):
                _check_prediction(path, f"results[{shown(video)}][{k}]", item, labels)
            c = -1
            if labels:
                name = str(label)
                c = classes.get(name, -1)
                if c < 0:
                    if skip_unknown:
                        skipped[name] = skipped.get(name, 0) + 1
                        continue
                    raise record_error(path, f"results[{shown(video)}][{k}]", unknown_label(name, truth))
            rows.append((v, float(st), float(en), c, float(score)))
    notes = table.notes("predictions" if labels else "proposals", proposals=not labels)
    if skipped:
        first = next(iter(skipped))
        notes.append(
            f"{plural(sum(skipped.values()), 'prediction')} with {plural(len(skipped), 'label')} not in the "
            f"ground truth (e.g. {first!r}) skipped, as the Ego4D MQ port does"
        )
    p = Predictions.of_rows(path, table.names, rows, notes)
    p.keys = keys
    return p


_NUMBER = (int, float)


def _check_prediction(path: str, where: str, item: Any, labels: bool) -> None:
    """The error for a prediction that the fast path did not accept."""
    if not isinstance(item, dict):
        raise record_error(path, where, f"is {shown(item)}; expected an object with segment and score")
    _segment(path, where, item.get("segment"))
    score = item.get("score")
    if not is_number(score):
        raise record_error(path, where, f"the score {shown(score)} is not a number; expected a finite number")
    if labels and not isinstance(item.get("label"), str):
        raise record_error(path, where, f"the label {shown(item.get('label'))} is not text; expected a class name")
    raise record_error(path, where, f"{shown(item)} is not a prediction; expected segment, score and label")


def unknown_label(label: str, truth: Truth) -> str:
    """The message for a predicted label that is not a class of the evaluated subset."""
    why = f"the label {label!r} is not a class of the ground truth"
    if label in truth.other_labels:
        why = (
            f"the label {label!r} has no ground-truth instance in subset {truth.subset!r} (it occurs only in "
            "other subsets)"
        )
    shown_classes = ", ".join(repr(c) for c in truth.classes[:5]) + (", ..." if len(truth.classes) > 5 else "")
    return (
        f"{why}; the official eval_detection.py stops with a KeyError: expected one of the "
        f"{plural(len(truth.classes), 'class', 'classes')} of subset {truth.subset!r} ({shown_classes})"
    )


# ----------------------------------------------------------------------------------------- THUMOS14 kit


def _kit_lines(path: str, fields: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, line, its white-space separated fields) of each non-blank line of a kit file, each line with
    as many fields as ``fields`` names."""
    width = len(fields.split())
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != width:
            raise InputError(path, f"expected '{fields}'", line=number, text=line)
        yield number, line, parts


def read_kit_truth(folder: str, subset: str) -> Truth:
    """The THUMOS14 kit's annotation folder: ``detclasslist.txt`` and ``<Class>_<subset>.txt`` files."""
    root = Path(folder)
    listing = root / "detclasslist.txt"
    if not root.is_dir():
        raise InputError(
            folder,
            "is not a THUMOS14 annotation folder; expected a folder with detclasslist.txt and "
            f"<Class>_{subset}.txt files",
        )
    regular_file(str(listing), f"the kit's class list in the annotation folder {folder}")
    ids: list[int] = []
    names: list[str] = []
    for number, line, parts in _kit_lines(str(listing), "class-id class-name"):
        cid = read_number(parts[0], str(listing), "the class id", whole=True, minimum=0, line=number, shown=line)
        if (why := bad_entry_name(f"{parts[1]}_{subset}.txt")) is not None:
            raise InputError(
                str(listing),
                f"the class name {parts[1]!r} {why}; expected a name of a file in the "
                "annotation folder (the kit would read a file outside it)",
                line=number,
                text=line,
            )
        if cid in ids or parts[1] in names:
            what = f"the class id {parts[0]!r}" if cid in ids else f"the class name {parts[1]!r}"
            raise InputError(str(listing), f"{what} is listed twice; expected each class once", line=number, text=line)
        ids.append(cid)
        names.append(parts[1])
    if not names:
        raise InputError(str(listing), "lists no class; expected 'class-id class-name' lines")
    rows: list[tuple[str, float, float, str]] = []
    videos: dict[str, int] = {}
    ambiguous: list[tuple[str, float, float]] = []
    for name in [*names, "Ambiguous"]:
        path = root / f"{name}_{subset}.txt"
        regular_file(
            str(path),
            f"a ground-truth file: the kit needs one for every class of detclasslist.txt and "
            f"Ambiguous (subset {subset!r})",
        )
        for number, line, (video, start, end) in _kit_lines(str(path), "video t1 t2"):
            s = read_number(start, str(path), "the start", line=number, shown=line)
            e = read_number(end, str(path), "the end", line=number, shown=line)
            _window(str(path), "the interval", s, e, number, line, kit=True)
            videos.setdefault(video, len(videos))
            if name == "Ambiguous":
                ambiguous.append((video, s, e))
            else:
                rows.append((video, s, e, name))
    truth = _finish_truth(folder, subset, rows, list(videos), set(), set())
    empty = [n for n in names if n not in truth.classes]
    if empty:
        raise InputError(
            str(root / f"{empty[0]}_{subset}.txt"),
            "has no instance; the kit stops on a class without ground truth (assert(npos>0)): "
            "expected at least one 'video t1 t2' line",
        )
    order = [names.index(c) for c in truth.classes]
    truth.class_ids = [ids[i] for i in order]
    truth.ambiguous = [(videos[v], s, e) for v, s, e in ambiguous]
    return truth


def read_kit_detections(path: str, truth: Truth) -> Predictions:
    """The kit's ``video t1 t2 classid confidence`` lines (``.mp4`` stripped from video names, as the kit)."""
    by_id = {cid: i for i, cid in enumerate(truth.class_ids)}
    table = _VideoTable(truth)
    rows: list[tuple[int, float, float, int, float]] = []
    for number, line, parts in _kit_lines(path, "video t1 t2 classid confidence"):
        s = read_number(parts[1], path, "the start", line=number, shown=line)
        e = read_number(parts[2], path, "the end", line=number, shown=line)
        _window(path, "the detection", s, e, number, line, kit=True)
        cid = read_number(parts[3], path, "the class id", whole=True, line=number, shown=line)
        if cid not in by_id:
            raise InputError(
                path,
                f"the class id {parts[3]!r} is not in detclasslist.txt (the kit warns and "
                f"scores nothing for it); expected one of {sorted(by_id)}",
                line=number,
                text=line,
            )
        score = read_number(parts[4], path, "the confidence", line=number, shown=line)
        rows.append((table.get(parts[0].replace(".mp4", "")), s, e, by_id[cid], score))
    if not rows:
        raise InputError(path, "has no detection; expected 'video t1 t2 classid confidence' lines")
    return Predictions.of_rows(path, table.names, rows, table.notes("detections"))


def duplicate_note(p: Predictions) -> list[str]:
    """A note counting the predictions identical to an earlier one (kept, as the official code keeps them)."""
    if len(p.video) < 2:
        return []
    rows = np.stack([p.video.astype(np.float64), p.label.astype(np.float64), p.start, p.end, p.score], axis=1)
    distinct = len(np.unique(rows, axis=0))
    if distinct == len(rows):
        return []
    return [
        f"{plural(len(rows) - distinct, 'prediction')} repeat an earlier one exactly (video, label, window, "
        "score); kept as the official code keeps them: a repeat can only take another instance or be a false "
        "positive"
    ]
