"""ADR: the paper's examples, properties on seeded random cases, and a brute-force cross-check."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from segeval.adapters.base import Adapted
from segeval.core.errors import InputError
from segeval.measures import adr as A
from segeval.readers.tables import read_qrels
from tests.conftest import run_cli, sliced


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
    groups, sizes, _ = A.ground_truth(case(PAPER_GT, list("23157894")))
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


@pytest.mark.parametrize("seed", sliced(range(300), 4))
def test_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    gt, ranking = random_case(rng)
    a = case(gt, ranking)
    assert A.adr(a) == pytest.approx(brute_force(gt, ranking))
    k = rng.randint(1, 15)
    assert A.adr(a, k) == pytest.approx(brute_force(gt, ranking, k))


@pytest.mark.parametrize("seed", sliced(range(200), 4))
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


def brute_force_segments(truth: list[tuple[str, int, int, int]], run: list[tuple[str, int, int]]) -> float:
    """ADR for segments from the definition: a result is credited with the not yet found ground-truth
    segment it overlaps (closed intervals) of the earliest group (highest grade)."""
    levels = sorted({g for *_, g in truth if g > 0}, reverse=True)
    ordered = sorted((levels.index(g), i) for i, (*_, g) in enumerate(truth) if g > 0)
    n = len(ordered)
    group_of_position = [grp for grp, _ in ordered]
    found: list[tuple[int, int]] = []  # (group, truth index) credited at each rank, or (-1, -1)
    taken: set[int] = set()
    for video, s, e in run:
        best = None
        for i, (v, ts, te, g) in enumerate(truth):
            if g > 0 and v == video and ts <= e and s <= te and i not in taken and (best is None or g > truth[best][3]):
                best = i
        if best is None:
            found.append((-1, -1))
        else:
            taken.add(best)
            found.append((levels.index(truth[best][3]), best))
    total = 0.0
    for i in range(1, n + 1):
        c = group_of_position[i - 1]
        total += sum(1 for grp, _ in found[:i] if 0 <= grp <= c) / i
    return total / n if n else 0.0


@pytest.mark.parametrize("seed", sliced(range(150), 5))
def test_segments_match_brute_force(tmp_path: Path, seed: int) -> None:
    import segeval

    rng = random.Random(seed)
    truth = []
    for _ in range(rng.randint(1, 8)):
        v, s = rng.choice(["v1", "v2", "v3"]), rng.randint(0, 100)
        truth.append((v, s, s + rng.randint(0, 20), rng.choice([0, 1, 2, 3])))
    if not any(g > 0 for *_, g in truth):
        truth.append(("v1", 5, 15, 1))
    run = []
    for _ in range(rng.randint(1, 12)):
        v, s = rng.choice(["v1", "v2", "v3"]), rng.randint(0, 110)
        run.append((v, s, s + rng.randint(0, 15)))
    mmss = lambda x: f"{x // 60}.{x % 60:02d}"  # noqa: E731
    (tmp_path / "q").write_text("".join(f"q1 Q0 {v} {mmss(s)} {mmss(e)} {g}\n" for v, s, e, g in truth))
    (tmp_path / "r").write_text("".join(f"q1 Q0 {v} {mmss(s)} {mmss(e)} {i} {1 / i} r\n"
                                        for i, (v, s, e) in enumerate(run, 1)))
    ev = segeval.evaluate(tmp_path / "q", tmp_path / "r", ["adr"], adapter="overlap")
    assert ev.summary["adr"] == pytest.approx(brute_force_segments(truth, run))


@pytest.mark.parametrize(("args", "expected"), [
    (["-m", "adr", "-m", "adr_tb", "examples/music/groundtruth.txt", "examples/music/run_a.txt"],
     "examples/music/expected_run_a.txt"),
    (["-m", "adr", "-m", "adr_tb", "examples/music/groundtruth.txt", "examples/music/run_b.txt"],
     "examples/music/expected_run_b.txt"),
    (["-m", "adr", "-m", "adr_tb", "-m", "map", "-m", "ndcg", "examples/audio/qrels.txt", "examples/audio/run.txt"],
     "examples/audio/expected.txt"),
])
def test_examples_print_their_expected_values(args: list[str], expected: str) -> None:
    from tests.conftest import ROOT

    code, out, _ = run_cli("eval", "-q", *[str(ROOT / a) if a.startswith("examples") else a for a in args])
    assert code == 0
    assert out == (ROOT / expected).read_text()


def test_music_example_values_equal_the_brute_force() -> None:
    from tests.conftest import ROOT

    groups = {}
    for line in (ROOT / "examples/music/groundtruth.txt").read_text().splitlines():
        qid, rest = line.split(" ", 1)
        groups[qid] = [[x.strip() for x in g.split(",")] for g in rest.split("|")]
    for run in ("run_a", "run_b"):
        ranking: dict[str, list[str]] = {}
        for line in (ROOT / f"examples/music/{run}.txt").read_text().splitlines():
            qid, _, doc, *_ = line.split()
            ranking.setdefault(qid, []).append(doc)
        expected = {q: float(v) for n, q, v in (row.split("\t") for row in
                    (ROOT / f"examples/music/expected_{run}.txt").read_text().splitlines()) if n.strip() == "adr"}
        for qid, gt in groups.items():
            assert expected[qid] == pytest.approx(brute_force(gt, ranking[qid]), abs=5e-5)


def test_adr_curve_api() -> None:
    a = case(PAPER_GT, list("23157894"))
    assert A.adr_curve(a).tolist() == pytest.approx([1, 0.5, 1, 1, 0.8])
    assert A.adr_curve(a, 8)[-1] == pytest.approx(5 / 8)  # past n every group counts: 2,3,1,5,4 found


@pytest.mark.parametrize("adapter", ["overlap", "binned:10", "tolerance:5"])
def test_adr_on_segments_with_every_adapter(tmp_path: Path, adapter: str) -> None:
    import segeval

    # relevant v1 0-9 (grade 2: group 1) and v1 20-29 (grade 1: group 2); results 20-25 then 0-5.
    # Rank 1 credits the group-2 segment (not yet relevant at rank 1): r1 = 0; rank 2 the group-1
    # segment: r2 = 2/2. ADR = (0 + 1) / 2 under every adapter (bins of 10 s, or a 5 s window).
    (tmp_path / "q").write_text("q1 Q0 v1 0.00 0.09 2\nq1 Q0 v1 0.20 0.29 1\n")
    (tmp_path / "r").write_text("q1 Q0 v1 0.20 0.25 1 0.9 r\nq1 Q0 v1 0.00 0.05 2 0.8 r\n")
    ev = segeval.evaluate(tmp_path / "q", tmp_path / "r", ["adr", "adr_tb"], adapter=adapter)
    suffix = {"overlap": "", "binned:10": "_bin", "tolerance:5": "_tol"}[adapter]
    assert ev.summary["adr" + suffix] == 0.5
    # tie-breaker: rank 1's item (group 2) is found before its group counts, rank 2's (group 1) after its
    # group ends at position 1: both are kept. Inverted truth <(20-29), (0-9)>: r1 = 1/1, r2 = 2/2 -> 1.0
    assert ev.summary["adr_tb" + suffix] == 1.0


def brute_force_tiebreak(gt: list[list[str]], ranking: list[str], filler: str = "paper") -> float:
    """The section 4 tie-breaker from the paper's words, with item names and sets: keep the items of the
    first n ranks that were counted irrelevant when found or were found after their group's end, put
    "one item from the most highly ranked group" everywhere else, and take ADR under the inverted truth."""
    flat = [(item, g) for g, group in enumerate(gt) for item in group]
    group_of = dict(flat)
    n = len(flat)
    ends = [sum(len(x) for x in gt[: g + 1]) for g in range(len(gt))]
    kept: list[str | None] = []
    for w in range(1, n + 1):
        item = ranking[w - 1] if w <= len(ranking) else None
        c_w = flat[w - 1][1]
        g = group_of.get(item) if item is not None else None
        kept.append(item if g is not None and (g > c_w or w > ends[g]) else None)
    unused = [x for x in gt[0] if x not in kept]
    if filler == "standin":
        pad, truth = "<stand-in>", [[*gt[0], "<stand-in>"], *gt[1:]]
    else:
        pad, truth = (unused[0] if unused else next(x for x in kept if x in gt[0])), gt
    constructed = [x if x is not None else pad for x in kept]
    inverted = [list(g) for g in reversed(truth)]
    if filler == "standin":  # the stand-in adds no ground-truth position: n stays the real count
        flat_inv = [(item, g) for g, group in enumerate(inverted) for item in group if item != "<stand-in>"]
        total = 0.0
        for i in range(1, n + 1):
            c = flat_inv[i - 1][1]
            relevant = {item for g, group in enumerate(inverted) if g <= c for item in group}
            total += len({r for r in constructed[:i] if r in relevant}) / i
        return total / n
    return brute_force(inverted, constructed)


def test_tiebreak_music_701_follows_the_paper() -> None:
    # examples/music run_b, query 701: truth <(110), (220, 330), (440)>, ranking 440, 330, 110 (n = 4).
    # Rank 1: 440 (group 3) is not yet relevant -> kept; rank 2: 330 (group 2) is relevant at rank 2 and
    # before its group's end (3) -> replaced; rank 3: 110 (group 1) comes after its group's end (1) -> kept;
    # rank 4: nothing -> replaced.  The paper replaces with an item of the first group: 110 itself.
    # Constructed <440, 110, 110, 110>, inverted truth <(440), (220, 330), (110)>:
    # r1 = 1/1, r2 = 1/2 (440), r3 = 1/3, r4 = 2/4 (440, 110)  ->  (1 + 1/2 + 1/3 + 1/2) / 4 = 0.5833.
    # The stand-in reading counts a second first-group item at rank 4: r4 = 3/4 -> 0.6458.
    gt = [["110"], ["220", "330"], ["440"]]
    a = case(gt, ["440", "330", "110"])
    assert A.adr_tiebreak(a) == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 2) / 4)
    assert round(A.adr_tiebreak(a), 4) == 0.5833
    assert A.adr_tiebreak(a, "standin") == pytest.approx((1 + 1 / 2 + 1 / 3 + 3 / 4) / 4)
    assert round(A.adr_tiebreak(a, "standin"), 4) == 0.6458


def test_tiebreak_whole_first_group_problematic_uses_the_highest_ranked_one() -> None:
    # truth <(a, b), (c)>, ranking c, b, a (n = 3, first group ends at 2).  c at rank 1 is not yet
    # relevant -> kept; b at rank 2 is in time -> replaced; a at rank 3 is after its group's end -> kept.
    # b is not kept, so b is the filler (as the stand-in would be).  Constructed <c, b, a>, inverted
    # <(c), (a, b)> (ends 1, 3): r1 = 1/1, r2 = 2/2, r3 = 3/3 -> 1.
    assert A.adr_tiebreak(case([["a", "b"], ["c"]], ["c", "b", "a"])) == 1.0
    assert A.adr_tiebreak(case([["a", "b"], ["c"]], ["c", "b", "a"]), "standin") == 1.0
    # truth <(a, b), (c), (d)>, ranking c, x, b, a (n = 4, ends 2, 3, 4).  c kept (group 2 at rank 1),
    # x replaced, b (rank 3 > 2) and a (rank 4) kept: every first-group item is kept, so the filler is b,
    # the one ranked higher.  Constructed <c, b, b, a>, inverted <(d), (c), (a, b)> (ends 1, 2, 4):
    # r1 = 0, r2 = 1/2 (c), r3 = 2/3 (c, b), r4 = 3/4 (c, b, a).
    a = case([["a", "b"], ["c"], ["d"]], ["c", "x", "b", "a"])
    assert A.adr_tiebreak(a) == pytest.approx((0 + 1 / 2 + 2 / 3 + 3 / 4) / 4)
    # the stand-in s is another first-group item: <c, s, b, a>: r1 = 0, r2 = 1/2, r3 = 3/3, r4 = 4/4
    assert A.adr_tiebreak(a, "standin") == pytest.approx((0 + 1 / 2 + 1 + 1) / 4)


@pytest.mark.parametrize("seed", sliced(range(300), 4))
def test_tiebreak_matches_the_papers_construction(seed: int) -> None:
    rng = random.Random(seed)
    gt, ranking = random_case(rng)
    for filler in A.FILLERS:
        assert A.adr_tiebreak(case(gt, ranking), filler) == pytest.approx(brute_force_tiebreak(gt, ranking, filler))


def test_tiebreak_filler_is_a_named_measure_parameter(tmp_path: Path) -> None:
    from tests.conftest import ROOT

    music = ROOT / "examples/music"
    code, out, _ = run_cli("eval", "-q", "-m", "adr_tb", "-m", "adr_tb.standin", str(music / "groundtruth.txt"),
                           str(music / "run_b.txt"))
    assert code == 0
    rows = {(n.strip(), q): v for n, q, v in (line.split("\t") for line in out.splitlines())}
    assert rows[("adr_tb", "701.001.001-1.1.1")] == "0.5833"
    assert rows[("adr_tb_standin", "701.001.001-1.1.1")] == "0.6458"
    code, _, err = run_cli("eval", "-q", "-m", "adr_tb.first", str(music / "groundtruth.txt"), str(music / "run_b.txt"))
    assert code == 2 and "The 'filler' parameter must be one of 'paper', 'standin'. Got 'first' instead." in err
