"""Significance tests, corrections, rank correlation (textbook examples, SciPy, properties), `compare`."""

from __future__ import annotations

import csv
import io
import json
import math
import random

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from segeval.analyses import correlate as C
from segeval.analyses.stats import bootstrap_ci, correct, p_value
from tests.conftest import FIXTURES, run_cli
from tests.support.stats import exact_randomization

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

# Baeza-Yates & Ribeiro-Neto, chapter 4: positions of ten documents in rankings R1 and R2
R1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
R2 = [2, 3, 1, 5, 4, 7, 8, 10, 6, 9]


def scores(positions: list[int]) -> list[float]:
    return [-float(p) for p in positions]  # a higher score ranks earlier


def test_textbook_spearman_and_kendall() -> None:
    rho = C.spearman_rho(scores(R1), scores(R2))
    assert rho == pytest.approx(1 - 6 * 24 / (10 * (10**2 - 1)))  # sum of squared differences 24
    assert math.floor(rho * 1000) / 1000 == 0.854  # as the book prints it
    assert C.kendall_tau(scores(R1[:5]), scores(R2[:5])) == pytest.approx(0.4)  # 1 - 2 * 6 / 20
    assert C.swapped_pairs(scores(R1[:5]), scores(R2[:5])) == 3  # 6 discordant ordered pairs


@pytest.mark.parametrize("seed", range(20))
def test_identical_and_reversed_rankings(seed: int) -> None:
    x = random.Random(seed).sample(range(100), k=8)
    rev = [-v for v in x]
    for f in (C.kendall_tau, C.spearman_rho, C.tau_ap, C.kendall_tau_ties_agree):
        assert f(x, x) == pytest.approx(1.0)
        assert f(x, rev) == pytest.approx(-1.0)


def test_tau_b_matches_scipy_and_ties_agree_counts_ties_as_agreement() -> None:
    x, y = [0.5, 0.5, 0.3, 0.2, 0.9], [0.4, 0.6, 0.3, 0.3, 0.35]
    assert C.kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    # 10 pairs: (0,1) tied in x, (2,3) tied in y -- both count as agreeing; (0,4) and (1,4) are
    # discordant; the other 6 concordant: (6 + 2 - 2) / 10
    c, d, tx, ty, both = C._pairs(x, y)
    assert (c, d, tx, ty, both) == (6, 2, 1, 1, 0)
    assert C.kendall_tau_ties_agree(x, y) == pytest.approx(0.6)


def test_rms_error() -> None:
    assert C.rms_error([0.1, 0.2], [0.2, 0.0]) == pytest.approx(math.sqrt((0.01 + 0.04) / 2))


A = [0.31, 0.12, 0.55, 0.20, 0.47, 0.05, 0.66, 0.38, 0.24, 0.19, 0.42, 0.29]
B = [0.35, 0.10, 0.61, 0.28, 0.50, 0.07, 0.60, 0.45, 0.30, 0.18, 0.49, 0.33]


def test_t_and_wilcoxon_equal_scipy() -> None:
    assert p_value(A, B, "t") == pytest.approx(stats.ttest_rel(B, A).pvalue, rel=1e-12)
    assert p_value(A, B, "wilcoxon") == pytest.approx(stats.wilcoxon(B, A).pvalue, rel=1e-12)


def test_randomization_is_close_to_exact_enumeration() -> None:
    exact = exact_randomization(A, B)  # 2^12 sign assignments
    assert abs(p_value(A, B, "randomization", permutations=10_000, seed=7) - exact) < 0.01
    assert 0 < exact < 1


def test_t_test_on_one_query_is_undefined_so_not_significant() -> None:
    # n = 1 leaves no degrees of freedom: report p = 1 rather than scipy's warning and nan
    assert p_value([0.2], [0.7], "t") == 1.0
    assert p_value([0.2, 0.3], [0.7, 0.8], "t") < 0.05  # constant difference 0.5, zero variance: t = inf


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
def test_a_run_against_itself(test: str) -> None:
    assert p_value(A, A, test) == 1.0
    assert bootstrap_ci(A, A) == (0.0, 0.0)


@pytest.mark.parametrize("seed", range(20))
def test_holm_never_lowers_a_p_value(seed: int) -> None:
    p = np.random.default_rng(seed).random(6).tolist()
    for method in ("holm", "bonferroni"):
        assert all(adj >= raw - 1e-15 for adj, raw in zip(correct(p, method), p, strict=True))
    holm, bonf = correct(p, "holm"), correct(p, "bonferroni")
    assert all(h <= b + 1e-15 for h, b in zip(holm, bonf, strict=True))  # Holm is never more severe


def test_holm_hand_example() -> None:
    # sorted 0.01, 0.02, 0.03 -> 3 * 0.01, max(0.03, 2 * 0.02), max(0.04, 1 * 0.03)
    assert correct([0.03, 0.01, 0.02], "holm") == pytest.approx([0.04, 0.03, 0.04])


# ------------------------------------------------------------------------------ command

RUNS = [str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run")]


def test_compare_with_itself_and_formats(tmp_path: object) -> None:
    from segeval.analyses.compare import Statistics, compare_runs, render

    # the same run twice (API): differences 0, p = 1, nothing significant
    result = compare_runs(_qrels(RUNS[0]), [RUNS[1], RUNS[1]], ["map"], statistics=Statistics(permutations=500))
    doc = json.loads(render(result, "json"))
    assert doc["baseline"] == "gen_linking.run" and doc["queries"] == 6 and doc["runs"][1] == "gen_linking.run#2"
    cell = doc["cells"]["gen_linking.run#2"]["map_once"]  # the segment default, overlap-once
    assert (cell["diff"], cell["p"], cell["significant"], cell["ci"]) == (0.0, 1.0, False, [0.0, 0.0])
    # on the command line a file named twice is one run: nothing to compare, and the message says why
    code, _, err = run_cli("compare", *RUNS, str(FIXTURES / "gen_linking.run"))
    assert code == 2 and "must name at least two different runs. Got " in err and "gen_linking.run' twice" in err
    code, _, err = run_cli("compare", *RUNS, "--baseline", str(FIXTURES / "gen_linking.run"))
    assert code == 2 and "at least two runs to compare (the baseline among them). Got 'gen_linking.run' instead" in err
    code, _, _ = run_cli("compare", RUNS[0], RUNS[1], str(FIXTURES / "gen_linking.default.expected"))
    assert code == 2  # a non-run file is a clear input error


def test_compare_two_runs_all_formats(tmp_path: object) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    lines = (FIXTURES / "gen_linking.run").read_text().splitlines()
    other = [line for i, line in enumerate(lines) if i % 3]  # drop every third result
    (base / "other.run").write_text("\n".join(other) + "\n")
    args = ["compare", *RUNS, str(base / "other.run"), "-m", "map", "-m", "P_10", "--permutations", "500"]
    code, md, _ = run_cli(*args, "-o", "markdown")
    assert code == 0 and md.startswith("| run | map_once | P_10_once |") and "(baseline)" in md
    code, tex, _ = run_cli(*args, "-o", "latex")
    assert r"\toprule" in tex and r"\bottomrule" in tex and r"P\_10\_once" in tex
    code, out, _ = run_cli(*args, "-o", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["run"], r["measure"]) for r in rows][:2] == [("gen_linking.run", "map_once"),
                                                         ("gen_linking.run", "P_10_once")]
    assert rows[2]["p"] and rows[0]["p"] == ""
    code, txt, _ = run_cli(*args, "--test", "wilcoxon", "--correction", "bonferroni")
    assert "test: wilcoxon, correction: bonferroni" in txt


def test_correlate_two_settings(tmp_path: object) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    lines = (FIXTURES / "gen_linking.run").read_text().splitlines()
    runs = []
    for k in (2, 3, 5):  # three runs: drop every k-th result
        (base / f"r{k}").write_text("\n".join(x for i, x in enumerate(lines) if i % k) + "\n")
        runs.append(str(base / f"r{k}"))
    code, out, _ = run_cli("correlate", RUNS[0], *runs, "-m", "map", "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["kendall_tau_b"] == 1.0 and doc["swapped_pairs"] == 0 and doc["rms_error"] == 0.0
    code, out, _ = run_cli("correlate", RUNS[0], *runs, "-m", "map", "--adapter2", "binned:60", "-o", "json")
    doc = json.loads(out)
    assert code == 0 and -1.0 <= doc["kendall_tau_b"] <= 1.0 and len(doc["setting2"]) == 3
    assert doc["kendall_tau_b"] == pytest.approx(C.kendall_tau(doc["setting1"], doc["setting2"]))


def _qrels(path: str) -> pd.DataFrame:
    """Validated qrels, as the command line reads them."""
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import validate_qrels

    return validate_qrels(read_qrels(path))
