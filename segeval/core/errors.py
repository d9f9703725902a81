"""The one error family raised by the library; the CLI turns it into exit codes."""

from __future__ import annotations

import re
import sys
from functools import partial

#: what a terminal may act on: C0 and C1 controls (tab and newline too), DEL, Unicode bidirectional formatting
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def utf8_text(text: str) -> str:
    """``text`` (a name the user gave, its non-ASCII bytes as surrogates under ``LC_ALL=C``) read as UTF-8; bytes
    that are not UTF-8 stay surrogates."""
    if text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that no byte stands for (e.g. from JSON's \\ud800)
        return text


def printable(text: str) -> str:
    """``text`` (read as :func:`utf8_text`) with every control character written as an escape."""
    return _CONTROL.sub(_escape, utf8_text(text))


def print_notes(*notes: str, head: str = "") -> None:
    """Each note on a line of stderr after ``head`` (``"note: "``), rendered safe (:func:`printable`)."""
    for note in notes:
        print(printable(head + note), file=sys.stderr)


def named(note: str, file: str) -> str:
    """``note`` naming the run ``file`` (``note: FILE: ...``, escaped) unless it names it already."""
    shown = printable(file)
    if not file or any(
        re.search(rf"(?<![^\s'\"(/]){re.escape(x)}(?=[\s:,;)'\"]|\.?$|\.\s)", note) for x in (file, shown)
    ):
        return note  # named already (as a whole word: the standard input '-' is no option's dash)
    head, sep, rest = note.partition(": ")
    return f"{head}: {shown}: {rest}" if sep and head in ("note", "warning") else f"{shown}: {note}"


def shown(value: object, limit: int = 200) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages (a value nested too deep to show: its type)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # ValueError: an int too long for str()
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= limit else text[:limit] + "..."


class SegevalError(Exception):
    """Base class of every error segeval reports to a user (exit code 2 in the CLI)."""

    exit_code = 2

    def __str__(self) -> str:
        return printable(super().__str__())


class InputError(SegevalError):
    """A file that cannot be read or a line that does not fit its format."""

    def __init__(
        self, path: str, problem: str, *, line: int | None = None, text: str | None = None, kind: str = "input"
    ) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.problem = problem
        self.kind = kind
        super().__init__("\n".join(self._parts()))

    def __str__(self) -> str:
        # the one line break is segeval's: each part is escaped on its own
        return "\n".join(printable(part) for part in self._parts())

    def _parts(self) -> list[str]:
        where = self.path if self.line is None else f"{self.path}, line {self.line}"
        parts = [f"{where}: {self.problem}"]
        if self.text is not None:
            shown = self.text if len(self.text) <= 200 else self.text[:200] + "..."
            parts.append(f"  line {self.line}: {shown}")
        return parts

    def skipped(self) -> str:
        """The ``--lenient`` listing line of this skipped line (escaped)."""
        return printable(f"segeval: skipped {self.path}, line {self.line}: {self.problem}")

    def __reduce__(self) -> tuple[object, ...]:
        # rebuild with the same fields, so the error survives being sent between processes
        return (partial(InputError, line=self.line, text=self.text, kind=self.kind), (self.path, self.problem))


class ParameterError(SegevalError, ValueError):
    """A parameter value outside its documented domain."""


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise a ParameterError."""
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ParameterError(f"The '{name}' parameter must be one of {options}. Got {shown(value)} instead.")
    return str(value)
