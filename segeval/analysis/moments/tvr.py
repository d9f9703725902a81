"""TVR (video corpus moment retrieval): the official ``standalone_eval/eval.py`` figures.

Follows jayleicn/TVRetrieval's evaluator, its 32-bit float arithmetic included:

* Inputs: the ground truth, JSON Lines with ``desc_id``, ``vid_name``, ``ts`` ([start, end]) and
  ``type`` (``v``, ``t`` or ``vt``: what the description needs, video, subtitles or both); the
  submission, one JSON object with ``video2idx`` (video name -> integer index) and any of ``VCMR``,
  ``SVMR``, ``VR``, each a list of ``{"desc_id", "predictions": [[video_index, start, end, score],
  ...]}`` in rank order (the score is not used: the list order is the ranking).
* Only the first 100 predictions of a query count. Video indices, times and moments become
  float32; IoU = overlap / (max(e1, e2) - min(s1, s2)) in float32 (0 when that hull is empty), set
  to 0 for a prediction of another video, and a hit when IoU >= the threshold taken as float32
  (0.7 becomes 0.699999988).
* ``VCMR`` R@k at IoU θ (θ = 0.5, 0.7; k = 1, 5, 10, 100): the share of queries with a hit among
  their first k predictions. ``SVMR``: the same after dropping the predictions of other videos
  (the first k of the ground-truth video's predictions). ``VR``: a prediction of the ground-truth
  video among the first k (times unused). Values are percentages rounded to 2 decimals with NumPy's
  rounding.
* ``*_by_type``: the same per description type over that type's queries, and ``desc_type_ratio``,
  the share of each type (``"v 75.08 t 8.0 vt 16.92"``).
* DiDeMo-style items, whose ``ts`` holds 4 or more [start, end] pairs (one per annotator): a
  prediction is a hit when its IoU reaches θ with at least 2 of them.

Where the official script fails, segeval goes on and says so in a note: a query missing from a task
or with an empty list scores 0 (the official asserts that both files hold the same queries, and
stops with an IndexError on an empty list); records for unknown queries are ignored (assertion); a
type without queries is ``null`` (the official writes ``NaN``, which is not JSON); ground truth
without ``type`` gives no ``*_by_type`` (the official stops with a KeyError). Predicted windows
with end < start are evaluated as given: their IoU is 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.analysis.moments.protocol import MrOptions, MrResult
from segeval.analysis.moments.tvr_input import (
    MAX_PREDICTIONS,
    TASKS,
    TYPES,
    Query,
    Tvr,
    key,
    read_submission,
    read_truth,
)
from segeval.errors import ParameterError
from segeval.words import plural, verb

THRESHOLDS = (0.5, 0.7)
TOP_K = (1, 5, 10, 100)
LEAST_ANNOTATORS = 2
BoolArray = npt.NDArray[np.bool_]
F32Array = npt.NDArray[np.float32]


def iou32(predictions: F32Array, moment: F32Array) -> F32Array:
    """The official float32 IoU of (…, 2) [start, end] predictions with one [start, end] moment:
    overlap / hull, 0 where the hull is empty."""
    zero = np.float32(0)
    inter = np.maximum(zero, np.minimum(predictions[..., 1], moment[..., 1]) -
                       np.maximum(predictions[..., 0], moment[..., 0]))
    hull = np.maximum(predictions[..., 1], moment[..., 1]) - np.minimum(predictions[..., 0], moment[..., 0])
    out: F32Array = np.divide(inter, hull, out=np.zeros_like(inter), where=hull != 0)
    return out


def hits(data: Tvr, task: str, thresholds: tuple[float, ...]) -> tuple[BoolArray, BoolArray, BoolArray]:
    """Per query (ground-truth order) and prediction slot (first 100): (valid, video matched, hit per θ).

    Shapes (queries, 100), (queries, 100), (thresholds, queries, 100); a missing query has no valid slot."""
    n = len(data.queries)
    rows = np.zeros((n, MAX_PREDICTIONS, 3), dtype=np.float32)
    valid = np.zeros((n, MAX_PREDICTIONS), dtype=bool)
    preds = data.predictions[task]
    for i, q in enumerate(data.queries):
        p = preds.get(key(q.desc_id))
        if p is not None and len(p):
            rows[i, :len(p)] = p.astype(np.float32)
            valid[i, :len(p)] = True
    gt_video = np.array([data.video2idx[q.video] for q in data.queries], dtype=np.float32)
    matched = (rows[:, :, 0] == gt_video[:, None]) & valid
    correct = np.zeros((len(thresholds), n, MAX_PREDICTIONS), dtype=bool)
    single = np.array([len(q.windows) == 1 for q in data.queries], dtype=bool)
    moments = np.zeros((n, 2), dtype=np.float32)
    moments[single] = np.array([q.windows[0] for q in data.queries if len(q.windows) == 1],
                               dtype=np.float32).reshape(-1, 2)
    scores = iou32(rows[:, :, 1:3], moments[:, None, :]) * matched
    for t, theta in enumerate(thresholds):
        correct[t] = (scores >= np.float32(theta)) & valid & single[:, None]
    for i in np.flatnonzero(~single).tolist():  # DiDeMo-style: at least 2 annotators' moments reached
        counts = np.zeros((len(thresholds), MAX_PREDICTIONS), dtype=np.int64)
        for w in data.queries[i].windows.astype(np.float32):
            s = iou32(rows[i, :, 1:3], w) * matched[i]
            for t, theta in enumerate(thresholds):
                counts[t] += s >= np.float32(theta)
        correct[:, i] = (counts >= LEAST_ANNOTATORS) & valid[i]
    return valid, matched, correct


def pct(count: int | np.integer[Any], total: int) -> float | None:
    """The official percentage: count / total x 100 rounded to 2 decimals as NumPy rounds (None for 0/0)."""
    if total == 0:
        return None
    return float(np.round(np.float64(count) / total * 100, 2))


def per_query(data: Tvr, task: str, thresholds: tuple[float, ...] = THRESHOLDS, top_k: tuple[int, ...] = TOP_K
              ) -> dict[str, BoolArray]:
    """Official key (``0.5-r1``, ``r1``) -> whether each ground-truth query has a hit there."""
    _, matched, correct = hits(data, task, thresholds)
    found: dict[str, BoolArray] = {}  # official key -> per-query hit
    if task == "VR":
        for k in top_k:
            found[f"r{k}"] = np.asarray(matched[:, :k].any(axis=1))
    else:
        rank = np.cumsum(matched, axis=1)  # SVMR: position among the ground-truth video's predictions
        for t, theta in enumerate(thresholds):
            for k in top_k:
                chosen = correct[t][:, :k] if task == "VCMR" else correct[t] & matched & (rank <= k)
                found[f"{theta}-r{k}"] = np.asarray(chosen.any(axis=1))
    return found


def task_figures(data: Tvr, task: str, thresholds: tuple[float, ...], top_k: tuple[int, ...]
                 ) -> tuple[dict[str, float | None], dict[str, Any] | None]:
    """One task's official figures and, when the ground truth has types, its ``_by_type`` figures."""
    found = per_query(data, task, thresholds, top_k)
    n = len(data.queries)
    metrics = {name: pct(int(hit.sum()), n) for name, hit in found.items()}
    if any(q.type is None for q in data.queries):
        return metrics, None
    types = np.array([q.type for q in data.queries])
    by_type: dict[str, Any] = {}
    for kind in TYPES:
        mine = types == kind
        for name, hit in found.items():
            by_type[f"{kind}-{name}"] = pct(int((hit & mine).sum()), int(mine.sum()))
    ratios = [pct(int((types == kind).sum()), n) for kind in TYPES]
    by_type["desc_type_ratio"] = "v {} t {} vt {}".format(*["nan" if r is None else r for r in ratios])
    return metrics, by_type


def _notes(data: Tvr, tasks: list[str]) -> list[str]:
    notes: list[str] = []
    truth = [key(q.desc_id) for q in data.queries]
    for task in tasks:
        preds = data.predictions[task]
        missing = [str(q.desc_id) for q, k in zip(data.queries, truth, strict=True) if k not in preds]
        if missing:
            notes.append(f"{task}: {plural(len(missing), 'ground-truth query', 'ground-truth queries')} "
                         f"{verb(len(missing), 'has', 'have')} no record (e.g. {missing[0]}) and score 0; the "
                         "official script asserts that both files hold the same queries")
        if data.empty[task]:
            notes.append(f"{task}: {plural(len(data.empty[task]), 'query', 'queries')} "
                         f"{verb(len(data.empty[task]), 'has', 'have')} an empty 'predictions' list (e.g. "
                         f"{data.empty[task][0]}) and score 0; the official script stops on them (IndexError)")
        if data.unknown[task]:
            notes.append(f"{task}: {plural(len(data.unknown[task]), 'record')} "
                         f"{verb(len(data.unknown[task]), 'is', 'are')} for queries not in the ground truth (e.g. "
                         f"{data.unknown[task][0]}) and are ignored; the official script asserts that both files "
                         "hold the same queries")
        if data.longer[task]:
            notes.append(f"{task}: {plural(data.longer[task], 'query', 'queries')} "
                         f"{verb(data.longer[task], 'has', 'have')} more than {MAX_PREDICTIONS} predictions; only the "
                         f"first {MAX_PREDICTIONS} count, as in the official script")
        if data.reversed[task]:
            notes.append(f"{task}: {plural(data.reversed[task], 'predicted window')} "
                         f"{verb(data.reversed[task], 'has', 'have')} end < start; their IoU is 0, as in the official "
                         "script")
    if any(q.type is None for q in data.queries):
        notes.append("the ground truth has no 'type': no *_by_type figures (the official script stops with a "
                     "KeyError; its use_desc_type=False gives these figures)")
    else:
        absent = [kind for kind in TYPES if not any(q.type == kind for q in data.queries)]
        if absent:
            notes.append(f"no ground-truth query has type {', '.join(absent)}: its *_by_type figures are null (the "
                         "official script writes NaN, which is not JSON)")
    multi = sum(len(q.windows) > 1 for q in data.queries)
    if multi:
        notes.append(f"{multi} ground-truth items have 4 or more annotators' moments (DiDeMo-style): a hit "
                     f"reaches IoU >= θ with at least {LEAST_ANNOTATORS} of them, as in the official script")
    return notes


def evaluate(data: Tvr, thresholds: tuple[float, ...] = THRESHOLDS, top_k: tuple[int, ...] = TOP_K
             ) -> tuple[dict[str, Any], list[str]]:
    """The official output (tasks in VCMR, SVMR, VR order, then their ``_by_type``) and notes."""
    tasks = [t for t in TASKS if t in data.predictions]
    figures: dict[str, Any] = {}
    by_types: dict[str, Any] = {}
    for task in tasks:
        figures[task], by_type = task_figures(data, task, thresholds, top_k)
        if by_type is not None:
            by_types[f"{task}_by_type"] = by_type
    figures.update(by_types)
    return figures, _notes(data, tasks)


def read(truth: str, predictions: str) -> Tvr:
    """Read and check a TVR ground truth and submission."""
    queries: list[Query] = read_truth(truth)
    return read_submission(predictions, queries)


def _options(options: MrOptions) -> tuple[tuple[float, ...], tuple[int, ...]]:
    unused = [name for name in ("iou_compare", "nms") if getattr(options, name, None) is not None]
    if unused:
        raise ParameterError(f"The tvr protocol compares IoU >= θ and has no NMS; it takes no "
                             f"{', '.join('--' + k.replace('_', '-') for k in unused)}.")
    thresholds = options.thresholds if options.thresholds is not None else THRESHOLDS
    top_k = options.top_k if options.top_k is not None else TOP_K
    if not thresholds or not all(isinstance(t, float | int) and math.isfinite(t) and 0 < t <= 1 for t in thresholds):
        raise ParameterError(f"The 'thresholds' parameter must be IoU values in (0, 1]. Got {thresholds!r} instead.")
    if not top_k or not all(isinstance(k, int) and 1 <= k <= MAX_PREDICTIONS for k in top_k):
        raise ParameterError(f"The 'top_k' parameter must be cut-offs from 1 to {MAX_PREDICTIONS} (the official "
                             f"script reads the first {MAX_PREDICTIONS} predictions). Got {top_k!r} instead.")
    return tuple(float(t) for t in thresholds), tuple(top_k)


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The TVR protocol (``segeval mr --protocol tvr``): VCMR, SVMR and VR recall at k."""
    thresholds, top_k = _options(options)
    figures, notes = evaluate(read(truth, predictions), thresholds, top_k)
    brief = {f"{task}-{name}": value for task in TASKS if task in figures for name, value in figures[task].items()}
    return MrResult(figures=figures, brief=brief, notes=notes)
