"""Item texts for qrels completion: ``docno<TAB>text`` document lines or transcript lines ``video start end text``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError, check_choice
from segeval.core.segment import interior_overlap
from segeval.core.settings import DEFAULTS
from segeval.readers.files import read_bytes
from segeval.readers.formats import TIME_FORMATS, TIME_PARSERS


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
        problem = ""
        if not segments:
            docno, tab, text = line.partition("\t")
            docno = docno.strip()
            if not tab or not docno or any(c.isspace() for c in docno):
                problem = "expected a document text line 'docno<TAB>text'"
            elif docno in first:
                problem = (
                    f"document '{docno}' appears again (first on line {first[docno]}); expected each document once"
                )
            first.setdefault(docno, number)
            documents[docno] = text
        else:
            fields = line.split(None, 3)
            times = [parse_time(t) for t in fields[1:3]]
            if len(fields) < 3 or times[0] is None or times[1] is None:
                problem = f"expected a transcript line 'video start end text' with {time_format} times"
            elif float(times[1]) < float(times[0]):
                problem = f"ends ({fields[2]}) before it starts ({fields[1]}); expected end >= start"
            else:
                video = lines.setdefault(fields[0], ([], [], []))
                video[0].append(float(times[0]))
                video[1].append(float(times[1]))
                video[2].append(fields[3] if len(fields) > 3 else "")
        if problem:
            raise InputError(name, problem, line=number, text=line)
    if not documents and not lines:
        kind = "transcript lines 'video start end text'" if segments else "document text lines 'docno<TAB>text'"
        raise InputError(name, f"has no data lines; expected {kind}")
    if not segments:
        return Texts(name, documents=documents)
    return Texts(name, lines={v: (np.asarray(s, float), np.asarray(e, float), t) for v, (s, e, t) in lines.items()})
