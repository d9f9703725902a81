"""The commands, one module per purpose; importing this package registers them all on
:data:`segeval.cli.app.app`, in the order ``segeval --help`` lists them (a new group module is
added to this list)."""
# isort: skip_file

from segeval.cli.commands import evaluate, submission, compare, pools, moments, detection, spotting, speech, inspect

__all__ = ["compare", "detection", "evaluate", "inspect", "moments", "pools", "speech", "spotting", "submission"]
