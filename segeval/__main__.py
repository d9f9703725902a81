"""``python -m segeval``: the command line, as the ``segeval`` script runs it."""

from segeval.cli import entry

entry()
