"""Sound event detection: ``sed``, DCASE task 4's figures (sed_eval, psds_eval) on its own files."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Annotated

import typer

from segeval.cli.app import app
from segeval.cli.options import argument, numeric, output_option
from segeval.core.domains import NONNEGATIVE, POSITIVE, UNIT
from segeval.core.errors import ParameterError, check_choice, print_notes

METRICS = ("event", "segment", "psds", "psds1", "psds2", "f1")


#: ``--max-efpr``'s domain: a positive rate, or none
EFPR = replace(POSITIVE, words=("none",))


@app.command("sed")
def sed(
    truth: Annotated[str, argument("GROUND_TRUTH", "DCASE ground-truth TSV: filename, onset, offset, event_label.")],
    system: Annotated[
        str,
        argument(
            "SYSTEM",
            "One detection TSV (event, segment, f1), or a folder of detection "
            "TSVs, one per operating point, in name order (psds*).",
        ),
    ],
    durations: Annotated[
        str | None,
        typer.Option(
            "--durations",
            "-d",
            metavar="TSV",
            help="filename, duration (needed by psds*, f1 and --segment-length duration).",
        ),
    ] = None,
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            "-m",
            metavar="|".join(METRICS),
            help="event, segment (sed_eval); psds with the options below (default "
            "PSDS1's), psds1 or psds2 (DCASE 2021-2023 settings), f1 "
            "(intersection macro F1; psds_eval).",
        ),
    ] = "event",
    t_collar: Annotated[float, numeric("--t-collar", NONNEGATIVE, "Onset/offset collar (s)")] = 0.2,
    percentage_of_length: Annotated[
        float,
        numeric(
            "--percentage-of-length",
            NONNEGATIVE,
            "Offset collar as a share of the reference length (DCASE's 0.2; sed_eval's own default is 0.5)",
        ),
    ] = 0.2,
    no_onset: Annotated[bool, typer.Option("--no-onset", help="Do not check onsets.")] = False,
    no_offset: Annotated[bool, typer.Option("--no-offset", help="Do not check offsets.")] = False,
    matching: Annotated[
        str,
        typer.Option("--matching", metavar="optimal|greedy", help="Event matching (sed_eval's event_matching_type)."),
    ] = "optimal",
    resolution: Annotated[float, numeric("--resolution", POSITIVE, "Segment length (s)")] = 1.0,
    segment_length: Annotated[
        str,
        typer.Option(
            "--segment-length",
            metavar="last-offset|duration",
            help="Each clip ends at its last event (DCASE; clips of the ground truth) or at its duration (every "
            "clip of --durations).",
        ),
    ] = "last-offset",
    dtc: Annotated[float | None, numeric("--dtc", UNIT, "Detection tolerance criterion")] = None,
    gtc: Annotated[float | None, numeric("--gtc", UNIT, "Ground-truth intersection criterion")] = None,
    cttc: Annotated[float | None, numeric("--cttc", UNIT, "Cross-trigger tolerance criterion")] = None,
    alpha_ct: Annotated[float | None, numeric("--alpha-ct", UNIT, "Cross-trigger weight")] = None,
    alpha_st: Annotated[float | None, numeric("--alpha-st", NONNEGATIVE, "Weight of the spread across classes")] = None,
    max_efpr: Annotated[
        str | None, numeric("--max-efpr", EFPR, "Largest effective false positives per hour", metavar="RATE|none")
    ] = None,
    psds_tool: Annotated[
        str,
        typer.Option(
            "--psds-tool",
            metavar="psds_eval|sed_scores_eval",
            help="psds_eval: SYSTEM is a folder of detection tables (operating points); sed_scores_eval: a folder of "
            "frame-score tables, one per clip of the ground truth with events (threshold-free).",
        ),
    ] = "psds_eval",
    figure: Annotated[
        str | None,
        typer.Option(
            "--plot",
            metavar="FILE.png|svg",
            help="psds*: draw each class's ROC and the PSD-ROC (needs pip install 'segeval[plot]').",
        ),
    ] = None,
    output: Annotated[
        str, output_option("text or csv: a table; json: every figure, per-class ROC points for psds*.")
    ] = "text",
) -> None:
    """Sound event detection as DCASE scores it (docs/sed.md).

    event/segment: sed_eval 0.2.1's F, precision, recall and error rate per class, micro and macro.
    psds*/f1: psds_eval 0.5.3's PSDS from operating-point tables and its intersection macro F1, or
    sed_scores_eval 0.0.4's PSDS from frame scores (--psds-tool).
    """
    from segeval.adapters.collar import Collar
    from segeval.protocols.sed import measures, report

    check_choice("metric", metric, METRICS)
    fmt = check_choice("output", output, ("text", "json", "csv"))
    check_choice("matching", matching, ("optimal", "greedy"))
    check_choice("psds_tool", psds_tool, ("psds_eval", "sed_scores_eval"))
    check_choice("segment_length", segment_length, ("last-offset", "duration"))
    if figure is not None:
        if metric not in ("psds", "psds1", "psds2"):
            raise ParameterError(f"--plot draws a PSDS's ROC curves; --metric {metric} has none.")
        from segeval.figures import check_output

        check_output(figure, [truth, system])
    if metric in ("event", "segment"):
        if metric == "segment" and segment_length == "duration" and durations is None:
            raise ParameterError("--segment-length duration needs --durations.")
        collar = Collar(t_collar, percentage_of_length, not no_onset, not no_offset)
        result = report.sed_eval(
            truth,
            system,
            durations,
            metric,
            collar=collar,
            matching=matching,
            resolution=resolution,
            length=segment_length,
        )
    else:
        if durations is None:
            raise ParameterError(f"--metric {metric} needs --durations.")
        given = {"dtc": dtc, "gtc": gtc, "cttc": cttc, "alpha_ct": alpha_ct, "alpha_st": alpha_st}
        if metric in ("psds1", "psds2") and (any(v is not None for v in given.values()) or max_efpr is not None):
            raise ParameterError(f"--metric {metric} fixes the PSDS parameters; use --metric psds to set them.")
        base = measures.SETTINGS[metric if metric in ("psds2", "f1") else "psds1"]
        criteria = replace(base, **{k: float(v) for k, v in given.items() if v is not None})
        if max_efpr is not None:
            criteria = replace(criteria, max_efpr=None if max_efpr == "none" else float(max_efpr))
        if metric == "f1":
            result = report.macro_f1(truth, system, durations, criteria)
        elif psds_tool == "sed_scores_eval":  # sed_scores_eval takes no cttc without alpha_ct
            cross = criteria.cttc if criteria.alpha_ct > 0 else None
            result = report.sed_scores(truth, system, durations, replace(criteria, cttc=cross))
        else:
            result = report.psds(truth, system, durations, criteria)
    if figure is not None:
        report.plot(result, figure)
    sys.stdout.write(report.render_report(result, fmt))
    print_notes(*result.notes)
