"""QVHighlights' ground truth and predictions JSON Lines (the recall protocol reads them too), checked as the
official evaluator reads them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.protocols.moments.detect import by_sentence, is_charades, read_charades
from segeval.protocols.moments.reading import as_windows, is_number, line_error, load_jsonl, shown
from segeval.readers.json_records import load_object


def read_moment_jsonl(path: str | Path) -> list[tuple[int, str, dict[str, Any]]]:
    """JSON Lines of moment retrieval (QVHighlights): (line number, line, object with a ``qid``) of each record."""
    name = str(path)

    def record(number: int, line: str) -> dict[str, Any]:
        value = load_object(name, number, line)
        if not isinstance(value, dict) or "qid" not in value:
            raise InputError(name, "expected a JSON object with a 'qid'", line=number, text=line[:200])
        return value

    return load_jsonl(path, "JSON Lines", record)


CLIP_SECONDS = 2
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


def _windows(value: Any, width: int, path: str, number: int, text: str, key: str) -> FloatArray:
    windows = as_windows(value, width)
    if windows is not None:
        return windows
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

    def bad(problem: str) -> InputError:
        return line_error(path, number, text, problem)

    if not is_number(duration) or duration < CLIP_SECONDS:
        raise bad(
            f"'duration' is {json.dumps(duration)}; expected a number >= {CLIP_SECONDS} "
            "(seconds) for highlight detection"
        )
    clips = int(duration / CLIP_SECONDS)
    if clips > MAX_CLIPS:
        raise bad(
            f"'duration' is {json.dumps(duration)}; expected less than {(MAX_CLIPS + 1) * CLIP_SECONDS} seconds "
            f"(at most {MAX_CLIPS} clips) for highlight detection"
        )
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise bad("'relevant_clip_ids' must be a list of integer clip ids for highlight detection")
    outside = [i for i in ids if not 0 <= i < clips]
    if outside:
        raise bad(
            f"'relevant_clip_ids' holds {outside[0]}; expected clip ids from 0 to {clips - 1} "
            f"(duration {duration} s in {CLIP_SECONDS}-second clips)"
        )
    if len(set(ids)) != len(ids):
        raise bad("'relevant_clip_ids' names a clip twice; expected each clip once")
    if not (isinstance(scores, list) and len(scores) == len(ids) and as_windows(scores, 3) is not None):
        raise bad(
            f"'saliency_scores' must hold one [a, b, c] list of 3 numbers per relevant clip "
            f"({plural(len(ids), 'clip')})"
        )
    full = np.zeros((clips, 3))
    if ids:
        full[np.array(ids)] = np.array(scores)
    return full


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
    spelling: dict[str, str] = {}
    for number, text, row in truth_rows:
        qid = qid_key(row["qid"])
        spelling[qid] = json.dumps(row["qid"])
        if qid in m.truth:
            raise line_error(tname, number, text, f"query {qid} appears twice; expected one line per query")
        m.truth[qid] = _windows(row.get("relevant_windows", []), 2, tname, number, text, "relevant_windows")
        m.videos[qid] = str(row.get("vid", ""))
        if m.highlights:
            m.saliency[qid] = _saliency(row, tname, number, text)
    for number, text, row in pred_rows:
        qid = qid_key(row["qid"])
        if qid in m.predictions or qid in m.pred_saliency:
            raise line_error(pname, number, text, f"query {qid} appears twice; expected one line per query")
        if qid not in m.truth:
            m.unknown.append(qid)
        elif json.dumps(row["qid"]) != spelling[qid]:
            m.respelled.append(f"{json.dumps(row['qid'])} for {spelling[qid]}")
        if m.moments:
            m.predictions[qid] = _windows(
                row.get("pred_relevant_windows", []), 3, pname, number, text, "pred_relevant_windows"
            )
        if m.highlights:
            m.pred_saliency[qid] = _scores(row, pname, number, text)
    return m


def _scores(row: dict[str, Any], path: str, number: int, text: str) -> FloatArray:
    scores = row.get("pred_saliency_scores")
    if not (isinstance(scores, list) and scores and as_windows([scores], len(scores)) is not None):  # n numbers
        raise line_error(
            path,
            number,
            text,
            f"'pred_saliency_scores' must be a non-empty list of finite numbers, one per {CLIP_SECONDS}-second clip "
            "(other lines have it)",
        )
    array = np.array(scores)
    # integers below 2**53 rank as the same float64 values, which the batched highlights take
    return array.astype(np.float64) if array.dtype != np.float64 and (np.abs(array) < 2.0**53).all() else array
