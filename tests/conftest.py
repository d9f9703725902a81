"""Shared test helpers: paths, the CLI runner, the optional ../shared reference data, and the hooks
that turn a missing reference into a failure under ``SEGEVAL_REQUIRE_REFERENCE=1`` (tests/support/reference.py)."""

from __future__ import annotations

import io
import os
from collections.abc import Generator, Iterable
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark.structures import ParameterSet
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from segeval.cli import main
from tests.support import reference

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED = reference.SHARED
#: the generators and slow variants run in full only with SEGEVAL_FULL=1 (CI's full step); the README's
#: suite runs a slice so that it stays well under two minutes
FULL = os.environ.get("SEGEVAL_FULL") == "1"
#: a test that runs only in the full step (a slower variant of what the suite checks anyway)
full_only = pytest.mark.skipif(not FULL, reason="a slower variant: SEGEVAL_FULL=1 runs it (CI's full step)")
#: no hypothesis test depends on machine load: no per-example deadline, no too-slow health check
hypothesis_settings.register_profile("segeval", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("segeval")


def sliced(params: Iterable[Any], every: int, *, many: bool = False) -> list[Any]:
    """Parameters of which the README's suite runs one in ``every`` (the first, then each ``every``-th) and
    the full step all: the others are marked :data:`full_only`.  ``many``: each is a tuple of arguments."""
    out = []
    for i, p in enumerate(params):
        if i % every == 0:
            out.append(p)
        elif isinstance(p, ParameterSet):
            out.append(pytest.param(*p.values, marks=[*p.marks, full_only], id=p.id))
        else:
            out.append(pytest.param(*(p if many else (p,)), marks=full_only))
    return out


def examples(full: int, share: int = 4) -> int:
    """A hypothesis test's ``max_examples``: ``full`` in the full step, one in ``share`` of it (at least 10) in
    the README's suite."""
    return full if FULL else max(10, full // share)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Outside the full step the :data:`full_only` tests are deselected, not skipped one by one: the same
    tests run, without the per-test cost of a thousand skips."""
    if FULL:
        return
    slow = [item for item in items if full_only.mark in item.iter_markers("skipif")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if full_only.mark not in item.iter_markers("skipif")]


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


@pytest.fixture
def one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the README's suite, a command on several runs given no ``-j`` takes one process (as ``-j 1``), not a
    pool per command: for a module whose tests are not about the processes route (test_many_runs.py, the
    routes' ``-j 2`` and each explicit ``-j 2`` check it there; the full step runs these modules with pools)."""
    if not FULL:
        monkeypatch.setattr(os, "cpu_count", lambda: 1)


def shared(*parts: str) -> Path:
    """A path under ../shared/data; the test is skipped when it is absent (a failure in CI)."""
    return reference.require_shared(*parts)


# ------------------------------------------------- a missing reference fails under SEGEVAL_REQUIRE_REFERENCE=1

def pytest_configure(config: pytest.Config) -> None:
    reference.required()  # a value other than 0 or 1 stops the session


def _enforced(report: pytest.TestReport | pytest.CollectReport,
              excinfo: pytest.ExceptionInfo[BaseException] | None) -> None:
    """A skip for a missing reference becomes a failure naming it, when references are required."""
    if report.skipped and excinfo is not None and isinstance(excinfo.value, reference.ReferenceMissing) \
            and reference.required():
        report.outcome = "failed"
        report.longrepr = reference.failure(excinfo.value.msg or "")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                                          pytest.TestReport]:
    report = yield
    _enforced(report, call.excinfo)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, pytest.CollectReport,
                                                                         pytest.CollectReport]:
    report = yield  # a module-level skip (require_module at import) is a collection report
    call: pytest.CallInfo[object] | None = getattr(report, "call", None)
    _enforced(report, call.excinfo if call is not None else None)
    return report
