"""The dynamic recall curve of one query, as in Typke et al.'s Figure 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from segeval.adapters.base import Adapted
from segeval.figures import check_output, label, pyplot, save
from segeval.measures.adr import adr_curve, ground_truth


def plot_adr(a: Adapted, query: str, output: str | Path, *, extra: int = 10) -> Path:
    """Draw retrieved ground-truth items (left axis) and dynamic recall (right axis) per position."""
    out = check_output(output)
    groups, sizes, _ = ground_truth(a)
    n = int(sizes.sum())
    k = n + extra
    curve = adr_curve(a, k)
    found = np.cumsum(groups[:k] >= 0)
    found = np.concatenate([found, np.full(k - len(found), found[-1] if len(found) else 0)])
    positions = np.arange(1, k + 1)
    fig, left = pyplot().subplots(figsize=(8, 4.5))
    left.step(positions, found, where="post", color="tab:blue", label="retrieved ground-truth items")
    left.set_xlabel("position in the result list")
    left.set_ylabel("retrieved ground-truth items", color="tab:blue")
    left.set_ylim(0, max(int(found.max(initial=0)), 1) + 0.5)
    left.yaxis.get_major_locator().set_params(integer=True)
    right = left.twinx()
    right.plot(positions, curve, color="tab:red", label="dynamic recall")
    right.set_ylim(0, 1.05)
    right.set_ylabel("dynamic recall", color="tab:red")
    left.axvline(n, color="grey", linestyle=":", linewidth=1)
    adr = float(curve[:n].mean()) if n else 0.0
    left.set_title(f"query {label(query)}: ADR = {adr:.4f} (ground truth ends at {n})")
    fig.tight_layout()
    save(fig, out)
    return out
