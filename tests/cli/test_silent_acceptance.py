"""Input that used to be accepted silently (wrong numbers, exit 0): each case with its exact message and exit code.

Format detection from many lines, duplicate judgements, qrels and runs of different kinds, times in the
wrong format, a directory without runs, me13sh without a common query, and a header line.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from segeval.readers.files import read_bytes
from segeval.readers.formats import DETECT_LINES, detect_run_format
from segeval.readers.tables import read_qrels
from segeval.readers.validate import qrels_duplicates, validate_qrels
from tests.conftest import run_cli, shared

MMSS = "an M.S time: minutes (at most 12 digits), a dot and seconds 0-59 (one or two digits), such as '17.05'"
SECONDS = ("a time in seconds: digits with an optional decimal part (any number of decimals; an exponent as Python "
           "writes it, 1e-05), such as '1025.5'")
KINDS = "expected a run and qrels of the same kind: TREC runs with TREC qrels, MediaEval runs with MediaEval qrels"
QRELS_M = "q1 Q0 v1 1.00 2.00 1\nq1 Q0 v1 3.00 4.00 0\n"
QRELS_T = "301 0 d1 1\n301 0 d2 0\n"
RUN_T = "301 Q0 d1 1 2.5 r\n301 Q0 d2 2 1.5 r\n"
ENGINES = [(), ("--memory", "chunked", "--chunk-lines", "2")]


def files(tmp_path: Path, qrels: str, run: str) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def value(out: str, measure: str, query: str = "all") -> str:
    """One value of trec_eval-style output."""
    found = [v for m, q, v in (line.split("\t") for line in out.splitlines()) if m.strip() == measure and q == query]
    assert len(found) == 1, out
    return found[0]


# --------------------------------------------------------------------------- format detection


@pytest.mark.parametrize("engine", ENGINES)
def test_seconds_run_without_time_format_is_not_a_trec_run(tmp_path: Path, engine: tuple[str, ...]) -> None:
    # before: every line also fits TREC's format (rank 10, score 20, extra fields), so the run was read as a
    # document run and scored 0 with exit 0
    q, r = files(tmp_path, QRELS_M, "q1 Q0 v1 60 120 1 0.5 r\nq1 Q0 v1 180 240 2 0.4 r\n")
    code, out, err = run_cli("eval", *engine, q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {r}, line 1: field 4 (start) is '60'; expected {MMSS}; '60' would be a time "
                   f"in seconds (--time-format seconds)\n  line 1: q1 Q0 v1 60 120 1 0.5 r\n")
    code, out, err = run_cli("eval", *engine, "--time-format", "seconds", "-m", "map", q, r)
    # qrels in M.S read as seconds: 1.00-2.00 s; the run's 60-120 s overlaps nothing relevant
    assert code == 0 and value(out, "map_once") == "0.0000"


def test_check_reports_a_seconds_run(tmp_path: Path) -> None:
    q, r = files(tmp_path, QRELS_M, "q1 Q0 v1 60 120 1 0.5 r\nq1 Q0 v1 180 240 2 0.4 r\n")
    code, out, err = run_cli("check", q, r)
    assert (code, out) == (2, f"{r}\tbad start\t2\n{r}\tinput\t1\n3 problems\n")
    assert err.count("would be a time in seconds (--time-format seconds)") == 2
    assert err.endswith(f"segeval: {r}: has no data lines; expected MediaEval linking run lines such as "
                        f"'anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1 0.93 myrun'\n")


@pytest.mark.parametrize("engine", ENGINES)
def test_lines_of_different_formats_are_an_error(tmp_path: Path, engine: tuple[str, ...]) -> None:
    # line 1 lost its times: alone, it is a TREC run line (the run was read as TREC, exit 0, zeros)
    run = "q1 Q0 v1 1 0.5 r\nq1 Q0 v1 1.00 2.00 2 0.4 r\nq1 Q0 v1 3.00 4.00 3 0.3 r\n"
    q, r = files(tmp_path, QRELS_M, run)
    code, out, err = run_cli("eval", *engine, q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {r}, line 2: looks like a MediaEval linking run line, but line 1 looks like a "
                   f"TREC run line; expected one format in a file (format detection reads the first "
                   f"{DETECT_LINES} data lines)\n  line 2: q1 Q0 v1 1.00 2.00 2 0.4 r\n")
    code, out, _ = run_cli("check", q, r)
    assert (code, out) == (2, f"{r}\tmixed formats\t1\n1 problem\n")


def test_linking_and_search_lines_are_an_error(tmp_path: Path) -> None:
    q, r = files(tmp_path, QRELS_M, "q1 Q0 v1 1.00 2.00 1 0.5 r\nq1 Q0 v1 1.00 2.00 1.00 2 0.4 r\n")
    code, _, err = run_cli("eval", q, r)
    assert code == 2
    assert err == (f"segeval: error: {r}, line 2: looks like a MediaEval search run line, but line 1 looks like a "
                   f"MediaEval linking run line; expected one format in a file (format detection reads the first "
                   f"{DETECT_LINES} data lines)\n  line 2: q1 Q0 v1 1.00 2.00 1.00 2 0.4 r\n")


def test_qrels_lines_of_different_formats_are_an_error(tmp_path: Path) -> None:
    q, r = files(tmp_path, "301 0 d1 1\n301 Q0 v1 1.00 2.00 1\n", RUN_T)
    code, _, err = run_cli("eval", q, r)
    assert code == 2
    assert err == (f"segeval: error: {q}, line 2: looks like a MediaEval qrels line, but line 1 looks like a "
                   f"TREC qrels line; expected one format in a file (format detection reads the first "
                   f"{DETECT_LINES} data lines)\n  line 2: 301 Q0 v1 1.00 2.00 1\n")


@pytest.mark.parametrize("engine", [(), ("--memory", "chunked", "--chunk-lines", "7")])
def test_detection_reads_the_documented_number_of_lines(tmp_path: Path, engine: tuple[str, ...]) -> None:
    # a line after the first DETECT_LINES data lines does not take part: it is a malformed line of the detected format
    good = "".join(f"301 Q0 d{i} {i} {1 / i:.6f} r\n" for i in range(1, DETECT_LINES + 1))
    qrels = "301 0 d1 1\n"
    q, r = files(tmp_path, qrels, good + "301 Q0 v1 1.00 2.00 1 0.5 r\n")
    code, _, err = run_cli("eval", *engine, q, r)
    assert code == 2
    n = DETECT_LINES + 1
    assert err == (f"segeval: error: {r}, line {n}: field 4 (rank) is '1.00'; expected an integer (at most 18 "
                   f"digits)\n  line {n}: 301 Q0 v1 1.00 2.00 1 0.5 r\n")
    q, r = files(tmp_path, qrels, good[: good.index(f"d{DETECT_LINES} ")].rsplit("\n", 1)[0] + "\n"
                 + "301 Q0 v1 1.00 2.00 1 0.5 r\n")  # the same line as data line DETECT_LINES: detection sees it
    code, _, err = run_cli("eval", *engine, q, r)
    assert code == 2 and f"line {DETECT_LINES}: looks like a MediaEval linking run line, but line 1" in err


# --------------------------------------------------------------------------- a header line


@pytest.mark.parametrize("engine", ENGINES)
def test_a_header_is_one_more_bad_line(tmp_path: Path, engine: tuple[str, ...]) -> None:
    q, r = files(tmp_path, "query iter docno rel\n" + QRELS_T, "qid Q0 docno rank score tag\n" + RUN_T)
    code, out, err = run_cli("eval", *engine, q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {q}, line 1: field 4 (rel) is 'rel'; expected an integer (at most 18 digits)\n"
                   f"  line 1: query iter docno rel\n")
    code, out, err = run_cli("eval", *engine, "--lenient", "-m", "map", "-m", "num_rel", q, r)
    assert code == 3
    assert value(out, "num_rel") == "1" and value(out, "map") == "1.0000"  # d1 relevant, retrieved first
    assert err == (f"segeval: skipped {q}, line 1: field 4 (rel) is 'rel'; expected an integer (at most 18 digits)\n"
                   f"segeval: skipped {r}, line 1: field 4 (rank) is 'rank'; expected an integer (at most 18 "
                   f"digits)\nsegeval: 2 malformed lines skipped (--lenient)\n")
    code, out, _ = run_cli("check", q, r)
    assert (code, out) == (2, f"{q}\tbad rel\t1\n{r}\tbad rank\t1\n2 problems\n")


def test_a_header_of_another_field_count(tmp_path: Path) -> None:
    # a one-field header line: it fits no format, so the other lines decide and the parser reports it
    q, r = files(tmp_path, "#qrels\n" + QRELS_T, "#run\n" + RUN_T)
    code, out, _ = run_cli("check", q, r)
    assert (code, out) == (2, f"{q}\tfield count\t1\n{r}\tfield count\t1\n2 problems\n")
    code, _, err = run_cli("eval", "--lenient", q, r)
    assert code == 3 and err.endswith("segeval: 2 malformed lines skipped (--lenient)\n")


# --------------------------------------------------------------------------- duplicate judgements


def test_identical_duplicate_judgement(tmp_path: Path) -> None:
    q, r = files(tmp_path, "301 0 d1 1\n301 0 d2 1\n301 0 d1 1\n", RUN_T)
    code, out, err = run_cli("eval", q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {q}, line 3: query '301', document 'd1' is judged again, with the same grade 1; "
                   f"first judged on {q}, line 1; expected one judgement per query and document (trec_eval refuses "
                   f"duplicates too)\n  line 3: 301 0 d1 1\n")
    # --lenient keeps the first judgement: num_rel 2 (d1, d2), not 3
    code, out, _ = run_cli("eval", "--lenient", "-m", "num_rel", q, r)
    assert code == 3 and value(out, "num_rel") == "2"


def test_conflicting_duplicate_judgement(tmp_path: Path) -> None:
    q, r = files(tmp_path, "301 0 d1 0\n301 0 d2 1\n302 0 d1 1\n301 0 d1 2\n", RUN_T)
    code, _, err = run_cli("eval", q, r)
    assert code == 2
    assert err == (f"segeval: error: {q}, line 4: query '301', document 'd1' is judged again, with grade 2 (first 0); "
                   f"first judged on {q}, line 1; expected one judgement per query and document (trec_eval refuses "
                   f"duplicates too)\n  line 4: 301 0 d1 2\n")


def test_duplicate_segment_judgement(tmp_path: Path) -> None:
    # '1.5' and '1.05' are both 1 min 5 s: the same segment; 1.05-2.01 is another segment of the same video
    qrels = "q1 Q0 v1 1.05 2.00 1\nq1 Q0 v1 1.05 2.01 1\nq2 Q0 v1 1.5 2.00 1\nq1 Q0 v1 1.5 2.00 0\n"
    q, r = files(tmp_path, qrels, "q1 Q0 v1 1.00 2.00 1 0.5 r\n")
    code, out, err = run_cli("me13sh", q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {q}, line 4: query 'q1', video 'v1', segment 65-120 s is judged again, with "
                   f"grade 0 (first 1); first judged on {q}, line 1; expected one judgement per query and segment "
                   f"(trec_eval refuses duplicates too)\n  line 4: q1 Q0 v1 1.5 2.00 0\n")
    code, out, _ = run_cli("check", q, r)
    assert (code, out) == (2, f"{q}\tduplicate judgement\t1\n1 problem\n")


def test_a_segment_listed_twice_in_a_run(tmp_path: Path) -> None:
    """The README's policy: a segment (query, video, start, end) twice in a run is evaluated as listed, as the
    MediaEval reference does, on every route, in me13sh and the API, and check notes it ('1.5' and '1.05' are
    both 1 min 5 s); a document twice is an error."""
    import segeval

    run = ("q1 Q0 v1 1.05 2.00 1 0.9 r\nq1 Q0 v2 1.05 2.00 2 0.8 r\nq2 Q0 v1 1.00 2.00 1 0.7 r\n"
           "q1 Q0 v1 1.5 2.00 3 0.6 r\n")
    q, r = files(tmp_path, QRELS_M, run)
    routes = [[], ["--memory", "in-memory"], ["--memory", "chunked", "--chunk-lines", "1"], ["--lenient"]]
    outs = {run_cli("eval", "-q", "-a", "overlap", "-m", "num_ret", "-m", "P_5", *args, q, r)[:2] for args in routes}
    assert len(outs) == 1  # every route alike
    code, out = outs.pop()
    # both copies of v1 65-120 s overlap the relevant 60-120 s: 2 relevant of P_5's 5 = 0.4 (q2 has no qrels)
    assert code == 0 and out.replace(" ", "") == "num_ret\tq1\t3\nP_5\tq1\t0.4000\nnum_ret\tall\t3\nP_5\tall\t0.4000\n"
    assert segeval.evaluate(q, r, measures=["num_ret"], adapters="overlap").per_query["num_ret"] == [3]
    assert run_cli("me13sh", q, r)[0] == 0
    code, out, err = run_cli("check", q, r)
    assert (code, out) == (0, "no problems\n")
    assert err == (f"segeval: note: {r}: 1 segment listed again for its query (first: line 4, as line 1); evaluated "
                   "as listed, each a result, as the MediaEval reference does\n")


def test_duplicate_judgements_in_every_command(tmp_path: Path) -> None:
    q, r = files(tmp_path, "301 0 d1 1\n301 0 d1 1\n", RUN_T)
    (tmp_path / "run2").write_text(RUN_T)
    for args in (["compare", q, r, r + "2"], ["pool", q, r], ["pool-bias", q, r, "--groups", r],
                 ["incompleteness", q, r, r + "2"]):
        code, out, err = run_cli(*args)
        assert (code, out) == (2, ""), args
        assert err.startswith(f"segeval: error: {q}, line 2: query '301', document 'd1' is judged again"), args


@pytest.mark.parametrize("name", ["trec_eval/qrels.test", "trec_eval/qrels.rel_level",
                                  "mediaeval/me14sh_linking_testSet.qrel.gz",
                                  "mediaeval/me14sh_search_testSet.qrel.gz"])
def test_reference_qrels_have_no_duplicates(name: str) -> None:
    qrels = read_qrels(shared(*name.split("/")))
    assert len(validate_qrels(qrels)) == len(qrels) > 1000


# --------------------------------------------------------------------------- qrels and run of different kinds


@pytest.mark.parametrize("engine", ENGINES)
def test_document_run_against_segment_qrels(tmp_path: Path, engine: tuple[str, ...]) -> None:
    q, r = files(tmp_path, QRELS_M, RUN_T)
    code, out, err = run_cli("eval", *engine, q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {r}: is a TREC run (documents, no times), but {q} holds MediaEval qrels "
                   f"(video segments, with times); {KINDS}\n")


@pytest.mark.parametrize("engine", ENGINES)
def test_segment_run_against_document_qrels(tmp_path: Path, engine: tuple[str, ...]) -> None:
    q, r = files(tmp_path, QRELS_T, "301 Q0 v1 1.00 2.00 1 0.5 r\n")
    code, out, err = run_cli("eval", *engine, q, r)
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {r}: is a MediaEval linking run (video segments, with times), but {q} holds "
                   f"TREC qrels (documents, no times); {KINDS}\n")


def test_kinds_in_check_and_other_commands(tmp_path: Path) -> None:
    q, r = files(tmp_path, QRELS_M, RUN_T)
    (tmp_path / "run2").write_text(RUN_T)
    assert run_cli("check", q, r)[:2] == (2, f"{r}\tkind mismatch\t1\n1 problem\n")
    message = (f"segeval: error: {r}: is a TREC run (documents, no times), but {q} holds MediaEval qrels "
               f"(video segments, with times); {KINDS}\n")
    for args in (["show", q, r, "-Q", "q1", "--explain"], ["pool", q, r], ["compare", q, r, r + "2"]):
        assert run_cli(*args) == (2, "", message), args


# --------------------------------------------------------------------------- times


@pytest.mark.parametrize(("field", "line"), [
    ("4 (start)", "q1 Q0 v1 -5 20 1 0.5 r"),
    ("5 (end)", "q1 Q0 v1 5 -20 1 0.5 r"),
    ("6 (jumpin)", "q1 Q0 v1 5 20 -3 1 0.5 r"),
])
def test_negative_seconds(tmp_path: Path, field: str, line: str) -> None:
    # before: '-5' is no time, so the line was read as a TREC run line (rank -5), exit 0
    q, r = files(tmp_path, "q1 Q0 v1 10 20 1\n", line + "\n")
    code, _, err = run_cli("eval", "--time-format", "seconds", q, r)
    token = line.split()[int(field[0]) - 1]
    assert code == 2
    assert err == (f"segeval: error: {r}, line 1: field {field} is '{token}'; expected {SECONDS}; a time cannot be "
                   f"negative\n  line 1: {line}\n")


@pytest.mark.parametrize(("time_format", "token", "hint"), [
    ("mmss", "2.75", "; 75 seconds is not possible in an M.S time; '2.75' would be a time in seconds "
                     "(--time-format seconds)"),
    ("mmss", "0:02:05", "; '0:02:05' would be an H:MM:SS time (--time-format hms)"),
    ("seconds", "0:02:05", "; '0:02:05' would be an H:MM:SS time (--time-format hms)"),
    ("hms", "125.5", "; '125.5' would be an M.S time (--time-format mmss) or a time in seconds "
                     "(--time-format seconds)"),
    ("hms", "2.75", "; '2.75' would be a time in seconds (--time-format seconds)"),
    ("mmss", "1e3", ""),  # no format reads it: no hint
])
def test_time_format_hints(tmp_path: Path, time_format: str, token: str, hint: str) -> None:
    good = {"mmss": "1.00", "seconds": "60", "hms": "0:01:00"}[time_format]
    q, r = files(tmp_path, f"q1 Q0 v1 {good} {good} 1\n", f"q1 Q0 v1 {good} {token} 1 0.5 r\n")
    code, _, err = run_cli("eval", "--time-format", time_format, q, r)
    expected = {"mmss": MMSS, "seconds": SECONDS,
                "hms": "an H:MM:SS time with optional decimals, such as '1:05:09.25'"}[time_format]
    assert code == 2
    assert err == (f"segeval: error: {r}, line 1: field 5 (end) is '{token}'; expected {expected}{hint}\n"
                   f"  line 1: q1 Q0 v1 {good} {token} 1 0.5 r\n")


# --------------------------------------------------------------------------- directories, me13sh


@pytest.mark.parametrize("subdirectory", [False, True])
def test_directory_without_runs(tmp_path: Path, subdirectory: bool) -> None:
    q, _ = files(tmp_path, QRELS_T, RUN_T)
    empty = tmp_path / "runs"
    empty.mkdir()
    (empty / ".hidden").write_text(RUN_T)
    if subdirectory:
        (empty / "sub").mkdir()
        (empty / "sub" / "run").write_text(RUN_T)
    message = (f"segeval: error: no run files in {empty}; expected a directory holding run files (subdirectories "
               f"and hidden files are not read)\n")
    for command in ("eval", "compare", "pool"):
        assert run_cli(command, q, str(empty)) == (2, "", message), command


def test_me13sh_items_without_a_common_query(tmp_path: Path) -> None:
    q, r = files(tmp_path, QRELS_M + "q2 Q0 v1 1.00 2.00 1\n", "q2 Q0 v1 1.00 2.00 1 0.5 r\n")
    code, out, err = run_cli("me13sh", "--items", "q1", q, r)
    assert code == 0 and "num_q               \tall\t0" in out
    assert err == f"note: no query of --items is in both {q} and {r}: nothing was evaluated\n"


@pytest.mark.parametrize("seed", range(20))
def test_duplicate_judgements_match_a_plain_definition(seed: int) -> None:
    # generated qrels with repeats; the reported rows are those whose (query, item[, start, end]) came before
    rng = random.Random(seed)
    segments = seed % 2 == 1
    rows = [(f"q{rng.randint(0, 3)}", f"d{rng.randint(0, 5)}", float(rng.randint(0, 3)), float(rng.randint(3, 5)),
             rng.randint(0, 2)) for _ in range(rng.randint(2, 40))]
    q = pd.DataFrame(rows, columns=["query", "item", "start", "end", "rel"])
    if not segments:
        q["start"] = q["end"] = np.nan
    q["line"] = np.arange(1, len(q) + 1)
    seen: dict[tuple[object, ...], int] = {}
    expected = []
    for i, row in enumerate(rows):
        key = row[:4] if segments else row[:2]
        if key in seen:
            first = seen[key]
            same = rows[first][4] == row[4]
            expected.append((i, f"line {first + 1};", same))
        seen.setdefault(key, i)
    found = qrels_duplicates(q)
    assert [i for i, _, _ in found] == [i for i, _, _ in expected]
    for (_, problem, _), (_, first, same) in zip(found, expected, strict=True):
        assert first in problem and ("the same grade" in problem) == same


@pytest.mark.parametrize(("name", "expected"), [
    ("trec_eval/results.test", "TREC run"), ("trec_eval/results.trunc", "TREC run"), ("xinf/run0.gz", "TREC run"),
    ("mediaeval/me14sh_UT-HMI2014_L_1_Sh_U_N.txt.gz", "MediaEval linking run"),
    ("mediaeval/me14sh_UT-HMI2014_S_1_Sh_U_N.txt.gz", "MediaEval search run"),
    ("mediaeval/180-60-over.txt.gz", "MediaEval search run"),
    ("mediaeval/galuskacova-over.txt.gz", "MediaEval search run"),
    ("mediaeval/600-200-noover.txt.gz", "MediaEval search run"),
])
def test_reference_runs_are_detected(name: str, expected: str) -> None:
    assert detect_run_format(read_bytes(shared(*name.split("/"))), name).name == expected


def test_groups_detected_after_a_single_group_line(tmp_path: Path) -> None:
    # the first line has one group (no '|'): the other lines still make it a groups file
    q, r = files(tmp_path, "q1 d1,d2\nq2 d1 | d2,d3\n", "q1 Q0 d1 1 2 r\nq2 Q0 d2 1 2 r\n")
    code, out, err = run_cli("eval", "-m", "num_rel", "-q", q, r)
    assert (code, err) == (0, "")
    # q1: one group, both grade 1; q2: d1 grade 2, d2 and d3 grade 1: 2 + 3 relevant
    assert (value(out, "num_rel", "q1"), value(out, "num_rel", "q2"), value(out, "num_rel")) == ("2", "3", "5")


# --------------------------------------------------------------------------- times in seconds read as M.S

#: q1 judges v1 4.36-5.30 (276-330 s) relevant and v2 0.10-0.20 (10-20 s) non-relevant
QRELS_S = "q1 Q0 v1 4.36 5.30 1\nq1 Q0 v2 0.10 0.20 0\n"
#: the same content in seconds; read as M.S, 276.5 is 276 min 5 s = 16565 s (> 20 x 330), 12.5 is 725 s (> 20 x 20)
RUN_S = "q1 Q0 v1 276.5 330.5 1 0.9 r\nq1 Q0 v2 12.5 18.5 2 0.8 r\nq1 Q0 v9 1.5 2.5 3 0.7 r\n"
SECONDS_NOTE = ("the run's times may be seconds read as M.S: 2 of 2 results in videos their query's qrels judge "
                "start after 20 times the latest judged end there (first: q1, a result starting at M.S 276.05, "
                "16565 s); if the run writes seconds, give --time-format seconds (which reads the qrels in seconds "
                "too: M.S qrels need the run in M.S; me13sh reads M.S only, as the reference; docs/input-checks.md)")


@pytest.mark.parametrize("engine", [*ENGINES, ("-j", "2", "--memory", "chunked", "--chunk-lines", "1"),
                                    ("--memory", "in-memory")])
def test_a_run_in_seconds_read_as_mmss_is_noted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                engine: tuple[str, ...]) -> None:
    q, r = files(tmp_path, QRELS_S, RUN_S)
    code, out, err = run_cli("eval", *engine, "-m", "map", q, r)
    # read as M.S nothing overlaps (map 0); the note names the evidence and the option
    assert (code, value(out, "map_once"), err) == (0, "0.0000", f"note: {r}: {SECONDS_NOTE}\n")
    (tmp_path / "qrels").write_text("q1 Q0 v1 276 330 1\nq1 Q0 v2 10 20 0\n")  # the qrels in seconds
    code, out, err = run_cli("eval", *engine, "-m", "map", "--time-format", "seconds", q, r)
    # in seconds the run's first result overlaps the one relevant segment: AP = 1/1
    assert (code, value(out, "map_once"), err) == (0, "1.0000", "")
    monkeypatch.setattr("sys.stdin", __import__("io").TextIOWrapper(__import__("io").BytesIO(RUN_S.encode())))
    (tmp_path / "qrels").write_text(QRELS_S)
    code, out, err = run_cli("eval", *engine, "-m", "map", q, "-")
    assert (code, err) == (0, f"note: -: {SECONDS_NOTE}\n")


def test_a_run_in_mmss_is_not_noted_and_check_notes_seconds(tmp_path: Path) -> None:
    # the same times in M.S (4.36 = 276 s): within the judged segments, no note
    q, r = files(tmp_path, QRELS_S, "q1 Q0 v1 4.36 5.30 1 0.9 r\nq1 Q0 v2 0.12 0.18 2 0.8 r\n")
    assert run_cli("eval", "-m", "map", q, r)[2] == ""
    q, r = files(tmp_path, QRELS_S, RUN_S)
    assert run_cli("check", q, r) == (0, "no problems\n", f"segeval: note: {r}: {SECONDS_NOTE}\n")
    import segeval

    assert segeval.evaluate(q, r, "map").notes == [f"note: {SECONDS_NOTE}"]  # the API too
    assert segeval.evaluate(q, r, "map", time_format="seconds").notes == []
    # half of the results beyond is not enough: one result in M.S within, one beyond
    q, r = files(tmp_path, QRELS_S, "q1 Q0 v1 4.36 5.30 1 0.9 r\nq1 Q0 v2 12.5 18.5 2 0.8 r\n")
    assert segeval.evaluate(q, r, "map").notes == []


def test_check_videos_hints_seconds_past_the_end(tmp_path: Path) -> None:
    (tmp_path / "videos").write_text("v1 600\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 v1 276.5 330.5 1 0.9 r\n")  # 16565 s read as M.S; /60 = 276 s, within the video
    code, out, err = run_cli("check", "--videos", str(tmp_path / "videos"), str(run))
    assert code == 2 and "starts at 16565 s, after the end of video 'v1' (600 s" in err
    assert "an M.S time: if the run writes seconds, give --time-format seconds" in err
    code, out, err = run_cli("check", "--videos", str(tmp_path / "videos"), "--time-format", "seconds", str(run))
    assert (code, out) == (0, "no problems\n")


def test_me13sh_notes_a_run_in_seconds_too(tmp_path: Path) -> None:
    q, r = files(tmp_path, QRELS_S, RUN_S)
    code, _, err = run_cli("me13sh", q, r)
    assert (code, err) == (0, f"note: {r}: {SECONDS_NOTE}\n")
