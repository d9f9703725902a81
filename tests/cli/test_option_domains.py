"""Every command's numeric options, enumerated from their declarations (:data:`segeval.core.domains.OPTIONS`),
not from a hand list: a value just outside the domain, nan, inf and a huge one are refused before any work
(exit 2, the flag, the value and the domain named, no traceback); one inside is not; the help shows the domain."""

from __future__ import annotations

import math
from typing import Any

import pytest
import typer

from segeval.cli.commands import load
from segeval.core.domains import HUGE, MAX_WHOLE, OPTIONS, Domain
from tests.conftest import ROOT as ROOT_DIR
from tests.conftest import run_cli

ROOT: Any = typer.main.get_command(load())  # every command module imported: OPTIONS is complete
CASES = [(command, flag, domain) for command, declared in OPTIONS.items()
         for flag, domain in declared.values() if domain.numbers]


def _required(command: str) -> list[str]:
    """Placeholders for the command's required arguments and options (never read: the domains come first)."""
    args: list[str] = []
    for p in ROOT.commands[command].params:
        if p.required:
            args += [p.opts[0], "x"] if p.param_type_name == "option" else ["x"] * (2 if p.nargs == -1 else 1)
    return args


def _text(x: float, whole: bool) -> str:
    return str(int(x)) if whole else repr(x)


def _outside(d: Domain) -> list[str]:
    """Values just outside ``d``, then nan, inf and a huge one."""
    out = []
    if d.low > -HUGE:
        out.append(_text(d.low if d.open_low else d.low - 1 if d.whole else math.nextafter(d.low, -math.inf), d.whole))
    if d.high < (MAX_WHOLE if d.whole else HUGE):
        out.append(_text(d.high if d.open_high else d.high + 1 if d.whole else math.nextafter(d.high, math.inf),
                         d.whole))
    # a whole number above MAX_WHOLE, unless a count's limit (segeval.core.limits) bounds it, as it does --top-k's
    return [*out, "nan", "inf", "-inf", "1e300", *([str(10**30)] if d.whole and d.high <= MAX_WHOLE else [])]


def _inside(d: Domain) -> str:
    low = d.low if not d.open_low else d.low + 1 if d.whole else (d.low + min(d.high, d.low + 1)) / 2
    return _text(low, d.whole)


def test_every_command_with_numeric_options_declares_them() -> None:
    assert {"kws", "qbe", "sed", "mr", "detect", "proposals", "me13sh", "sample-eval", "incompleteness",
            "complete-qrels", "check", "fix", "compare", "report", "pool", "pool-bias", "eval"} <= set(OPTIONS)


@pytest.mark.parametrize(("command", "flag", "domain"), CASES, ids=[f"{c} {f}" for c, f, _ in CASES])
def test_outside_the_domain_is_refused(command: str, flag: str, domain: Domain) -> None:
    for value in _outside(domain):
        code, out, err = run_cli(command, *_required(command), flag, value)
        assert code == 2 and out == "", (value, err)
        shown = value if value in err else repr(float(value))  # a float option's value as Python writes it
        assert f"'{flag}' parameter must be {domain}" in err and shown in err, (value, err)
        assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize(("command", "flag", "domain"), CASES, ids=[f"{c} {f}" for c, f, _ in CASES])
def test_inside_the_domain_is_no_domain_error(command: str, flag: str, domain: Domain) -> None:
    code, _, err = run_cli(command, *_required(command), flag, _inside(domain))
    assert f"'{flag}' parameter" not in err and "Invalid value" not in err, err
    assert code in (1, 2) and "internal error" not in err  # the placeholders' error, after the domains


@pytest.mark.parametrize(("command", "flag", "domain"), CASES, ids=[f"{c} {f}" for c, f, _ in CASES])
def test_help_shows_the_domain(command: str, flag: str, domain: Domain) -> None:
    option = next(p for p in ROOT.commands[command].params if flag in p.opts)
    assert option.help.endswith(f": {domain}."), option.help


def test_docs_show_the_declared_domains() -> None:
    text = (ROOT_DIR / "docs" / "cli.md").read_text(encoding="utf-8")
    table = text[text.index("## Option domains"):text.index("## Limits of counts")]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    assert sorted(rows) == sorted(f"| {c} | `{flag}` | {d} |" for c, declared in OPTIONS.items()
                                  for flag, d in declared.values())  # OPTIONS' order is the modules' import order
