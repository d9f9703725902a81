"""ASCII timelines for tests: draw qrels and results, get DataFrames.

Each line is ``name: drawing``; one character is one second, and the character
after ``": "`` is second 0.  In a drawing,
``[`` marks a start, ``]`` an end (closed: ``[==]`` at columns 2..5 is 2-5),
``*`` a zero-length segment, anything else is filler.  Names:

* ``rel`` / ``non`` (optionally ``rel@v2``): relevant / non-relevant qrels
  segments of video ``v`` (default ``v1``), several per line allowed;
* ``N`` (a rank number, optionally ``N@v2``): one result at that rank.
"""

from __future__ import annotations

import re

import pandas as pd

from segeval.adapters.base import Adapted, Adapter
from segeval.readers.from_tables import prepare

_NAME = re.compile(r"(?P<kind>rel|non|[0-9]+)(?:@(?P<video>\S+))?\Z")


def spans(drawing: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, c in enumerate(drawing):
        if c == "*":
            out.append((i, i))
        elif c == "[":
            start = i
        elif c == "]":
            assert start is not None, drawing
            out.append((start, i))
            start = None
    return out


def bar(start: int, end: int) -> str:
    """The drawing of one segment start-end (for timelines too long to draw by hand)."""
    return "." * start + ("*" if start == end else "[" + "=" * (end - start - 1) + "]")


def frames(picture: str, query: str = "q1") -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels: list[dict[str, object]] = []
    run: list[dict[str, object]] = []
    for line_no, line in enumerate(picture.strip("\n").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, drawing = line.split(":", 1)
        drawing = drawing[1:] if drawing.startswith(" ") else drawing  # column 0 follows ": "
        m = _NAME.match(name.strip())
        assert m, line
        video = m.group("video") or "v1"
        found = spans(drawing)
        if m.group("kind") in ("rel", "non"):
            for s, e in found:
                qrels.append({"query": query, "item": video, "start": float(s), "end": float(e),
                              "rel": 1 if m.group("kind") == "rel" else 0, "line": line_no})
        else:
            assert len(found) == 1, line
            s, e = found[0]
            run.append({"query": query, "item": video, "start": float(s), "end": float(e), "jumpin": float("nan"),
                        "rank": int(m.group("kind")), "score": 0.0, "run": "r", "line": line_no})
    q = pd.DataFrame(qrels, columns=["query", "item", "start", "end", "rel", "line"])
    r = pd.DataFrame(run, columns=["query", "item", "start", "end", "jumpin", "rank", "score", "run", "line"])
    return q.astype({"rel": "int64", "line": "int64"}), r.astype({"rank": "int64", "line": "int64"})


def adapt(adapter: Adapter, picture: str) -> Adapted:
    """The single query's adapted labels for a drawn timeline."""
    q, r = frames(picture)
    (result,) = adapter.adapt(prepare(q, r))
    return result
