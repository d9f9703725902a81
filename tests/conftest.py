"""Shared test helpers: paths, the CLI runner, and the optional ../shared reference data."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from pathlib import Path

import pytest

from segeval.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED = ROOT.parent / "shared" / "data"


class Tags(HTMLParser):
    """The start tags of an HTML page with their attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run ``segeval ARGS`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def cli() -> object:
    return run_cli


def shared(*parts: str) -> Path:
    """A path under ../shared/data, skipping the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not available: {path}")
    return path
