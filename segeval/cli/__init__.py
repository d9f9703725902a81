"""Command line.  :mod:`.app` holds the typer app, :mod:`.run` the exit codes and entry points; :mod:`.options` every
shared option; :mod:`.inputs` the one read-and-validate path; :mod:`.commands` the commands, one module
per group (to add a command: a function in a group module, and the module listed in
``commands/__init__.py``)."""

from segeval.cli import commands as commands  # registers every command on app
from segeval.cli.app import app
from segeval.cli.run import entry, main

__all__ = ["app", "entry", "main"]
