"""Readers of the anchor detection files: ``qid start end rel`` qrels and 7-field anchoring runs
(docs/anchoring.md, "Input")."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from segeval.core.errors import InputError, check_choice
from segeval.core.words import plural
from segeval.readers.files import read_bytes
from segeval.readers.formats import TIME_FORMATS, TIME_PARSERS, parse_float, parse_int, time_hint
from segeval.readers.line_parser import EXPECTED, decode_line

QRELS_EXAMPLE = "v20080401_1 17.05 17.30 1"
RUN_EXAMPLE = "v20080401_1 Q0 17.05 17.30 1 0.93 myrun"


@dataclass(frozen=True, slots=True)
class Anchor:
    """One judged anchor: a span of the query's video and its judgement (> 0: relevant)."""

    query: str
    start: float
    end: float
    rel: int
    line: int


@dataclass(frozen=True, slots=True)
class AnchorResult:
    """One result line of an anchoring run (the second field, a legacy ``Q0``, is not kept)."""

    query: str
    start: float
    end: float
    rank: int
    score: float
    run: str
    line: int


def _lines(path: str | Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, text, fields) of every non-blank line."""
    name = str(path)
    for number, raw in enumerate(read_bytes(path).split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        text = decode_line(raw, number, name)
        tokens = [t.decode("utf-8") for t in raw.split()]  # ASCII white space, as the toolkit's Python 2 split
        if not tokens:
            continue
        if "\r" in text or "\x00" in text:
            raise InputError(
                name,
                "contains a carriage return or NUL byte inside the line; expected a text line ending in LF or CRLF",
                line=number,
                text=text,
                kind="line ends",
            )
        yield number, text, tokens


def _field(path: str, number: int, text: str, i: int, name: str, token: str, kind: str, time_format: str) -> float:
    """Field ``i`` (0-based) read as ``kind`` (time, int or float: the one number grammar), or an InputError."""
    value = (TIME_PARSERS[time_format] if kind == "time" else parse_int if kind == "int" else parse_float)(token)
    if value is None:
        expected = EXPECTED[time_format if kind == "time" else kind]
        hint = time_hint(token, time_format) if kind == "time" else ""
        raise InputError(
            path,
            f"field {i + 1} ({name}) is '{token}'; expected {expected}{hint}",
            line=number,
            text=text,
            kind=f"bad {name}",
        )
    return value


def _count(path: str, number: int, text: str, tokens: list[str], n: int, what: str, example: str) -> None:
    if len(tokens) != n:
        raise InputError(
            path,
            f"has {plural(len(tokens), 'field')}; expected {plural(n, 'field')} for {what}, such as '{example}'",
            line=number,
            text=text,
            kind="field count",
        )


def read_anchor_qrels(path: str | Path, time_format: str = "mmss") -> list[Anchor]:
    """The anchors of a ``qid start end rel`` file, in file order (rel > 0: relevant; any other
    integer: judged not relevant).  An anchor ending before it starts is an error."""
    check_choice("time_format", time_format, TIME_FORMATS)
    name = str(path)
    out = []
    for number, text, tokens in _lines(path):
        _count(name, number, text, tokens, 4, "an anchoring qrels line (qid start end rel)", QRELS_EXAMPLE)
        start = _field(name, number, text, 1, "start", tokens[1], "time", time_format)
        end = _field(name, number, text, 2, "end", tokens[2], "time", time_format)
        rel = int(_field(name, number, text, 3, "rel", tokens[3], "int", time_format))
        if end < start:
            raise InputError(
                name,
                f"the anchor ends ({tokens[2]}) before it starts ({tokens[1]}); expected start <= end",
                line=number,
                text=text,
                kind="reversed anchor",
            )
        out.append(Anchor(tokens[0], start, end, rel, number))
    return out


def read_anchor_run(path: str | Path, time_format: str = "mmss") -> list[AnchorResult]:
    """The results of a ``qid Q0 start end rank score run`` file, in file order.  A result ending
    before it starts is kept (the evaluation decides what it meets)."""
    check_choice("time_format", time_format, TIME_FORMATS)
    name = str(path)
    out = []
    for number, text, tokens in _lines(path):
        _count(name, number, text, tokens, 7, "an anchoring run line (qid Q0 start end rank score run)", RUN_EXAMPLE)
        start = _field(name, number, text, 2, "start", tokens[2], "time", time_format)
        end = _field(name, number, text, 3, "end", tokens[3], "time", time_format)
        rank = int(_field(name, number, text, 4, "rank", tokens[4], "int", time_format))
        score = _field(name, number, text, 5, "score", tokens[5], "float", time_format)
        out.append(AnchorResult(tokens[0], start, end, rank, score, tokens[6], number))
    return out
