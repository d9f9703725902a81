"""Counted nouns in messages: ``plural(1, "problem")`` is "1 problem", ``plural(2, "query", "queries")`` "2 queries"."""

from __future__ import annotations

import re
from collections.abc import Sequence


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, in the plural (``many``, default ``word + "s"``) unless ``n`` is 1."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def verb(n: int, one: str, many: str) -> str:
    """The verb form agreeing with a count of ``n``: ``verb(1, "has", "have")`` is "has"."""
    return one if n == 1 else many


def natural_order(names: Sequence[str]) -> list[int]:
    """Positions of ``names`` in natural order (q2 before q10), equal keys in the order given."""

    def key(i: int) -> list[tuple[int, int | str]]:
        return [(1, int(p)) if p.isdigit() else (0, p) for p in re.split(r"(\d+)", names[i]) if p]

    return sorted(range(len(names)), key=key)
