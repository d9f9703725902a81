"""Auxiliary inputs, read through the one opener (:mod:`segeval.io.files`) and its limits: the run
groups file (pool bias), item texts and transcripts (qrels completion), JSON Lines and JSON
documents (moment retrieval)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.errors import InputError, check_choice
from segeval.io.files import read_bytes
from segeval.io.formats import TIME_FORMATS, TIME_PARSERS
from segeval.io.heads import HeadCheck
from segeval.io.jsondata import lines, load_line, record_head
from segeval.settings import DEFAULTS
from segeval.words import plural

FloatArray = npt.NDArray[np.float64]


def read_groups(path: str | Path, lines: dict[str, tuple[int, str]] | None = None
                ) -> tuple[dict[str, str], dict[str, str]]:
    """``run group [type]`` lines: run name -> group, and run name -> type (when given); ``lines``, when given,
    receives each run's line number and text."""
    name = str(path)
    group: dict[str, str] = {}
    kind: dict[str, str] = {}
    for number, line in enumerate(read_bytes(path).split(b"\n"), start=1):  # line feeds and ASCII blanks only
        fields = [f.decode("utf-8", "replace") for f in line.split()]
        raw = line.rstrip(b"\r").decode("utf-8", "replace")
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise InputError(name, f"has {plural(len(fields), 'field')}; expected 'run group [type]'",
                             line=number, text=raw)
        if fields[0] in group:
            raise InputError(name, f"run '{fields[0]}' appears again; expected each run once", line=number, text=raw)
        group[fields[0]] = fields[1]
        if lines is not None:
            lines[fields[0]] = (number, raw)
        if len(fields) == 3:
            kind[fields[0]] = fields[2]
    return group, kind


@dataclass(frozen=True)
class Texts:
    """Item texts: ``documents`` (docno -> text) or timed transcript ``lines`` per video."""

    path: str
    documents: dict[str, str] | None = None
    lines: dict[str, tuple[FloatArray, FloatArray, list[str]]] | None = None

    @property
    def segments(self) -> bool:
        return self.lines is not None

    def collection(self) -> list[str]:
        """The collection's texts: every document, or every transcript line."""
        if self.documents is not None:
            return list(self.documents.values())
        assert self.lines is not None
        return [t for _, _, texts in self.lines.values() for t in texts]

    def text(self, item: str, start: float = math.nan, end: float = math.nan) -> str | None:
        """A document's text, or the transcript lines meeting [start, end] of video ``item`` (None: no text)."""
        from segeval.segment import interior_overlap

        if self.documents is not None:
            return self.documents.get(item)
        assert self.lines is not None
        if item not in self.lines:
            return None
        starts, ends, texts = self.lines[item]
        hits = np.flatnonzero(interior_overlap(starts, ends, np.full_like(starts, start), np.full_like(ends, end)))
        return " ".join(texts[i] for i in hits)


def read_texts(path: str | Path, segments: bool, time_format: str = DEFAULTS.time_format) -> Texts:
    """``docno<TAB>text`` lines, or (``segments``) transcript lines ``video start end text``."""
    name = str(path)
    check_choice("time_format", time_format, TIME_FORMATS)
    parse_time = TIME_PARSERS[time_format]
    documents: dict[str, str] = {}
    lines: dict[str, tuple[list[float], list[float], list[str]]] = {}
    first: dict[str, int] = {}
    for number, raw in enumerate(read_bytes(path).decode("utf-8", "replace").split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if not segments:
            docno, tab, text = line.partition("\t")
            docno = docno.strip()
            if not tab or not docno or any(c.isspace() for c in docno):
                raise InputError(name, "expected a document text line 'docno<TAB>text'", line=number, text=line)
            if docno in first:
                raise InputError(name, f"document '{docno}' appears again (first on line {first[docno]}); expected "
                                       f"each document once", line=number, text=line)
            first[docno] = number
            documents[docno] = text
            continue
        fields = line.split(None, 3)
        times = [parse_time(t) for t in fields[1:3]]
        if len(fields) < 3 or times[0] is None or times[1] is None:
            raise InputError(name, f"expected a transcript line 'video start end text' with {time_format} times",
                             line=number, text=line)
        start, end = float(times[0]), float(times[1])
        if end < start:
            raise InputError(name, f"ends ({fields[2]}) before it starts ({fields[1]}); expected end >= start",
                             line=number, text=line)
        video = lines.setdefault(fields[0], ([], [], []))
        video[0].append(start)
        video[1].append(end)
        video[2].append(fields[3] if len(fields) > 3 else "")
    if not documents and not lines:
        kind = "transcript lines 'video start end text'" if segments else "document text lines 'docno<TAB>text'"
        raise InputError(name, f"has no data lines; expected {kind}")
    if not segments:
        return Texts(name, documents=documents)
    return Texts(name, lines={v: (np.asarray(s, dtype=np.float64), np.asarray(e, dtype=np.float64), t)
                              for v, (s, e, t) in lines.items()})


def read_moment_jsonl(path: str | Path) -> list[tuple[int, str, dict[str, Any]]]:
    """JSON Lines of moment retrieval (QVHighlights): (line number, line, object) of every non-blank line,
    each a JSON object with a ``qid``."""
    name = str(path)

    def record(number: int, line: str) -> dict[str, Any]:
        value = load_line(name, number, line, "one JSON object per line", what="a JSON object",
                          flat="one flat JSON object per line")
        if not isinstance(value, dict) or "qid" not in value:
            raise InputError(name, "expected a JSON object with a 'qid'", line=number, text=line[:200])
        return value

    # any readable file or '-', gunzipped, within the input limits; a stream whose first record is bad stops there
    raw = read_bytes(path, head=record_head(record))
    rows = []
    for number, line in lines(raw.decode("utf-8", "replace")):
        if line.strip():
            rows.append((number, line, record(number, line)))
    if not rows:
        raise InputError(name, "has no data lines; expected JSON Lines")
    return rows


def read_text(path: str | Path, *, lines: bool = False, head: HeadCheck | None = None) -> str:
    """A file's text (decoded leniently): any readable file, gunzipped, within the input limits; the
    line length only with ``lines`` (JSON Lines), since a JSON document may be one long line; ``head``:
    the reader's check of a stream's start (:func:`segeval.io.files.read_bytes`)."""
    return read_bytes(path, lines=lines, head=head).decode("utf-8", "replace")
