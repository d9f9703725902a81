"""Ego4D Natural Language Queries: the official ``NLQ/VSLNet/utils/evaluate_ego4d_nlq.py`` figures
(docs/moments.md, 'ego4d-nlq')."""

from __future__ import annotations

import math
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.core.words import plural, verb
from segeval.protocols.moments.protocol import MrOptions, MrResult, refuse_options
from segeval.protocols.moments.reading import is_number, load_json, record_error, reversed_notes, shown, windows

THRESHOLDS = (0.3, 0.5)
TOP_K = (1, 5)
NAME = "Rank@{k} mIoU@{t}"  #: a figure's name (:func:`segeval.protocols.moments.recall.mean_figures`)
Query = tuple[str, str, int]
TRUTH = 'the Ego4D NLQ ground truth: {"videos": [{"clips": [{"annotations": [{"language_queries": ...}]}]}]}'
SUBMISSION = (
    'the Ego4D NLQ submission: {"version": "1.0", "challenge": "ego4d_nlq_challenge", "results": '
    '[{"clip_uid", "annotation_uid", "query_idx", "predicted_times"}]}'
)


def _field(value: Any, path: str, record: str, key: str, kind: type[list[Any]] | type[str] = list) -> Any:
    """``value[key]`` when ``value`` is an object whose ``key`` is a ``kind`` (a list or a string)."""
    if not isinstance(value, dict) or not isinstance(value.get(key), kind):
        a = "a list" if kind is list else "a string"
        raise record_error(path, record, f"is {shown(value)}; expected an object with {a} '{key}' ({TRUTH})")
    return value[key]


def read_truth(path: str | Path) -> dict[Query, tuple[float, float]]:
    """Every query's window, in the ground truth's order."""
    name = str(path)
    data = load_json(path, TRUTH)
    truth: dict[Query, tuple[float, float]] = {}
    seen: set[tuple[str, str]] = set()
    for v, video in enumerate(_field(data, name, "the top level", "videos")):
        for c, clip in enumerate(_field(video, name, f"videos[{v}]", "clips")):
            record = f"videos[{v}].clips[{c}]"
            annotations = _field(clip, name, record, "annotations")
            clip_uid = _field(clip, name, record, "clip_uid", str)
            for a, ann in enumerate(annotations):
                where = f"{record}.annotations[{a}]"
                queries = _field(ann, name, where, "language_queries")
                key = (clip_uid, _field(ann, name, where, "annotation_uid", str))
                if key in seen:
                    raise record_error(
                        name,
                        where,
                        f"repeats clip_uid {key[0]} with annotation_uid {key[1]}; "
                        "expected each (clip_uid, annotation_uid) once",
                    )
                seen.add(key)
                for q, query in enumerate(queries):
                    s = query.get("clip_start_sec") if isinstance(query, dict) else None
                    e = query.get("clip_end_sec") if isinstance(query, dict) else None
                    if not (is_number(s) and is_number(e)):
                        raise record_error(
                            name,
                            f"{where}.language_queries[{q}]",
                            f"is {shown(query)}; expected numbers clip_start_sec and clip_end_sec",
                        )
                    truth[(key[0], key[1], q)] = (float(s), float(e))  # type: ignore[arg-type]
    if not truth:
        raise InputError(name, f"has no language queries; expected {TRUTH}")
    return truth


def read_predictions(path: str | Path, truth: dict[Query, tuple[float, float]]) -> dict[Query, FloatArray]:
    """Each submitted query's windows, in the submission's order."""
    name = str(path)
    data = load_json(path, SUBMISSION)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise InputError(name, f"has no list 'results'; expected {SUBMISSION}")
    if data.get("version") != "1.0" or data.get("challenge") != "ego4d_nlq_challenge":
        raise InputError(
            name,
            f"has version {shown(data.get('version'))} and challenge "
            f'{shown(data.get("challenge"))}; expected "1.0" and "ego4d_nlq_challenge" '
            "(the official evaluator asserts both)",
        )
    annotations = Counter((c, a) for c, a, _ in truth)
    out: dict[Query, FloatArray] = {}
    for n, row in enumerate(data["results"]):
        record = f"results[{n}]"
        if not isinstance(row, dict) or not {"clip_uid", "annotation_uid", "query_idx", "predicted_times"} <= set(row):
            raise record_error(
                name,
                record,
                f"is {shown(row)}; expected the keys clip_uid, annotation_uid, query_idx and predicted_times",
            )
        pair = (str(row["clip_uid"]), str(row["annotation_uid"]))
        if pair not in annotations:
            raise record_error(
                name,
                record,
                f"clip_uid {pair[0]} with annotation_uid {pair[1]} is not in the ground truth; expected a "
                "ground-truth annotation",
            )
        idx = row["query_idx"]
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < annotations[pair]:
            raise record_error(
                name,
                record,
                f"query_idx is {shown(idx)}; expected an integer from 0 to "
                f"{annotations[pair] - 1} (the annotation's language queries)",
            )
        key = (pair[0], pair[1], idx)
        if key in out:
            raise record_error(
                name, record, f"query {pair[0]}/{pair[1]}/{idx} appears twice; expected one result per query"
            )
        out[key] = windows(row["predicted_times"], 2, "predicted_times", partial(record_error, name, record))
    return out


def evaluate(
    truth: dict[Query, tuple[float, float]],
    predictions: dict[Query, FloatArray],
    thresholds: tuple[float, ...] = THRESHOLDS,
    top_k: tuple[int, ...] = TOP_K,
    per_query: dict[str, dict[str, float | None]] | None = None,
) -> tuple[dict[str, float | None], list[str]]:
    """The official table's figures (percent) and notes; queries in submission order, then the missing ones;
    ``per_query`` gets each query's values (``clip/annotation/index``)."""
    from segeval.adapters.tiou import tiou
    from segeval.protocols.moments.recall import mean_figures

    notes: list[str] = []
    missing = [q for q in truth if q not in predictions]
    # the official IoU: the hull form, NaN for 0/0 (the ``tiou`` adapter's ``empty0`` gives the same hits)
    overlaps = [
        tiou(w[:, 0], w[:, 1], np.float64(truth[key][0]), np.float64(truth[key][1]), "nan")
        for key, w in predictions.items()
    ]
    empty = [key for key, overlap in zip(predictions, overlaps, strict=True) if not len(overlap)]
    nan = [key for key, overlap in zip(predictions, overlaps, strict=True) if len(overlap) and math.isnan(overlap[0])]
    if missing:
        c, a, i = missing[0]
        submitted = len(predictions)
        official = mean_figures(NAME, overlaps, thresholds, top_k, True) if submitted else {}
        text = ", ".join(f"{k} {'NaN' if v is None else f'{v:.2f}'}" for k, v in official.items())
        notes.append(
            f"{len(missing)} of {len(truth)} ground-truth queries have no prediction (e.g. {c}/{a}/{i}) "
            "and score 0; the official evaluator averages over the submitted queries only"
            + (f", which gives {text}" if text else "")
        )
    if empty:
        notes.append(
            f"{plural(len(empty), 'query', 'queries')} "
            f"{verb(len(empty), 'has', 'have')} empty predicted_times "
            f"(e.g. {'/'.join(map(str, empty[0]))}) and "
            "score 0 (the official stops with IndexError)"
        )
    if nan:
        notes.append(
            f"{len(nan)} first predictions are zero-length windows at the same time as a zero-length "
            f"ground truth (e.g. {'/'.join(map(str, nan[0]))}): their IoU is 0/0 = NaN in the official, "
            "so mIoU is NaN (printed as null)"
        )
    names = ["/".join(map(str, q)) for q in [*predictions, *missing]]
    overlaps += [np.zeros(0)] * len(missing)  # score 0
    figures = mean_figures(NAME, overlaps, thresholds, top_k, True, per_query, names)
    notes += reversed_notes(
        truth,
        predictions,
        "evaluated as given, as the official does: they overlap nothing (a reversed ground truth is never hit)",
    )
    return figures, notes


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The Ego4D NLQ protocol (``segeval mr --protocol ego4d-nlq``)."""
    refuse_options(options, "ego4d-nlq", ("thresholds", "top_k"))
    thresholds = options.thresholds or THRESHOLDS
    top_k = options.top_k or TOP_K
    gt = read_truth(truth)
    rows: dict[str, dict[str, float | None]] = {}
    figures, notes = evaluate(gt, read_predictions(predictions, gt), thresholds, top_k, rows)
    return MrResult(figures=figures, brief=dict(figures), notes=notes, per_query=rows)
