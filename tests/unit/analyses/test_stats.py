"""Significance tests: the (b + 1) / (B + 1) rule by hand, fewer than 2 queries, SciPy differential tests,
NaN scores, parameter domains, batched resampling, and what `compare` states about its methods."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import segeval.analyses.stats as S
from segeval.analyses.stats import bootstrap_ci, p_value
from segeval.core.errors import InputError, ParameterError
from tests.conftest import FIXTURES, run_cli
from tests.support.stats import exact_randomization

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

RUNS = [str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run")]


@pytest.mark.parametrize("permutations", [1, 9, 999, 10_000])
def test_bootstrap_p_is_never_zero(permutations: int) -> None:
    # d = (1, 1): every resample has mean 1, so the centred statistic |1 - 1| = 0 never reaches the
    # observed |1|: b = 0 whatever the seed, p = (0 + 1) / (B + 1) (it was 0 before)
    assert p_value([0, 0], [1, 1], "bootstrap", permutations=permutations, seed=3) == 1 / (permutations + 1)


def test_randomization_p_counts_the_observed_arrangement() -> None:
    # d = (1, 2, 3): |mean| = 2 is reached only when no sign is flipped (all +) or all are (all -), so b
    # follows the sign draws; they are the generator's choice([-1, 1], (B, 3)) as one draw would make them
    B = 999
    signs = np.random.default_rng(11).choice(np.array([-1.0, 1.0]), size=(B, 3))
    b = int(np.sum(np.all(signs == signs[:, :1], axis=1)))
    assert 0 < b < B
    assert p_value([0, 0, 0], [1, 2, 3], "randomization", permutations=B, seed=11) == (b + 1) / (B + 1)
    # exact enumeration: 2 of the 8 sign assignments reach |mean| = 2
    assert exact_randomization([0, 0, 0], [1, 2, 3]) == 2 / 8


@pytest.mark.parametrize("test", S.TESTS)
def test_fewer_than_two_queries_gives_p_one_for_every_test(test: str) -> None:
    assert p_value([0.2], [0.9], test) == 1.0  # one query: no test is possible (bootstrap gave p = 0 before)
    assert p_value([], [], test) == 1.0
    assert all(math.isnan(v) for v in bootstrap_ci([0.2], [0.9]))
    assert exact_randomization([0.2], [0.9]) == 1.0


def scipy_cases() -> list[tuple[list[float], list[float]]]:
    rng = np.random.default_rng(2)
    cases = []
    for n in (2, 3, 5, 8, 10, 14, 30, 50, 51, 80):  # exact, permutation (n <= 13 with ties), normal
        a = rng.random(n)
        cases.append((a.tolist(), (a + rng.normal(0.05, 0.1, n)).tolist()))  # no ties
        b = np.round(a + rng.normal(0.03, 0.1, n), 1)  # ties and zero differences
        cases.append((np.round(a, 1).tolist(), b.tolist()))
    return cases


def test_t_and_wilcoxon_equal_scipy_on_ties_zeros_and_every_wilcoxon_method() -> None:
    worst, compared = 0.0, 0
    for a, b in scipy_cases():
        if not np.any(np.asarray(b) - np.asarray(a)):
            continue
        for ours, theirs in ((p_value(a, b, "t"), stats.ttest_rel(b, a).pvalue),
                             (p_value(a, b, "wilcoxon"), stats.wilcoxon(b, a).pvalue)):
            worst = max(worst, abs(ours - theirs) / theirs)
            compared += 1
    assert compared == 40 and worst < 1e-12


def test_nan_scores_name_the_run_and_the_query() -> None:
    with pytest.raises(ParameterError, match=r"Got nan for run 'sys', query 'q2' instead"):
        p_value([0.1, 0.2], [0.3, math.nan], "t", runs=("base", "sys"), queries=["q1", "q2"])
    with pytest.raises(ParameterError, match=r"Got nan for run 'a', query '#1' instead"):
        bootstrap_ci([math.nan, 0.2], [0.3, 0.4])
    for test in S.TESTS:
        with pytest.raises(ParameterError, match="finite numbers"):
            p_value([0.1, math.inf], [0.3, 0.4], test)


def test_compare_refuses_nan_per_query_values(monkeypatch: pytest.MonkeyPatch) -> None:
    import segeval.executors.processes
    from segeval.analyses.compare import Statistics, compare_runs

    real = segeval.executors.processes.evaluate_runs

    def with_nan(*args: object, **kwargs: object) -> object:
        results = real(*args, **kwargs)  # type: ignore[arg-type]
        values = results[1].evaluation.per_query["map"]
        values[2] = math.nan
        return results

    monkeypatch.setattr(segeval.executors.processes, "evaluate_runs", with_nan)
    with pytest.raises(InputError, match=r"run 'gen_linking.run#2' has no number for measure 'map' on query"):
        compare_runs(_qrels(RUNS[0]), [RUNS[1], RUNS[1]], ["map"], adapter="overlap",
                     statistics=Statistics(permutations=10))


@pytest.mark.parametrize(("args", "message"), [
    (["--permutations", "0"], "The 'permutations' parameter must be an integer >= 1. Got 0 instead."),
    (["--permutations", "-5"], "The 'permutations' parameter must be an integer >= 1. Got -5 instead."),
    (["--permutations", "1000000000"], "The 'permutations' parameter must be an integer in [1, 10000000]. "
                                       "Got 1000000000 instead (SEGEVAL_MAX_PERMUTATIONS raises the limit"),
    (["--alpha", "2"], "The '--alpha' parameter must be a number in (0, 1). Got 2.0 instead."),
    (["--alpha", "0"], "The '--alpha' parameter must be a number in (0, 1). Got 0.0 instead."),
    (["--alpha", "1"], "The '--alpha' parameter must be a number in (0, 1). Got 1.0 instead."),
    (["--alpha", "nan"], "The '--alpha' parameter must be a number in (0, 1). Got nan instead."),
    (["--seed", "-1"], "The '--seed' parameter must be an integer >= 0. Got -1 instead."),
    (["--test", "z"], "The 'test' parameter must be one of 't', 'wilcoxon', 'randomization', 'bootstrap', 'tukey'."),
    (["--correction", "fdr"], "The 'correction' parameter must be one of 'holm', 'bonferroni', 'none'."),
])
def test_compare_option_domains(args: list[str], message: str) -> None:
    code, out, err = run_cli("compare", *RUNS, str(FIXTURES / "gen_linking.default.expected"), *args)
    assert code == 2 and out == "" and message in err and "Traceback" not in err
    assert err.count("\n") == 1  # one line, before any run is read (the third file is not a run)


def test_permutation_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_PERMUTATIONS", "100")
    with pytest.raises(ParameterError, match=r"must be an integer in \[1, 100\]. Got 101 instead"):
        p_value([0.1, 0.2], [0.3, 0.5], "randomization", permutations=101)
    assert 0 < p_value([0.1, 0.2], [0.3, 0.5], "randomization", permutations=100) <= 1
    monkeypatch.setenv("SEGEVAL_MAX_PERMUTATIONS", "lots")
    with pytest.raises(ParameterError, match="SEGEVAL_MAX_PERMUTATIONS environment variable must be an integer"):
        p_value([0.1, 0.2], [0.3, 0.5], "bootstrap")


def unbatched(d: np.ndarray, test: str, B: int, seed: int) -> tuple[float, tuple[float, float]]:
    """p (with the +1 rule) and the 95% interval from one draw of all B resamples."""
    n = len(d)
    obs = abs(d.mean())
    boot = d[np.random.default_rng(seed).integers(0, n, size=(B, n))].mean(axis=1)
    if test == "randomization":
        signs = np.random.default_rng(seed).choice(np.array([-1.0, 1.0]), size=(B, n))
        b = int(np.sum(np.abs((signs * d).mean(axis=1)) >= obs - 1e-12))
    else:
        b = int(np.sum(np.abs(boot - d.mean()) >= obs - 1e-12))
    low, high = np.percentile(boot, [2.5, 97.5])
    return (b + 1) / (B + 1), (float(low), float(high))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 12])
def test_batches_draw_the_same_stream_as_one_draw(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(S, "BATCH_VALUES", 16)  # batches of at most 16 indices: many batches, odd sizes
    rng = np.random.default_rng(n)
    a, b = rng.random(n + 1), rng.random(n + 1)
    d = b - a
    for test in ("randomization", "bootstrap"):
        p, ci = unbatched(d, test, 1001, seed=n)
        assert p_value(a, b, test, permutations=1001, seed=n) == p
        # the same resamples; a mean over a batch of another shape may differ in the last bit
        assert bootstrap_ci(a, b, samples=1001, seed=n) == pytest.approx(ci, rel=1e-12, abs=1e-15)


def test_compare_states_its_methods(tmp_path: Path) -> None:
    lines = (FIXTURES / "gen_linking.run").read_text().splitlines()
    (tmp_path / "other.run").write_text("\n".join(x for i, x in enumerate(lines) if i % 3) + "\n")
    args = ["compare", *RUNS, str(tmp_path / "other.run"), "-m", "map", "-m", "P_10", "--permutations", "200"]
    code, out, _ = run_cli(*args, "--test", "wilcoxon", "-o", "json")
    doc = json.loads(out)
    assert code == 0
    notes = "\n".join(doc["notes"])
    assert "zero differences are dropped (Wilcoxon's zero_method='wilcox')" in notes
    assert "holm correction over all 2 run x measure cells (1 run x 2 measures against the baseline)" in notes
    assert "not adjusted for the 2 comparisons" in notes
    code, out, _ = run_cli(*args, "--test", "bootstrap", "--correction", "none")
    assert "p = (b + 1) / (B + 1)" in out and "B = 200" in out and "p-values not corrected for the 2" in out
    code, tex, _ = run_cli(*args, "-o", "latex")
    assert "% note: holm correction over all 2 run x measure cells" in tex


def test_compare_on_one_query_is_never_significant(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "good").write_text("q1 Q0 d1 1 2 g\nq1 Q0 d2 2 1 g\n")
    (tmp_path / "bad").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\n")
    for test in S.TESTS:
        code, out, _ = run_cli("compare", str(tmp_path / "q"), str(tmp_path / "bad"), str(tmp_path / "good"),
                               "--test", test, "-o", "json")
        doc = json.loads(out)
        cell = doc["cells"]["good"]["map"]
        assert code == 0 and cell["diff"] == 0.5 and cell["p"] == 1.0 and not cell["significant"]
        assert cell["ci"] is None and any("only 1 query: no paired test" in n for n in doc["notes"])


def _qrels(path: str) -> pd.DataFrame:
    """Validated qrels, as the command line reads them."""
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import validate_qrels

    return validate_qrels(read_qrels(path))
