"""Spoken content: ``kws``, keyword search scored as NIST F4DE KWSEval scores it (ATWV, MTWV, OTWV, STWV)."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from segeval.cli.app import app
from segeval.cli.options import argument, numeric, output_option
from segeval.core.domains import NONNEGATIVE, POSITIVE, PROBABILITY
from segeval.measures.quesst import KEYS, QbeParameters

if TYPE_CHECKING:
    from segeval.core.domains import Domain
    from segeval.protocols.speech.twv import TwvResult


def _key(name: str) -> Domain:
    """The domain of a QUESST figures' parameter (segeval.measures.quesst), numbers for numbers."""
    domain = KEYS[name].domain
    return replace(domain, words=()) if domain.numbers else domain


@app.command("kws")
def keyword_search(
    ecf: Annotated[
        str, typer.Option("--ecf", "-e", metavar="ECF", help="Experiment control file (the evaluated excerpts).")
    ],
    rttm: Annotated[str, typer.Option("--rttm", "-r", metavar="RTTM", help="Reference transcript (LEXEME records).")],
    kwlist: Annotated[str, typer.Option("--terms", "-t", metavar="KWLIST", help="Term list (kwlist XML).")],
    kwslist: Annotated[str, typer.Option("--system", "-s", metavar="KWSLIST", help="System output (kwslist XML).")],
    tolerance: Annotated[
        float,
        numeric(
            "-S",
            NONNEGATIVE,
            "A detection's mid-point at most this far from an occurrence (KWSEval -S)",
            "--tolerance",
            metavar="SECONDS",
        ),
    ] = 0.5,
    word_gap: Annotated[
        float,
        numeric(
            "-F",
            NONNEGATIVE,
            "Largest gap between the words of a multi-word occurrence (KWSEval -F)",
            "--word-gap",
            metavar="SECONDS",
        ),
    ] = 0.5,
    trials_per_second: Annotated[
        float,
        numeric(
            "--trials-per-second", POSITIVE, "KWSEval -n: trials = duration / N, rounded (KWSEval divides)", metavar="N"
        ),
    ] = 1.0,
    cost: Annotated[
        float | None, numeric("--cost", POSITIVE, "Cost of a false alarm (KWSEval -k; default 0.1)", metavar="C")
    ] = None,
    value: Annotated[float, numeric("--value", POSITIVE, "Value of a hit (KWSEval -K)", metavar="V")] = 1.0,
    p_target: Annotated[
        float, numeric("--p-target", PROBABILITY, "Prior of a term (KWSEval -p)", metavar="P")
    ] = 0.0001,
    beta: Annotated[float | None, numeric("--beta", POSITIVE, "β directly, not (C/V)(1/P - 1)", metavar="B")] = None,
    include_no_targets: Annotated[
        bool, typer.Option("--inc", help="Count terms without an occurrence (their false alarms only; KWSEval -inc).")
    ] = False,
    optimum: Annotated[
        bool,
        typer.Option(
            "--optimum", help="Also OTWV and STWV (KWSEval --zGlobalMeasures Optimum --zGlobalMeasures Supremum)."
        ),
    ] = False,
    per_term: Annotated[
        bool, typer.Option("--per-term/--no-per-term", help="text: also the per-term report (KWSEval -b).")
    ] = True,
    figure: Annotated[
        str | None,
        typer.Option(
            "--plot",
            metavar="FILE.png|svg",
            help="Also draw the term-weighted DET curve (needs pip install 'segeval[plot]').",
        ),
    ] = None,
    output: Annotated[
        str,
        output_option(
            "text: KWSEval's tables; json: every figure and the DET curve's points; csv: one row a term and the "
            "row all."
        ),
    ] = "text",
) -> None:
    """Keyword search (ATWV, MTWV) as NIST F4DE KWSEval.

    ATWV, MTWV and its threshold, per-term P_miss/P_FA/TWV in KWSEval's tables; with --optimum also OTWV
    and STWV; the DET curve in json and as a figure (--plot) (docs/speech.md)."""
    from segeval.core.errors import print_notes
    from segeval.protocols.speech.alignment import align
    from segeval.protocols.speech.ecf import SPLIT_CTS, read_ecf, total_duration
    from segeval.protocols.speech.kwlist import read_kwlist
    from segeval.protocols.speech.kwslist import read_kwslist
    from segeval.protocols.speech.rttm import read_rttm
    from segeval.protocols.speech.twv import TwvParameters, score
    from segeval.reports.tables import check_table_format

    fmt = check_table_format(output)
    if figure is not None:
        from segeval.figures import check_output

        check_output(figure, [ecf, rttm, kwlist, kwslist])
    excerpts = read_ecf(ecf)
    if halved := sum(e.source_type == SPLIT_CTS for e in excerpts):
        print_notes(
            f"segeval: note: {ecf}: {halved} of {len(excerpts)} excerpts have source_type="
            f'"{SPLIT_CTS}"; their duration counts half in the trials, as KWSEval counts it'
        )
    terms = read_kwlist(kwlist)
    system = read_kwslist(kwslist)
    transcript = read_rttm(rttm, terms.lowercase)
    trials = align(excerpts, transcript, terms, system, kwslist, tolerance=tolerance, word_gap=word_gap)
    params = TwvParameters(
        total_duration(excerpts),
        trials_per_second,
        0.1 if cost is None else cost,
        value,
        p_target,
        beta,
        include_no_targets,
    )
    result = score(trials, params)
    if figure is not None:
        from segeval.protocols.speech.report import plot_det

        plot_det(result, figure)
    sys.stdout.write(_kws_output(result, fmt, cost, optimum=optimum, per_term=per_term))


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
    p_target: Annotated[
        float, numeric("--p-target", _key("p_target"), "Prior of a target trial", metavar="P")
    ] = 0.0008,
    cost_miss: Annotated[float, numeric("--cost-miss", _key("cost_miss"), "Cost of a miss", metavar="C")] = 100.0,
    cost_fa: Annotated[float, numeric("--cost-fa", _key("cost_fa"), "Cost of a false alarm", metavar="C")] = 1.0,
    prior: Annotated[
        float | None,
        numeric(
            "--prior",
            _key("prior"),
            "Prior of Cnxe (default: the effective prior of --p-target, --cost-miss, --cost-fa)",
            metavar="P",
        ),
    ] = None,
    default_score: Annotated[
        float | None,
        numeric(
            "--default-score",
            _key("default_score"),
            "Score of an unreported trial (default: the lowest reported score)",
            metavar="S",
        ),
    ] = None,
    decisions: Annotated[
        str,
        numeric(
            "--decisions",
            _key("decisions"),
            "Actual TWV at the system's YES decisions, or at score >= ln β",
            metavar="given|bayes",
        ),
    ] = "given",
    output: Annotated[str, output_option("The figures as a table.")] = "text",
) -> None:
    """Query by example (Cnxe, TWV) as MediaEval QUESST.

    Actual and minimum Cnxe, actual and maximum TWV: the registry's measures (segeval eval -m quesst gives
    the same, with -q per query); the task's scorer is closed: the conventions are in docs/speech.md."""
    from segeval.core.pipeline import evaluate
    from segeval.measures.definitions import QUESST_FIGURES
    from segeval.measures.trials import Trials, counts
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import check_key_grades
    from segeval.reports.tables import check_table_format, write

    fmt = check_table_format(output)
    params = QbeParameters(p_target, cost_miss, cost_fa, prior, default_score, decisions)
    names = {
        f.name: f.name + (f"_{text}" if (text := params.text(f.keys)) else "")  # type: ignore[attr-defined]
        for f in QUESST_FIGURES
    }
    trials = read_qrels(key, "quesst")
    check_key_grades(trials)
    # every query of the key is scored, also one the run reports nothing for (its trials take the default)
    ev = evaluate(trials, system, list(names.values()), missing_queries="zero")
    n_trials, n_targets, n_reported = counts(Trials.pool([v.trials for v in ev.per_query[names["actCnxe"]]]))
    columns = [("measure", ""), ("value", ".4f")]
    rows = [
        *((figure, float(ev.summary[name])) for figure, name in names.items()),
        ("trials", float(n_trials)),
        ("targets", float(n_targets)),
        ("reported", float(n_reported)),
        ("prior", params.effective_prior),
        ("beta", params.beta),
    ]
    write(columns, rows, fmt)
