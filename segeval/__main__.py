"""``python -m segeval``."""

from segeval.cli import entry

entry()
