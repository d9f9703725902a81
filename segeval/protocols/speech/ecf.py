"""The experiment control file (ECF): the evaluated excerpts and the number of trials they make."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from segeval.core.domains import NONNEGATIVE
from segeval.protocols.speech.xmlfile import read_xml

#: the source type whose excerpts count half their duration (KWSEval's calcTotalDur; compared exactly)
SPLIT_CTS = "splitcts"
SOURCE_TYPES = ("bnews", "cts", SPLIT_CTS, "confmtg")


@dataclass(frozen=True)
class Excerpt:
    """One ``<excerpt>``: ``file`` is the audio file name without folder and extension (KWSEval's rule)."""

    file: str
    channel: str
    tbeg: float
    tend: float  # tbeg + dur rounded to 4 decimals, as KWSEval stores it
    source_type: str


def file_id(audio_filename: str) -> str:
    """KWSEval's file id of an ``audio_filename``: the base name without its last extension."""
    match = re.fullmatch(r".*/(.*?[^/]*)\.([^.]+)", audio_filename, re.S) or re.fullmatch(
        r"(.*)\.([^.]+)", audio_filename, re.S
    )
    return match.group(1) if match else audio_filename


def read_ecf(path: str) -> list[Excerpt]:
    """The excerpts of an ECF file; a malformed file is an :class:`InputError` with its line."""
    root = read_xml(path, "ECF", "ecf", "ECF")
    excerpts = []
    for element in root.each("excerpt"):
        tbeg = element.number("tbeg", NONNEGATIVE)
        dur = element.number("dur", NONNEGATIVE)
        source_type = element.attribute("source_type")
        if source_type not in SOURCE_TYPES:
            raise element.error(
                f'source_type="{source_type}": expected one of {", ".join(SOURCE_TYPES)} '
                f"(KWSEval's schema; {SPLIT_CTS} counts half)"
            )
        file, channel = file_id(element.attribute("audio_filename")), element.attribute("channel")
        if not (file + channel).isascii():  # KWSEval reads the ECF undecoded, the RTTM decoded: they never meet
            raise element.error(
                f"file {file!r} channel {channel!r}: expected ASCII (KWSEval would find no "
                "reference word in a file or channel named otherwise)"
            )
        excerpts.append(Excerpt(file, channel, tbeg, float(f"{tbeg + dur:.4f}"), source_type))
    if not excerpts:
        raise root.error("no <excerpt>: expected at least one evaluated excerpt")
    if not 0 < (total := total_duration(excerpts)) < math.inf:
        raise root.error(
            f"the excerpts' total duration is {total:g} s; expected a finite duration above 0 "
            "(KWSEval divides by the trials it gives)"
        )
    return excerpts


def total_duration(excerpts: list[Excerpt]) -> float:
    """KWSEval's total duration (docs/speech.md, "Duration")."""
    by_file: dict[str, list[Excerpt]] = {}
    for excerpt in excerpts:
        by_file.setdefault(excerpt.file, []).append(excerpt)
    total = 0.0
    for file in sorted(by_file):
        ordered = sorted(by_file[file], key=lambda e: (e.tbeg, e.tend))
        for i, excerpt in enumerate(ordered):
            tend = min([excerpt.tend, *(later.tbeg for later in ordered[i + 1 :])])
            total += (tend - excerpt.tbeg) * (0.5 if excerpt.source_type == SPLIT_CTS else 1)
    return total


class ExcerptIndex:
    """Which (file, channel, begin, end) spans lie wholly inside an excerpt (KWSEval's ``belongsInECF``)."""

    def __init__(self, excerpts: list[Excerpt]) -> None:
        self._spans: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for excerpt in excerpts:
            self._spans.setdefault((excerpt.file, excerpt.channel), []).append((excerpt.tbeg, excerpt.tend))

    def contains(self, file: str, channel: str, begin: float, end: float) -> bool:
        return any(begin >= tbeg and end <= tend for tbeg, tend in self._spans.get((file, channel), ()))
