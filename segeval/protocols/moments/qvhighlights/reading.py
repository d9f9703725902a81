"""QVHighlights' ground truth and predictions JSON Lines (the recall protocol reads them too), checked as the
official evaluator reads them."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.words import plural
from segeval.protocols.moments.charades import by_sentence, read_charades
from segeval.protocols.moments.detect import is_charades
from segeval.protocols.moments.reading import is_number, line_error, shown
from segeval.readers.json_records import read_moment_jsonl

CLIP_SECONDS = 2
BULK_CLIPS = 50_000_000  # more clips in all are read query by query
MAX_CLIPS = 2**20  # a longer video (over 24 days) is refused: its clip score matrices would not fit in memory


@dataclass
class Moments:
    """Per query (each file's order): ground-truth windows, predicted (start, end, score) rows, the (clips, 3)
    annotator saliency matrix and the predicted score per clip."""

    truth: dict[str, FloatArray] = field(default_factory=dict)
    predictions: dict[str, FloatArray] = field(default_factory=dict)
    videos: dict[str, str] = field(default_factory=dict)
    saliency: dict[str, FloatArray] = field(default_factory=dict)
    pred_saliency: dict[str, FloatArray] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    #: predicted qids written otherwise than the ground truth's they equal (``5.0`` for ``5``), as JSON
    respelled: list[str] = field(default_factory=list)
    moments: bool = True
    highlights: bool = False


_NUMBER_LIKE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|-?inf|nan|true|false|null|\".*")


def qid_key(value: Any) -> str:
    """The key of a qid, equal for two qids exactly when Python finds them equal (the official matching):
    ``5``, ``5.0`` and ``true``/``1`` are one query; a string that reads like a number stays quoted."""
    if isinstance(value, bool | int):
        return str(int(value))
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return json.dumps(value) if _NUMBER_LIKE.fullmatch(value) else value
    return json.dumps(value, sort_keys=True)


def _finite_numbers(values: list[Any]) -> bool:
    """Whether every item is a finite int or float (not a bool), as ``is_number`` decides, checked in bulk."""
    if set(map(type, values)) <= {int, float}:
        try:
            return bool(np.isfinite(np.array(values, dtype=np.float64)).all())
        except OverflowError:  # an integer beyond the float range
            return False
    return all(is_number(x) for x in values)


def _windows(value: Any, width: int, path: str, number: int, text: str, key: str) -> FloatArray:
    bulk = _bulk_windows([value], width)
    if bulk is not None:
        return bulk[0]
    shape = "[start, end, score]" if width == 3 else "[start, end]"
    if not isinstance(value, list):
        raise line_error(path, number, text, f"'{key}' must be a list of {shape} lists")
    for w in value:
        if not (isinstance(w, list) and len(w) == width and all(is_number(x) for x in w)):
            raise line_error(
                path,
                number,
                text,
                f"'{key}' has the window {shown(w)}; expected every window as {shape} with {width} finite numbers",
            )
    return np.array(value, dtype=np.float64).reshape(-1, width)


def _saliency(row: dict[str, Any], path: str, number: int, text: str) -> FloatArray:
    """The official full-video score matrix: (int(duration / 2) clips, 3 annotators), zeros elsewhere."""
    duration: Any = row.get("duration")
    ids, scores = row.get("relevant_clip_ids"), row.get("saliency_scores")
    if not is_number(duration) or duration < CLIP_SECONDS:
        raise line_error(
            path,
            number,
            text,
            f"'duration' is {json.dumps(duration)}; expected a number >= {CLIP_SECONDS} "
            "(seconds) for highlight detection",
        )
    clips = int(duration / CLIP_SECONDS)
    if clips > MAX_CLIPS:
        raise line_error(
            path,
            number,
            text,
            f"'duration' is {json.dumps(duration)}; expected less than {(MAX_CLIPS + 1) * CLIP_SECONDS} seconds "
            f"(at most {MAX_CLIPS} clips) for highlight detection",
        )
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise line_error(
            path, number, text, "'relevant_clip_ids' must be a list of integer clip ids for highlight detection"
        )
    bad = [i for i in ids if not 0 <= i < clips]
    if bad:
        raise line_error(
            path,
            number,
            text,
            f"'relevant_clip_ids' holds {bad[0]}; expected clip ids from 0 to {clips - 1} "
            f"(duration {duration} s in {CLIP_SECONDS}-second clips)",
        )
    if len(set(ids)) != len(ids):
        raise line_error(path, number, text, "'relevant_clip_ids' names a clip twice; expected each clip once")
    if not (
        isinstance(scores, list)
        and len(scores) == len(ids)
        and all(isinstance(s, list) and len(s) == 3 for s in scores)
        and _finite_numbers(list(chain.from_iterable(scores)))
    ):
        raise line_error(
            path,
            number,
            text,
            f"'saliency_scores' must hold one [a, b, c] list of 3 numbers per relevant clip "
            f"({plural(len(ids), 'clip')})",
        )
    full = np.zeros((clips, 3))
    if ids:
        full[np.array(ids)] = np.array(scores)
    return full


def _bulk_windows(values: list[Any], width: int) -> list[FloatArray] | None:
    """Every row's windows as ``_windows`` reads them, checked and converted at once (views of one array);
    None when any row fails a check (``_windows`` then names the row)."""
    if not set(map(type, values)) <= {list}:
        return None
    windows = list(chain.from_iterable(values))
    if not (set(map(type, windows)) <= {list} and set(map(len, windows)) <= {width}):
        return None
    flat = list(chain.from_iterable(windows))
    if not set(map(type, flat)) <= {int, float}:
        return None
    try:
        array = np.array(flat, dtype=np.float64).reshape(-1, width)
    except OverflowError:
        return None
    if not np.isfinite(array).all():
        return None
    return _split(array, list(map(len, values)))


def _bulk_saliency(rows: list[dict[str, Any]]) -> list[FloatArray] | None:
    """Every row's saliency matrix as ``_saliency`` reads it, checked and built at once (views of one array);
    None when any row fails a check (``_saliency`` then names the row)."""
    durations: list[Any] = [row.get("duration") for row in rows]
    ids: list[Any] = [row.get("relevant_clip_ids") for row in rows]
    scores: list[Any] = [row.get("saliency_scores") for row in rows]
    if not (
        set(map(type, durations)) <= {int, float}
        and set(map(type, ids)) <= {list}
        and set(map(type, scores)) <= {list}
        and list(map(len, ids)) == list(map(len, scores))
    ):
        return None
    try:
        if not all(math.isfinite(d) and d >= CLIP_SECONDS for d in durations):
            return None
        clips = np.array([int(d / CLIP_SECONDS) for d in durations], dtype=np.int64)
    except OverflowError:
        return None
    flat_ids, triples = list(chain.from_iterable(ids)), list(chain.from_iterable(scores))
    if not (
        set(map(type, flat_ids)) <= {int}
        and set(map(type, triples)) <= {list}
        and set(map(len, triples)) <= {3}
        and clips.max(initial=0) <= MAX_CLIPS
        and clips.sum() <= BULK_CLIPS
    ):
        return None
    flat_scores = list(chain.from_iterable(triples))
    if not set(map(type, flat_scores)) <= {int, float}:
        return None
    try:
        clip = np.array(flat_ids, dtype=np.int64)
        values = np.array(flat_scores, dtype=np.float64).reshape(-1, 3)
    except OverflowError:
        return None
    counts = list(map(len, ids))
    offsets = np.cumsum(clips) - clips
    at = np.repeat(offsets, counts) + clip
    if not (
        (clip >= 0).all()
        and (clip < np.repeat(clips, counts)).all()
        and np.isfinite(values).all()
        and (np.diff(np.sort(at)) != 0).all()
    ):
        return None
    full = np.zeros((int(clips.sum()), 3))
    full[at] = values
    return _split(full, clips.tolist())


def _bulk_scores(values: list[Any]) -> list[FloatArray] | None:
    """Every row's ``pred_saliency_scores`` (non-empty lists of finite numbers) at once, in float64; None when
    any row fails a check, or holds an integer that float64 does not represent exactly."""
    if not (set(map(type, values)) <= {list} and all(values)):
        return None
    flat = list(chain.from_iterable(values))
    kinds = set(map(type, flat))
    if not kinds <= {int, float}:
        return None
    try:
        array = np.array(flat, dtype=np.float64)
    except OverflowError:
        return None
    # np.array(scores) per row keeps integers as integers: the same values in float64 below 2**53
    exact = int not in kinds or bool((np.abs(array) < 2.0**53).all())
    return _split(array, list(map(len, values))) if exact and np.isfinite(array).all() else None


def _split(array: FloatArray, counts: list[int]) -> list[FloatArray]:
    """``array`` cut into consecutive pieces of ``counts`` rows."""
    ends = np.cumsum(counts).tolist()
    return [array[end - n : end] for n, end in zip(counts, ends, strict=True)]


def read_moments(truth_path: str | Path, predictions_path: str | Path) -> Moments:
    """QVHighlights JSON Lines (or Charades-STA's text as the ground truth): ground truth and submission."""
    m = Moments()
    tname, pname = str(truth_path), str(predictions_path)
    charades = is_charades(truth_path)
    truth_rows = read_charades(truth_path) if charades else read_moment_jsonl(truth_path)
    pred_rows = read_moment_jsonl(predictions_path)
    if charades:
        pred_rows = by_sentence(truth_rows, pred_rows, pname)
    m.moments = any("pred_relevant_windows" in row for _, _, row in pred_rows)
    m.highlights = any("pred_saliency_scores" in row for _, _, row in pred_rows)
    if not (m.moments or m.highlights):
        raise line_error(
            pname,
            *pred_rows[0][:2],
            "has neither 'pred_relevant_windows' nor 'pred_saliency_scores'; expected QVHighlights predictions",
        )
    truth_windows = _bulk_windows([row.get("relevant_windows", []) for _, _, row in truth_rows], 2)
    saliency = _bulk_saliency([row for _, _, row in truth_rows]) if m.highlights else None
    spelling: dict[str, str] = {}
    for n, (number, text, row) in enumerate(truth_rows):
        qid = qid_key(row["qid"])
        spelling[qid] = json.dumps(row["qid"])
        if qid in m.truth:
            raise line_error(tname, number, text, f"query {qid} appears twice; expected one line per query")
        m.truth[qid] = (
            truth_windows[n]
            if truth_windows is not None
            else _windows(row.get("relevant_windows", []), 2, tname, number, text, "relevant_windows")
        )
        m.videos[qid] = str(row.get("vid", ""))
        if m.highlights:
            m.saliency[qid] = saliency[n] if saliency is not None else _saliency(row, tname, number, text)
    pred_windows = (
        _bulk_windows([row.get("pred_relevant_windows", []) for _, _, row in pred_rows], 3) if m.moments else None
    )
    pred_scores = _bulk_scores([row.get("pred_saliency_scores") for _, _, row in pred_rows]) if m.highlights else None
    for n, (number, text, row) in enumerate(pred_rows):
        qid = qid_key(row["qid"])
        if qid in m.predictions or qid in m.pred_saliency:
            raise line_error(pname, number, text, f"query {qid} appears twice; expected one line per query")
        if qid not in m.truth:
            m.unknown.append(qid)
        elif json.dumps(row["qid"]) != spelling[qid]:
            m.respelled.append(f"{json.dumps(row['qid'])} for {spelling[qid]}")
        if m.moments:
            m.predictions[qid] = (
                pred_windows[n]
                if pred_windows is not None
                else _windows(row.get("pred_relevant_windows", []), 3, pname, number, text, "pred_relevant_windows")
            )
        if m.highlights:
            m.pred_saliency[qid] = pred_scores[n] if pred_scores is not None else _scores(row, pname, number, text)
    return m


def _scores(row: dict[str, Any], path: str, number: int, text: str) -> FloatArray:
    scores = row.get("pred_saliency_scores")
    if not (isinstance(scores, list) and scores and _finite_numbers(scores)):
        raise line_error(
            path,
            number,
            text,
            f"'pred_saliency_scores' must be a non-empty list of finite numbers, one per {CLIP_SECONDS}-second clip "
            "(other lines have it)",
        )
    return np.array(scores)
