"""The figures of ``segeval spot``: JSON with the official result's keys, or rows of text or CSV."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segeval.protocols.spotting.ap import VARIANTS, Figures
from segeval.protocols.spotting.read import ClassSet
from segeval.reports.escaping import json_text
from segeval.reports.tables import AVERAGE_MAP


def _key(stem: str, variant: str) -> str:
    """The official result key of a variant's figure: ``a_mAP``, ``a_mAP_visible``, ``a_mAP_per_class_unshown``..."""
    return stem + ("" if variant == "all" else f"_{variant}")


def variants(classes: ClassSet) -> tuple[str, ...]:
    """The variants the official reports for ``classes`` (SoccerNet-v1: all events only)."""
    return VARIANTS if classes.visibility else VARIANTS[:1]


def as_json(results: Sequence[Figures], games: int, classes: ClassSet, notes: Sequence[str]) -> str:
    """The official keys per metric (null where the official's are), with segeval's tolerances and mAP at each."""
    doc: dict[str, Any] = {
        "protocol": "soccernet",
        "games": games,
        "class_set": classes.name,
        "classes": list(classes.classes),
        "framerate": classes.framerate,
    }
    shown = variants(classes)
    for f in results:
        entry: dict[str, Any] = {"tolerances_seconds": list(f.tolerances)}
        for v in VARIANTS:
            entry[_key("a_mAP", v)] = f.a_map[v] if v in shown else None
            entry[_key("a_mAP_per_class", v)] = f.a_map_per_class[v] if v in shown else None
        for v in shown:
            entry[_key("mAP_at_tolerance", v)] = f.map_at[v]
        doc[f.metric] = entry
    doc["notes"] = list(notes)
    return json_text(doc, indent=1) + "\n"


COLUMNS = (("figure", ""), ("metric", ""), ("variant", ""), ("class", ""), ("value", ""))


def rows(results: Sequence[Figures], classes: ClassSet) -> list[tuple[str, str, str, str, float]]:
    """Per metric and variant the Average-mAP over the classes (class empty), then each class's."""
    out = []
    for f in results:
        for v in variants(classes):
            out.append((AVERAGE_MAP, f.metric, v, "", f.a_map[v]))
            out += [
                (AVERAGE_MAP, f.metric, v, name, x)
                for name, x in zip(classes.classes, f.a_map_per_class[v], strict=True)
            ]
    return out


GAME_COLUMNS = (("figure", ""), ("metric", ""), ("variant", ""), ("game", ""), ("value", ""))


def game_rows(
    games: Sequence[str], per_metric: Sequence[Sequence[Figures]], classes: ClassSet
) -> list[tuple[str, str, str, str, float]]:
    """Each game's Average-mAP over the classes, per metric and variant (``spot --per-game``)."""
    return [
        (AVERAGE_MAP, f.metric, v, game, f.a_map[v])
        for g, game in enumerate(games)
        for results in per_metric
        for f in [results[g]]
        for v in variants(classes)
    ]
