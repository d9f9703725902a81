"""Submissions against the collection: the readers of the video list, blacklist and queries, one
test per ``check`` rule (message text), ``fix`` step by step, and properties of ``fix`` on
generated runs (check finds nothing after it; fixing twice changes nothing)."""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from segeval.analyses.submission import Rules, check_submission
from segeval.analyses.submission_fix import fix_submission
from segeval.core.errors import InputError
from segeval.readers.collection import read_blacklist, read_queries, read_videos
from segeval.readers.formats import format_time
from segeval.readers.tables import read_run
from segeval.readers.validate import validate_run
from tests.conftest import ROOT, examples, run_cli

VIDEOS = "vA 00:05:00\nvB 120\nvC 0:01:30.5\nvBad 00:10:00\n"  # 300 s, 120 s, 90.5 s, 600 s


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def coll(tmp_path: Path) -> dict[str, str]:
    return {"videos": write(tmp_path, "videos.txt", VIDEOS),
            "blacklist": write(tmp_path, "blacklist.txt", "vBad\n"),
            "queries": write(tmp_path, "queries.txt", "q1 the first query\nq2\n")}


def check(tmp_path: Path, coll: dict[str, str], lines: str, *extra: str) -> tuple[int, str, str, str]:
    run = write(tmp_path, "run.txt", lines)
    args = [a for key in ("videos", "blacklist", "queries") for a in (f"--{key}", coll[key])]
    code, out, err = run_cli("check", *args, *extra, run)
    return code, out, err, run


# ------------------------------------------------------------------------ readers

def test_videos_durations_in_seconds_and_hms(tmp_path: Path) -> None:
    videos = read_videos(write(tmp_path, "v.txt", VIDEOS + "\n"))
    # 00:05:00 = 300; 120; 0:01:30.5 = 60 + 30.5
    assert videos.durations == {"vA": 300.0, "vB": 120.0, "vC": 90.5, "vBad": 600.0}
    assert videos.lines["vC"] == 3


def test_videos_gzip(tmp_path: Path) -> None:
    path = tmp_path / "v.txt.gz"
    path.write_bytes(gzip.compress(VIDEOS.encode()))
    assert read_videos(str(path)).durations["vB"] == 120.0


@pytest.mark.parametrize(("text", "message"), [
    ("vA 5:00\n", "line 1: the duration is '5:00'; expected a duration in seconds ('354' or '354.5') or as "
                  "H:MM:SS ('0:05:54' or '00:05:54.5')"),
    ("vA 300 x\n", "line 1: has 3 fields; expected 2 fields for a video list line, 'video duration'"),
    ("vA 0\n", "line 1: the duration of video 'vA' is 0; expected a duration above 0"),
    ("vA 300\nvA 301\n", "line 2: video 'vA' is listed again (first on line 1); expected each video once"),
    ("\n\n", "has no data lines; expected 'video duration' lines"),
])
def test_videos_bad_input(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "v.txt", text)
    with pytest.raises(InputError) as info:
        read_videos(path)
    assert message in str(info.value)
    assert str(info.value).startswith(path)


def test_blacklist_and_queries(tmp_path: Path) -> None:
    assert read_blacklist(write(tmp_path, "b.txt", "vX\n\nvY")).lines == {"vX": 1, "vY": 3}
    assert read_blacklist(write(tmp_path, "e.txt", "")).lines == {}
    with pytest.raises(InputError, match="line 1: has 2 fields; expected one video id per blacklist line"):
        read_blacklist(write(tmp_path, "b2.txt", "vX vY\n"))
    assert list(read_queries(write(tmp_path, "q.txt", "q1 some text\nq2\n")).lines) == ["q1", "q2"]
    with pytest.raises(InputError, match="line 2: query 'q1' is listed again"):
        read_queries(write(tmp_path, "q2.txt", "q1\nq1 again\n"))


def test_queries_toolkit_xml(tmp_path: Path) -> None:
    xml = ('<?xml version="1.0" ?>\n<anchors>\n  <anchor>\n    <anchorId>anchor_1</anchorId>\n'
           '  </anchor>\n  <anchor>\n    <anchorId> anchor_2 </anchorId>\n  </anchor>\n</anchors>\n')
    assert read_queries(write(tmp_path, "a.xml", xml)).lines == {"anchor_1": 4, "anchor_2": 7}
    topics = "<topics><top><queryId>query_1</queryId></top></topics>"
    assert list(read_queries(write(tmp_path, "t.xml", topics)).lines) == ["query_1"]
    with pytest.raises(InputError, match="is XML without <anchorId> or <queryId> elements"):
        read_queries(write(tmp_path, "n.xml", "<x/>"))


# ------------------------------------------------------------------------ check: one test per rule

def test_check_clean_run(tmp_path: Path, coll: dict[str, str]) -> None:
    code, out, err, _ = check(tmp_path, coll, "q1 Q0 vA 1.00 2.00 1 0.9 r\nq2 Q0 vB 0.00 2.00 1 0.9 r\n")
    assert (code, out, err) == (0, "no problems\n", "")


def test_check_unknown_video(tmp_path: Path, coll: dict[str, str]) -> None:
    code, out, err, run = check(tmp_path, coll, "q1 Q0 vA 1.00 2.00 1 0.9 r\nq2 Q0 vX 1.00 2.00 1 0.9 r\n")
    assert code == 2
    assert err == (f"segeval: {run}, line 2: video 'vX' is not in the video list {coll['videos']}; expected one of "
                   f"its 4 videos\n  line 2: q2 Q0 vX 1.00 2.00 1 0.9 r\n")
    assert out == f"{run}\tunknown video\t1\n1 problem\n"


def test_check_blacklisted_video(tmp_path: Path, coll: dict[str, str]) -> None:
    code, _, err, run = check(tmp_path, coll, "q1 Q0 vA 1.00 2.00 1 0.9 r\nq2 Q0 vBad 1.00 2.00 1 0.9 r\n")
    assert code == 2
    assert err == (f"segeval: {run}, line 2: video 'vBad' is on the blacklist {coll['blacklist']} (line 1); "
                   f"expected a video that is not blacklisted\n  line 2: q2 Q0 vBad 1.00 2.00 1 0.9 r\n")


@pytest.mark.parametrize(("line", "what"), [
    ("q1 Q0 vB 1.50 2.10 1 0.9 r", "ends at 130 s"),  # 2.10 = 130 s > 120 s
    ("q1 Q0 vB 2.01 2.10 1 0.9 r", "starts at 121 s"),  # the start is past the end too: named first
    ("q1 Q0 vC 1.00 1.31 1 0.9 r", "ends at 91 s"),  # 91 > 90.5
])
def test_check_past_the_end(tmp_path: Path, coll: dict[str, str], line: str, what: str) -> None:
    code, out, err, run = check(tmp_path, coll, f"q2 Q0 vA 1.00 2.00 1 0.9 r\n{line}\n")
    video, duration, number = ("vB", "120", 2) if " vB " in line else ("vC", "90.5", 3)
    assert code == 2
    assert err == (f"segeval: {run}, line 2: the result {what}, after the end of video '{video}' ({duration} s, "
                   f"{coll['videos']} line {number}); expected times within the video\n  line 2: {line}\n")
    assert f"{run}\tpast the end\t1\n" in out


def test_check_end_of_video_is_within(tmp_path: Path, coll: dict[str, str]) -> None:
    # vB is 120 s = 2.00; vC 90.5 s: 1.30 = 90 s is inside
    code, out, _, _ = check(tmp_path, coll, "q1 Q0 vB 1.00 2.00 1 0.9 r\nq2 Q0 vC 1.00 1.30 1 0.9 r\n")
    assert (code, out) == (0, "no problems\n")


def test_check_jumpin_past_the_end(tmp_path: Path, coll: dict[str, str]) -> None:
    line = "q1 Q0 vB 1.00 2.00 2.05 1 0.9 r"  # search run, jump-in 125 s > 120 s
    code, _, err, run = check(tmp_path, coll, f"{line}\nq2 Q0 vA 1.00 2.00 1.00 1 0.9 r\n")
    assert code == 2
    assert (f"{run}, line 1: the result jumps in at 125 s, after the end of video 'vB' (120 s, {coll['videos']} "
            f"line 2); expected times within the video") in err


def test_check_end_before_start(tmp_path: Path, coll: dict[str, str]) -> None:
    line = "q1 Q0 vA 4.00 3.00 1 0.9 r"
    code, out, err, run = check(tmp_path, coll, f"{line}\nq2 Q0 vA 1.00 2.00 1 0.9 r\n")
    assert code == 2
    assert err == (f"segeval: {run}, line 1: the end time (180 s) is earlier than the start time (240 s); expected "
                   f"end >= start\n  line 1: {line}\n")
    assert out == f"{run}\tend before start\t1\n1 problem\n"


def test_check_zero_length(tmp_path: Path, coll: dict[str, str]) -> None:
    line = "q1 Q0 vA 4.10 4.10 1 0.9 r"
    code, out, err, run = check(tmp_path, coll, f"{line}\nq2 Q0 vA 1.00 2.00 1 0.9 r\n")
    assert code == 2
    assert err == (f"segeval: {run}, line 1: the result has no length (start = end = 250 s); expected end > start\n"
                   f"  line 1: {line}\n")
    assert out == f"{run}\tzero length\t1\n1 problem\n"


def test_check_unknown_query(tmp_path: Path, coll: dict[str, str]) -> None:
    lines = ("q1 Q0 vA 1.00 2.00 1 0.9 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\nq9 Q0 vA 1.00 2.00 1 0.9 r\n"
             "q9 Q0 vB 0.00 0.10 2 1 r\n")
    code, out, err, run = check(tmp_path, coll, lines)
    assert code == 2
    assert err == (f"segeval: {run}, line 3: query 'q9' is not in the queries file {coll['queries']} (2 results, "
                   f"the first on this line); expected one of its 2 queries\n  line 3: q9 Q0 vA 1.00 2.00 1 0.9 r\n")
    assert out == f"{run}\tunknown query\t1\n1 problem\n"


def test_check_missing_query(tmp_path: Path, coll: dict[str, str]) -> None:
    code, out, err, run = check(tmp_path, coll, "q1 Q0 vA 1.00 2.00 1 0.9 r\n")
    assert code == 2
    assert err == (f"segeval: {run}: has no result for query 'q2' ({coll['queries']}, line 2); expected results "
                   f"for every query of the queries file\n")
    assert out == f"{run}\tmissing query\t1\n1 problem\n"


def test_check_overlap(tmp_path: Path, coll: dict[str, str]) -> None:
    # rank 2 (90-150 s) overlaps rank 1 (60-120 s); rank 3 only touches rank 1 (120 = 120), and another
    # video or another query never overlaps
    lines = ("q1 Q0 vA 1.30 2.30 2 0.8 r\nq1 Q0 vA 1.00 2.00 1 0.9 r\nq1 Q0 vA 0.00 1.00 3 0.7 r\n"
             "q1 Q0 vB 1.00 2.00 4 0.6 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\n")
    code, out, err, run = check(tmp_path, coll, lines)
    assert code == 2
    assert err == (f"segeval: {run}, line 1: the result (video 'vA', 90-150 s, rank 2) overlaps an earlier result "
                   f"of query 'q1' on line 2 (60-120 s, rank 1); expected the results of one query not to "
                   f"overlap\n  line 1: q1 Q0 vA 1.30 2.30 2 0.8 r\n")
    assert out == f"{run}\toverlap\t1\n1 problem\n"


def test_check_too_many_results(tmp_path: Path, coll: dict[str, str]) -> None:
    lines = "".join(f"q1 Q0 vA {i}.00 {i}.30 {i + 1} 0.5 r\n" for i in range(4)) + "q2 Q0 vA 1.00 2.00 1 0.9 r\n"
    code, out, err, run = check(tmp_path, coll, lines, "--max-rank", "3")
    assert code == 2
    assert err == (f"segeval: {run}, line 4: query 'q1' has 4 results, and this is result 4 in rank order; "
                   f"expected at most 3 (--max-rank)\n  line 4: q1 Q0 vA 3.00 3.30 4 0.5 r\n")
    assert out == f"{run}\ttoo many results\t1\n1 problem\n"
    assert check(tmp_path, coll, lines, "--max-rank", "4")[:2] == (0, "no problems\n")


@pytest.mark.parametrize(("ranks", "bad", "expected"), [
    ((1, 2, 4), 3, 3),  # a gap: rank 3 missing
    ((1, 1, 2), 2, 2),  # rank 1 twice: the second comes where 2 is due
    ((2, 3, 4), 1, 1),  # starts at 2
])
def test_check_ranks_not_1_to_n(tmp_path: Path, coll: dict[str, str], ranks: tuple[int, ...], bad: int,
                                expected: int) -> None:
    lines = "".join(f"q1 Q0 vA {i}.00 {i}.30 {r} 0.5 r\n" for i, r in enumerate(ranks)) + "q2 Q0 vA 1.00 2.00 1 1 r\n"
    code, out, err, run = check(tmp_path, coll, lines)
    order = sorted(range(3), key=lambda i: (ranks[i], i))
    line = order[expected - 1] + 1
    assert code == 2
    assert err.startswith(f"segeval: {run}, line {line}: query 'q1' has rank {ranks[line - 1]} here where rank "
                          f"{expected} comes next in rank order; expected ranks 1 to 3 (its number of results), "
                          f"each once\n")
    assert out == f"{run}\tranks not 1..n\t1\n1 problem\n"
    assert bad == ranks[line - 1] or bad == expected


def test_check_with_qrels_and_collection(tmp_path: Path, coll: dict[str, str]) -> None:
    qrels = write(tmp_path, "qrels.txt", "q1 Q0 vA 1.00 2.00 1\n")
    run = write(tmp_path, "run.txt", "q1 Q0 vX 1.00 2.00 1 0.9 r\n")
    code, out, _ = run_cli("check", "--videos", coll["videos"], qrels, run)
    assert (code, out) == (2, f"{run}\tunknown video\t1\n1 problem\n")


def test_check_usage(tmp_path: Path, coll: dict[str, str]) -> None:
    run = write(tmp_path, "run.txt", "q1 Q0 vA 1.00 2.00 1 0.9 r\n")
    code, _, err = run_cli("check", run)
    assert code == 2 and "got 1 file; expected QRELS RUN (only RUN with --videos" in err
    code, _, err = run_cli("check", "--videos", str(tmp_path / "none.txt"), run)
    assert code == 2 and f"segeval: {tmp_path / 'none.txt'}: no such file" in err
    code, _, err = run_cli("check", "--max-rank", "0", run)
    assert code == 2 and "The '--max-rank' parameter must be an integer >= 1. Got 0 instead." in err


# ------------------------------------------------------------------------ fix

def fix(tmp_path: Path, coll: dict[str, str], lines: str, *extra: str) -> tuple[int, str, list[str], str]:
    run = write(tmp_path, "run.txt", lines)
    args = [a for key in ("videos", "blacklist", "queries") for a in (f"--{key}", coll[key])]
    out, log = tmp_path / "fixed.txt", tmp_path / "fix.log"
    code, _, err = run_cli("fix", *args, *extra, run, "-o", str(out), "--log", str(log))
    assert code == 0, err
    return code, out.read_text(), log.read_text().splitlines(), run


def test_fix_drops_unknown_and_blacklisted(tmp_path: Path, coll: dict[str, str]) -> None:
    lines = ("q1 Q0 vX 1.00 2.00 1 0.9 r\nq1 Q0 vBad 1.00 2.00 2 0.8 r\nq9 Q0 vA 1.00 2.00 1 0.9 r\n"
             "q1 Q0 vA  1.00\t2.00 3 0.7 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\n")
    _, text, log, run = fix(tmp_path, coll, lines)
    # the kept line keeps its separators; only the rank changes (3 -> 1)
    assert text == "q1 Q0 vA  1.00\t2.00 1 0.7 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\n"
    assert log == [f"{run}, line 1: dropped: video 'vX' is not in the video list {coll['videos']}",
                   f"{run}, line 2: dropped: video 'vBad' is on the blacklist {coll['blacklist']} (line 1)",
                   f"{run}, line 3: dropped: query 'q9' is not in the queries file {coll['queries']}",
                   f"{run}, line 4: rank 3 -> 1 (ranks 1..n in rank order)"]


def test_fix_times(tmp_path: Path, coll: dict[str, str]) -> None:
    lines = ("q1 Q0 vA 4.00 3.00 1 0.9 r\n"  # reversed: swapped
             "q1 Q0 vB 1.50 2.10 2 0.8 r\n"  # 130 s > 120 s: end clipped to 2.00
             "q1 Q0 vB 2.01 2.10 3 0.7 r\n"  # starts after the end: dropped
             "q1 Q0 vA 4.10 4.10 4 0.6 r\n"  # no length: 250 -> 250-251
             "q2 Q0 vB 2.00 2.00 1 0.9 r\n"  # no length at the very end: 119-120
             "q2 Q0 vC 1.00 1.40 2 0.8 r\n")  # 100 s > 90.5 s: end clipped to the whole second 90 = 1.30
    _, text, log, run = fix(tmp_path, coll, lines)
    assert text == ("q1 Q0 vA 3.00 4.00 1 0.9 r\nq1 Q0 vB 1.50 2.00 2 0.8 r\nq1 Q0 vA 4.10 4.11 3 0.6 r\n"
                    "q2 Q0 vB 1.59 2.00 1 0.9 r\nq2 Q0 vC 1.00 1.30 2 0.8 r\n")
    assert log == [f"{run}, line 1: start 4.00 and end 3.00 swapped (the end was earlier than the start)",
                   f"{run}, line 2: end 2.10 -> 2.00, the end of video 'vB' (120 s)",
                   f"{run}, line 3: dropped: it starts at 2.01, after the end of video 'vB' (120 s)",
                   f"{run}, line 4: no length: 4.10-4.10 -> 4.10-4.11 (zero length 1 s)",
                   f"{run}, line 4: rank 4 -> 3 (ranks 1..n in rank order)",
                   f"{run}, line 5: no length: 2.00-2.00 -> 1.59-2.00 (zero length 1 s)",
                   f"{run}, line 6: end 1.40 -> 1.30, the end of video 'vC' (90.5 s)"]


def test_fix_zero_length_parameter_and_seconds(tmp_path: Path, coll: dict[str, str]) -> None:
    lines = "q1 Q0 vC 90.5 90.5 90.5 1 0.9 r\nq2 Q0 vA 10 10 10 1 0.9 r\n"  # search run, times in seconds
    _, text, log, run = fix(tmp_path, coll, lines, "--time-format", "seconds", "--zero-length", "2.5")
    # 90.5 is vC's end: 88-90.5; 10 -> 10-12.5; the jump-in points stay
    assert text == "q1 Q0 vC 88 90.5 90.5 1 0.9 r\nq2 Q0 vA 10 12.5 10 1 0.9 r\n"
    assert log == [f"{run}, line 1: no length: 90.5-90.5 -> 88-90.5 (zero length 2.5 s)",
                   f"{run}, line 2: no length: 10-10 -> 10-12.5 (zero length 2.5 s)"]


def test_fix_zero_length_longer_than_the_video(tmp_path: Path, coll: dict[str, str]) -> None:
    # the whole video (from 0) when the zero length reaches back before its start, in each time format
    _, text, log, run = fix(tmp_path, coll, "q1 Q0 vC 0.10 0.10 1 0.9 r\n", "--zero-length", "100")
    assert text == "q1 Q0 vC 0.00 1.30 1 0.9 r\n"
    assert log == [f"{run}, line 1: no length: 0.10-0.10 -> 0.00-1.30 (zero length 100 s)"]
    _, text, log, run = fix(tmp_path, coll, "q1 Q0 vC 10 10 1 0.9 r\n", "--time-format", "seconds",
                            "--zero-length", "100")
    assert text == "q1 Q0 vC 0 90.5 1 0.9 r\n"
    assert log == [f"{run}, line 1: no length: 10-10 -> 0-90.5 (zero length 100 s)"]


def test_fix_video_shorter_than_the_last_writable_time(tmp_path: Path, coll: dict[str, str]) -> None:
    # a duration of 0.0000000005 s rounds up to 0.000000001 in 9 decimals, so the latest writable time is one
    # nanosecond earlier, clamped to 0 (was an internal error: the negative time had no text); the result ends at
    # the duration, inside the video: unchanged
    videos = write(tmp_path, "tiny_videos.txt", "vT 0.0000000005\n")
    run = write(tmp_path, "run.txt", "q1 Q0 vT 0 0.0000000005 1 0.9 r\n")
    out = tmp_path / "fixed.txt"
    code, _, err = run_cli("fix", "--videos", videos, "--time-format", "seconds", run, "-o", str(out))
    assert code == 0, err
    assert out.read_text() == "q1 Q0 vT 0 0.0000000005 1 0.9 r\n"


def test_fix_jumpin_clipped(tmp_path: Path, coll: dict[str, str]) -> None:
    _, text, log, run = fix(tmp_path, coll, "q1 Q0 vB 1.00 1.50 2.05 1 0.9 r\nq2 Q0 vB 1.00 1.50 1.10 1 0.9 r\n")
    assert text == "q1 Q0 vB 1.00 1.50 2.00 1 0.9 r\nq2 Q0 vB 1.00 1.50 1.10 1 0.9 r\n"
    assert log == [f"{run}, line 1: jump-in 2.05 -> 2.00, the end of video 'vB' (120 s)"]


@pytest.mark.parametrize(("policy", "kept", "entries"), [
    ("trim", ["q1 Q0 vA 1.00 2.00 1 0.9 r", "q1 Q0 vA 2.00 2.30 2 0.8 r", "q1 Q0 vA 0.30 1.00 3 0.6 r"],
     ["line 2: 1.30-2.30 -> 2.00-2.30, off the earlier result on line 1 (overlap policy trim)",
      "line 3: dropped: it overlaps the earlier results of query 'q1' on lines 1, 2 (overlap policy trim)",
      "line 4: 0.30-1.30 -> 0.30-1.00, off the earlier result on line 1 (overlap policy trim)",
      "line 4: rank 4 -> 3 (ranks 1..n in rank order)"]),
    ("drop", ["q1 Q0 vA 1.00 2.00 1 0.9 r"],
     ["line 2: dropped: it overlaps the earlier result of query 'q1' on line 1 (overlap policy drop)",
      "line 3: dropped: it overlaps the earlier result of query 'q1' on line 1 (overlap policy drop)",
      "line 4: dropped: it overlaps the earlier result of query 'q1' on line 1 (overlap policy drop)"]),
])
def test_fix_overlap_policies(tmp_path: Path, coll: dict[str, str], policy: str, kept: list[str],
                              entries: list[str]) -> None:
    # ranks 1: 60-120, 2: 90-150, 3: 70-140 (inside 1 and 2 once 2 is trimmed to 120-150), 4: 30-90
    lines = ("q1 Q0 vA 1.00 2.00 1 0.9 r\nq1 Q0 vA 1.30 2.30 2 0.8 r\nq1 Q0 vA 1.10 2.20 3 0.7 r\n"
             "q1 Q0 vA 0.30 1.30 4 0.6 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\n")
    _, text, log, run = fix(tmp_path, coll, lines, "--overlap", policy)
    assert text.splitlines() == [*kept, "q2 Q0 vA 1.00 2.00 1 0.9 r"]
    assert log == [f"{run}, {entry}" for entry in entries]


def test_fix_trim_keeps_the_longest_part(tmp_path: Path, coll: dict[str, str]) -> None:
    # rank 1 is 100-110 inside rank 2's 60-180: the parts left are 60-100 (40 s) and 110-180 (70 s)
    lines = "q1 Q0 vA 1.40 1.50 1 0.9 r\nq1 Q0 vA 1.00 3.00 2 0.8 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\n"
    _, text, _, _ = fix(tmp_path, coll, lines)
    assert text.splitlines()[1] == "q1 Q0 vA 1.50 3.00 2 0.8 r"


def test_fix_max_rank_and_ranks(tmp_path: Path, coll: dict[str, str]) -> None:
    lines = "".join(f"q1 Q0 vA {i}.00 {i}.30 {r} 0.5 r\n" for i, r in enumerate((5, 2, 2, 9))) + \
        "q2 Q0 vA 1.00 2.00 1 0.9 r\n"
    _, text, log, run = fix(tmp_path, coll, lines, "--max-rank", "2")
    # rank order: line 2 (2), line 3 (2, later), line 1 (5), line 4 (9); the first two are kept
    assert text == "q1 Q0 vA 1.00 1.30 1 0.5 r\nq1 Q0 vA 2.00 2.30 2 0.5 r\nq2 Q0 vA 1.00 2.00 1 0.9 r\n"
    assert log == [f"{run}, line 1: dropped: result 3 of query 'q1' in rank order; expected at most 2 results "
                   f"(--max-rank)",
                   f"{run}, line 2: rank 2 -> 1 (ranks 1..n in rank order)",
                   f"{run}, line 4: dropped: result 4 of query 'q1' in rank order; expected at most 2 results "
                   f"(--max-rank)"]


def test_fix_missing_query_note_stdout_and_exit_codes(tmp_path: Path, coll: dict[str, str]) -> None:
    run = write(tmp_path, "run.txt", "q1 Q0 vA 1.00 2.00 1 0.9 r\n")
    code, out, err = run_cli("fix", "--queries", coll["queries"], run)
    assert (code, out) == (0, "q1 Q0 vA 1.00 2.00 1 0.9 r\n")
    assert err == "segeval: note: query 'q2' has no result in the repaired run; no repair can supply one\n"
    bad = write(tmp_path, "bad.txt", "q1 Q0 vA 1.00 2.00 1 0.9 r\nq1 Q0 vA 1.00 2.00 x 0.9 r\n")
    code, _, err = run_cli("fix", "--videos", coll["videos"], bad, "-o", str(tmp_path / "o"))
    assert code == 2 and f"{bad}, line 2: field 6 (rank) is 'x'; expected an integer" in err
    assert not (tmp_path / "o").exists()
    for option in (["--overlap", "cut"], ["--zero-length", "0.5"], ["--zero-length", "0"], ["--max-rank", "0"]):
        code, _, err = run_cli("fix", *option, run, "-o", str(tmp_path / "o"))
        assert code == 2 and "parameter must" in err, option
    code, _, err = run_cli("fix", run, "-o", str(tmp_path / "no" / "o"))
    assert code == 2 and "cannot write" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "blacklist.txt", "queries.txt", "run.txt",
                                                           "videos.txt"]  # no temporary file left


def test_fix_trec_run(tmp_path: Path, coll: dict[str, str]) -> None:
    # a document run: the video rules, queries, ranks and --max-rank apply; times do not exist
    lines = "q1 Q0 vX 1 1.0 r\nq1 Q0 vA 3 0.5 r\nq1 Q0 vB 3 0.4 r\nq2 Q0 vA 1 1 r\n"
    _, text, log, run = fix(tmp_path, coll, lines, "--max-rank", "1")
    assert text == "q1 Q0 vA 1 0.5 r\nq2 Q0 vA 1 1 r\n"
    assert log[0] == f"{run}, line 1: dropped: video 'vX' is not in the video list {coll['videos']}"
    assert len(log) == 3


# ------------------------------------------------------------------------ properties

TIME_FORMATS = ("mmss", "seconds", "hms")


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, str, str, str, str]:
    time_format = draw(st.sampled_from(TIME_FORMATS))
    kind = draw(st.sampled_from(("linking", "search")))
    whole = time_format == "mmss"
    durations = [draw(st.integers(1, 40)) + (0 if whole else draw(st.sampled_from((0, 0.5, 0.25, 0.1))))
                 for _ in range(4)]
    videos = "".join(f"{v} {format_time(d, draw(st.sampled_from(('seconds', 'hms'))))}\n"
                     for v, d in zip(("v0", "v1", "v2", "vB"), durations, strict=True))  # vB is blacklisted

    def time() -> float:
        value = draw(st.integers(0, 30))
        return float(value) if whole else value + draw(st.sampled_from((0, 0.5, 0.1, 0.35)))

    lines = []
    for _ in range(draw(st.integers(1, 14))):
        query = draw(st.sampled_from(("q1", "q2", "q3", "qZ")))
        video = draw(st.sampled_from(("v0", "v0", "v0", "v1", "v2", "vX", "vB")))  # v0 often: overlaps
        start, end = time(), draw(st.one_of(st.just(-1.0), st.floats(0, 35)))
        end = start if end < 0 else (float(round(end)) if whole else round(end, 2))
        times = [format_time(start, time_format), format_time(end, time_format)]
        if kind == "search":
            times.append(format_time(time(), time_format))
        lines.append(f"{query} Q0 {video} {' '.join(times)} {draw(st.integers(1, 9))} 0.5 run\n")
    max_rank = str(draw(st.integers(1, 5)))
    return videos, "".join(lines), time_format, kind, max_rank, draw(st.sampled_from(("trim", "drop")))


def _rules(directory: Path, videos: str, max_rank: str) -> Rules:
    (directory / "v.txt").write_text(videos)
    (directory / "b.txt").write_text("vB\n")
    (directory / "q.txt").write_text("q1\nq2\nq3\n")
    return Rules(read_videos(directory / "v.txt"), read_blacklist(directory / "b.txt"),
                 read_queries(directory / "q.txt"), int(max_rank))


def _problems(path: Path, rules: Rules, time_format: str, kind: str) -> list[InputError]:
    found: list[InputError] = []
    run = read_run(path, kind, time_format, found.append)
    validate_run(run, found.append)
    check_submission(run, rules, found.append)
    return found


@settings(max_examples=int(os.environ.get("SUBMISSION_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_fix_then_check_finds_nothing_and_fix_is_idempotent(case: tuple[str, str, str, str, str, str]) -> None:
    videos, lines, time_format, kind, max_rank, policy = case
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        rules = _rules(directory, videos, max_rank)
        (directory / "run.txt").write_text(lines)
        fixed = fix_submission(read_run(directory / "run.txt", kind, time_format), rules, time_format,
                               overlap=policy)
        dropped = sum("dropped" in entry for entry in fixed.log)
        assert len(fixed.text.splitlines()) == len(lines.splitlines()) - dropped  # nothing dropped unlogged
        if not fixed.text:
            return
        (directory / "fixed.txt").write_text(fixed.text)
        problems = _problems(directory / "fixed.txt", rules, time_format, kind)
        assert [(p.kind, p.problem.split("'")[1]) for p in problems] == [("missing query", q) for q in fixed.missing]
        again = fix_submission(read_run(directory / "fixed.txt", kind, time_format), rules, time_format,
                               overlap=policy)
        assert (again.text, again.log) == (fixed.text, [])


# ------------------------------------------------------------------------ the shipped example

EXAMPLE = ROOT / "examples" / "collection"


@pytest.mark.parametrize(("run", "options", "prefix"), [
    ("run.txt", ["--max-rank", "5"], ""),
    ("search_run.txt", ["--time-format", "hms"], "search_"),
])
def test_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: str, options: list[str], prefix: str) -> None:
    monkeypatch.chdir(EXAMPLE.parent.parent)
    where = "examples/collection"
    args = ["--videos", f"{where}/videos.txt", "--blacklist", f"{where}/blacklist.txt", "--queries",
            f"{where}/anchors.xml", *options]
    code, out, err = run_cli("check", *args, f"{where}/{run}")
    assert code == 2
    assert out == (EXAMPLE / f"{prefix}check.out").read_text()
    assert err == (EXAMPLE / f"{prefix}check.err").read_text()
    fixed, log = tmp_path / "fixed.txt", tmp_path / "fix.log"
    code, _, _ = run_cli("fix", *args, f"{where}/{run}", "-o", str(fixed), "--log", str(log))
    assert code == 0
    assert fixed.read_text() == (EXAMPLE / f"{prefix}fixed.txt").read_text()
    assert log.read_text() == (EXAMPLE / f"{prefix}fix.log").read_text()
    code, out, err = run_cli("check", *args, str(fixed))
    missing = "anchor_3" if not prefix else None
    assert (code, out.splitlines()[-1]) == ((2, "1 problem") if missing else (0, "no problems"))
    again, log2 = tmp_path / "again.txt", tmp_path / "again.log"
    assert run_cli("fix", *args, str(fixed), "-o", str(again), "--log", str(log2))[0] == 0
    assert again.read_bytes() == fixed.read_bytes() and log2.read_bytes() == b""


# ------------------------------------------------------------------------ the interval code against brute force

intervals = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8)), min_size=1, max_size=25)


@settings(max_examples=examples(200), deadline=None)
@given(intervals, st.integers(1, 4))
def test_first_overlaps_is_brute_force(pairs: list[tuple[int, int]], block: int) -> None:
    from segeval.analyses import submission

    rows = [submission.Result(i + 1, "q", "v", float(s), float(s + n), float("nan"), i + 1)
            for i, (s, n) in enumerate(pairs)]
    expected = []
    for i, row in enumerate(rows):  # the first earlier result sharing more than a point
        first = next((o for o in rows[:i] if row.start < o.end and o.start < row.end), None)
        if first is not None:
            expected.append((row.line, first.line))
    old = submission._BLOCK
    submission._BLOCK = block  # several blocks on small groups
    try:
        found = sorted((row.line, other.line) for row, other in submission._first_overlaps(rows))
    finally:
        submission._BLOCK = old
    assert found == expected


@settings(max_examples=examples(200), deadline=None)
@given(intervals, st.sampled_from(("trim", "drop")))
def test_remove_overlaps_is_brute_force(pairs: list[tuple[int, int]], policy: str) -> None:
    from segeval.analyses.submission import Result
    from segeval.analyses.submission_fix import _remove_overlaps

    rows = [Result(i + 1, "q", "v", float(s), float(s + n + 1), float("nan"), i + 1) for i, (s, n) in enumerate(pairs)]
    expected: list[tuple[float, float]] = []
    for row in rows:  # each second of the result kept when no kept result covers it
        free = [t for t in range(int(row.start), int(row.end)) if not any(a <= t < b for a, b in expected)]
        if len(free) == row.end - row.start:
            expected.append((row.start, row.end))
        elif free and policy == "trim":  # the longest run of free seconds, the earliest of equals
            runs: list[list[int]] = []
            for t in free:
                if runs and runs[-1][-1] == t - 1:
                    runs[-1].append(t)
                else:
                    runs.append([t])
            best = max(runs, key=lambda r: (len(r), -r[0]))
            expected.append((float(best[0]), float(best[-1] + 1)))
    kept = _remove_overlaps(rows, policy, lambda row, action: None, str)
    assert [(r.start, r.end) for r in kept] == expected


# ------------------------------------------------------------------------ terminal safety (hostile ids and names)

def _hostile_cases() -> dict[str, tuple[Callable[..., list[str]], str]]:
    from tests.cli.test_terminal_safety import token as t

    ok = "v1 100\n"
    return {
        "unknown video": (lambda f, rng: ["check", "--videos", f(ok), f(f"q1 Q0 {t(rng)} 1.00 2.00 1 0.5 r\n")],
                          "is not in the video list"),
        "blacklisted video": (lambda f, rng: ["check", "--videos", f(f"{(v := t(rng))} 100\n"), "--blacklist",
                                              f(f"{v}\n"), f(f"q1 Q0 {v} 1.00 1.30 1 0.5 r\n")], "blacklist"),
        "bad duration": (lambda f, rng: ["check", "--videos", f(f"v1 {t(rng)}\n"), f("q1 Q0 v1 1.00 1.30 1 1 r\n")],
                         "the duration is"),
        "duplicate video": (lambda f, rng: ["fix", "--videos", f(f"{(v := t(rng))} 1\n{v} 2\n"),
                                            f("q1 Q0 v1 1.00 1.30 1 1 r\n")], "listed again"),
        "unknown query": (lambda f, rng: ["check", "--queries", f("q1\n"),
                                          f(f"q1 Q0 v1 1.00 2.00 1 0.5 r\n{t(rng)} Q0 v1 1.00 2.00 1 0.5 r\n")],
                          "is not in the queries file"),
        "missing query": (lambda f, rng: ["fix", "--queries", f(f"q1\n{t(rng)}\n"), f("q1 Q0 v1 1.00 2.00 1 1 r\n")],
                          "has no result in the repaired run"),
        "fix log": (lambda f, rng: ["fix", "--videos", f(ok), f(f"q1 Q0 {t(rng)} 1.00 2.00 1 0.5 r\n"), "-o",
                                    str(Path(f(None)))], "dropped: video"),
    }


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("kind", sorted(_hostile_cases()))
def test_hostile_ids_and_names_are_escaped(tmp_path: Path, kind: str, seed: int) -> None:
    import random

    from tests.cli.test_terminal_safety import RAW, Files

    rng = random.Random(f"{kind}/{seed}")
    case, says = _hostile_cases()[kind]
    code, out, err = run_cli(*case(Files(tmp_path, rng), rng))
    assert says in err, (kind, err)
    assert code in (0, 2) and RAW.search(err) is None, repr(err)
    assert all(RAW.search(field) is None for line in out.splitlines() for field in line.split("\t")), repr(out)


def test_check_bad_qrels_still_checks_the_run(tmp_path: Path, coll: dict[str, str]) -> None:
    qrels = write(tmp_path, "qrels.txt", "q1 Q0 vA 1.00\n")
    run = write(tmp_path, "run.txt", "q1 Q0 vX 1.00 2.00 1 0.9 r\n")
    code, out, _ = run_cli("check", "--videos", coll["videos"], qrels, run)
    assert code == 2 and f"{run}\tunknown video\t1\n" in out and f"{qrels}\t" in out
