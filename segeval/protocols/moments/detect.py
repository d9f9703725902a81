"""The moment-retrieval protocol of a ground truth, told from its first record (``mr`` without ``--protocol``)."""

from __future__ import annotations

from pathlib import Path

from segeval.core.errors import InputError
from segeval.protocols.moments.charades import LINE
from segeval.readers.json_records import loads

#: how much of the ground truth is looked at
HEAD_BYTES = 1 << 16


def _head(path: str | Path) -> str:
    from segeval.readers.files import read_blocks

    blocks = read_blocks(path, max_bytes=None, block=HEAD_BYTES, lines=False)
    try:
        first = next(blocks, b"")
    finally:
        close = getattr(blocks, "close", None)  # the file is closed now, not when the generator is collected
        if close is not None:
            close()
    return first.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")


def is_charades(path: str | Path) -> bool:
    """Whether the first non-blank line of ``path`` has Charades-STA's layout (a stream is read whole, once)."""
    from segeval.readers.files import is_stream, read_text

    return bool(LINE.match(read_text(path, lines=True).lstrip("\ufeff \t\r\n") if is_stream(path) else _head(path)))


def detect(truth: str | Path) -> tuple[str, str]:
    """The protocol of ``truth`` and why (docs/moments.md)."""
    from segeval.readers.files import is_stream

    name = str(truth)
    if is_stream(truth):
        raise InputError(
            name,
            "is a stream, which can be read only once; expected --protocol naming the protocol "
            "(qvhighlights, tvr, didemo, ego4d-nlq, recall)",
        )
    head = _head(truth)
    first_line = head.split("\n", 1)[0]
    record: object = None
    if head.startswith("{"):
        try:
            record = loads(first_line)
        except ValueError:
            record = None
    if isinstance(record, dict):
        if "ts" in record and "desc_id" in record:
            return "tvr", "its records have 'ts' and 'desc_id' (TVR)"
        if "relevant_windows" in record or "relevant_clip_ids" in record:
            return "qvhighlights", "its records have 'relevant_windows' (QVHighlights; -p recall scores them as R@k)"
    if head.startswith("{") and '"videos"' in head:
        return "ego4d-nlq", "it is a JSON object with 'videos' (Ego4D NLQ)"
    if head.startswith("[") and '"times"' in head:
        return "didemo", "it is a JSON list of objects with 'times' (DiDeMo)"
    if LINE.match(head):
        return "recall", "its lines are VIDEO START END##SENTENCE (Charades-STA; scored as R@k)"
    raise InputError(
        name,
        "does not look like any moment-retrieval ground truth segeval knows; expected "
        "QVHighlights or TVR JSON Lines (relevant_windows; ts), a DiDeMo JSON list (times), "
        "Ego4D NLQ JSON (videos), Charades-STA lines (VIDEO START END##SENTENCE), or --protocol "
        "naming the protocol",
    )
