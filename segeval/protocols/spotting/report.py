"""The figures of ``segeval spot`` as text, JSON (the official result's keys) or CSV.

Every figure is printed in full (``repr`` of the float64, shortest round-trip), so each equals the
official one digit for digit; the JSON keys are those of the official ``evaluate`` result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segeval.protocols.spotting.ap import VARIANTS, Figures
from segeval.protocols.spotting.read import CLASSES
from segeval.reports.escaping import csv_text, json_text

#: the official result key of each variant's average-mAP (its per-class list: ``_per_class`` inserted)
KEYS = {"all": "a_mAP", "visible": "a_mAP_visible", "unshown": "a_mAP_unshown"}


def _per_class_key(variant: str) -> str:
    return "a_mAP_per_class" + ("" if variant == "all" else f"_{variant}")


def as_json(results: Sequence[Figures], games: int, notes: Sequence[str]) -> str:
    """The official keys per metric, with segeval's additions (tolerances, mAP at each tolerance)."""
    doc: dict[str, Any] = {"protocol": "soccernet", "games": games, "classes": list(CLASSES), "framerate": 2}
    for f in results:
        entry: dict[str, Any] = {"tolerances_seconds": list(f.tolerances)}
        for v in VARIANTS:
            entry[KEYS[v]] = f.a_map[v]
            entry[_per_class_key(v)] = f.a_map_per_class[v]
        for v in VARIANTS:
            entry["mAP_at_tolerance" + ("" if v == "all" else f"_{v}")] = f.map_at[v]
        doc[f.metric] = entry
    doc["notes"] = list(notes)
    return json_text(doc, indent=1) + "\n"


def as_csv(results: Sequence[Figures]) -> str:
    """``metric,variant,class,value``: class ``mean`` for the average-mAP over the classes."""
    rows: list[list[Any]] = [["metric", "variant", "class", "a_mAP"]]
    for f in results:
        for v in VARIANTS:
            rows.append([f.metric, v, "mean", repr(f.a_map[v])])
            rows += [[f.metric, v, name, repr(x)] for name, x in zip(CLASSES, f.a_map_per_class[v], strict=True)]
    return csv_text(rows)


def as_text(results: Sequence[Figures], games: int) -> str:
    """The average-mAP of each metric, then the per-class table."""
    width = max(len(c) for c in CLASSES)
    lines = [f"SoccerNet action spotting, {games} game{'s' if games != 1 else ''}, average-mAP"]
    lines.append(f"{'metric':<8} {'tolerances (s)':<16} {'all':<22} {'visible':<22} {'unshown (x17/13)':<22}")
    for f in results:
        tol = ",".join(map(str, f.tolerances)) if len(f.tolerances) <= 5 else \
            f"{f.tolerances[0]}..{f.tolerances[-1]}"
        unshown_head = repr(f.a_map["unshown"])
        lines.append(f"{f.metric:<8} {tol:<16} {f.a_map['all']!r:<22} {f.a_map['visible']!r:<22} {unshown_head:<22}")
    for f in results:
        lines.append("")
        lines.append(f"{f.metric}: per class")
        lines.append(f"{'class':<{width}} {'all':<22} {'visible':<22} {'unshown':<22}")
        for i, name in enumerate(CLASSES):
            cells = " ".join(f"{f.a_map_per_class[v][i]!r:<22}" for v in VARIANTS)
            lines.append(f"{name:<{width}} {cells}".rstrip())
    return "\n".join(line.rstrip() for line in lines) + "\n"
