"""The figures of ``segeval spot``: JSON with the official result's keys (full precision, each equal to the
official one digit for digit), or rows of :mod:`segeval.reports.tables` (text, CSV)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segeval.protocols.spotting.ap import VARIANTS, Figures
from segeval.protocols.spotting.read import CLASSES
from segeval.reports.escaping import json_text
from segeval.reports.tables import AVERAGE_MAP

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


COLUMNS = (("figure", ""), ("metric", ""), ("variant", ""), ("class", ""), ("value", ""))


def rows(results: Sequence[Figures]) -> list[tuple[str, str, str, str, float]]:
    """Per metric and variant the Average-mAP over the classes (class empty, as ``detect``'s summary row), then
    each class's."""
    out = []
    for f in results:
        for v in VARIANTS:
            out.append((AVERAGE_MAP, f.metric, v, "", f.a_map[v]))
            out += [(AVERAGE_MAP, f.metric, v, name, x) for name, x in zip(CLASSES, f.a_map_per_class[v], strict=True)]
    return out


GAME_COLUMNS = (("figure", ""), ("metric", ""), ("variant", ""), ("game", ""), ("value", ""))


def game_rows(games: Sequence[str], per_metric: Sequence[Sequence[Figures]]) -> list[tuple[str, str, str, str, float]]:
    """Each game's Average-mAP over the classes, per metric and variant (``spot --per-game``)."""
    return [(AVERAGE_MAP, f.metric, v, game, f.a_map[v]) for g, game in enumerate(games) for results in per_metric
            for f in [results[g]] for v in VARIANTS]
