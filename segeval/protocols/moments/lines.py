"""A moment-retrieval protocol's files as segeval lines, for ``segeval eval`` (``segeval mr --write-lines PREFIX``).

The files and the commands are docs/moments.md, "Lines for segeval eval".  Each builder's :class:`Lines` says,
per figure the protocol prints, the ``segeval eval`` command that gives it (:class:`Figure`: a fraction where the
protocol prints percent) or why none does; the command prints those as notes.
"""

from __future__ import annotations

import numpy as np

from segeval.core.arrays import FloatArray
from segeval.core.errors import InputError
from segeval.core.words import plural
from segeval.protocols.moments.protocol import MrOptions
from segeval.protocols.moments.qvhighlights.reading import Moments
from segeval.protocols.moments.writing import Figure, Lines, Times, group, run_lines, token, write


def _reversed(s: float, e: float) -> tuple[float, float]:
    """A window with end < start as the zero-length window at its start (IoU 0 with anything, as the official)."""
    return (s, s) if e < s else (s, e)


# --- recall (Charades-STA, ActivityNet Captions, TACoS) and QVHighlights: QVHighlights-style files ---------------


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
    from segeval.protocols.moments import recall

    m, names = _qvh_queries(truth, predictions)
    times = Times()
    dropped = [0]
    qrels: list[str] = []
    run: list[str] = []
    empty = np.zeros((0, 3))
    for q, (qid, video) in names.items():
        qrels += _qrels(qid, video, m.truth[q], times, truth, dropped)
        ranked = recall.ranked(m.predictions.get(q, empty), options.nms)
        run += run_lines(
            qid,
            video,
            [
                (times(s, f"query {qid}", predictions), times(e, f"query {qid}", predictions))
                for s, e in ranked.tolist()
            ],
            "recall",
        )
    thresholds = options.thresholds or recall.THRESHOLDS
    top_k = options.top_k or recall.TOP_K
    strict = ":strict" if (options.iou_compare or recall.COMPARE) == "gt" else ""
    ks = ",".join(map(str, top_k))
    suffix = "sz" if strict else "z"
    figures = group(
        [((f"R@{k},IoU@{t}",), f"success_{k}_tiou{t:g}{suffix}") for k in top_k for t in thresholds],
        [f"tiou:{t:g}{strict}:empty0" for t in thresholds],
        f"Success@{ks}",
        "PREFIX.qrels",
        "PREFIX.run",
    )
    notes = times.notes()
    if dropped[0]:
        notes.append(
            f"{plural(dropped[0], 'repeated ground-truth window')} written once (a query's best IoU is the same)"
        )
    return Lines(
        {"qrels": qrels, "run": run},
        figures,
        [
            (
                "mIoU",
                "the mean IoU of each query's first prediction is not a measure of a ranked list's relevance labels",
            )
        ],
        notes,
    )


def qvhighlights_lines(truth: str, predictions: str, options: MrOptions) -> Lines:
    """QVHighlights: R1 and R5 on the listed order (``PREFIX.run``), mAP on the first 10 listed by score
    (``PREFIX.map.run``), over the full ground truth and each length bucket's."""
    from segeval.protocols.moments.qvhighlights.report import BUCKETS, bucket_truths
    from segeval.protocols.moments.qvhighlights.retrieval import TOP_PREDICTIONS

    m, names = _qvh_queries(truth, predictions)
    times = Times()
    buckets = bucket_truths({q: m.truth[q] for q in names})
    dropped = [0]
    files: dict[str, list[str]] = {"qrels": [], "run": [], "map.run": []}
    for bucket in BUCKETS:
        if bucket != "full":
            files[f"{bucket}.qrels"] = []
    empty = np.zeros((0, 3))
    for q, (qid, video) in names.items():
        for bucket, windows in buckets.items():
            if q in windows:
                files["qrels" if bucket == "full" else f"{bucket}.qrels"] += _qrels(
                    qid, video, windows[q], times, truth, [0] if bucket != "full" else dropped
                )
        listed = m.predictions.get(q, empty)
        where = f"query {qid}"
        files["run"] += run_lines(
            qid,
            video,
            [(times(s, where, predictions), times(e, where, predictions)) for s, e, _ in listed.tolist()],
            "qvh",
        )
        top = listed[:TOP_PREDICTIONS]
        by_score = top[np.argsort(-top[:, 2], kind="stable")]  # the official list.sort(key=-score): stable
        files["map.run"] += run_lines(
            qid,
            video,
            [(times(s, where, predictions), times(e, where, predictions)) for s, e, _ in by_score.tolist()],
            "qvh",
        )
    figures, unreproducible = _qvh_figures(files)
    notes = times.notes()
    if dropped[0]:
        notes.append(
            f"{plural(dropped[0], 'repeated ground-truth window')} written once (qrels judge a segment "
            "once): the MR-mAP of those queries counts the window once, the official twice"
        )
    unreproducible += [
        (
            "MR-mAP average",
            "the mean of the 10 MR-mAP values (numpy's mean of the per-threshold means), not one eval measure",
        ),
        ("MR-mIoU", "the mean IoU of each query's first prediction is not a measure of relevance labels"),
        ("HL-mAP, HL-Hit1", "highlight detection scores clips by saliency, not retrieved segments"),
    ]
    return Lines(files, figures, unreproducible, notes)


def _qvh_figures(files: dict[str, list[str]]) -> tuple[list[Figure], list[tuple[str, str]]]:
    """The eval commands of each length bucket's MR figures; a bucket without a ground-truth window is
    unreproducible, and its empty qrels are dropped from ``files``."""
    from segeval.protocols.moments.qvhighlights.report import BUCKETS, R5_THRESHOLDS
    from segeval.protocols.moments.qvhighlights.retrieval import THRESHOLDS

    figures: list[Figure] = []
    unreproducible: list[tuple[str, str]] = []
    for bucket in BUCKETS:
        qrels = "PREFIX.qrels" if bucket == "full" else f"PREFIX.{bucket}.qrels"
        if not files[qrels.removeprefix("PREFIX.")]:
            del files[qrels.removeprefix("PREFIX.")]
            unreproducible.append(
                (
                    f"{bucket} MR-*",
                    "no ground-truth window falls in the bucket: its figures are null and its qrels are not written",
                )
            )
            continue
        figures += group(
            [((bucket, "MR-mAP", str(t)), f"ap_interp_tioubest{t:g}") for t in THRESHOLDS],
            [f"tiou-best:{t}" for t in THRESHOLDS],
            "ap_interp",
            qrels,
            "PREFIX.map.run",
        )
        # R1: the first listed window against the truth window of highest union-form IoU (``best``); R5 (segeval's
        # addition): any of the first 5 against any window
        figures += group(
            [((bucket, "MR-R1", str(t)), f"success_1_tiou{t:g}zb") for t in THRESHOLDS],
            [f"tiou:{t:g}:empty0:best" for t in THRESHOLDS],
            "Success@1",
            qrels,
            "PREFIX.run",
        )
        figures += group(
            [((bucket, "MR-R5", str(t)), f"success_5_tiou{t:g}z") for t in R5_THRESHOLDS],
            [f"tiou:{t:g}:empty0" for t in R5_THRESHOLDS],
            "Success@5",
            qrels,
            "PREFIX.run",
        )
    return figures, unreproducible


# --- Ego4D NLQ -------------------------------------------------------------------------------------------------


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
    figures = group(
        [((f"Rank@{k} mIoU@{t}",), f"success_{k}_tiou{t:g}sz") for k in top_k for t in thresholds],
        [f"tiou:{t:g}:strict:empty0" for t in thresholds],
        f"Success@{ks}",
        "PREFIX.qrels",
        "PREFIX.run",
    )
    notes = times.notes()
    if reversed_windows:
        notes.append(
            f"{plural(reversed_windows, 'window')} with end < start written as the zero-length window at "
            "its start (never a hit either way)"
        )
    return Lines(
        {"qrels": qrels, "run": run},
        figures,
        [("mIoU", "the mean IoU of each query's first prediction is not a measure of relevance labels")],
        notes,
    )


# --- DiDeMo ----------------------------------------------------------------------------------------------------

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
    notes = (
        []
        if named
        else [
            "the ground truth's items have no distinct annotation_id: queries are named by "
            "their position, 0 for the first item"
        ]
    )
    return Lines(
        {"qrels": qrels, "run": run},
        group(
            [(("rank@1",), "success_1")],
            ["exact"],
            "Success@1",
            "PREFIX.qrels",
            "PREFIX.run",
            percent=False,
            level=AGREE,
        ),
        [
            (
                "rank@5",
                "the mean of a query's 3 best annotator ranks is not a measure of one ranked list's relevance labels",
            ),
            ("miou", "the mean of the 3 best IoUs of the first moment is not a measure of relevance labels"),
        ],
        notes,
    )


BUILDERS = {
    "recall": recall_lines,
    "qvhighlights": qvhighlights_lines,
    "ego4d-nlq": ego4d_lines,
    "didemo": didemo_lines,
}


SUFFIXES = {
    "recall": ("qrels", "run"),
    "ego4d-nlq": ("qrels", "run"),
    "didemo": ("qrels", "run"),
    "qvhighlights": ("qrels", "short.qrels", "middle.qrels", "long.qrels", "run", "map.run"),
}


def write_lines(protocol: str, truth: str, predictions: str, options: MrOptions, prefix: str) -> list[str]:
    """Write ``protocol``'s lines under ``prefix`` (:func:`write`)."""
    if protocol == "tvr":
        from segeval.protocols.moments.tvr.lines import write_lines as write_tvr_lines
        from segeval.protocols.moments.tvr.reading import read

        return write_tvr_lines(read(truth, predictions), truth, predictions, prefix, options)
    return write(
        prefix, [truth, predictions], SUFFIXES[protocol], lambda: BUILDERS[protocol](truth, predictions, options)
    )
