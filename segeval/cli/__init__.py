"""Command line: the typer app (:mod:`.app`), entry points (:mod:`.run`), shared options, inputs and commands."""

from segeval.cli.run import entry, main

__all__ = ["entry", "main"]
