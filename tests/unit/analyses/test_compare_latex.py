"""``compare -o latex``: ranx's compact table (a letter per run, significance superscripts, the best bold) against
ranx's own ``Report.to_latex()`` on a generated case (tests/fixtures/compare_ranx)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from scripts.ranx_cases import RUNS, main
from tests.conftest import FIXTURES, run_cli

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

RANX = FIXTURES / "compare_ranx"
#: a score cell: optionally bold value, optional superscript letters (ranx adds \hphantom{...} to align them)
CELL = re.compile(r"(\\textbf\{)?([0-9.]+)\}?(?:\$\^\{([a-zA-Z]*)\}\$)?")


def rows(tex: str) -> dict[str, list[tuple[bool, str, str]]]:
    """run -> [(bold, value, superscript letters) per measure] of a LaTeX table, ranx's or segeval's."""
    body = tex.split("\\midrule")[1].split("\\bottomrule")[0]
    out = {}
    for row in body.split("\\\\"):
        cells = [c.strip() for c in row.split("&")]
        if len(cells) > 2:
            parsed = [CELL.match(c) for c in cells[2:]]
            out[cells[1].replace("\\_", "_")] = [(m[1] is not None, m[2], m[3] or "") for m in parsed if m]
    return out


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ranx")
    main(out, ranx=False)
    return out


def compare(case: Path, *args: str) -> tuple[int, str, str]:
    return run_cli("compare", str(case / "case.qrels"), *(str(case / n) for n in RUNS), "-m", "map", "-m", "P_10",
                   "--permutations", "50", *args)


def test_all_pairs_t_test_matches_ranx(case: Path) -> None:
    # the t-test is deterministic (ranx's "student" and segeval's "t" are both scipy's ttest_rel); ranx marks
    # p <= max_p, segeval p < alpha: no p here sits on 0.05
    code, tex, _ = compare(case, "--all-pairs", "--test", "t", "--correction", "none", "--alpha", "0.05", "-o", "latex")
    assert code == 0
    expected = rows((RANX / "ranx.tex").read_text())
    assert rows(tex) == expected and len(expected) == 4
    # rm3_run beats bm25_base on map only (p 0.008; P@10 p 0.073); the dense runs beat both, not each other
    assert expected["rm3_run"] == [(False, "0.5415", "a"), (False, "0.4033", "")]
    assert expected["dense_v2"] == [(True, "0.7757", "ab"), (True, "0.6433", "ab")]
    assert "paired t-test, $p < 0.05$" in tex and "tested against every other run" in tex


def test_all_pairs_p_values_match_ranx(case: Path) -> None:
    ref = json.loads((RANX / "ranx.json").read_text())
    code, out, _ = compare(case, "--all-pairs", "--test", "t", "--correction", "none", "-o", "json")
    assert code == 0
    doc = json.loads(out)
    names = {"map": "map", "P_10": "precision@10"}
    for pair in doc["pairs"]:
        assert pair["p"] == pytest.approx(ref[pair["a"]]["comparisons"][pair["b"]][names[pair["measure"]]], rel=1e-9)
    assert len(doc["pairs"]) == 12
    for run in RUNS:
        for m, r in names.items():
            assert doc["cells"][run][m]["mean"] == pytest.approx(ref[run]["scores"][r], abs=1e-12)


def test_baseline_mode_marks_only_pairs_with_the_baseline(case: Path) -> None:
    code, tex, _ = compare(case, "-o", "latex")  # t-test, holm over 3 runs x 2 measures
    assert code == 0
    got = rows(tex)
    # holm: rm3_run's map p 0.0081 is the 5th smallest of 6, x 2 = 0.016 < 0.05; its P@10 0.073 is not
    assert got["rm3_run"] == [(False, "0.5415", "a"), (False, "0.4033", "")]
    assert got["dense_v1"] == [(False, "0.7547", "a"), (False, "0.6200", "a")]  # dense_v1 beats rm3_run: not tested
    assert got["bm25_base"] == [(False, "0.4563", ""), (False, "0.3500", "")]
    assert "against the baseline (a) only" in tex and "holm correction" in tex


def test_run_names_are_escaped_once(case: Path, tmp_path: Path) -> None:
    hostile = "x&y_%$#{}~^\\z"
    shutil.copy(case / "rm3_run", tmp_path / hostile)
    code, tex, _ = run_cli("compare", str(case / "case.qrels"), str(case / "bm25_base"), str(tmp_path / hostile),
                           "-m", "map", "--permutations", "50", "-o", "latex")
    assert code == 0
    assert r"b & x\&y\_\%\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}z & \textbf{0.5415}$^{a}$ \\" in tex
