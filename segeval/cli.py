"""Command line: ``segeval me13sh`` (more commands follow).  Exit codes: 0 ok, 2 bad input or usage."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer
from typer.exceptions import TyperException

from segeval import __version__
from segeval.errors import SegevalError

app = typer.Typer(
    name="segeval",
    help="Evaluate segment-based multimedia retrieval runs (MediaEval, TRECVID, trec_eval-style).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class RunKind(StrEnum):
    linking = "linking"
    search = "search"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"segeval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """segeval: evaluation for segment-based multimedia retrieval."""


QrelsArg = Annotated[str, typer.Argument(
    metavar="QRELS", show_default=False, help="Qrels: 'qid Q0 video start end rel' (times M.S; .gz ok).")]
RunArg = Annotated[str, typer.Argument(
    metavar="RUN", show_default=False, help="Run file in the --kind format (.gz ok).")]
KindOpt = Annotated[RunKind, typer.Option(
    "--kind", "-k", help="Run format. linking: 'qid Q0 video start end rank score run'; "
                         "search: 'qid Q0 video start end jumpin rank score [run]'.")]
BinSizeOpt = Annotated[int, typer.Option(
    "--bin-size", "-B", metavar="N", help="Bin size in seconds for the _bin measures.")]
ToleranceOpt = Annotated[int, typer.Option(
    "--tolerance", "-T", metavar="N", help="Tolerance window in seconds for the _tol measures.")]
ItemsOpt = Annotated[str | None, typer.Option(
    "--items", "-i", metavar="Q1,Q2", help="Comma-separated query ids to evaluate (default: all).")]


@app.command("me13sh")
def me13sh(
    qrels: QrelsArg,
    run: RunArg,
    kind: KindOpt = RunKind.linking,
    bin_size: BinSizeOpt = 300,
    tolerance: ToleranceOpt = 15,
    items: ItemsOpt = None,
) -> None:
    """The MediaEval Search & Hyperlinking / TRECVID LNK evaluation, as the reference sh_eval script.

    Prints the same rows, values and layout: overlap (no suffix), binned (_bin) and
    tolerance-to-irrelevance (_tol) measures, and MAiSP. Only queries in both the qrels
    and the run are evaluated; results are ordered by the rank column.
    """
    from segeval.pipeline import evaluate, me13sh_adapters
    from segeval.report.me13sh import MEASURES, render

    adapters = me13sh_adapters(bin_size, tolerance)
    chosen = None
    if items is not None:
        chosen = [x for x in items.split(",") if x]
        if not chosen:
            raise SegevalError(f"The 'items' parameter must list query ids separated by commas. Got {items!r} "
                               f"instead.")
    ev = evaluate(qrels, run, MEASURES, adapters, qrels_format="mediaeval", run_format=kind.value, queries=chosen)
    sys.stdout.write(render(ev, run, bin_size, tolerance))
    for note in ev.notes:
        print(note, file=sys.stderr)


@app.command("measures")
def measures() -> None:
    """List the measures (a Markdown table generated from the measure registry)."""
    from segeval.measures import measure_table

    typer.echo(measure_table())


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; SegevalError and usage errors exit 2 with a message, never a traceback."""
    try:
        app(args=argv, prog_name="segeval", standalone_mode=False)
    except SegevalError as exc:
        print(f"segeval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except TyperException as exc:
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            print(f"segeval: error: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    except typer.Abort:
        print("segeval: aborted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        print("segeval: error: out of memory", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: still no traceback for the user
        print(f"segeval: internal error: {type(exc).__name__}: {exc} (please report this)", file=sys.stderr)
        return 1
    return 0


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
