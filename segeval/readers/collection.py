"""Readers of a benchmark's collection files (the hyperlinking toolkit's ``data/`` lists): the video list with
durations, the blacklist and the queries."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from segeval.core.errors import InputError
from segeval.readers.files import read_bytes
from segeval.readers.formats import parse_hms, parse_seconds, wrong_count
from segeval.readers.line_parser import text_lines

VIDEOS_EXAMPLE = "v20080512_001000_bbcone_weatherview 00:05:54"
DURATION_EXPECTED = "a duration in seconds ('354' or '354.5') or as H:MM:SS ('0:05:54' or '00:05:54.5')"


@dataclass(frozen=True)
class Collection:
    """The videos of a collection: duration in seconds and the line that lists each, by video id."""

    path: str
    durations: dict[str, float]
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class IdList:
    """Ids listed one per line (a blacklist, the queries): the line of each, in file order."""

    path: str
    lines: dict[str, int]


def read_videos(path: str | Path) -> Collection:
    """Read ``video duration`` lines (duration in seconds or H:MM:SS, more than 0); each video once."""
    name = str(path)
    durations: dict[str, float] = {}
    lines: dict[str, int] = {}
    for number, text, tokens in text_lines(read_bytes(path), name):
        video, token = tokens[0], tokens[-1]
        duration = parse_seconds(token) if ":" not in token else parse_hms(token)
        if len(tokens) != 2:
            expected = f"2 fields for a video list line, 'video duration', such as '{VIDEOS_EXAMPLE}'"
            raise wrong_count(name, number, text, len(tokens), expected)
        if duration is None:
            problem, kind = f"the duration is '{token}'; expected {DURATION_EXPECTED}", "bad duration"
        elif duration <= 0:
            problem, kind = f"the duration of video '{video}' is {token}; expected a duration above 0", "bad duration"
        elif video in durations:
            problem = f"video '{video}' is listed again (first on line {lines[video]}); expected each video once"
            kind = "duplicate video"
        else:
            durations[video], lines[video] = duration, number
            continue
        raise InputError(name, problem, line=number, text=text, kind=kind)
    if not durations:
        raise InputError(name, f"has no data lines; expected 'video duration' lines such as '{VIDEOS_EXAMPLE}'")
    return Collection(name, durations, lines)


def read_blacklist(path: str | Path) -> IdList:
    """Read a blacklist: one video id per line (an empty file blacklists nothing)."""
    name = str(path)
    lines: dict[str, int] = {}
    for number, text, tokens in text_lines(read_bytes(path), name):
        if len(tokens) != 1:
            raise wrong_count(name, number, text, len(tokens), "one video id per blacklist line")
        lines.setdefault(tokens[0], number)
    return IdList(name, lines)


#: the hyperlinking toolkit's query files are XML with one ``<anchorId>`` or ``<queryId>`` per query
_XML_ID = re.compile(rb"<(anchorId|queryId)>\s*([^<\s]+)\s*</\1>")


def read_queries(path: str | Path) -> IdList:
    """The queries, each once: the first field of each line, or the toolkit's XML ``<anchorId>``/``<queryId>``."""
    name = str(path)
    data = read_bytes(path)
    found: list[tuple[int, str, str]] = []
    if data.lstrip().startswith(b"<"):
        for match in _XML_ID.finditer(data):
            number = data.count(b"\n", 0, match.start()) + 1
            found.append((number, match.group(2).decode("utf-8", "replace"), match.group(0).decode("utf-8", "replace")))
        if not found:
            raise InputError(
                name,
                "is XML without <anchorId> or <queryId> elements; expected the toolkit's "
                "anchors or queries XML, or one query id per line",
                kind="no queries",
            )
    else:
        found = [(number, tokens[0], text) for number, text, tokens in text_lines(data, name)]
        if not found:
            raise InputError(name, "has no data lines; expected one query id per line", kind="no queries")
    lines: dict[str, int] = {}
    for number, query, text in found:
        if query in lines:
            why = f"query '{query}' is listed again (first on line {lines[query]}); expected each query once"
            raise InputError(name, why, line=number, text=text, kind="duplicate query")
        lines[query] = number
    return IdList(name, lines)
