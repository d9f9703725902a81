"""The system output (kwslist): per term, its detections with score and YES/NO decision."""

from __future__ import annotations

from dataclasses import dataclass

from segeval.core.domains import NONNEGATIVE
from segeval.core.errors import InputError
from segeval.protocols.speech.xmlfile import attribute, children, expect_root, number, read_xml

_ASCII_SPACE = " \t\n\v\f\r"  # what Perl's \s matches in bytes (KWSEval reads the kwslist undecoded)


@dataclass(eq=False)
class Detection:
    """One ``<kw>`` of a ``<detected_kwlist>``; ``file`` as KWSEval names it (:func:`detection_file`)."""

    file: str
    channel: str
    begin: float
    end: float  # begin + dur (not rounded: KWSEval's KWSTermRecord)
    mid: float  # begin + dur / 2
    score: float
    yes: bool
    line: int


@dataclass(frozen=True)
class SystemOutput:
    detections: dict[str, list[Detection]]  # kwid -> detections, in file order
    lines: dict[str, int]  # kwid -> line of its <detected_kwlist>
    score_range: tuple[float, float] | None  # the header's min_score/max_score when given


def detection_file(name: str) -> str:
    """KWSEval's file id of a detection's ``file=`` (docs/speech.md, "File names")."""
    base = name.rsplit("/", 1)[-1] if name.strip(_ASCII_SPACE) else ""
    dots = len(base) - len(base.lstrip(".")) if base.lstrip(".") else 0
    stem, _, extension = base[dots:].partition(".")
    if not stem or not extension:  # no dot, or nothing before or after the first one: the whole base name
        return base
    extension = "" if extension == "sph" else extension.removeprefix(".")
    return base[:dots] + stem + ("." + extension if extension.strip(_ASCII_SPACE) else "")


def read_kwslist(path: str) -> SystemOutput:
    """The detections of a kwslist file, by term."""
    root = read_xml(path, "kwslist")
    expect_root(path, root, "kwslist", "system output")
    low, high = root.attrs.get("min_score"), root.attrs.get("max_score")
    score_range = None
    if (low is None) != (high is None):
        raise InputError(
            path, "<kwslist> has only one of min_score= and max_score=; expected both or neither", line=root.line
        )
    if low is not None:
        score_range = (number(path, root, "min_score"), number(path, root, "max_score"))
    detections: dict[str, list[Detection]] = {}
    lines: dict[str, int] = {}
    for group in children(path, root, "detected_kwlist"):
        kwid = attribute(path, group, "kwid")
        if kwid in lines:
            raise InputError(
                path,
                f"term {kwid} has a second <detected_kwlist> (the first is on line "
                f"{lines[kwid]}); expected one list per term",
                line=group.line,
            )
        lines[kwid] = group.line
        found = detections[kwid] = []
        for kw in children(path, group, "kw"):
            begin = number(path, kw, "tbeg", NONNEGATIVE)
            dur = number(path, kw, "dur", NONNEGATIVE)
            score = number(path, kw, "score")
            decision = attribute(path, kw, "decision")
            if decision not in ("YES", "NO"):
                raise InputError(path, f'term {kwid}: decision="{decision}"; expected YES or NO', line=kw.line)
            if score_range is not None and not score_range[0] <= score <= score_range[1]:
                raise InputError(
                    path,
                    f"term {kwid}: score {score!r} is outside the header's min_score/max_score "
                    f"[{score_range[0]!r}, {score_range[1]!r}]",
                    line=kw.line,
                )
            file, channel = detection_file(attribute(path, kw, "file")), attribute(path, kw, "channel")
            found.append(
                Detection(file, channel, begin, begin + dur, begin + dur / 2.0, score, decision == "YES", kw.line)
            )
    return SystemOutput(detections, lines, score_range)
