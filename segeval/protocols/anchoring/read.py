"""Readers of the anchor detection files: ``qid start end rel`` qrels and 7-field anchoring runs
(docs/anchoring.md, "Input")."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from segeval.core.errors import InputError, check_choice
from segeval.core.words import plural
from segeval.readers.files import read_bytes
from segeval.readers.formats import TIME_FORMATS, Field, LineFormat
from segeval.readers.line_parser import decode_line, parse_line

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
    path: str | Path, time_format: str, fmt: LineFormat, what: str
) -> Iterator[tuple[int, str, list[str], dict[str, Any]]]:
    """(line number, text, fields, values by field name) of every non-blank line of ``fmt`` (``what`` names it)."""
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
        if len(tokens) != len(fmt.fields):
            raise InputError(
                name,
                f"has {plural(len(tokens), 'field')}; expected {plural(len(fmt.fields), 'field')} for {what}, "
                f"such as '{fmt.example}'",
                line=number,
                text=text,
                kind="field count",
            )
        yield number, text, tokens, parse_line(raw, number, fmt, name, time_format) or {}


QRELS = LineFormat(
    "anchoring qrels",
    (Field("qid", "str"), Field("start", "time"), Field("end", "time"), Field("rel", "int")),
    QRELS_EXAMPLE,
)
RUN = LineFormat(
    "anchoring run",
    (
        Field("qid", "str"),
        Field("q0", "ignore"),
        Field("start", "time"),
        Field("end", "time"),
        Field("rank", "int"),
        Field("score", "float"),
        Field("run", "str"),
    ),
    RUN_EXAMPLE,
)


def read_anchor_qrels(path: str | Path, time_format: str = "mmss") -> list[Anchor]:
    """The anchors of a ``qid start end rel`` file, in file order (rel > 0: relevant; any other
    integer: judged not relevant).  An anchor ending before it starts is an error."""
    out = []
    for number, text, tokens, row in _rows(path, time_format, QRELS, "an anchoring qrels line (qid start end rel)"):
        if row["end"] < row["start"]:
            raise InputError(
                str(path),
                f"the anchor ends ({tokens[2]}) before it starts ({tokens[1]}); expected start <= end",
                line=number,
                text=text,
                kind="reversed anchor",
            )
        out.append(Anchor(row["qid"], row["start"], row["end"], row["rel"], number))
    return out


def read_anchor_run(path: str | Path, time_format: str = "mmss") -> list[AnchorResult]:
    """The results of a ``qid Q0 start end rank score run`` file, in file order.  A result ending
    before it starts is kept (the evaluation decides what it meets)."""
    what = "an anchoring run line (qid Q0 start end rank score run)"
    return [
        AnchorResult(row["qid"], row["start"], row["end"], row["rank"], row["score"], row["run"], number)
        for number, _, _, row in _rows(path, time_format, RUN, what)
    ]
