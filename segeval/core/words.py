"""Counted nouns in messages: ``plural(1, "problem")`` is "1 problem", ``plural(2, "query", "queries")``
"2 queries"."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, in the plural (``many``, default ``word + "s"``) unless ``n`` is 1."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def verb(n: int, one: str, many: str) -> str:
    """The verb form agreeing with a count of ``n``: ``verb(1, "has", "have")`` is "has"."""
    return one if n == 1 else many
