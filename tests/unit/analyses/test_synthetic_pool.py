"""The paper's pool-bias effects, in direction, on the synthetic collection of scripts/synthetic_collection.py."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from segeval.analyses.pool import leave_one_out
from segeval.readers.tables import read_qrels, read_run
from tests.conftest import sliced
from tests.support.scripts import load_script


def synthetic() -> ModuleType:
    return load_script("synthetic_collection")


def test_the_generator_is_deterministic_and_the_pool_is_the_truth_in_the_top_depth(tmp_path: Path) -> None:
    syn = synthetic()
    a, b = syn.generate(5, topics=3, groups=2), syn.generate(5, topics=3, groups=2)
    assert a.truth == b.truth and a.runs == b.runs and a.texts == b.texts
    assert len(a.truth) == 3 * 200 and sum(r for _, _, r in a.truth) == 3 * 25
    pool = a.pool()
    tops = {(q, d) for rows in a.runs.values() for i, (q, d, _) in enumerate(rows)
            if sum(1 for x in rows[:i] if x[0] == q) < a.depth}
    assert {(q, d) for q, d, _ in pool} == tops  # every run's top 20 per topic is judged, nothing else
    syn.write(a, tmp_path)
    assert len((tmp_path / "pool.qrels").read_text().splitlines()) == len(pool)
    assert sorted(p.stem for p in (tmp_path / "runs").iterdir()) == ["G1r1", "G1r2", "G2r1", "G2r2"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_leaving_a_group_out_hurts_ap_and_p20_and_inflates_bpref(seed: int, tmp_path: Path) -> None:
    syn = synthetic()
    collection = syn.generate(seed, topics=10, groups=4, candidates=120, relevant=15, run_length=60)
    syn.write(collection, tmp_path)
    runs = {p.stem: read_run(p) for p in sorted((tmp_path / "runs").glob("*.txt"))}
    rows = {r.measure: r for r in leave_one_out(read_qrels(tmp_path / "pool.qrels"), runs, 20, collection.groups,
                                                ["map", "P_20", "bpref", "RankEff", "P_judged_20"])}
    # AP and P@20 underestimate the left-out runs, which never move up; bpref and P@20(j) overestimate them and
    # never move them down (section 5.2, Table 2); RankEff's error is smaller than bpref's
    assert rows["map"].mean_error < 0 and rows["P_20"].mean_error < 0
    assert rows["P_20"].max_up == 0 and rows["map"].max_up == 0
    assert rows["bpref"].mean_error > 0 and rows["bpref"].max_down == 0
    assert rows["P_judged_20"].mean_error > 0 and rows["P_judged_20"].max_down == 0
    assert rows["RankEff"].rms_error < rows["bpref"].rms_error
    assert rows["RankEff"].mean_abs_rank_change <= rows["bpref"].mean_abs_rank_change


@pytest.mark.parametrize("seed", sliced([0, 1, 2], 3))
def test_rankeff_moves_least_when_groups_find_different_documents(seed: int, tmp_path: Path) -> None:
    """The completion setting (groups that see documents differently, 40 of 300 candidates relevant): leaving a
    group out moves its runs' RankEff rank less than their MAP, P_20 and bpref ranks (section 5.2)."""
    syn = synthetic()
    collection = syn.generate(seed, **syn.HARD)
    syn.write(collection, tmp_path)
    runs = {p.stem: read_run(p) for p in sorted((tmp_path / "runs").glob("*.txt"))}
    rows = {r.measure: r for r in leave_one_out(read_qrels(tmp_path / "pool.qrels"), runs, 20, collection.groups,
                                                ["map", "P_20", "bpref", "RankEff"])}
    others = [rows[m].mean_abs_rank_change for m in ("map", "P_20", "bpref")]
    assert rows["RankEff"].mean_abs_rank_change < min(others)
    assert rows["bpref"].mean_error > 0 > rows["map"].mean_error  # bpref rises where AP falls
    assert rows["P_20"].max_up == 0 and rows["P_20"].max_down > 0  # the left-out runs lose P@20 rank
