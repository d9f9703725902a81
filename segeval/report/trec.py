"""trec_eval's text layout: ``name`` padded to 22, tab, query id (or ``all``), tab, value."""

from __future__ import annotations

from typing import Any

from segeval.measures.registry import Format
from segeval.pipeline import Evaluation


def format_value(value: Any, fmt: Format) -> str:
    """``%.4f`` for scores, integers for counts, quoted text (as trec_eval's relstring)."""
    if fmt == "score":
        return f"{value:.4f}"
    if fmt == "text":
        return f"'{value}'"
    return str(int(value))


def row(name: str, query: str, value: str) -> str:
    return f"{name:<22}\t{query}\t{value}\n"


def render(ev: Evaluation, runid: str, *, per_query: bool = False, summary: bool = True) -> str:
    """Per-query rows (``-q``) for every query, then the summary rows (unless ``-n``)."""
    out: list[str] = []
    if per_query:
        for i, qid in enumerate(ev.queries):
            for r in ev.requests:
                if r.measure.family.per_query:
                    out.append(row(r.name, qid, format_value(ev.per_query[r.name][i], r.measure.fmt)))
    if summary:
        out.append(row("runid", "all", runid))
        out.append(row("num_q", "all", str(len(ev.queries))))
        for r in ev.requests:
            if r.measure.aggregate != "none":
                out.append(row(r.name, "all", format_value(ev.summary[r.name], r.measure.fmt)))
    return "".join(out)
