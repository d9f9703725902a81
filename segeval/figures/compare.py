"""Comparison figures: interpolated precision-recall curves, per-query differences, score distributions."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from segeval.figures import label, pyplot, run_style, save

LEVELS = [i / 10 for i in range(11)]
#: a difference chart past this many queries draws a curve instead of a labelled bar per query
LABELLED_QUERIES = 60
#: the most points of that curve
CURVE_POINTS = 400


def _wrap(text: str, width: int) -> str:
    """``text`` broken into at most four lines of at most ``width`` characters."""
    text = label(text, 4 * width)
    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or text


def _footnotes(fig: Any, notes: Sequence[str], width_in: float) -> float:
    """Write the notes under the figure; the fraction of its height they take."""
    if not notes:
        return 0.0
    text = "\n".join(_wrap("note: " + n.removeprefix("note: "), int(width_in * 14)) for n in notes)
    lines = text.count("\n") + 1
    fig.set_figheight(fig.get_figheight() + 0.14 * lines)
    fig.text(0.01, 0.01, text, fontsize=6.5, va="bottom", ha="left", color="#555555")
    return float((0.14 * lines + 0.05) / fig.get_figheight())


def pr_curves(
    curves: Mapping[str, Sequence[float]], output: str | Path | None = None, notes: Sequence[str] = ()
) -> str:
    """11-point interpolated precision-recall curves, one per run (mean over queries)."""
    fig, ax = pyplot().subplots(figsize=(6, 4))
    for k, (name, values) in enumerate(curves.items()):
        color, line, marker = run_style(k)
        ax.plot(LEVELS, values, color=color, linestyle=line, marker=marker, markersize=3, label=label(name))
    ax.set(xlabel="recall", ylabel="interpolated precision", xlim=(0, 1), ylim=(0, 1.02))
    ax.set_title("Interpolated precision-recall (11 points)")
    ax.legend([_wrap(n, 60) for n in curves], fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.17))
    fig.set_figheight(4 + 0.18 * sum(_wrap(n, 60).count("\n") + 1 for n in curves))
    fig.tight_layout(rect=(0, _footnotes(fig, notes, 6), 1, 1))
    return save(fig, output)


def difference_bars(
    queries: Sequence[str],
    a: Mapping[str, Sequence[float]],
    b: Mapping[str, Sequence[float]],
    names: tuple[str, str],
    output: str | Path | None = None,
    notes: Sequence[str] = (),
) -> str:
    """Per-query difference b - a of each measure, sorted: a bar per query, or one curve past many."""
    labelled = len(queries) <= LABELLED_QUERIES
    width = min(max(6.0, len(queries) * 0.18), 12.0) if labelled else 8.0
    fig, axes = pyplot().subplots(len(a), 1, figsize=(width, 4 * len(a)), squeeze=False)
    for ax, measure in zip(axes[:, 0], a, strict=True):
        d = np.asarray(b[measure], dtype=float) - np.asarray(a[measure], dtype=float)
        order = np.argsort(-d, kind="stable")
        if labelled:
            ax.bar(range(len(d)), d[order], color=np.where(d[order] >= 0, "#2e7d32", "#c62828"))
            ax.set_xticks(range(len(d)))
            ax.set_xticklabels([label(queries[i], 40) for i in order], rotation=90, fontsize=7)
            ax.set(xlim=(-0.6, len(d) - 0.4), xlabel="query (sorted by difference)")
        else:
            ranks = np.unique(np.linspace(0, len(d) - 1, CURVE_POINTS).round().astype(int))
            y = d[order][ranks]
            for where, colour in ((y >= 0, "#2e7d32"), (y < 0, "#c62828")):
                ax.fill_between(ranks + 1, y, where=where, step="mid", color=colour, linewidth=0)
            ax.set(xlim=(0.5, len(d) + 0.5), xlabel=f"query rank by difference (1 to {len(d)})")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_ylabel(f"{measure} difference")
        title = f"Per-query {measure}: {label(names[1])} minus {label(names[0])}"
        ax.set_title(_wrap(title, int(width * 11)), fontsize=9)
    fig.tight_layout(rect=(0, _footnotes(fig, notes, width), 1, 1))
    return save(fig, output)


def extremes(queries: Sequence[str], a: Sequence[float], b: Sequence[float], k: int = 5) -> str:
    """How many queries ``b`` is above, below and equal to ``a`` on, and the ``k`` largest differences each way."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    order = np.argsort(-d, kind="stable")
    up, down = [i for i in order[:k] if d[i] > 0], [i for i in np.argsort(d, kind="stable")[:k] if d[i] < 0]

    def listed(rows: Sequence[int]) -> str:
        return ", ".join(f"{label(queries[i], 40)} ({d[i]:+.4f})" for i in rows) or "none"

    return (
        f"above on {int((d > 0).sum())}, below on {int((d < 0).sum())}, equal on {int((d == 0).sum())} "
        f"queries; largest gains: {listed(up)}; largest losses: {listed(down)}"
    )


def distributions(
    values: Mapping[str, Mapping[str, Sequence[float]]], output: str | Path | None = None, notes: Sequence[str] = ()
) -> str:
    """Box plots of per-query scores (measure -> run -> values), one panel per measure, one box per run."""
    runs = list(next(iter(values.values())))
    labels = [_wrap(n, 32) for n in runs]
    height = max(2.5, 1.2 + sum(0.3 + 0.15 * label.count("\n") for label in labels))
    fig, axes = pyplot().subplots(len(values), 1, figsize=(6.5, height * len(values)), squeeze=False)
    for ax, (measure, per_run) in zip(axes[:, 0], values.items(), strict=True):
        ax.boxplot([per_run[n] for n in runs], tick_labels=labels, orientation="horizontal")
        ax.invert_yaxis()  # the first run on top
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel(measure)
        ax.set_title(f"Per-query {measure}", fontsize=10)
    fig.tight_layout(rect=(0, _footnotes(fig, notes, 6.5), 1, 1))
    return save(fig, output)


def incompleteness(table: object, output: str | Path | None = None) -> str:
    """The paper's Figure 1: mean score (a) and Kendall's tau (b) against the fraction of qrels kept."""
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(9, 3.6))
    for measure, rows in table.groupby("measure", sort=False):  # type: ignore[attr-defined]
        rows = rows.sort_values("fraction")
        left.plot(rows["fraction"] * 100, rows["mean_score"], marker="o", markersize=3, label=measure)
        right.plot(rows["fraction"] * 100, rows["kendall_tau"], marker="o", markersize=3, label=measure)
    left.set_title("(a) mean score")
    right.set_title("(b) Kendall's tau with the full qrels")
    for ax in (left, right):
        ax.set_xlabel("size of the qrels (% of the original)")
        ax.legend(fontsize=7)
    right.axhline(0.9, color="grey", linewidth=0.5, linestyle="--")
    fig.tight_layout()
    return save(fig, output)
