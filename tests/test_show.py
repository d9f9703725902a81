"""`segeval show`: the explanation, a PNG, an SVG and an HTML page whose elements are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Tags, run_cli

QRELS = "q1 Q0 v1 0.10 0.20 1\nq1 Q0 v1 0.29 0.34 1\nq1 Q0 v1 0.00 0.04 0\nq1 Q0 v2 0.05 0.12 1\n"
RUN = ("q1 Q0 v1 0.02 0.06 1 0.9 r\nq1 Q0 v1 0.08 0.13 2 0.8 r\nq1 Q0 v1 0.12 0.16 3 0.7 r\n"
       "q1 Q0 v1 0.25 0.32 4 0.6 r\nq1 Q0 v2 0.06 0.12 5 0.5 r\nq1 Q0 v3 0.00 0.10 6 0.4 r\n")


def files(tmp_path: Path) -> list[str]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return [str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q1"]


def test_explain_names_the_deciding_qrels_line(tmp_path: Path) -> None:
    code, out, _ = run_cli("show", *files(tmp_path), "-a", "overlap", "-a", "overlap-once", "--explain")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 12  # 6 results x 2 adapters
    # rank 1 (2-6) meets the non-relevant 0-4 of qrels line 3
    assert rows[0] == ["rank 1", "v1 2-6", "overlap", "0", "qrels line 3 (v1 0-4 rel 0)"]
    # rank 3 (12-16) meets the relevant 10-20 of line 1, already credited to rank 2 under overlap-once
    assert rows[5] == ["rank 3", "v1 12-16", "overlap-once", "s", "qrels line 1 (v1 10-20 rel 1)"]
    # rank 6 is in a video without judgements
    assert rows[10] == ["rank 6", "v3 0-10", "overlap", "-", "no qrels segment"]


def test_html_page_elements(tmp_path: Path) -> None:
    out = tmp_path / "q1.html"
    code, _, _ = run_cli("show", *files(tmp_path), "-a", "overlap", "-a", "tiou:0.5", "-o", str(out))
    assert code == 0
    page = Tags()
    page.feed(out.read_text())
    tags = [t for t, _ in page.tags]
    assert tags.count("svg") == 1 and tags.count("table") == 1
    truth = [a for t, a in page.tags if t == "rect" and a.get("class") == "truth"]
    result = [a for t, a in page.tags if t == "rect" and a.get("class") == "result"]
    assert len(truth) == 4  # every qrels segment of the query
    assert len(result) == 6 * 2  # every result under each adapter
    assert tags.count("tr") == 1 + 6  # header and one row per result
    assert out.read_text().count('<td class="label">') == 12


def test_png_and_svg(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    code, _, _ = run_cli("show", *files(tmp_path), "-a", "overlap", "-o", str(tmp_path / "t.png"))
    assert code == 0 and (tmp_path / "t.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "t.png").stat().st_size > 10000
    code, _, _ = run_cli("show", *files(tmp_path), "-o", str(tmp_path / "t.svg"))
    assert code == 0 and (tmp_path / "t.svg").read_text().startswith("<svg")


def test_show_errors(tmp_path: Path) -> None:
    args = files(tmp_path)
    assert run_cli("show", *args)[2] == "segeval: error: Nothing to do: give -o FILE.png|svg|html and/or --explain.\n"
    code, _, err = run_cli("show", *args, "-o", str(tmp_path / "t.gif"))
    assert code == 2 and "must end in .png, .svg or .html" in err
