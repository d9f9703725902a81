"""Anchor detection evaluation: the measures of the hyperlinking toolkit's anchoring script (docs/anchoring.md)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from segeval.core.arrays import BoolArray
from segeval.core.errors import InputError, check_choice, utf8_text
from segeval.core.segment import whole_seconds_overlap
from segeval.core.words import plural, verb
from segeval.protocols.anchoring.read import Anchor, AnchorResult, read_anchor_qrels, read_anchor_run
from segeval.readers.blocks import line_texts
from segeval.readers.files import STDIN
from segeval.reports.escaping import json_text

#: the per-query rows, in the toolkit's order
PER_QUERY = ("MRR", "Unjudged_10", "Unjudged_1000", "P_10", "recall")
#: the order of the toolkit's ``all`` rows (its Python 2 dictionary order)
MEAN_ORDER = ("P_10", "recall", "Unjudged_1000", "Unjudged_10", "MRR")
#: ranking order of a query's results: as in the file (the toolkit), or by the rank field (stable)
ORDERS = ("file", "rank")
#: a run query without a relevant anchor in the qrels: not evaluated (with a note), or an error
NO_RELEVANT = ("skip", "error")


@dataclass(frozen=True)
class AnchoringEvaluation:
    """Per-query values (in evaluation order), the ``all`` means and the notes of one run."""

    runid: str
    num_q: int
    per_query: dict[str, dict[str, float]]
    means: dict[str, float]
    notes: tuple[str, ...] = field(default=())

    @property
    def num_q_ret(self) -> int:
        return len(self.per_query)


def _credited(meets: BoolArray, k: int) -> int:
    """Results among the first ``k`` that meet a relevant anchor not met by a higher result."""
    found: set[int] = set()
    n = 0
    for row in meets[:k]:
        new = {int(j) for j in np.flatnonzero(row)} - found
        if new:
            n += 1
            found |= new
    return n


def query_values(anchors: Sequence[Anchor], results: Sequence[AnchorResult]) -> dict[str, float]:
    """The per-query measures of ``results`` (in ranking order) against the query's ``anchors``."""
    relevant = np.array([a.rel > 0 for a in anchors], dtype=bool)
    r_start = np.array([r.start for r in results], dtype=np.float64)[:, None]
    r_end = np.array([r.end for r in results], dtype=np.float64)[:, None]
    a_start = np.array([a.start for a in anchors], dtype=np.float64)[None, :]
    a_end = np.array([a.end for a in anchors], dtype=np.float64)[None, :]
    meets = np.asarray(whole_seconds_overlap(r_start, r_end, a_start, a_end), dtype=bool)
    meets = meets.reshape(len(results), len(anchors))
    hits = meets[:, relevant]
    first = np.flatnonzero(hits.any(axis=1))
    judged: BoolArray = np.asarray(meets.any(axis=1), dtype=bool)
    n_rel = int(relevant.sum())
    return {
        "MRR": 1.0 / (int(first[0]) + 1) if first.size else 0.0,
        "Unjudged_10": float(int((~judged[:10]).sum())),
        "Unjudged_1000": float(int((~judged[:1000]).sum())),
        "P_10": _credited(hits, 10) / 10.0,
        "recall": _credited(hits, n_rel) / float(n_rel),
    }


def evaluate_anchoring(
    qrels: str | Path, run: str | Path, *, order: str = "file", no_relevant: str = "skip", time_format: str = "mmss"
) -> AnchoringEvaluation:
    """Read an anchoring qrels file and run, and evaluate (runid: the run file's base name); ``order``
    (:data:`ORDERS`) and ``no_relevant`` (:data:`NO_RELEVANT`): docs/anchoring.md."""
    anchors = read_anchor_qrels(qrels, time_format)
    results = read_anchor_run(run, time_format)
    runid = STDIN if str(run) == STDIN else utf8_text(os.path.basename(str(run)))
    run_path = str(run)
    check_choice("order", order, ORDERS)
    check_choice("no_relevant", no_relevant, NO_RELEVANT)
    by_query: dict[str, list[Anchor]] = {}
    for anchor in anchors:
        by_query.setdefault(anchor.query, []).append(anchor)
    with_relevant = [q for q, xs in by_query.items() if any(a.rel > 0 for a in xs)]
    ranked: dict[str, list[AnchorResult]] = {}  # each query's results in file order
    apart: list[AnchorResult] = []  # the results that start a second block of their query's lines
    for previous, r in zip([None, *results], results, strict=False):
        if (previous is None or r.query != previous.query) and r.query in ranked:
            apart.append(r)
        ranked.setdefault(r.query, []).append(r)
    notes = []
    if apart:
        notes.append(
            f"note: the lines of {len({r.query for r in apart})} queries are not together in {run_path} "
            f"(first: {apart[0].query}, line {apart[0].line}): each query's lines are ranked as one list "
            f"(the toolkit's script would evaluate each block apart)"
        )
    relevant_set = set(with_relevant)
    skipped = [q for q in ranked if q not in relevant_set]
    if skipped and no_relevant == "error":
        line = ranked[skipped[0]][0].line
        raise InputError(
            run_path,
            f"query '{skipped[0]}' has no relevant anchor in the qrels; expected only "
            f"queries with a relevant anchor (or --no-relevant skip)",
            line=line,
            text=line_texts(run_path, [line])[line],
            kind="query without relevant anchor",
        )
    if skipped:
        notes.append(
            f"note: {plural(len(skipped), 'query', 'queries')} of the run "
            f"{verb(len(skipped), 'has', 'have')} no relevant anchor in the qrels and are not "
            f"evaluated (first: {skipped[0]})"
        )
    per_query: dict[str, dict[str, float]] = {}
    for q, rs in ranked.items():
        if q in relevant_set:
            per_query[q] = query_values(by_query[q], sorted(rs, key=lambda r: r.rank) if order == "rank" else rs)
    missing = [q for q in with_relevant if q not in per_query]
    if missing:
        notes.append(
            f"note: {len(missing)} of {len(with_relevant)} queries with a relevant anchor have no result "
            f"(first: {missing[0]}); they count as 0 in the all rows"
        )
    means: dict[str, float] = {}
    for m in MEAN_ORDER if per_query else ():
        total = 0.0
        for values in per_query.values():  # in the run's query order (the toolkit's)
            total = total + values[m]
        means[m] = total / float(len(with_relevant))
    return AnchoringEvaluation(runid, len(with_relevant), per_query, means, tuple(notes))


def _rows(ev: AnchoringEvaluation) -> list[tuple[str, str, str | int | float]]:
    """(measure, subject, value) in the toolkit's print order."""
    rows: list[tuple[str, str, str | int | float]] = [("runid", "all", ev.runid), ("num_q", "all", ev.num_q)]
    for q, values in ev.per_query.items():
        rows.extend((m, q, values[m]) for m in PER_QUERY)
    rows.append(("num_q_ret", "all", ev.num_q_ret))
    rows.extend((m, "all", v) for m, v in ev.means.items())
    return rows


def _width(text: str) -> int:
    return len(text.encode("utf-8"))  # the toolkit pads byte strings (Python 2)


def render(ev: AnchoringEvaluation, output: str = "text") -> str:
    """``ev`` in a table format: text in the toolkit's layout (padded columns, floats with 5 decimals); JSON and CSV
    (``measure,query,value`` rows in the text order) at full precision."""
    from segeval.reports.tables import check_table_format
    from segeval.reports.tables import render as render_table

    check_table_format(output)
    rows = _rows(ev)
    if output == "csv":
        return render_table([("measure", ""), ("query", ""), ("value", "")], rows, "csv")
    if output == "json":
        shown = {
            "runid": ev.runid,
            "num_q": ev.num_q,
            "num_q_ret": ev.num_q_ret,
            "queries": ev.per_query,
            "all": ev.means,
            "notes": [n.removeprefix("note: ") for n in ev.notes],
        }
        return json_text(shown, indent=2) + "\n"
    per_row = rows[: len(rows) - len(ev.means)]  # the toolkit sizes the columns before the all means
    lm = max(_width(m) for m, _, _ in per_row)
    ls = max(_width(s) for _, s, _ in per_row)
    out = []
    for m, s, v in rows:
        value = f"{v:0.5f}" if isinstance(v, float) else str(v)
        out.append(f"{m}{' ' * max(0, lm - _width(m))} {s}{' ' * max(0, ls - _width(s))} {value}\n")
    return "".join(out)
