"""Reading TVR files: the ground-truth JSON Lines and the submission JSON, every problem named."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.protocols.moments.reading import is_number, line_error, load_json, load_jsonl, record_error, shown
from segeval.readers.json_records import load_object

TASKS = ("VCMR", "SVMR", "VR")
TYPES = ("v", "t", "vt")
MAX_PREDICTIONS = 100
#: the official compares video indices as 32-bit floats: from 2**24 on, neighbours compare equal
MAX_VIDEO_INDEX = 2**24


@dataclass
class Query:
    """One ground-truth line: its id as written, video, moment(s) and description type."""

    desc_id: int | str
    video: str
    windows: FloatArray  # (1, 2), or (n >= 4, 2) for DiDeMo-style items
    type: str | None
    line: int


@dataclass
class Tvr:
    """Ground truth, the submission's video index and each task's first 100 [video index, start, end] per query."""

    queries: list[Query]
    video2idx: dict[str, int]
    predictions: dict[str, dict[str, FloatArray]] = field(default_factory=dict)
    empty: dict[str, list[str]] = field(default_factory=dict)  # task -> queries with an empty list
    unknown: dict[str, list[str]] = field(default_factory=dict)  # task -> ids not in the ground truth
    longer: dict[str, int] = field(default_factory=dict)  # task -> queries with more than 100 predictions
    reversed: dict[str, int] = field(default_factory=dict)  # task -> rows with end < start (used ones)


def key(desc_id: int | str) -> str:
    """The matching key of a desc_id: its JSON text, so 7 and "7" stay different (as in the official)."""
    return json.dumps(desc_id)


def _desc_id(value: Any, path: str, where: str, line: int | None = None, text: str | None = None) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError(
            path, f"{where}'desc_id' is {shown(value)}; expected an integer or a string", line=line, text=text
        )
    return value


def _moment(value: Any, path: str, line: int, text: str) -> FloatArray:
    def pair(w: Any) -> bool:
        return isinstance(w, list) and len(w) == 2 and all(is_number(x) for x in w)

    windows: list[Any] = [value] if pair(value) else value if isinstance(value, list) and len(value) >= 4 else [None]
    expected = "expected [start, end] or, DiDeMo-style, a list of at least 4 [start, end] pairs (one per annotator)"
    if not all(pair(w) for w in windows):
        raise line_error(path, line, text, f"'ts' is {shown(value)}; {expected}")
    for w in windows:
        if w[1] < w[0]:
            raise line_error(
                path, line, text, f"'ts' has the moment {json.dumps(w)} with end < start; expected start <= end"
            )
    return np.array(windows, dtype=np.float64).reshape(-1, 2)


def read_truth(path: str | Path) -> list[Query]:
    """TVR ground truth: one JSON object per line with ``desc_id``, ``vid_name``, ``ts`` and ``type``."""
    name = str(path)
    expected = "a JSON object with 'desc_id', 'vid_name', 'ts' and 'type'"

    def record(number: int, line: str) -> dict[str, Any]:
        """One line's object with its keys (the check of a stream's first record too)."""
        row = load_object(name, number, line)
        if not isinstance(row, dict):
            raise line_error(name, number, line, f"expected {expected}")
        missing = [k for k in ("desc_id", "vid_name", "ts") if k not in row]
        if missing:
            raise line_error(name, number, line, f"has no {', '.join(repr(k) for k in missing)}; expected {expected}")
        return row

    queries: list[Query] = []
    seen: dict[str, int] = {}
    for number, line, row in load_jsonl(path, "TVR ground truth as JSON Lines", record):
        text = line[:200]
        desc_id = _desc_id(row["desc_id"], name, "", number, text)
        if key(desc_id) in seen:
            twice = f"desc_id {desc_id} appears twice (first on line {seen[key(desc_id)]}); expected one line per query"
            raise line_error(name, number, text, twice)
        seen[key(desc_id)] = number
        if not isinstance(row["vid_name"], str):
            raise line_error(name, number, text, f"'vid_name' is {shown(row['vid_name'])}; expected a string")
        kind = row.get("type")
        if kind is not None and kind not in TYPES:
            raise line_error(name, number, text, f'\'type\' is {shown(kind)}; expected one of "v", "t", "vt"')
        queries.append(Query(desc_id, row["vid_name"], _moment(row["ts"], name, number, text), kind, number))
    typed = [q for q in queries if q.type is not None]
    if typed and len(typed) < len(queries):
        q = next(q for q in queries if q.type is None)
        raise InputError(
            name,
            "has no 'type' here but other lines have one; expected 'type' (v, t or vt) on every line or on none",
            line=q.line,
        )
    return queries


def _rows(value: Any, path: str, where: str) -> tuple[FloatArray, int]:
    """The first 100 predictions of one record as (n, 3) [video index, start, end], and the full count."""
    if not isinstance(value, list):
        raise record_error(
            path, where, f"'predictions' is {shown(value)}; expected a list of [video_index, start, end, score] lists"
        )
    used = value[:MAX_PREDICTIONS]
    try:
        arr = np.array(used)
        fast = arr.dtype.kind in "iuf" and arr.ndim == 2 and arr.shape[1] >= 3 and bool(np.isfinite(arr[:, :3]).all())
    except (ValueError, TypeError, OverflowError):
        fast = False
    # a boolean among the first three is no number (one among the scores is let through, as the score is unused)
    if fast and (
        bool not in set(map(type, chain.from_iterable(used)))
        or not any(isinstance(x, bool) for e in used for x in e[:3])
    ):
        return arr[:, :3].astype(np.float64).reshape(-1, 3), len(value)
    for n, e in enumerate(used):
        if not (isinstance(e, list) and len(e) >= 3 and all(is_number(x) for x in e[:3])):
            raise record_error(
                path,
                where,
                f"predictions[{n}] is {shown(e)}; expected [video_index, start, end, score] (3 finite numbers at "
                "least; the score is not used)",
            )
    return np.array([e[:3] for e in used], dtype=np.float64).reshape(-1, 3), len(value)


def read_submission(path: str | Path, queries: list[Query]) -> Tvr:
    """A TVR submission JSON: ``video2idx`` and any of ``VCMR``, ``SVMR``, ``VR``, each a list of
    ``{"desc_id", "predictions": [[video_index, start, end, score], ...]}`` records."""
    name = str(path)
    sub = load_json(path, "a TVR submission object", what="JSON")
    if not isinstance(sub, dict) or "video2idx" not in sub:
        raise InputError(name, "expected a JSON object with 'video2idx' and any of 'VCMR', 'SVMR', 'VR'")
    index = sub["video2idx"]
    if not isinstance(index, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < MAX_VIDEO_INDEX for v in index.values()
    ):
        raise InputError(
            name,
            f"'video2idx' must map video names to integers from 0 to {MAX_VIDEO_INDEX - 1} "
            "(the official compares them as 32-bit floats)",
        )
    if len(set(index.values())) < len(index):
        raise InputError(name, "'video2idx' gives two videos the same index; expected one index per video")
    tasks = [t for t in TASKS if t in sub]
    if not tasks:
        raise InputError(
            name,
            f"has none of 'VCMR', 'SVMR', 'VR' (keys: {', '.join(list(sub)[:6])}); expected "
            "at least one task's predictions",
        )
    data = Tvr(queries=queries, video2idx=index)
    truth = {key(q.desc_id) for q in queries}
    known = np.array(sorted(index.values()), dtype=np.float64)
    for task in tasks:
        _read_task(data, task, sub[task], name, truth, known)
    for q in queries:
        if q.video not in index:
            raise InputError(
                name,
                f"'video2idx' has no entry for the ground-truth video {q.video!r} (desc_id "
                f"{q.desc_id}, line {q.line} of the ground truth); expected every ground-truth "
                "video in it (the official script stops with a KeyError)",
            )
    return data


def _read_task(data: Tvr, task: str, records: Any, name: str, truth: set[str], known: FloatArray) -> None:
    """One task's records into ``data``: each query's first 100 predictions, and the empty, unknown, longer and
    reversed ones the notes count."""
    if not isinstance(records, list):
        raise InputError(
            name, f'\'{task}\' is {shown(records)}; expected a list of {{"desc_id", "predictions"}} objects'
        )
    preds: dict[str, FloatArray] = {}
    empty, unknown = [], []
    longer = reversed_rows = 0
    for n, record in enumerate(records):
        where = f"{task}[{n}]"
        if not isinstance(record, dict) or "desc_id" not in record or "predictions" not in record:
            raise InputError(name, f"{where} is {shown(record)}; expected an object with 'desc_id' and 'predictions'")
        desc_id = _desc_id(record["desc_id"], name, f"{where}: ")
        where += f" (desc_id {desc_id})"
        k = key(desc_id)
        if k in preds:
            raise record_error(
                name, where, f"desc_id {desc_id} appears twice in '{task}'; expected one record per query"
            )
        rows, count = _rows(record["predictions"], name, where)
        video = rows[:, 0]
        indexed = np.zeros(len(video), dtype=bool)
        if len(known):  # in ``known`` (sorted), as ``np.isin`` says, by a binary search
            indexed = known[np.minimum(np.searchsorted(known, video), len(known) - 1)] == video
        bad = np.flatnonzero((video != np.floor(video)) | ~indexed)
        if len(bad):
            raise record_error(
                name,
                where,
                f"predictions[{int(bad[0])}] names the video index {video[bad[0]]:g}, which is not in 'video2idx'; "
                "expected an index of video2idx",
            )
        preds[k] = rows
        if k not in truth:
            unknown.append(str(desc_id))
        if count == 0:
            empty.append(str(desc_id))
        longer += count > MAX_PREDICTIONS
        reversed_rows += int((rows[:, 2] < rows[:, 1]).sum()) if task != "VR" else 0
    data.predictions[task] = preds
    data.empty[task], data.unknown[task] = empty, unknown
    data.longer[task], data.reversed[task] = longer, reversed_rows


def read(truth: str, predictions: str) -> Tvr:
    """Read and check a TVR ground truth and submission."""
    return read_submission(predictions, read_truth(truth))
