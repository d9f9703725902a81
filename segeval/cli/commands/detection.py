"""Temporal action detection and proposals: ``detect`` and ``proposals``, each benchmark's official
protocol on its own files (docs/detection.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from segeval.cli.app import app
from segeval.cli.options import TableOutput, argument, numeric
from segeval.core.domains import CUTOFF, PROPORTIONS
from segeval.core.errors import ParameterError, check_choice, print_notes
from segeval.core.words import plural
from segeval.reports import tables

Truth = Annotated[
    str,
    argument(
        "GROUND_TRUTH",
        "ActivityNet JSON ({database: ...}), Ego4D MQ JSON, or the THUMOS14 kit's annotation folder (.gz ok).",
    ),
]
Subset = Annotated[
    str | None,
    typer.Option(
        "--subset",
        metavar="NAME",
        help="The ground-truth subset evaluated (activitynet: validation; thumos14, "
        "thumos14-kit: test; ego4d-mq: val).",
    ),
]


@app.command("detect")
def detect_command(
    truth: Truth,
    predictions: Annotated[
        str,
        argument(
            "PREDICTIONS",
            "ActivityNet-style JSON {results: {video: [{segment, label, score}]}}, or the kit's 'video t1 "
            "t2 classid confidence' lines.",
        ),
    ],
    protocol: Annotated[
        str, typer.Option("--protocol", "-p", metavar="NAME", help="activitynet, thumos14, thumos14-kit or ego4d-mq.")
    ] = "activitynet",
    thresholds: Annotated[
        str | None,
        numeric(
            "--thresholds",
            PROPORTIONS,
            "tIoU thresholds (activitynet: linspace(0.5, 0.95, 10); thumos14, thumos14-kit: 0.3,0.4,0.5,0.6,0.7; "
            "ego4d-mq: 0.1,...,0.5)",
            metavar="T,T",
        ),
    ] = None,
    subset: Subset = None,
    output: TableOutput = "text",
    write_lines: Annotated[
        str | None,
        typer.Option(
            "--write-lines",
            metavar="PREFIX",
            help="Also write the classes as queries: PREFIX.qrels and PREFIX.run "
            "(for segeval eval -a tiou-best:θ -m ap_interp).",
        ),
    ] = None,
    per_video: Annotated[
        bool,
        typer.Option(
            "--per-video",
            help="mAP per tIoU and Average-mAP of each video alone (the same matching and AP on its "
            "instances and its predictions of its classes); a video without ground truth has no "
            "class to average and no row.",
        ),
    ] = False,
    errors: Annotated[
        bool,
        typer.Option(
            "--errors",
            help="DETAD's false-positive analysis (not thumos14-kit): each class's top 10 G predictions as "
            "true positive, double detection, wrong label, localization, confusion or background "
            "error, and the Average-mAP_N gain of removing each type.",
        ),
    ] = False,
) -> None:
    """Temporal action detection: each benchmark's official mAP.

    mAP per tIoU, the average mAP and AP per class, as the benchmark's official script computes them
    (docs/detection.md); per video (--per-video) or DETAD's false-positive analysis (--errors)."""
    from segeval.protocols.detection import evaluate as E
    from segeval.protocols.detection.report import COLUMNS, VIDEO_COLUMNS, detection_rows, video_rows

    fmt = tables.check_table_format(output)
    check_choice("protocol", protocol, E.PROTOCOLS)
    if per_video and errors:
        raise ParameterError("The '--per-video' and '--errors' parameters cannot be used together. Got both.")
    if errors and protocol == "thumos14-kit":
        raise ParameterError(
            "The '--errors' parameter needs ActivityNet's matching (activitynet, thumos14, "
            "ego4d-mq). Got protocol 'thumos14-kit' instead."
        )
    chosen = E.parse_thresholds(thresholds, protocol)
    t, p = E.read_inputs(protocol, truth, predictions, subset or E.SUBSETS[protocol])
    result = E.evaluate(protocol, t, p, chosen)
    if write_lines is not None:
        from segeval.protocols.detection.lines import write_lines as write_detection_lines

        print_notes(*write_detection_lines(protocol, t, p, write_lines))
    if errors:
        from segeval.protocols.detection import errors as X

        tables.write(X.COLUMNS, X.error_rows(X.analyse(protocol, t, p, chosen)), fmt)
    elif per_video:
        videos = E.per_video(protocol, t, p, chosen)
        tables.write(VIDEO_COLUMNS, [row for v, r in videos for row in video_rows(v, r)], fmt)
        unscored = len({p.videos[v] for v in p.video.tolist()} - {v for v, _ in videos})
        if unscored:
            result.notes.append(
                f"{plural(unscored, 'video')} with predictions but no ground-truth instance: no "
                "per-video figure (no class to average)"
            )
    else:
        tables.write(COLUMNS, detection_rows(result), fmt)
    print_notes(*result.notes, head="note: ")


@app.command("proposals")
def proposals_command(
    truth: Truth,
    predictions: Annotated[
        str, argument("PROPOSALS", "ActivityNet proposal JSON {results: {video: [{segment, score}]}}.")
    ],
    protocol: Annotated[
        str, typer.Option("--protocol", "-p", metavar="NAME", help="activitynet (eval_proposal.py).")
    ] = "activitynet",
    max_proposals: Annotated[
        int,
        numeric(
            "--max-proposals",
            CUTOFF,
            "The average number of proposals per video (AN) of the curve's end",
            metavar="AN",
        ),
    ] = 100,
    subset: Subset = None,
    output: TableOutput = "text",
) -> None:
    """ActivityNet proposals: AUC of AR@AN, AR@k.

    AUC (%) of the AR@AN curve, AR@1/5/10/100 and the curve, as eval_proposal.py computes them."""
    from segeval.protocols.detection import read as R
    from segeval.protocols.detection.proposals import evaluate_proposals
    from segeval.protocols.detection.report import PROPOSAL_COLUMNS, proposal_rows

    fmt = tables.check_table_format(output)
    check_choice("protocol", protocol, ("activitynet",))
    t = R.read_activitynet_truth(truth, subset or "validation")
    p = R.read_activitynet_predictions(predictions, t, labels=False)
    result = evaluate_proposals(t, p, max_proposals)
    tables.write(PROPOSAL_COLUMNS, proposal_rows(result), fmt)
    print_notes(*result.notes, head="note: ")
