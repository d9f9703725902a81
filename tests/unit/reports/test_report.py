"""`segeval report` and the comparison plots; the page is checked in headless Chromium when available.

Two data sets: the shipped MediaEval linking example with generated runs that carry long file names,
and a generated document-level (trec_eval) collection whose queries q1 .. q12 test natural order.
"""

from __future__ import annotations

import html
import json
import random
import re
import subprocess
from pathlib import Path

import pytest

from segeval import __version__
from segeval.analyses.compare import format_p
from segeval.figures import label
from tests.conftest import FIXTURES, ROOT, Tags, full_only, run_cli, shared
from tests.support.reference import find_binary, require_binary

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

pytest.importorskip("matplotlib")
QRELS, RUN = str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run")
LINKING_QRELS = str(ROOT / "examples" / "mediaeval" / "linking.qrels")
LINKING_RUN = ROOT / "examples" / "mediaeval" / "linking_run.txt"
LONG = "UT-HMI2014_L_{k}_Sh_U_N_visual_and_transcript_fusion_run_with_a_long_descriptive_name.txt"


@pytest.fixture
def other(tmp_path: Path) -> str:
    lines = Path(RUN).read_text().splitlines()
    (tmp_path / "other.run").write_text("\n".join(x for i, x in enumerate(lines) if i % 3) + "\n")
    return str(tmp_path / "other.run")


def linking_runs(folder: Path, n: int = 4) -> list[str]:
    """The shipped linking run and n seeded variants (results dropped and reordered) with long names."""
    by_query: dict[str, list[list[str]]] = {}
    for line in LINKING_RUN.read_text().splitlines():
        fields = line.split()
        by_query.setdefault(fields[0], []).append(fields)
    out = [str(LINKING_RUN)]
    for k in range(1, n + 1):
        rng = random.Random(k)
        lines = []
        for rows in by_query.values():
            kept = [r for r in rows if rng.random() > 0.08 * k]
            if k % 2:
                rng.shuffle(kept)
            lines += [" ".join([*r[:5], str(rank), str(100 - rank), f"sys{k}"]) for rank, r in enumerate(kept, 1)]
        path = folder / LONG.format(k=k)
        path.write_text("\n".join(lines) + "\n")
        out.append(str(path))
    return out


def trec_collection(folder: Path, n_runs: int = 3) -> tuple[str, list[str]]:
    """A seeded document-level collection: 12 queries (q1 .. q12), graded qrels, runs of 30 documents."""
    rng = random.Random(7)
    qrels, runs = [], [[] for _ in range(n_runs)]
    for q in range(1, 13):
        for d in range(40):
            qrels.append(f"q{q} 0 d{d} {rng.choice([0, 0, 0, 1, 2])}")
        for k in range(n_runs):
            docs = rng.sample(range(60), 30)
            runs[k] += [f"q{q} Q0 d{d} {r} {30 - r + rng.random():.4f} trec{k}" for r, d in enumerate(docs)]
    (folder / "trec.qrels").write_text("\n".join(qrels) + "\n")
    paths = []
    for k, lines in enumerate(runs):
        path = folder / f"input.trec_system_{k}_with_a_rather_long_run_tag.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(folder / "trec.qrels"), paths


def figures(page: str) -> list[dict[str, str | None]]:
    tags = Tags()
    tags.feed(page)
    return [a for t, a in tags.tags if t == "figure"]


def test_report_structure_without_network(tmp_path: Path, other: str) -> None:
    out = tmp_path / "report.html"
    code, _, err = run_cli("report", QRELS, RUN, other, "-o", str(out), "-m", "map", "-m", "P_10")
    assert code == 0, err
    page = out.read_text()
    tags = Tags()
    tags.feed(page)
    ids = {a.get("id") for _, a in tags.tags}
    assert {"comparison", "per-query", "legend", "notes", "provenance"} <= ids
    # PR curves; per measure a box plot and one difference chart per run other than the baseline
    assert sum(1 for t, _ in tags.tags if t == "svg") == 1 + 2 * (1 + 1)
    assert [(f.get("class"), f.get("data-run"), f.get("data-measure")) for f in figures(page)] == [
        ("pr", None, None), ("dist", None, "map_once"), ("diff", "other.run", "map_once"),
        ("dist", None, "P_10_once"), ("diff", "other.run", "P_10_once")]
    assert sum(1 for t, a in tags.tags if t == "tr") == 3 + 7  # comparison: header + 2 runs; per query: 1 + 6
    assert not [a for t, a in tags.tags if (a.get("src") or a.get("href") or "").startswith("http")]
    # the adapter actually used, not "default"
    assert "adapter: overlap-once (the default for these runs)" in page


def test_report_provenance_legend_and_natural_order(tmp_path: Path) -> None:
    qrels, runs = trec_collection(tmp_path)
    out = tmp_path / "trec.html"
    code, _, err = run_cli("report", qrels, *runs, "-o", str(out), "-m", "map", "-m", "ndcg")
    assert code == 0, err
    page = out.read_text()
    prov = page.split('id="provenance"', 1)[1]
    assert f"segeval {__version__}" in prov
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", prov)
    assert f"segeval report {qrels} {' '.join(runs)} -o {out} -m map -m ndcg" in prov
    for path in [qrels, *runs]:  # each input with its size
        assert f"<code>{path}</code> ({Path(path).stat().st_size} bytes, sha256 " in prov
    legend = page.split('id="legend"', 1)[1].split("</p>", 1)[0]
    for words in ("difference", "95% bootstrap interval", "p</em>-value", "holm", "p&lt;0.0001"):
        assert words in legend
    assert "adapter: exact (the default for these runs)" in page
    table = page.split('id="per-query"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<tr><td>(q\d+)</td>", table) == [f"q{i}" for i in range(1, 13)]  # q2 before q10
    assert len([f for f in figures(page) if f.get("class") == "diff"]) == 2 * 2  # 2 runs x 2 measures


def test_p_values_never_print_as_zero(tmp_path: Path) -> None:
    assert format_p(0.0) == "<0.0001" and format_p(0.0000999) == "<0.0001"
    assert format_p(0.0001) == "=0.0001" and format_p(0.04999) == "=0.0500"
    # 30 queries: run b finds the one relevant document at rank 1, run a at rank 2 -> AP 1 vs 0.5
    # on every query: the paired t test's p is 0 (no variance), printed p<0.0001
    (tmp_path / "q").write_text("".join(f"q{i} 0 rel 1\n" for i in range(30)))
    (tmp_path / "a").write_text("".join(f"q{i} Q0 x 1 2 a\nq{i} Q0 rel 2 1 a\n" for i in range(30)))
    (tmp_path / "b").write_text("".join(f"q{i} Q0 rel 1 2 b\nq{i} Q0 x 2 1 b\n" for i in range(30)))
    code, out, _ = run_cli("compare", str(tmp_path / "q"), str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 0 and "+0.5000 [+0.5000, +0.5000] p<0.0001*" in out and "p=0.0000" not in out
    assert run_cli("report", str(tmp_path / "q"), str(tmp_path / "a"), str(tmp_path / "b"), "-o",
                   str(tmp_path / "r.html"))[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert "p&lt;0.0001*)" in page and "p=0.0000" not in page


# ------------------------------------------------------------------- notes that travel with values

ABOVE = ("map is above 1 for 1 of 1 queries (first: q1): the overlap adapter credits one relevant segment once "
         "for every result that overlaps it")


def overlap_above_one(folder: Path) -> tuple[str, str, str]:
    """One relevant segment, three results overlapping it: AP = (1/1 + 2/2 + 3/3) / 1 = 3 under overlap."""
    (folder / "q").write_text("q1 Q0 v1 0.10 0.40 1\n")
    (folder / "a").write_text("q1 Q0 v1 0.10 0.20 1 0.9 a\nq1 Q0 v1 0.15 0.25 2 0.8 a\nq1 Q0 v1 0.30 0.40 3 0.7 a\n")
    (folder / "b").write_text("q1 Q0 v1 0.10 0.20 1 0.9 b\nq1 Q0 v2 0.15 0.25 2 0.8 b\n")  # AP 1
    return str(folder / "q"), str(folder / "a"), str(folder / "b")


def test_every_command_printing_values_carries_the_note(tmp_path: Path) -> None:
    q, a, b = overlap_above_one(tmp_path)
    code, out, err = run_cli("eval", "-a", "overlap", q, a, "-m", "map")
    assert code == 0 and re.search(r"map\s+all\s+3.0000", out) and f"note: {a}: {ABOVE}\n" in err  # names the run
    code, out, err = run_cli("compare", "-a", "overlap", q, a, b)
    assert code == 0 and "3.0000" in out and f"note: a: {ABOVE}\n" in out and "adapter: overlap;" in out
    for fmt in ("markdown", "latex", "json"):
        assert f"a: {ABOVE}" in run_cli("compare", "-a", "overlap", q, a, b, "-o", fmt)[1]
    assert run_cli("report", "-a", "overlap", q, a, b, "-o", str(tmp_path / "r.html"))[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert f"<li>a: {ABOVE}</li>" in page  # with the notes
    assert f'<small class="note">note: a: {ABOVE}</small>' in page  # and under the figures of map
    code, out, err = run_cli("correlate", "-a", "overlap", q, a, b, "-o", "json")
    assert code == 0 and f"a (setting 1): {ABOVE}; the same for 1 more: a (setting 2)" in json.loads(out)["notes"]
    (tmp_path / "groups").write_text("a g1\nb g2\n")
    code, _, err = run_cli("pool-bias", "-a", "overlap", q, a, b, "--groups", str(tmp_path / "groups"), "-m", "map",
                           "--quiet")
    assert code == 0 and f"note: a: {ABOVE}\n" in err
    code, _, err = run_cli("incompleteness", "-a", "overlap", q, a, b, "-m", "map", "--repeats", "1", "--fractions",
                           "1", "--quiet")
    assert code == 0 and f"note: a: {ABOVE}\n" in err
    for kind in ("dist", "diff"):  # the figures of map values carry the note, on stderr and under the figure
        code, _, err = run_cli("plot", kind, "-a", "overlap", q, a, b, "-o", str(tmp_path / f"{kind}.svg"))
        assert code == 0 and f"note: a: {ABOVE}\n" in err
        code, _, err = run_cli("plot", kind, "-a", "overlap", q, b, b, "-o", str(tmp_path / f"{kind}_b.svg"))
        assert code == 0 and err == ""
        # matplotlib draws text as glyph paths: the note adds one text group and many glyphs
        assert _glyphs(tmp_path / f"{kind}.svg") > _glyphs(tmp_path / f"{kind}_b.svg") + 100
    code, _, err = run_cli("plot", "pr", "-a", "overlap", q, a, b, "-o", str(tmp_path / "pr.svg"))
    assert code == 0 and err == ""  # interpolated precision is not above 1


def _glyphs(svg: Path) -> int:
    return svg.read_text().count("<use xlink:href")


def test_bpref_above_one_on_the_shipped_linking_example_has_its_note() -> None:
    code, out, err = run_cli("eval", "-a", "overlap", LINKING_QRELS, str(LINKING_RUN), "-m", "bpref")
    # bpref over 5 queries is 1.2175: anchor_1 and anchor_3 count more relevant results than num_rel
    assert code == 0 and re.search(r"bpref\s+all\s+1.2175", out)
    assert (f"note: {LINKING_RUN}: bpref is above 1 for 2 of 5 queries (first: anchor_1): the overlap adapter "
            "credits one relevant segment once for every result that overlaps it\n") in err


def test_a_newcomers_first_segment_figures_stay_within_one() -> None:
    # no adapter: overlap-once credits each merged relevant segment once (bpref 0.6044, map 0.1057 where overlap
    # gives 1.2175 and 0.2058), and a note names the 31 results overlap would credit again and -a overlap
    for args in ([], ["--memory", "chunked", "--chunk-lines", "7"], ["-j", "2"]):
        code, out, err = run_cli("eval", *args, LINKING_QRELS, str(LINKING_RUN), "-m", "bpref", "-m", "map")
        assert code == 0 and re.search(r"bpref_once\s+all\s+0.6044", out) and re.search(r"map_once\s+all\s+0.1057", out)
        assert err == (f"note: {LINKING_RUN}: no adapter given, so overlap-once labelled this segment run: 31 results "
                       "reach only relevant content an earlier result was credited with, and count as not relevant, so "
                       "precision-based figures stay within [0, 1] (docs/adapters.md); -a overlap gives the MediaEval "
                       "reference's figures, which credit them again\n")
    import segeval

    ev = segeval.evaluate(LINKING_QRELS, str(LINKING_RUN), "bpref")
    assert round(ev["bpref_once"], 4) == 0.6044 and "-a overlap gives the MediaEval reference's" in ev.notes[0]
    assert segeval.evaluate(LINKING_QRELS, str(LINKING_RUN), "bpref", adapter="overlap-once").notes == []


def test_report_needs_html_name(tmp_path: Path, other: str) -> None:
    code, _, err = run_cli("report", QRELS, RUN, other, "-o", str(tmp_path / "r.pdf"))
    assert code == 2 and "must end in .html" in err


@pytest.mark.parametrize("kind", ["pr", "dist"])
def test_comparison_plots(tmp_path: Path, other: str, kind: str) -> None:
    code, _, err = run_cli("plot", kind, QRELS, RUN, other, "-o", str(tmp_path / "f.png"))
    assert code == 0, err
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("kind", ["dist", "diff"])
def test_plots_draw_every_measure(tmp_path: Path, other: str, kind: str) -> None:
    """``plot dist|diff`` kept only the last -m; each measure (each cut-off of P.5,10) gets its panel."""
    code, _, err = run_cli("plot", kind, QRELS, RUN, other, "-m", "map", "-m", "P.5,10", "-o", str(tmp_path / "f.svg"))
    assert code == 0, err
    svg = (tmp_path / "f.svg").read_text()
    titles = re.findall(r"<!-- (Per-query [^:<]*?)(?::| -->)", svg)
    assert [t.removeprefix("Per-query ") for t in titles] == ["map_once", "P_5_once", "P_10_once"], titles


def test_difference_plot(tmp_path: Path, other: str) -> None:
    code, _, err = run_cli("plot", "diff", QRELS, RUN, other, "-m", "P_10", "-o", str(tmp_path / "d.svg"))
    assert code == 0, err
    assert "<svg" in (tmp_path / "d.svg").read_text()


# ----------------------------------------------------------------------------- headless Chromium

CHROMIUM = find_binary("chromium", "chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
needs_chromium = pytest.mark.usefixtures("chromium_binary")


@pytest.fixture
def chromium_binary() -> str:
    """Headless Chromium: the test is skipped without it (fails in CI, where .ci/run installs it)."""
    return require_binary("chromium", "chromium-browser", why="the HTML report is measured in headless Chromium")

# Added to a copy of the page: after load, records in <pre id="measured"> the viewport width, the
# page's scroll width, every element (outside a scrolling container and the SVG internals) reaching
# past the viewport, every SVG text box outside its SVG (a cut label), every pair of overlapping
# tick labels on one axis, and the (run, measure) of each difference chart.
MEASURE = """
window.addEventListener('load', function () {
  var vw = document.documentElement.clientWidth, wide = [], cut = [], overlap = [];
  Array.prototype.forEach.call(document.body.querySelectorAll('*'), function (el) {
    var scrolled = el.parentElement.closest('.scroll') !== null;
    var inside = el.tagName.toLowerCase() !== 'svg' && el.closest('svg') !== null;
    if (scrolled || inside) { return; }
    var r = el.getBoundingClientRect();
    if (r.right > vw + 0.5 || r.width > vw + 0.5) {
      wide.push(el.tagName + '#' + el.id + '.' + el.className + ' ' + Math.round(r.width));
    }
  });
  Array.prototype.forEach.call(document.querySelectorAll('figure svg'), function (svg, k) {
    var box = svg.getBoundingClientRect();
    Array.prototype.forEach.call(svg.querySelectorAll('g[id^="text_"]'), function (g) {
      var r = g.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 ||
          r.bottom > box.bottom + 0.5)) { cut.push(k + ':' + g.id); }
    });
    ['xtick_', 'ytick_'].forEach(function (axis) {
      var boxes = Array.prototype.map.call(svg.querySelectorAll('g[id^="' + axis + '"] > g[id^="text_"]'),
        function (g) { return g.getBoundingClientRect(); });
      for (var i = 0; i < boxes.length; i++) { for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i], b = boxes[j];
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
          overlap.push(k + ':' + axis + i + '/' + j);
        }
      } }
    });
  });
  // a run name's line breaks: each must follow a word boundary (_ - . / or a space), never split a word
  var breaks = [];
  Array.prototype.forEach.call(document.querySelectorAll('#comparison td:first-child'), function (td) {
    var walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT), node, last = null, before = '';
    while ((node = walker.nextNode())) {
      for (var i = 0; i < node.length; i++) {
        var range = document.createRange();
        range.setStart(node, i); range.setEnd(node, i + 1);
        var top = range.getBoundingClientRect().top, ch = node.data[i];
        if (last !== null && top > last + 1 && ch !== ' ' && '_-./ '.indexOf(before) < 0) {
          breaks.push(td.textContent + ' @' + before + '|' + ch);
        }
        if (ch !== ' ') { last = top; }
        before = ch;
      }
    }
  });
  var out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = JSON.stringify({viewport: vw, scrollWidth: document.documentElement.scrollWidth,
    wide: wide, cut: cut, overlap: overlap, breaks: breaks,
    diffs: Array.prototype.map.call(document.querySelectorAll('figure.diff'),
                                    function (f) { return [f.dataset.run, f.dataset.measure]; })});
  document.body.appendChild(out);
  if (window.parent !== window) {  // measured in a narrow frame: hand the result to the page around it
    parent.postMessage(JSON.stringify({measured: out.textContent, ready: document.body.dataset.ready || '',
                                       errors: document.body.dataset.errors || ''}), '*');
  }
});
"""
#: headless Chromium's window is at least 500 px wide: narrower widths are measured in a frame that wide
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="{src}" style="width:{width}px;height:900px;border:0"></iframe><script>
window.addEventListener('message', function (e) {{
  var d = JSON.parse(e.data), out = document.createElement('pre');
  out.id = 'measured'; out.textContent = d.measured; document.body.appendChild(out);
  if (d.ready) {{ document.body.dataset.ready = d.ready; }}
  if (d.errors) {{ document.body.dataset.errors = d.errors; }}
}});
</script></body></html>
"""


def chromium(tmp_path: Path, *args: str) -> str:
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120, check=True).stdout


def measured(tmp_path: Path, page: Path, fragment: str = "", width: int = 1400) -> tuple[dict[str, object], str]:
    """The page measured in headless Chromium at ``width`` x 900, and its DOM after the script ran."""
    probe = page.with_name("probe_" + page.name)
    probe.write_text(page.read_text().replace("</body>", f"<script>{MEASURE}</script></body>"))
    if width < 500:
        frame = page.with_name("frame_" + page.name)
        frame.write_text(FRAME.format(src=probe.name + fragment, width=width))
        dom = chromium(tmp_path, "--window-size=1400,900", "--virtual-time-budget=10000", "--dump-dom",
                       f"file://{frame}")
    else:
        dom = chromium(tmp_path, f"--window-size={width},900", "--dump-dom", f"file://{probe}{fragment}")
    assert 'data-ready="yes"' in dom and "data-errors" not in dom
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom)
    assert found, dom[-2000:]
    result: dict[str, object] = json.loads(found.group(1).replace("&amp;", "&"))
    return result, dom


def check_layout(result: dict[str, object], runs: list[str], measures: list[str], width: int = 1400) -> None:
    assert result["viewport"] == width - 15 or result["viewport"] == width  # with or without a scroll bar
    assert result["scrollWidth"] == result["viewport"]  # nothing makes the page wider than the window
    assert result["wide"] == [] and result["cut"] == [] and result["overlap"] == []
    assert result["breaks"] == []  # run names wrap at word boundaries only
    _baseline, *others = [Path(r).name for r in runs]
    assert result["diffs"] == [[n, m] for m in measures for n in others]  # every run has its difference chart


@full_only
@needs_chromium
def test_report_in_chromium_linking_example_with_long_run_names(tmp_path: Path) -> None:
    runs = linking_runs(tmp_path)
    out = tmp_path / "linking.html"
    assert run_cli("report", LINKING_QRELS, *runs, "-o", str(out), "-m", "map", "-m", "bpref")[0] == 0
    check_layout(measured(tmp_path, out)[0], runs, ["map_once", "bpref_once"])  # default adapter: overlap-once


@needs_chromium
def test_report_in_chromium_document_level_trec(tmp_path: Path) -> None:
    qrels, runs = trec_collection(tmp_path)
    out = tmp_path / "trec.html"
    assert run_cli("report", qrels, *runs, "-o", str(out), "-m", "map", "-m", "ndcg_cut_10")[0] == 0
    # the #sort fragment runs the same function as a header click: queries sort naturally
    result, dom = measured(tmp_path, out, "#sort=0:desc")
    check_layout(result, runs, ["map", "ndcg_cut_10"])
    table = dom.split('id="per-query"', 1)[1].split("</table>", 1)[0]
    assert 'data-sorted="0:desc"' in dom
    assert re.findall(r"<tr><td>(q\d+)</td>", table) == [f"q{i}" for i in range(12, 0, -1)]
    dom = chromium(tmp_path, "--dump-dom", f"file://{out}#sort=1:desc")
    table = dom.split('id="per-query"', 1)[1].split("</table>", 1)[0]
    first_column = [float(v) for v in re.findall(r"<tr><td>q\d+</td><td>([\d.]+)</td>", table)]
    assert first_column == sorted(first_column, reverse=True) and len(first_column) == 12


@full_only
@needs_chromium
def test_report_in_chromium_trec_eval_test_collection(tmp_path: Path) -> None:
    """CI-only: trec_eval's own test collection (../shared), its run and two variants."""
    qrels, results = shared("trec_eval", "qrels.test"), shared("trec_eval", "results.test")
    lines = results.read_text().splitlines()
    runs = [str(results)]
    for k in (1, 2):
        path = tmp_path / f"results.variant_{k}_of_the_trec_eval_test_run.txt"
        path.write_text("\n".join(x for i, x in enumerate(lines) if i % (k + 2)) + "\n")
        runs.append(str(path))
    out = tmp_path / "trec_eval.html"
    assert run_cli("report", str(qrels), *runs, "-o", str(out))[0] == 0
    check_layout(measured(tmp_path, out)[0], runs, ["map", "P_10"])


def test_report_takes_folders_and_globs_as_compare_does(tmp_path: Path) -> None:
    """``report`` refused a folder or a glob ('must name at least two runs'); it expands them as ``compare``."""
    qrels, made = trec_collection(tmp_path)
    folder = tmp_path / "runs"
    folder.mkdir()
    runs = [str(Path(r).rename(folder / Path(r).name)) for r in made]
    pages = []
    for given in ([str(folder)], [str(folder / "*.txt")], sorted(runs)):
        out = tmp_path / f"page{len(pages)}.html"
        code, _, err = run_cli("report", qrels, *given, "-o", str(out), "-m", "map")
        assert code == 0, err
        page = out.read_text()
        body = page[page.index("<table"):page.index('<h2 id="section-provenance">')]  # but the command line and date
        pages.append(re.sub(r"<svg.*?</svg>", "", body, flags=re.S))  # tables and captions (figures have random ids)
    assert pages[0] == pages[1] == pages[2] and all(Path(r).name in pages[0] for r in runs)


def significance_collection(folder: Path) -> tuple[str, list[str]]:
    """12 queries of 10 documents (d0..d4 relevant): a middling baseline, a run that ranks the relevant
    documents first on every query, one that ranks them last."""
    qrels = folder / "sig.qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(d < 5)}\n" for q in range(1, 13) for d in range(10)))
    orders = {"baseline": [5, 0, 6, 1, 7, 2, 8, 3, 9, 4], "better": list(range(10)), "worse": list(range(9, -1, -1))}
    paths = []
    for name, docs in orders.items():
        path = folder / f"{name}.run"
        shift = {q: q % 3 for q in range(1, 13)}  # some spread across queries: a t statistic, not a zero variance
        path.write_text("".join(f"q{q} Q0 d{d} {r} {100 - r} {name}\n" for q in range(1, 13)
                                for r, d in enumerate(docs[shift[q]:] + docs[:shift[q]])))
        paths.append(str(path))
    return str(qrels), paths


def test_report_marks_better_green_and_worse_red_and_has_contents(tmp_path: Path) -> None:
    qrels, runs = significance_collection(tmp_path)
    out = tmp_path / "sig.html"
    code, _, err = run_cli("report", qrels, *runs, "-o", str(out), "-m", "map", "-m", "P_5")
    assert code == 0, err
    page = out.read_text()
    rows = dict(re.findall(r"<tr><td>(\w+)(?:<wbr>\.<wbr>|\.<wbr>)run[^<]*</td>(.*?)</tr>", page))
    assert set(rows) == {"baseline", "better", "worse"}, rows
    assert rows["better"].count('class="better"') == 2 and 'class="worse"' not in rows["better"]
    assert rows["worse"].count('class="worse"') == 2 and 'class="better"' not in rows["worse"]
    assert 'class="better"' not in rows["baseline"] and 'class="worse"' not in rows["baseline"]
    nav = page[page.index('<nav id="contents">'):page.index("</nav>")]
    targets = re.findall(r'href="#([\w-]+)"', nav)
    assert len(targets) == 6 and all(f'id="{t}"' in page for t in targets)  # 4 sections and 2 measures


def test_runs_past_ten_keep_distinct_looks() -> None:
    from segeval.figures import run_style

    assert len({run_style(k) for k in range(40)}) == 40


@needs_chromium
@full_only  # the slice: the document-level report in Chromium
@pytest.mark.parametrize("width", [1400, 390])
def test_report_in_chromium_twelve_runs_at_desktop_and_phone_width(tmp_path: Path, width: int) -> None:
    runs = linking_runs(tmp_path, n=11)
    out = tmp_path / "many.html"
    assert run_cli("report", LINKING_QRELS, *runs, "-o", str(out), "-m", "map")[0] == 0
    result, _ = measured(tmp_path, out, width=width)
    check_layout(result, runs, ["map_once"], width=width)  # default adapter: overlap-once


# ------------------------------------------------------------------- one computation, any -j, any size


def _report_cells(page: str) -> dict[str, list[str]]:
    """The comparison table's cells by run name: each cell's text without tags (compare's cell text)."""
    table = page.split('id="comparison"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><td>(.*?)</td>(<td.*?)</tr>", table)
    return {re.sub(r"<wbr>| \(baseline\)", "", name): [html.unescape(re.sub(r"<[^>]+>", "", c))
                                                         for c in re.findall(r"<td[^>]*>(.*?)</td>", cells)]
            for name, cells in rows}


@pytest.mark.parametrize("kind", ["segments", "documents"])
def test_report_numbers_are_compares_in_every_format(tmp_path: Path, kind: str) -> None:
    """The report's table is compare's: each cell's text is compare's text cell (markdown and latex show
    the same), and its numbers are compare's json and csv values to 4 decimals."""
    if kind == "segments":
        qrels, runs = LINKING_QRELS, linking_runs(tmp_path, n=2)
    else:
        qrels, runs = significance_collection(tmp_path)
    args = [qrels, *runs, "-m", "map", "-m", "P_5", "--test", "randomization", "--permutations", "500",
            *(("-a", "overlap") if kind == "segments" else ())]
    code, _, err = run_cli("report", *args, "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    cells = _report_cells((tmp_path / "r.html").read_text())
    outputs = {fmt: run_cli("compare", *args, "-o", fmt, "--quiet")[1] for fmt in ("text", "markdown", "latex",
                                                                                     "json", "csv")}
    doc = json.loads(outputs["json"])
    assert list(cells) == [label(n) for n in doc["runs"]] and doc["measures"] == ["map", "P_5"]  # names cut at 80
    csv_rows = [line.split(",") for line in outputs["csv"].splitlines()[1:]]
    assert len(csv_rows) == 2 * len(runs)
    for n in doc["runs"]:
        row = cells[label(n)]
        for m, text in zip(doc["measures"], row, strict=True):
            c = doc["cells"][n][m]
            assert text.split(" ", 1)[0] == f"{c['mean']:.4f}"
            for fmt in ("text", "markdown"):
                assert text in outputs[fmt].replace(r"\_", "_").replace(r"\#", "#"), (fmt, text)
            assert f"{c['mean']:.4f}" in outputs["latex"]  # ranx's compact table: the mean, superscripts
            if c["diff"] is not None:
                assert text.endswith("*)") == c["significant"]
                low, high = (f"{round(v, 4) + 0.0:+.4f}" for v in c["ci"])
                assert f"({round(c['diff'], 4) + 0.0:+.4f} [{low}, {high}] p" in text
        csv_means = [float(r[3]) for r in csv_rows if r[0] == n]
        assert [f"{v:.4f}" for v in csv_means] == [t.split(" ", 1)[0] for t in row]


def test_report_is_the_same_with_any_number_of_jobs(tmp_path: Path) -> None:
    """-j 1 and -j 2 write the same page, but for the command line and the date (figures included)."""
    qrels, runs = trec_collection(tmp_path)
    pages = []
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}.html"
        code, _, err = run_cli("report", qrels, *runs, "-o", str(out), "-m", "map", "-j", jobs, "--quiet")
        assert code == 0, err
        pages.append(re.sub(r"<p>segeval [^<]*</p><p>command: <code>[^<]*</code>", "", out.read_text()))
    assert pages[0] == pages[1] and pages[0].count("<svg") == 1 + 1 + 2  # PR, box plot, 2 differences


def many_queries(folder: Path) -> Path:
    """The report on PAGE_ROWS + 1 queries: run a finds the one relevant document at rank 1 on every query,
    run b at rank 2 on the even queries (AP 0.5) and at rank 1 on the odd ones."""
    from segeval.reports.html import PAGE_ROWS

    n = PAGE_ROWS + 1
    (folder / "q").write_text("".join(f"q{i} 0 d1 1\n" for i in range(n)))
    (folder / "a").write_text("".join(f"q{i} Q0 d1 1 2 a\nq{i} Q0 x 2 1 a\n" for i in range(n)))
    (folder / "b").write_text("".join(f"q{i} Q0 {'x' if i % 2 == 0 else 'd1'} 1 2 b\n"
                                      f"q{i} Q0 {'d1' if i % 2 == 0 else 'x'} 2 1 b\n" for i in range(n)))
    out = folder / "r.html"
    assert run_cli("report", str(folder / "q"), str(folder / "a"), str(folder / "b"), "-m", "map",
                   "-o", str(out))[0] == 0
    return out


def test_report_on_many_queries_pages_the_table_and_draws_curves(tmp_path: Path) -> None:
    """Past PAGE_ROWS queries the per-query table starts collapsed with page buttons; past LABELLED_QUERIES a
    difference chart is one curve (no tick label per query) and its caption names the largest changes."""
    from segeval.figures.compare import LABELLED_QUERIES
    from segeval.reports.html import PAGE_ROWS

    page = many_queries(tmp_path).read_text()
    assert '<details id="per-query-details"><summary>501 queries x 2 columns' in page and 'id="pages"' in page
    assert len(re.findall(r"<tr><td>q\d+</td>", page)) == PAGE_ROWS + 1  # every query is in the page
    diff = page.split('<figure class="diff"', 1)[1].split("</figure>", 1)[0]
    assert PAGE_ROWS > LABELLED_QUERIES and "xtick" in diff and diff.count('<g id="xtick_') < 12
    # 251 even queries (q0 .. q500) lose 0.5, the 250 odd ones are equal: the first five in the evaluation's
    # query order (as text) listed
    assert ("above on 0, below on 251, equal on 250 queries; largest gains: none; largest losses: q0 (-0.5000), "
            "q10 (-0.5000), q100 (-0.5000), q102 (-0.5000), q104 (-0.5000).") in diff


@needs_chromium
def test_report_pages_in_chromium(tmp_path: Path) -> None:
    """Sorted by run b's map (ascending), the first page shows the 251 queries b loses on and 249 of the
    rest (b's 0.5 before its 1.0); the one row past the page is hidden."""
    out = many_queries(tmp_path)
    _, dom = measured(tmp_path, out, "#sort=2:asc")
    table = dom.split('id="per-query"', 1)[1].split("</table>", 1)[0]
    shown = re.findall(r"<tr><td>q\d+</td><td>[\d.]+</td><td>([\d.]+)</td>", table)
    hidden = re.findall(r'<tr hidden="">', table)
    assert len(shown) == 500 and len(hidden) == 1 and shown.count("0.5000") == 251
    assert 'data-page="0"' in dom and "queries 1 to 500 of 501 (page 1 of 2)" in dom


def test_report_gives_compares_notes_on_how_runs_were_read(tmp_path: Path) -> None:
    """A run not grouped by query, --memory chunked: report says it is read in memory, as compare does."""
    (tmp_path / "q").write_text("".join(f"q{q} 0 d{k} {k % 2}\n" for q in range(3) for k in range(4)))
    (tmp_path / "a").write_text("".join(f"q{q} Q0 d{k} {k} {9 - k} a\n" for k in range(4) for q in range(3)))
    (tmp_path / "b").write_text("".join(f"q{q} Q0 d{k} 1 1 b\n" for q in range(3) for k in range(4)))
    args = [str(tmp_path / n) for n in ("q", "a", "b")] + ["--memory", "chunked", "-m", "map"]
    compared, reported = run_cli("compare", *args)[2], run_cli("report", *args, "-o", str(tmp_path / "r.html"))[2]
    assert compared == reported and reported.count("is not grouped by query") == 1
