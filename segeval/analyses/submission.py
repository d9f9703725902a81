"""Check a submitted run against the collection (docs/input-checks.md, "Submissions against the collection")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import chain

import numpy as np
import pandas as pd

from segeval.core.errors import InputError
from segeval.core.notes import BEYOND
from segeval.core.segment import interior_overlap
from segeval.core.words import plural
from segeval.readers.blocks import line_texts
from segeval.readers.collection import Collection, IdList, read_blacklist, read_queries, read_videos

OnError = Callable[[InputError], None]


@dataclass(frozen=True)
class Rules:
    """What a run is checked (or fixed) against; ``None`` turns the rules that need it off."""

    videos: Collection | None = None
    blacklist: IdList | None = None
    queries: IdList | None = None
    max_rank: int | None = None

    @classmethod
    def read(cls, videos: str | None, blacklist: str | None, queries: str | None, max_rank: int | None) -> Rules:
        """The rules of --videos, --blacklist, --queries and --max-rank (a file's problem raised)."""
        return cls(
            read_videos(videos) if videos is not None else None,
            read_blacklist(blacklist) if blacklist is not None else None,
            read_queries(queries) if queries is not None else None,
            max_rank,
        )


@dataclass
class Result:
    """One run line's values (times in seconds; NaN for document runs)."""

    line: int
    query: str
    video: str
    start: float
    end: float
    jumpin: float
    rank: int


def results(run: pd.DataFrame) -> list[Result]:
    """The run's rows as :class:`Result` objects, in file order."""
    jumpin = run["jumpin"].to_numpy(dtype=np.float64) if "jumpin" in run else np.full(len(run), np.nan)
    columns = [run[c].to_numpy() for c in ("line", "query", "item", "start", "end")] + [jumpin, run["rank"].to_numpy()]
    return [
        Result(int(line), str(query), str(video), float(start), float(end), float(jump), int(rank))
        for line, query, video, start, end, jump, rank in zip(*columns, strict=True)
    ]


def by_query(rows: list[Result]) -> dict[str, list[Result]]:
    """Each query's results in rank order, equal ranks in file order; queries in order of appearance."""
    groups: dict[str, list[Result]] = defaultdict(list)
    for row in rows:
        groups[row.query].append(row)
    return {query: sorted(group, key=lambda r: (r.rank, r.line)) for query, group in groups.items()}


def check_submission(run: pd.DataFrame, rules: Rules, on_error: OnError, time_format: str = "mmss") -> None:
    """Report every problem of ``run`` against ``rules`` to ``on_error``, in line order."""
    path = str(run.attrs.get("path", "<data>"))
    rows = results(run)
    by_line = chain(
        _line_problems(rows, rules, time_format), *(_query_problems(*q, rules) for q in by_query(rows).items())
    )
    found = sorted(by_line, key=lambda p: p[0])
    source = line_texts(path, (p[0] for p in found)) if path != "<data>" else None
    for line, problem, kind in found:
        on_error(InputError(path, problem, line=line, text=source[line] if source is not None else None, kind=kind))
    if rules.queries is not None:
        present = set(run["query"].astype(str))
        for query, number in rules.queries.lines.items():
            if query not in present:
                where = f"{rules.queries.path}, line {number}"
                problem = (
                    f"has no result for query '{query}' ({where}); expected results for every query of the queries file"
                )
                on_error(InputError(path, problem, kind="missing query"))


def collection_problems(row: Result, rules: Rules) -> Iterator[tuple[str, str, str]]:
    """The collection files' rules ``row`` breaks (check reports them, fix drops the row): kind, problem, expected."""
    if rules.queries is not None and row.query not in rules.queries.lines:
        expected = f"one of its {plural(len(rules.queries.lines), 'query', 'queries')}"
        yield "unknown query", f"query '{row.query}' is not in the queries file {rules.queries.path}", expected
    if rules.videos is not None and row.video not in rules.videos.durations:
        expected = f"one of its {plural(len(rules.videos.durations), 'video')}"
        yield "unknown video", f"video '{row.video}' is not in the video list {rules.videos.path}", expected
    if rules.blacklist is not None and row.video in rules.blacklist.lines:
        where = f"{rules.blacklist.path} (line {rules.blacklist.lines[row.video]})"
        yield "blacklisted video", f"video '{row.video}' is on the blacklist {where}", "a video that is not blacklisted"


def _line_problems(rows: list[Result], rules: Rules, time_format: str) -> Iterator[tuple[int, str, str]]:
    videos, by_row = rules.videos, replace(rules, queries=None)  # an unknown query: once (_query_problems)
    for row in rows:
        for kind, problem, expected in collection_problems(row, by_row):
            yield row.line, f"{problem}; expected {expected}", kind
        if np.isnan(row.start) or row.end < row.start:
            continue  # a document run (no times), or reversed times (validate_run reports them)
        if videos is not None and row.video in videos.durations:
            duration = videos.durations[row.video]
            for name, value in (("starts", row.start), ("ends", row.end), ("jumps in", row.jumpin)):
                if value > duration:
                    # far past the end (the seconds note's rule, segeval.core.notes.BEYOND), within it read as seconds
                    hint = (
                        "; an M.S time: if the run writes seconds, give --time-format seconds"
                        if time_format == "mmss" and BEYOND * duration < value <= 60 * duration
                        else ""
                    )
                    yield (
                        row.line,
                        f"the result {name} at {value:g} s, after the end of video '{row.video}' "
                        f"({duration:g} s, {videos.path} line {videos.lines[row.video]}); expected "
                        f"times within the video{hint}",
                        "past the end",
                    )
                    break
        if row.end == row.start:
            yield (
                row.line,
                (f"the result has no length (start = end = {row.start:g} s); expected end > start"),
                "zero length",
            )


def _query_problems(query: str, group: list[Result], rules: Rules) -> Iterator[tuple[int, str, str]]:
    first = min(group, key=lambda r: r.line)
    for kind, problem, expected in collection_problems(first, Rules(queries=rules.queries)):
        where = f"{plural(len(group), 'result')}, the first on this line"
        yield first.line, f"{problem} ({where}); expected {expected}", kind
    for position, row in enumerate(group, start=1):
        if row.rank != position:
            yield (
                row.line,
                f"query '{query}' has rank {row.rank} here where rank {position} comes next in rank "
                f"order; expected ranks 1 to {len(group)} (its number of results), each once",
                "ranks not 1..n",
            )
            break
    if rules.max_rank is not None and len(group) > rules.max_rank:
        row = group[rules.max_rank]
        yield (
            row.line,
            f"query '{query}' has {plural(len(group), 'result')}, and this is result {rules.max_rank + 1} in "
            f"rank order; expected at most {rules.max_rank} (--max-rank)",
            "too many results",
        )
    if group and np.isnan(group[0].start):
        return
    same_video: dict[str, list[Result]] = defaultdict(list)
    for row in group:
        if row.end >= row.start:
            same_video[row.video].append(row)
    found = [(row, other) for rows in same_video.values() for row, other in _first_overlaps(rows)]
    for row, other in sorted(found, key=lambda pair: pair[0].line):
        yield (
            row.line,
            f"the result (video '{row.video}', {row.start:g}-{row.end:g} s, rank {row.rank}) "
            f"overlaps an earlier result of query '{query}' on line {other.line} "
            f"({other.start:g}-{other.end:g} s, rank {other.rank}); expected the results of "
            f"one query not to overlap",
            "overlap",
        )


#: rows of the overlap matrix compared at once (memory: this many times the group's size)
_BLOCK = 2048


def _first_overlaps(rows: list[Result]) -> Iterator[tuple[Result, Result]]:
    """Each result (in rank order) that overlaps an earlier one, with the earliest such."""
    start = np.array([r.start for r in rows])
    end = np.array([r.end for r in rows])
    for first in range(1, len(rows), _BLOCK):
        i = np.arange(first, min(first + _BLOCK, len(rows)))
        hit = interior_overlap(start[i, None], end[i, None], start[None, : i[-1]], end[None, : i[-1]])
        hit &= np.arange(i[-1])[None, :] < i[:, None]  # earlier ones only
        for k in np.flatnonzero(hit.any(axis=1)).tolist():
            yield rows[int(i[k])], rows[int(np.argmax(hit[k]))]
