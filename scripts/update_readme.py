#!/usr/bin/env python3
"""Regenerate the README's measure table from the measure registry (between its markers), if it has one."""

from __future__ import annotations

import re
from pathlib import Path

from segeval.measures import measure_table

START, END = "<!-- measures:start -->", "<!-- measures:end -->"


def main() -> None:
    path = Path(__file__).resolve().parent.parent / "README.md"
    text = path.read_text(encoding="utf-8")
    block = f"{START}\n{measure_table()}\n{END}"
    if START in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        return  # the measure table lives in docs/measures.md
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
