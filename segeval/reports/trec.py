"""trec_eval's text layout: ``name`` padded to 22, tab, query id (or ``all``), tab, value."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from segeval.measures.declaration import Format
from segeval.measures.definitions import SETS

if TYPE_CHECKING:
    from segeval.core.evaluation import Evaluation
    from segeval.measures.compute import Request

#: trec_eval's print order of measure families: all_trec's (dcg and ideal_dcg after G), then the -R formats'
#: measures; others follow in request order
_ALL = SETS["all_trec"]
TREC_ORDER = (
    *_ALL[: _ALL.index("G") + 1],
    "dcg",
    "ideal_dcg",
    *_ALL[_ALL.index("G") + 1 :],
    *SETS["prefs"],
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
    *SETS["qrels_jg"],
)


def runid(tags: Any) -> str:
    """The ``runid`` row: the tag of the run's last data line (a sequence or a pandas column, in file order), as
    trec_eval prints it; '' for a run without lines."""
    if not len(tags):
        return ""
    return str(tags.iloc[-1] if hasattr(tags, "iloc") else tags[-1])


def trec_order(requests: list[Request]) -> list[Request]:
    """Requests in trec_eval's order: by family, then by parameter."""
    rank = {name: i for i, name in enumerate(TREC_ORDER)}
    return sorted(
        requests,
        key=lambda r: (
            rank.get(r.measure.family.name, len(TREC_ORDER)),
            r.measure.param is not None,
            r.measure.param if isinstance(r.measure.param, int | float) else 0,
        ),
    )


def format_value(value: Any, fmt: Format) -> str:
    """``%6.4f`` for scores (NaN as glibc prints trec_eval's 0/0: ``  -nan``), integers for counts,
    quoted text (as trec_eval's relstring)."""
    if fmt == "score":
        return "  -nan" if math.isnan(value) else f"{value:6.4f}"
    if fmt == "text":
        return f"'{value}'"
    return str(int(value))


def label(r: Request) -> str:
    """The name trec_eval prints for a request (:attr:`Measure.label`, and the adapter's suffix)."""
    return r.measure.label + r.name[len(r.measure.name) :]


def row(name: str, query: str, value: str) -> str:
    return f"{name:<22}\t{query}\t{value}\n"


def prefixed(text: str, label: str) -> str:
    """Every line of ``text`` opened by ``label`` and a tab: several runs' trec_eval rows in one output,
    each naming its run file (``cut -f2-`` gives trec_eval's rows back)."""
    from segeval.reports.output import shown

    head = shown(label) + "\t"
    return "".join(head + line + "\n" for line in text.split("\n")[:-1]) + (
        head + text.rsplit("\n", 1)[-1] if text and not text.endswith("\n") else ""
    )


def render(
    ev: Evaluation,
    runid: str,
    *,
    per_query: bool = False,
    summary: bool = True,
    header: Sequence[str] = ("runid", "num_q"),
    shown: Collection[str] | None = None,
) -> str:
    """Per-query rows (``-q``) for every query (of ``shown`` when given), then the summary rows (unless ``-n``)
    opening with the ``header`` rows asked for (``runid``, ``num_q``)."""
    out: list[str] = []
    ordered = trec_order(list(ev.requests))
    if per_query:
        for i, qid in enumerate(ev.queries):
            if shown is not None and qid not in shown:
                continue
            for r in ordered:
                if r.measure.family.per_query:
                    out.append(row(label(r), qid, format_value(ev.per_query[r.name][i], r.measure.family.fmt)))
    if summary:
        if "runid" in header:
            out.append(row("runid", "all", runid))
        if "num_q" in header:
            out.append(row("num_q", "all", str(len(ev.queries))))
        for r in ordered:
            if r.measure.family.aggregator != "none":
                out.append(row(label(r), "all", format_value(ev.summary[r.name], r.measure.family.fmt)))
    return "".join(out)


def render_json(ev: Evaluation, runid: str, *, skipped_lines: int = 0, file: str = "") -> str:
    """Everything as one JSON document: the run file, per-query values, the summary and the notes."""
    from segeval.reports.escaping import json_text

    requests = trec_order(ev.requests)
    doc = {
        "file": file,
        "runid": runid,
        "num_q": len(ev.queries),
        "per_query": {
            qid: {r.name: ev.per_query[r.name][i] for r in requests if r.measure.family.per_query}
            for i, qid in enumerate(ev.queries)
        },
        "summary": {r.name: ev.summary[r.name] for r in requests if r.measure.family.aggregator != "none"},
        "unevaluated_queries": ev.unevaluated,
        "notes": ev.notes,
        "skipped_lines": skipped_lines,
    }
    return json_text(doc) + "\n"


def render_csv(ev: Evaluation, runid: str, *, per_query: bool = True, summary: bool = True, file: str = "") -> str:
    """Long CSV: ``file,runid,query,measure,value`` (query ``all`` for the summary; ``file`` the run file)."""
    from segeval.reports.tables import render as render_table

    rows: list[tuple[object, ...]] = []
    requests = trec_order(ev.requests)
    if per_query:
        for i, qid in enumerate(ev.queries):
            rows += (
                (file, runid, qid, r.name, ev.per_query[r.name][i]) for r in requests if r.measure.family.per_query
            )
    if summary:
        rows.append((file, runid, "all", "num_q", len(ev.queries)))
        rows += (
            (file, runid, "all", r.name, ev.summary[r.name]) for r in requests if r.measure.family.aggregator != "none"
        )
    return render_table([(c, "") for c in ("file", "runid", "query", "measure", "value")], rows, "csv")
