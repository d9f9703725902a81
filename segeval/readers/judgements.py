"""trec_eval's rel_info formats beyond qrels (``-R``, :data:`~segeval.readers.formats.REL_INFO_FORMATS`): each
query's lines as :class:`Judgement` tuples, comment lines (``#`` first) skipped as trec_eval skips them."""

from __future__ import annotations

import re
from typing import NamedTuple

from segeval.core.errors import InputError
from segeval.readers.files import read_bytes
from segeval.readers.formats import REL_INFO_FORMATS
from segeval.readers.tables import parse_table

_COMMENT = re.compile(rb"(?m)^#.*$")


class Judgement(NamedTuple):
    """One line: its judgement group, subgroup (``0`` where the format has none, as trec_eval), document and
    level (a grade in qrels_jg, a preference level in prefs and qrels_prefs)."""

    group: str
    subgroup: str
    item: str
    level: float


def read_judgements(path: str, rel_format: str) -> dict[str, list[Judgement]]:
    """Each query's judgements in a ``rel_format`` file (``qrels_jg``, ``prefs``, ``qrels_prefs``); a document
    judged twice in one group of qrels_jg is an InputError, as trec_eval refuses it."""
    fmt = REL_INFO_FORMATS[rel_format]
    data = _COMMENT.sub(b"", read_bytes(path))  # a comment line becomes blank: the line numbers stay
    columns = parse_table(data, fmt, path)
    lines = columns["line"]
    subgroups = columns.get("subgroup", ["0"] * len(lines))
    out: dict[str, list[Judgement]] = {}
    first: dict[tuple[object, ...], object] = {}
    for query, group, subgroup, item, level, line in zip(
        columns["query"], columns["group"], subgroups, columns["item"], columns["rel"], lines, strict=True
    ):
        if rel_format == "qrels_jg" and first.setdefault((query, group, item), line) != line:
            why = f"judges document '{item}' of query '{query}' twice in judgement group '{group}'"
            number = int(str(line))
            text = data.split(b"\n")[number - 1].decode("utf-8").rstrip("\r")
            why += f" (line {first[query, group, item]} too); expected each once, as trec_eval"
            raise InputError(path, why, line=number, text=text, kind="duplicate")
        out.setdefault(str(query), []).append(Judgement(str(group), str(subgroup), str(item), float(str(level))))
    return out
