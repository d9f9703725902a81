"""Notes that travel with measure values, worded in one place for every command that prints them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from segeval.adapters import Adapter, OverlapAdapter, ToleranceAdapter
from segeval.adapters.base import Label
from segeval.core.words import plural

if TYPE_CHECKING:
    from segeval.adapters.base import Adapted
    from segeval.core.prepared import Prepared
    from segeval.measures.compute import Request


def _why_above_one(adapter: Adapter | None) -> str:
    if isinstance(adapter, OverlapAdapter):
        return "the overlap adapter credits one relevant segment once for every result that overlaps it"
    if isinstance(adapter, ToleranceAdapter):
        return "the tolerance adapter can credit one relevant segment to several results"
    if adapter is None:  # a segment measure (no adapter): only a parameter lets it pass 1
        return (
            "its parameter credits one relevant onset or segment to several results (mgap's match=all, "
            "masp's and masdwp's norm=qrels: docs/speech.md)"
        )
    return f"the {adapter.spec} adapter labels more units relevant than num_rel counts"


def value_notes(
    queries: Sequence[str], requests: Sequence[Request], per_query: Mapping[str, Sequence[Any]]
) -> list[str]:
    """A note for every score measure (nominally in [0, 1]) above 1 for some query, saying why."""
    notes = []
    for x in requests:
        if x.measure.family.fmt != "score" or x.measure.family.upper is None:  # declared unbounded (utility)
            continue
        above = [
            qid
            for qid, v in zip(queries, per_query[x.name], strict=True)
            if isinstance(v, int | float) and v > 1 + 1e-9
        ]
        if above:
            notes.append(
                f"note: {x.name} is above 1 for {len(above)} of {len(queries)} queries "
                f"(first: {above[0]}): {_why_above_one(x.adapter)}"
            )
    return notes


def for_run(run: str, notes: Sequence[str]) -> list[str]:
    """The notes of one run, labelled with it (``note: RUN: ...``), for commands showing several runs."""
    return [f"note: {run}: {n.removeprefix('note: ')}" for n in notes]


def _kind(note: str) -> str:
    """What a note says without its numbers and example ids (two runs' 'above 1' notes are one kind)."""
    return re.sub(r"\d+(?:\.\d+)?", "#", re.sub(r"\((?:first|e\.g\.)[^)]*\)", "", note))


def one_per_kind(labelled: Sequence[tuple[str, str]]) -> list[str]:
    """``(label, note)`` pairs as one note per kind (``...; the same for 2 more: b, c``), without ``note:``."""
    kinds: dict[str, list[tuple[str, str]]] = {}
    for label, note in labelled:
        kinds.setdefault(_kind(unprefixed(note)), []).append((label, unprefixed(note)))
    out = []
    for group in kinds.values():
        (label, note), others = group[0], [lbl for lbl, _ in group[1:]]
        more = f"; the same for {len(others)} more: {', '.join(others)}" if others else ""
        out.append(f"{label}: {note}{more}")
    return out


def unprefixed(note: str) -> str:
    """The note without its ``note: `` prefix (for tables and pages that print their own)."""
    return note.removeprefix("note: ")


def notes_on(notes: Sequence[str], measure: str) -> list[str]:
    """The notes on one measure's values (for a figure of that measure)."""
    pattern = re.compile(rf"(?:^|: ){re.escape(measure)} is above 1 ")
    return [n for n in notes if pattern.search(unprefixed(n))]


#: the keys of :func:`evidence` among the per-query values (merged as measures; :func:`~segeval.core.plan.finished`)
SECONDS, CREDITED = "(times in seconds?)", "(credited once)"
#: a result read as M.S starting after this many times its video's latest judged end is beyond its qrels
BEYOND = 20


def evidence(
    data: Prepared, adapted: Mapping[str, Sequence[Adapted]], time_format: str, default: str | None
) -> dict[str, list[Any]]:
    """Per-query evidence for :func:`evidence_notes` of a segment run (times; results credited once)."""
    out: dict[str, list[Any]] = {}
    start = data.run_columns.get("start")
    if start is None or np.isnan(start).all():
        return out
    if time_format == "mmss":
        out[SECONDS] = seconds_evidence(data)
    if default is not None and default in adapted:
        out[CREDITED] = [int((a.labels == Label.RELEVANT_SEEN).sum()) for a in adapted[default]]
    return out


def evidence_notes(queries: Sequence[str], found: Mapping[str, Sequence[Any]], default: str | None) -> list[str]:
    """The notes of :func:`evidence` (None: a query of a part without it)."""
    notes = seconds_note(queries, found[SECONDS]) if SECONDS in found else []
    seen = sum(n for n in found.get(CREDITED, ()) if n)
    if seen:
        notes.append(
            f"note: no adapter given, so {default} labelled this segment run: {plural(seen, 'result')} "
            f"{'reaches' if seen == 1 else 'reach'} only relevant content an earlier result was credited "
            f"with, and {'counts' if seen == 1 else 'count'} as not relevant, so precision-based figures "
            f"stay within [0, 1] (docs/adapters.md); -a overlap gives the MediaEval reference's figures, "
            f"which credit {'it' if seen == 1 else 'them'} again"
        )
    return notes


def seconds_evidence(data: Prepared) -> list[tuple[int, int, float]]:
    """Per query: (results in judged videos, those beyond :data:`BEYOND` times the latest end, the first's start)."""
    run, q = data.run_columns, data.qrels_columns
    groups = int(max(run["gid"].max(initial=-1), q["gid"].max(initial=-1))) + 1
    latest = np.full(groups, np.nan)
    np.fmax.at(latest, q["gid"], q["end"].astype(np.float64))
    last = latest[run["gid"]]
    judged = np.isfinite(last)
    beyond = judged & (run["start"] > BEYOND * last)
    n = len(data.queries)
    counts = np.bincount(run["qcode"][judged], minlength=n), np.bincount(run["qcode"][beyond], minlength=n)
    out = []
    for k in range(n):
        lo, hi = data.run_bounds[k], data.run_bounds[k + 1]
        first = np.flatnonzero(beyond[lo:hi])
        out.append((int(counts[0][k]), int(counts[1][k]), float(run["start"][lo + first[0]]) if len(first) else np.nan))
    return out


def seconds_note(queries: Sequence[str], evidence: Sequence[tuple[int, int, float] | None]) -> list[str]:
    """A note when more than half of the results in judged videos are beyond their qrels: seconds read as M.S."""
    found = [(qid, e) for qid, e in zip(queries, evidence, strict=True) if e]
    judged, beyond = sum(e[0] for _, e in found), sum(e[1] for _, e in found)
    if not beyond or 2 * beyond <= judged:
        return []
    qid, (_, _, start) = next((qid, e) for qid, e in found if e[1])
    return [
        f"note: the run's times may be seconds read as M.S: {beyond} of {judged} results in videos their "
        f"query's qrels judge start after {BEYOND} times the latest judged end there (first: {qid}, a result "
        f"starting at M.S {int(start) // 60}.{int(start) % 60:02d}, {start:g} s); if the run writes seconds, "
        f"give --time-format seconds (which reads the qrels in seconds too: M.S qrels need the run in M.S; "
        f"me13sh reads M.S only, as the reference; docs/input-checks.md)"
    ]
