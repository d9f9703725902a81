"""Hand-derived values of the judgement-group and preference measures (trec_eval's format help examples);
trec_eval's own outputs are compared in tests/reference/test_trec_prefs.py."""

from __future__ import annotations

import pytest

from segeval.measures import prefs as P
from segeval.readers.judgements import Judgement


def lines(text: str) -> list[Judgement]:
    return [Judgement(g, s, d, float(x)) for g, s, d, x in (line.split() for line in text.strip().splitlines())]


def test_one_subgroup_prefers_across_its_levels() -> None:
    """trec_eval's example: levels d4 6, d1 3, d2 2, d6 2, d3 0, d5 0 make 5 + 4 + 2 + 2 = 13 preferences.
    Ranking d1, d4: d4 > d1 fails (both retrieved), the 8 preferences of d1 or d4 over a missing document are
    fulfilled (implied), the 4 between missing documents are not."""
    x = P.preferences(["d1", "d4", "zz"], lines("g s d1 3\ng s d2 2\ng s d3 0\ng s d4 6\ng s d5 0\ng s d6 2"))
    assert (P.num_prefs_poss(x), P.num_prefs_ful(x), P.num_prefs_ful_ret(x)) == (13, 8, 0)
    assert (P.simp(x), P.simp_imp(x), P.simp_ret(x)) == (8 / 13, 8 / 9, 0.0)
    assert P.avgjg(x) == 8 / 13  # one group


def test_subgroups_are_closed_transitively() -> None:
    """trec_eval's example: 1 > 2 > 3 in one subgroup, 2 > 4 in another: 1 > 2, 1 > 3, 2 > 3, 2 > 4 and 1 > 4."""
    x = P.preferences([], lines("g a d1 3\ng a d2 2\ng a d3 1\ng b d2 5\ng b d4 4"))
    assert P.num_prefs_poss(x) == 5 and P.num_prefs_ful(x) == 0


def test_groups_disagree() -> None:
    """trec_eval's example of two users: 1 > 2 (user 1); 3 > 1, 4 > 1, 3 > 4, 2 > 1 (user 2). Ranking 2, 1:
    user 1's 1 > 2 fails, user 2's 2 > 1 holds: the pair scores 1/2 in prefs_pair; 3 > 4 is between missing
    documents (0); 3 > 1 and 4 > 1 fail: pairs 0 and 0, so prefs_pair = (1/2 + 0 + 0 + 0) / 4."""
    x = P.preferences(["d2", "d1"], lines("u1 s d1 3\nu1 s d2 2\nu2 s d1 0\nu2 s d3 6\nu2 s d4 2\n"
                                          "u2 t d1 0\nu2 t d2 8"))
    assert P.num_prefs_poss(x) == 5 and P.num_prefs_ful(x) == 1
    assert P.pair(x) == pytest.approx(0.5 / 4) and P.pair_ret(x) == 0.5
    assert P.avgjg(x) == pytest.approx((0 / 1 + 1 / 4) / 2)  # user 1: 0 of 1; user 2: 1 of 4


def test_contradicting_subgroups_are_refused() -> None:
    with pytest.raises(P.PreferenceError, match="other way round"):
        P.preferences([], lines("g a d1 2\ng a d2 1\ng b d2 2\ng b d1 1"))


def test_judgement_groups_are_averaged() -> None:
    """Ranking a, b, c. Group u1 judges a and c relevant: AP (1/1 + 2/3) / 2 = 5/6, P_2 1/2; group u2 judges b:
    AP (1/2) / 1, P_2 1/2. map_avgjg = (5/6 + 1/2) / 2 = 2/3; under -J u2 ranks b alone: AP 1."""
    judged = lines("u1 0 a 1\nu1 0 c 1\nu1 0 b 0\nu2 0 b 1")
    x = P.groups(["a", "b", "c"], judged, 1, judged_only=False)
    assert P.map_avgjg(x) == pytest.approx(2 / 3) and P.p_avgjg(x, 2) == 0.5
    assert P.map_avgjg(P.groups(["a", "b", "c"], judged, 1, judged_only=True)) == pytest.approx((5 / 6 + 1) / 2)
