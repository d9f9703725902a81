"""The strict line parser, which defines the accepted syntax: each bad line raises an InputError, or is
reported to ``on_error`` and skipped."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from segeval.core.errors import InputError
from segeval.readers.files import nul_byte
from segeval.readers.formats import PARSERS, LineFormat, time_hint, wrong_count

EXPECTED = {
    "mmss": "an M.S time: minutes (at most 12 digits), a dot and seconds 0-59 (one or two digits), such as '17.05'",
    "seconds": "a time in seconds: digits with an optional decimal part (any number of decimals; an exponent as Python "
    "writes it, 1e-05), such as '1025.5'",
    "hms": "an H:MM:SS time with optional decimals, such as '1:05:09.25'",
    "int": "an integer (at most 18 digits)",
    "float": "a finite number",
}


OnError = Callable[[InputError], None]


def parse_lines(
    data: bytes, fmt: LineFormat, path: str, time_format: str = "mmss", on_error: OnError | None = None
) -> dict[str, list[object]]:
    """The line parser that defines the syntax.  A bad line raises, or with ``on_error``
    is reported to it and skipped."""
    columns: dict[str, list[object]] = {f.name: [] for f in fmt.fields if f.kind != "ignore"}
    columns["line"] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            row = parse_line(raw, number, fmt, path, time_format)
        except InputError as exc:
            if on_error is None:
                raise
            on_error(exc)
            continue
        if row is None:
            continue
        for name, value in row.items():
            columns[name].append(value)
        columns["line"].append(number)
    return columns


#: why a line that is not UTF-8 is refused (docs/trec_eval-semantics.md §9)
DIFFERENT_ON_PURPOSE = (
    "a deliberate difference from trec_eval, which takes raw bytes: ids are text in every "
    "output format; see docs/trec_eval-semantics.md"
)


def decode_line(raw: bytes, number: int, path: str) -> str:
    """One line's bytes as text; an InputError naming the first bad byte when it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = raw.decode("utf-8", "replace").rstrip("\r")
        raise InputError(
            path,
            f"is not valid UTF-8 text (byte {exc.start + 1} of the line); expected UTF-8 ({DIFFERENT_ON_PURPOSE})",
            line=number,
            text=shown,
            kind="encoding",
        ) from None


def text_lines(data: bytes, path: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, text, tokens) of each non-blank line; InputError for one not UTF-8 or holding a NUL byte."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        tokens = raw.split()  # ASCII white space only
        if tokens:
            text = decode_line(raw.rstrip(b"\r"), number, path)
            if "\x00" in text:
                raise nul_byte(path, number, text)
            yield number, text, [t.decode("utf-8") for t in tokens]


def parse_line(raw: bytes, number: int, fmt: LineFormat, path: str, time_format: str) -> dict[str, object] | None:
    """One line's values by field name, None for a blank line; InputError when malformed."""
    text = decode_line(raw, number, path).rstrip("\r")
    tokens = [t.decode("utf-8") for t in raw.rstrip(b"\r").split()]  # ASCII white space only
    if not tokens:
        return None
    if "\r" in text:
        raise InputError(
            path,
            "contains a carriage return inside the line (old Mac line ends?); expected lines ending in LF or CRLF",
            line=number,
            text=text.replace("\r", "\\r"),
            kind="line ends",
        )
    if "\x00" in text:
        raise nul_byte(path, number, text)
    if not fmt.accepts(len(tokens)):
        expected = f"{fmt.describe_counts()} fields for a {fmt.name} line, such as '{fmt.example}'"
        raise wrong_count(path, number, text, len(tokens), expected)
    row: dict[str, object] = {f.name: "" for f in fmt.fields[len(tokens) :] if f.kind != "ignore"}  # absent ones
    for i, (field, token) in enumerate(zip(fmt.fields, tokens, strict=False)):
        kind = time_format if field.kind == "time" else field.kind
        if kind == "ignore":
            continue
        value = PARSERS[kind](token) if kind in PARSERS else token
        if value is None:
            hint = time_hint(token, time_format) if field.kind == "time" else ""
            raise InputError(
                path,
                f"field {i + 1} ({field.name}) is '{token}'; expected {EXPECTED[kind]}{hint}",
                line=number,
                text=text,
                kind=f"bad {field.name}",
            )
        row[field.name] = value
    return row
