"""A moment-retrieval protocol's files as segeval lines, and the ``segeval eval`` command of each figure it prints
(``segeval mr --write-lines PREFIX``; docs/moments.md, "Lines for segeval eval" and "Corpus runs as segeval lines").
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.protocols.moments.protocol import MrOptions
from segeval.readers.formats import format_time

if TYPE_CHECKING:
    from segeval.protocols.moments.qvhighlights.reading import Moments

_TOKEN = re.compile(r"\S+\Z")
EVAL = "segeval eval -c --time-format seconds"
NOT_LABELS = "the mean IoU of each query's first prediction is not a measure of relevance labels"


@dataclass(frozen=True)
class Figure:
    """A figure of ``segeval mr -o json`` (``key``: its path there) and the eval run that gives it: ``args`` after
    ``EVAL`` (with ``PREFIX``), ``measure`` the name in eval's output, x 100 when ``percent``."""

    key: tuple[str, ...]
    args: tuple[str, ...]
    measure: str
    percent: bool = True


def group(
    keys: Sequence[tuple[tuple[str, ...], str]],
    adapters: list[str],
    measures: str,
    qrels: str,
    run: str,
    percent: bool = True,
    level: int | None = None,
) -> list[Figure]:
    """Figures given by one eval run: ``keys`` pairs a figure's path with its measure name."""
    args = (
        tuple(x for a in adapters for x in ("-a", a))
        + (() if level is None else ("-l", str(level)))
        + ("-m", measures, qrels, run)
    )
    return [Figure(key, args, measure, percent) for key, measure in keys]


#: the mark a success measure's name gets under each ``tiou`` adapter form
MARKS = {":empty0": "z", ":strict:empty0": "sz", ":empty0:best": "zb", ":float32": "f"}


def success(
    keys: Sequence[tuple[tuple[str, ...], int, float]],
    thresholds: Sequence[float],
    top_k: Sequence[int],
    form: str,
    qrels: str = "PREFIX.qrels",
    run: str = "PREFIX.run",
) -> list[Figure]:
    """Figures that are success@k under ``-a tiou:t{form}``: ``keys`` holds each one's (path, k, t)."""
    return group(
        [(path, f"success_{k}_tiou{t:g}{MARKS[form]}") for path, k, t in keys],
        [f"tiou:{t:g}{form}" for t in thresholds],
        f"Success@{','.join(map(str, top_k))}",
        qrels,
        run,
    )


@dataclass
class Lines:
    """The files to write (suffix -> lines), the figures eval gives, those it does not (name, why), notes."""

    files: dict[str, list[str]]
    figures: list[Figure]
    unreproducible: list[tuple[str, str]]
    notes: list[str] = field(default_factory=list)


def token(value: object, what: str, path: str) -> str:
    """``value`` as a line field: a single token, else an InputError naming ``path``."""
    text = str(value)
    if not _TOKEN.match(text):
        raise InputError(
            path,
            f"{what} {text!r} has white space or is empty; expected a single token to write "
            "it as a line field (--write-lines)",
        )
    return text


class Times:
    """Seconds as line fields (9 decimals): negative times refused, rounded ones counted."""

    def __init__(self) -> None:
        self.rounded = 0

    def pairs(self, windows: Iterable[Sequence[float]], where: str, path: str) -> list[tuple[str, str]]:
        """The start and end of each window as line fields."""
        texts = []
        for value in (value for window in windows for value in window[:2]):
            if value < 0:
                raise InputError(
                    path,
                    f"{where} has the negative time {value!r}; the lines' seconds format has no "
                    "negative times (--write-lines)",
                )
            texts.append(format_time(value, "seconds"))
            self.rounded += float(texts[-1]) != value
        return list(zip(texts[0::2], texts[1::2], strict=True))

    def notes(self) -> list[str]:
        if not self.rounded:
            return []
        return [
            f"{plural(self.rounded, 'time')} rounded to 9 decimals in the lines: an IoU exactly on a threshold "
            "may then differ from the protocol's"
        ]


def run_lines(qid: str, video: str, windows: list[tuple[str, str]], tag: str) -> list[str]:
    """One query's run lines in rank order (score = count - rank + 1)."""
    n = len(windows)
    return [f"{qid} Q0 {video} {s} {e} {rank} {n - rank + 1} {tag}" for rank, (s, e) in enumerate(windows, start=1)]


def _forward(windows: FloatArray) -> tuple[FloatArray, int]:
    """Windows with end < start as the zero-length window at their start (IoU 0 with anything, as the official),
    and how many there were."""
    flipped = windows[:, 1] < windows[:, 0]
    return np.stack([windows[:, 0], np.where(flipped, windows[:, 0], windows[:, 1])], axis=1), int(flipped.sum())


def _dropped(count: int, why: str) -> list[str]:
    return [f"{plural(count, 'repeated ground-truth window')} written once {why}"] if count else []


def _qvh_queries(truth: str, predictions: str) -> tuple[Moments, dict[str, tuple[str, str]]]:
    """The files read, and per ground-truth query with a window its (qid, video) line fields."""
    from segeval.protocols.moments.qvhighlights.reading import read_moments

    m = read_moments(truth, predictions)
    if not m.moments:
        raise InputError(predictions, "has no 'pred_relevant_windows' to write as lines (--write-lines)")
    return m, {
        q: (token(q, "qid", truth), token(m.videos.get(q) or "video", f"query {q}: vid", truth))
        for q in m.truth
        if len(m.truth[q])
    }


def _qrels(qid: str, video: str, windows: FloatArray, times: Times, path: str, dropped: list[int]) -> list[str]:
    """A query's qrels lines, each window once (``dropped[0]`` counts the repeats)."""
    pairs = times.pairs(windows.tolist(), f"query {qid}", path)
    unique = dict.fromkeys(pairs)
    dropped[0] += len(pairs) - len(unique)
    return [f"{qid} Q0 {video} {s} {e} 1" for s, e in unique]


def recall_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """The recall report: the ranking by score after the protocol's NMS; R@k,IoU@t is success@k."""
    from segeval.protocols.moments import recall

    m, names = _qvh_queries(truth, predictions)
    times = Times()
    dropped = [0]
    qrels: list[str] = []
    run: list[str] = []
    for q, (qid, video) in names.items():
        qrels += _qrels(qid, video, m.truth[q], times, truth, dropped)
        ranked = recall.ranked(m.predictions.get(q, np.zeros((0, 3))), options.nms)
        run += run_lines(qid, video, times.pairs(ranked.tolist(), f"query {qid}", predictions), "recall")
    thresholds = options.thresholds or recall.THRESHOLDS
    top_k = options.top_k or recall.TOP_K
    form = ":strict:empty0" if (options.iou_compare or recall.COMPARE) == "gt" else ":empty0"
    keys = [((recall.NAME.format(k=k, t=t),), k, t) for k in top_k for t in thresholds]
    figures = success(keys, thresholds, top_k, form)
    why = "the mean IoU of each query's first prediction is not a measure of a ranked list's relevance labels"
    notes = times.notes() + _dropped(dropped[0], "(a query's best IoU is the same)")
    return Lines({"qrels": qrels, "run": run}, figures, [("mIoU", why)], notes)


def _bucket_file(bucket: str) -> str:
    return "qrels" if bucket == "full" else f"{bucket}.qrels"


def qvhighlights_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """QVHighlights: R1 and R5 on the listed order (``PREFIX.run``), mAP on the first 10 listed by score
    (``PREFIX.map.run``), over the full ground truth and each length bucket's (none without a window)."""
    from segeval.protocols.moments import recall
    from segeval.protocols.moments.qvhighlights import BUCKETS, R5_THRESHOLDS, bucket_truths
    from segeval.protocols.moments.qvhighlights.retrieval import THRESHOLDS, TOP_PREDICTIONS

    m, names = _qvh_queries(truth, predictions)
    times = Times()
    buckets = bucket_truths({q: m.truth[q] for q in names})
    dropped = [0]
    files: dict[str, list[str]] = {"qrels": [], "run": [], "map.run": []}
    files.update({_bucket_file(bucket): [] for bucket in BUCKETS if bucket != "full"})
    for q, (qid, video) in names.items():
        for bucket, windows in buckets.items():
            if q in windows:
                files[_bucket_file(bucket)] += _qrels(
                    qid, video, windows[q], times, truth, dropped if bucket == "full" else [0]
                )
        listed = m.predictions.get(q, np.zeros((0, 3)))
        files["run"] += run_lines(qid, video, times.pairs(listed.tolist(), f"query {qid}", predictions), "qvh")
        by_score = recall.ranked(listed[:TOP_PREDICTIONS])  # the official list.sort(key=-score): stable
        files["map.run"] += run_lines(qid, video, times.pairs(by_score.tolist(), f"query {qid}", predictions), "qvh")
    figures: list[Figure] = []
    unreproducible: list[tuple[str, str]] = []
    for bucket in BUCKETS:
        if not files[_bucket_file(bucket)]:
            del files[_bucket_file(bucket)]
            why = "no ground-truth window falls in the bucket: its figures are null and its qrels are not written"
            unreproducible.append((f"{bucket} MR-*", why))
            continue
        qrels = f"PREFIX.{_bucket_file(bucket)}"
        figures += group(
            [((bucket, "MR-mAP", str(t)), f"ap_interp_tioubest{t:g}") for t in THRESHOLDS],
            [f"tiou-best:{t}" for t in THRESHOLDS],
            "ap_interp",
            qrels,
            "PREFIX.map.run",
        )
        # R1: the first listed window against the truth window of highest union-form IoU (``best``); R5 (segeval's
        # addition): any of the first 5 against any window
        figures += success(
            [((bucket, "MR-R1", str(t)), 1, t) for t in THRESHOLDS], THRESHOLDS, (1,), ":empty0:best", qrels
        )
        figures += success(
            [((bucket, "MR-R5", str(t)), 5, t) for t in R5_THRESHOLDS], R5_THRESHOLDS, (5,), ":empty0", qrels
        )
    notes = times.notes() + _dropped(
        dropped[0],
        "(qrels judge a segment once): the MR-mAP of those queries counts the window once, the official twice",
    )
    average = "the mean of the 10 MR-mAP values (numpy's mean of the per-threshold means), not one eval measure"
    unreproducible += [
        ("MR-mAP average", average),
        ("MR-mIoU", NOT_LABELS),
        ("HL-mAP, HL-Hit1", "highlight detection scores clips by saliency, not retrieved segments"),
    ]
    return Lines(files, figures, unreproducible, notes)


def ego4d_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """Ego4D NLQ: the listed predictions; Rank@k mIoU@t is success@k with a strict IoU (0/0 never a hit)."""
    from segeval.protocols.moments import ego4d_nlq as E

    gt = E.read_truth(truth)
    predicted = E.read_predictions(predictions, gt)
    times = Times()
    qrels: list[str] = []
    run: list[str] = []
    reversed_windows = 0
    for key, window in gt.items():
        clip = token(key[0], "clip_uid", truth)
        qid = f"{clip}/{token(key[1], 'annotation_uid', truth)}/{key[2]}"
        moment, flipped = _forward(np.array([window]))
        listed, more = _forward(predicted.get(key, np.zeros((0, 2))))
        reversed_windows += flipped + more
        qrels += _qrels(qid, clip, moment, times, truth, [0])
        run += run_lines(qid, clip, times.pairs(listed.tolist(), f"query {qid}", predictions), "ego4d")
    thresholds = options.thresholds or E.THRESHOLDS
    top_k = options.top_k or E.TOP_K
    keys = [((E.NAME.format(k=k, t=t),), k, t) for k in top_k for t in thresholds]
    figures = success(keys, thresholds, top_k, ":strict:empty0")
    notes = times.notes()
    if reversed_windows:
        notes.append(
            f"{plural(reversed_windows, 'window')} with end < start written as the zero-length window at "
            "its start (never a hit either way)"
        )
    return Lines({"qrels": qrels, "run": run}, figures, [("mIoU", NOT_LABELS)], notes)


#: a DiDeMo query's rank is the mean of its 3 best annotator ranks
AGREE = 3
UNIT_SECONDS = 5


def didemo_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """DiDeMo: units [s, e] as the seconds [5 s, 5 (e + 1)] (then the plain IoU is the official +1 one); a
    moment's grade is the number of annotators who chose it plus 3 - min(3, annotators), so that rank@1
    (3 annotators, or all when fewer, on the first moment) is success@1 at relevance level 3."""
    from segeval.protocols.moments import didemo as D

    times_, ids = D.read_truth(truth)
    rankings, _ = D.read_rankings(predictions, ids)
    named = all(i is not None for i in ids) and len(set(ids)) == len(ids)
    qrels: list[str] = []
    run: list[str] = []

    def seconds(m: tuple[int, int]) -> tuple[str, str]:
        return str(m[0] * UNIT_SECONDS), str((m[1] + 1) * UNIT_SECONDS)

    for n, (moments, ranking) in enumerate(zip(times_, rankings, strict=True)):
        qid = token(ids[n], "annotation_id", truth) if named else str(n)
        shift = AGREE - min(AGREE, len(moments))
        for moment in dict.fromkeys(moments):
            s, e = seconds(moment)
            qrels.append(f"{qid} Q0 video {s} {e} {moments.count(moment) + shift}")
        run += run_lines(qid, "video", [seconds(m) for m in ranking or []], "didemo")
    unnamed = (
        "the ground truth's items have no distinct annotation_id: queries are named by their position, 0 for the "
        "first item"
    )
    figures = group([(("rank@1",), "success_1")], ["exact"], "Success@1", "PREFIX.qrels", "PREFIX.run", False, AGREE)
    rank5 = "the mean of a query's 3 best annotator ranks is not a measure of one ranked list's relevance labels"
    miou = "the mean of the 3 best IoUs of the first moment is not a measure of relevance labels"
    notes = [] if named else [unnamed]
    return Lines({"qrels": qrels, "run": run}, figures, [("rank@5", rank5), ("miou", miou)], notes)


#: the files of each task: VCMR's moments (the qrels, the run), SVMR's moments of the right video, VR's videos
TVR_SUFFIXES = {"VCMR": ("qrels", "run"), "SVMR": ("svmr.run",), "VR": ("vr.qrels", "vr.run")}


def tvr_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """TVR: SVMR keeps the predictions of the query's own video (in list order, as the official counts its rank);
    VR writes each video as the span 0-1 s, for ``-a exact``. VCMR must be submitted; SVMR and VR when they are."""
    from segeval.protocols.moments.tvr import THRESHOLDS, TOP_K
    from segeval.protocols.moments.tvr.reading import key, read

    data = read(truth, predictions)
    if "VCMR" not in data.predictions:
        raise InputError(predictions, "has no 'VCMR' ranking to write as lines (--write-lines)")
    names = {index: name for name, index in data.video2idx.items()}
    times = Times()
    files: dict[str, list[str]] = {
        s: [] for task, suffixes in TVR_SUFFIXES.items() if task in data.predictions for s in suffixes
    }
    reversed_rows = 0
    for q in data.queries:
        qid = token(q.desc_id, "desc_id", truth)
        if len(q.windows) > 1:
            raise InputError(
                truth,
                f"desc_id {q.desc_id} has {len(q.windows)} annotators' moments (DiDeMo-style); "
                "its 2-annotator rule has no line equivalent: expected one moment per item "
                "for --write-lines",
                line=q.line,
            )
        video = token(q.video, "vid_name", truth)
        ((s, e),) = times.pairs(q.windows.tolist(), f"desc_id {qid}", truth)
        files["qrels"].append(f"{qid} Q0 {video} {s} {e} 1")
        for task in ("VCMR", "SVMR"):
            if task not in data.predictions:
                continue
            rows = data.predictions[task].get(key(q.desc_id))
            listed = [] if rows is None else rows.tolist()
            if task == "SVMR":  # video indices are below 2**24: float32 and int comparisons agree
                listed = [r for r in listed if int(r[0]) == data.video2idx[q.video]]
            lines = files["run" if task == "VCMR" else "svmr.run"]
            for rank, (v, ps, pe) in enumerate(listed, start=1):
                reversed_rows += pe < ps
                where = f"{task} desc_id {qid} predictions[{rank - 1}]"
                ((s, e),) = times.pairs([(ps, ps if pe < ps else pe)], where, predictions)
                lines.append(f"{qid} Q0 {token(names[int(v)], 'video', predictions)} {s} {e} {rank} {101 - rank} tvr")
        if "VR" in data.predictions:
            files["vr.qrels"].append(f"{qid} Q0 {video} 0 1 1")
            rows = data.predictions["VR"].get(key(q.desc_id))
            files["vr.run"] += [
                f"{qid} Q0 {token(names[int(v)], 'video', predictions)} 0 1 {rank} {101 - rank} tvr"
                for rank, v in enumerate([] if rows is None else rows[:, 0].tolist(), start=1)
            ]
    notes = times.notes()
    if reversed_rows:
        notes.append(
            f"{reversed_rows} VCMR and SVMR windows with end < start are written as the zero-length window "
            "at their start (IoU 0 with any non-empty moment, as the official gives them)"
        )
    thresholds = options.thresholds or THRESHOLDS
    top_k = options.top_k or TOP_K
    figures: list[Figure] = []
    for task, run in (("VCMR", "PREFIX.run"), ("SVMR", "PREFIX.svmr.run")):
        if task in data.predictions:
            keys = [((task, f"{t}-r{k}"), k, t) for t in thresholds for k in top_k]
            figures += success(keys, thresholds, top_k, ":float32", run=run)
    if "VR" in data.predictions:
        figures += group(
            [(("VR", f"r{k}"), f"success_{k}") for k in top_k],
            ["exact"],
            f"Success@{','.join(map(str, top_k))}",
            "PREFIX.vr.qrels",
            "PREFIX.vr.run",
        )
    by_type = "the same commands over one type's queries: not written (the qrels of one type's queries give them)"
    unreproducible = [("*_by_type", by_type), ("desc_type_ratio", "a share of queries, not a measure")]
    return Lines(files, figures, unreproducible, notes)


BUILDERS = {
    "recall": recall_lines,
    "qvhighlights": qvhighlights_lines,
    "ego4d-nlq": ego4d_lines,
    "didemo": didemo_lines,
    "tvr": tvr_lines,
}


def write_lines(protocol: str, truth: str, predictions: str, options: MrOptions, prefix: str) -> list[str]:
    """Write ``protocol``'s lines under ``prefix`` (:func:`write`)."""
    return write(BUILDERS[protocol](truth, predictions, options), [truth, predictions], prefix)


def write(done: Lines, inputs: list[str], prefix: str) -> list[str]:
    """Write ``done``'s files as ``PREFIX.suffix`` (none may be an input); return what was written, the notes, the
    eval command of each figure and what has none, one stderr line each."""
    from segeval.reports.output import check_output, write_output

    paths = {suffix: Path(f"{prefix}.{suffix}") for suffix in done.files}
    for path in paths.values():
        check_output(path, inputs)
    out = []
    for suffix, lines in done.files.items():
        path = write_output(paths[suffix], "".join(line + "\n" for line in lines), inputs=inputs)
        out.append(f"wrote {path}: {plural(len(lines), 'line')}")
    out += [f"note: {n}" for n in done.notes]
    commands: dict[str, list[Figure]] = {}
    for f in done.figures:
        commands.setdefault(" ".join((EVAL, *f.args)), []).append(f)
    for command, figures in commands.items():
        names = ", ".join(" ".join(f.key) + " = " + f.measure + (" x 100" if f.percent else "") for f in figures)
        out.append(f"note: {command.replace('PREFIX', shlex.quote(prefix))}  gives {names}")
    out += [f"note: {name}: no eval command: {why}" for name, why in done.unreproducible]
    return out
