"""Each term's trials: occurrences and detections paired as KWSEval pairs them (docs/speech.md, "Pairing")."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from segeval.core.errors import InputError
from segeval.protocols.speech.ecf import Excerpt, ExcerptIndex
from segeval.protocols.speech.kwlist import TermList
from segeval.protocols.speech.kwslist import Detection, SystemOutput
from segeval.protocols.speech.rttm import Occurrence, Transcript

EPSILON_TIME = 1e-8
EPSILON_SCORE = 1e-6


@dataclass(eq=False)
class TermTrials:
    """One term's trials: (score, YES) of paired and unpaired detections, and the unpaired occurrences."""

    kwid: str
    text: str
    targets: list[tuple[float, bool]] = field(default_factory=list)
    nontargets: list[tuple[float, bool]] = field(default_factory=list)
    omitted: int = 0

    @property
    def n_target(self) -> int:
        return len(self.targets) + self.omitted


def _weight(occurrence: Occurrence, detection: Detection, low: float, high: float) -> float:
    """KWSEval's kernel value plus 2 (the two unmatched costs it saves): always near 3."""
    span = occurrence.end - occurrence.begin
    overlap = min(detection.end, occurrence.end) - max(detection.begin, occurrence.begin)
    time_congruence = overlap / (span if span > 0.00001 else 0.00001)
    spread = high - low
    score_congruence = (detection.score - low) / (spread if spread > 0.00001 else 0.00001)
    return 3 + EPSILON_TIME * time_congruence + EPSILON_SCORE * score_congruence


def pair(
    occurrences: list[Occurrence],
    detections: list[Detection],
    tolerance: float,
    score_range: tuple[float, float] | None,
) -> list[tuple[int, int]]:
    """The one-to-one pairs (occurrence index, detection index) of one term in one file and channel."""
    if not occurrences or not detections:
        return []
    if score_range is None:
        scores = [d.score for d in detections]
        score_range = min(scores), max(scores)
    edges = _edges(occurrences, detections, tolerance, *score_range)
    result = []
    for refs, dets in _groups(edges):
        result.extend(_assign(refs, sorted(dets), edges))
    return result


def _edges(
    occurrences: list[Occurrence], detections: list[Detection], tolerance: float, low: float, high: float
) -> dict[int, dict[int, float]]:
    """``edges[i][j]``: the weight of each occurrence and detection whose mid-point is within ``tolerance`` of it."""
    order = sorted(range(len(detections)), key=lambda j: detections[j].mid)
    mids = [detections[j].mid for j in order]
    edges: dict[int, dict[int, float]] = {}
    for i, occ in enumerate(occurrences):
        lo = bisect_left(mids, occ.begin - tolerance)
        hi = bisect_right(mids, occ.end + tolerance)
        for k in range(lo, hi):
            j = order[k]
            edges.setdefault(i, {})[j] = _weight(occ, detections[j], low, high)
    return edges


def _groups(edges: dict[int, dict[int, float]]) -> list[tuple[list[int], set[int]]]:
    """The connected groups of occurrences and detections (union-find): (occurrences, detections) each."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: tuple[int, int]) -> tuple[int, int]:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, row in edges.items():
        for j in row:
            a, b = find((0, i)), find((1, j))
            if a != b:
                parent[a] = b
    groups: dict[tuple[int, int], tuple[list[int], set[int]]] = {}
    for i, row in edges.items():
        refs, dets = groups.setdefault(find((0, i)), ([], set()))
        refs.append(i)
        dets.update(row)
    return list(groups.values())


def _assign(refs: list[int], dets: list[int], edges: dict[int, dict[int, float]]) -> list[tuple[int, int]]:
    """The pairs of one group of greatest total weight (SciPy's linear_sum_assignment unless one side is alone)."""
    if len(refs) == 1:
        row = edges[refs[0]]
        return [(refs[0], max(dets, key=lambda j: row[j]))]
    if len(dets) == 1:
        j = dets[0]
        return [(max((i for i in refs if j in edges[i]), key=lambda i: edges[i][j]), j)]
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    matrix = np.zeros((len(refs), len(dets)))
    column = {j: c for c, j in enumerate(dets)}
    for r, i in enumerate(refs):
        for j, w in edges[i].items():
            matrix[r, column[j]] = w
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return [(refs[r], dets[c]) for r, c in zip(rows, cols, strict=True) if matrix[r, c] > 0]


def align(
    excerpts: list[Excerpt],
    transcript: Transcript,
    terms: TermList,
    system: SystemOutput,
    kwslist_path: str,
    *,
    tolerance: float,
    word_gap: float,
) -> dict[str, TermTrials]:
    """Every term's trials. A term of the kwslist that the kwlist lacks is an :class:`InputError`."""
    for kwid, line in system.lines.items():
        if kwid not in terms.terms:
            raise InputError(kwslist_path, f"term {kwid} is not in the kwlist; expected only kwlist terms", line=line)
    inside = ExcerptIndex(excerpts)
    trials: dict[str, TermTrials] = {}
    for kwid in sorted(terms.terms):
        term = terms.terms[kwid]
        block = trials[kwid] = TermTrials(kwid, term.text)
        refs: dict[tuple[str, str], list[Occurrence]] = {}
        for occ in transcript.occurrences(term.text, word_gap):
            first = occ.words[0]
            if inside.contains(first.file, first.channel, first.begin, first.end):
                refs.setdefault((first.file, first.channel), []).append(occ)
        dets: dict[tuple[str, str], list[Detection]] = {}
        for det in system.detections.get(kwid, ()):
            if inside.contains(det.file, det.channel, det.begin, det.end):
                dets.setdefault((det.file, det.channel), []).append(det)
        for key in sorted(set(refs) | set(dets)):
            occs, found = refs.get(key, []), dets.get(key, [])
            pairs = pair(occs, found, tolerance, system.score_range)
            paired_dets = {j for _, j in pairs}
            block.targets.extend((found[j].score, found[j].yes) for _, j in pairs)
            block.omitted += len(occs) - len(pairs)  # pairs are one to one
            block.nontargets.extend((d.score, d.yes) for j, d in enumerate(found) if j not in paired_dets)
    return trials
