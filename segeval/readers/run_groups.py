"""The run groups file of the pool-bias analyses: ``run group [type]`` lines, read through the one opener
(:mod:`segeval.readers.files`) and its limits."""

from __future__ import annotations

from pathlib import Path

from segeval.core.errors import InputError
from segeval.readers.files import read_bytes
from segeval.readers.formats import wrong_count


def read_groups(
    path: str | Path, lines: dict[str, tuple[int, str]] | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """``run group [type]`` lines: run name -> group, and run name -> type (when given); ``lines``, when given,
    receives each run's line number and text."""
    name = str(path)
    group: dict[str, str] = {}
    kind: dict[str, str] = {}
    for number, line in enumerate(read_bytes(path).split(b"\n"), start=1):  # line feeds and ASCII blanks only
        fields = [f.decode("utf-8", "replace") for f in line.split()]
        raw = line.rstrip(b"\r").decode("utf-8", "replace")
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise wrong_count(name, number, raw, len(fields), "'run group [type]'")
        if fields[0] in group:
            raise InputError(name, f"run '{fields[0]}' appears again; expected each run once", line=number, text=raw)
        group[fields[0]] = fields[1]
        if lines is not None:
            lines[fields[0]] = (number, raw)
        if len(fields) == 3:
            kind[fields[0]] = fields[2]
    return group, kind
