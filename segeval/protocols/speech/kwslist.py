"""The system output (kwslist): per term, its detections with score and YES/NO decision."""

from __future__ import annotations

from dataclasses import dataclass

from segeval.core.domains import NONNEGATIVE
from segeval.protocols.speech.xmlfile import read_xml

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
    root = read_xml(path, "kwslist", "kwslist", "system output")
    low, high = root.attrs.get("min_score"), root.attrs.get("max_score")
    score_range = None
    if (low is None) != (high is None):
        raise root.error("<kwslist> has only one of min_score= and max_score=; expected both or neither")
    if low is not None:
        score_range = (root.number("min_score"), root.number("max_score"))
    detections: dict[str, list[Detection]] = {}
    lines: dict[str, int] = {}
    for group in root.each("detected_kwlist"):
        kwid = group.attribute("kwid")
        if kwid in lines:
            raise group.error(
                f"term {kwid} has a second <detected_kwlist> (the first is on line "
                f"{lines[kwid]}); expected one list per term"
            )
        lines[kwid] = group.line
        found = detections[kwid] = []
        for kw in group.each("kw"):
            begin = kw.number("tbeg", NONNEGATIVE)
            dur = kw.number("dur", NONNEGATIVE)
            score = kw.number("score")
            decision = kw.attribute("decision")
            if decision not in ("YES", "NO"):
                raise kw.error(f'term {kwid}: decision="{decision}"; expected YES or NO')
            if score_range is not None and not score_range[0] <= score <= score_range[1]:
                raise kw.error(
                    f"term {kwid}: score {score!r} is outside the header's min_score/max_score "
                    f"[{score_range[0]!r}, {score_range[1]!r}]"
                )
            file, channel = detection_file(kw.attribute("file")), kw.attribute("channel")
            found.append(Detection(file, channel, begin, begin + dur, begin + dur / 2.0, score, decision == "YES"))
    return SystemOutput(detections, lines, score_range)
