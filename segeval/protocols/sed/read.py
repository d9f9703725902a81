"""Reading DCASE task 4's tab-separated tables: events (``filename onset offset event_label``), clip durations
(``filename duration``), frame scores and folders of operating points; bad rows refused with the file, line and
text (docs/sed.md)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NoReturn

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.readers.files import read_bytes
from segeval.readers.formats import parse_float, parse_seconds
from segeval.readers.scanner import Scanned, Words, scan
from segeval.readers.scanner_segments import Codes, GiveUp

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
    """A table of events by column, rows in file order: ``clip`` indexes ``names`` (clips in order of first
    appearance, with or without events), ``label`` indexes ``labels``."""

    path: str
    names: list[str]
    clip: npt.NDArray[np.intp]
    onset: npt.NDArray[np.float64]
    offset: npt.NDArray[np.float64]
    labels: list[str]
    label: npt.NDArray[np.intp]
    line: npt.NDArray[np.intp]

    @cached_property
    def clips(self) -> dict[str, list[Event]]:
        """Per clip, its events in file order."""
        out: dict[str, list[Event]] = {name: [] for name in self.names}
        columns = (self.clip, self.onset, self.offset, self.label, self.line)
        for k, on, off, lab, line in zip(*(c.tolist() for c in columns), strict=True):
            out[self.names[k]].append(Event(on, off, self.labels[lab], line))
        return out


#: a column as codes (one per row) and the distinct cells they number, in order of first appearance
Coded = tuple[npt.NDArray[np.intp], list[str]]


@dataclass
class _Table:
    """A headed TSV's rows: line numbers, the wanted columns (coded), the header and the file's lines."""

    path: str
    numbers: npt.NDArray[np.intp]
    columns: list[Coded]
    head: list[str]
    lines: Callable[[], list[str]]

    def refuse(self, row: int, problem: str) -> NoReturn:
        number = int(self.numbers[row])
        raise InputError(self.path, problem, line=number, text=self.lines()[number - 1])


@dataclass
class Shared:
    """The codes (clips, labels, times) the tables of a folder of operating points share; each time parsed once."""

    clips: Codes = field(default_factory=Codes)
    labels: Codes = field(default_factory=Codes)
    times: Codes = field(default_factory=Codes)
    seconds: list[float | None] = field(default_factory=list)  # the times' values, in code order

    def values(self, column: Coded) -> FloatArray:
        """The seconds of a time column (:func:`_values`)."""
        if column[1] is not self.times.names:  # read by the line parser
            return _values(column)
        self.seconds += [parse_seconds(t) for t in self.times.names[len(self.seconds) :]]
        return np.array([*self.seconds, None], dtype=np.float64)[column[0]]


def _rows(
    path: str, columns: tuple[str, ...], expected: str, data: bytes | None = None, codes: Sequence[Codes | None] = ()
) -> _Table:
    """The rows of a headed TSV (blank lines skipped), each with as many cells as the header: the ``columns``
    (empty: all) coded, with the scanner's ``codes`` of some when shared; ``data``: the bytes, if read already."""
    data = read_bytes(path, lines=False) if data is None else data
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    if not data.strip():
        raise InputError(path, f"empty file; expected a header line {chr(9).join(columns)!r}")
    head = first.split("\t")
    missing = [c for c in columns if c not in head]
    if missing:
        raise InputError(
            path,
            f"no column {missing[0]!r} in the header; expected the columns {', '.join(columns)}",
            line=1,
            text=first,
        )
    where = [head.index(c) for c in columns] if columns else list(range(len(head)))
    try:
        got = _scanned(data, len(head), where)
        if got is not None:  # the byte scanner, for files of well-formed rows only
            coders = [*codes, *[None] * len(where)]
            coded = [_words_coded(coders[i] or Codes(), got.text[k]) for i, k in enumerate(where)]
            return _Table(path, np.arange(2, got.lines + 2), coded, head, lambda: data.decode("utf-8").split("\n"))
    except GiveUp:  # two cells with one hash (never seen)
        pass
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    numbers = [n for n, line in enumerate(lines[1:], start=2) if line.strip()]
    rows = [lines[n - 1].split("\t") for n in numbers]
    for n, row in zip(numbers, rows, strict=True):
        if len(row) != len(head):
            raise InputError(
                path,
                f"{plural(len(row), 'cell')}, the header has {len(head)}; expected {expected}",
                line=n,
                text=lines[n - 1],
            )
    return _Table(
        path, np.array(numbers, dtype=np.intp), [_coded([row[k] for row in rows]) for k in where], head, lambda: lines
    )


def _coded(cells: Sequence[str]) -> Coded:
    code: dict[str, int] = {}
    return np.array([code.setdefault(c, len(code)) for c in cells], dtype=np.intp), list(code)


def _scanned(data: bytes, width: int, where: list[int], numbers: tuple[int, ...] = ()) -> Scanned | None:
    """The rows after the header scanned (``where`` as tokens, ``numbers`` parsed), or None unless each line has
    ``width`` non-empty cells (docs/sed.md, "Reading and order") and the numbers read."""
    body = data.split(b"\n", 1)[1] if b"\n" in data else b""
    rows = body.count(b"\n") + (not body.endswith(b"\n")) if body else 0
    if not rows or b"\r" in body or b"\n\n" in body or b" " in body or body.count(b"\t") != rows * (width - 1):
        return None
    got = scan(body, width, text=tuple(where), floats=numbers)
    return got if got is not None and got.lines == rows else None


def _words_coded(codes: Codes, words: Words) -> Coded:
    return codes.of(words).astype(np.intp), codes.names


def _values(column: Coded, parse: Callable[[str], float | None] = parse_seconds) -> npt.NDArray[np.float64]:
    """Each cell as ``parse`` reads it, NaN where it reads none (each distinct cell parsed once)."""
    codes, distinct = column
    return np.array([parse(t) for t in distinct] + [None], dtype=np.float64)[codes]  # None -> NaN


def read_events(path: str, shared: Shared | None = None) -> Events:
    """An event table (a row with empty onset, offset and label lists a clip without events)."""
    codes = (shared.clips, shared.times, shared.times, shared.labels) if shared else ()
    table = _rows(path, EVENT_COLUMNS, _EVENT_EXPECTED, codes=codes)
    (clip, names), onsets, offsets, (label, labels) = table.columns
    if shared:  # this table's clips, in order of first appearance
        first = dict.fromkeys(clip[np.r_[True, clip[1:] != clip[:-1]]].tolist() if clip.size else [])
        local = np.zeros(len(names), dtype=np.intp)
        local[list(first)] = np.arange(len(first))
        clip, names = local[clip], [names[k] for k in first]
    ons, offs = (shared.values(c) if shared else _values(c) for c in (onsets, offsets))
    blank = [_is_empty(c) for c in (onsets, offsets, (label, labels))]
    empty = blank[0] & blank[1] & blank[2]
    bad = _is_empty((clip, names)) | ~empty & (~(ons <= offs) | blank[2])  # NaN (no number) too
    if bad.any():
        table.refuse(int(np.argmax(bad)), f"expected {_EVENT_EXPECTED}")
    keep = np.flatnonzero(~empty)
    used = np.unique(label[keep])
    order = sorted(used.tolist(), key=labels.__getitem__)
    sorted_code = np.zeros(len(labels), dtype=np.intp)
    sorted_code[order] = np.arange(len(order))
    kept_labels, label_codes = [labels[k] for k in order], sorted_code[label[keep]]
    return Events(path, names, clip[keep], ons[keep], offs[keep], kept_labels, label_codes, table.numbers[keep])


def _is_empty(column: Coded) -> npt.NDArray[np.bool_]:
    codes, distinct = column
    return np.asarray(codes == (distinct.index("") if "" in distinct else -1), dtype=np.bool_)


def read_scores(
    path: str, data: bytes | None = None
) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A frame-score table (``onset offset <class>...``, frames back to back): its classes, the frame boundaries
    and the scores (frames x classes)."""
    expected = (
        "a tab-separated row: frame onset and offset in seconds (onset < offset, the previous offset), "
        "then a finite score per class"
    )
    table = _rows(path, (), expected, data)
    if table.head[:2] != ["onset", "offset"] or len(table.head) < 3:
        raise InputError(path, f"expected a header 'onset, offset, <class>, ...'; got {', '.join(table.head)}", line=1)
    if not table.numbers.size:
        raise InputError(path, f"no frame; expected {expected}")
    columns = table.columns
    onsets, offsets = _values(columns[0]), _values(columns[1])
    values = np.stack([_values(c, parse_float) for c in columns[2:]], axis=1)
    if (bad := _bad_frames(onsets, offsets, values)).any():
        table.refuse(int(np.argmax(bad)), f"expected {expected}")
    return table.head[2:], np.r_[onsets, offsets[-1:]], values


def _bad_frames(onsets: FloatArray, offsets: FloatArray, values: FloatArray) -> npt.NDArray[np.bool_]:
    """The frames of score tables that are not back to back, positive and scored."""
    bad: npt.NDArray[np.bool_] = ~(onsets < offsets) | np.r_[onsets[1:] != offsets[:-1], False]
    return bad | np.isnan(values).any(axis=1)


Scores = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]


def read_score_folder(paths: list[str]) -> tuple[list[str], list[Scores]]:
    """The frame-score tables of ``paths`` (one header for all): classes, and per table its frame boundaries
    and scores (well-formed tables scanned together, else each read by :func:`read_scores`)."""
    datas = [read_bytes(p, lines=False) for p in paths]
    heads = [d.partition(b"\n")[0] for d in datas]
    head = heads[0].decode("utf-8", "replace").split("\t") if heads else []
    if (
        head[:2] == ["onset", "offset"]
        and len(head) > 2
        and all(h == heads[0] for h in heads)
        and all(d.endswith(b"\n") for d in datas)
    ):
        ends = np.cumsum([d.count(b"\n") - 1 for d in datas])
        try:
            body = b"".join(d.partition(b"\n")[2] for d in datas)  # the tables' rows under one header
            got = _scanned(heads[0] + b"\n" + body, len(head), [0, 1], tuple(range(2, len(head))))
            if got is not None and bool((np.diff(np.r_[0, ends]) > 0).all()):
                times = Codes()  # each distinct time parsed once, across the tables
                onsets = _values(_words_coded(times, got.text[0]))
                offsets = _values(_words_coded(times, got.text[1]))
                values = np.stack([got.floats[k] for k in range(2, len(head))], axis=1)
                bad = _bad_frames(onsets, offsets, values)
                last = ends - 1  # a table's last frame is not followed by the next table's first
                bad[last] = ~(onsets[last] < offsets[last]) | np.isnan(values[last]).any(axis=1)
                if not bad.any():
                    bounds = np.insert(onsets, ends, offsets[last])  # each table's frames, then its last offset
                    starts = [0, *ends[:-1].tolist()]
                    return head[2:], [
                        (bounds[a + k : b + k + 1], values[a:b])
                        for k, (a, b) in enumerate(zip(starts, ends.tolist(), strict=True))
                    ]
        except GiveUp:
            pass
    tables = [read_scores(p, d) for p, d in zip(paths, datas, strict=True)]
    for path, (names, _, _) in zip(paths, tables, strict=True):
        if names != tables[0][0]:
            raise InputError(
                path,
                f"classes {', '.join(names)}; expected those of the first table: {', '.join(tables[0][0])}",
                line=1,
            )
    return (tables[0][0] if tables else []), [(t, v) for _, t, v in tables]


def read_durations(path: str) -> dict[str, float]:
    """Clip -> duration in seconds (a repeated clip keeps its first duration, as psds_eval does)."""
    out: dict[str, float] = {}
    expected = "a tab-separated row: filename, duration in seconds (> 0)"
    table = _rows(path, ("filename", "duration"), expected)
    (clip, names), values = table.columns
    for row, (k, seconds) in enumerate(zip(clip.tolist(), _values(values).tolist(), strict=True)):
        if not names[k] or not seconds > 0:
            table.refuse(row, f"expected {expected}")
        out.setdefault(names[k], seconds)
    return out


def operating_points(folder: str) -> list[tuple[str, str]]:
    """(threshold, path) of each ``.tsv`` of ``folder`` in name order: the threshold after the last ``_th_``, if any."""
    if not os.path.isdir(folder):
        raise InputError(folder, "not a folder; expected a folder of detection tables, one per operating point")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".tsv"))
    if not names:
        raise InputError(folder, "no .tsv file; expected detection tables such as predictions_th_0.50.tsv")
    return [(n[:-4].rpartition("_th_")[2], os.path.join(folder, n)) for n in names]
