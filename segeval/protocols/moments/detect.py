"""Which moment-retrieval protocol a ground truth belongs to (``mr`` without ``--protocol``), and Charades-STA's
``VIDEO START END##SENTENCE`` lines as ground truth, joined to Moment-DETR-style predictions on the video and the
sentence (docs/moments.md#recall)."""

from __future__ import annotations

import re
from contextlib import closing
from pathlib import Path
from typing import Any

from segeval.core.errors import InputError
from segeval.protocols.moments.reading import line_error
from segeval.readers.files import is_stream, read_blocks, read_text
from segeval.readers.formats import read_number
from segeval.readers.json_records import lines, loads

LINE = re.compile(r"[^\s{\[][^\n]*##")  # a first line with ## that is not JSON
EXPECTED = "VIDEO START END##SENTENCE (Charades-STA), such as '3MSZA 24.3 30.4##person turn a light on.'"
Rows = list[tuple[int, str, dict[str, Any]]]


def read_charades(path: str | Path) -> Rows:
    """(line number, line, record) of every non-blank line: ``qid`` (its index, 2D-TAN's ``anno_idx``), ``vid``,
    ``query`` and ``relevant_windows``."""
    name = str(path)
    rows: Rows = []
    seen: dict[tuple[str, str], int] = {}
    for number, line in lines(read_text(path, lines=True)):
        if not line.strip():
            continue
        head, sep, sentence = line.partition("##")
        fields = head.split()
        if not sep or len(fields) != 3:
            raise line_error(name, number, line, f"expected {EXPECTED}")
        start, end = (
            read_number(text, name, what, line=number, shown=line[:200])
            for text, what in zip(fields[1:], ("start", "end"), strict=True)
        )
        key = (fields[0], sentence.strip())
        if key in seen:
            raise line_error(
                name,
                number,
                line,
                f"video {key[0]} has this sentence on line {seen[key]} too; expected each "
                "video and sentence once (predictions name the line by them)",
            )
        seen[key] = number
        rows.append(
            (number, line, {"qid": len(rows), "vid": key[0], "query": key[1], "relevant_windows": [[start, end]]})
        )
    if not rows:
        raise InputError(name, f"has no data lines; expected {EXPECTED}")
    return rows


def by_sentence(truth: Rows, predictions: Rows, path: str) -> Rows:
    """``predictions`` with the ``qid`` of the ground-truth line that their ``vid`` and ``query`` name."""
    index = {(row["vid"], row["query"]): row["qid"] for _, _, row in truth}
    out: Rows = []
    for number, line, row in predictions:
        vid, query = row.get("vid"), row.get("query")
        qid = index.get((vid, query.strip())) if isinstance(vid, str) and isinstance(query, str) else None
        if qid is None:
            raise line_error(
                path,
                number,
                line,
                "names no line of the Charades-STA ground truth; expected 'vid' and 'query' as a "
                "ground-truth line has them (its video and sentence)",
            )
        out.append((number, line, {**row, "qid": qid}))
    return out


#: how much of the ground truth is looked at
HEAD_BYTES = 1 << 16


def _head(path: str | Path) -> str:
    # closed now, not when the generator is collected
    with closing(read_blocks(path, max_bytes=None, block=HEAD_BYTES, lines=False)) as blocks:
        first = next(blocks, b"")
    return first.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")


def is_charades(path: str | Path) -> bool:
    """Whether the first non-blank line of ``path`` has Charades-STA's layout (a stream is read whole, once)."""
    return bool(LINE.match(read_text(path, lines=True).lstrip("\ufeff \t\r\n") if is_stream(path) else _head(path)))


def detect(truth: str | Path) -> tuple[str, str]:
    """The protocol of ``truth`` and why (docs/moments.md)."""
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
