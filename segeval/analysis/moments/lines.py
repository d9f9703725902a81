"""A moment-retrieval protocol's files as segeval lines, for ``segeval eval`` (``segeval mr --write-lines PREFIX``).

Every protocol writes ``PREFIX.qrels`` (``query Q0 video start end grade``) and ``PREFIX.run`` (``query Q0 video
start end rank score tag``, score = the query's number of lines - rank + 1 so that ``eval`` keeps the protocol's
order whatever the original scores' ties), times in seconds; a protocol whose figures need another ranking or
another ground truth writes those too (QVHighlights: ``PREFIX.map.run``, ``PREFIX.short.qrels`` ...).
Each builder's :class:`Lines` says, per figure the protocol prints, the ``segeval eval`` command that gives it
(:class:`Figure`: a fraction where the protocol prints percent) or why none does; the command prints those as
notes and docs/moments.md tables them.  The IoU variants the commands name are the ``tiou`` adapter's
(``strict``, ``empty0``, ``best``, ``float32``), whose IoU function the protocols themselves call.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from segeval.analysis.moments.protocol import MrOptions
from segeval.analysis.moments.qvhighlights.reading import FloatArray, Moments
from segeval.errors import InputError
from segeval.io.formats import format_time
from segeval.words import plural

_TOKEN = re.compile(r"\S+\Z")
EVAL = "segeval eval -c --time-format seconds"


@dataclass(frozen=True)
class Figure:
    """A figure of ``segeval mr -o json`` (``key``: its path there) and the eval run that gives it: ``args`` after
    ``EVAL`` (with ``PREFIX``), ``measure`` the name in eval's output, x 100 when ``percent``."""

    key: tuple[str, ...]
    args: tuple[str, ...]
    measure: str
    percent: bool = True

    @property
    def command(self) -> str:
        return " ".join((EVAL, *self.args))


def group(keys: Sequence[tuple[tuple[str, ...], str]], adapters: list[str], measures: str, qrels: str, run: str,
          percent: bool = True, level: int | None = None) -> list[Figure]:
    """Figures given by one eval run: ``keys`` pairs a figure's path with its measure name."""
    args = tuple(x for a in adapters for x in ("-a", a)) + (() if level is None else ("-l", str(level))) + (
        "-m", measures, qrels, run)
    return [Figure(key, args, measure, percent) for key, measure in keys]


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
        raise InputError(path, f"{what} {text!r} has white space or is empty; expected a single token to write "
                               "it as a line field (--write-lines)")
    return text


class Times:
    """Seconds as line fields (9 decimals): negative times refused, rounded ones counted."""

    def __init__(self) -> None:
        self.rounded = 0

    def __call__(self, value: float, where: str, path: str) -> str:
        if value < 0:
            raise InputError(path, f"{where} has the negative time {value!r}; the lines' seconds format has no "
                                   "negative times (--write-lines)")
        text = format_time(value, "seconds")
        if float(text) != value:
            self.rounded += 1
        return text

    def notes(self) -> list[str]:
        if not self.rounded:
            return []
        return [f"{plural(self.rounded, 'time')} rounded to 9 decimals in the lines: an IoU exactly on a threshold "
                "may then differ from the protocol's"]


def run_lines(qid: str, video: str | list[str], windows: list[tuple[str, str]], tag: str) -> list[str]:
    """One query's run lines in rank order (score = count - rank + 1)."""
    n = len(windows)
    videos = [video] * n if isinstance(video, str) else video
    return [f"{qid} Q0 {v} {s} {e} {rank} {n - rank + 1} {tag}"
            for rank, (v, (s, e)) in enumerate(zip(videos, windows, strict=True), start=1)]


def _reversed(s: float, e: float) -> tuple[float, float]:
    """A window with end < start as the zero-length window at its start (IoU 0 with anything, as the official)."""
    return (s, s) if e < s else (s, e)


# --- recall (Charades-STA, ActivityNet Captions, TACoS) and QVHighlights: QVHighlights-style files ---------------

def _qvh_queries(truth: str, predictions: str) -> tuple[Moments, dict[str, tuple[str, str]]]:
    """The files read, and per ground-truth query with a window its (qid, video) line fields."""
    from segeval.analysis.moments.qvhighlights.reading import read_moments

    m = read_moments(truth, predictions)
    if not m.moments:
        raise InputError(predictions, "has no 'pred_relevant_windows' to write as lines (--write-lines)")
    return m, {q: (token(q, "qid", truth), token(m.videos.get(q) or "video", f"query {q}: vid", truth))
               for q in m.truth if len(m.truth[q])}


def _qrels(qid: str, video: str, windows: FloatArray, times: Times, path: str, dropped: list[int]) -> list[str]:
    """A query's qrels lines, each window once (``dropped[0]`` counts the repeats)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for s, e in windows[:, :2].tolist():
        pair = (times(s, f"query {qid}", path), times(e, f"query {qid}", path))
        if pair in seen:
            dropped[0] += 1
            continue
        seen.add(pair)
        out.append(f"{qid} Q0 {video} {pair[0]} {pair[1]} 1")
    return out


def recall_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """The recall report: the ranking by score after the protocol's NMS; R@k,IoU@t is success@k."""
    from segeval.analysis.moments import recall

    m, names = _qvh_queries(truth, predictions)
    times = Times()
    dropped = [0]
    qrels: list[str] = []
    run: list[str] = []
    empty = np.zeros((0, 3))
    for q, (qid, video) in names.items():
        qrels += _qrels(qid, video, m.truth[q], times, truth, dropped)
        ranked = recall.ranked(m.predictions.get(q, empty), options.nms)
        run += run_lines(qid, video, [(times(s, f"query {qid}", predictions), times(e, f"query {qid}", predictions))
                                      for s, e in ranked.tolist()], "recall")
    thresholds = options.thresholds or recall.THRESHOLDS
    top_k = options.top_k or recall.TOP_K
    strict = ":strict" if (options.iou_compare or recall.COMPARE) == "gt" else ""
    ks = ",".join(map(str, top_k))
    suffix = "sz" if strict else "z"
    figures = group([((f"R@{k},IoU@{t}",), f"success_{k}_tiou{t:g}{suffix}") for k in top_k for t in thresholds],
                    [f"tiou:{t:g}{strict}:empty0" for t in thresholds], f"Success@{ks}", "PREFIX.qrels", "PREFIX.run")
    notes = times.notes()
    if dropped[0]:
        notes.append(f"{plural(dropped[0], 'repeated ground-truth window')} written once (a query's best IoU is "
                     "the same)")
    return Lines({"qrels": qrels, "run": run}, figures,
                 [("mIoU", "the mean IoU of each query's first prediction is not a measure of a ranked list's "
                           "relevance labels")], notes)


def qvhighlights_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """QVHighlights: R1 and R5 on the listed order (``PREFIX.run``), mAP on the first 10 listed by score
    (``PREFIX.map.run``), over the full ground truth and each length bucket's."""
    from segeval.analysis.moments.qvhighlights.report import BUCKETS, R5_THRESHOLDS, _bucket_truths
    from segeval.analysis.moments.qvhighlights.retrieval import THRESHOLDS, TOP_PREDICTIONS

    m, names = _qvh_queries(truth, predictions)
    times = Times()
    buckets = _bucket_truths({q: m.truth[q] for q in names})
    dropped = [0]
    files: dict[str, list[str]] = {"qrels": [], "run": [], "map.run": []}
    for bucket in BUCKETS:
        if bucket != "full":
            files[f"{bucket}.qrels"] = []
    empty = np.zeros((0, 3))
    for q, (qid, video) in names.items():
        for bucket, windows in buckets.items():
            if q in windows:
                files["qrels" if bucket == "full" else f"{bucket}.qrels"] += _qrels(qid, video, windows[q], times,
                                                                                   truth, [0] if bucket != "full"
                                                                                   else dropped)
        listed = m.predictions.get(q, empty)
        where = f"query {qid}"
        files["run"] += run_lines(qid, video, [(times(s, where, predictions), times(e, where, predictions))
                                               for s, e, _ in listed.tolist()], "qvh")
        top = listed[:TOP_PREDICTIONS]
        by_score = top[np.argsort(-top[:, 2], kind="stable")]  # the official list.sort(key=-score): stable
        files["map.run"] += run_lines(qid, video, [(times(s, where, predictions), times(e, where, predictions))
                                                   for s, e, _ in by_score.tolist()], "qvh")
    figures: list[Figure] = []
    unreproducible: list[tuple[str, str]] = []
    for bucket in BUCKETS:
        qrels = "PREFIX.qrels" if bucket == "full" else f"PREFIX.{bucket}.qrels"
        if not files[qrels.removeprefix("PREFIX.")]:
            del files[qrels.removeprefix("PREFIX.")]
            unreproducible.append((f"{bucket} MR-*", "no ground-truth window falls in the bucket: its figures are "
                                                     "null and its qrels are not written"))
            continue
        figures += group([((bucket, "MR-mAP", str(t)), f"ap_interp_tioubest{t:g}") for t in THRESHOLDS],
                         [f"tiou-best:{t}" for t in THRESHOLDS], "ap_interp", qrels, "PREFIX.map.run")
        # R1: the first listed window against the truth window of highest union-form IoU (``best``); R5 (segeval's
        # addition): any of the first 5 against any window
        figures += group([((bucket, "MR-R1", str(t)), f"success_1_tiou{t:g}zb") for t in THRESHOLDS],
                         [f"tiou:{t:g}:empty0:best" for t in THRESHOLDS], "Success@1", qrels, "PREFIX.run")
        figures += group([((bucket, "MR-R5", str(t)), f"success_5_tiou{t:g}z") for t in R5_THRESHOLDS],
                         [f"tiou:{t:g}:empty0" for t in R5_THRESHOLDS], "Success@5", qrels, "PREFIX.run")
    notes = times.notes()
    if dropped[0]:
        notes.append(f"{plural(dropped[0], 'repeated ground-truth window')} written once (qrels judge a segment "
                     "once): the MR-mAP of those queries counts the window once, the official twice")
    unreproducible += [
        ("MR-mAP average", "the mean of the 10 MR-mAP values (numpy's mean of the per-threshold means), not one "
                           "eval measure"),
        ("MR-mIoU", "the mean IoU of each query's first prediction is not a measure of relevance labels"),
        ("HL-mAP, HL-Hit1", "highlight detection scores clips by saliency, not retrieved segments")]
    return Lines(files, figures, unreproducible, notes)


# --- Ego4D NLQ -------------------------------------------------------------------------------------------------

def ego4d_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """Ego4D NLQ: the listed predictions; Rank@k mIoU@t is success@k with a strict IoU (0/0 never a hit)."""
    from segeval.analysis.moments import ego4d_nlq as E

    gt = E.read_truth(truth)
    predicted = E.read_predictions(predictions, gt)
    times = Times()
    qrels: list[str] = []
    run: list[str] = []
    reversed_windows = 0
    for key, window in gt.items():
        clip = token(key[0], "clip_uid", truth)
        qid = f"{clip}/{token(key[1], 'annotation_uid', truth)}/{key[2]}"
        where = f"query {qid}"
        s, e = _reversed(*window)
        reversed_windows += (s, e) != window
        qrels.append(f"{qid} Q0 {clip} {times(s, where, truth)} {times(e, where, truth)} 1")
        windows = []
        for ps, pe in predicted.get(key, np.zeros((0, 2))).tolist():
            w = _reversed(ps, pe)
            reversed_windows += w != (ps, pe)
            windows.append((times(w[0], where, predictions), times(w[1], where, predictions)))
        run += run_lines(qid, clip, windows, "ego4d")
    thresholds = options.thresholds or E.THRESHOLDS
    top_k = options.top_k or E.TOP_K
    ks = ",".join(map(str, top_k))
    figures = group([((f"Rank@{k} mIoU@{t}",), f"success_{k}_tiou{t:g}sz") for k in top_k for t in thresholds],
                    [f"tiou:{t:g}:strict:empty0" for t in thresholds], f"Success@{ks}", "PREFIX.qrels", "PREFIX.run")
    notes = times.notes()
    if reversed_windows:
        notes.append(f"{plural(reversed_windows, 'window')} with end < start written as the zero-length window at "
                     "its start (never a hit either way)")
    return Lines({"qrels": qrels, "run": run}, figures,
                 [("mIoU", "the mean IoU of each query's first prediction is not a measure of relevance labels")],
                 notes)


# --- DiDeMo ----------------------------------------------------------------------------------------------------

#: a DiDeMo query's rank is the mean of its 3 best annotator ranks
AGREE = 3
UNIT_SECONDS = 5


def didemo_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """DiDeMo: units [s, e] as the seconds [5 s, 5 (e + 1)] (then the plain IoU is the official +1 one); a
    moment's grade is the number of annotators who chose it plus 3 - min(3, annotators), so that rank@1
    (3 annotators, or all when fewer, on the first moment) is success@1 at relevance level 3."""
    from segeval.analysis.moments import didemo as D

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
    notes = [] if named else ["the ground truth's items have no distinct annotation_id: queries are named by "
                              "their position, 0 for the first item"]
    return Lines({"qrels": qrels, "run": run},
                 group([(("rank@1",), "success_1")], ["exact"], "Success@1", "PREFIX.qrels", "PREFIX.run",
                       percent=False, level=AGREE),
                 [("rank@5", "the mean of a query's 3 best annotator ranks is not a measure of one ranked list's "
                             "relevance labels"),
                  ("miou", "the mean of the 3 best IoUs of the first moment is not a measure of relevance labels")],
                 notes)


def tvr_figures(options: MrOptions, tasks: tuple[str, ...] = ("VCMR", "SVMR", "VR")) -> Lines:
    """TVR's figures of ``tasks`` (its lines are written by :mod:`segeval.analysis.moments.tvr.lines`)."""
    from segeval.analysis.moments.tvr.measures import THRESHOLDS, TOP_K

    thresholds = options.thresholds or THRESHOLDS
    top_k = options.top_k or TOP_K
    ks = f"Success@{','.join(map(str, top_k))}"
    figures: list[Figure] = []
    for task, run in (("VCMR", "PREFIX.run"), ("SVMR", "PREFIX.svmr.run")):
        if task in tasks:
            figures += group([((task, f"{t}-r{k}"), f"success_{k}_tiou{t:g}f") for t in thresholds for k in top_k],
                             [f"tiou:{t:g}:float32" for t in thresholds], ks, "PREFIX.qrels", run)
    if "VR" in tasks:
        figures += group([(("VR", f"r{k}"), f"success_{k}") for k in top_k], ["exact"], ks, "PREFIX.vr.qrels",
                         "PREFIX.vr.run")
    return Lines({}, figures, [("*_by_type", "the same commands over one type's queries: not written (the qrels "
                                             "of one type's queries give them)"),
                               ("desc_type_ratio", "a share of queries, not a measure")])


BUILDERS = {"recall": recall_lines, "qvhighlights": qvhighlights_lines, "ego4d-nlq": ego4d_lines,
            "didemo": didemo_lines}


SUFFIXES = {"recall": ("qrels", "run"), "ego4d-nlq": ("qrels", "run"), "didemo": ("qrels", "run"),
            "qvhighlights": ("qrels", "short.qrels", "middle.qrels", "long.qrels", "run", "map.run")}


def write(prefix: str, inputs: list[str], suffixes: tuple[str, ...], build: Callable[[], Lines]) -> list[str]:
    """Check ``PREFIX.suffix`` for each suffix (none may be an input), then write what ``build`` makes; return
    what was written, the notes, the eval command of each figure and what has none, one stderr line each."""
    from segeval.output import check_output, write_output

    paths = {suffix: Path(f"{prefix}.{suffix}") for suffix in suffixes}
    for path in paths.values():
        check_output(path, inputs)
    done = build()
    out = []
    for suffix, lines in done.files.items():
        path = write_output(paths[suffix], "".join(line + "\n" for line in lines), inputs=inputs)
        out.append(f"wrote {path}: {plural(len(lines), 'line')}")
    out += [f"note: {n}" for n in done.notes]
    commands: dict[str, list[Figure]] = {}
    for f in done.figures:
        commands.setdefault(f.command, []).append(f)
    for command, figures in commands.items():
        names = ", ".join(" ".join(f.key) + " = " + f.measure + (" x 100" if f.percent else "") for f in figures)
        out.append(f"note: {command.replace('PREFIX', shlex.quote(prefix))}  gives {names}")
    out += [f"note: {name}: no eval command: {why}" for name, why in done.unreproducible]
    return out


def write_lines(protocol: str, truth: str, predictions: str, options: MrOptions, prefix: str) -> list[str]:
    """Write ``protocol``'s lines under ``prefix`` (:func:`write`)."""
    if protocol == "tvr":
        from segeval.analysis.moments.tvr.lines import write_lines as write_tvr_lines
        from segeval.analysis.moments.tvr.reading import read

        return write_tvr_lines(read(truth, predictions), truth, predictions, prefix, options)
    return write(prefix, [truth, predictions], SUFFIXES[protocol],
                 lambda: BUILDERS[protocol](truth, predictions, options))
