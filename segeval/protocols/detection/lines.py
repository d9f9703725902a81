"""A detection ground truth and predictions as segeval lines (``segeval detect --write-lines PREFIX``;
docs/detection.md, "The general path: classes as queries")."""

from __future__ import annotations

import re
from collections import Counter

from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.protocols.detection.evaluate import rankings
from segeval.protocols.detection.read import Predictions, Truth
from segeval.protocols.moments.lines import Lines, Times, token, write

_SPACE = re.compile(r"\s+")


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
        token(v, "the video id", p.path)
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
    times = Times()
    windows = times.pairs([(s, e) for _, _, s, e in instances], "an instance", t.path)
    qrels = [f"{names[c]} Q0 {t.videos[v]} {s} {e} 1" for (c, v, _, _), (s, e) in zip(instances, windows, strict=True)]
    run: list[str] = []
    ranked = rankings("thumos14" if protocol == "thumos14-kit" else protocol, p, len(names))
    for name, rows in zip(names, ranked, strict=True):
        n = len(rows)
        found = times.pairs(zip(p.start[rows].tolist(), p.end[rows].tolist(), strict=True), "a prediction", p.path)
        for rank, (i, (s, e)) in enumerate(zip(rows.tolist(), found, strict=True), start=1):
            run.append(f"{name} Q0 {p.videos[int(p.video[i])]} {s} {e} {rank} {n - rank + 1} detect")
    notes = []
    if times.rounded:
        notes.append(
            f"{plural(times.rounded, 'time')} rounded to 9 decimals in the lines: a tIoU on a threshold may "
            "then differ from the official's"
        )
    return qrels, run, notes


def write_lines(protocol: str, t: Truth, p: Predictions, prefix: str) -> list[str]:
    """Write ``PREFIX.qrels`` and ``PREFIX.run`` (neither may be an input); return what was written and the notes."""
    qrels, run, notes = detection_lines(protocol, t, p)
    return write(Lines({"qrels": qrels, "run": run}, [], [], notes), [t.path, p.path], prefix)
