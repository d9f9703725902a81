"""Writing a moment-retrieval protocol's files as segeval lines: the line fields, the figures ``segeval eval``
gives on them, and the checked, atomic writing of ``PREFIX.suffix`` files (``segeval mr --write-lines``).

:mod:`segeval.protocols.moments.lines` builds each protocol's lines with these, TVR's in
:mod:`segeval.protocols.moments.tvr.lines`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.readers.formats import format_time

_TOKEN = re.compile(r"\S+\Z")
EVAL = "segeval eval -c --time-format seconds"


@dataclass(frozen=True)
class Figure:
    """A figure of ``segeval mr -o json`` (``key``: its path there) and the eval run that gives it: ``args`` after
    ``EVAL`` (with ``PREFIX``), ``measure`` the name in eval's output, x 100 when ``percent``."""

    key: tuple[str, ...]
    args: tuple[str, ...]
    measure: str
    percent: bool = True

    @property
    def command(self) -> str:
        return " ".join((EVAL, *self.args))


def group(
    keys: Sequence[tuple[tuple[str, ...], str]],
    adapters: list[str],
    measures: str,
    qrels: str,
    run: str,
    percent: bool = True,
    level: int | None = None,
) -> list[Figure]:
    """Figures given by one eval run: ``keys`` pairs a figure's path with its measure name."""
    args = (
        tuple(x for a in adapters for x in ("-a", a))
        + (() if level is None else ("-l", str(level)))
        + ("-m", measures, qrels, run)
    )
    return [Figure(key, args, measure, percent) for key, measure in keys]


@dataclass
class Lines:
    """The files to write (suffix -> lines), the figures eval gives, those it does not (name, why), notes."""

    files: dict[str, list[str]]
    figures: list[Figure]
    unreproducible: list[tuple[str, str]]
    notes: list[str] = field(default_factory=list)


def token(value: object, what: str, path: str) -> str:
    """``value`` as a line field: a single token, else an InputError naming ``path``."""
    text = str(value)
    if not _TOKEN.match(text):
        raise InputError(
            path,
            f"{what} {text!r} has white space or is empty; expected a single token to write "
            "it as a line field (--write-lines)",
        )
    return text


class Times:
    """Seconds as line fields (9 decimals): negative times refused, rounded ones counted."""

    def __init__(self) -> None:
        self.rounded = 0

    def __call__(self, value: float, where: str, path: str) -> str:
        if value < 0:
            raise InputError(
                path,
                f"{where} has the negative time {value!r}; the lines' seconds format has no "
                "negative times (--write-lines)",
            )
        text = format_time(value, "seconds")
        if float(text) != value:
            self.rounded += 1
        return text

    def notes(self) -> list[str]:
        if not self.rounded:
            return []
        return [
            f"{plural(self.rounded, 'time')} rounded to 9 decimals in the lines: an IoU exactly on a threshold "
            "may then differ from the protocol's"
        ]


def run_lines(qid: str, video: str | list[str], windows: list[tuple[str, str]], tag: str) -> list[str]:
    """One query's run lines in rank order (score = count - rank + 1)."""
    n = len(windows)
    videos = [video] * n if isinstance(video, str) else video
    return [
        f"{qid} Q0 {v} {s} {e} {rank} {n - rank + 1} {tag}"
        for rank, (v, (s, e)) in enumerate(zip(videos, windows, strict=True), start=1)
    ]


def write(prefix: str, inputs: list[str], suffixes: tuple[str, ...], build: Callable[[], Lines]) -> list[str]:
    """Check ``PREFIX.suffix`` for each suffix (none may be an input), then write what ``build`` makes; return
    what was written, the notes, the eval command of each figure and what has none, one stderr line each."""
    from segeval.reports.output import check_output, write_output

    paths = {suffix: Path(f"{prefix}.{suffix}") for suffix in suffixes}
    for path in paths.values():
        check_output(path, inputs)
    done = build()
    out = []
    for suffix, lines in done.files.items():
        path = write_output(paths[suffix], "".join(line + "\n" for line in lines), inputs=inputs)
        out.append(f"wrote {path}: {plural(len(lines), 'line')}")
    out += [f"note: {n}" for n in done.notes]
    commands: dict[str, list[Figure]] = {}
    for f in done.figures:
        commands.setdefault(f.command, []).append(f)
    for command, figures in commands.items():
        names = ", ".join(" ".join(f.key) + " = " + f.measure + (" x 100" if f.percent else "") for f in figures)
        out.append(f"note: {command.replace('PREFIX', shlex.quote(prefix))}  gives {names}")
    out += [f"note: {name}: no eval command: {why}" for name, why in done.unreproducible]
    return out
