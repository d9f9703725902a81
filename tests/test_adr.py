"""ADR: the paper's examples, properties on seeded random cases, and a brute-force cross-check."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from segeval.adapt.base import Adapted
from segeval.errors import InputError
from segeval.measures import adr as A
from segeval.read import read_qrels
from tests.conftest import run_cli


def case(gt: list[list[str]], ranking: list[str]) -> Adapted:
    """An Adapted for documents: grades from the groups (first group highest)."""
    grade = {item: len(gt) - g for g, group in enumerate(gt) for item in group}
    grades = np.array([grade.get(x, np.nan) for x in ranking], dtype=np.float64)
    labels = np.where(np.isnan(grades), ord("-"), ord("1")).astype(np.uint8)
    n = len(ranking)
    return Adapted(labels, len(grade), np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                   np.arange(n, dtype=np.int64), grades, np.array(sorted(grade.values()), dtype=np.float64))


def brute_force(gt: list[list[str]], ranking: list[str], k: int | None = None) -> float:
    """ADR straight from the paper's formula, with sets."""
    flat = [(item, g) for g, group in enumerate(gt) for item in group]
    n = len(flat)
    k = n if k is None else k
    total = 0.0
    for i in range(1, k + 1):
        c = flat[i - 1][1] if i <= n else len(gt) - 1
        relevant = {item for item, g in flat if g <= c}
        total += len({r for r in ranking[:i] if r in relevant}) / i
    return total / k


PAPER_GT = [["1", "2"], ["3", "4", "5"]]


def test_paper_worked_examples() -> None:
    assert A.adr(case(PAPER_GT, list("23157894"))) == pytest.approx(0.86)  # (1 + .5 + 1 + 1 + .8) / 5
    assert round(A.adr(case(PAPER_GT, ["2", "10", "3", "1", "5", "7", "8", "9", "4"])), 4) == 0.7433


def test_paper_weakness_example_and_tie_breaker() -> None:
    gt = [["1"], ["2"], ["3"], ["4"]]
    first, second = case(gt, list("4356")), case(gt, list("3456"))
    # ADR cannot tell them apart: (0 + 0 + 1/3 + 2/4) / 4 for both
    assert A.adr(first) == A.adr(second) == pytest.approx((1 / 3 + 1 / 2) / 4)
    # constructed lists <4,3,1,1> and <3,4,1,1> under the inverted ground truth <(4),(3),(2),(1)>:
    # (1 + 1 + 2/3 + 3/4) / 4 and (0 + 1 + 2/3 + 3/4) / 4; lower favours the second list (3 before 4)
    assert A.adr_tiebreak(first) == pytest.approx((1 + 1 + 2 / 3 + 3 / 4) / 4)
    assert A.adr_tiebreak(second) == pytest.approx((0 + 1 + 2 / 3 + 3 / 4) / 4)
    assert A.adr_tiebreak(second) < A.adr_tiebreak(first)


def test_dynamic_recall_curve_is_the_papers_table() -> None:
    groups, sizes = A.ground_truth(case(PAPER_GT, list("23157894")))
    assert A.dynamic_recall(groups, sizes).tolist() == pytest.approx([1, 0.5, 1, 1, 0.8])


def random_case(rng: random.Random) -> tuple[list[list[str]], list[str]]:
    items = [f"d{i}" for i in range(rng.randint(1, 12))]
    rng.shuffle(items)
    gt: list[list[str]] = []
    while items:
        size = rng.randint(1, min(4, len(items)))
        gt.append(items[:size])
        items = items[size:]
    pool = [x for g in gt for x in g] + [f"x{i}" for i in range(rng.randint(0, 8))]
    ranking = rng.sample(pool, k=rng.randint(0, len(pool)))
    return gt, ranking


@pytest.mark.parametrize("seed", range(300))
def test_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    gt, ranking = random_case(rng)
    a = case(gt, ranking)
    assert A.adr(a) == pytest.approx(brute_force(gt, ranking))
    k = rng.randint(1, 15)
    assert A.adr_at(a, k) == pytest.approx(brute_force(gt, ranking, k))


@pytest.mark.parametrize("seed", range(200))
def test_properties(seed: int) -> None:
    rng = random.Random(seed)
    gt, ranking = random_case(rng)
    base = A.adr(case(gt, ranking))
    assert 0.0 <= base <= 1.0
    assert A.adr(case(gt, [x for g in gt for x in g])) == 1.0  # the ground truth itself
    assert A.adr(case(gt, [f"x{i}" for i in range(5)])) == 0.0  # nothing from the ground truth
    # inserting a false positive never raises ADR
    fp = ranking[:]
    fp.insert(rng.randint(0, len(fp)), "false-positive")
    assert A.adr(case(gt, fp)) <= base + 1e-12
    # moving a true positive one place earlier (over a false positive) never lowers ADR
    for i in range(1, len(ranking)):
        if ranking[i].startswith("d") and ranking[i - 1].startswith("x"):
            moved = ranking[:]
            moved[i - 1], moved[i] = moved[i], moved[i - 1]
            assert A.adr(case(gt, moved)) >= base - 1e-12
    # permuting a group whose items all come before that group's boundary leaves ADR unchanged
    ends = np.cumsum([len(g) for g in gt])
    for g, group in enumerate(gt):
        positions = [ranking.index(x) + 1 for x in group if x in ranking]
        if len(positions) == len(group) and max(positions) <= ends[g]:
            shuffled = ranking[:]
            members = [shuffled[p - 1] for p in sorted(positions)]
            rng.shuffle(members)
            for p, x in zip(sorted(positions), members, strict=True):
                shuffled[p - 1] = x
            assert A.adr(case(gt, shuffled)) == pytest.approx(base)


def test_groups_file_and_cli(tmp_path: Path) -> None:
    (tmp_path / "gt").write_text("q1 1,2 | 3,4,5\n\nq2 1 | 2 | 3 | 4\n")
    (tmp_path / "run").write_text("".join(f"q1 Q0 {d} {i} {9 - i} r\n" for i, d in enumerate("23157894", 1))
                                  + "".join(f"q2 Q0 {d} {i} {9 - i} r\n" for i, d in enumerate("4356", 1)))
    q = read_qrels(tmp_path / "gt")
    assert q.attrs["format"] == "groups"
    assert q[q["query"] == "q1"]["rel"].tolist() == [2, 2, 1, 1, 1]
    code, out, _ = run_cli("eval", "-q", "-m", "adr", str(tmp_path / "gt"), str(tmp_path / "run"))
    assert code == 0
    assert out.splitlines() == ["adr                   \tq1\t0.8600",
                                f"adr                   \tq2\t{(1 / 3 + 1 / 2) / 4:.4f}",
                                f"adr                   \tall\t{(0.86 + (1 / 3 + 1 / 2) / 4) / 2:.4f}"]


@pytest.mark.parametrize(("text", "problem"), [
    ("q1 1,,2 | 3\n", "expected a query id, then groups of items"),
    ("q1 1,2 |\n", "expected a query id, then groups of items"),
    ("q1 1,2 | 2\n", "item '2' is in the ground truth twice"),
    ("q1 1 | 2\nq1 3 | 4\n", "query 'q1' appears again (first on line 1)"),
])
def test_groups_file_errors(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "gt").write_text(text)
    with pytest.raises(InputError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        read_qrels(tmp_path / "gt", "groups")
