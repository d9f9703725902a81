"""The line formats of qrels and runs, the time formats, and format detection from a file's first lines."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypedDict, Unpack, cast, overload

from segeval.core.domains import plain_decimal
from segeval.core.errors import InputError, ParameterError, check_choice
from segeval.core.settings import TIME_FORMATS as TIME_FORMATS  # the one list (settings), named here for readers
from segeval.core.words import plural

FieldKind = Literal["str", "ignore", "time", "int", "float"]


@dataclass(frozen=True)
class Field:
    """One white-space separated field: its column name and kind."""

    name: str
    kind: FieldKind


@dataclass(frozen=True)
class LineFormat:
    """A line-oriented format: its fields, how many trailing ones may be absent, an example."""

    name: str
    fields: tuple[Field, ...]
    example: str
    optional: int = 0
    #: fields after the last one are ignored (trec_eval's runs: "reserved for future expansion")
    trailing: bool = False

    @property
    def counts(self) -> tuple[int, ...]:
        n = len(self.fields)
        return tuple(range(n - self.optional, n + 1))

    def position(self, name: str) -> int:
        """The 0-based place of the field called ``name`` on a line."""
        return next(i for i, f in enumerate(self.fields) if f.name == name)

    def accepts(self, n_tokens: int) -> bool:
        return n_tokens in self.counts or (self.trailing and n_tokens > len(self.fields))

    def describe_counts(self) -> str:
        text = " or ".join(map(str, self.counts))
        return text + " or more" if self.trailing else text


def wrong_count(path: str, number: int, text: str, count: int, expected: str) -> InputError:
    """The refusal of line ``number`` (``text``) holding ``count`` fields; ``expected``: how many, and what."""
    return InputError(
        path, f"has {plural(count, 'field')}; expected {expected}", line=number, text=text, kind="field count"
    )


def _fields(spec: str) -> tuple[Field, ...]:
    """Fields from ``name:kind`` words (``str`` when no kind is given)."""
    return tuple(
        Field(name, cast(FieldKind, kind or "str")) for name, _, kind in (w.partition(":") for w in spec.split())
    )


_TIMES = "start:time end:time"
MEDIAEVAL_QRELS = LineFormat(
    "MediaEval qrels",
    _fields(f"query q0:ignore item {_TIMES} rel:int"),
    "anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1",
)
MEDIAEVAL_LINKING_RUN = LineFormat(
    "MediaEval linking run",
    _fields(f"query q0:ignore item {_TIMES} rank:int score:float run"),
    "anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1 0.93 myrun",
)
MEDIAEVAL_SEARCH_RUN = LineFormat(
    "MediaEval search run",
    _fields(f"query q0:ignore item {_TIMES} jumpin:time rank:int score:float run"),
    "query_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 2.30 1 0.93 myrun",
    optional=1,
)
TREC_QRELS = LineFormat("TREC qrels", _fields("query iter:ignore item rel:int"), "301 0 FBIS3-10082 1")
TREC_RUN = LineFormat(
    "TREC run",
    _fields("query q0:ignore item rank:int score:float run"),
    "301 Q0 FBIS3-10082 1 12.5 myrun",
    trailing=True,
)
#: a query-by-example key (MediaEval SWS 2013, QUESST 2014-2015): every trial, 1 when the query occurs in the
#: utterance (the QUESST figures' qrels: :mod:`segeval.measures.trials`)
QUESST_KEY = LineFormat("QUESST key", _fields("query item rel:int"), "quesst2015_dev_0001 quesst2015_00001 1")
#: completed qrels (``segeval complete-qrels``): one more field saying who judged the line,
#: ``human`` or ``predicted:CLASSIFIER``, so predicted labels never pass for human ones
SOURCE_HUMAN = "human"
SOURCE_PREDICTED = "predicted:"
TREC_QRELS_COMPLETED = LineFormat(
    "completed TREC qrels", (*TREC_QRELS.fields, Field("source", "str")), "301 0 FBIS3-10082 1 predicted:kld"
)
MEDIAEVAL_QRELS_COMPLETED = LineFormat(
    "completed MediaEval qrels",
    (*MEDIAEVAL_QRELS.fields, Field("source", "str")),
    "anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1 predicted:svm",
)
QRELS_FORMATS = {
    "mediaeval": MEDIAEVAL_QRELS,
    "trec": TREC_QRELS,
    "trec-completed": TREC_QRELS_COMPLETED,
    "mediaeval-completed": MEDIAEVAL_QRELS_COMPLETED,
    "quesst": QUESST_KEY,
}
RUN_FORMATS = {"linking": MEDIAEVAL_LINKING_RUN, "search": MEDIAEVAL_SEARCH_RUN, "trec": TREC_RUN}
DOCUMENT_FORMATS = (TREC_QRELS, TREC_QRELS_COMPLETED, TREC_RUN, QUESST_KEY)
#: trec_eval's other rel_info formats (``-R``): judgement groups (users), preferences within a group's
#: subgroups, and qrels read as preferences (one subgroup per group) (:mod:`segeval.measures.prefs`)
REL_INFO_FORMATS = {
    "qrels_jg": LineFormat("trec_eval qrels_jg", _fields("query group item rel:int"), "301 user1 FBIS3-10082 1"),
    "prefs": LineFormat(
        "trec_eval prefs", _fields("query group subgroup item rel:float"), "301 user1 a FBIS3-10082 2.5"
    ),
    "qrels_prefs": LineFormat(
        "trec_eval qrels_prefs", _fields("query group item rel:float"), "301 user1 FBIS3-10082 2.5"
    ),
}


def with_subtopics(fmt: LineFormat) -> LineFormat:
    """A TREC qrels format keeping its second field as the ``subtopic`` column (ndeval's ``qid subtopic docno rel``)."""
    if fmt not in (TREC_QRELS, TREC_QRELS_COMPLETED):
        return fmt
    fields = tuple(Field("subtopic", "str") if f.name == "iter" else f for f in fmt.fields)
    return LineFormat(fmt.name, fields, fmt.example, fmt.optional, fmt.trailing)


# ------------------------------------------------------------------------ time formats

_INT = re.compile(r"[+-]?[0-9]{1,18}\Z")
_MMSS = re.compile(r"([0-9]{1,12})\.([0-5][0-9]|[0-9])\Z")  # seconds 0-59


def parse_mmss(token: str) -> int | None:
    """Seconds of an ``M.S`` time, or None when ``token`` is not one."""
    m = _MMSS.match(token)
    return None if m is None else int(m.group(1)) * 60 + int(m.group(2))


def parse_int(token: str) -> int | None:
    """The one grammar's whole number (ASCII digits, at most 18, an optional sign), or None."""
    return int(token) if _INT.match(token) else None


def parse_float(token: str) -> float | None:
    """The one grammar's number (ASCII digits, an optional sign, decimal part and exponent; finite), or None."""
    value = plain_decimal(token)  # the one grammar (segeval.core.domains); NaN when it reads none
    return value if math.isfinite(value) else None


#: what the one number grammar accepts, for messages (docs/input-checks.md#numbers)
NUMBER = "a finite number in ASCII digits (an optional sign, decimal part and exponent), such as '0.5' or '1e-05'"
WHOLE = "a whole number of at most 18 ASCII digits (an optional sign), such as '12'"


class _Where(TypedDict, total=False):
    """Where :func:`read_number` reads: the least value allowed, the line, its text shown, a reason added."""

    minimum: float | None
    line: int | None
    shown: str | None
    why: str


@overload
def read_number(
    text: str, path: str, what: str, *, whole: Literal[False] = False, **where: Unpack[_Where]
) -> float: ...
@overload
def read_number(text: str, path: str, what: str, *, whole: Literal[True], **where: Unpack[_Where]) -> int: ...
def read_number(text: str, path: str, what: str, *, whole: bool = False, **where: Unpack[_Where]) -> float | int:
    """``text`` read by the one number grammar (``whole``: :func:`parse_int`, else :func:`parse_float`), at least
    ``minimum``; else an :class:`InputError` naming ``what`` and what was expected."""
    minimum = where.get("minimum")
    value = parse_int(text) if whole else parse_float(text)
    if value is not None and (minimum is None or value >= minimum):
        return value
    expected = WHOLE if whole else NUMBER
    if value is not None:
        expected = f"a number >= {minimum:g}"
    raise InputError(
        path,
        f"{what} is '{text[:60]}{'...' if len(text) > 60 else ''}'; expected {expected}{where.get('why', '')}",
        line=where.get("line"),
        text=where.get("shown"),
        kind=f"bad {what}",
    )


#: any decimals, and Python's exponent form (``1e-05``, ``1.5e+16``): every ``str`` of a float reads
_SECONDS = re.compile(r"[0-9]{1,16}(?:\.[0-9]+)?(?:e[+-][0-9]{2,3})?\Z")
_HMS = re.compile(r"([0-9]{1,9}):([0-5][0-9]):([0-5][0-9](?:\.[0-9]+)?)\Z")


def parse_seconds(token: str) -> float | None:
    """Seconds written as a decimal number without sign (an exponent as Python writes it), or None."""
    return parse_float(token) if _SECONDS.match(token) else None


def parse_hms(token: str) -> float | None:
    """Seconds of an ``H:MM:SS(.fff)`` time, or None."""
    m = _HMS.match(token)
    if m is None:
        return None
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


def format_time(seconds: float, time_format: str) -> str:
    """``seconds`` written in ``time_format`` so that parsing it gives the value back (mmss: whole
    seconds; seconds and hms: up to 9 decimals)."""
    check_choice("time_format", time_format, TIME_FORMATS)
    if time_format == "mmss":
        whole = round(seconds)
        if whole != seconds:
            raise ParameterError(
                f"The 'seconds' parameter must be a whole number for the mmss time format. Got {seconds!r} instead."
            )
        return f"{whole // 60}.{whole % 60:02d}"
    if time_format == "seconds":
        return f"{seconds:.9f}".rstrip("0").rstrip(".")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:012.9f}".rstrip("0").rstrip(".")
    return f"{int(hours)}:{int(minutes):02d}:{text}"


TIME_PARSERS: dict[str, Callable[[str], float | int | None]] = {
    "mmss": parse_mmss,
    "seconds": parse_seconds,
    "hms": parse_hms,
}
#: the parsers by field kind, and by time format for time fields
PARSERS: dict[str, Callable[[str], object]] = {"int": parse_int, "float": parse_float, **TIME_PARSERS}
TIME_NAMES = {"mmss": "an M.S time", "seconds": "a time in seconds", "hms": "an H:MM:SS time"}
_MMSS_OVER = re.compile(r"[0-9]{1,12}\.([0-9]{2})\Z")


def time_hint(token: str, time_format: str) -> str:
    """What a time token that does not read in ``time_format`` may be instead ('' when nothing)."""
    if token.startswith("-") and any(parse(token[1:]) is not None for parse in TIME_PARSERS.values()):
        return "; a time cannot be negative"
    others = [f for f in TIME_FORMATS if f != time_format and TIME_PARSERS[f](token) is not None]
    over = _MMSS_OVER.match(token) if time_format == "mmss" else None
    why = f"; {over.group(1)} seconds is not possible in an M.S time" if over else ""
    if not others:
        return why
    return f"{why}; '{token}' would be " + " or ".join(f"{TIME_NAMES[f]} (--time-format {f})" for f in others)


# ------------------------------------------------------------------------ detection
#: format detection reads the first DETECT_LINES data (non-blank) lines of a file
DETECT_LINES = 1000


def head_lines(data: bytes, limit: int = DETECT_LINES) -> bytes | None:
    """The whole lines of ``data`` up to its ``limit``-th data line (what detection reads); None while fewer."""
    start = seen = 0
    while seen < limit:
        end = data.find(b"\n", start)
        if end < 0:
            return None
        seen += bool(data[start:end].split())
        start = end + 1
    return data[:start]


def line_head(read: Callable[[bytes], object], limit: int = DETECT_LINES) -> Callable[[bytes], bool]:
    """The :data:`~segeval.readers.files.HeadCheck` of a line reader: ``read`` (the strict reader of a whole file,
    detecting from at most :data:`DETECT_LINES` data lines, raising at the first bad line) on the first ``limit``
    data lines once they have arrived (docs/input-checks.md)."""

    def check(data: bytes) -> bool:
        head = head_lines(data, limit)
        if head is None:
            return False
        read(head)
        return True

    return check


def _data_lines(data: bytes, path: str) -> list[tuple[int, list[str]]]:
    """(line number, tokens) of the first :data:`DETECT_LINES` data lines; an error when there is none."""
    lines = enumerate((head_lines(data) or data).split(b"\n"), start=1)
    out = [(number, [t.decode("utf-8", "replace") for t in raw.split()]) for number, raw in lines if raw.strip()]
    if not out:
        raise InputError(path, "has no data lines; expected qrels or run lines")
    return out


def _disagree(path: str, first: tuple[int, list[str], str], other: tuple[int, list[str], str]) -> InputError:
    """Two lines that fit different formats: the error names both, at the later one."""
    (a, _, a_kind), (b, b_tokens, b_kind) = sorted([first, other])
    return InputError(
        path,
        f"looks like a {b_kind} line, but line {a} looks like a {a_kind} line; expected one "
        f"format in a file (format detection reads the first {DETECT_LINES} data lines)",
        line=b,
        text=" ".join(b_tokens),
        kind="mixed formats",
    )


def _fits(fmt: LineFormat, tokens: list[str], parse_time: Callable[[str], object] = str) -> bool:
    """Whether a line has ``fmt``'s field count, and integers, numbers and (``parse_time``) times where it has them."""
    parsers = {**PARSERS, "time": parse_time}
    pairs = zip(fmt.fields, tokens, strict=False)  # a search run's tag may be absent
    return fmt.accepts(len(tokens)) and all(parsers[f.kind](t) is not None for f, t in pairs if f.kind in parsers)


def _qrels_fit(tokens: list[str], by_count: bool = False) -> LineFormat | None:
    """The qrels format a line fits (by its field count, and with an integer grade unless ``by_count``), or None."""
    n = len(tokens)
    if n in (5, 7) and (tokens[-1] == SOURCE_HUMAN or tokens[-1].startswith(SOURCE_PREDICTED)):
        fmt = TREC_QRELS_COMPLETED if n == 5 else MEDIAEVAL_QRELS_COMPLETED
    elif n in (4, 6) or (n == 3 and not by_count):  # a key only with its grade: else a short TREC line
        fmt = QUESST_KEY if n == 3 else TREC_QRELS if n == 4 else MEDIAEVAL_QRELS
    else:
        return None
    return fmt if by_count or _fits(fmt, tokens) else None


def looks_like_groups(data: bytes, path: str) -> bool:
    """Ground-truth groups: the first data line has a '|', or another of the first :data:`DETECT_LINES`
    has one and none fits a qrels format (the first line is a header or a single group)."""
    lines = _data_lines(data, path)
    if "|" in " ".join(lines[0][1]):
        return True
    return any("|" in " ".join(tokens) for _, tokens in lines) and not any(_qrels_fit(tokens) for _, tokens in lines)


def detect_qrels_format(data: bytes, path: str) -> LineFormat:
    """The qrels format of a file, from its first :data:`DETECT_LINES` data lines (docs/input-checks.md)."""
    lines = _data_lines(data, path)
    found: dict[LineFormat, tuple[int, list[str], str]] = {}
    for number, tokens in lines:
        fmt = _qrels_fit(tokens)
        if fmt is not None and fmt not in found:
            found[fmt] = (number, tokens, fmt.name)
            if len(found) > 1:
                raise _disagree(path, *found.values())
    if found:
        return next(iter(found))
    for _, tokens in lines:  # no line has an integer grade: the first whose field count fits decides
        fmt = _qrels_fit(tokens, by_count=True)
        if fmt is not None:
            return fmt
    number, tokens = lines[0]
    raise wrong_count(
        path,
        number,
        " ".join(tokens),
        len(tokens),
        f"a qrels line: 4 fields (TREC, such as '{TREC_QRELS.example}'), 6 (MediaEval, such as "
        f"'{MEDIAEVAL_QRELS.example}') or 3 (a QUESST key, such as '{QUESST_KEY.example}'), or one more ending in "
        f"'{SOURCE_HUMAN}' or '{SOURCE_PREDICTED}CLASSIFIER' for completed qrels",
    )


_LOOSE_HMS = re.compile(r"[+-]?[0-9]+(?::[0-9]+)+(?:\.[0-9]*)?\Z")


def _loose_time(token: str) -> object:
    """A number or an H:MM:SS-like token (a time in some format, or a malformed one), else None."""
    return _LOOSE_HMS.match(token) or parse_float(token)


def _mediaeval_fits(tokens: list[str], parse_time: Callable[[str], object]) -> list[LineFormat]:
    """The MediaEval run formats a line fits (times, ranks and scores where each format has them)."""
    return [f for f in (MEDIAEVAL_LINKING_RUN, MEDIAEVAL_SEARCH_RUN) if _fits(f, tokens, parse_time)]


def detect_run_format(data: bytes, path: str, time_format: str = "mmss") -> LineFormat:
    """The run format of a file, from its first :data:`DETECT_LINES` data lines (docs/input-checks.md)."""
    lines = _data_lines(data, path)
    strict: list[tuple[int, list[str], list[LineFormat]]] = []
    loose: list[tuple[int, list[str], list[LineFormat]]] = []
    trec: tuple[int, list[str], str] | None = None
    for number, tokens in lines:
        if fits := _mediaeval_fits(tokens, TIME_PARSERS[time_format]):
            strict.append((number, tokens, fits))
        elif fits := _mediaeval_fits(tokens, _loose_time):
            loose.append((number, tokens, fits))
        elif trec is None and _fits(TREC_RUN, tokens):
            trec = (number, tokens, TREC_RUN.name)
    segments = strict or loose
    if segments and trec is not None:
        number, tokens, fits = min(strict[:1] + loose[:1])
        raise _disagree(path, trec, (number, tokens, fits[0].name))
    if trec is not None:
        return TREC_RUN
    if segments:
        common = [f for f in (MEDIAEVAL_LINKING_RUN, MEDIAEVAL_SEARCH_RUN) if all(f in fits for _, _, fits in segments)]
        if len(common) == 1 or (common and not strict):  # times that do not read: the parser says why
            return common[0]
        if not common:
            linking = next(x for x in segments if MEDIAEVAL_SEARCH_RUN not in x[2])
            search = next(x for x in segments if MEDIAEVAL_LINKING_RUN not in x[2])
            raise _disagree(
                path,
                (linking[0], linking[1], MEDIAEVAL_LINKING_RUN.name),
                (search[0], search[1], MEDIAEVAL_SEARCH_RUN.name),
            )
        number, tokens, _ = segments[0]
        raise InputError(
            path,
            "cannot tell a MediaEval linking run ('qid Q0 video start end rank score run') from a search run ('qid "
            "Q0 video start end jumpin rank score'); expected the format to be named (--run-format linking|search)",
            line=number,
            text=" ".join(tokens),
        )
    number, tokens = lines[0]
    raise InputError(
        path,
        f"does not look like a run line ({plural(len(tokens), 'field')}); expected a TREC run line such as "
        f"'{TREC_RUN.example}' or a MediaEval run line such as '{MEDIAEVAL_LINKING_RUN.example}' "
        f"(times in {time_format} format)",
        line=number,
        text=" ".join(tokens),
    )
