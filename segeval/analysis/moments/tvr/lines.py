"""A TVR ground truth and VCMR ranking written as segeval lines, for ``segeval eval``.

``PREFIX.qrels`` holds ``desc_id Q0 vid_name start end 1`` per ground-truth moment and ``PREFIX.run``
``desc_id Q0 vid_name start end rank score tvr`` per VCMR prediction (the first 100, rank = list
position), times in seconds. Then::

    segeval eval -c --time-format seconds -a tiou:0.5 -m success.1,5,10,100 PREFIX.qrels PREFIX.run

gives the official VCMR R@k at IoU 0.5 as fractions (``-c``: a query without predictions scores 0).
The two paths differ only where the arithmetic does: the official computes IoU in float32 and
segeval's ``tiou`` adapter in float64, so at an IoU exactly on θ they may disagree in either
direction (``[85.06, 85.07]`` against ``[85.06, 85.08]``: float32 IoU 0.5 hit, float64
0.49999999999 miss); and ``tiou`` gives two equal zero-length windows IoU 1 where the official
gives 0. A reversed window (end < start), which the official scores IoU 0, is written as the
zero-length window at its start.
"""

from __future__ import annotations

from segeval.analysis.moments.lines import Times
from segeval.analysis.moments.lines import token as _token
from segeval.analysis.moments.tvr.reading import Tvr, key
from segeval.errors import InputError


def tvr_lines(data: Tvr, truth: str, predictions: str) -> tuple[list[str], list[str], list[str]]:
    """The qrels lines, the VCMR run lines and notes."""
    if "VCMR" not in data.predictions:
        raise InputError(predictions, "has no 'VCMR' ranking to write as lines (--write-lines)")
    names = {index: name for name, index in data.video2idx.items()}
    _time = Times()
    qrels: list[str] = []
    run: list[str] = []
    reversed_rows = 0
    for q in data.queries:
        qid = _token(q.desc_id, "desc_id", truth)
        if len(q.windows) > 1:
            raise InputError(truth, f"desc_id {q.desc_id} has {len(q.windows)} annotators' moments (DiDeMo-style); "
                                    "its 2-annotator rule has no line equivalent: expected one moment per item "
                                    "for --write-lines", line=q.line)
        video = _token(q.video, "vid_name", truth)
        s, e = q.windows[0]
        qrels.append(f"{qid} Q0 {video} {_time(s, f'desc_id {qid}', truth)} {_time(e, f'desc_id {qid}', truth)} 1")
        rows = data.predictions["VCMR"].get(key(q.desc_id))
        for rank, (v, ps, pe) in enumerate([] if rows is None else rows.tolist(), start=1):
            where = f"VCMR desc_id {qid} predictions[{rank - 1}]"
            if pe < ps:
                reversed_rows += 1
                pe = ps
            run.append(f"{qid} Q0 {_token(names[int(v)], 'video', predictions)} {_time(ps, where, predictions)} "
                       f"{_time(pe, where, predictions)} {rank} {101 - rank} tvr")
    notes = _time.notes()
    if reversed_rows:
        notes.append(f"{reversed_rows} VCMR windows with end < start are written as the zero-length window at "
                     "their start (IoU 0 with any non-empty moment, as the official gives them)")
    return qrels, run, notes


def write_lines(data: Tvr, truth: str, predictions: str, prefix: str) -> list[str]:
    """Write ``PREFIX.qrels`` and ``PREFIX.run`` (both checked first, neither may be an input); return what was
    written, the notes and the eval command of each VCMR figure, one line each."""
    from segeval.analysis.moments.lines import Lines, tvr_figures, write
    from segeval.analysis.moments.protocol import MrOptions

    def build() -> Lines:
        qrels, run, notes = tvr_lines(data, truth, predictions)
        done = tvr_figures(MrOptions())
        return Lines({"qrels": qrels, "run": run}, done.figures, done.unreproducible, notes)

    return write(prefix, [truth, predictions], ("qrels", "run"), build)
