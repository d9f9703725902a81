"""Comparison figures: interpolated precision-recall curves, per-query differences, score distributions."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from segeval.viz import _pyplot

LEVELS = [i / 10 for i in range(11)]


def _save(fig: object, output: str | Path | None) -> str:
    """Write the figure to ``output`` (.png/.svg) or return it as SVG text."""
    plt = _pyplot()
    if output is None:
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg")  # type: ignore[attr-defined]
        plt.close(fig)
        text = buffer.getvalue()
        return text[text.index("<svg"):]
    fig.savefig(output)  # type: ignore[attr-defined]
    plt.close(fig)
    return str(output)


def pr_curves(curves: Mapping[str, Sequence[float]], output: str | Path | None = None) -> str:
    """11-point interpolated precision-recall curves, one per run (mean over queries)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in curves.items():
        ax.plot(LEVELS, values, marker="o", markersize=3, label=name)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title("Interpolated precision-recall (11 points)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, output)


def difference_bars(queries: Sequence[str], a: Sequence[float], b: Sequence[float], names: tuple[str, str],
                    measure: str, output: str | Path | None = None) -> str:
    """Per-query difference b - a of one measure, sorted (the textbook's precision histogram)."""
    plt = _pyplot()
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    order = np.argsort(-d, kind="stable")
    fig, ax = plt.subplots(figsize=(max(6, len(d) * 0.25), 4))
    ax.bar(range(len(d)), d[order], color=np.where(d[order] >= 0, "#2e7d32", "#c62828"))
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(d)))
    ax.set_xticklabels([queries[i] for i in order], rotation=90, fontsize=7)
    ax.set_ylabel(f"{measure}: {names[1]} - {names[0]}")
    ax.set_title(f"Per-query {measure} difference")
    fig.tight_layout()
    return _save(fig, output)


def distributions(values: Mapping[str, Sequence[float]], measure: str, output: str | Path | None = None) -> str:
    """Box plots of per-query scores, one per run."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.boxplot(list(values.values()), tick_labels=list(values))
    ax.set_ylabel(measure)
    ax.set_title(f"Per-query {measure}")
    fig.tight_layout()
    return _save(fig, output)


def incompleteness(table: object, output: str | Path | None = None) -> str:
    """The paper's Figure 1: mean score (a) and Kendall's tau (b) against the fraction of qrels kept."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
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
    return _save(fig, output)
