"""The one JSON reader of every JSON input: records split on ``\n`` only; duplicate keys, numbers outside the
one number grammar and too deep nesting refused at their line and column (docs/input-checks.md)."""

from __future__ import annotations

import json
import json.scanner
import math
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np

from segeval.core.errors import InputError


class Refused(ValueError):
    """Valid JSON that segeval refuses: ``problem``, what was ``wanted``, and ``find(text)``: the offset of the
    refused value in ``text`` (None when not found)."""

    def __init__(self, problem: str, wanted: str, find: Callable[[str], int | None], kind: str = "input") -> None:
        super().__init__(problem)
        self.problem, self.wanted, self.find, self.kind = problem, wanted, find, kind


def _bad_number(literal: str, expected: str) -> Refused:
    """A number outside the one number grammar's domain (:func:`segeval.readers.formats.read_number`)."""

    def find(text: str) -> int | None:
        found = re.search(r"(?<![\w.+\-\"])" + re.escape(literal) + r"(?![\w.+\-])", text)
        return found.start() if found else None

    return Refused(f"holds the number {literal[:40]}{'...' if len(literal) > 40 else ''}", expected, find)


def _deepest(text: str) -> int | None:
    """The offset of the first of the deepest points of ``text`` (strings left out; only called on refusal)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: " " * len(m.group()), text)
    deepest, at, depth = 0, None, 0
    for start in range(0, len(bare), 1 << 22):  # in parts: bounded memory on a large file
        codes = np.frombuffer(bare[start : start + (1 << 22)].encode("utf-32-le"), dtype=np.uint32)
        levels = depth + np.cumsum(np.isin(codes, (91, 123)).astype(np.int32) - np.isin(codes, (93, 125)))
        if levels.max() > deepest:
            deepest, at = int(levels.max()), start + int(np.argmax(levels))
        depth = int(levels[-1])
    return at


#: arrays and objects nested deeper than Python's JSON parser reads
TOO_DEEP = (
    "is nested too deeply to read",
    "arrays and objects at most about 900 levels deep (Python's JSON parser stops near its recursion limit, 1000)",
)


def _json_int(literal: str) -> int:
    if len(literal.lstrip("-")) > 18:
        raise _bad_number(literal, "an integer of at most 18 digits (a larger value with a decimal point or exponent)")
    return int(literal)


def _json_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _bad_number(literal, "a finite number")
    return value


def _json_constant(literal: str) -> float:
    raise _bad_number(literal, "a finite number (JSON has no NaN or Infinity)")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            problem = f"has the key {json.dumps(key)} twice in one object"
            raise Refused(problem, "each key once", partial(_duplicate_offset, key=key), "duplicate key")
        out[key] = value
    return out


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every line of ``text``, split on ``\\n`` only (a final ``\\r`` removed)."""
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def loads(text: str) -> Any:
    """``json.loads`` refusing duplicate keys, numbers outside the grammar and deep nesting (:class:`Refused`)."""
    try:
        return json.loads(
            text, object_pairs_hook=_pairs, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant
        )
    except RecursionError:
        raise Refused(*TOO_DEEP, _deepest) from None


def _identity(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return pairs


def walk_objects(text: str, visit: Callable[[list[tuple[str, Any]], int, int], Any]) -> Any:
    """``text`` decoded with each object ``visit(pairs, start, end)`` (its offsets); None on ``ValueError``."""
    decoder: Any = json.JSONDecoder()
    parse = decoder.parse_object

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
        pairs, end = parse(s_and_end, args[0], args[1], None, _identity, *args[4:])
        return visit(pairs, s_and_end[1] - 1, end), end

    decoder.parse_object = parse_object
    decoder.scan_once = getattr(json.scanner, "py_make_scanner")(decoder)  # noqa: B009  (untyped in typeshed)
    try:
        return decoder.decode(text)
    except (ValueError, RecursionError):
        return None


def _duplicate_offset(text: str, key: str) -> int | None:
    """The offset of ``key``'s second appearance within one object of ``text`` (None if not found)."""
    found: list[int] = []

    def visit(pairs: list[tuple[str, Any]], start: int, end: int) -> dict[str, Any]:
        if [k for k, _ in pairs].count(key) > 1:
            encoded = json.dumps(key)
            first = text.find(encoded, start, end)
            second = text.find(encoded, first + 1, end) if first >= 0 else -1
            found.append(second if second >= 0 else start)
            raise ValueError  # stops the walk
        return dict(pairs)

    walk_objects(text, visit)
    return found[0] if found else None


def _refused(name: str, text: str, exc: Refused, expected: str, number: int | None = None) -> InputError:
    """The InputError for valid JSON refused, at its line and column (``number``: the line of a record ``text``)."""
    pos = exc.find(text)
    line, at = number, ""
    shown: str | None = text  # a JSON Lines record: shown from its start, as every record's error
    if pos is not None:
        column = pos - text.rfind("\n", 0, pos)
        at = f" (column {column})"
        if number is None:  # a document may be one long line: about the column
            line = text.count("\n", 0, pos) + 1
            shown = text.split("\n")[line - 1][max(0, column - 100) : column + 100]
    elif number is None:
        shown = None
    problem = f"{exc.problem}{at}; expected {exc.wanted} ({expected})"
    return InputError(name, problem, line=line, text=None if shown is None else shown[:200], kind=exc.kind)


def load_document(
    name: str, text: str, expected: str, *, what: str = "valid JSON", number: int | None = None, flat: str | None = None
) -> Any:
    """One JSON document, or (``number``: its line) one JSON Lines record; else an InputError naming the line, the
    column and what was expected (``flat``, when given, for a record nested too deeply)."""
    try:
        return loads(text)
    except Refused as exc:
        raise _refused(name, text, exc, (flat or expected) if exc.find is _deepest else expected, number) from None
    except json.JSONDecodeError as exc:
        split = text.split("\n")
        bad = split[exc.lineno - 1] if exc.lineno <= len(split) else ""
        raise InputError(
            name,
            f"is not {what} ({exc.msg}, column {exc.colno}); expected {expected}",
            line=number or exc.lineno,
            text=bad[max(0, exc.colno - 100) : exc.colno + 100],
        ) from None


#: a JSON document's start is judged by an error this many characters before the end of the bytes read so far
#: (nearer, the error may come from the cut; the 200 characters a message shows are then whole too)
_DOCUMENT_MARGIN = 256


def document_head(name: str, expected: str, *, what: str = "valid JSON") -> Callable[[bytes], bool]:
    """The :data:`~segeval.readers.files.HeadCheck` of a JSON document read by :func:`load_document`: a syntax
    error in the bytes read so far that the rest cannot change (not near their end, not in a string)."""

    def check(data: bytes) -> bool:
        text = data.decode("utf-8", "replace")
        if len(text) <= _DOCUMENT_MARGIN:
            return False
        try:
            loads(text)
        except json.JSONDecodeError as exc:
            if exc.pos < len(text) - _DOCUMENT_MARGIN and not exc.msg.startswith("Unterminated string"):
                load_document(name, text, expected, what=what)  # raises the whole read's error
        except Refused:  # the whole document says where (or whether)
            pass
        return True

    return check


def record_head(load: Callable[[int, str], object]) -> Callable[[bytes], bool]:
    """The :data:`~segeval.readers.files.HeadCheck` of JSON Lines: ``load(number, line)`` (the reader's own) on
    the first non-blank line once it has arrived."""

    def check(data: bytes) -> bool:
        for number, line in lines(data[: data.rfind(b"\n") + 1].decode("utf-8", "replace")):
            if line.strip():
                load(number, line)
                return True
        return False

    return check
