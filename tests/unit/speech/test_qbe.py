"""`segeval qbe`: hand-derived Cnxe and TWV, PAV against scikit-learn's isotonic regression."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segeval.measures.trials import pav
from tests.conftest import full_only, run_cli

KEY = "q1 u1 1\nq1 u2 1\nq1 u3 0\nq1 u4 0\n"


def stdlist(*terms: tuple[str, float, str]) -> str:
    body = "".join(f'    <term file="{u}" channel="1" tbeg="0" dur="1" score="{s}" decision="{d}"/>\n'
                   for u, s, d in terms)
    return f'<stdlist termlist_filename="t" indexing_time="1" language="x" index_size="1" system_id="s">\n' \
           f'  <detected_termlist termid="q1" term_search_time="1" oov_term_count="0">\n{body}' \
           '  </detected_termlist>\n</stdlist>\n'


def figures(tmp_path: Path, system: str, *options: str) -> dict[str, float]:
    (tmp_path / "key").write_text(KEY)
    (tmp_path / "sys.xml").write_text(system)
    code, out, err = run_cli("qbe", "-o", "json", *options, str(tmp_path / "key"), str(tmp_path / "sys.xml"))
    assert code == 0, err
    return {row["measure"]: row["value"] for row in json.loads(out)}


def test_zero_scores_carry_no_information(tmp_path: Path) -> None:
    # every LLR 0 at prior 0.5: Cxe = 0.5·log2(2) + 0.5·log2(2) = 1 = the prior's entropy -> Cnxe 1
    result = figures(tmp_path, stdlist(("u1", 0, "NO"), ("u2", 0, "NO"), ("u3", 0, "NO"), ("u4", 0, "NO")),
                     "--prior", "0.5")
    assert result["actCnxe"] == pytest.approx(1.0, abs=1e-12)
    assert result["minCnxe"] == pytest.approx(1.0, abs=1e-12)


def test_min_cnxe_and_twv_by_hand(tmp_path: Path) -> None:
    # targets score 3 and 1, non-targets 2 and 0: PAV posteriors 1, .5, .5, 0 (empirical prior .5) ->
    # LLRs +inf, 0, 0, -inf; at prior .5 Cxe = .5·(0+1)/2 + .5·(1+0)/2 = 0.5 -> minCnxe 0.5
    system = stdlist(("u1", 3, "YES"), ("u2", 1, "NO"), ("u3", 2, "YES"), ("u4", 0, "NO"))
    result = figures(tmp_path, system, "--prior", "0.5")
    assert result["minCnxe"] == pytest.approx(0.5, abs=1e-12)
    # beta = (1/100)(1-0.0008)/0.0008 = 12.49; YES on u1 (hit) and u3 (FA): P_miss .5, P_FA .5
    # actTWV = 1 - (.5 + 12.49·.5) = -5.745; max TWV at threshold 3: P_miss .5, P_FA 0 -> 0.5
    assert result["beta"] == pytest.approx(12.49, abs=1e-12)
    assert result["actTWV"] == pytest.approx(-5.745, abs=1e-12)
    assert result["maxTWV"] == pytest.approx(0.5, abs=1e-12) and result["maxTWV_threshold"] == 3


def test_unreported_trials_get_the_default_score(tmp_path: Path) -> None:
    # only u1 reported (score 3): the others get 3 too by default (the lowest reported score), so no
    # threshold separates them: max TWV is rejecting everything (0) or accepting all (1 - 12.49) -> 0
    result = figures(tmp_path, stdlist(("u1", 3, "YES")))
    assert result["reported"] == 1 and result["maxTWV"] == 0.0
    # with --default-score -5 the threshold 3 keeps u1 alone: P_miss .5, P_FA 0 -> 0.5
    assert figures(tmp_path, stdlist(("u1", 3, "YES")), "--default-score", "-5")["maxTWV"] == pytest.approx(0.5)


@full_only  # imports scikit-learn
def test_pav_matches_isotonic_regression() -> None:
    isotonic = pytest.importorskip("sklearn.isotonic")
    rng = np.random.default_rng(7)
    scores = np.round(rng.normal(size=400), 1)  # with ties
    labels = rng.random(400) < 1 / (1 + np.exp(-2 * scores))
    expected = isotonic.IsotonicRegression().fit_transform(scores, labels.astype(float))
    assert np.allclose(pav(scores, labels), expected, atol=1e-12)


def test_pav_pools_violators_and_ties() -> None:
    # labels by score 0,0(tie 1/0),1,2: 0 | 1 0 -> .5 (tie pooled) | 0 at 1: .5 > 0 -> pool (1+0+0)/3 | 1 at 2
    scores = np.asarray([0.0, 0.5, 0.5, 1.0, 2.0])
    labels = np.asarray([False, True, False, False, True])
    assert pav(scores, labels).tolist() == pytest.approx([0, 1 / 3, 1 / 3, 1 / 3, 1])


def test_a_pair_outside_the_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / "key").write_text(KEY)
    (tmp_path / "sys.xml").write_text(stdlist(("u9", 1, "YES")))
    code, _, err = run_cli("qbe", str(tmp_path / "key"), str(tmp_path / "sys.xml"))
    assert code == 2 and "sys.xml, line 3: query q1 in utterance u9 is not a trial of the key" in err
