"""Readers of the anchor detection files: ``qid start end rel`` qrels and 7-field anchoring runs
(docs/anchoring.md, "Input")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from segeval.core.errors import InputError, check_choice
from segeval.readers.blocks import line_texts
from segeval.readers.files import read_bytes
from segeval.readers.formats import TIME_FORMATS, Field, LineFormat
from segeval.readers.line_parser import parse_lines

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


QRELS = LineFormat(
    "MediaEval anchoring qrels",
    (Field("qid", "str"), Field("start", "time"), Field("end", "time"), Field("rel", "int")),
    QRELS_EXAMPLE,
)
RUN = LineFormat(
    "MediaEval anchoring run",
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


def _columns(path: str | Path, time_format: str, fmt: LineFormat) -> dict[str, list[Any]]:
    """The values of every non-blank line of ``fmt`` by field name, and their line numbers (``line``)."""
    check_choice("time_format", time_format, TIME_FORMATS)
    return parse_lines(read_bytes(path), fmt, str(path), time_format)


def read_anchor_qrels(path: str | Path, time_format: str = "mmss") -> list[Anchor]:
    """The anchors of a ``qid start end rel`` file, in file order (rel > 0: relevant; any other
    integer: judged not relevant).  An anchor ending before it starts is an error."""
    columns = _columns(path, time_format, QRELS)
    out = []
    for anchor in map(Anchor, *(columns[k] for k in ("qid", "start", "end", "rel", "line"))):
        if anchor.end < anchor.start:
            raise InputError(
                str(path),
                f"the anchor ends at {anchor.end:g} s, before it starts at {anchor.start:g} s; expected start <= end",
                line=anchor.line,
                text=line_texts(path, [anchor.line])[anchor.line],
                kind="reversed anchor",
            )
        out.append(anchor)
    return out


def read_anchor_run(path: str | Path, time_format: str = "mmss") -> list[AnchorResult]:
    """The results of a ``qid Q0 start end rank score run`` file, in file order.  A result ending
    before it starts is kept (the evaluation decides what it meets)."""
    columns = _columns(path, time_format, RUN)
    names = ("qid", "start", "end", "rank", "score", "run", "line")
    return list(map(AnchorResult, *(columns[k] for k in names)))
