"""One IoU rule: the temporal IoU of two windows is computed in ``segeval/adapters/tiou.py`` only (``tiou`` with its
hull / union forms and empty-hull values, ``tiou32``); the protocols call it.  An overlap written out again with
numpy's minimum and maximum elsewhere is a second copy that could drift from the adapter's (as QVHighlights',
Ego4D NLQ's, DiDeMo's, TVR's and the THUMOS KIT overlap once did)."""

from __future__ import annotations

import re

from tests.conftest import ROOT

_OVERLAP = re.compile(r"np\.minimum\([^()]*(?:\([^()]*\)[^()]*)*\)\s*-\s*np\.maximum\(")


def test_the_iou_is_computed_in_one_place() -> None:
    home = ROOT / "segeval" / "adapters" / "tiou.py"
    assert _OVERLAP.search(home.read_text())  # the pattern finds the one place
    copies = [str(p.relative_to(ROOT)) for p in (ROOT / "segeval").rglob("*.py")
              if p != home and _OVERLAP.search(p.read_text())]
    assert copies == []
