"""``segeval sed``: which clips are scored (the DCASE task 4 wrapper's choices), the notes, and the figures
as text, JSON or CSV (full precision: each equals the official one digit for digit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from segeval.cli.tables import render
from segeval.escaping import json_text
from segeval.protocols.sed import measures as m
from segeval.protocols.sed.read import Events, operating_points, read_durations, read_events
from segeval.words import plural

FIGURES = ("Nref", "Nsys", "f_measure", "precision", "recall", "error_rate", "substitution_rate",
           "deletion_rate", "insertion_rate")


@dataclass
class Report:
    """What ``segeval sed`` prints: a table of rows, a JSON document and the notes."""

    rows: list[dict[str, Any]]
    doc: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def _dropped(system: Events, kept: set[str], what: str) -> list[str]:
    extra = [c for c, evs in system.clips.items() if c not in kept and evs]
    n = sum(len(system.clips[c]) for c in extra)
    return [f"note: {system.path}: {plural(n, 'detection')} in {plural(len(extra), 'clip')} not in {what} "
            f"left out (as the DCASE wrapper does), first {extra[0]!r}"] if extra else []


def sed_eval(truth_path: str, system_path: str, durations_path: str | None, metric: str, *,
             collar: m.Collar | None = None, matching: str = "optimal", resolution: float = 1.0,
             length: str = "last-offset") -> Report:
    """sed_eval's event- (``metric`` "event") or segment-based figures over the ground truth's clips (with
    ``length`` "duration": every clip of the durations table, each to its duration)."""
    truth, system = read_events(truth_path), read_events(system_path)
    labels = sorted({*truth.labels, *system.labels})
    counts = m.Counts(labels)
    durations = read_durations(durations_path) if durations_path else {}
    by_duration = metric == "segment" and length == "duration"
    clips = list(durations) if by_duration else list(truth.clips)
    for clip in clips:
        ref, est = truth.clips.get(clip, []), system.clips.get(clip, [])
        if metric == "event":
            m.event_file(counts, ref, est, collar or m.Collar(), matching)
        else:
            m.segment_file(counts, ref, est, resolution, durations[clip] if by_duration else None)
    figures = m.results(counts, zero_score=metric == "event")
    rows = [{"class": c, **{k: figures[c].get(k, float("nan")) for k in FIGURES}} for c in [*labels, "micro", "macro"]]
    where = "the durations table" if by_duration else "the ground truth"
    notes = _dropped(system, set(clips), where)
    if by_duration:
        notes += _dropped(truth, set(clips), "the durations table")
    doc = {"protocol": "sed_eval", "metric": metric, "clips": len(clips), "labels": labels,
           "class_wise": {c: figures[c] for c in labels}, "overall": figures["micro"],
           "class_wise_average": figures["macro"]}
    return Report(rows, doc, notes)


def psds(truth_path: str, system_path: str, durations_path: str, *, dtc: float, gtc: float, cttc: float,
         alpha_ct: float, alpha_st: float, max_efpr: float | None) -> Report:
    """psds_eval's PSDS from a folder of operating points (tables in name order)."""
    durations = read_durations(durations_path)
    t = m.truth(read_events(truth_path), durations)
    points: list[m.OperatingPoint] = []
    seen: set[bytes] = set()
    notes = []
    for threshold, path in operating_points(system_path):
        if not m.add_point(points, seen, t, read_events(path), threshold, dtc, gtc, cttc):
            notes.append(f"note: {path}: the same detections as an earlier operating point; skipped (psds_eval)")
    score = m.psds(points, alpha_ct, alpha_st, max_efpr)
    rows = [{"class": "psds", "value": score.value}]
    doc = {"protocol": "psds_eval", "psds": score.value, "max_efpr": score.max_efpr, "classes": t.classes,
           "parameters": {"dtc": dtc, "gtc": gtc, "cttc": cttc, "alpha_ct": alpha_ct, "alpha_st": alpha_st},
           "operating_points": [{"threshold": p.threshold, "tpr": dict(zip(t.classes, p.tpr, strict=True)),
                                 "fpr": dict(zip(t.classes, p.fpr, strict=True)),
                                 "ctr": {c: dict(zip(t.classes, row, strict=True))
                                         for c, row in zip(t.classes, p.ctr, strict=True)}} for p in points],
           "psd_roc": {"efpr": score.efpr, "etpr": score.etpr,
                       "per_class_tpr": dict(zip(t.classes, score.per_class, strict=True))}}
    return Report(rows, doc, notes)


def macro_f1(truth_path: str, system_path: str, durations_path: str, *, dtc: float, gtc: float,
             cttc: float) -> Report:
    """psds_eval's intersection-based macro F1 of one detection table."""
    t = m.truth(read_events(truth_path), read_durations(durations_path))
    dets = read_events(system_path)
    m.refuse_overlaps(dets)
    f_avg, per_class = m.macro_f1(t, m.intersection_counts(t, dets, dtc, gtc, cttc))
    rows = [{"class": c, "value": v} for c, v in [*per_class.items(), ("macro", f_avg)]]
    return Report(rows, {"protocol": "psds_eval", "f_avg": f_avg, "f_per_class": per_class})


def render_report(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json_text({**report.doc, "notes": report.notes}) + "\n"
    names = list(report.rows[0])
    return render([(n, "") for n in names], [[r[n] for n in names] for r in report.rows], fmt)
