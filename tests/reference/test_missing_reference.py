"""A missing reference skips a test locally and fails it under SEGEVAL_REQUIRE_REFERENCE=1 (CI).

The hooks of ``tests/conftest.py`` run on a tiny test suite in a fresh pytest process, once with
the variable unset and once set to 1: every kind of reference skip (in a test body, in a fixture,
at module import, of ../shared data) must be a skip, then a failure naming what is missing; a skip
for another reason stays a skip and a present reference runs in both.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support import reference

CONFTEST = "from tests.conftest import pytest_configure, pytest_make_collect_report, pytest_runtest_makereport\n"

SUITE = '''
import pytest

from tests.support.reference import require_binary, require_module, require_shared


@pytest.fixture
def tool() -> str:
    return require_binary("segeval-no-such-tool", variable="SEGEVAL_NO_SUCH_TOOL")


def test_binary_in_body() -> None:
    require_binary("segeval-no-such-tool", variable="SEGEVAL_NO_SUCH_TOOL")


def test_binary_in_fixture(tool: str) -> None:
    pass


def test_shared_data() -> None:
    require_shared("no-such-folder", "no-such-file")


def test_present() -> None:
    assert require_binary("sh") and require_module("json")


def test_platform_skip() -> None:
    pytest.skip("not about a reference")
'''

MODULE = '''
from tests.support.reference import require_module

require_module("segeval_no_such_module")


def test_never_collected() -> None:
    pass
'''

# test case -> (outcome unset, outcome with SEGEVAL_REQUIRE_REFERENCE=1, what the failure must name)
EXPECTED = {
    "test_binary_in_body": ("skipped", "failure", "no segeval-no-such-tool binary (set SEGEVAL_NO_SUCH_TOOL"),
    "test_binary_in_fixture": ("skipped", "error", "no segeval-no-such-tool binary (set SEGEVAL_NO_SUCH_TOOL"),
    "test_shared_data": ("skipped", "failure", "reference data not available: "
                                                f"{reference.SHARED / 'no-such-folder' / 'no-such-file'}"),
    "test_present": ("passed", "passed", ""),
    "test_platform_skip": ("skipped", "skipped", ""),
    "test_module_import": ("skipped", "error", "the reference library segeval_no_such_module cannot be imported"),
}


def outcomes(tmp_path: Path, value: str | None) -> dict[str, tuple[str, str]]:
    """Each test case of the tiny suite: (outcome, its report text), run in a fresh pytest process."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_cases.py").write_text(SUITE)
    (tmp_path / "test_module_import.py").write_text(MODULE)
    env = {k: v for k, v in os.environ.items() if k != reference.VARIABLE and not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the tiny suite needs no plugin (and starts faster)
    if value is not None:
        env[reference.VARIABLE] = value
    junit = tmp_path / "junit.xml"
    # a reference missing at import is a collection error, which stops a session (as CI should) unless told
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "--continue-on-collection-errors", "--rootdir", str(tmp_path), f"--junitxml={junit}",
                    str(tmp_path)],
                   cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    found: dict[str, tuple[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name") or ""
        name = "test_module_import" if "test_module_import" in (case.get("classname") or "") + name else name
        result = next(iter(case), None)
        found[name] = ("passed", "") if result is None else \
            (result.tag, f"{result.get('message', '')}\n{result.text or ''}")
    return found


@pytest.mark.parametrize("value", [None, "1"])
def test_reference_skips_fail_only_when_required(tmp_path: Path, value: str | None) -> None:
    got = outcomes(tmp_path, value)
    assert {name: outcome for name, (outcome, _) in got.items()} == \
        {name: want[1 if value else 0] for name, want in EXPECTED.items()}
    for name, (outcome, text) in got.items():
        if outcome in ("failure", "error"):
            assert f"reference missing: {EXPECTED[name][2]}" in text, (name, text)
            assert f"{reference.VARIABLE}=1 makes a missing reference a failure" in text


@pytest.mark.parametrize(("value", "required"), [("", False), ("0", False), ("1", True)])
def test_the_variable(monkeypatch: pytest.MonkeyPatch, value: str, required: bool) -> None:
    monkeypatch.setenv(reference.VARIABLE, value)
    assert reference.required() is required


@pytest.mark.parametrize("value", ["yes", "true", " 1"])
def test_the_variable_takes_0_or_1_only(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(reference.VARIABLE, value)
    with pytest.raises(pytest.UsageError, match=f"{reference.VARIABLE} is {value!r}; expected 1 "):
        reference.required()


def test_a_variable_naming_no_executable_is_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "trec_eval").write_text("not a program\n")
    for target in (tmp_path / "trec_eval", tmp_path / "absent", tmp_path):
        monkeypatch.setenv("TREC_EVAL", str(target))
        with pytest.raises(reference.ReferenceMissing, match=f"TREC_EVAL={target} is not an executable file"):
            reference.require_binary("trec_eval", variable="TREC_EVAL")


def test_a_binary_only_a_variable_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """trec_eval 9.0.8 is found only through TREC_EVAL_9: a trec_eval on PATH may be 10.0."""
    (tmp_path / "trec_eval").write_text("#!/bin/sh\n")
    (tmp_path / "trec_eval").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert reference.require_binary("trec_eval", variable="TREC_EVAL_10_UNSET") == str(tmp_path / "trec_eval")
    monkeypatch.delenv("TREC_EVAL_9", raising=False)
    with pytest.raises(reference.ReferenceMissing, match=r"^no TREC_EVAL_9 binary \(set TREC_EVAL_9\)$"):
        reference.require_binary(variable="TREC_EVAL_9")
