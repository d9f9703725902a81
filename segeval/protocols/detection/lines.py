"""A detection ground truth and predictions as segeval lines (``segeval detect --write-lines PREFIX``;
docs/detection.md, "The general path: classes as queries")."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.protocols.detection.evaluate import rankings
from segeval.protocols.detection.read import Predictions, Truth
from segeval.readers.formats import format_time

_SPACE = re.compile(r"\s+")


def _time(value: float, path: str, rounded: list[int]) -> str:
    if value < 0:
        raise InputError(
            path, f"has the negative time {value!r}; the lines' seconds format has no negative times (--write-lines)"
        )
    text = format_time(value, "seconds")
    if float(text) != value:
        rounded[0] += 1
    return text


def detection_lines(protocol: str, t: Truth, p: Predictions) -> tuple[list[str], list[str], list[str]]:
    """The qrels lines, the run lines and notes (``protocol``'s ranking; the kit's ranks as ``thumos14``)."""
    names = [_SPACE.sub("_", c) for c in t.classes]
    if len(set(names)) != len(names):
        raise InputError(
            t.path,
            "has two class names that differ only in white space; --write-lines writes white "
            "space as '_': expected distinct names",
        )
    for v in p.videos:
        if not v or _SPACE.search(v):
            raise InputError(
                p.path,
                f"has the video id {v!r} with white space or empty; expected a single token to "
                "write it as a line field (--write-lines)",
            )
    rounded = [0]
    instances = list(zip(t.label.tolist(), t.video.tolist(), t.start.tolist(), t.end.tolist(), strict=True))
    repeated = next((x for x, n in Counter(instances).items() if n > 1), None)
    if repeated is not None:
        c, v, s, e = repeated
        raise InputError(
            t.path,
            f"lists the instance {t.classes[c]!r} [{s!r}, {e!r}] of video {t.videos[v]!r} more "
            "than once; the official code counts each copy (two predictions can take them), but "
            "qrels judge a segment once (--write-lines): expected each instance once",
        )
    qrels = [
        f"{names[c]} Q0 {t.videos[v]} {_time(s, t.path, rounded)} {_time(e, t.path, rounded)} 1"
        for c, v, s, e in instances
    ]
    run: list[str] = []
    ranked = rankings("thumos14" if protocol == "thumos14-kit" else protocol, p, len(names))
    for name, rows in zip(names, ranked, strict=True):
        n = len(rows)
        for rank, i in enumerate(rows.tolist(), start=1):
            run.append(
                f"{name} Q0 {p.videos[int(p.video[i])]} {_time(float(p.start[i]), p.path, rounded)} "
                f"{_time(float(p.end[i]), p.path, rounded)} {rank} {n - rank + 1} detect"
            )
    notes = []
    if rounded[0]:
        notes.append(
            f"{plural(rounded[0], 'time')} rounded to 9 decimals in the lines: a tIoU on a threshold may "
            "then differ from the official's"
        )
    return qrels, run, notes


def write_lines(protocol: str, t: Truth, p: Predictions, prefix: str) -> list[str]:
    """Write ``PREFIX.qrels`` and ``PREFIX.run`` (neither may be an input); return what was written and the notes."""
    from segeval.reports.output import check_output, write_output

    inputs = [t.path, p.path]
    paths = {suffix: Path(f"{prefix}.{suffix}") for suffix in ("qrels", "run")}
    for path in paths.values():
        check_output(path, inputs)
    qrels, run, notes = detection_lines(protocol, t, p)
    done = []
    for suffix, lines in (("qrels", qrels), ("run", run)):
        path = write_output(paths[suffix], "".join(line + "\n" for line in lines), inputs=inputs)
        done.append(f"wrote {path}: {plural(len(lines), 'line')}")
    return done + [f"note: {n}" for n in notes]
