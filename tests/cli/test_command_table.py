"""The one table of commands (``segeval.cli.commands.COMMANDS``): it names exactly the commands the modules
register, each with its module, in the order ``--help`` lists them; running a command imports its module
only, and the listing is the same whichever module came first."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import segeval.cli.commands as package
from segeval.cli.commands import COMMANDS, load
from tests.conftest import run_cli


def _declared() -> dict[str, str]:
    """Every command and group the modules register -> the module that declares it (its commands' module)."""
    app = load()
    found = {c.name or "": (c.callback.__module__ if c.callback else "") for c in app.registered_commands}
    for group in app.registered_groups:
        modules = {c.callback.__module__ for c in group.typer_instance.registered_commands if c.callback}
        assert len(modules) == 1, f"the commands of group {group.name} come from {sorted(modules)}"
        found[group.name or ""] = modules.pop()
    return {name: module.rpartition(".")[2] for name, module in found.items()}


def test_the_table_names_every_registered_command_with_its_module() -> None:
    assert _declared() == COMMANDS
    modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert modules == set(COMMANDS.values())  # a new command module is in the table


def test_the_listing_follows_the_table() -> None:
    code, out, _ = run_cli("--help")
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.startswith("  ")]
    assert code == 0 and listed == list(COMMANDS)


_LAZY = """
import contextlib, io, sys
from segeval.cli.run import main

def loaded():
    return sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('segeval.cli.commands.'))

assert loaded() == [], loaded()
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main([NAME, '--help']) == 0
assert loaded() == [MODULE], loaded()
assert NAME in out.getvalue()
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(['--help']) == 0
assert loaded() == sorted(set(TABLE.values())), loaded()
listed = [x.split()[0] for x in out.getvalue().split('Commands:')[1].splitlines() if x.startswith('  ')]
assert listed == list(TABLE), listed  # the module that came first does not come first in the listing
"""


def test_a_command_imports_its_module_only() -> None:
    name = "show"  # the last module: the listing still starts with eval
    code = f"NAME, MODULE, TABLE = {name!r}, {COMMANDS[name]!r}, {COMMANDS!r}\n{_LAZY}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
