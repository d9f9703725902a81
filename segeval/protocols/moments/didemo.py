"""DiDeMo (Localizing Moments in Video with Natural Language): LisaAnne/LocalizingMoments' ``utils/eval.py``
figures (docs/moments.md, 'didemo')."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.errors import InputError
from segeval.core.words import plural, verb
from segeval.protocols.moments.protocol import MrOptions, MrResult, refuse_options
from segeval.protocols.moments.reading import line_error, load_json, load_jsonl, record_error, shown
from segeval.readers.files import read_text

Moment = tuple[int, int]
#: the last 5-second unit of a DiDeMo video (units 0-5): a ground-truth moment beyond it is no candidate
LAST_UNIT = 5
TRUTH = "the DiDeMo ground truth: a JSON list of objects with 'times' (annotators' [start, end] 5-second units)"
LIST_FORM = "a JSON list with one ranking (a list of [start, end] moments) per ground-truth item"
KEYED_FORM = 'JSON Lines of {"annotation_id": ..., "ranking": [[start, end], ...]}'


def _moment(value: Any) -> Moment | None:
    """[s, e] as a pair of integers 0 <= s <= e, else None."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        and 0 <= value[0] <= value[1]
    ):
        return (value[0], value[1])
    return None


def _moments(
    value: Any, key: str, error: Callable[[str], InputError], *, distinct: bool, last: int | None = None
) -> list[Moment]:
    """The [start, end] moments of ``value`` (each once when ``distinct``; every unit at most ``last``), else
    ``error(problem)``."""
    if not isinstance(value, list):
        raise error(f"'{key}' is {shown(value)}; expected a list of [start, end] moments")
    out: list[Moment] = []
    for item in value:
        m = _moment(item)
        if m is None:
            raise error(
                f"'{key}' holds {shown(item)}; expected every moment as [start, end] "
                "with integer 5-second units 0 <= start <= end"
            )
        if distinct and m in out:
            raise error(f"'{key}' names the moment {list(m)} twice; expected each candidate moment once")
        out.append(m)
    beyond = next((m for m in out if m[1] > last), None) if last is not None else None
    if beyond is not None and last is not None:
        raise error(
            f"'{key}' holds the moment {list(beyond)}; expected 5-second units 0 to {last} (a DiDeMo video has at "
            f"most {last + 1} units, and the 21 candidate moments are the pairs on them)"
        )
    return out


def read_truth(path: str | Path) -> tuple[list[list[Moment]], list[str | None]]:
    """Per ground-truth item (in file order): the annotators' moments and the annotation id (None when absent)."""
    name = str(path)
    data = load_json(path, TRUTH)
    if not isinstance(data, list) or not data:
        raise InputError(name, f"holds {shown(data, 40)}; expected {TRUTH}")
    times: list[list[Moment]] = []
    ids: list[str | None] = []
    for n, item in enumerate(data):
        record = f"item {n}"
        if not isinstance(item, dict) or "times" not in item:
            raise record_error(name, record, f"is {shown(item)}; expected an object with 'times'")
        t = _moments(item["times"], "times", partial(record_error, name, record), distinct=False, last=LAST_UNIT)
        if not t:
            raise record_error(name, record, "'times' is empty; expected at least one annotator's moment")
        times.append(t)
        ids.append(str(item["annotation_id"]) if "annotation_id" in item else None)
    return times, ids


def read_rankings(path: str | Path, ids: list[str | None]) -> tuple[list[list[Moment] | None], list[str]]:
    """The ranking of each ground-truth item (None: not submitted) and notes."""
    name = str(path)
    notes: list[str] = []
    rankings: list[list[Moment] | None] = [None] * len(ids)
    if read_text(path).lstrip().startswith("["):
        data = load_json(path, LIST_FORM)
        if len(data) > len(ids):
            raise InputError(
                name,
                f"holds {len(data)} rankings for {plural(len(ids), 'ground-truth item')}; expected "
                f"{LIST_FORM}, aligned with the ground truth's order",
            )
        for n, value in enumerate(data):
            rankings[n] = _moments(value, "ranking", partial(record_error, name, f"ranking {n}"), distinct=True)
        if len(data) < len(ids):
            notes.append(
                f"{name} holds {plural(len(data), 'ranking')} for {len(ids)} ground-truth items: the last "
                f"{len(ids) - len(data)} score 0 (the official zip drops them from the average)"
            )
        return rankings, notes
    position: dict[str, int] = {}
    for n, key in enumerate(ids):
        if key is not None:
            position.setdefault(key, n)
    if len(position) < len(ids):
        raise InputError(
            name,
            "is keyed by annotation_id, but the ground truth has items without a distinct "
            "'annotation_id'; expected the list form aligned with the ground truth",
        )
    for number, line, row in load_jsonl(path, ("annotation_id", "ranking"), KEYED_FORM):
        key = str(row["annotation_id"])
        if key not in position:
            raise line_error(
                name,
                number,
                line,
                f"annotation_id {key} is not in the ground truth; expected a ground-truth annotation_id",
            )
        if rankings[position[key]] is not None:
            raise line_error(
                name, number, line, f"annotation_id {key} appears twice; expected one line per annotation_id"
            )
        bad = partial(line_error, name, number, line)
        rankings[position[key]] = _moments(row["ranking"], "ranking", bad, distinct=True)
    return rankings, notes


def iou(pred: Moment, gt: Moment) -> float:
    """Inclusive-unit IoU: (overlap + 1) / (hull + 1) in units, 0 when disjoint: the ``tiou`` adapter's IoU of
    the spans [s, e + 1] (what ``--write-lines`` writes, in seconds)."""
    from segeval.adapters.tiou import tiou

    return float(tiou(np.float64(pred[0]), np.float64(pred[1] + 1), np.float64(gt[0]), np.float64(gt[1] + 1)))


def query_scores(ranking: list[Moment] | None, times: list[Moment]) -> tuple[float, float]:
    """(mean of the 3 best ranks, mean of the 3 best IoUs of the first moment); inf rank for a moment not ranked."""
    if not ranking:
        return math.inf, 0.0
    ious = [iou(ranking[0], t) for t in times]
    ranks = [ranking.index(t) + 1 if t in ranking else math.inf for t in times]
    return float(np.mean(np.sort(ranks)[:3])), float(np.mean(np.sort(ious)[-3:]))


def evaluate(
    times: list[list[Moment]],
    rankings: list[list[Moment] | None],
    per_query: dict[str, dict[str, float | None]] | None = None,
) -> tuple[dict[str, float], list[str]]:
    """The official figures and notes on what differs from the official run; ``per_query`` gets each item's values
    (by its index in the file)."""
    notes: list[str] = []
    scores = [query_scores(r, t) for r, t in zip(rankings, times, strict=True)]
    if per_query is not None:
        per_query.update(
            {
                str(n): {"rank@1": float(rank <= 1), "rank@5": float(rank <= 5), "miou": iou}
                for n, (rank, iou) in enumerate(scores)
            }
        )
    average_ranks = np.array([s[0] for s in scores])
    average_iou = [s[1] for s in scores]
    missing = sum(r is None for r in rankings)
    empty = sum(r is not None and not r for r in rankings)
    partial = sum(1 for r, t in zip(rankings, times, strict=True) if r and any(m not in r for m in t))
    if missing:
        notes.append(
            f"{plural(missing, 'ground-truth item')} {verb(missing, 'has', 'have')} no ranking and "
            f"{verb(missing, 'scores', 'score')} 0 (the official reads only the "
            "aligned list, and its zip silently leaves items past the list's end out of the average)"
        )
    if empty:
        notes.append(
            f"{plural(empty, 'ranking')} {verb(empty, 'is', 'are')} empty and "
            f"{verb(empty, 'scores', 'score')} 0 (the official stops with IndexError)"
        )
    if partial:
        notes.append(
            f"{plural(partial, 'ranking')} {verb(partial, 'leaves', 'leave')} out an annotator's moment, "
            "which then never counts for rank@1 or rank@5 (the official stops with ValueError)"
        )
    n = float(len(average_ranks))
    figures = {
        "rank@1": float(np.sum(average_ranks <= 1) / n),
        "rank@5": float(np.sum(average_ranks <= 5) / n),
        "miou": float(np.mean(average_iou)),
    }
    return figures, notes


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The DiDeMo protocol (``segeval mr --protocol didemo``)."""
    refuse_options(options, "didemo")
    times, ids = read_truth(truth)
    rankings, notes = read_rankings(predictions, ids)
    rows: dict[str, dict[str, float | None]] = {}
    figures, more = evaluate(times, rankings, rows)
    return MrResult(figures=figures, brief=dict(figures), notes=notes + more, per_query=rows)
