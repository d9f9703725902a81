"""Spoken content: ``kws``, keyword search scored as NIST F4DE KWSEval scores it (ATWV, MTWV, OTWV, STWV)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from segeval.cli.app import app


@app.command("kws")
def keyword_search(
    ecf: Annotated[str, typer.Option("--ecf", "-e", metavar="ECF", help="Experiment control file (the evaluated "
                                                                          "excerpts).")],
    rttm: Annotated[str, typer.Option("--rttm", "-r", metavar="RTTM", help="Reference transcript (LEXEME "
                                                                             "records).")],
    kwlist: Annotated[str, typer.Option("--terms", "-t", metavar="KWLIST", help="Term list (kwlist XML).")],
    kwslist: Annotated[str, typer.Option("--system", "-s", metavar="KWSLIST",
                                         help="System output (kwslist XML).")],
    tolerance: Annotated[float, typer.Option("-S", "--tolerance", metavar="SECONDS",
                                             help="A detection's mid-point at most this far from an occurrence "
                                                  "(KWSEval -S).")] = 0.5,
    word_gap: Annotated[float, typer.Option("-F", "--word-gap", metavar="SECONDS",
                                            help="Largest gap between the words of a multi-word occurrence "
                                                 "(KWSEval -F).")] = 0.5,
    trials_per_second: Annotated[float, typer.Option("--trials-per-second", metavar="N",
                                                     help="KWSEval -n: trials = duration / N, rounded (KWSEval "
                                                          "divides).")] = 1.0,
    cost: Annotated[float | None, typer.Option("--cost", metavar="C", help="Cost of a false alarm (KWSEval -k; "
                                                                            "default 0.1).")] = None,
    value: Annotated[float, typer.Option("--value", metavar="V", help="Value of a hit (KWSEval -K).")] = 1.0,
    p_target: Annotated[float, typer.Option("--p-target", metavar="P", help="Prior of a term (KWSEval -P).")] = 0.0001,
    beta: Annotated[float | None, typer.Option("--beta", metavar="B", help="β directly, instead of "
                                                                           "(C/V)(1/P - 1).")] = None,
    include_no_targets: Annotated[bool, typer.Option("--inc", help="Count terms without an occurrence (their "
                                                                   "false alarms only; KWSEval -inc).")] = False,
    optimum: Annotated[bool, typer.Option("--optimum", help="Also OTWV and STWV (KWSEval --zGlobalMeasures "
                                                            "Optimum --zGlobalMeasures Supremum).")] = False,
    per_term: Annotated[bool, typer.Option("--per-term/--no-per-term", help="text: also the per-term report "
                                                                             "(KWSEval -b).")] = True,
    output: Annotated[str, typer.Option("--output", "-o", metavar="text|json|csv",
                                        help="text: KWSEval's tables; json: every figure; csv: one row a term "
                                             "and the row all.")] = "text",
) -> None:
    """Score keyword search (spoken term detection) as NIST F4DE KWSEval does: ATWV, MTWV and its
    threshold, per-term P_miss/P_FA/TWV, with --optimum also OTWV and STWV."""
    from segeval.cli.tables import check_table_format, render
    from segeval.errors import ParameterError
    from segeval.escaping import json_text
    from segeval.speech import report
    from segeval.speech.alignment import align
    from segeval.speech.ecf import read_ecf, total_duration
    from segeval.speech.kwlist import read_kwlist
    from segeval.speech.kwslist import read_kwslist
    from segeval.speech.rttm import read_rttm
    from segeval.speech.twv import TwvParameters, score

    fmt = check_table_format(output)
    for name, number in (("-S", tolerance), ("-F", word_gap)):
        if not number >= 0:
            raise ParameterError(f"{name} {number}: expected a number of seconds >= 0")
    for name, number in (("--trials-per-second", trials_per_second), ("--value", value), ("--p-target", p_target),
                         ("--cost", 0.1 if cost is None else cost)):
        if not number > 0:
            raise ParameterError(f"{name} {number}: expected a number > 0")
    excerpts = read_ecf(ecf)
    terms = read_kwlist(kwlist)
    system = read_kwslist(kwslist)
    transcript = read_rttm(rttm, terms.lowercase)
    trials = align(excerpts, transcript, terms, system, kwslist, tolerance=tolerance, word_gap=word_gap)
    params = TwvParameters(total_duration(excerpts), trials_per_second, 0.1 if cost is None else cost, value,
                           p_target, beta, include_no_targets)
    result = score(trials, params)
    if fmt == "json":
        sys.stdout.write(json_text(report.as_json(result), indent=2) + "\n")
    elif fmt == "csv":
        sys.stdout.write(render(report.CSV_COLUMNS, report.csv_rows(result), "csv"))
    else:
        cost_text = "0.1000" if cost is None else report.perl_number(cost)
        text = report.summary_text(result, optimum=optimum, cost_text=cost_text)
        if per_term:
            text += report.block_text(result, optimum=optimum, cost_text=cost_text)
        sys.stdout.write(text)
