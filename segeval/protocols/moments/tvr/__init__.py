"""TVR (video corpus moment retrieval): jayleicn/TVRetrieval's ``standalone_eval/eval.py`` figures, its 32-bit float
arithmetic included (docs/moments.md, 'tvr')."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from segeval.core.arrays import BoolArray, Float32Array
from segeval.core.errors import ParameterError
from segeval.core.words import plural, verb
from segeval.protocols.moments.protocol import MrOptions, MrResult, refuse_options
from segeval.protocols.moments.tvr.reading import MAX_PREDICTIONS, TASKS, TYPES, Tvr, key, read

THRESHOLDS = (0.5, 0.7)
TOP_K = (1, 5, 10, 100)
LEAST_ANNOTATORS = 2


def iou32(predictions: Float32Array, moment: Float32Array) -> Float32Array:
    """The official float32 IoU of (…, 2) [start, end] predictions with one moment (0 for an empty hull)."""
    from segeval.adapters.tiou import tiou32

    return tiou32(predictions[..., 0], predictions[..., 1], moment[..., 0], moment[..., 1])


def hits(data: Tvr, task: str, thresholds: tuple[float, ...]) -> tuple[BoolArray, BoolArray]:
    """Per query (ground-truth order) and prediction slot (first 100): whether the video matches, (queries, 100),
    and whether the slot is a hit at each θ, (thresholds, queries, 100); a missing query has no valid slot."""
    n = len(data.queries)
    rows = np.zeros((n, MAX_PREDICTIONS, 3), dtype=np.float32)
    valid = np.zeros((n, MAX_PREDICTIONS), dtype=bool)
    preds = data.predictions[task]
    for i, q in enumerate(data.queries):
        p = preds.get(key(q.desc_id))
        if p is not None and len(p):
            rows[i, : len(p)] = p.astype(np.float32)
            valid[i, : len(p)] = True
    gt_video = np.array([data.video2idx[q.video] for q in data.queries], dtype=np.float32)
    matched = (rows[:, :, 0] == gt_video[:, None]) & valid
    limits = np.array(thresholds, dtype=np.float32)[:, None, None]
    single = np.array([len(q.windows) == 1 for q in data.queries], dtype=bool)
    moments = np.array([q.windows[0] for q in data.queries], dtype=np.float32).reshape(-1, 2)  # multi: below
    scores = iou32(rows[:, :, 1:3], moments[:, None, :]) * matched
    correct = (scores >= limits) & valid & single[:, None]
    for i in np.flatnonzero(~single).tolist():  # DiDeMo-style: at least 2 annotators' moments reached
        counts = np.zeros((len(thresholds), MAX_PREDICTIONS), dtype=np.int64)
        for w in data.queries[i].windows.astype(np.float32):
            counts += iou32(rows[i, :, 1:3], w) * matched[i] >= limits[:, 0]
        correct[:, i] = (counts >= LEAST_ANNOTATORS) & valid[i]
    return matched, correct


def pct(count: int | np.integer[Any], total: int) -> float | None:
    """The official percentage: count / total x 100 rounded to 2 decimals as NumPy rounds (None for 0/0)."""
    if total == 0:
        return None
    return float(np.round(np.float64(count) / total * 100, 2))


def per_query(
    data: Tvr, task: str, thresholds: tuple[float, ...] = THRESHOLDS, top_k: tuple[int, ...] = TOP_K
) -> dict[str, BoolArray]:
    """Official key (``0.5-r1``, ``r1``) -> whether each ground-truth query has a hit there."""
    matched, correct = hits(data, task, thresholds)
    if task == "VR":
        return {f"r{k}": np.asarray(matched[:, :k].any(axis=1)) for k in top_k}
    rank = np.cumsum(matched, axis=1)  # SVMR: position among the ground-truth video's predictions
    found: dict[str, BoolArray] = {}
    for t, theta in enumerate(thresholds):
        for k in top_k:
            chosen = correct[t][:, :k] if task == "VCMR" else correct[t] & matched & (rank <= k)
            found[f"{theta}-r{k}"] = np.asarray(chosen.any(axis=1))
    return found


def task_figures(data: Tvr, found: dict[str, BoolArray]) -> tuple[dict[str, float | None], dict[str, Any] | None]:
    """One task's official figures from its queries' hits ``found`` (:func:`per_query`) and, when the ground truth
    has types, its ``_by_type`` figures."""
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
    same = "the official script asserts that both files hold the same queries"
    queries, have = ("query", "queries"), ("has", "have")
    flipped = "end < start; their IoU is 0, as in the official script"
    longer = (
        f"more than {MAX_PREDICTIONS} predictions; only the first {MAX_PREDICTIONS} count, as in the official script"
    )
    for task in tasks:
        missing = [str(q.desc_id) for q in data.queries if key(q.desc_id) not in data.predictions[task]]
        empty, unknown = data.empty[task], data.unknown[task]
        first = [f"(e.g. {items[0] if items else ''})" for items in (missing, empty, unknown)]
        stops = f"an empty 'predictions' list {first[1]} and score 0; the official script stops on them (IndexError)"
        record = f"no record {first[0]} and score 0; {same}"
        ignored = f"for queries not in the ground truth {first[2]} and are ignored; {same}"
        for n, noun, verbs, rest in (  # how many, of what, has/have or is/are, then the rest of the note
            (len(missing), ("ground-truth query", "ground-truth queries"), have, record),
            (len(empty), queries, have, stops),
            (len(unknown), ("record",), ("is", "are"), ignored),
            (data.longer[task], queries, have, longer),
            (data.reversed[task], ("predicted window",), have, flipped),
        ):
            if n:
                notes.append(f"{task}: {plural(n, *noun)} {verb(n, *verbs)} {rest}")
    if any(q.type is None for q in data.queries):
        notes.append(
            "the ground truth has no 'type': no *_by_type figures (the official script stops with a "
            "KeyError; its use_desc_type=False gives these figures)"
        )
    else:
        absent = [kind for kind in TYPES if not any(q.type == kind for q in data.queries)]
        if absent:
            notes.append(
                f"no ground-truth query has type {', '.join(absent)}: its *_by_type figures are null (the "
                "official script writes NaN, which is not JSON)"
            )
    multi = sum(len(q.windows) > 1 for q in data.queries)
    if multi:
        notes.append(
            f"{multi} ground-truth items have 4 or more annotators' moments (DiDeMo-style): a hit "
            f"reaches IoU >= θ with at least {LEAST_ANNOTATORS} of them, as in the official script"
        )
    return notes


def evaluate(
    data: Tvr,
    thresholds: tuple[float, ...] = THRESHOLDS,
    top_k: tuple[int, ...] = TOP_K,
    rows: dict[str, dict[str, float | None]] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The official output (tasks in VCMR, SVMR, VR order, then their ``_by_type``) and notes; ``rows`` gets each
    query's values (by :func:`key`: 7 and "7" differ)."""
    tasks = [t for t in TASKS if t in data.predictions]
    figures: dict[str, Any] = {}
    by_types: dict[str, Any] = {}
    for task in tasks:
        found = per_query(data, task, thresholds, top_k)
        figures[task], by_type = task_figures(data, found)
        if by_type is not None:
            by_types[f"{task}_by_type"] = by_type
        if rows is not None:
            for name, hit in found.items():
                for q, value in zip(data.queries, hit.tolist(), strict=True):
                    rows.setdefault(key(q.desc_id), {})[f"{task}-{name}"] = 100.0 * value
    figures.update(by_types)
    return figures, _notes(data, tasks)


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The TVR protocol (``segeval mr --protocol tvr``): VCMR, SVMR and VR recall at k."""
    refuse_options(options, "tvr", ("thresholds", "top_k"), "compares IoU >= θ and has no NMS")
    thresholds = options.thresholds if options.thresholds is not None else THRESHOLDS
    top_k = options.top_k if options.top_k is not None else TOP_K
    if not thresholds or not all(isinstance(t, float | int) and math.isfinite(t) and 0 < t <= 1 for t in thresholds):
        raise ParameterError(f"The 'thresholds' parameter must be IoU values in (0, 1]. Got {thresholds!r} instead.")
    if not top_k or not all(isinstance(k, int) and 1 <= k <= MAX_PREDICTIONS for k in top_k):
        raise ParameterError(
            f"The 'top_k' parameter must be cut-offs from 1 to {MAX_PREDICTIONS} (the official "
            f"script reads the first {MAX_PREDICTIONS} predictions). Got {top_k!r} instead."
        )
    thresholds, top_k = tuple(float(t) for t in thresholds), tuple(top_k)
    rows: dict[str, dict[str, float | None]] = {}
    figures, notes = evaluate(read(truth, predictions), thresholds, top_k, rows)
    brief = {f"{task}-{name}": value for task in TASKS if task in figures for name, value in figures[task].items()}
    return MrResult(figures=figures, brief=brief, notes=notes, per_query=rows)
