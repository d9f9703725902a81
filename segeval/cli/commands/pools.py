"""Pools and judgements: ``pool`` (contributions), ``pool-bias`` (leave one group out),
``incompleteness`` (reduced qrels) and ``complete-qrels`` (classifier-labelled qrels)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from segeval.cli import inputs
from segeval.cli.app import app
from segeval.cli.options import (
    TIME_FORMAT,
    Adapter,
    Depth,
    Groups,
    Level,
    OptionalGroups,
    Qrels,
    Quiet,
    Runs,
    Seed,
    TableOutput,
    TimeFormat,
    measures,
    numeric,
    output_option,
)
from segeval.core.domains import CUTOFF, OPEN_UNIT, PROPORTIONS
from segeval.core.errors import print_notes
from segeval.core.settings import DEFAULTS
from segeval.core.words import plural, verb
from segeval.reports import tables

if TYPE_CHECKING:
    from segeval.analyses.complete import Completion


@app.command("pool")
def pool_command(
    qrels: Qrels,
    runs: Runs,
    depth: Depth = 100,
    groups: OptionalGroups = None,
    adapter: Adapter = None,
    time_format: TimeFormat = TIME_FORMAT,
    output: TableOutput = "text",
) -> None:
    """Count judged items in each run's and group's top D.

    Judged items are documents, or qrels segments (matched by --adapter, default overlap-once); with
    --groups, also each group's unique contribution. Two tables: runs, then groups.
    """
    from segeval.analyses.pool import contributions, groups_for

    fmt = tables.check_table_format(output)
    q = inputs.qrels(qrels, time_format)
    by_name = inputs.runs(runs, time_format)
    pool = contributions(q, by_name, depth, groups_for(groups, by_name)[0] if groups else None, adapter)
    tables.write_many(pool.tables(), fmt)


@app.command("pool-bias")
def pool_bias_command(
    qrels: Qrels,
    runs: Runs,
    groups: Groups,
    depth: Depth = 100,
    measure: Annotated[list[str] | None, measures("map, P_20, bpref; 'paper': the paper's eight")] = None,
    leave_out_runs: Annotated[
        str | None,
        typer.Option(
            "--leave-out-runs",
            metavar="RUN,RUN|type:T",
            help="One experiment leaving these runs out (or every run of a type), instead of one per group.",
        ),
    ] = None,
    adapter: Adapter = None,
    quiet: Quiet = False,
    time_format: TimeFormat = TIME_FORMAT,
    output: TableOutput = "text",
) -> None:
    """Leave one group out: how each measure's ranking moves.

    For each group, its unique judgements are removed. rms_error: the left-out runs' scores;
    rms_error_all: every run's score in every experiment.
    """
    from segeval.analyses.pool import BIAS_COLUMNS, DEFAULT_MEASURES, groups_for, leave_one_out, runs_left_out

    fmt = tables.check_table_format(output)
    q = inputs.qrels(qrels, time_format)
    by_name = inputs.runs(runs, time_format)
    group_of, type_of = groups_for(groups, by_name)
    experiments = None if not leave_out_runs else {"left out": runs_left_out(leave_out_runs, by_name, type_of)}
    rows = leave_one_out(
        q, by_name, depth, group_of, measure or DEFAULT_MEASURES, experiments, adapter, quiet=quiet, on_note=print_notes
    )
    tables.write(BIAS_COLUMNS, [row.cells() for row in rows], fmt)


@app.command("incompleteness")
def incompleteness_command(
    qrels: Qrels,
    runs: Runs,
    fractions: Annotated[
        str, numeric("--fractions", PROPORTIONS, "Fractions of each query's judgements kept", metavar="F,F,...")
    ] = "1,0.8,0.6,0.4,0.2,0.1,0.05",
    repeats: Annotated[int, typer.Option("--repeats", "-r", metavar="R", help="Random reductions per fraction.")] = 10,
    seed: Seed = 0,
    measure: Annotated[list[str] | None, measures("map, P_20, bpref")] = None,
    adapter: Adapter = None,
    plot: Annotated[str | None, typer.Option("--plot", metavar="FILE", help="Also draw Figure 1 (.png/.svg).")] = None,
    quiet: Quiet = False,
    time_format: TimeFormat = TIME_FORMAT,
    output: TableOutput = "text",
) -> None:
    """Score runs on random reductions of the qrels.

    Per fraction: the mean score and Kendall's tau with the full qrels.
    """
    from segeval.analyses.pool import DEFAULT_MEASURES, INCOMPLETENESS_COLUMNS, incompleteness

    fmt = tables.check_table_format(output)
    values = [float(f) for f in PROPORTIONS.values("--fractions", fractions)]
    if plot:
        from segeval.figures import check_output

        check_output(plot, [qrels, *runs])
    q = inputs.qrels(qrels, time_format)
    by_name = inputs.runs(runs, time_format)
    table = incompleteness(
        q, by_name, measure or DEFAULT_MEASURES, values, repeats, seed, adapter, quiet=quiet, on_note=print_notes
    )
    tables.write(INCOMPLETENESS_COLUMNS, [list(row) for row in table.itertuples(index=False)], fmt)
    if plot:
        from segeval.figures.compare import incompleteness as figure

        figure(table, plot)
        print_notes(f"wrote {plot}")


@app.command("complete-qrels")
def complete_qrels_command(
    qrels: Qrels,
    runs: Runs,
    texts: Annotated[
        str,
        typer.Option(
            "--texts",
            metavar="FILE",
            help="Item texts: 'docno<TAB>text' lines for documents, or a transcript of "
            "'video start end text' lines for segments.",
        ),
    ],
    output: Annotated[str, output_option("Completed qrels file to write.", "OUT")],
    classifier: Annotated[
        str,
        typer.Option(
            "--classifier",
            metavar="kld|svm",
            help="kld: divergence from the relevant items' language model; svm: "
            "linear SVM on TF-IDF (needs scikit-learn).",
        ),
    ] = "kld",
    depth: Annotated[
        int, numeric("--depth", CUTOFF, "Classify the unjudged items in each run's top D", "-d", metavar="D")
    ] = 100,
    adapter: Adapter = None,
    smoothing: Annotated[
        float, numeric("--smoothing", OPEN_UNIT, "kld: weight of the collection model in both models", metavar="LAMBDA")
    ] = 0.2,
    kld_fit: Annotated[
        str,
        typer.Option(
            "--kld-fit",
            metavar="leave-one-out|resubstitution",
            help="kld: a relevant training item's divergence is taken from the other relevant items' model "
            "(leave-one-out) or from the model holding it (resubstitution, the paper's literal rule).",
        ),
    ] = "leave-one-out",
    terms: Annotated[
        int, numeric("--terms", CUTOFF, "svm: features are the N most frequent collection terms", metavar="N")
    ] = 1_000_000,
    level: Level = DEFAULTS.relevance_level,
    time_format: TimeFormat = TIME_FORMAT,
) -> None:
    """Label unjudged top-D items with a classifier.

    Büttcher et al. 2007: the classifier is trained on the judged items; predicted lines are marked
    'predicted:CLASSIFIER' in an extra last field, the others 'human'.
    """
    from segeval.analyses.complete import complete_qrels
    from segeval.executors.processes import expand_runs
    from segeval.readers.texts import read_texts
    from segeval.readers.validate import is_documents
    from segeval.reports.output import check_output, write_output

    sources = [qrels, *expand_runs(runs), texts]
    check_output(output, sources)
    q = inputs.qrels(qrels, time_format)
    by_name = inputs.runs(runs, time_format)
    t = read_texts(texts, segments=not is_documents(q), time_format=time_format)
    done = complete_qrels(
        q,
        by_name,
        t,
        classifier,
        depth,
        adapter=adapter,
        smoothing=smoothing,
        terms=terms,
        relevance_level=level,
        kld_fit=kld_fit,
    )
    human = inputs.human_lines(qrels, q["line"].tolist())
    predicted = done.lines(time_format)
    write_output(output, "".join(line + "\n" for line in human + predicted), inputs=sources)
    how = f" (lambda {smoothing:g}, {kld_fit})" if classifier == "kld" else f" ({terms} terms)"
    _summarize_completion(done, f"{classifier}{how}", depth)
    print(f"wrote\t{output}: {len(human)} human and {plural(len(predicted), 'predicted line')}")
    if done.no_text:
        print_notes(
            f"note: {plural(done.no_text, 'item')} {verb(done.no_text, 'has', 'have')} no text "
            f"in {texts} (no tokens, or no transcript line under a segment), e.g. "
            f"{done.no_text_example}; they are neither training items nor classified, and stay "
            f"unjudged"
        )


def _summarize_completion(done: Completion, classifier: str, depth: int) -> None:
    """What the classifier was trained on and what it predicted, one ``name<TAB>value`` line each."""
    s = done.stats
    relevant = int(done.predicted["rel"].sum())
    print(f"classifier\t{classifier}")
    print(f"queries\t{len(s)}")
    print(
        f"training items\t{int(s['judged'].sum()) if len(s) else 0} judged, "
        f"{int(s['relevant'].sum()) if len(s) else 0} relevant"
    )
    print(
        f"classified\t{plural(len(done.predicted), 'unjudged item')} in the top {depth}: {relevant} predicted relevant"
    )
    if len(s):
        print(
            f"training fit\tprecision {s['train_precision'].mean():.4f}, recall {s['train_recall'].mean():.4f} "
            f"(mean over queries with a value)"
        )
