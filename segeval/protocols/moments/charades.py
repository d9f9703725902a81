"""Charades-STA's ``VIDEO START END##SENTENCE`` lines as moment-retrieval ground truth, joined to Moment-DETR-style
predictions on the video and the sentence (docs/moments.md#recall)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from segeval.core.errors import InputError
from segeval.protocols.moments.reading import line_error
from segeval.readers.files import read_text
from segeval.readers.formats import read_number
from segeval.readers.json_records import lines

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
