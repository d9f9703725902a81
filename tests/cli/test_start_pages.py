"""The start-here pages (docs/start/*.md) show real runs: every ``$ segeval ...`` line of a ``console`` block is
run on the files in examples/, and the lines shown under it must appear in its output, in order (a ``...`` line
stands for lines left out); ``# exit N`` after a command is its expected exit code (default 0). Their
``python`` blocks run too."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

PAGES = sorted((ROOT / "docs" / "start").glob("*.md"))


def _runs(page: str) -> list[tuple[str, int, list[str]]]:
    """(command, exit code, shown lines) for each ``$ segeval`` line of the page's console blocks."""
    runs: list[tuple[str, int, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", page, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                command, _, code = line[2:].partition("# exit ")
                runs.append((command.strip(), int(code or 0), []))
            elif runs:
                runs[-1][2].append(line.rstrip())
    return runs


def _shown_in(shown: list[str], output: list[str]) -> bool:
    """Each run of shown lines between ``...`` lines is found whole in the output, after the previous one."""
    parts: list[list[str]] = [[]]
    for line in shown:
        if line == "...":
            parts.append([])
        elif line:
            parts[-1].append(line)
    start = 0
    for lines in filter(None, parts):
        found = next(
            (i for i in range(start, len(output) - len(lines) + 1) if output[i : i + len(lines)] == lines), None
        )
        if found is None:
            return False
        start = found + len(lines)
    return True


def test_there_is_a_page_per_community_and_each_shows_a_run() -> None:
    assert {p.stem for p in PAGES} >= {"mediaeval", "ir", "moments", "detection", "speech", "music"}
    for page in PAGES:
        assert _runs(page.read_text(encoding="utf-8")), f"{page.name} shows no $ segeval command"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_every_shown_command_prints_what_the_page_shows(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    for command, expected_code, shown in _runs(page.read_text(encoding="utf-8")):
        words = shlex.split(command)
        assert words[0] == "segeval", command
        code, out, err = run_cli(*words[1:])
        assert code == expected_code, (command, code, err)
        output = [line.rstrip() for line in (out + err).splitlines()]
        assert _shown_in(shown, output), f"{command}: the page shows lines it does not print\n{out}{err}"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_every_python_block_runs(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for code in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
        exec(compile(code, str(page), "exec"), {})


def test_the_readme_links_every_start_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in PAGES:
        assert f"docs/start/{page.name}" in readme, page.name
