"""Action spotting: ``spot``, SoccerNet's official average-mAP on its own files."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from segeval.cli.app import app
from segeval.cli.options import TableOutput, argument
from segeval.core.errors import check_choice, print_notes
from segeval.reports import tables


@app.command("spot")
def spot(
    truth: Annotated[
        str,
        argument(
            "GROUND_TRUTH",
            "One game's Labels-v2.json, or a folder of games in SoccerNet's "
            "layout (league/season/game/Labels-v2.json).",
        ),
    ],
    predictions: Annotated[
        str,
        argument(
            "PREDICTIONS",
            "One game's results_spotting.json, or a folder of games matched to the ground truth's by relative path.",
        ),
    ],
    protocol: Annotated[
        str, typer.Option("--protocol", "-p", metavar="NAME", help="Whose official evaluation to follow: soccernet.")
    ] = "soccernet",
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="loose|tight|at1..at5",
            help="Tolerances: loose 5..60 s, tight 1..5 s, atN N s (repeatable; default the set's: loose and tight, "
            "ball at1).",
        ),
    ] = None,
    classes: Annotated[
        str,
        typer.Option(
            "--classes",
            "-c",
            metavar="v2|v1|ball|LABELS|FILE.json",
            help="The classes: SoccerNet-v2's 17, v1's 3, ball (Ball Action Spotting, 25 fps), a comma list of labels "
            "or a JSON file of labels to class indices.",
        ),
    ] = "v2",
    label_file: Annotated[
        str | None,
        typer.Option(
            "--label-file",
            metavar="NAME",
            help="The ground-truth file name in each game folder (default the set's: "
            "Labels-v2.json, v1 Labels.json, ball Labels-ball.json).",
        ),
    ] = None,
    prediction_file: Annotated[
        str, typer.Option("--prediction-file", metavar="NAME", help="The predictions file name in each game folder.")
    ] = "results_spotting.json",
    output: TableOutput = "text",
    per_game: Annotated[
        bool,
        typer.Option(
            "--per-game",
            help="Each game's average-mAP alone: the official computation on its two halves only (a class "
            "without events in the game has AP 0 and counts in the mean, as the official counts it; "
            "predictions of a game without ground truth are ignored, as overall).",
        ),
    ] = False,
) -> None:
    """Score action spotting as SoccerNet's evaluator does.

    Average-mAP (loose and/or tight), per class, for all events and for visible and "not shown" ones:
    predictions on the 2 fps grid (25 for ball), 11-point AP over 200 thresholds, integrated over the tolerances
    (docs/spotting.md).
    """
    from segeval.protocols.spotting import ap, grid, read, report

    check_choice("protocol", protocol, ("soccernet",))
    fmt = tables.check_table_format(output)
    class_set = read.class_set(classes)
    metrics = [check_choice("metric", m, tuple(ap.METRICS)) for m in (metric or class_set.metrics)]
    spotting = read.read(truth, predictions, classes=class_set, label_file=label_file, prediction_file=prediction_file)
    cells = grid.build(spotting)
    notes = spotting.notes + grid.notes(cells)
    chosen = list(dict.fromkeys(metrics))
    if per_game:
        per_metric = [ap.per_game(cells, m) for m in chosen]
        tables.write(
            report.GAME_COLUMNS, report.game_rows([g.name for g in spotting.games], per_metric, class_set), fmt
        )
    elif fmt == "json":
        sys.stdout.write(
            report.as_json([ap.average_map(cells, m) for m in chosen], len(spotting.games), class_set, notes)
        )
    else:
        tables.write(report.COLUMNS, report.rows([ap.average_map(cells, m) for m in chosen], class_set), fmt)
    print_notes(*notes, head="note: ")
