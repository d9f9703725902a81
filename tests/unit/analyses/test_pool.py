"""Pool contributions and the leave-one-group-out statistics on a hand-made pool."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from segeval.analyses.pool import contributions, leave_one_out
from segeval.core.errors import ParameterError
from segeval.readers.tables import read_qrels, read_run
from tests.conftest import full_only, run_cli, shared

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 1\nq1 0 d5 0\n"
RUNS = {"A1": "q1 Q0 d1 1 0.9 A1\nq1 Q0 d2 2 0.8 A1\nq1 Q0 d3 3 0.1 A1\n",
        "A2": "q1 Q0 d2 1 0.9 A2\nq1 Q0 d5 2 0.8 A2\n",
        "B1": "q1 Q0 d3 1 0.9 B1\nq1 Q0 d1 2 0.8 B1\nq1 Q0 d4 3 0.7 B1\n"}
GROUPS = {"A1": "A", "A2": "A", "B1": "B"}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, dict[str, Path], Path]:
    (tmp_path / "qrels").write_text(QRELS)
    runs = {}
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
        runs[name] = tmp_path / name
    (tmp_path / "groups").write_text("A1 A manual\nA2 A automatic\nB1 B automatic\n")
    return tmp_path / "qrels", runs, tmp_path / "groups"


def test_unique_contributions(files: tuple[Path, dict[str, Path], Path]) -> None:
    qrels, runs, _ = files
    pool = contributions(read_qrels(qrels), {n: read_run(p) for n, p in runs.items()}, 2, GROUPS)
    # top 2: A1 {d1, d2}, A2 {d2, d5}, B1 {d3, d1}; group A {d1, d2, d5}, group B {d1, d3}
    assert pool.unique == {"A": {("q1", "d2"), ("q1", "d5")}, "B": {("q1", "d3")}}
    columns, rows = pool.tables()["groups"]
    assert [name for name, _ in columns] == ["group", "judged", "relevant", "unique_judged", "unique_relevant"]
    assert rows == [["A", 3, 1, 2, 0], ["B", 2, 2, 1, 1]]  # A: d1 relevant, d2 d5 unique; B: d1 d3 relevant, d3 unique


def test_table_2_statistics(files: tuple[Path, dict[str, Path], Path]) -> None:
    qrels, runs, _ = files
    (row,) = leave_one_out(read_qrels(qrels), {n: read_run(p) for n, p in runs.items()}, 2, GROUPS, ["P_1"])
    # full P_1: A1 1, A2 0, B1 1 -> ranks A1 1, B1 1 (tied), A2 3.  Leaving A out removes d2, d5: nothing
    # changes.  Leaving B out removes d3: B1's first document becomes unjudged, P_1 0: tied with A2 at rank 2.
    assert row.mean_abs_rank_change == pytest.approx(1 / 3)  # moves A1 0, A2 0, B1 +1
    assert (row.max_down, row.max_up) == (1, 0)
    assert row.rms_error == pytest.approx(math.sqrt(1 / 3))  # left-out runs' score changes 0, 0, -1
    assert row.rms_error_left_out == row.rms_error
    assert row.rms_error_all == pytest.approx(math.sqrt(1 / 6))  # all 3 runs x 2 experiments: one -1, five 0
    assert row.mean_error == pytest.approx(-1 / 3)
    assert row.significant_share == 0.0  # one query: no test can be significant
    # the paper's tau = 1 - 2 * inversions / pairs (74 inversions of 861 pairs -> 0.8281): experiment B
    # (1, 0, 1) vs (1, 0, 0) has 1 concordant pair and 2 pairs tied on one side, no inversion -> 1
    assert row.kendall_tau == 1.0


def test_pool_commands(files: tuple[Path, dict[str, Path], Path]) -> None:
    qrels, runs, groups = files
    code, out, _ = run_cli("pool", str(qrels), *map(str, runs.values()), "--depth", "2", "--groups", str(groups))
    assert code == 0
    assert "A\t3\t1\t2\t0" in out and "B\t2\t2\t1\t1" in out and "A1\t2\t1" in out
    code, out, _ = run_cli("pool-bias", str(qrels), *map(str, runs.values()), "-d", "2", "--groups", str(groups),
                           "-m", "P_1")
    assert code == 0 and out.splitlines()[1].startswith("P_1\t0.333\t1\t0\t0.5774\t0.000\t1.0000")
    # the Table 3 experiment: leave out the manual runs (A1 only)
    code, out, _ = run_cli("pool-bias", str(qrels), *map(str, runs.values()), "-d", "2", "--groups", str(groups),
                           "-m", "P_1", "--leave-out-runs", "type:manual")
    assert code == 0 and out.splitlines()[1].startswith("P_1\t0.000\t0\t0")
    code, _, err = run_cli("pool-bias", str(qrels), *map(str, runs.values()), "--groups", str(groups),
                           "--leave-out-runs", "nope")
    assert code == 2 and "must name runs given" in err


def test_groups_file_names_runs_by_stem_and_errors_name_the_line(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run.gz").write_bytes(gzip.compress(text.encode()))
    runs = sorted(str(p) for p in tmp_path.glob("*.run.gz"))
    (tmp_path / "groups").write_text("A1 A\r\n\r\nA2 A\nB1.run.gz B\n")  # stems or file names; CRLF, blank lines
    code, out, _ = run_cli("pool", str(tmp_path / "qrels"), *runs, "-d", "2", "--groups", str(tmp_path / "groups"))
    assert code == 0 and "A\t3\t1\t2\t0" in out
    (tmp_path / "groups").write_text("A1 A\nA2 A\n")
    code, _, err = run_cli("pool", str(tmp_path / "qrels"), *runs, "--groups", str(tmp_path / "groups"))
    assert code == 2 and "groups" in err and "no line for run 'B1.run.gz'" in err
    (tmp_path / "groups").write_text("A1 A\nA2 A x y\n")
    code, _, err = run_cli("pool", str(tmp_path / "qrels"), *runs, "--groups", str(tmp_path / "groups"))
    assert code == 2 and "line 2" in err and "A2 A x y" in err and "expected 'run group [type]'" in err


def test_segment_items_are_the_qrels_segments_the_adapter_matched(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 Q0 v1 0.00 1.00 1\nq1 Q0 v1 2.00 3.00 0\nq1 Q0 v2 0.00 1.00 1\n")
    (tmp_path / "A1.txt").write_text("q1 Q0 v1 0.00 1.00 1 0.9 A1\n")
    (tmp_path / "B1.txt").write_text("q1 Q0 v2 0.00 1.00 1 0.9 B1\nq1 Q0 v1 2.00 3.00 2 0.8 B1\n")
    (tmp_path / "groups").write_text("A1 A\nB1 B\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "A1.txt"), str(tmp_path / "B1.txt"), "-d", "1",
             "--groups", str(tmp_path / "groups")]
    code, out, _ = run_cli("pool", *files)
    # top 1: A1 matches qrels line 1 (v1 0-1), B1 line 3 (v2 0-1); both unique
    assert code == 0 and "A\t1\t1\t1\t1" in out and "B\t1\t1\t1\t1" in out
    code, out, _ = run_cli("pool", *files[:3], "-d", "2", *files[5:])
    # top 2: B1 also matches line 2 (v1 2-3, non-relevant).  A's line 1 stays unique: items are segments, not
    # videos (by video, B's v1 would take A's only item)
    assert code == 0 and "A\t1\t1\t1\t1" in out and "B\t2\t1\t2\t1" in out
    # full P_1: A1 1, B1 1, tied: both rank 1.  Leaving A out drops line 1: A1's result is unjudged, 0 -> rank 2;
    # leaving B out drops v2: B1 0 -> rank 2.  |moves| 1, 1 -> 1.0; errors -1, -1 -> RMS 1; one query -> p = 1;
    # tau: each experiment only turns a tie into an order -> no inversion -> 1; RMS over all runs: errors
    # (A1 -1, B1 0), (A1 0, B1 -1) -> sqrt(2/4) = 0.7071
    code, out, err = run_cli("pool-bias", *files, "-m", "P_1", "-a", "overlap-once")
    assert code == 0, err
    assert out.splitlines()[1] == "P_1_once\t1.000\t1\t0\t1.0000\t0.000\t1.0000\t-1.0000\t0.7071"


def test_reduce_qrels_keeps_round_half_up_of_each_query_and_at_least_one(tmp_path: Path) -> None:
    import numpy as np

    from segeval.analyses.pool import reduce_qrels

    text = "".join(f"q1 0 d{i} {i % 2}\n" for i in range(5)) + "q2 0 e1 1\nq2 0 e2 0\n"
    qrels = read_qrels(written(tmp_path, "q", text))
    rng = np.random.default_rng(3)
    half = reduce_qrels(qrels, 0.5, rng)  # q1: 2.5 -> 3 of 5; q2: 1.0 -> 1 of 2
    assert half.groupby("query").size().to_dict() == {"q1": 3, "q2": 1}
    assert set(zip(half["query"], half["item"], strict=True)) <= set(zip(qrels["query"], qrels["item"], strict=True))
    assert reduce_qrels(qrels, 0.05, rng).groupby("query").size().to_dict() == {"q1": 1, "q2": 1}  # 0.25 -> 0 -> 1
    assert reduce_qrels(qrels, 1.0, rng).equals(qrels)


def written(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path / name


@full_only  # the slice: the command and the MediaEval 2014 runs below
def test_incompleteness_scores_and_tau(tmp_path: Path) -> None:
    from segeval.analyses.pool import incompleteness

    qrels = read_qrels(written(tmp_path, "q", "q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\n"))
    runs = {"X": read_run(written(tmp_path, "X", "q1 Q0 d1 1 2 X\nq1 Q0 d2 2 1 X\n")),
            "Y": read_run(written(tmp_path, "Y", "q1 Q0 d3 1 2 Y\nq1 Q0 d1 2 1 Y\n"))}
    table = incompleteness(qrels, runs, ["P_2"], [1.0, 1 / 3], repeats=100, seed=1).set_index("fraction")
    # full: X 2/2, Y 1/2 -> mean 0.75, tau 1.  Keeping 1 of 3 lines: d1 -> X 0.5, Y 0.5 (mean 0.5); d2 -> 0.5, 0
    # (0.25); d3 -> 0, 0 (0).  Expected mean (0.5 + 0.25 + 0) / 3 = 0.25 (sd of a mean of 100: 0.020); no
    # outcome inverts X above Y (ties agree), so tau stays 1.
    assert table.loc[1.0, "mean_score"] == 0.75 and table.loc[1.0, "kendall_tau"] == 1.0
    assert abs(table.loc[1 / 3, "mean_score"] - 0.25) < 0.07
    assert table.loc[1 / 3, "min_kendall_tau"] == 1.0
    again = incompleteness(qrels, runs, ["P_2"], [1 / 3], repeats=100, seed=1)
    assert again["mean_score"].iloc[0] == table.loc[1 / 3, "mean_score"]  # same seed and fraction, same reductions
    with pytest.raises(ParameterError, match=r"'fractions' parameter must be a number in \(0, 1\]. Got 0 instead"):
        incompleteness(qrels, runs, ["P_2"], [0])
    with pytest.raises(ParameterError, match="at least 2 runs"):
        incompleteness(qrels, {"X": runs["X"]}, ["P_2"])


def test_incompleteness_command(files: tuple[Path, dict[str, Path], Path], tmp_path: Path) -> None:
    qrels, runs, _ = files
    code, out, err = run_cli("incompleteness", str(qrels), *map(str, runs.values()), "-m", "P_1", "--fractions",
                             "1,0.4", "-r", "3", "--plot", str(tmp_path / "f.png"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("measure\tfraction") and lines[1] == "P_1\t1\t0.6667\t1.0000\t1.0000"  # (1+0+1)/3
    assert len(lines) == 3 and (tmp_path / "f.png").stat().st_size > 1000
    code, _, err = run_cli("incompleteness", str(qrels), *map(str, runs.values()), "--fractions", "1,x")
    assert code == 2 and "'--fractions' parameter" in err and "'1,x'" in err


def test_incompleteness_on_the_mediaeval_2014_search_runs_shows_the_papers_effect() -> None:
    """CI only: the figures of docs/pool-bias.md; P_10 and MAP fall as the qrels shrink while bpref rises
    (section 5.1)."""
    from segeval.analyses.pool import incompleteness

    names = ["180-60-over", "600-200-noover", "galuskacova-over", "me14sh_UT-HMI2014_S_1_Sh_U_N"]
    runs = {n: read_run(shared("mediaeval", f"{n}.txt.gz")) for n in names}
    table = incompleteness(read_qrels(shared("mediaeval", "me14sh_search_testSet.qrel.gz")), runs,
                           ["map", "P_10", "bpref"], [1.0, 0.05], repeats=5, seed=0, adapter="overlap-once")
    score = {(r.measure, r.fraction): round(r.mean_score, 4) for r in table.itertuples()}
    assert (score["P_10_once", 1.0], score["P_10_once", 0.05]) == (0.4225, 0.1077)
    assert (score["map_once", 1.0], score["map_once", 0.05]) == (0.2038, 0.1514)
    assert (score["bpref_once", 1.0], score["bpref_once", 0.05]) == (0.6585, 0.6935)


def test_two_run_files_of_the_same_name_are_both_kept(files: tuple[Path, dict[str, Path], Path],
                                                       tmp_path: Path) -> None:
    qrels, runs, groups = files
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "A1").write_text(RUNS["A1"])
    args = ("pool", str(qrels), *map(str, runs.values()), str(tmp_path / "copy" / "A1"))
    code, _, err = run_cli(*args, "--groups", str(groups))
    # named like compare does (enough folders to tell them apart), not silently merged
    assert code == 2 and f"no line for run '{tmp_path.name}/A1'" in err
    (tmp_path / "groups2").write_text(f"{tmp_path.name}/A1 A\nA2 A\nB1 B\ncopy/A1 C\n")
    code, out, err = run_cli(*args, "--groups", str(tmp_path / "groups2"))
    assert code == 0 and f"\n{tmp_path.name}/A1\t" in out and "\ncopy/A1\t" in out


def test_bias_experiments_draw_progress_only_on_a_terminal(files: tuple[Path, dict[str, Path], Path],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from segeval.analyses.pool import incompleteness

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    qrels, runs, _ = files
    q, r = read_qrels(qrels), {n: read_run(p) for n, p in runs.items()}
    tty = Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    leave_one_out(q, r, 2, GROUPS, ["P_1"], quiet=False)
    assert "3/3 qrels evaluated" in tty.getvalue()  # the full qrels and one reduction per group (A, B)
    incompleteness(q, r, ["P_1"], [1.0, 0.5], repeats=2, quiet=False)
    assert "5/5 qrels evaluated" in tty.getvalue()  # the full qrels and 2 fractions x 2 repeats
    from segeval.cli import main

    for args, drawn in (([], True), (["--quiet"], False)):
        tty = Terminal()
        monkeypatch.setattr("sys.stderr", tty)
        leave_one_out(q, r, 2, GROUPS, ["P_1"])  # quiet by default in the API
        assert tty.getvalue() == ""
        code = main(["pool-bias", str(qrels), *map(str, runs.values()), "--groups", str(files[2]), "-d", "2",
                     "-m", "P_1", *args])
        assert code == 0 and ("3/3 qrels evaluated" in tty.getvalue()) == drawn


def test_tied_runs_share_a_rank() -> None:
    from segeval.analyses.pool import ranks

    # 1 + runs strictly better: c (0.7) 1; a, b (0.5) both 2; d 4 -- not 2, 3 by name
    assert ranks({"b": 0.5, "a": 0.5, "c": 0.7, "d": 0.1}) == {"a": 2, "b": 2, "c": 1, "d": 4}
    assert ranks({"x": 0.0, "y": 0.0}) == {"x": 1, "y": 1}


def test_a_tie_forming_is_not_a_move(tmp_path: Path) -> None:
    # q1: A1 ranks d2 (non-relevant), B1 d1 (relevant); P_1: A1 0, B1 1 -> B1 rank 1, A1 rank 2.  Leaving B out
    # removes d1: B1 0, tied with A1 -> both rank 1; B1 did not move (ties by name put it 2nd: a move of +1
    # while tau, ties agreeing, stays 1).  Leaving A out removes d2: A1 stays 0.
    qrels = read_qrels(written(tmp_path, "q", "q1 0 d1 1\nq1 0 d2 0\n"))
    runs = {"A1": read_run(written(tmp_path, "a", "q1 Q0 d2 1 0.9 A1\n")),
            "B1": read_run(written(tmp_path, "b", "q1 Q0 d1 1 0.9 B1\n"))}
    (row,) = leave_one_out(qrels, runs, 1, {"A1": "A", "B1": "B"}, ["P_1"])
    assert (row.mean_abs_rank_change, row.max_down, row.max_up, row.kendall_tau) == (0.0, 0, 0, 1.0)
    assert row.rms_error == pytest.approx(math.sqrt(1 / 2))  # left-out runs: A1 0 (exp. A), B1 -1 (exp. B)
    assert row.rms_error_all == pytest.approx(math.sqrt(1 / 4))  # (A1 0, B1 0), (A1 0, B1 -1)
    (every,) = leave_one_out(qrels, runs, 1, {"A1": "A", "B1": "B"}, ["P_1"], rms_runs="all")
    assert every.rms_error == every.rms_error_all == row.rms_error_all
    with pytest.raises(ParameterError, match="rms_runs"):
        leave_one_out(qrels, runs, 1, {"A1": "A", "B1": "B"}, ["P_1"], rms_runs="some")


def test_rms_is_equation_3() -> None:
    from segeval.analyses.pool import rms

    # old (0.3, 0.5, 0.2), new (0.2, 0.5, 0.4): sqrt((0.01 + 0 + 0.04) / 3)
    assert rms([0.2 - 0.3, 0.5 - 0.5, 0.4 - 0.2]) == pytest.approx(math.sqrt(0.05 / 3))
    assert rms([]) == 0.0


def test_precision_over_judged_documents_by_hand(tmp_path: Path) -> None:
    q = written(tmp_path, "q", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d4 1\nq1 0 d5 1\n")
    r = written(tmp_path, "r", "q1 Q0 d1 1 6 x\nq1 Q0 d3 2 5 x\nq1 Q0 d2 3 4 x\nq1 Q0 d6 4 3 x\nq1 Q0 d4 5 2 x\n"
                               "q1 Q0 d5 6 1 x\n")
    code, out, err = run_cli("eval", "-m", "P_judged.2,3,5", "-m", "P@3(j)", "-m", "P_3", str(q), str(r))
    assert code == 0, err
    values = {line.split()[0]: line.split()[2] for line in out.splitlines()}
    # judged in rank order: d1 (1), d2 (0), d4 (1), d5 (1); d3 and d6 are skipped
    assert values["P_judged_2"] == "0.5000"  # 1 of d1, d2
    assert values["P_judged_3"] == "0.6667"  # 2 of d1, d2, d4
    assert values["P_judged_5"] == "0.6000"  # 3 of only 4 judged, over 5
    assert values["P_3"] == "0.3333"  # d1 of d1, d3, d2


def test_precision_over_judged_documents_equals_trec_eval_minus_J() -> None:
    """P_judged_k against trec_eval 9.0.8 -J -q -m P.1,5,10,20,30 (stored output; 35 values): queries with
    every, some, 3 and no judged documents, fewer judged documents retrieved than k."""
    from tests.conftest import FIXTURES

    expected = {(line.split()[0], line.split()[1]): line.split()[2]
                for line in (FIXTURES / "judged_only.J.trec_eval").read_text().splitlines()}
    code, out, _ = run_cli("eval", "-q", "-m", "P_judged.1,5,10,20,30", str(FIXTURES / "judged_only.qrels"),
                           str(FIXTURES / "judged_only.run"))
    got = {(line.split()[0].replace("P_judged_", "P_"), line.split()[1]): line.split()[2]
           for line in out.splitlines()}
    assert code == 0 and len(expected) == 35 and got == expected


def test_the_papers_measure_set() -> None:
    from segeval.measures.definitions import expand

    assert [m.name for m in expand("paper")] == ["recip_rank", "P_10", "P_20", "ndcg_cut_20", "map", "bpref",
                                                  "P_judged_20", "RankEff"]


def test_pool_bias_prints_the_papers_measures(files: tuple[Path, dict[str, Path], Path]) -> None:
    qrels, runs, groups = files
    code, out, err = run_cli("pool-bias", str(qrels), *map(str, runs.values()), "-d", "2", "--groups", str(groups),
                             "-m", "paper", "--quiet")
    assert code == 0, err
    assert [line.split("\t")[0] for line in out.splitlines()[1:]] == ["recip_rank", "P_10", "P_20", "ndcg_cut_20",
                                                                     "map", "bpref", "P_judged_20", "RankEff"]
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    # P@20(j): leaving A out removes d2, d5: A1 (d1, d3 judged relevant) 2/20 before and after, A2 0.  Leaving B
    # out removes d3 (B1's first), skipped: B1 3/20 (d3, d1, d4) -> 2/20.  Left-out errors 0, 0, -1/20
    assert rows["P_judged_20"][4] == f"{math.sqrt((1 / 20) ** 2 / 3):.4f}"


def test_groups_file_naming_a_run_not_given_is_an_error(files: tuple[Path, dict[str, Path], Path]) -> None:
    qrels, runs, groups = files
    groups.write_text("A1 A manual\nA2 A automatic\nB1 B automatic\nC9 C automatic\n")
    for command in ("pool", "pool-bias"):
        code, _, err = run_cli(command, str(qrels), *map(str, runs.values()), "--groups", str(groups))
        assert code == 2, err
        assert "line 4" in err and "'C9'" in err and "C9 C automatic" in err and "A1, A2, B1" in err


@pytest.mark.parametrize("command", ["pool", "pool-bias", "incompleteness"])
def test_pool_commands_validate_the_qrels_as_eval(command: str, tmp_path: Path) -> None:
    bad = written(tmp_path, "q", "q1 Q0 v1 0.10 0.05 1\nq1 Q0 v1 0.20 0.30 0\n")  # line 1 ends before it starts
    runs = [str(written(tmp_path, "SA", "q1 Q0 v1 0.00 0.20 1 0.9 A\n")),
            str(written(tmp_path, "SB", "q1 Q0 v1 0.20 0.30 1 0.9 B\n"))]
    options = {"pool": ["--groups", str(written(tmp_path, "g", "SA a\nSB b\n"))], "incompleteness": ["-r", "1"]}
    options["pool-bias"] = [*options["pool"], "--quiet"]
    expected = run_cli("eval", str(bad), *runs)
    code, _, err = run_cli(command, str(bad), *runs, *options[command])
    assert expected[0] == code == 2 and "line 1" in err and err == expected[2]


def test_precision_over_judged_units_is_p_under_minus_j_for_every_adapter() -> None:
    """P_judged_k equals P_k after trec_eval's -J (unjudged units dropped) on generated document and segment
    runs, for every adapter: the measure skips exactly the units -J drops."""
    import pandas as pd
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from segeval.core.pipeline import evaluate
    from tests.properties.test_properties import SETTINGS, cases, frames, segment_cases

    few = settings(SETTINGS, max_examples=15)

    cut = ["P_1", "P_3", "P_10"]
    judged = ["P_judged_1", "P_judged_3", "P_judged_10"]

    def check(q: pd.DataFrame, r: pd.DataFrame, adapter: str | None) -> None:
        plain = evaluate(q, r, judged, adapter=adapter)
        minus_j = evaluate(q, r, cut, adapter=adapter, judged_only=True)
        assert [plain.per_query[n] for n in plain.per_query] == [minus_j.per_query[n] for n in minus_j.per_query]

    @few
    @given(cases())
    def documents(case: tuple[list, list]) -> None:  # type: ignore[type-arg]
        check(*frames(*case), None)

    @few
    @given(segment_cases(), st.sampled_from(["overlap", "overlap-once", "binned:10", "tolerance:5", "tiou:0.5"]))
    def segments(case: tuple[pd.DataFrame, pd.DataFrame], adapter: str) -> None:
        check(*case, adapter)

    documents()
    segments()


# ------------------------------------------------------------------ groups file and --leave-out-runs


def test_groups_for_matches_names_or_stems_and_refuses_missing_and_unknown_runs(tmp_path: Path) -> None:
    from segeval.analyses.pool import groups_for, run_aliases
    from segeval.core.errors import InputError

    assert run_aliases("a/run1.txt.gz") == ("a/run1.txt.gz", "a/run1")  # the stem drops every extension
    groups = tmp_path / "groups"
    groups.write_text("run1 g1 manual\nrun2.txt g2\n")
    # run1.txt is named by its stem, run2.txt by its file name; only run1 has a type
    assert groups_for(str(groups), ["run1.txt", "run2.txt"]) == ({"run1.txt": "g1", "run2.txt": "g2"},
                                                                 {"run1.txt": "manual"})
    with pytest.raises(InputError, match=r"has no line for run 'run3\.txt'"):
        groups_for(str(groups), ["run1.txt", "run2.txt", "run3.txt"])
    with pytest.raises(InputError, match=r"line 2: .*names run 'run2.txt', which is not among the runs given"):
        groups_for(str(groups), ["run1.txt"])


def test_runs_left_out_by_names_stems_or_type() -> None:
    from segeval.analyses.pool import runs_left_out
    from segeval.core.errors import ParameterError

    names = ["r1.txt", "r2.txt", "r3"]
    types = {"r1.txt": "manual", "r3": "manual"}
    assert runs_left_out("r1,r2.txt", names, types) == {"r1.txt", "r2.txt"}
    assert runs_left_out("type:manual", names, types) == {"r1.txt", "r3"}
    for bad in ("r1,r9", "type:auto", ",", ""):  # each name (or the type) must match a run given
        with pytest.raises(ParameterError, match="The 'leave_out_runs' parameter must name runs given"):
            runs_left_out(bad, names, types)


@pytest.mark.parametrize("command", ["pool-bias", "incompleteness"])
def test_pool_commands_give_evals_above_one_notes_once_per_run(command: str, tmp_path: Path) -> None:
    """The notes come from the evaluations the analysis makes (no second evaluation): ``eval``'s notes on
    the full qrels, once per run."""
    q = written(tmp_path, "q", "qA Q0 v1 1.00 2.00 1\nqA Q0 v2 1.00 2.00 1\nqB Q0 v1 1.00 2.00 1\n")
    # SA: qA three results on v1's segment, num_rel 2 -> (1/1 + 2/2 + 3/3)/2 = 1.5; qB 1/1 = 1
    sa = written(tmp_path, "SA", "qA Q0 v1 1.00 1.10 1 0.9 A\nqA Q0 v1 1.20 1.30 2 0.8 A\n"
                                 "qA Q0 v1 1.40 1.50 3 0.7 A\nqB Q0 v1 1.00 1.10 1 0.9 A\n")
    # SB: qA 1/2 = 0.5; qB two results on one segment, num_rel 1 -> (1/1 + 2/2)/1 = 2
    sb = written(tmp_path, "SB", "qA Q0 v2 1.00 1.10 1 0.9 B\nqB Q0 v1 1.00 1.10 1 0.9 B\n"
                                 "qB Q0 v1 1.20 1.30 2 0.8 B\n")
    tail = " the overlap adapter credits one relevant segment once for every result that overlaps it\n"
    expected = (f"note: {sa}: map is above 1 for 1 of 2 queries (first: qA):{tail}"
                f"note: {sb}: map is above 1 for 1 of 2 queries (first: qB):{tail}")
    code, _, err = run_cli("eval", "-m", "map", "-a", "overlap", str(q), str(sa), str(sb))
    assert (code, err) == (0, expected)
    options = {"pool-bias": ["--groups", str(written(tmp_path, "g", "SA a\nSB b\n")), "--quiet"],
               "incompleteness": ["-r", "1", "--fractions", "1,0.5", "--quiet"]}
    code, out, err = run_cli(command, str(q), str(sa), str(sb), "-m", "map", "-a", "overlap", *options[command])
    assert (code, err) == (0, expected.replace(f"{tmp_path}/", "")), out  # the pool tables name runs by name
