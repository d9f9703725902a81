"""The TVR report: the official output of every task present, its options and notes on where the official
script would have stopped."""

from __future__ import annotations

import math
from typing import Any

from segeval.core.errors import ParameterError
from segeval.core.words import plural, verb
from segeval.protocols.moments.protocol import MrOptions, MrResult
from segeval.protocols.moments.tvr.measures import LEAST_ANNOTATORS, THRESHOLDS, TOP_K, per_query, task_figures
from segeval.protocols.moments.tvr.reading import MAX_PREDICTIONS, TASKS, TYPES, Tvr, key, read


def _notes(data: Tvr, tasks: list[str]) -> list[str]:
    notes: list[str] = []
    truth = [key(q.desc_id) for q in data.queries]
    same = "the official script asserts that both files hold the same queries"

    def first(items: list[Any]) -> str:
        return f"{items[0]}" if items else ""

    for task in tasks:
        preds = data.predictions[task]
        missing = [str(q.desc_id) for q, k in zip(data.queries, truth, strict=True) if k not in preds]
        empty, unknown = data.empty[task], data.unknown[task]
        for n, noun, verbs, rest in (  # how many, of what, has/have or is/are, then the rest of the note
            (
                len(missing),
                ("ground-truth query", "ground-truth queries"),
                ("has", "have"),
                f"no record (e.g. {first(missing)}) and score 0; {same}",
            ),
            (
                len(empty),
                ("query", "queries"),
                ("has", "have"),
                f"an empty 'predictions' list (e.g. {first(empty)}) and score 0; the official script stops on them "
                "(IndexError)",
            ),
            (
                len(unknown),
                ("record",),
                ("is", "are"),
                f"for queries not in the ground truth (e.g. {first(unknown)}) and are ignored; {same}",
            ),
            (
                data.longer[task],
                ("query", "queries"),
                ("has", "have"),
                f"more than {MAX_PREDICTIONS} predictions; only the first {MAX_PREDICTIONS} count, as in the official "
                "script",
            ),
            (
                data.reversed[task],
                ("predicted window",),
                ("has", "have"),
                "end < start; their IoU is 0, as in the official script",
            ),
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
    data: Tvr, thresholds: tuple[float, ...] = THRESHOLDS, top_k: tuple[int, ...] = TOP_K
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


def _options(options: MrOptions) -> tuple[tuple[float, ...], tuple[int, ...]]:
    unused = [name for name in ("iou_compare", "nms") if getattr(options, name, None) is not None]
    if unused:
        raise ParameterError(
            f"The tvr protocol compares IoU >= θ and has no NMS; it takes no "
            f"{', '.join('--' + k.replace('_', '-') for k in unused)}."
        )
    thresholds = options.thresholds if options.thresholds is not None else THRESHOLDS
    top_k = options.top_k if options.top_k is not None else TOP_K
    if not thresholds or not all(isinstance(t, float | int) and math.isfinite(t) and 0 < t <= 1 for t in thresholds):
        raise ParameterError(f"The 'thresholds' parameter must be IoU values in (0, 1]. Got {thresholds!r} instead.")
    if not top_k or not all(isinstance(k, int) and 1 <= k <= MAX_PREDICTIONS for k in top_k):
        raise ParameterError(
            f"The 'top_k' parameter must be cut-offs from 1 to {MAX_PREDICTIONS} (the official "
            f"script reads the first {MAX_PREDICTIONS} predictions). Got {top_k!r} instead."
        )
    return tuple(float(t) for t in thresholds), tuple(top_k)


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The TVR protocol (``segeval mr --protocol tvr``): VCMR, SVMR and VR recall at k."""
    thresholds, top_k = _options(options)
    data = read(truth, predictions)
    figures, notes = evaluate(data, thresholds, top_k)
    brief = {f"{task}-{name}": value for task in TASKS if task in figures for name, value in figures[task].items()}
    rows: dict[str, dict[str, float | None]] = {key(q.desc_id): {} for q in data.queries}  # 7 and "7" differ
    for task in (t for t in TASKS if t in figures):
        for name, hit in per_query(data, task, thresholds, top_k).items():
            for row, value in zip(rows.values(), hit.tolist(), strict=True):
                row[f"{task}-{name}"] = 100.0 * value
    return MrResult(figures=figures, brief=brief, notes=notes, per_query=rows)
