"""The MediaEval reference script's output layout, reproduced byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from segeval.core.errors import utf8_text
from segeval.core.evaluation import Evaluation
from segeval.measures.declaration import Format

LABEL_MEASURES = (
    "num_rel",
    "num_ret",
    "num_rel_ret",
    "map",
    "P_5",
    "P_10",
    "P_20",
    "Judged_10",
    "Judged_20",
    "Judged_30",
    "relString",
)
STAT_MEASURES = ("videos_ret", "videos_rel", "avglength_ret", "avglength_rel")
MAISP_MEASURES = ("num_rel_secs", "num_ret_secs", "num_rel_ret_secs", "maisp", "maisp_0.05", "maisp_0.10", "maisp_0.20")
MEASURES = STAT_MEASURES + LABEL_MEASURES + MAISP_MEASURES
COLUMN_CAP = 20


def format_value(value: Any, fmt: Format) -> str:
    """``%.4f`` for scores, whole numbers truncated toward zero for counts and statistics."""
    if fmt == "score":
        return f"{value:.4f}"
    if fmt == "text":
        return str(value)
    return str(int(value))


def _bytes(cell: str) -> int:
    return len(cell.encode("utf-8", "surrogateescape"))


def layout(rows: list[tuple[str, str, str]]) -> str:
    """Tab-separated columns, each padded to its longest cell (capped at 20, never cut), counted in UTF-8
    bytes as the reference (Python 2 ``'%-*s'`` on byte strings) does: a non-ASCII id keeps byte parity."""
    columns = list(zip(*rows, strict=True)) if rows else [(), (), ()]
    if all("".join(column).isascii() for column in columns):  # a character is a byte: str.ljust pads alike
        w0, w1, w2 = (min(COLUMN_CAP, max(map(len, column), default=0)) for column in columns)
        return "".join([f"{a.ljust(w0)}\t{b.ljust(w1)}\t{c.ljust(w2)}\n" for a, b, c in rows])
    widths = [max(min(COLUMN_CAP, _bytes(cell)) for cell in column) for column in columns]
    return "".join(
        "\t".join(cell + " " * max(0, w - _bytes(cell)) for cell, w in zip(r, widths, strict=True)) + "\n" for r in rows
    )


def bom_notes(qrels: str | Path, run: str | Path) -> list[str]:
    """A note for each input whose byte-order mark segeval read away: the reference keeps it in the first
    query id (so that query's figures differ from the reference's, which counts it as another query)."""
    from segeval.readers.files import BOM_READ

    return [
        f"note: {p} starts with a UTF-8 byte-order mark, which segeval reads away; the reference script "
        f"keeps it in the first query id, so its figures for that query differ"
        for p in map(str, (qrels, run))
        if p in BOM_READ
    ]


def render(ev: Evaluation, run_path: str | Path, bin_size: int, tolerance: int) -> str:
    """The reference's report: constant rows, per-query rows, then the ``all`` rows."""
    rows: list[tuple[str, str, str]] = [
        ("runid", "all", utf8_text(Path(run_path).name)),
        ("size_bin", "all", str(bin_size)),
        ("tol_len", "all", str(tolerance)),
        ("mark_relevant", "all", "1"),
        ("mark_non_relevant", "all", "0"),
        ("mark_relevant_seen", "all", "s"),
        ("mark_non-relevant_seen", "all", "S"),
        ("mark_unjudged", "all", "-"),
    ]
    order = [r for r in ev.requests if r.measure.family.scope == "segments" and r.name in STAT_MEASURES]
    order += [r for r in ev.requests if r.measure.family.scope == "labels"]
    order += [r for r in ev.requests if r.measure.family.scope == "segments" and r.name not in STAT_MEASURES]
    columns = [(r.name, [format_value(v, r.measure.family.fmt) for v in ev.per_query[r.name]]) for r in order]
    for i, qid in enumerate(ev.queries):
        rows += [(name, qid, cells[i]) for name, cells in columns]
    rows.append(("num_q", "all", str(len(ev.queries))))
    for r in order:
        if r.measure.family.aggregator != "none":
            rows.append((r.name, "all", format_value(ev.summary[r.name], r.measure.family.fmt)))
    return layout(rows)
