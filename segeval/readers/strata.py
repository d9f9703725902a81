"""Stratified qrels and TREC runs as NIST's ``sample_eval.pl`` reads them (the line layouts: docs/sampled.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.errors import InputError, ParameterError
from segeval.readers.files import read_bytes
from segeval.readers.formats import line_head, read_number, wrong_count
from segeval.readers.line_parser import text_lines

_STRATUM_BYTES = re.compile(rb"[+-]?[0-9]+\Z")
#: a ``-G`` level: a grade as written in canonical form
_LEVEL = re.compile(r"(?:0|[1-9][0-9]*)\Z")
#: a number as Perl reads one (no hexadecimal, no underscores, no inf/nan)
_GAIN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)\Z")  # a negative gain makes the grade unsampled, as -1
_PERL_PREFIX = re.compile(rb"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

QRELS_EXAMPLE = "501 0 shot12_5 2 1"
#: the format name of stratified qrels read as a qrels frame (``df.attrs["format"]``)
STRATA_FORMAT = "stratified TREC qrels"
RUN_EXAMPLE = "501 Q0 shot12_5 1 0.93 myrun"


def perl_number(text: str) -> float:
    """``text`` as Perl's numeric context reads it: its leading number, 0 when it has none."""
    m = _PERL_PREFIX.match(text.encode("utf-8"))
    return float(m.group().strip()) if m else 0.0


@dataclass
class Stratum:
    """Counts of one stratum of one topic (duplicate lines count each time, as the reference)."""

    docs: int = 0
    sampled: int = 0
    relevant: int = 0
    #: sampled documents per (mapped) grade, keyed by the grade's text
    grades: dict[str, int] = field(default_factory=dict)


@dataclass
class StrataTopic:
    """One topic of stratified qrels: the strata and, per docno, its last line's (grade, stratum)."""

    strata: dict[str, Stratum] = field(default_factory=dict)
    #: docno -> (grade text after the gain mapping, stratum)
    docs: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class StrataQrels:
    """Stratified qrels by topic (topic ids as written: leading zeros are kept, as the reference)."""

    topics: dict[str, StrataTopic]
    path: str = ""


@dataclass
class SampledRun:
    """A run as the reference reads it: per topic (leading zeros removed), docno -> score (the last line wins)
    and the number of lines (duplicates and results past the cut-off count)."""

    scores: dict[str, dict[str, float]]
    lines: dict[str, int]
    path: str = ""


def parse_gains(specs: list[str] | None) -> dict[str, str]:
    """``-G`` mappings ``LEVEL=GAIN`` (several per value, separated by commas) as {level: gain text}."""
    table: dict[str, str] = {}
    for spec in specs or []:
        for part in spec.split(","):
            level, eq, gain = part.partition("=")
            if not eq or not _LEVEL.match(level) or not _GAIN.match(gain):
                raise ParameterError(
                    f"The 'gain' parameter must be LEVEL=GAIN pairs such as 1=3 (a qrels grade 0 or "
                    f"above, a number: below 0, the grade's documents count as not sampled). Got "
                    f"{part!r} instead."
                )
            table[level] = gain
    return table


def is_strata_qrels(data: bytes) -> bool:
    """Whether the first data line has 5 fields, the last an integer (completed qrels end in a source)."""
    for raw in data.split(b"\n"):
        tokens = raw.split()
        if tokens:
            return len(tokens) == 5 and _STRATUM_BYTES.match(tokens[4]) is not None
    return False


def _strata_line(number: int, tokens: list[str], text: str, path: str) -> tuple[str, str, str, str]:
    """(topic, docno, stratum, rel) of a stratified qrels line; InputError when it does not fit."""
    if len(tokens) != 5:
        expected = f"5: topic, 0, docno, stratum, rel (such as '{QRELS_EXAMPLE}')"
        raise wrong_count(path, number, text, len(tokens), expected)
    topic, _, docno, stratum, rel = tokens
    read_number(stratum, path, "stratum", whole=True, line=number, shown=text, why=" (field 4)")
    grades = " (field 5: -1 pooled, not sampled; 0 sampled, not relevant; or a positive grade)"
    read_number(rel, path, "rel", whole=True, line=number, shown=text, why=grades)
    return topic, docno, stratum, rel


def parse_strata_qrels(data: bytes, path: str, gains: Mapping[str, str] | None = None) -> StrataQrels:
    """Stratified qrels from ``data`` (the content of ``path``); ``gains`` maps grades (``-G``)."""
    gains = gains or {}
    topics: dict[str, StrataTopic] = {}
    for number, text, tokens in text_lines(data, path):
        topic, docno, stratum, rel = _strata_line(number, tokens, text, path)
        grade = gains.get(rel, rel)
        t = topics.setdefault(topic, StrataTopic())
        t.docs[docno] = (grade, stratum)
        s = t.strata.setdefault(stratum, Stratum())
        s.docs += 1
        value = float(grade)
        if value >= 0:
            s.sampled += 1
        if value > 0:
            s.grades[grade] = s.grades.get(grade, 0) + 1
            s.relevant += 1
    if not topics:
        raise InputError(path, f"has no data lines; expected stratified qrels lines such as '{QRELS_EXAMPLE}'")
    return StrataQrels(topics, path)


def strata_columns(
    data: bytes, path: str, on_error: Callable[[InputError], None] | None = None
) -> dict[str, npt.NDArray[Any]]:
    """The qrels columns of stratified qrels, and ``stratum`` (its text); ``on_error`` takes bad lines."""
    rows: list[tuple[str, str, str, int, int]] = []
    for number, text, tokens in text_lines(data, path):
        try:
            topic, docno, stratum, rel = _strata_line(number, tokens, text, path)
        except InputError as exc:
            if on_error is None:
                raise
            on_error(exc)
            continue
        rows.append((topic, docno, stratum, int(rel), number))
    dtypes = {"query": object, "item": object, "stratum": object, "rel": np.int64, "line": np.int64}
    return {name: np.array([r[i] for r in rows], dtype=dtypes[name]) for i, name in enumerate(dtypes)}


def read_strata_qrels(path: str | Path, gains: Mapping[str, str] | None = None) -> StrataQrels:
    """Stratified qrels from a file (``-``: standard input; ``.gz`` is fine)."""

    def read(data: bytes) -> StrataQrels:
        return parse_strata_qrels(data, str(path), gains)

    return read(read_bytes(path, head=line_head(read)))  # a stream whose start cannot be valid stops there


def parse_sampled_run(data: bytes, path: str) -> SampledRun:
    """A TREC run (6 fields a line) from ``data`` as the reference reads it."""
    scores: dict[str, dict[str, float]] = {}
    lines: dict[str, int] = {}
    for number, text, tokens in text_lines(data, path):
        if len(tokens) != 6:
            expected = f"6: topic, Q0, docno, rank, score, tag (such as '{RUN_EXAMPLE}')"
            raise wrong_count(path, number, text, len(tokens), expected)
        score = read_number(tokens[4], path, "score", line=number, shown=text, why=" (field 5)")
        topic = tokens[0].lstrip("0")
        scores.setdefault(topic, {})[tokens[2]] = score
        lines[topic] = lines.get(topic, 0) + 1
    if not scores:
        raise InputError(path, f"has no data lines; expected run lines such as '{RUN_EXAMPLE}'")
    return SampledRun(scores, lines, path)


def read_sampled_run(path: str | Path) -> SampledRun:
    """A TREC run from a file (``-``: standard input; ``.gz`` is fine)."""

    def read(data: bytes) -> SampledRun:
        return parse_sampled_run(data, str(path))

    return read(read_bytes(path, head=line_head(read)))  # a stream whose start cannot be valid stops there
