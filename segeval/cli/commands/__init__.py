"""The commands, one module per purpose, registered on :data:`segeval.cli.app.app` when their module is imported
(to add a command: a function in a group module, and its line in :data:`COMMANDS`)."""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.utils import get_params_from_function

from segeval.cli.app import app
from segeval.core.domains import OPTIONS

#: every command (and the group ``plot``) -> the module of this package that declares it, in listing order
COMMANDS: dict[str, str] = {
    "eval": "evaluate",
    "me13sh": "evaluate",
    "anchoring": "evaluate",
    "sample-eval": "evaluate",
    "check": "submission",
    "fix": "submission",
    "compare": "compare",
    "correlate": "compare",
    "report": "compare",
    "pool": "pools",
    "pool-bias": "pools",
    "incompleteness": "pools",
    "complete-qrels": "pools",
    "mr": "moments",
    "detect": "detection",
    "proposals": "detection",
    "spot": "spotting",
    "sed": "sed",
    "kws": "speech",
    "qbe": "speech",
    "show": "inspect",
    "measures": "inspect",
    "plot": "inspect",
}


def load(name: str | None = None) -> typer.Typer:
    """:data:`~segeval.cli.app.app` with the module of command ``name`` imported, or every module (``name`` None
    or not a command); its commands in the table's order, their numeric options in
    :data:`~segeval.core.domains.OPTIONS`."""
    modules = [COMMANDS[name]] if name in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(f"{__name__}.{module}")
    rank = {name: i for i, name in enumerate(COMMANDS)}
    app.registered_commands.sort(key=lambda c: rank.get(c.name or "", len(rank)))
    for command in app.registered_commands:  # each one's numeric options (segeval.cli.options.numeric)
        if command.name not in OPTIONS and command.callback is not None:
            params = get_params_from_function(command.callback).items()
            checks: dict[str, Any] = {name: getattr(p.default, "callback", None) for name, p in params}
            OPTIONS[command.name or ""] = {n: c.declared for n, c in checks.items() if hasattr(c, "declared")}
    return app
