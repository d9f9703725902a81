#!/usr/bin/env python3
"""Regenerate what is generated from the measure registry: the README's measure table (between its
markers) and docs/measures.md.  ``--check`` only reports whether they are current (exit 1 if not)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from segeval.measures import REGISTRY, catalogue, measure_table

START, END = "<!-- measures:start -->", "<!-- measures:end -->"
ROOT = Path(__file__).resolve().parent.parent


def generated() -> dict[Path, str]:
    """Each generated file's path and the text it should hold."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    out = {ROOT / "docs" / "measures.md": catalogue.doc(REGISTRY)}
    if START in text:  # a measure table in the README is optional (docs/measures.md holds the full one)
        block = f"{START}\n{measure_table()}\n{END}"
        out[readme] = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    return out


def main() -> None:
    stale = []
    for path, text in generated().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path.relative_to(ROOT))
            if "--check" not in sys.argv:
                path.write_text(text, encoding="utf-8")
    if "--check" in sys.argv and stale:
        raise SystemExit(f"not current (run scripts/update_readme.py): {', '.join(map(str, stale))}")


if __name__ == "__main__":
    main()
