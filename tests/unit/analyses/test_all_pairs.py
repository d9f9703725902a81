"""``compare`` over every pair of runs, Tukey's HSD, and the Comparison's tables out (issue 24, item 3)."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from segeval import compare
from segeval.analyses.stats import tukey_p_values
from tests.conftest import run_cli

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

RNG = np.random.default_rng(7)
QRELS = {f"q{i}": {f"d{j}": int(RNG.integers(0, 2)) for j in range(8)} for i in range(12)}
RUNS = {name: {q: {f"d{j}": float(RNG.random()) for j in range(8)} for q in QRELS} for name in ("a", "b", "c")}


def tukey_by_hand(groups: list[np.ndarray]) -> np.ndarray:
    """Tukey-Kramer: q = |mean_i - mean_j| / sqrt(MSE / 2 * (1/n_i + 1/n_j)), MSE the pooled within-run
    variance on N - k degrees of freedom; p = P(Q > q) of the studentized range with k groups."""
    from scipy.stats import studentized_range

    k, n = len(groups), sum(len(g) for g in groups)
    mse = sum(((g - g.mean()) ** 2).sum() for g in groups) / (n - k)
    p = np.ones((k, k))
    for i, j in itertools.permutations(range(k), 2):
        q = abs(groups[i].mean() - groups[j].mean()) / np.sqrt(mse / 2 * (1 / len(groups[i]) + 1 / len(groups[j])))
        p[i, j] = studentized_range.sf(q, k, n - k)
    return p


def test_tukey_p_values_equal_the_studentized_range() -> None:
    # ranx's Tukey test is SciPy's tukey_hsd on the per-query scores, as ours; checked here on its definition
    groups = [RNG.random(15) + shift for shift in (0.0, 0.1, 0.35)]
    np.testing.assert_allclose(tukey_p_values(groups), tukey_by_hand(groups), rtol=1e-6, atol=1e-9)


def test_tukey_without_variance_is_decided_by_the_means() -> None:
    p = tukey_p_values([np.ones(4), np.ones(4), np.zeros(4)])
    assert p[0, 1] == 1.0 and p[0, 2] == 0.0  # SciPy has no value (MSE 0): equal means 1, different 0


def test_all_pairs_each_pair_with_holm_over_every_pair_and_measure() -> None:
    from scipy.stats import ttest_rel

    from segeval import evaluate
    from segeval.analyses.stats import correct

    result = compare(QRELS, RUNS, ["map", "P_5"], all_pairs=True, permutations=200)
    assert [(x.a, x.b, x.measure) for x in result.pairs] == [
        (a, b, m) for a, b in (("a", "b"), ("a", "c"), ("b", "c")) for m in ("map", "P_5")]
    per_query = {n: evaluate(QRELS, run, ["map", "P_5"]).per_query for n, run in RUNS.items()}
    raw = [float(ttest_rel(per_query[x.b][x.measure], per_query[x.a][x.measure]).pvalue) for x in result.pairs]
    holm = correct(raw, "holm")  # Holm over the 3 pairs x 2 measures, checked on its own in test_stats
    for x, p in zip(result.pairs, holm, strict=True):
        assert x.diff == pytest.approx(np.mean(per_query[x.b][x.measure]) - np.mean(per_query[x.a][x.measure]))
        assert x.p == pytest.approx(p) and x.significant == (p < 0.05)
    assert any("holm correction over all 6 run pair x measure cells (3 pairs x 2 measures)" in n
               for n in result.notes)


def test_tukey_all_pairs_is_not_corrected_again() -> None:
    from segeval import evaluate

    result = compare(QRELS, RUNS, "map", all_pairs=True, test="tukey", permutations=200)
    assert result.statistics.correction == "none"
    groups = [np.asarray(evaluate(QRELS, RUNS[n], "map").per_query["map"]) for n in "abc"]
    expected = tukey_by_hand(groups)
    assert [x.p for x in result.pairs] == pytest.approx([expected[0, 1], expected[0, 2], expected[1, 2]], rel=1e-6)
    with pytest.raises(Exception, match="must be 'none' with test 'tukey'"):
        compare(QRELS, RUNS, "map", test="tukey", correction="holm")


def test_comparison_tables_out_are_the_command_line_tables() -> None:
    for all_pairs in (False, True):
        result = compare(QRELS, RUNS, ["map", "P_5"], all_pairs=all_pairs, permutations=200)
        frame = result.to_dataframe()
        from_csv = pd.read_csv(io.StringIO(result.to_csv()))
        assert list(frame.columns) == list(from_csv.columns) and len(frame) == len(from_csv) == 6  # 3 x 2 measures
        pd.testing.assert_series_equal(frame["p"].astype(float), from_csv["p"], check_exact=False, rtol=1e-12)
        assert str(result).startswith("run ") and "\\begin{tabular}" in result.to_latex()
        assert result.to_markdown().startswith("| run |")
        assert ("pairs" in json.loads(result.to_json())) == all_pairs
        assert ("pair (b - a)" in str(result)) == all_pairs


def test_compare_all_pairs_on_the_command_line(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items()))
    paths = []
    for name, run in RUNS.items():
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
    code, out, err = run_cli("compare", str(qrels), *map(str, paths), "--all-pairs", "--test", "tukey")
    assert code == 0, err
    assert "pair (b - a)" in out and "c - a" in out and "no further correction: tukey" in out
    code, _, err = run_cli("compare", str(qrels), *map(str, paths), "--test", "tukey", "--correction", "holm")
    assert code == 2 and "must be 'none' with test 'tukey'" in err
