"""Spoken content: ``kws``, keyword search scored as NIST F4DE KWSEval scores it (ATWV, MTWV, OTWV, STWV)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from segeval.cli.app import app
from segeval.cli.options import argument

if TYPE_CHECKING:
    from segeval.protocols.speech.twv import TwvResult


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
    p_target: Annotated[float, typer.Option("--p-target", metavar="P", help="Prior of a term (KWSEval -p).")] = 0.0001,
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
    """Keyword search (ATWV, MTWV) as NIST F4DE KWSEval.

    ATWV, MTWV and its threshold, per-term P_miss/P_FA/TWV in KWSEval's tables; with --optimum also OTWV
    and STWV (docs/speech.md)."""
    from segeval.core.errors import render_note
    from segeval.protocols.speech.alignment import align
    from segeval.protocols.speech.ecf import SPLIT_CTS, read_ecf, total_duration
    from segeval.protocols.speech.kwlist import read_kwlist
    from segeval.protocols.speech.kwslist import read_kwslist
    from segeval.protocols.speech.rttm import read_rttm
    from segeval.protocols.speech.twv import TwvParameters, score
    from segeval.reports.tables import check_table_format

    fmt = check_table_format(output)
    _check_kws_numbers(tolerance, word_gap, trials_per_second, value, p_target, cost)
    excerpts = read_ecf(ecf)
    if halved := sum(e.source_type == SPLIT_CTS for e in excerpts):
        print(render_note(f"segeval: note: {ecf}: {halved} of {len(excerpts)} excerpts have source_type="
                          f"\"{SPLIT_CTS}\"; their duration counts half in the trials, as KWSEval counts it"),
              file=sys.stderr)
    terms = read_kwlist(kwlist)
    system = read_kwslist(kwslist)
    transcript = read_rttm(rttm, terms.lowercase)
    trials = align(excerpts, transcript, terms, system, kwslist, tolerance=tolerance, word_gap=word_gap)
    params = TwvParameters(total_duration(excerpts), trials_per_second, 0.1 if cost is None else cost, value,
                           p_target, beta, include_no_targets)
    sys.stdout.write(_kws_output(score(trials, params), fmt, cost, optimum=optimum, per_term=per_term))


def _check_kws_numbers(tolerance: float, word_gap: float, trials_per_second: float, value: float, p_target: float,
                       cost: float | None) -> None:
    """A ParameterError unless the windows are >= 0 and the rates, value, prior and cost > 0 (before any work)."""
    from segeval.core.errors import ParameterError

    for name, number in (("-S", tolerance), ("-F", word_gap)):
        if not number >= 0:
            raise ParameterError(f"{name} {number}: expected a number of seconds >= 0")
    for name, number in (("--trials-per-second", trials_per_second), ("--value", value), ("--p-target", p_target),
                         ("--cost", 0.1 if cost is None else cost)):
        if not number > 0:
            raise ParameterError(f"{name} {number}: expected a number > 0")


def _kws_output(result: TwvResult, fmt: str, cost: float | None, *, optimum: bool, per_term: bool) -> str:
    """``kws``'s output: every figure (json), a row a term (csv), or KWSEval's tables (text)."""
    from segeval.protocols.speech import report
    from segeval.reports.escaping import json_text
    from segeval.reports.tables import render

    if fmt == "json":
        return json_text(report.as_json(result), indent=2) + "\n"
    if fmt == "csv":
        return render(report.CSV_COLUMNS, report.csv_rows(result), "csv")
    cost_text = "0.1000" if cost is None else report.perl_number(cost)
    text = report.summary_text(result, optimum=optimum, cost_text=cost_text)
    if per_term:
        text += report.block_text(result, optimum=optimum, cost_text=cost_text)
    return text


@app.command("qbe")
def query_by_example(
    key: Annotated[str, argument("KEY", "Every trial: lines QUERY UTTERANCE 1|0.")],
    system: Annotated[str, argument("STDLIST", "The system's scores (LLRs) in STD list form (stdlist XML).")],
    p_target: Annotated[float, typer.Option("--p-target", metavar="P", help="Prior of a target trial.")] = 0.0008,
    cost_miss: Annotated[float, typer.Option("--cost-miss", metavar="C", help="Cost of a miss.")] = 100.0,
    cost_fa: Annotated[float, typer.Option("--cost-fa", metavar="C", help="Cost of a false alarm.")] = 1.0,
    prior: Annotated[float | None, typer.Option("--prior", metavar="P", help="Prior of Cnxe (default: the "
                                                "effective prior of --p-target, --cost-miss, --cost-fa).")] = None,
    default_score: Annotated[float | None, typer.Option("--default-score", metavar="S", help="Score of an "
                                                        "unreported trial (default: the lowest reported "
                                                        "score).")] = None,
    decisions: Annotated[str, typer.Option("--decisions", metavar="given|bayes", help="Actual TWV at the "
                                           "system's YES decisions, or at score >= ln β.")] = "given",
    output: Annotated[str, typer.Option("--output", "-o", metavar="text|json|csv",
                                        help="The figures as a table.")] = "text",
) -> None:
    """Query by example (Cnxe, TWV) as MediaEval QUESST.

    Actual and minimum Cnxe, actual and maximum TWV: the registry's measures (segeval eval -m quesst gives
    the same, with -q per query); the task's scorer is closed: the conventions are in docs/speech.md."""
    from segeval.core.errors import ParameterError
    from segeval.core.pipeline import evaluate
    from segeval.measures.definitions import QUESST_FIGURES
    from segeval.measures.quesst import QbeParameters
    from segeval.measures.trials import Trials, counts
    from segeval.reports.tables import check_table_format, write

    fmt = check_table_format(output)
    if decisions not in ("given", "bayes"):
        raise ParameterError(f"--decisions {decisions}: expected given or bayes")
    if not 0 < p_target < 1 or (prior is not None and not 0 < prior < 1):
        raise ParameterError("--p-target and --prior: expected a probability strictly between 0 and 1")
    if not (cost_miss > 0 and cost_fa > 0):
        raise ParameterError("--cost-miss and --cost-fa: expected numbers > 0")
    params = QbeParameters(p_target, cost_miss, cost_fa, prior, default_score, decisions)
    names = {f.name: f.name + (f"_{text}" if (text := params.text(f.keys)) else "")  # type: ignore[attr-defined]
             for f in QUESST_FIGURES}
    # every query of the key is scored, also one the run reports nothing for (its trials take the default)
    ev = evaluate(key, system, list(names.values()), missing_queries="zero")
    n_trials, n_targets, n_reported = counts(Trials.pool([v.trials for v in ev.per_query[names["actCnxe"]]]))
    columns = [("measure", ""), ("value", ".4f")]
    rows = [*((figure, float(ev.summary[name])) for figure, name in names.items()),
            ("trials", float(n_trials)), ("targets", float(n_targets)),
            ("reported", float(n_reported)), ("prior", params.effective_prior), ("beta", params.beta)]
    write(columns, rows, fmt)
