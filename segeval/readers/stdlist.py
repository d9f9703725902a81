"""Runs in NIST's STD list form (XML), as MediaEval's query-by-example tasks (SWS 2013, QUESST 2014-2015) take
them: ``<stdlist>`` holding ``<detected_termlist termid>`` holding ``<term file score decision>``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.errors import InputError, SegevalError
from segeval.readers.files import read_blocks

NAME = "STD list"
#: what tells an STD list from a line format: its first bytes open XML (a declaration, a comment or the root)
_START = re.compile(rb"(?:\xef\xbb\xbf)?\s*<(?:\?xml|!--|stdlist\b)")


def is_stdlist(data: bytes) -> bool:
    """True when the file's first bytes open an XML document (an STD list run): no line format starts so."""
    return _START.match(data[:4096]) is not None


def starts_stdlist(path: str | Path) -> bool:
    """True when the file opens an XML document (read then without a line length limit); False when unreadable."""
    blocks = read_blocks(path, max_bytes=None, block=4096, lines=False)
    try:
        return is_stdlist(next(blocks, b""))
    except (SegevalError, OSError):
        return False
    finally:
        blocks.close()


def utterance(file: str) -> str:
    """The utterance a ``file=`` attribute names: its last path component without ``.wav``."""
    return file.rsplit("/", 1)[-1].removesuffix(".wav")


def stdlist_columns(data: bytes, path: str) -> dict[str, npt.NDArray[Any]]:
    """The run columns of an STD list (no ranks): per (query, utterance) the highest-scoring detection (the
    first of equal ones); the table: :func:`segeval.readers.tables.stdlist_frame`."""
    from segeval.protocols.speech.xmlfile import parse_xml  # not on import

    root = parse_xml(data, path, NAME, "stdlist", NAME)
    found: dict[tuple[str, str], tuple[float, bool, int]] = {}
    for group in root.each("detected_termlist"):
        query = group.attribute("termid")
        for term in group.each("term"):
            score = term.number("score")
            decision = term.attribute("decision")
            if decision not in ("YES", "NO"):
                raise term.error(f'query {query}: decision="{decision}"; expected YES or NO')
            pair = (query, utterance(term.attribute("file")))
            if not all(pair) or any(c.isspace() for c in "".join(pair)):
                why = "expected ids without white space, the file naming an utterance"
                raise term.error(f'termid="{query}" file="{term.attrs["file"]}"; {why}')
            if pair not in found or score > found[pair][0]:
                found[pair] = (score, decision == "YES", term.line)
    if not found:
        raise InputError(
            path, "has no <term> detection; expected <detected_termlist termid> holding <term file score decision>"
        )
    pairs = list(found)
    return {
        "query": np.asarray([q for q, _ in pairs], dtype=object),
        "item": np.asarray([u for _, u in pairs], dtype=object),
        "score": np.asarray([found[p][0] for p in pairs], dtype=np.float64),
        "run": np.full(len(pairs), root.attrs.get("system_id", ""), dtype=object),
        "line": np.asarray([found[p][2] for p in pairs], dtype=np.int64),
        "decision": np.asarray([found[p][1] for p in pairs], dtype=bool),
    }
