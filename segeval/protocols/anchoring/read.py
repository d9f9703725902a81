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


def _rows(
    path: str | Path, time_format: str, count: int, what: str, example: str, fields: tuple[tuple[int, str, str], ...]
) -> Iterator[tuple[int, str, list[str], list[float]]]:
    """(line number, text, tokens, values) of every non-blank line of ``count`` fields: ``fields`` the (index, name,
    kind) of those read as time, int or float (the one number grammar), else an InputError."""
    check_choice("time_format", time_format, TIME_FORMATS)
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
        if len(tokens) != count:
            raise InputError(
                name,
                f"has {plural(len(tokens), 'field')}; expected {plural(count, 'field')} for {what}, "
                f"such as '{example}'",
                line=number,
                text=text,
                kind="field count",
            )
        values = []
        for i, field, kind in fields:
            value = (TIME_PARSERS[time_format] if kind == "time" else parse_int if kind == "int" else parse_float)(
                tokens[i]
            )
            if value is None:
                hint = time_hint(tokens[i], time_format) if kind == "time" else ""
                raise InputError(
                    name,
                    f"field {i + 1} ({field}) is '{tokens[i]}'; expected "
                    f"{EXPECTED[time_format if kind == 'time' else kind]}{hint}",
                    line=number,
                    text=text,
                    kind=f"bad {field}",
                )
            values.append(value)
        yield number, text, tokens, values


def read_anchor_qrels(path: str | Path, time_format: str = "mmss") -> list[Anchor]:
    """The anchors of a ``qid start end rel`` file, in file order (rel > 0: relevant; any other
    integer: judged not relevant).  An anchor ending before it starts is an error."""
    out = []
    what = "an anchoring qrels line (qid start end rel)"
    fields = ((1, "start", "time"), (2, "end", "time"), (3, "rel", "int"))
    for number, text, tokens, (start, end, rel) in _rows(path, time_format, 4, what, QRELS_EXAMPLE, fields):
        if end < start:
            raise InputError(
                str(path),
                f"the anchor ends ({tokens[2]}) before it starts ({tokens[1]}); expected start <= end",
                line=number,
                text=text,
                kind="reversed anchor",
            )
        out.append(Anchor(tokens[0], start, end, int(rel), number))
    return out


def read_anchor_run(path: str | Path, time_format: str = "mmss") -> list[AnchorResult]:
    """The results of a ``qid Q0 start end rank score run`` file, in file order.  A result ending
    before it starts is kept (the evaluation decides what it meets)."""
    what = "an anchoring run line (qid Q0 start end rank score run)"
    fields = ((2, "start", "time"), (3, "end", "time"), (4, "rank", "int"), (5, "score", "float"))
    return [
        AnchorResult(tokens[0], start, end, int(rank), score, tokens[6], number)
        for number, _, tokens, (start, end, rank, score) in _rows(path, time_format, 7, what, RUN_EXAMPLE, fields)
    ]
