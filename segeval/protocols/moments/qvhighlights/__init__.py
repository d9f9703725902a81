"""Moment retrieval and highlight detection (QVHighlights): the official evaluator's output with segeval's additions
and notes (docs/moments.md, 'qvhighlights')."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.protocols.moments.protocol import MrOptions, MrResult, refuse_options
from segeval.protocols.moments.qvhighlights.highlights import batch_highlights
from segeval.protocols.moments.qvhighlights.reading import Moments, read_moments
from segeval.protocols.moments.qvhighlights.retrieval import THRESHOLDS, batch_average_precisions, batch_first_ious
from segeval.protocols.moments.reading import reversed_notes

BUCKETS = {"short": (0.0, 10.0), "middle": (10.0, 30.0), "long": (30.0, 150.0), "full": (0.0, 150.0)}
SALIENCY_LEVELS = {"Fair": 2, "Good": 3, "VeryGood": 4}
R5_THRESHOLDS = (0.5, 0.7)  #: segeval's addition MR-R5: any of the first 5 listed reaches t with any window


def _pct(value: float | np.floating[Any]) -> float | None:
    return None if math.isnan(float(value)) else float(f"{100 * value:.2f}")


#: query -> brief figure -> the query's value (``mr -q``)
PerQuery = dict[str, dict[str, float | None]]


def _evaluate_highlights(m: Moments, queries: list[str], per_query: PerQuery) -> dict[str, dict[str, float | None]]:
    levels = tuple(float(v) for v in SALIENCY_LEVELS.values())
    hit = np.zeros((len(levels), len(queries), 3))
    ap = np.zeros((len(levels), len(queries), 3))
    rows = [n for n, q in enumerate(queries) if q in m.pred_saliency]  # no prediction: 0
    if rows:
        aps, hits = batch_highlights(
            [m.saliency[queries[n]] for n in rows], [m.pred_saliency[queries[n]] for n in rows], levels
        )
        ap[:, rows] = aps.reshape(len(rows), len(levels), 3).transpose(1, 0, 2)
        hit[:, rows] = hits.reshape(len(rows), len(levels), 3).transpose(1, 0, 2)
    out: dict[str, dict[str, float | None]] = {}
    for level, name in enumerate(SALIENCY_LEVELS):
        for n, q in enumerate(queries):
            mine = per_query.setdefault(q, {})
            mine[f"HL-min-{name}-mAP"] = 100 * float(np.mean(ap[level, n]))
            mine[f"HL-min-{name}-Hit1"] = 100 * float(np.max(hit[level, n]))
        out[f"HL-min-{name}"] = {
            "HL-mAP": _pct(np.mean(ap[level])) if queries else None,
            "HL-Hit1": _pct(np.mean(np.max(hit[level], 1))) if queries else None,
        }
    return out


def _evaluate_buckets(
    m: Moments, truths: dict[str, dict[str, FloatArray]], orders: dict[str, list[str]], per_query: PerQuery
) -> dict[str, dict[str, Any]]:
    """Each bucket's MR figures over its order (queries with predictions first, in the file's order)."""
    empty = np.zeros((0, 3))
    truth = [truths[name][q] for name, order in orders.items() for q in order]
    preds = [m.predictions.get(q, empty) for order in orders.values() for q in order]
    ap_all = batch_average_precisions(truth, preds)
    r1_all, top1_all, top5_all = batch_first_ious(truth, preds, 5)
    out: dict[str, dict[str, Any]] = {}
    end = 0
    for name, order in orders.items():
        start, end = end, end + len(order)
        if not order:
            out[name] = {
                "MR-mAP": {**{str(t): None for t in THRESHOLDS}, "average": None},
                "MR-R1": {str(t): None for t in THRESHOLDS},
                "MR-R5": {str(t): None for t in R5_THRESHOLDS},
                "MR-mIoU": None,
                "queries": 0,
            }
            continue
        # the bucket's rows as arrays of their own, as the per-bucket arithmetic had them
        ap_array, r1_ious, top1, top5 = (
            np.array(a[start:end], dtype=np.float64) for a in (ap_all, r1_all, top1_all, top5_all)
        )
        for n, q in enumerate(order):
            mine = per_query.setdefault(q, {})
            mine[f"MR-{name}-mAP"] = 100 * float(np.mean(ap_array[n]))
            if name == "full":
                mine.update({f"MR-full-mAP@{t}": 100 * float(ap_array[n, THRESHOLDS.index(t)]) for t in (0.5, 0.75)})
                mine.update({f"MR-full-R1@{t}": 100 * float(r1_ious[n] >= t) for t in (0.5, 0.7)})
                mine["MR-full-mIoU"] = 100 * float(top1[n])
        ap_thds = ap_array.mean(0)
        maps = {str(t): _pct(v) for t, v in zip(THRESHOLDS, ap_thds, strict=True)}
        maps["average"] = _pct(np.mean(ap_thds))
        r1 = {str(t): _pct(np.mean(r1_ious >= t)) for t in THRESHOLDS}
        r5 = {str(t): _pct(np.mean((top5 >= t).astype(np.float64))) for t in R5_THRESHOLDS}
        out[name] = {"MR-mAP": maps, "MR-R1": r1, "MR-R5": r5, "MR-mIoU": _pct(np.mean(top1)), "queries": len(order)}
    return out


def bucket_truths(truth: dict[str, FloatArray]) -> dict[str, dict[str, FloatArray]]:
    """Per bucket, the ground-truth windows of that length per query (queries without one left out)."""
    out: dict[str, dict[str, FloatArray]] = {}
    for name, (lo, hi) in BUCKETS.items():
        kept = {q: w[(w[:, 1] - w[:, 0] > lo) & (w[:, 1] - w[:, 0] <= hi)] for q, w in truth.items()}
        out[name] = truth if name == "full" else {q: w for q, w in kept.items() if len(w)}
    return out


def evaluate_moments(m: Moments, per_query: PerQuery | None = None) -> dict[str, Any]:
    """The official output (values x 100, two decimals), segeval's additions and notes; ``per_query`` gets each
    query's values of the ``brief`` figures."""
    per_query = {} if per_query is None else per_query
    listed = [q for q in (m.predictions if m.moments else m.pred_saliency) if q in m.truth]  # file order
    mr_order = [q for q in listed if len(m.predictions[q]) and len(m.truth[q])] if m.moments else []
    scored = set(mr_order)
    mr_missing = [q for q in m.truth if len(m.truth[q]) and q not in scored]
    seen = set(listed)
    hl_missing = [q for q in m.truth if q not in seen]
    notes = _input_notes(m, mr_missing, hl_missing)
    order = mr_order + mr_missing  # the official averages in the submission's order
    buckets: dict[str, Any] = {}
    if m.moments:
        truths = bucket_truths(m.truth)
        buckets = _evaluate_buckets(
            m, truths, {name: [q for q in order if q in truths[name]] for name in BUCKETS}, per_query
        )
        for name, (lo, hi) in BUCKETS.items():
            if not buckets[name]["queries"]:
                notes.append(
                    f"no ground-truth window falls in the {name} bucket ({lo:g}, {hi:g}] s: its figures are "
                    "null (the official evaluator stops here)"
                )
    highlights = _evaluate_highlights(m, listed + hl_missing, per_query) if m.highlights else {}
    out: dict[str, Any] = {"brief": _brief(buckets, highlights)}
    out.update(sorted({**highlights, **buckets}.items()))
    out["notes"] = notes
    return out


def _input_notes(m: Moments, mr_missing: list[Any], hl_missing: list[Any]) -> list[str]:
    """What the submission or the ground truth holds that the official evaluator stops on or treats otherwise."""
    notes: list[str] = []
    no_truth = [q for q in m.truth if len(m.truth[q]) == 0]
    if m.moments and no_truth:
        notes.append(
            f"{len(no_truth)} ground-truth queries have no relevant window (e.g. {no_truth[0]}) and are "
            "left out of MR; the official evaluator stops on them"
        )
    if m.moments and mr_missing:
        notes.append(
            f"{len(mr_missing)} ground-truth queries have no predicted window (e.g. {mr_missing[0]}) and "
            "score 0 in MR; the official evaluator refuses such a submission"
        )
    if m.highlights and hl_missing:
        notes.append(
            f"{len(hl_missing)} ground-truth queries have no pred_saliency_scores (e.g. {hl_missing[0]}) "
            "and score 0 in HL; the official evaluator refuses such a submission"
        )
    if m.moments:
        notes += reversed_notes(
            m.truth,
            m.predictions,
            "evaluated as given, as the official evaluator does: they "
            "overlap nothing (IoU 0), except that mAP's IoU is 0/0 against a window of opposite "
            "length, which matches (docs/moments.md)",
        )
    if m.unknown:
        notes.append(
            f"{len(m.unknown)} predicted queries are not in the ground truth (e.g. {m.unknown[0]}) and "
            "are ignored; the official evaluator refuses such a submission (a qid matches only a qid that "
            'Python finds equal: the string "5" is not the number 5)'
        )
    if m.respelled:
        notes.append(
            f"{len(m.respelled)} predicted qids are written otherwise than the ground truth's (e.g. "
            f"{m.respelled[0]}); they are paired by Python equality, as the official evaluator does"
        )
    return notes


def _brief(buckets: dict[str, Any], highlights: dict[str, Any]) -> dict[str, float | None]:
    """The official ``brief`` (MR figures sorted by name, then HL), then segeval's MR-full-mIoU."""
    brief: dict[str, float | None] = {}
    if buckets:
        official = {f"MR-{name}-mAP": buckets[name]["MR-mAP"]["average"] for name in BUCKETS}
        official |= {f"MR-full-mAP@{t}": buckets["full"]["MR-mAP"][t] for t in ("0.5", "0.75")}
        official |= {f"MR-full-R1@{t}": buckets["full"]["MR-R1"][t] for t in ("0.5", "0.7")}
        brief.update(sorted(official.items()))
    for level, values in highlights.items():
        for key, value in values.items():
            brief[f"{level}-{key.split('-')[1]}"] = value
    if buckets:
        brief["MR-full-mIoU"] = buckets["full"]["MR-mIoU"]
    return brief


def evaluate_files(truth: str, predictions: str, options: MrOptions) -> MrResult:
    """The QVHighlights protocol (``segeval mr --protocol qvhighlights``)."""
    refuse_options(options, "qvhighlights", reason="has fixed thresholds and cut-offs")
    rows: PerQuery = {}
    result = evaluate_moments(read_moments(truth, predictions), rows)
    figures = {k: v for k, v in result.items() if k != "notes"}
    return MrResult(figures=figures, brief=result["brief"], notes=result["notes"], per_query=rows)
