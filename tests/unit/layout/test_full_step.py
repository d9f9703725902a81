"""Every test file with a SEGEVAL_FULL-only part is run by .ci/run's full step (a slice skipped in the
README's suite must still run somewhere)."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_every_full_only_test_file_runs_in_the_full_step() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    step = ci[ci.index("SEGEVAL_FULL=1 python -m pytest"):]
    listed = set(re.findall(r"tests/\S+\.py", step))
    slice_marks = r"SEGEVAL_FULL|full_only|\bFULL\b|\bsliced\(|\bexamples\(|\bone_process\b"
    marked = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
              if re.search(slice_marks, p.read_text())} - {"tests/unit/layout/test_full_step.py"}
    assert marked <= listed, sorted(marked - listed)
