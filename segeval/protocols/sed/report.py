"""``segeval sed``: which clips are scored (the DCASE task 4 wrapper's choices), the notes, and the figures as
text, JSON or CSV (docs/sed.md)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any

from segeval.adapters.collar import Collar
from segeval.core.errors import InputError, ParameterError
from segeval.core.words import plural
from segeval.protocols.sed import measures as m
from segeval.protocols.sed.read import (
    Event,
    Events,
    Shared,
    operating_points,
    read_durations,
    read_events,
    read_score_folder,
)
from segeval.reports.escaping import json_text
from segeval.reports.tables import render

FIGURES = (
    "Nref",
    "Nsys",
    "f_measure",
    "precision",
    "recall",
    "error_rate",
    "substitution_rate",
    "deletion_rate",
    "insertion_rate",
)


@dataclass
class Report:
    """What ``segeval sed`` prints: a table of rows, a JSON document and the notes."""

    rows: list[dict[str, Any]]
    doc: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def _dropped(system: Events, kept: set[str], what: str) -> list[str]:
    extra = [c for c, evs in system.clips.items() if c not in kept and evs]
    if not extra:
        return []
    n = sum(len(system.clips[c]) for c in extra)
    return [
        f"note: {system.path}: {plural(n, 'detection')} in {plural(len(extra), 'clip')} not in {what} "
        f"left out (as the DCASE wrapper does), first {extra[0]!r}"
    ]


def sed_eval(
    truth_path: str,
    system_path: str,
    durations_path: str | None,
    metric: str,
    *,
    collar: Collar | None = None,
    matching: str = "optimal",
    resolution: float = 1.0,
    length: str = "last-offset",
) -> Report:
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
            m.event_file(counts, ref, est, collar or Collar(), matching)
        else:
            m.segment_file(counts, ref, est, resolution, durations[clip] if by_duration else None)
    figures = m.results(counts, zero_score=metric == "event")
    rows = [{"class": c, **{k: figures[c].get(k, float("nan")) for k in FIGURES}} for c in [*labels, "micro", "macro"]]
    where = "the durations table" if by_duration else "the ground truth"
    notes = _dropped(system, set(clips), where)
    if by_duration:
        notes += _dropped(truth, set(clips), "the durations table")
    doc = {
        "protocol": "sed_eval",
        "metric": metric,
        "clips": len(clips),
        "labels": labels,
        "class_wise": {c: figures[c] for c in labels},
        "overall": figures["micro"],
        "class_wise_average": figures["macro"],
    }
    return Report(rows, doc, notes)


def psds(
    truth_path: str,
    system_path: str,
    durations_path: str,
    criteria: m.Criteria,
) -> Report:
    """psds_eval's PSDS from a folder of operating points (tables in name order)."""
    durations = read_durations(durations_path)
    t = m.truth(read_events(truth_path), durations)
    points: list[m.OperatingPoint] = []
    seen: set[bytes] = set()
    notes = []
    shared = Shared()
    for threshold, path in operating_points(system_path):
        dets = read_events(path, shared)
        order = m.refuse_overlaps(dets)
        if (key := m.table_key(dets)) in seen:  # zero-length events left out
            notes.append(f"note: {path}: the same detections as an earlier operating point; skipped (psds_eval)")
            continue
        seen.add(key)
        points.append(m.rates(t, m.intersection_counts(t, dets, order, criteria), threshold))
    score = m.psds(points, criteria)
    rows = [{"class": "psds", "value": score.value}]
    doc = {
        "protocol": "psds_eval",
        "psds": score.value,
        "max_efpr": score.max_efpr,
        "classes": t.classes,
        "parameters": {k: v for k, v in asdict(criteria).items() if k != "max_efpr"},
        "operating_points": [
            {
                "threshold": p.threshold,
                "tpr": dict(zip(t.classes, p.tpr, strict=True)),
                "fpr": dict(zip(t.classes, p.fpr, strict=True)),
                "ctr": {c: dict(zip(t.classes, row, strict=True)) for c, row in zip(t.classes, p.ctr, strict=True)},
            }
            for p in points
        ],
        "psd_roc": {
            "efpr": score.efpr,
            "etpr": score.etpr,
            "per_class_tpr": dict(zip(t.classes, score.per_class, strict=True)),
        },
    }
    return Report(rows, doc, notes)


def macro_f1(truth_path: str, system_path: str, durations_path: str, criteria: m.Criteria) -> Report:
    """psds_eval's intersection-based macro F1 of one detection table."""
    t = m.truth(read_events(truth_path), read_durations(durations_path))
    dets = read_events(system_path)
    f_avg, per_class = m.macro_f1(t, m.intersection_counts(t, dets, m.refuse_overlaps(dets), criteria))
    rows = [{"class": c, "value": v} for c, v in [*per_class.items(), ("macro", f_avg)]]
    return Report(rows, {"protocol": "psds_eval", "f_avg": f_avg, "f_per_class": per_class})


def sed_scores(
    truth_path: str,
    folder: str,
    durations_path: str,
    criteria: m.Criteria,
) -> Report:
    """sed_scores_eval's threshold-free PSDS from a folder of frame-score tables, on the clips of the
    ground truth that have events (the DCASE recipe), each clip ``<name without extension>.tsv``."""
    max_efpr, cttc, alpha_ct = criteria.max_efpr, criteria.cttc, criteria.alpha_ct
    if max_efpr is None:
        raise ParameterError("--psds-tool sed_scores_eval needs a number for --max-efpr, not 'none'.")
    if (alpha_ct == 0.0) != (cttc is None):
        raise ParameterError(
            "sed_scores_eval takes --cttc only with --alpha-ct > 0 (and needs it then). "
            f"Got cttc={cttc!r} and alpha_ct={alpha_ct!r}."
        )
    truth, durations = read_events(truth_path), read_durations(durations_path)
    events = {clip: evs for clip, evs in truth.clips.items() if evs}
    missing = [c for c in events if c not in durations]
    if missing:
        raise InputError(durations_path, f"no duration for {missing[0]!r} of the ground truth")
    paths = [os.path.join(folder, clip.rsplit(".", 1)[0] + ".tsv") for clip in events]
    classes, tables = read_score_folder(paths)
    if not classes:
        raise InputError(truth_path, "no event; sed_scores_eval scores the clips with events")
    clips = []
    n_ref, t_ref = dict.fromkeys(classes, 0), dict.fromkeys(classes, 0.0)  # events and seconds per class
    for (times, scores), evs in zip(tables, events.values(), strict=True):
        by_label: dict[str, list[Event]] = {}
        for e in evs:
            by_label.setdefault(e.label, []).append(e)
            if e.label in n_ref:
                n_ref[e.label] += 1
                t_ref[e.label] += e.offset - e.onset
        for same in by_label.values():  # sed_scores_eval: each onset after the previous event's offset
            ordered = sorted(same, key=lambda e: (e.onset, e.offset))
            for a, b in pairwise(ordered):
                if not b.onset > a.offset:
                    raise InputError(
                        truth_path,
                        f"this {b.label!r} event touches or intersects the one on line "
                        f"{a.line}; sed_scores_eval refuses connected events of one class",
                        line=b.line,
                    )
        clips.append((times, scores, by_label))
    counts = m.score_counts(classes, clips, criteria)
    absent = [c for c in classes if not n_ref[c]]
    if absent:
        raise InputError(
            truth_path,
            f"no event of the class {absent[0]!r} of the score tables; sed_scores_eval "
            "refuses a class without ground truth",
        )
    score = m.score_psds(counts, n_ref, t_ref, sum((durations[c] for c in events), 0.0), criteria, max_efpr)
    doc = {
        "protocol": "sed_scores_eval",
        "psds": score.value,
        "single_class_psds": score.per_class_value,
        "clips": len(clips),
        "classes": classes,
        "max_efpr": max_efpr,
        "psd_roc": {"efpr": score.efpr, "etpr": score.etpr},
        "roc": {c: {"tpr": t, "efpr": e} for c, (t, e) in score.roc.items()},
    }
    return Report([{"class": "psds", "value": score.value}], doc)


def plot(report: Report, output: str) -> None:
    """Each class's ROC (TPR against eFPR per hour, steps) and the PSD-ROC of a PSDS report (``segeval[plot]``)."""
    from segeval import figures as viz

    doc = report.doc
    plt = viz.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    psd = (doc["psd_roc"]["etpr"], doc["psd_roc"]["efpr"])
    if doc["protocol"] == "psds_eval":  # the classes' TPR on the common eFPR axis
        curves = {c: (y, psd[1]) for c, y in doc["psd_roc"]["per_class_tpr"].items()}
    else:
        curves = {c: (r["tpr"], r["efpr"]) for c, r in doc["roc"].items()}
    for k, (c, (y, xs)) in enumerate(curves.items()):
        colour, line, _ = viz.run_style(k)
        ax.step(xs, y, where="post", color=colour, linestyle=line, linewidth=1, label=viz.label(c))
    ax.step(psd[1], psd[0], where="post", color="black", linewidth=2.5, label=f"PSD-ROC (PSDS {doc['psds']:.4f})")
    ax.set_xlim(0, doc["max_efpr"])
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("eFPR per hour")
    ax.set_ylabel("TPR")
    ax.set_title(f"{doc['protocol']}: per-class ROC and PSD-ROC")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    viz.save(fig, output)


def render_report(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json_text({**report.doc, "notes": report.notes}) + "\n"
    names = list(report.rows[0])
    return render([(n, "") for n in names], [[r[n] for n in names] for r in report.rows], fmt)
