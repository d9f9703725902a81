"""Repair a submitted run, logging every change (docs/input-checks.md, 'segeval fix')."""

from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from operator import attrgetter

import pandas as pd

from segeval.analyses.submission import Result, Rules, by_query, collection_problems, results
from segeval.core.domains import POSITIVE
from segeval.core.errors import ParameterError, check_choice, shown
from segeval.core.words import plural
from segeval.readers.blocks import line_texts
from segeval.readers.formats import RUN_FORMATS, TIME_PARSERS, format_time

OVERLAP_POLICIES = ("trim", "drop")
DEFAULT_ZERO_LENGTH = 1.0
_SPACE = re.compile(r"([\t\n\v\f\r ]+)")
Note = Callable[[Result, str], None]
Time = Callable[[float], str]
START, END = attrgetter("start"), attrgetter("end")


@dataclass
class Fixed:
    """A repaired run: its text, the log lines, and the queries of the queries file left without results."""

    text: str
    log: list[str]
    missing: list[str]


def fix_submission(
    run: pd.DataFrame,
    rules: Rules,
    time_format: str = "mmss",
    *,
    zero_length: float = DEFAULT_ZERO_LENGTH,
    overlap: str = "trim",
) -> Fixed:
    """Repair ``run`` (as read, strictly) against ``rules``; the steps: docs/input-checks.md ('segeval fix')."""
    check_choice("overlap", overlap, OVERLAP_POLICIES)
    POSITIVE.check("zero_length", zero_length)
    if time_format == "mmss" and zero_length % 1:
        raise ParameterError(
            f"The 'zero_length' parameter must be whole seconds for M.S times. Got {shown(zero_length)} instead."
        )
    path = str(run.attrs.get("path", "<data>"))
    fmt = next(f for f in RUN_FORMATS.values() if f.name == run.attrs.get("format"))
    column = {f.name: i for i, f in enumerate(fmt.fields)}
    log: list[tuple[int, int, str]] = []
    rows = results(run)
    original = {r.line: Result(**vars(r)) for r in rows}

    def note(row: Result, action: str) -> None:
        log.append((row.line, len(log), f"{path}, line {row.line}: {action}"))

    time = partial(format_time, time_format=time_format)
    parse = TIME_PARSERS[time_format]

    def snap(value: float) -> float:  # the value as written and read back
        read = parse(time(value))
        assert read is not None
        return float(read)

    kept = [row for row in rows if _keep(row, rules, note)]
    if rows and not math.isnan(rows[0].start):
        kept = [row for row in kept if _fix_times(row, rules, zero_length, note, time, snap, time_format == "mmss")]
    out: list[Result] = []
    for query, group in by_query(kept).items():
        if not math.isnan(group[0].start):
            group = _remove_overlaps(group, overlap, note, time)
        if rules.max_rank is not None:
            for row in group[rules.max_rank :]:
                note(
                    row,
                    f"dropped: result {group.index(row) + 1} of query '{query}' in rank order; expected at "
                    f"most {plural(rules.max_rank, 'result')} (--max-rank)",
                )
            group = group[: rules.max_rank]
        for position, row in enumerate(group, start=1):
            if row.rank != position:
                note(row, f"rank {row.rank} -> {position} (ranks 1..n in rank order)")
                row.rank = position
        out += group
    out.sort(key=lambda r: r.line)
    log.sort()
    source = line_texts(path, (row.line for row in out))
    text = "".join(_line(source[row.line], row, original[row.line], column, time) + "\n" for row in out)
    present = {row.query for row in out}
    missing = [q for q in rules.queries.lines if q not in present] if rules.queries is not None else []
    return Fixed(text, [entry for _, _, entry in log], missing)


def _keep(row: Result, rules: Rules, note: Note) -> bool:
    """Step 1: False, with a note, when ``row`` breaks a rule of the collection files (the first it breaks)."""
    broken = next(collection_problems(row, rules), None)
    if broken is not None:
        note(row, f"dropped: {broken[1]}")
    return broken is None


def _fix_times(
    row: Result, rules: Rules, zero_length: float, note: Note, time: Time, snap: Callable[[float], float], whole: bool
) -> bool:
    """Steps 2 to 4 on one result; False when it is dropped."""
    if row.end < row.start:
        note(row, f"start {time(row.start)} and end {time(row.end)} swapped (the end was earlier than the start)")
        row.start, row.end = row.end, row.start
    limit = math.inf
    if rules.videos is not None:
        duration = rules.videos.durations[row.video]
        limit = float(math.floor(duration)) if whole else snap(duration)  # the latest writable time in the video
        if limit > duration:  # rounding to 9 decimals went past the end: one nanosecond earlier
            limit = snap(max(0.0, duration - 1e-9))  # a negative time has no text to snap through
        where = f"video '{row.video}' ({duration:g} s)"
        if row.start > limit:  # after the end (M.S: limit = the whole second at or before it)
            note(row, f"dropped: it starts at {time(row.start)}, after the end of {where}")
            return False
        if row.end > duration:
            note(row, f"end {time(row.end)} -> {time(limit)}, the end of {where}")
            row.end = limit
        if row.jumpin > duration:
            note(row, f"jump-in {time(row.jumpin)} -> {time(limit)}, the end of {where}")
            row.jumpin = limit
    if row.end == row.start:
        start, end = row.start, min(snap(row.start + zero_length), limit)
        if end < snap(start + zero_length):
            start = snap(max(0.0, end - zero_length))  # a negative time has no text to snap through
        if start == end:
            note(row, f"dropped: it has no length and its video is shorter than {zero_length:g} s")
            return False
        note(
            row,
            f"no length: {time(row.start)}-{time(row.end)} -> {time(start)}-{time(end)} "
            f"(zero length {zero_length:g} s)",
        )
        row.start, row.end = start, end
    return True


def _remove_overlaps(group: list[Result], policy: str, note: Note, time: Time) -> list[Result]:
    """Step 5 on one query's results in rank order: the results kept."""
    kept: list[Result] = []
    earlier: dict[str, list[Result]] = defaultdict(list)  # the kept results of each video by start (and so by end)
    for row in group:
        taken = earlier[row.video]
        hit = taken[bisect.bisect_right(taken, row.start, key=END) : bisect.bisect_left(taken, row.end, key=START)]
        if hit:
            lines = ", ".join(str(other.line) for other in sorted(hit, key=lambda r: r.line))
            many = "s" if len(hit) > 1 else ""
            piece = _longest_free(row.start, row.end, hit) if policy == "trim" else None
            if piece is None:
                note(
                    row,
                    f"dropped: it overlaps the earlier result{many} of query '{row.query}' on line{many} "
                    f"{lines} (overlap policy {policy})",
                )
                continue
            note(
                row,
                f"{time(row.start)}-{time(row.end)} -> {time(piece[0])}-{time(piece[1])}, off the earlier "
                f"result{many} on line{many} {lines} (overlap policy trim)",
            )
            row.start, row.end = piece
        bisect.insort_left(taken, row, key=START)
        kept.append(row)
    return kept


def _longest_free(start: float, end: float, hits: list[Result]) -> tuple[float, float] | None:
    """The longest part of [start, end] outside ``hits`` (the earliest of equal ones), or None."""
    free, cursor = [], start
    for other in hits:
        if other.start > cursor:
            free.append((cursor, other.start))
        cursor = max(cursor, other.end)
    if cursor < end:
        free.append((cursor, end))
    return max(free, key=lambda p: (p[1] - p[0], -p[0])) if free else None


def _line(text: str, row: Result, before: Result, column: dict[str, int], time: Time) -> str:
    """The line's text with the changed fields rewritten (separators kept)."""
    changes: dict[int, str] = {}
    for name in ("start", "end", "jumpin"):
        if name in column and getattr(row, name) != getattr(before, name):
            changes[column[name]] = time(getattr(row, name))
    if row.rank != before.rank:
        changes[column["rank"]] = str(row.rank)
    if not changes:
        return text
    parts = _SPACE.split(text)
    index = 0
    for i, part in enumerate(parts):
        if i % 2 == 0 and part:
            if index in changes:
                parts[i] = changes[index]
            index += 1
    return "".join(parts)
