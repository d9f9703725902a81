"""KWSEval's text reports (F4DE AutoTable layout, KWSEval's number formats) and their json/csv forms."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from segeval.protocols.speech.twv import Operating, TwvResult

GAP = 2
FA_FORMAT, MISS_FORMAT, TWV_FORMAT = "%6.5f", "%6.3f", "%6.4f"
#: a term's counts: their names in the json and csv forms, and their columns (and totals) in KWSEval's tables
COUNTS = {"n_target": "#Targ", "correct": "#Corr", "false_alarms": "#FA", "misses": "#Miss"}


def perl_number(value: float) -> str:
    """A number as Perl prints it (15 significant digits)."""
    return f"{value:.15g}"


def shown(fmt: str, value: float | str | None) -> str:
    """F4DE's ``_PN``: NA for undefined, a non-numeric text as is, else the format."""
    if value is None:
        return "NA"
    if isinstance(value, str) and not re.match(r"[-\d.]+", value):
        return value
    return fmt % float(value)


def _shares(residue: int, n: int) -> list[int]:
    """AutoTable's spread of ``residue`` columns over ``n`` cells: equal integer shares, the rest to the last."""
    per = int(residue / n)
    return [per] * (n - 1) + [residue - (n - 1) * per]


def _center(text: str, width: int) -> str:
    left = int((width - len(text)) / 2)
    return " " * left + text + " " * (width - len(text) - left)


def render_table(
    columns: Sequence[tuple[str, ...]],
    rows: Sequence[tuple[tuple[str, ...], dict[tuple[str, ...], str]]],
    *,
    row_labels: bool,
) -> str:
    """An F4DE AutoTable of two-level columns as ``renderTxtTable(2)`` prints it."""
    data_width: dict[tuple[str, ...], int] = {}
    for _, cells in rows:
        for column, value in cells.items():
            data_width[column] = max(data_width.get(column, 0), len(value))
    groups: list[tuple[str, list[tuple[str, ...]]]] = []
    for column in columns:
        if not groups or groups[-1][0] != column[0]:
            groups.append((column[0], []))
        groups[-1][1].append(column)
    top: list[tuple[str, int]] = []
    leaves: list[tuple[tuple[str, ...], int]] = []
    for group, members in groups:  # each column as wide as its label or data, widened to its group's label
        widths = [GAP * 2 + max(len(c[1]), data_width.get(c, 0)) for c in members]
        total, need = sum(widths) + len(widths) - 1, len(group) + GAP * 2
        if need > total:
            widths = [w + extra for w, extra in zip(widths, _shares(need - total, len(widths)), strict=True)]
        top.append((group, max(total, need)))
        leaves += zip(members, widths, strict=True)
    label_widths = [max(len(label[i]) for label, _ in rows) for i in range(len(rows[0][0]))] if row_labels else []
    prefix = "".join(" " * w + " " * GAP for w in label_widths)
    headers = [top, [(column[1], width) for column, width in leaves]]
    out = [prefix + "|" + "|".join(_center(text, width) for text, width in layer) + "|\n" for layer in headers]
    dashes = "".join("-" * (w + GAP) for w in label_widths) + "+" if row_labels else "|"
    out.append(dashes + "".join("-" * width + "+" for _, width in leaves) + "\n")
    last: list[str] = [""] * len(label_widths)
    for label, cells in rows:
        line = ""
        if row_labels:
            for i, part in enumerate(label):
                printed = part != last[i]
                if printed:
                    for deeper in range(i + 1, len(last)):
                        last[deeper] = ""
                line += (part if printed else "").ljust(label_widths[i]) + " " * GAP
                last[i] = part
        line += "|" + "".join(" " + cells.get(column, "").rjust(width - 2) + " |" for column, width in leaves)
        out.append(line + "\n")
    return "".join(out)


def _header(result: TwvResult, cost_text: str) -> str:
    p = result.parameters
    group = "Performance Summary Over and Ensemble of Subsets"
    pairs = [
        ("System Title", "NA"),
        ("Decision ID", "Occurrence"),
        ("IncludeBlocksWithNoTargets", "1" if p.include_no_targets else "0"),
        ("TotDur", perl_number(p.total_duration)),
        ("TotTrials", f"{p.trials:.0f}"),
        ("TrialsPerSecond", perl_number(p.trials_per_second)),
        ("BETA", perl_number(p.beta)),
        ("Cost", cost_text),
        ("Ptarg", perl_number(p.p_target)),
        ("Value", perl_number(p.value)),
    ]
    key, value = (group, "Key"), (group, "Value")
    return render_table(
        [key, value], [((str(i),), {key: k, value: v}) for i, (k, v) in enumerate(pairs)], row_labels=False
    )


def _operating(group: str, point: Operating, cells: dict[tuple[str, ...], str], threshold: bool = True) -> None:
    cells[(group, "PFA")] = shown(FA_FORMAT, point.p_fa)
    cells[(group, "PMiss")] = shown(MISS_FORMAT, point.p_miss)
    cells[(group, "TWV")] = shown(TWV_FORMAT, point.twv)
    if threshold:
        cells[(group, "Dec. Thresh")] = shown(MISS_FORMAT, point.threshold)


def summary_text(result: TwvResult, *, optimum: bool, cost_text: str) -> str:
    """The summary report (``-o``): the header table and the one-line summary table."""
    n_evaluated = sum(1 for t in result.terms if t.evaluated)
    act = "Actual Decision TWV Analysis"
    cells: dict[tuple[str, ...], str] = {(" ", "Title"): "Occurrence"}
    if n_evaluated > 1:
        cells[("Inputs", "#Keyword")] = str(n_evaluated)
    t = result.totals
    cells.update({("Inputs", k): str(t[k]) for k in ("#Targ", "#NTarg", "#Sys")})
    cells[(act, "#CorDet")] = str(t["#Corr"])
    cells.update({(act, k): str(t[k]) for k in ("#Cor!Det", "#FA", "#Miss")})
    _operating(act, result.actual, cells, threshold=False)
    cells[(act, "Dec. Tresh")] = shown(TWV_FORMAT, result.actual.threshold)
    _operating("Maximum TWV Analysis", result.maximum, cells)
    if optimum:
        _operating("Optimum TWV Analysis", result.optimum, cells)
        _operating("Supremum TWV Analysis", result.supremum, cells)
    columns = list(cells)
    return _header(result, cost_text) + "\n\n" + render_table(columns, [(("Occurrence",), cells)], row_labels=False)


def block_text(result: TwvResult, *, optimum: bool, cost_text: str) -> str:
    """The per-term block report (``-b``)."""
    occ = "Occurrence"
    counts = tuple(COUNTS.values())
    text_col: tuple[str, ...] = ("MetaData", "Text")
    columns: list[tuple[str, ...]] = [text_col] + [(occ, c) for c in (*counts, "TWV", "PFA", "PMISS")]
    if optimum:
        columns += [(g, c) for g in ("Optimum TWV", "Supremum TWV") for c in ("PFA", "PMiss", "TWV", "Dec. Thresh")]
    rows: list[tuple[tuple[str, ...], dict[tuple[str, ...], str]]] = []
    for term in result.terms:
        cells: dict[tuple[str, ...], str] = {text_col: term.text}
        if term.evaluated:
            cells.update({(occ, c): str(getattr(term, k)) for k, c in COUNTS.items()})
            pfa = shown(FA_FORMAT, term.actual.p_fa)
            cells[(occ, "TWV")] = shown(TWV_FORMAT, term.actual.twv)
            cells[(occ, "PFA")] = pfa if pfa != "NA" else "0"
            cells[(occ, "PMISS")] = shown(MISS_FORMAT, term.actual.p_miss)
            if optimum:
                _operating("Optimum TWV", term.optimum, cells)
                _operating("Supremum TWV", term.supremum, cells)
        rows.append((("Keyword", term.kwid), cells))
    rows.append((("Summary", "Totals"), {(occ, c): str(result.totals[c]) for c in counts}))
    means: dict[tuple[str, ...], str] = {(occ, c): f"{result.means[c] or 0:.0f}" for c in counts}
    means[(occ, "PFA")] = shown(FA_FORMAT, result.actual.p_fa)
    means[(occ, "PMISS")] = shown(MISS_FORMAT, result.actual.p_miss)
    if optimum:
        _operating("Optimum TWV", result.optimum, means, threshold=False)
        _operating("Supremum TWV", result.supremum, means, threshold=False)
    rows.append((("Summary", "Means"), means))
    rows.append((("Summary", "TWV"), {(occ, "TWV"): shown(TWV_FORMAT, result.actual.twv)}))
    return _header(result, cost_text) + "\n\n" + render_table(columns, rows, row_labels=True)


def _plain(point: Operating) -> dict[str, Any]:
    """An operating point for json: an undefined threshold (KWSEval's NaN or NA) is null."""
    threshold = point.threshold if isinstance(point.threshold, float) else None
    return {"p_fa": point.p_fa, "p_miss": point.p_miss, "twv": point.twv, "threshold": threshold}


def as_json(result: TwvResult) -> dict[str, Any]:
    """Every figure at full precision (segeval's json form)."""
    p = result.parameters
    parameters = ("total_duration", "trials", "trials_per_second", "beta", "cost", "value", "p_target")
    return {
        "parameters": {**{k: getattr(p, k) for k in parameters}, "include_no_targets": p.include_no_targets},
        "atwv": result.actual.twv,
        "mtwv": result.maximum.twv,
        "mtwv_threshold": _plain(result.maximum)["threshold"],
        "otwv": result.optimum.twv,
        "stwv": result.supremum.twv,
        "counts": result.totals,
        **{k: _plain(getattr(result, k)) for k in ("actual", "maximum", "optimum", "supremum")},
        "terms": [
            {
                "kwid": t.kwid,
                "text": t.text,
                "evaluated": t.evaluated,
                **{k: getattr(t, k) for k in COUNTS},
                **{k: _plain(getattr(t, k)) for k in ("actual", "optimum", "supremum")},
            }
            for t in result.terms
        ],
        "det": {key: [_plain(point)[key] for point in result.det] for key in ("threshold", "p_miss", "p_fa", "twv")},
    }


def plot_det(result: TwvResult, output: str) -> None:
    """The term-weighted DET curve on normal-deviate axes as F4DE draws it, ATWV and MTWV marked."""
    from statistics import NormalDist

    from segeval import figures as viz

    def deviate(p: float | None) -> float:  # F4DE's ppndf clamps 0 and 1 to 2.2204e-16 from them
        return NormalDist().inv_cdf(min(max(p or 0.0, 2.2204e-16), 1 - 2.2204e-16))

    fig, ax = viz.pyplot().subplots(figsize=(6, 6))
    curve = [p for p in result.det if p.p_miss is not None and p.p_fa is not None]
    ax.plot([deviate(p.p_fa) for p in curve], [deviate(p.p_miss) for p in curve], color="tab:blue", label="DET")
    for point, name, mark in ((result.actual, "ATWV", "o"), (result.maximum, "MTWV", "*")):
        if point.p_miss is not None and point.p_fa is not None and point.twv is not None:
            text = f"{name} {point.twv:.4f} (P_FA {point.p_fa:.5f}, P_miss {point.p_miss:.3f})"
            ax.plot(deviate(point.p_fa), deviate(point.p_miss), mark, color="black", markersize=9, label=text)
    # F4DE's axes: P_FA .0001% to 40%, P_miss 5% to 98%, labelled in percent
    for axis, ticks in (
        (ax.xaxis, (1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.4)),
        (ax.yaxis, (0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.98)),
    ):
        axis.set_ticks([deviate(t) for t in ticks], [f"{100 * t:g}" for t in ticks])
    ax.set(xlim=(deviate(1e-6), deviate(0.4)), ylim=(deviate(0.05), deviate(0.98)))
    ax.grid(True, color="0.85")
    ax.set(xlabel="P_FA (in %), mean over terms", ylabel="P_miss (in %), mean over terms")
    ax.set_title(f"Term-weighted DET curve (β = {result.parameters.beta:g})")
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    viz.save(fig, output)


CSV_COLUMNS = [(name, "") for name in ("kwid", "text", *COUNTS, "p_fa", "p_miss", "twv", "otwv", "stwv")]


def csv_rows(result: TwvResult) -> list[list[Any]]:
    """One row per evaluated term, then the row ``all`` (ATWV, OTWV, STWV over the terms)."""
    rows = [
        [t.kwid, t.text, *(getattr(t, k) for k in COUNTS), t.actual, t.optimum, t.supremum]
        for t in result.terms
        if t.evaluated
    ]
    rows.append(
        ["all", "", *(result.totals[c] for c in COUNTS.values()), result.actual, result.optimum, result.supremum]
    )
    return [[*row[:6], row[6].p_fa, row[6].p_miss, row[6].twv, row[7].twv, row[8].twv] for row in rows]
