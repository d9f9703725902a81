"""`segeval report` and the comparison plots; the page is checked in headless Chromium when available."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, Tags, run_cli

pytest.importorskip("matplotlib")
QRELS, RUN = str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run")


@pytest.fixture
def other(tmp_path: Path) -> str:
    lines = Path(RUN).read_text().splitlines()
    (tmp_path / "other.run").write_text("\n".join(x for i, x in enumerate(lines) if i % 3) + "\n")
    return str(tmp_path / "other.run")


def test_report_structure_without_network(tmp_path: Path, other: str) -> None:
    out = tmp_path / "report.html"
    code, _, err = run_cli("report", QRELS, RUN, other, "-o", str(out), "-m", "map", "-m", "P_10")
    assert code == 0, err
    page = out.read_text()
    tags = Tags()
    tags.feed(page)
    ids = {a.get("id") for _, a in tags.tags}
    assert {"comparison", "per-query"} <= ids
    assert sum(1 for t, _ in tags.tags if t == "svg") == 3  # PR curves, differences, distributions
    assert sum(1 for t, a in tags.tags if t == "tr") == 3 + 7  # comparison: header + 2 runs; per query: 1 + 6
    assert not [a for t, a in tags.tags if (a.get("src") or a.get("href") or "").startswith("http")]


def test_report_needs_html_name(tmp_path: Path, other: str) -> None:
    code, _, err = run_cli("report", QRELS, RUN, other, "-o", str(tmp_path / "r.pdf"))
    assert code == 2 and "must end in .html" in err


@pytest.mark.parametrize("kind", ["pr", "dist"])
def test_comparison_plots(tmp_path: Path, other: str, kind: str) -> None:
    code, _, err = run_cli("plot", kind, QRELS, RUN, other, "-o", str(tmp_path / "f.png"))
    assert code == 0, err
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")


def test_difference_plot(tmp_path: Path, other: str) -> None:
    code, _, err = run_cli("plot", "diff", QRELS, RUN, other, "-m", "P_10", "-o", str(tmp_path / "d.svg"))
    assert code == 0, err
    assert "<svg" in (tmp_path / "d.svg").read_text()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (.ci/run installs it)")
def test_report_in_headless_chromium(tmp_path: Path, other: str) -> None:
    import matplotlib.image

    out = tmp_path / "report.html"
    assert run_cli("report", QRELS, RUN, other, "-o", str(out))[0] == 0
    assert CHROMIUM is not None
    profile = ["--user-data-dir=" + str(tmp_path / "profile")]
    # sorting: the #sort fragment runs the same function as a header click
    dom = subprocess.run([CHROMIUM, *FLAGS, *profile, "--dump-dom", f"file://{out}#sort=1:desc"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert 'data-ready="yes"' in dom and "data-errors" not in dom
    table = dom.split('id="per-query"', 1)[1].split("</table>", 1)[0]
    assert 'data-sorted="1:desc"' in dom
    first_column = [float(row.split("<td>")[2].split("</td>")[0]) for row in table.split("<tr>")[2:]]
    assert first_column == sorted(first_column, reverse=True) and len(first_column) == 6
    # a screenshot that is not blank
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *FLAGS, *profile, "--window-size=1200,1400", f"--screenshot={shot}", f"file://{out}"],
                   capture_output=True, timeout=120, check=True)
    pixels = matplotlib.image.imread(str(shot))
    assert pixels.std() > 0.05
