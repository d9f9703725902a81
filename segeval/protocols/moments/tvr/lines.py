"""A TVR ground truth and submission written as segeval lines, for ``segeval eval``.

The files, the ``segeval eval`` commands that give the VCMR, SVMR and VR figures (:func:`tvr_figures`) and why
``tiou:θ:float32`` is the official arithmetic are docs/moments.md, "Corpus runs as segeval lines".
"""

from __future__ import annotations

from segeval.core.errors import InputError
from segeval.protocols.moments.protocol import MrOptions
from segeval.protocols.moments.tvr.measures import THRESHOLDS, TOP_K
from segeval.protocols.moments.tvr.reading import Tvr, key
from segeval.protocols.moments.writing import Figure, Lines, Times, group, write
from segeval.protocols.moments.writing import token as _token

#: the files of each task: VCMR's moments (the qrels, the run), SVMR's moments of the right video, VR's videos
SUFFIXES = {"VCMR": ("qrels", "run"), "SVMR": ("svmr.run",), "VR": ("vr.qrels", "vr.run")}


def suffixes(data: Tvr, predictions: str) -> tuple[str, ...]:
    """The files written for ``data``'s tasks (VCMR must be there; SVMR and VR when submitted)."""
    if "VCMR" not in data.predictions:
        raise InputError(predictions, "has no 'VCMR' ranking to write as lines (--write-lines)")
    return tuple(s for task, names in SUFFIXES.items() if task in data.predictions for s in names)


def tvr_lines(data: Tvr, truth: str, predictions: str) -> tuple[dict[str, list[str]], list[str]]:
    """The lines of each file (:data:`SUFFIXES`) and notes.  SVMR keeps the predictions of the query's own video
    (in list order, as the official counts its rank); VR writes each video as the span 0-1 s, for ``-a exact``."""
    names = {index: name for name, index in data.video2idx.items()}
    _time = Times()
    files: dict[str, list[str]] = {s: [] for s in suffixes(data, predictions)}
    reversed_rows = 0
    for q in data.queries:
        qid = _token(q.desc_id, "desc_id", truth)
        if len(q.windows) > 1:
            raise InputError(
                truth,
                f"desc_id {q.desc_id} has {len(q.windows)} annotators' moments (DiDeMo-style); "
                "its 2-annotator rule has no line equivalent: expected one moment per item "
                "for --write-lines",
                line=q.line,
            )
        video = _token(q.video, "vid_name", truth)
        s, e = q.windows[0]
        files["qrels"].append(
            f"{qid} Q0 {video} {_time(s, f'desc_id {qid}', truth)} {_time(e, f'desc_id {qid}', truth)} 1"
        )
        for task in ("VCMR", "SVMR"):
            if task not in data.predictions:
                continue
            rows = data.predictions[task].get(key(q.desc_id))
            listed = [] if rows is None else rows.tolist()
            if task == "SVMR":  # video indices are below 2**24: float32 and int comparisons agree
                listed = [r for r in listed if int(r[0]) == data.video2idx[q.video]]
            lines = files["run" if task == "VCMR" else "svmr.run"]
            for rank, (v, ps, pe) in enumerate(listed, start=1):
                where = f"{task} desc_id {qid} predictions[{rank - 1}]"
                if pe < ps:
                    reversed_rows += 1
                    pe = ps
                lines.append(
                    f"{qid} Q0 {_token(names[int(v)], 'video', predictions)} {_time(ps, where, predictions)} "
                    f"{_time(pe, where, predictions)} {rank} {101 - rank} tvr"
                )
        if "VR" in data.predictions:
            files["vr.qrels"].append(f"{qid} Q0 {video} 0 1 1")
            rows = data.predictions["VR"].get(key(q.desc_id))
            files["vr.run"] += [
                f"{qid} Q0 {_token(names[int(v)], 'video', predictions)} 0 1 {rank} {101 - rank} tvr"
                for rank, v in enumerate([] if rows is None else rows[:, 0].tolist(), start=1)
            ]
    notes = _time.notes()
    if reversed_rows:
        notes.append(
            f"{reversed_rows} VCMR and SVMR windows with end < start are written as the zero-length window "
            "at their start (IoU 0 with any non-empty moment, as the official gives them)"
        )
    return files, notes


def write_lines(data: Tvr, truth: str, predictions: str, prefix: str, options: MrOptions | None = None) -> list[str]:
    """Write the files of :func:`tvr_lines` under ``PREFIX`` (all checked first, none may be an input); return
    what was written, the notes and the eval command of each figure, one line each."""

    def build() -> Lines:
        files, notes = tvr_lines(data, truth, predictions)
        done = tvr_figures(options or MrOptions(), tuple(data.predictions))
        return Lines(files, done.figures, done.unreproducible, notes)

    return write(prefix, [truth, predictions], suffixes(data, predictions), build)


def tvr_figures(options: MrOptions, tasks: tuple[str, ...] = ("VCMR", "SVMR", "VR")) -> Lines:
    """The eval command of each TVR figure of ``tasks`` on the lines of :func:`tvr_lines`, and what has none."""
    thresholds = options.thresholds or THRESHOLDS
    top_k = options.top_k or TOP_K
    ks = f"Success@{','.join(map(str, top_k))}"
    figures: list[Figure] = []
    for task, run in (("VCMR", "PREFIX.run"), ("SVMR", "PREFIX.svmr.run")):
        if task in tasks:
            figures += group(
                [((task, f"{t}-r{k}"), f"success_{k}_tiou{t:g}f") for t in thresholds for k in top_k],
                [f"tiou:{t:g}:float32" for t in thresholds],
                ks,
                "PREFIX.qrels",
                run,
            )
    if "VR" in tasks:
        figures += group(
            [(("VR", f"r{k}"), f"success_{k}") for k in top_k], ["exact"], ks, "PREFIX.vr.qrels", "PREFIX.vr.run"
        )
    return Lines(
        {},
        figures,
        [
            (
                "*_by_type",
                "the same commands over one type's queries: not written (the qrels of one type's queries give them)",
            ),
            ("desc_type_ratio", "a share of queries, not a measure"),
        ],
    )
