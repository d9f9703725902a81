"""Segment files with times in M.S, seconds or H:MM:SS, and format detection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from segeval.core.errors import InputError
from segeval.readers.formats import (
    MEDIAEVAL_LINKING_RUN,
    MEDIAEVAL_SEARCH_RUN,
    TREC_RUN,
    detect_run_format,
    parse_hms,
    parse_seconds,
)
from tests.conftest import FIXTURES, run_cli

SECONDS = {"mmss": lambda s: f"{s // 60}.{s % 60:02d}", "seconds": lambda s: f"{s}",
           "hms": lambda s: f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"}


def rewrite(src: Path, dst: Path, fmt: str, time_fields: tuple[int, ...]) -> None:
    from segeval.readers.formats import parse_mmss

    lines = []
    for line in src.read_text().splitlines():
        tokens = line.split()
        for i in time_fields:
            seconds = parse_mmss(tokens[i])
            assert seconds is not None
            tokens[i] = SECONDS[fmt](seconds)
        lines.append(" ".join(tokens))
    dst.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("fmt", ["seconds", "hms"])
def test_same_segments_in_any_time_format_give_the_same_numbers(tmp_path: Path, fmt: str) -> None:
    rewrite(FIXTURES / "gen_linking.qrels", tmp_path / "q", fmt, (3, 4))
    rewrite(FIXTURES / "gen_linking.run", tmp_path / "r", fmt, (3, 4))
    args = ["eval", "-q", "-m", "map", "-m", "P_10", "-m", "ndcg_cut_10", "-a", "tolerance:15"]
    code, reference, _ = run_cli(*args, str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run"))
    assert code == 0
    code, out, _ = run_cli(*args, "--time-format", fmt, str(tmp_path / "q"), str(tmp_path / "r"))
    assert code == 0
    assert out == reference


def test_eval_on_segments_names_measures_with_the_adapter_suffix() -> None:
    for adapter, name in (("overlap", "map"), ("binned:60", "map_bin"), ("tolerance:5", "map_tol")):
        code, out, _ = run_cli("eval", "-m", "map", "-a", adapter, str(FIXTURES / "gen_linking.qrels"),
                               str(FIXTURES / "gen_linking.run"))
        assert code == 0 and out.startswith(f"{name:<22}\tall\t"), adapter


@pytest.mark.parametrize(("token", "seconds"), [("0", 0.0), ("1025.5", 1025.5), ("007", 7.0)])
def test_parse_seconds(token: str, seconds: float) -> None:
    assert parse_seconds(token) == seconds


@pytest.mark.parametrize("token", ["-1", "1e3", ".5", "1.", "inf", "1,5", ""])
def test_parse_seconds_rejects(token: str) -> None:
    assert parse_seconds(token) is None


@pytest.mark.parametrize(("token", "seconds"), [("0:00:00", 0.0), ("1:05:09.25", 3909.25), ("12:59:59", 46799.0)])
def test_parse_hms(token: str, seconds: float) -> None:
    assert parse_hms(token) == seconds


@pytest.mark.parametrize("token", ["1:60:00", "1:00:60", "1:5:09", "01:05", "1:05:09.", "-1:00:00"])
def test_parse_hms_rejects(token: str) -> None:
    assert parse_hms(token) is None


def test_bad_time_names_the_format(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 Q0 v1 0:00:10 0:00:61 1\n")
    (tmp_path / "r").write_text("q1 Q0 v1 0:00:10 0:00:20 1 0.5 r\n")
    code, _, err = run_cli("eval", "--time-format", "hms", str(tmp_path / "q"), str(tmp_path / "r"))
    assert code == 2
    assert err == (f"segeval: error: {tmp_path / 'q'}, line 1: field 5 (end) is '0:00:61'; expected an H:MM:SS time "
                   f"with optional decimals, such as '1:05:09.25'\n  line 1: q1 Q0 v1 0:00:10 0:00:61 1\n")


@pytest.mark.parametrize(("line", "time_format", "expected"), [
    ("301 Q0 FBIS3-1 1 12.5 run", "mmss", TREC_RUN),
    ("301 Q0 FBIS3-1 99 2.13 STANDARD more junk at", "mmss", TREC_RUN),  # trec_eval's trailing fields
    ("a1 Q0 v1 1.00 2.30 1 0.5 run", "mmss", MEDIAEVAL_LINKING_RUN),
    ("q1 Q0 v1 1.00 2.30 1.00 1 0.5", "mmss", MEDIAEVAL_SEARCH_RUN),
    ("q1 Q0 v1 1.00 2.30 1.00 1 0.5 run", "mmss", MEDIAEVAL_SEARCH_RUN),
    ("a1 Q0 v1 10 20 1 0.5 run", "seconds", MEDIAEVAL_LINKING_RUN),  # also TREC-shaped: MediaEval wins
])
def test_run_format_detection(line: str, time_format: str, expected: object) -> None:
    assert detect_run_format((line + "\n").encode(), "f", time_format) is expected


def test_run_format_detection_errors() -> None:
    with pytest.raises(InputError, match="does not look like a run line"):
        detect_run_format(b"a b c\n", "f")
    with pytest.raises(InputError, match="cannot tell a MediaEval linking run"):
        # 8 fields where field 6 is both a rank and an M.S-free seconds time
        detect_run_format(b"q1 Q0 v1 10 20 30 1 0.5\n", "f", "seconds")


@pytest.mark.parametrize("seed", range(6))
def test_seconds_evidence_is_the_same_in_any_split_of_the_queries(seed: int) -> None:
    """The evidence of times in seconds (segeval.core.notes.seconds_evidence) is per query, so the routes that
    evaluate a run in parts give the note the whole run gives; hand check: a result counts when it starts after
    BEYOND x the latest judged end of its query and video."""
    from segeval.core.notes import BEYOND, seconds_evidence
    from segeval.readers.from_tables import prepare

    rng = np.random.default_rng(seed)
    n = 60
    qrels = pd.DataFrame({"query": rng.choice(["q1", "q2", "q3"], n), "item": rng.choice(["v1", "v2"], n),
                          "start": rng.integers(0, 300, n).astype(float), "rel": rng.integers(0, 2, n)})
    qrels["end"] = qrels["start"] + rng.integers(1, 60, n)
    qrels = qrels.drop_duplicates(["query", "item", "start", "end"]).reset_index(drop=True)
    qrels["line"] = np.arange(1, len(qrels) + 1)
    run = pd.DataFrame({"query": rng.choice(["q1", "q2", "q3"], n), "item": rng.choice(["v1", "v2", "v3"], n),
                        "start": rng.choice([10.0, 100.0, 5000.0, 20000.0], n)})
    run["end"] = run["start"] + 30
    run = run.drop_duplicates(["query", "item", "start", "end"]).reset_index(drop=True)
    run = run.assign(rank=run.groupby("query").cumcount() + 1, score=0.0, jumpin=np.nan, run="r",
                     line=np.arange(1, len(run) + 1))
    whole = prepare(qrels, run)
    got = dict(zip(whole.queries, seconds_evidence(whole), strict=True))
    for q in whole.queries:
        alone = prepare(qrels, run, queries=[q])
        assert [tuple(map(str, e)) for e in seconds_evidence(alone)] == [tuple(map(str, got[q]))]
        latest = qrels[qrels["query"] == q].groupby("item")["end"].max()
        mine = run[(run["query"] == q) & run["item"].isin(latest.index)]
        beyond = mine[mine["start"] > BEYOND * mine["item"].map(latest)].sort_values("rank")
        assert got[q][:2] == (len(mine), len(beyond))
        assert str(got[q][2]) == str(float(beyond["start"].iloc[0]) if len(beyond) else np.nan)
