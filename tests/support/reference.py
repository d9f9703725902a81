"""What a reference test needs, and what happens when it is missing: the one place of that rule.

A reference test compares segeval with an official tool: its stored outputs in ``../shared/data``,
a binary built from its source (trec_eval), or a reference library (pytrec_eval, ir_measures), or
it needs a browser CI installs (headless Chromium). Without it the test cannot run. Locally it is
skipped; with ``SEGEVAL_REQUIRE_REFERENCE=1`` (CI, set by ``.ci/run``) the hooks in
``tests/conftest.py`` turn that skip into a failure naming what is missing, so CI never passes by
skipping a comparison.

Every such skip goes through :func:`missing` (directly or through the ``require_*`` helpers);
skips for other reasons (the platform, an optional plotting extra) use ``pytest.skip`` as usual.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest
from _pytest.outcomes import Skipped

VARIABLE = "SEGEVAL_REQUIRE_REFERENCE"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


class ReferenceMissing(Skipped):
    """A skip because reference data, a reference binary or a reference library is missing."""

    __module__ = "builtins"  # the skip reason reads "ReferenceMissing: ...", as pytest's own reads "Skipped: ..."


def required() -> bool:
    """Whether a missing reference fails the test (``SEGEVAL_REQUIRE_REFERENCE=1``) instead of skipping it."""
    value = os.environ.get(VARIABLE, "")
    if value not in ("", "0", "1"):
        raise pytest.UsageError(f"{VARIABLE} is {value!r}; expected 1 (a missing reference fails the test) "
                                f"or 0 / unset (it skips the test)")
    return value == "1"


def missing(what: str) -> NoReturn:
    """Skip the calling test (or module): ``what`` is missing. A failure under ``SEGEVAL_REQUIRE_REFERENCE=1``."""
    raise ReferenceMissing(what, allow_module_level=True)


def failure(what: str) -> str:
    """The failure text of a reference test that could not run."""
    return (f"reference missing: {what}\n"
            f"({VARIABLE}=1 makes a missing reference a failure; unset, the test is skipped)")


def require_shared(*parts: str) -> Path:
    """A path under ../shared/data (reference data and the official tools' outputs)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        missing(f"reference data not available: {path}")
    return path


def find_binary(*names: str, variable: str | None = None) -> str | None:
    """The binary named by the environment variable ``variable`` when set, else the first of ``names`` on PATH."""
    if variable and os.environ.get(variable):
        return os.environ[variable]
    return next((found for name in names if (found := shutil.which(name))), None)


def require_binary(*names: str, variable: str | None = None, why: str = "") -> str:
    """The path of a reference binary (see :func:`find_binary`; without ``names`` only ``variable`` can name it);
    a variable naming no executable file is missing too."""
    found = find_binary(*names, variable=variable)
    where = " or ".join([*([f"set {variable}"] if variable else []), *([f"put {' or '.join(names)} on PATH"]
                                                                      if names else [])])
    reason = f"({where}){why and f'; {why}'}"
    if found is None:
        missing(f"no {names[0] if names else variable} binary {reason}")
    if not (os.path.isfile(found) and os.access(found, os.X_OK)):
        missing(f"{variable}={found} is not an executable file {reason}")
    return found


def require_module(name: str, why: str = "") -> ModuleType:
    """A reference library, imported (``pytest.importorskip`` for references)."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        missing(f"the reference library {name} cannot be imported ({error}){why and f'; {why}'}")
