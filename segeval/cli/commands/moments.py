"""Moment retrieval: ``mr``, each benchmark's official protocol on its own JSON files."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer

from segeval.cli.app import app
from segeval.cli.options import argument, numeric, output_option
from segeval.core.domains import CUTOFFS, UNIT, UNITS
from segeval.core.errors import print_notes, printable
from segeval.reports import tables

if TYPE_CHECKING:
    from segeval.protocols.moments.protocol import MrResult


@app.command("mr")
def moment_retrieval(
    truth: Annotated[
        str,
        argument(
            "GROUND_TRUTH",
            "The protocol's ground truth (QVHighlights: JSON Lines with "
            "relevant_windows; TVR: JSON Lines with ts; .gz ok).",
        ),
    ],
    predictions: Annotated[
        str,
        argument(
            "PREDICTIONS",
            "The protocol's predictions (QVHighlights: JSON Lines with "
            "pred_relevant_windows [start, end, score] and/or "
            "pred_saliency_scores; TVR: the submission JSON with "
            "video2idx, VCMR, SVMR, VR).",
        ),
    ],
    protocol: Annotated[
        str | None,
        typer.Option(
            "--protocol",
            "-p",
            metavar="NAME",
            help="Whose official evaluation to follow: qvhighlights, tvr, didemo, ego4d-nlq, recall (default: told "
            "from the ground truth's first record, and said on stderr; recall is never guessed).",
        ),
    ] = None,
    thresholds: Annotated[
        str | None,
        numeric("--thresholds", UNITS, "IoU thresholds (ego4d-nlq: 0.3,0.5; recall: 0.5,0.7)", metavar="T,T"),
    ] = None,
    top_k: Annotated[
        str | None, numeric("--top-k", CUTOFFS, "Cut-offs of R@k (ego4d-nlq, recall: 1,5)", metavar="K,K")
    ] = None,
    iou_compare: Annotated[
        str | None,
        typer.Option("--iou-compare", metavar="ge|gt", help="A hit is IoU >= t (ge) or > t (gt) (recall: ge)."),
    ] = None,
    nms: Annotated[
        float | None,
        numeric("--nms", UNIT, "Temporal NMS: drop a window with IoU > θ to a better one (recall: off)", metavar="θ"),
    ] = None,
    per_query: Annotated[
        bool,
        typer.Option(
            "-q",
            help="Also each query's value of each headline figure (text, csv: "
            "query,figure,value rows, the figures' own under query all; "
            "json: per_query).",
        ),
    ] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="text, csv: every key of the official output (a row per "
            "key path, parts joined by /), not only the headline "
            "figures.",
        ),
    ] = False,
    output: Annotated[
        str,
        output_option(
            "text, csv: a figure,value table of the headline figures (notes on stderr); json: every key of the "
            "official output, segeval's additions and notes (brief: the same as text)."
        ),
    ] = "text",
    write_lines: Annotated[
        str | None,
        typer.Option(
            "--write-lines",
            metavar="PREFIX",
            help="Also write the ground truth and the ranking as segeval lines, PREFIX.qrels and PREFIX.run "
            "(qvhighlights also PREFIX.map.run and PREFIX.{short,middle,long}.qrels; tvr PREFIX.svmr.run, "
            "PREFIX.vr.qrels and PREFIX.vr.run), and say on stderr, per figure, the segeval eval command that "
            "gives it. Not reproducible with eval (said too): every mIoU, DiDeMo's rank@5, QVHighlights' "
            "MR-mAP average and HL figures, TVR's by-type figures.",
        ),
    ] = None,
) -> None:
    """Score moment retrieval as the benchmark's script does.

    QVHighlights: R1, mAP, buckets, HL mAP and Hit1, plus mIoU and R5; TVR: VCMR, SVMR and VR recall
    at k, by type; the other protocols as --protocol lists.
    """
    from segeval.protocols.moments import protocol as find_protocol
    from segeval.protocols.moments.protocol import parse_options

    fmt = tables.check_table_format("text" if output == "brief" else output)
    if protocol is None:  # told from the ground truth's first record, and said
        from segeval.protocols.moments.detect import detect

        protocol, why = detect(truth)
        print_notes(f"note: protocol {protocol}: {truth}: {why}")
    options = parse_options(thresholds, top_k, iou_compare, nms)
    result = find_protocol(protocol)(truth, predictions, options)
    if write_lines is not None:
        from segeval.protocols.moments.lines import write_lines as write_moment_lines

        for line in write_moment_lines(protocol, truth, predictions, options, write_lines):
            print(printable(line) if line.startswith("note: ") else line, file=sys.stderr)
    _print_result(result, fmt, full, per_query)


def _print_result(result: MrResult, fmt: str, full: bool, per_query: bool) -> None:
    """The figures on stdout (every key as JSON, or a figure,value table; with ``per_query`` each query's too), the
    notes on stderr."""
    from segeval.reports.escaping import json_text

    shown = list(_flat(result.figures if full else result.brief))
    if fmt == "json":
        queries = {"per_query": result.per_query} if per_query else {}
        sys.stdout.write(json_text({**result.figures, **queries, "notes": result.notes}, indent=2) + "\n")
    elif per_query:
        rows = [(q, figure, value) for q, values in result.per_query.items() for figure, value in values.items()]
        tables.write([("query", ""), ("figure", ""), ("value", "")], [*rows, *(("all", *row) for row in shown)], fmt)
    else:
        tables.write([("figure", ""), ("value", "")], shown, fmt)
    print_notes(*result.notes, head="note: ")


def _flat(doc: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(key path, value) of every leaf of ``doc``, the path's parts joined by ``/``."""
    if isinstance(doc, dict | list):
        for key, value in doc.items() if isinstance(doc, dict) else enumerate(doc):
            yield from _flat(value, f"{path}/{key}" if path else str(key))
    else:
        yield path, doc
