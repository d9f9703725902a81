"""Command line.  :mod:`.app` holds the typer app, :mod:`.run` the exit codes and entry points; :mod:`.options` every
shared option; :mod:`.inputs` the one read-and-validate path; :mod:`.commands` the commands, one module
per group, each imported when one of its commands runs (to add a command: a function in a group module,
and its line in ``commands.COMMANDS``; ``commands.load()`` is the app with every command)."""

from segeval.cli.run import entry, main

__all__ = ["entry", "main"]
