"""Reading DCASE task 4's tables: events (``filename onset offset event_label``, tab-separated, with a
header), clip durations (``filename duration``) and a folder of operating points
(``*_th_<threshold>.tsv``, or any ``.tsv``, in name order).

A clip without events may be a row with onset, offset and label empty.  Bad rows are refused with the
file, line and text (exit 2); docs/sed.md lists what the official tools do instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from segeval.errors import InputError
from segeval.io.files import read_text
from segeval.io.formats import parse_seconds

EVENT_COLUMNS = ("filename", "onset", "offset", "event_label")
_EVENT_EXPECTED = "a tab-separated row: filename, onset and offset in seconds (onset <= offset), event_label"


@dataclass(frozen=True)
class Event:
    """One event: onset and offset in seconds, its label and the line it came from."""

    onset: float
    offset: float
    label: str
    line: int


@dataclass
class Events:
    """A table of events: per clip (in order of first appearance) its events in file order."""

    path: str
    clips: dict[str, list[Event]] = field(default_factory=dict)

    def labels(self) -> set[str]:
        return {e.label for events in self.clips.values() for e in events}


def _rows(path: str, columns: tuple[str, ...], expected: str) -> list[tuple[int, str, list[str]]]:
    """The rows of a headed TSV as (line, text, cells in ``columns`` order)."""
    lines = read_text(path).splitlines()
    if not lines:
        raise InputError(path, f"empty file; expected a header line {chr(9).join(columns)!r}")
    head = lines[0].split("\t")
    missing = [c for c in columns if c not in head]
    if missing:
        raise InputError(path, f"no column {missing[0]!r} in the header; expected the columns {', '.join(columns)}",
                         line=1, text=lines[0])
    where = [head.index(c) for c in columns]
    out = []
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        cells = text.split("\t")
        if len(cells) != len(head):
            raise InputError(path, f"{len(cells)} cells, the header has {len(head)}; expected {expected}",
                             line=number, text=text)
        out.append((number, text, [cells[k] for k in where]))
    return out


def read_events(path: str) -> Events:
    """An event table; a row with empty onset, offset and label lists a clip without events."""
    table = Events(path)
    for number, text, (clip, onset, offset, label) in _rows(path, EVENT_COLUMNS, _EVENT_EXPECTED):
        events = table.clips.setdefault(clip, [])
        if not clip:
            raise InputError(path, f"empty filename; expected {_EVENT_EXPECTED}", line=number, text=text)
        if onset == offset == label == "":
            continue
        on, off = parse_seconds(onset), parse_seconds(offset)
        if on is None or off is None or not label or on > off:
            raise InputError(path, f"expected {_EVENT_EXPECTED}", line=number, text=text)
        events.append(Event(on, off, label, number))
    return table


def read_durations(path: str) -> dict[str, float]:
    """Clip -> duration in seconds (a repeated clip keeps its first duration, as psds_eval does)."""
    out: dict[str, float] = {}
    expected = "a tab-separated row: filename, duration in seconds (> 0)"
    for number, text, (clip, value) in _rows(path, ("filename", "duration"), expected):
        seconds = parse_seconds(value)
        if not clip or seconds is None or seconds <= 0:
            raise InputError(path, f"expected {expected}", line=number, text=text)
        out.setdefault(clip, seconds)
    return out


def operating_points(folder: str) -> list[tuple[str, str]]:
    """(threshold text, path) of each ``.tsv`` of ``folder`` in name order; the threshold is what follows
    the last ``_th_`` of the name (else the name)."""
    if not os.path.isdir(folder):
        raise InputError(folder, "not a folder; expected a folder of detection tables, one per operating point")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".tsv"))
    if not names:
        raise InputError(folder, "no .tsv file; expected detection tables such as predictions_th_0.50.tsv")
    return [(n[:-4].rpartition("_th_")[2], os.path.join(folder, n)) for n in names]
