"""The ``segeval`` typer app (and its ``plot`` group) that every command registers on; the entry
points and exit codes are in :mod:`segeval.cli.run`, the commands in :mod:`segeval.cli.commands`."""

from __future__ import annotations

from typing import Annotated

import typer

from segeval import __version__

app = typer.Typer(
    name="segeval",
    help="Evaluate segment-based multimedia retrieval runs (MediaEval, TRECVID, trec_eval-style).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
plot_app = typer.Typer(help="Figures (needs pip install 'segeval[plot]').", no_args_is_help=True)
app.add_typer(plot_app, name="plot")

#: the command line being run, for the report's provenance
ARGV: list[str] = []


def _version(value: bool) -> None:
    if value:
        typer.echo(f"segeval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """segeval: evaluation for segment-based multimedia retrieval."""
