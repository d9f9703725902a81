"""``segeval show``: one query's ground truth and results on a timeline per video, as adapters label them."""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.adapters.base import Adapted, Adapter, Label
from segeval.core.arrays import FloatArray
from segeval.core.errors import ParameterError
from segeval.core.prepared import Prepared
from segeval.figures import label, pyplot, save
from segeval.readers.formats import format_time

COLOURS = {
    Label.RELEVANT: "#2e7d32",
    Label.NONRELEVANT: "#c62828",
    Label.RELEVANT_SEEN: "#9ccc65",
    Label.NONRELEVANT_SEEN: "#ef9a9a",
    Label.UNJUDGED: "#9e9e9e",
}
#: ground-truth segments: relevant blue, non-relevant amber (no grey: unjudged results are grey)
TRUTH = {True: "#1565c0", False: "#ffb300"}
#: result labels closer than this share of the time axis to the previous label in their row are left out
LABEL_GAP = 0.025


def _colour(mark: str) -> str:
    return COLOURS.get(Label(ord(mark)), "#616161") if mark and mark in "10sS-" else "#616161"


def shown_labels(starts: list[float], t_max: float) -> list[bool]:
    """Which results of one timeline row get their rank label (at least :data:`LABEL_GAP` after the last one)."""
    shown = [False] * len(starts)
    last = -np.inf
    for i in sorted(range(len(starts)), key=starts.__getitem__):
        if starts[i] - last >= LABEL_GAP * t_max:
            shown[i], last = True, starts[i]
    return shown


@dataclass(frozen=True)
class Result:
    """One ranked result of the query, with each adapter's labels."""

    rank: int
    video: str
    start: float
    end: float
    labels: dict[str, str]


def results(data: Prepared, adapted: dict[str, Adapted]) -> list[Result]:
    """The query's results (data holds one query) with their labels per adapter."""
    run = data.run
    items = data.items[run["icode"].to_numpy()]
    starts, ends = run["start"].to_numpy(dtype=np.float64), run["end"].to_numpy(dtype=np.float64)
    out = []
    for i in range(len(run)):
        labels = {
            name: "".join(chr(int(a.labels[u])) for u in np.flatnonzero(a.source == i)) or "(no unit)"
            for name, a in adapted.items()
        }
        out.append(Result(i + 1, str(items[i]), float(starts[i]), float(ends[i]), labels))
    return out


@dataclass(frozen=True)
class Truth:
    """The query's qrels segments as plain arrays."""

    video: npt.NDArray[Any]
    start: FloatArray
    end: FloatArray
    rel: npt.NDArray[Any]
    line: npt.NDArray[Any]


def truth(data: Prepared) -> Truth:
    q = data.qrels
    start, end = (q[c].to_numpy(dtype=np.float64) for c in ("start", "end"))
    return Truth(data.items[q["icode"].to_numpy()], start, end, q["rel"].to_numpy(), q["line"].to_numpy())


def explain(
    data: Prepared, adapted: dict[str, Adapted], adapters: dict[str, Adapter], time_format: str = "seconds"
) -> str:
    """Per result and adapter: its label and the qrels lines that decided each unit, and why."""
    t = truth(data)
    when = partial(format_time, time_format=time_format)
    rows = []
    for r in results(data, adapted):
        for name, mark in r.labels.items():
            a = adapted[name]
            parts = []
            for u in np.flatnonzero(a.source == r.rank - 1).tolist():
                parts.append(
                    ", ".join(
                        reason.why
                        if reason.row < 0
                        else f"qrels line {t.line[reason.row]} ({t.video[reason.row]} {when(t.start[reason.row])}-"
                        f"{when(t.end[reason.row])} rel {t.rel[reason.row]})"
                        + (f": {reason.why}" if reason.why else "")
                        for reason in adapters[name].explain(data, a, int(u))
                    )
                )
            why = "; ".join(parts) or "no unit: it covers no bin, or only bins ranked earlier"
            rows.append(f"rank {r.rank}\t{r.video} {when(r.start)}-{when(r.end)}\t{name}\t{mark}\t{why}")
    return "\n".join(rows) + "\n"


def _t(x: float) -> str:
    return f"{x:g}"  # seconds, as the figures' time axis


def _layout(data: Prepared, adapted: dict[str, Adapted]) -> tuple[list[Result], Truth, list[str], float]:
    """The results, the ground truth, the videos (sorted) and the end of the time axis of a timeline."""
    res, t = results(data, adapted), truth(data)
    videos = sorted({r.video for r in res} | set(t.video.tolist()))
    return res, t, videos, max([r.end for r in res] + t.end.tolist() + [1.0])


def _svg(data: Prepared, adapted: dict[str, Adapted], query: str) -> str:
    res, t, videos, t_max = _layout(data, adapted)
    names = list(adapted)
    width, left, row_h = 900, 170, 16
    rows_per_video = 1 + len(names)
    height = 30 + len(videos) * (rows_per_video * row_h + 14)

    def x(seconds: float) -> float:
        return float(left + (width - left - 10) * seconds / t_max)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="timeline of query {html.escape(label(query))}">',
        f'<text x="4" y="16" font-size="13">query {html.escape(label(query))}: ground truth and results</text>',
    ]
    y = 30
    for video in videos:
        parts.append(f'<text class="video" x="4" y="{y + 11}" font-size="11">{html.escape(label(video))}</text>')
        for i in np.flatnonzero(t.video == video):
            x0, x1 = x(float(t.start[i])), x(float(t.end[i]))
            fill = TRUTH[bool(t.rel[i] > 0)]
            parts.append(
                f'<rect class="truth" x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 2):.1f}" '
                f'height="{row_h - 4}" fill="{fill}"><title>qrels line {t.line[i]}: '
                f"{_t(t.start[i])}-{_t(t.end[i])} rel {t.rel[i]}</title></rect>"
            )
        for k, name in enumerate(names):
            yy = y + (k + 1) * row_h
            parts.append(
                f'<text x="{left - 4}" y="{yy + 10}" font-size="10" text-anchor="end">{html.escape(name)}</text>'
            )
            row = [r for r in res if r.video == video]
            for r, labelled in zip(row, shown_labels([r.start for r in row], t_max), strict=True):
                x0, x1 = x(r.start), x(r.end)
                parts.append(
                    f'<rect class="result" x="{x0:.1f}" y="{yy}" width="{max(x1 - x0, 2):.1f}" '
                    f'height="{row_h - 4}" fill="{_colour(r.labels[name][:1])}"><title>rank {r.rank} '
                    f"{_t(r.start)}-{_t(r.end)}: {html.escape(r.labels[name])}</title></rect>"
                )
                if labelled:
                    parts.append(f'<text x="{x0:.1f}" y="{yy + 10}" font-size="9">{r.rank}</text>')
        y += rows_per_video * row_h + 14
    parts.append("</svg>")
    return "\n".join(parts)


def render(data: Prepared, adapted: dict[str, Adapted], query: str, output: str | Path) -> Path:
    """Write the timeline as .html (inline SVG and a table), .svg or .png (through the one output writer)."""
    from segeval.reports.output import write_output

    out = Path(output)
    suffix = out.suffix.lower()
    if suffix not in (".html", ".svg", ".png"):
        raise ParameterError(f"The 'output' parameter must end in .png, .svg or .html. Got {str(output)!r} instead.")
    svg = _svg(data, adapted, query)
    if suffix == ".svg":
        write_output(out, svg)
    elif suffix == ".html":
        names = list(adapted)
        head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
        body = "".join(
            f"<tr><td>{r.rank}</td><td>{html.escape(label(r.video))}</td><td>{_t(r.start)}-{_t(r.end)}</td>"
            + "".join(f'<td class="label">{html.escape(r.labels[n])}</td>' for n in names)
            + "</tr>"
            for r in results(data, adapted)
        )
        title = html.escape(label(query))
        page = (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>segeval show {title}</title></head>'
            f"<body><h1>Query {title}</h1>{svg}<table><thead><tr><th>rank</th><th>video</th><th>span (s)</th>"
            f"{head}</tr></thead><tbody>{body}</tbody></table></body></html>\n"
        )
        write_output(out, page)
    else:
        _png(data, adapted, query, out)
    return out


def _png(data: Prepared, adapted: dict[str, Adapted], query: str, out: Path) -> None:
    res, t, videos, t_max = _layout(data, adapted)
    names = list(adapted)
    fig, ax = pyplot().subplots(figsize=(10, 0.5 + 0.35 * len(videos) * (1 + len(names))))
    ticks, tick_labels = [], []
    y = 0.0
    for video in videos:
        for i in np.flatnonzero(t.video == video):
            ax.broken_barh([(t.start[i], max(t.end[i] - t.start[i], 0.5))], (y, 0.8), color=TRUTH[bool(t.rel[i] > 0)])
        ticks.append(y + 0.4)
        tick_labels.append(f"{label(video)} qrels")
        for name in names:
            y += 1
            row = [r for r in res if r.video == video]
            for r, labelled in zip(row, shown_labels([r.start for r in row], t_max), strict=True):
                ax.broken_barh([(r.start, max(r.end - r.start, 0.5))], (y, 0.8), color=_colour(r.labels[name][:1]))
                if labelled:
                    ax.text(r.start, y + 0.4, str(r.rank), fontsize=7, va="center")
            ticks.append(y + 0.4)
            tick_labels.append(name)
        y += 1.5
    ax.set_yticks(ticks)
    ax.set_yticklabels(tick_labels, fontsize=8)
    ax.invert_yaxis()
    from matplotlib.patches import Patch

    legend = [
        ("relevant (ground truth)", TRUTH[True]),
        ("non-relevant (ground truth)", TRUTH[False]),
        ("1 relevant", COLOURS[Label.RELEVANT]),
        ("0 non-relevant", COLOURS[Label.NONRELEVANT]),
        ("s seen", COLOURS[Label.RELEVANT_SEEN]),
        ("- unjudged", COLOURS[Label.UNJUDGED]),
    ]
    handles = [Patch(color=c, label=t) for t, c in legend]
    ax.legend(handles=handles, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=6, frameon=False)
    ax.set_xlabel("seconds (ranks of crowded results left out: --explain lists every one)")
    ax.set_title(f"query {label(query)}", pad=22)
    fig.tight_layout()
    save(fig, out)


def named(adapters: list[Adapter]) -> dict[str, Adapter]:
    """The adapters by display name: their spec (``tiou:0.5``), ``#2``, ``#3`` ... for a repeated one."""
    out: dict[str, Adapter] = {}
    for a in adapters:
        name, k = a.spec, 1
        while name in out:
            k += 1
            name = f"{a.spec}#{k}"
        out[name] = a
    return out


def adapt_one(data: Prepared, adapters: dict[str, Adapter]) -> dict[str, Adapted]:
    """Each adapter's labels for the single query in ``data``, by display name."""
    out: dict[str, Adapted] = {}
    for name, a in adapters.items():
        (out[name],) = a.adapt(data)
    return out
