"""trec_eval's arithmetic, not only its algebra: values on a 4th-decimal boundary print trec_eval's digit.

When a measure's exact value ends in 5 at the 5th decimal, ``%6.4f`` prints the digit the last bit
of the double decides, so every sum must add in trec_eval's order.  The expected outputs are
trec_eval 10.0's (the three cases of issue 13 below, and the generated cases of
:mod:`tests.support.trec_boundary` stored in ``fixtures/trec_boundary``); each is checked on the vectorised
path (:mod:`segeval.measures.batch`) and on the per-query definitions.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.measures import declaration
from segeval.measures.arithmetic import log2_discounts, lround, running_sum
from tests.conftest import run_cli, sliced
from tests.support import trec_boundary as TB
from tests.support.reference import require_binary

PATHS = ("vectorised", "per-query")


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Evaluate through the vectorised measures, or with them switched off (every value from the
    per-query definitions); the test fails if the switch was never consulted."""
    consulted: list[str] = []
    if request.param == "per-query":
        def no_batch(self: declaration.Measure, b: Any) -> None:
            consulted.append(self.name)
            return None

        monkeypatch.setattr(declaration.Measure, "batch", no_batch)
    yield request.param
    if request.param == "per-query":
        assert consulted, "the per-query path was not taken"


def segeval(tmp_path: Path, qrels: str, run: str, *args: str) -> str:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    code, out, err = run_cli("eval", *args, str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert code == 0, err
    return out


# ------------------------------------------------------------------- the cases of issue 13

def bpref_topic(qid: str, nonrel_above: list[int], big_n: int) -> tuple[list[str], list[str]]:
    """R = 32 relevant docs, ``big_n`` judged non-relevant; the j-th relevant doc retrieved has
    ``nonrel_above[j]`` judged non-relevant docs above it."""
    qrels = [f"{qid} 0 r{i:02d} 1" for i in range(32)] + [f"{qid} 0 n{i:02d} 0" for i in range(big_n)]
    ranking: list[str] = []
    for j, above in enumerate(nonrel_above):
        ranking += [f"n{i:02d}" for i in range(len(ranking) - j, above)]
        ranking.append(f"r{j:02d}")
    return qrels, ranking


# q1: bpref = (Σ 1 - nr/5 over the 17 relevant retrieved) / 32 = (17 - 48/5) / 32 = 37/160 = 0.23125
Q1 = bpref_topic("q1", [0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5], 5)
# q2: bpref = (13 - (4+4+6+6+7+7+8+10+11+13+22+24+24)/25) / 32 = (13 - 146/25) / 32 = 179/800 = 0.22375
Q2 = bpref_topic("q2", [4, 4, 6, 6, 7, 7, 8, 10, 11, 13, 22, 24, 24], 25)
# q3: R = 32, relevant at ranks 3, 4, 5, 6, 10: map_cut_10 = (1/3 + 2/4 + 3/5 + 4/6 + 5/10) / 32 = 2.6/32 = 0.08125
Q3 = ([f"q3 0 r{i:02d} 1" for i in range(32)],
      ["x01", "x02", "r00", "r01", "r02", "r03", "x07", "x08", "x09", "r04"])
# trec_eval 10.0's output for these files (-q -m bpref -m map_cut.10); segeval printed 0.2312, 0.2238, 0.0813
# and bpref all 0.2038 before its sums went left to right
ISSUE_13 = """\
bpref                 \tq1\t0.2313
map_cut_10            \tq1\t0.1959
bpref                 \tq2\t0.2237
map_cut_10            \tq2\t0.0396
bpref                 \tq3\t0.1562
map_cut_10            \tq3\t0.0812
bpref                 \tall\t0.2037
map_cut_10            \tall\t0.1056
"""


def issue_files() -> tuple[str, str]:
    qrels, run = [], []
    for qid, (lines, ranking) in zip(("q1", "q2", "q3"), (Q1, Q2, Q3), strict=True):
        qrels += lines
        run += [f"{qid} Q0 {d} {i + 1} {len(ranking) - i} run" for i, d in enumerate(ranking)]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def test_issue_cases_are_boundaries() -> None:
    """The derivations above: the exact values end in 5 at the 5th decimal."""
    q1 = TB.Query("q1", tuple(1 if d.startswith("r") else 0 for d in Q1[1]), (1,) * 15)
    q2 = TB.Query("q2", tuple(1 if d.startswith("r") else 0 for d in Q2[1]), (1,) * 19 + (0,))
    q3 = TB.Query("q3", tuple(1 if d.startswith("r") else TB.NONPOOL for d in Q3[1]), (1,) * 27)
    assert TB.exact(q1)["bpref"] == Fraction(37, 160) and TB.boundary(Fraction(37, 160))
    assert TB.exact(q2)["bpref"] == Fraction(179, 800) and TB.boundary(Fraction(179, 800))
    assert TB.exact(q3)["map_cut_10"] == Fraction(26, 320) and TB.boundary(Fraction(26, 320))


def test_issue_cases_print_trec_eval_digits(tmp_path: Path, path: str) -> None:
    assert segeval(tmp_path, *issue_files(), "-q", "-m", "bpref", "-m", "map_cut.10") == ISSUE_13


# ------------------------------------------------------------------- the arithmetic helpers

def test_running_sum_adds_left_to_right() -> None:
    rng = np.random.default_rng(13)
    for n in (0, 1, 7, 8, 9, 100, 1000):
        terms = rng.random(n) * 10.0 ** rng.integers(-3, 3, n)
        expected = 0.0
        for x in terms.tolist():
            expected += x
        assert running_sum(terms) == expected
    # three terms whose pairwise and exact sums differ from the left-to-right one: (0.1 + 0.2) + 0.3
    assert running_sum([0.1, 0.2, 0.3]) == (0.1 + 0.2) + 0.3 == 0.6000000000000001 != math.fsum([0.1, 0.2, 0.3])


def test_log2_discounts_are_the_c_librarys() -> None:
    n = 5000
    assert log2_discounts(n).tolist() == [math.log2(i + 2) for i in range(n)]
    assert log2_discounts(3).tolist() == [1.0, math.log2(3), 2.0]


def test_lround_rounds_halves_away_from_zero() -> None:
    assert [lround(x) for x in (0.0, 0.4, 0.5, 1.5, 2.5, 47.4, 0.7 * 5)] == [0, 0, 1, 2, 3, 47, 4]
    # floor(x + 0.5) rounds the largest double below 0.5 up; C's lround does not
    assert lround(0.49999999999999994) == 0 != math.floor(0.49999999999999994 + 0.5)


# ------------------------------------------------------------------- the generated boundary cases

@cache
def case(seed: int) -> TB.Case:
    return TB.generate(seed)


@pytest.mark.parametrize("command", sorted(TB.COMMANDS))
@pytest.mark.parametrize("seed", sliced(TB.SEEDS, 2))
def test_generated_boundaries_equal_trec_eval(tmp_path: Path, seed: int, command: str, path: str) -> None:
    """segeval's whole output equals trec_eval's stored output byte for byte."""
    c = case(seed)
    got = segeval(tmp_path, c.qrels, c.run, *TB.COMMANDS[command])
    expected = TB.stored_output(seed, command)
    if got != expected:
        wrong = [(a, b) for a, b in zip(expected.splitlines(), got.splitlines(), strict=False) if a != b]
        pytest.fail(f"{len(wrong)} lines differ from trec_eval's, first: {wrong[:3]}")


def printed(seed: int) -> dict[tuple[str, str], str]:
    """trec_eval's printed value of every (measure, query) line of a seed's two outputs."""
    out = {}
    for command in TB.COMMANDS:
        for line in TB.stored_output(seed, command).splitlines():
            name, qid, value = line.split("\t")
            out[(name.rstrip(), qid)] = value
    return out


def neighbours(v: Fraction) -> set[str]:
    """The two 4-decimal texts around v (one when v is not within a hair of a boundary)."""
    return {f"{float(v - Fraction(1, 10**9)):.4f}", f"{float(v + Fraction(1, 10**9)):.4f}"}


def test_generator_values_match_trec_eval() -> None:
    """The generator's exact values are trec_eval's: every rational line of the stored outputs
    prints one of the roundings of the exact value (both only at boundaries)."""
    checked = 0
    for seed in TB.SEEDS:
        c, lines = case(seed), printed(seed)
        totals: dict[str, Fraction] = {}
        for q in c.queries:
            for name, v in TB.exact(q).items():
                assert lines[(name, q.qid)] in neighbours(v), (seed, name, q.qid, v)
                totals[name] = totals.get(name, Fraction(0)) + v
                checked += 1
        for name, total in totals.items():
            assert lines[(name, "all")] in neighbours(total / len(c.queries)), (seed, name)
    assert checked > 5000


def test_generator_reaches_every_family() -> None:
    """Every rational family has boundary values per query (except those that cannot) and in
    ``all``; the stored outputs print both roundings at boundaries (the digit really depends on
    the arithmetic)."""
    per_query, averages, digits = set(), set(), {}
    for seed in TB.SEEDS:
        lines = printed(seed)
        for (name, qid), v in case(seed).boundaries.items():
            (averages if qid == "all" else per_query).add(TB.FAMILY_OF[name])
            text = lines[(name, qid)]
            digits[text == f"{float(v):.4f}"] = text
    assert per_query == set(TB.FAMILIES) - TB.ALL_ONLY
    assert averages == set(TB.FAMILIES)
    assert sum(len(case(s).boundaries) for s in TB.SEEDS) > 1500
    assert len(digits) == 2  # some boundaries print as the nearest double rounds, some do not


# ------------------------------------------------------------------- live, with a trec_eval binary (CI)

@pytest.fixture
def trec_eval_binary() -> str:
    """A trec_eval 10 binary (TREC_EVAL, or trec_eval on PATH); the test is skipped without one (fails in CI)."""
    return require_binary("trec_eval", variable="TREC_EVAL", why="build it from ../shared/src/trec_eval-10.0")


@pytest.mark.parametrize("seed", (101, 102, 103))
def test_live_trec_eval(trec_eval_binary: str, tmp_path: Path, seed: int, path: str) -> None:
    """Fresh seeds against a trec_eval 10 binary built from its source, when there is one."""
    binary = trec_eval_binary
    c = TB.generate(seed)
    for command in TB.COMMANDS:
        expected = TB.run_trec_eval(binary, c, tmp_path / "trec_eval", command)
        assert segeval(tmp_path, c.qrels, c.run, *TB.COMMANDS[command]) == expected, command
