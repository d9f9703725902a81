"""``segeval report``: one self-contained HTML page (inline SVG, no network) comparing runs.

The per-query table sorts when a header is clicked; without JavaScript it is a plain table.
A ``#sort=COLUMN:asc|desc`` fragment applies the same sort on load.  Script errors are
recorded in ``<body data-errors>`` so a headless browser test can read them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from segeval.analysis.compare import Comparison, compare_runs

SCRIPT = """
window.addEventListener('error', function (e) {
  document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + ';';
});
function sortTable(table, col, dir) {
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var num = function (t) { var v = parseFloat(t); return isNaN(v) ? t : v; };
  rows.sort(function (a, b) {
    var x = num(a.cells[col].textContent), y = num(b.cells[col].textContent);
    var c = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
    return dir === 'desc' ? -c : c;
  });
  rows.forEach(function (r) { body.appendChild(r); });
  table.dataset.sorted = col + ':' + dir;
}
document.addEventListener('DOMContentLoaded', function () {
  var table = document.getElementById('per-query');
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.style.cursor = 'pointer';
    th.addEventListener('click', function () {
      var dir = table.dataset.sorted === col + ':desc' ? 'asc' : 'desc';
      sortTable(table, col, dir);
    });
  });
  var m = /sort=(\\d+):(asc|desc)/.exec(window.location.hash);
  if (m) { sortTable(table, parseInt(m[1], 10), m[2]); }
  document.body.dataset.ready = 'yes';
});
"""

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.sig { font-weight: bold; color: #1b5e20; } figure { display: inline-block; margin: 0 1em 1em 0; }
"""


def _comparison_table(c: Comparison) -> str:
    head = "".join(f"<th>{html.escape(m)}</th>" for m in c.measures)
    rows = []
    for n in c.runs:
        cells = []
        for m in c.measures:
            cell = c.cells[n][m]
            text = f"{cell.mean:.4f}"
            if cell.diff is not None and cell.ci is not None and cell.p is not None:
                diff, low, high = (round(v, 4) + 0.0 for v in (cell.diff, *cell.ci))  # no "-0.0000"
                text += f" <small>({diff:+.4f} [{low:+.4f}, {high:+.4f}] p={cell.p:.4f})</small>"
            cells.append(f"<td class=\"{'sig' if cell.significant else ''}\">{text}</td>")
        label = html.escape(n) + (" (baseline)" if n == c.baseline else "")
        rows.append(f"<tr><td>{label}</td>{''.join(cells)}</tr>")
    return (f"<table id=\"comparison\"><thead><tr><th>run</th>{head}</tr></thead><tbody>{''.join(rows)}"
            f"</tbody></table><p>Test: {html.escape(c.test)}, correction: {html.escape(c.correction)}; bold: "
            f"p &lt; {c.alpha}. {html.escape('; '.join(c.notes))}.</p>")


def render_report(qrels: str | Path, runs: Sequence[str | Path], output: str | Path, *,
                  measures: Sequence[str] = ("map", "P_10"), adapter: str | None = None,
                  baseline: str | Path | None = None, test: str = "t", correction: str = "holm",
                  permutations: int = 10_000, seed: int = 0) -> Path:
    """Write the report page and return its path."""
    from segeval.pipeline import evaluate
    from segeval.read import read_qrels
    from segeval.viz.compare import difference_bars, distributions, pr_curves

    comparison = compare_runs(qrels, runs, measures, adapter=adapter, baseline=baseline, test=test,
                              correction=correction, permutations=permutations, seed=seed)
    q = read_qrels(qrels)
    ordered = [baseline, *[r for r in runs if str(r) != str(baseline)]] if baseline is not None else list(runs)
    evals = {n: evaluate(q, r, [*measures, "iprec_at_recall"], adapter=adapter, missing_queries="zero")
             for n, r in zip(comparison.runs, ordered, strict=True)}
    first = comparison.measures[0]
    queries = next(iter(evals.values())).queries
    curves = {n: [ev.summary[k] for k in ev.summary if k.startswith("iprec_at_recall")] for n, ev in evals.items()}
    figures = [pr_curves(curves), distributions({n: ev.per_query[first] for n, ev in evals.items()}, first)]
    if len(comparison.runs) > 1:
        a, b = comparison.runs[0], comparison.runs[1]
        figures.insert(1, difference_bars(queries, evals[a].per_query[first], evals[b].per_query[first],
                                          (a, b), first))
    columns = [(n, m) for n in comparison.runs for m in comparison.measures]
    head = "".join(f"<th>{html.escape(n)}<br>{html.escape(m)}</th>" for n, m in columns)
    body = "".join(
        f"<tr><td>{html.escape(qid)}</td>"
        + "".join(f"<td>{evals[n].per_query[m][i]:.4f}</td>" for n, m in columns) + "</tr>"
        for i, qid in enumerate(queries))
    page = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>segeval report</title>"
            f"<style>{STYLE}</style></head><body><h1>segeval report</h1>"
            f"<p>qrels: {html.escape(Path(qrels).name)}; {len(queries)} queries; adapter: "
            f"{html.escape(adapter or 'default')}</p><h2>Comparison</h2>{_comparison_table(comparison)}"
            f"<h2>Figures</h2>{''.join(f'<figure>{svg}</figure>' for svg in figures)}"
            f"<h2>Per query</h2><p>Click a header to sort.</p><table id=\"per-query\"><thead><tr><th>query</th>"
            f"{head}</tr></thead><tbody>{body}</tbody></table><script>{SCRIPT}</script></body></html>\n")
    out = Path(output)
    out.write_text(page, encoding="utf-8")
    return out
