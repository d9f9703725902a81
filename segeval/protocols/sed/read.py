"""Reading DCASE task 4's tables: events (``filename onset offset event_label``, tab-separated, with a
header), clip durations (``filename duration``) and a folder of operating points
(``*_th_<threshold>.tsv``, or any ``.tsv``, in name order).

A clip without events may be a row with onset, offset and label empty.  Bad rows are refused with the
file, line and text (exit 2); docs/sed.md lists what the official tools do instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NoReturn

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.readers.files import read_text
from segeval.readers.formats import parse_float, parse_seconds
from segeval.readers.tokenizer import read_csv

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
    """A table of events, column by column: ``clip`` indexes ``names`` (the clips in order of first
    appearance, those listed without events too), ``label`` indexes ``labels``; rows in file order."""

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
        for k, on, off, lab, line in zip(self.clip.tolist(), self.onset.tolist(), self.offset.tolist(),
                                         self.label.tolist(), self.line.tolist(), strict=True):
            out[self.names[k]].append(Event(on, off, self.labels[lab], line))
        return out


@dataclass
class _Table:
    """A headed TSV's rows: line numbers, the cells of the wanted columns (column by column), and the text."""

    path: str
    numbers: npt.NDArray[np.intp]
    columns: list[list[str]]
    text: str
    head: list[str]

    def refuse(self, row: int, problem: str) -> NoReturn:
        number = int(self.numbers[row])
        raise InputError(self.path, problem, line=number, text=self.text.splitlines()[number - 1])


def _rows(path: str, columns: tuple[str, ...], expected: str) -> _Table:
    """The rows of a headed TSV (blank lines skipped), each with as many cells as the header; ``columns``
    empty: all of them."""
    text = read_text(path)
    first = text.split("\n", 1)[0].rstrip("\r")
    if not text.strip():
        raise InputError(path, f"empty file; expected a header line {chr(9).join(columns)!r}")
    head = first.split("\t")
    missing = [c for c in columns if c not in head]
    if missing:
        raise InputError(path, f"no column {missing[0]!r} in the header; expected the columns {', '.join(columns)}",
                         line=1, text=first)
    where = [head.index(c) for c in columns] if columns else list(range(len(head)))
    cells = _split(text, len(head))
    if cells is not None:  # the C tokenizer, for files of well-formed rows only
        return _Table(path, np.arange(2, len(cells[0]) + 2), [cells[k] for k in where], text, head)
    lines = text.splitlines()
    numbers = [n for n, line in enumerate(lines[1:], start=2) if line.strip()]
    rows = [lines[n - 1].split("\t") for n in numbers]
    for n, row in zip(numbers, rows, strict=True):
        if len(row) != len(head):
            raise InputError(path, f"{plural(len(row), 'cell')}, the header has {len(head)}; expected {expected}",
                             line=n, text=lines[n - 1])
    return _Table(path, np.array(numbers, dtype=np.intp), [[row[k] for row in rows] for k in where], text, head)


def _split(text: str, width: int) -> list[list[str]] | None:
    """Every row's cells, column by column, when each line (no blank one, no carriage return) has ``width``
    cells; else None."""
    body = text.split("\n", 1)[1] if "\n" in text else ""
    body = body[:-1] if body.endswith("\n") else body
    rows = body.count("\n") + 1 if body else 0
    if not rows or "\r" in body or "\n\n" in body or body.count("\t") != rows * (width - 1):
        return None
    frame = read_csv(body.encode("utf-8", "surrogateescape"), "\t", dict.fromkeys(range(width), str), width)
    if frame is None or frame.shape != (rows, width):
        return None
    return [frame[k].tolist() for k in range(width)]


def _seconds(tokens: Sequence[str] | npt.NDArray[np.object_],
             parse: Callable[[str], float | None] = parse_seconds) -> npt.NDArray[np.float64]:
    """Each token as ``parse`` reads it, NaN where it reads none (each distinct token parsed once)."""
    codes, distinct = pd.factorize(np.asarray(tokens, dtype=object))
    values = np.array([parse(t) for t in distinct.tolist()] + [None], dtype=np.float64)  # None -> NaN
    return np.asarray(values[codes], dtype=np.float64)


def read_events(path: str) -> Events:
    """An event table; a row with empty onset, offset and label lists a clip without events."""
    table = _rows(path, EVENT_COLUMNS, _EVENT_EXPECTED)
    clips, onsets, offsets, labels = (np.asarray(c, dtype=object) for c in table.columns)
    empty = (onsets == "") & (offsets == "") & (labels == "")
    ons, offs = _seconds(onsets), _seconds(offsets)
    bad = (clips == "") | ~empty & (~(ons <= offs) | (labels == ""))  # NaN (no number) too
    if bad.any():
        table.refuse(int(np.argmax(bad)), f"expected {_EVENT_EXPECTED}")
    clip_codes, names = pd.factorize(clips)  # clips in order of first appearance
    keep = np.flatnonzero(~empty)
    label_codes, label_names = pd.factorize(labels[keep], sort=True)
    return Events(path, names.tolist(), clip_codes[keep].astype(np.intp), ons[keep], offs[keep], label_names.tolist(),
                  label_codes.astype(np.intp), table.numbers[keep])


def read_scores(path: str) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A frame-score table (``onset offset <class>...``, frames back to back): its classes, the frame
    boundaries (frames + 1) and the scores (frames x classes)."""
    expected = "a tab-separated row: frame onset and offset in seconds (onset < offset, the previous offset), " \
               "then a finite score per class"
    table = _rows(path, (), expected)
    if table.head[:2] != ["onset", "offset"] or len(table.head) < 3:
        raise InputError(path, f"expected a header 'onset, offset, <class>, ...'; got {', '.join(table.head)}", line=1)
    onsets, offsets = _seconds(table.columns[0]), _seconds(table.columns[1])
    bad = ~(onsets < offsets) | np.r_[onsets[1:] != offsets[:-1], False]
    scores = table.columns[2:]
    values = np.stack([_seconds(col, parse_float) for col in scores], axis=1) if table.numbers.size else \
        np.zeros((0, len(scores)))
    bad |= np.isnan(values).any(axis=1)
    if bad.any() or not table.numbers.size:
        if not table.numbers.size:
            raise InputError(path, f"no frame; expected {expected}")
        table.refuse(int(np.argmax(bad)), f"expected {expected}")
    return table.head[2:], np.r_[onsets, offsets[-1:]], values


Scores = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]


def read_score_folder(paths: list[str]) -> tuple[list[str], list[Scores]]:
    """The frame-score tables of ``paths`` (one header for all): classes, and per table its frame boundaries
    and scores.  Well-formed tables are tokenised together; otherwise each is read on its own, and the
    first bad one refused (:func:`read_scores`)."""
    texts = [read_text(p) for p in paths]
    heads = [t.partition("\n")[0] for t in texts]
    bodies = [t.partition("\n")[2] for t in texts]
    head = heads[0].split("\t") if heads else []
    if head[:2] == ["onset", "offset"] and len(head) > 2 and all(h == heads[0] for h in heads) \
            and all(b.endswith("\n") for b in bodies):
        cells = _split(heads[0] + "\n" + "".join(bodies), len(head))
        if cells is not None:
            onsets, offsets = _seconds(cells[0]), _seconds(cells[1])
            scores = _seconds(np.concatenate([np.asarray(c, dtype=object) for c in cells[2:]]), parse_float)
            scores = scores.reshape(len(cells) - 2, -1).T
            ends = np.cumsum([b.count("\n") for b in bodies])
            out = []
            for start, end in zip(np.r_[0, ends[:-1]].tolist(), ends.tolist(), strict=True):
                on, off, values = onsets[start:end], offsets[start:end], scores[start:end]
                if not (on < off).all() or (on[1:] != off[:-1]).any() or np.isnan(values).any():
                    break
                out.append((np.r_[on, off[-1:]], values))
            else:
                return head[2:], out
    tables = [read_scores(p) for p in paths]
    for path, (names, _, _) in zip(paths, tables, strict=True):
        if names != tables[0][0]:
            raise InputError(path, f"classes {', '.join(names)}; expected those of the first table: "
                             f"{', '.join(tables[0][0])}", line=1)
    return (tables[0][0] if tables else []), [(t, v) for _, t, v in tables]


def read_durations(path: str) -> dict[str, float]:
    """Clip -> duration in seconds (a repeated clip keeps its first duration, as psds_eval does)."""
    out: dict[str, float] = {}
    expected = "a tab-separated row: filename, duration in seconds (> 0)"
    table = _rows(path, ("filename", "duration"), expected)
    clips, values = table.columns
    for row, (clip, seconds) in enumerate(zip(clips, _seconds(values).tolist(), strict=True)):
        if not clip or not seconds > 0:
            table.refuse(row, f"expected {expected}")
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
