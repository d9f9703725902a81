"""Bad input files: exit code 2 and one exact, traceback-free message naming file, line, text, expectation.

Each case of :data:`BAD` writes one bad file (the other one is good) into ``tmp_path``
and runs ``segeval me13sh`` in-process.  Expected messages are written out in full;
``{path}`` stands for the bad file's path.  Cases that segeval gets wrong today are
marked ``xfail(strict=True)`` and assert the correct behaviour.

:data:`HARMLESS` lists accepted variations of a plain qrels/run pair that must give
byte-for-byte the same report.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

# --------------------------------------------------------------------------- helpers

QRELS_OK = b"q1 Q0 v1 1.00 2.00 1\n"
LINKING_OK = b"q1 Q0 v1 1.00 2.00 1 0.5 r\n"
SEARCH_OK = b"q1 Q0 v1 1.00 2.00 1.00 1 0.5 r\n"

# the "expected ..." parts of the messages, spelled out (not imported) so a wording change is noticed
INT = "an integer (at most 18 digits)"
MMSS = "an M.S time: minutes (at most 12 digits), a dot and seconds 0-59 (one or two digits), such as '17.05'"
QRELS_EX = "'anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1'"
LINKING_EX = "'anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1 0.93 myrun'"
SEARCH_EX = "'query_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 2.30 1 0.93 myrun'"
E = "segeval: error: {path}"


def fields(n: int, expected: str, kind: str, example: str, line: str, number: int = 1) -> str:
    """The message for a line with the wrong number of fields."""
    return (f"{E}, line {number}: has {n} fields; expected {expected} fields for a {kind} line, "
            f"such as {example}\n  line {number}: {line}\n")


def bad_field(number: int, field: str, token: str, expected: str, line: str) -> str:
    """The message for a field that does not parse."""
    return f"{E}, line {number}: field {field} is '{token}'; expected {expected}\n  line {number}: {line}\n"


def truncated_gzip() -> bytes:
    """A gzip stream with valid magic whose body stops half-way."""
    data = gzip.compress(QRELS_OK * 50)
    return data[: len(data) // 2]


@dataclass(frozen=True)
class Bad:
    id: str
    bad: str  # "qrels" or "run"
    content: bytes | None  # None: the file is not created
    message: str  # the whole of stderr; {path} is the bad file's path
    kind: str = "linking"  # run format
    name: str = ""  # file name when it matters (default: qrels.txt / run.txt)
    directory: bool = False  # the path names a directory
    code: int = 2
    bug: str = ""  # non-empty: a known segeval bug, xfail(strict=True) with this reason


BUG_EXTRA_FIELDS = "fast path: pandas silently drops fields beyond the format's field count"
BUG_MISSING_FIELD = "fast path: a missing last field (run name) of a linking run is accepted"

#: the refusal of bytes that are not UTF-8 says it differs from trec_eval on purpose, and where that is documented
DELIBERATE = ("a deliberate difference from trec_eval, which takes raw bytes: ids are text in every output format; "
              "see docs/trec_eval-semantics.md")
BAD: list[Bad] = [
    # ---- field counts
    # qrels line with 5 fields instead of 6
    Bad("qrels-5-fields", "qrels", b"q1 Q0 v1 1.00 2.00\n",
        fields(5, "6", "MediaEval qrels", QRELS_EX, "q1 Q0 v1 1.00 2.00")),
    # qrels line with 7 fields instead of 6 (an extra column must not be dropped silently)
    Bad("qrels-7-fields", "qrels", b"q1 Q0 v1 1.00 2.00 1 x\n",
        fields(7, "6", "MediaEval qrels", QRELS_EX, "q1 Q0 v1 1.00 2.00 1 x")),
    # linking run line with 7 fields (run name missing) instead of 8
    Bad("linking-7-fields", "run", b"q1 Q0 v1 1.00 2.00 1 0.5\n",
        fields(7, "8", "MediaEval linking run", LINKING_EX, "q1 Q0 v1 1.00 2.00 1 0.5")),
    # linking run line with 6 fields instead of 8
    Bad("linking-6-fields", "run", b"q1 Q0 v1 1.00 2.00 1\n",
        fields(6, "8", "MediaEval linking run", LINKING_EX, "q1 Q0 v1 1.00 2.00 1")),
    # linking run line with 9 fields instead of 8
    Bad("linking-9-fields", "run", b"q1 Q0 v1 1.00 2.00 1 0.5 r x\n",
        fields(9, "8", "MediaEval linking run", LINKING_EX, "q1 Q0 v1 1.00 2.00 1 0.5 r x")),
    # search run line with 7 fields; 8 or 9 are allowed
    Bad("search-7-fields", "run", b"q1 Q0 v1 1.00 2.00 1.00 1\n",
        fields(7, "8 or 9", "MediaEval search run", SEARCH_EX, "q1 Q0 v1 1.00 2.00 1.00 1"), kind="search"),
    # search run line with 10 fields; 8 or 9 are allowed
    Bad("search-10-fields", "run", b"q1 Q0 v1 1.00 2.00 1.00 1 0.5 r x\n",
        fields(10, "8 or 9", "MediaEval search run", SEARCH_EX, "q1 Q0 v1 1.00 2.00 1.00 1 0.5 r x"),
        kind="search"),
    # ---- M.S times
    # seconds 60 > 59
    Bad("mmss-seconds-60", "qrels", b"q1 Q0 v1 3.60 4.00 1\n",
        bad_field(1, "4 (start)", "3.60", MMSS + "; 60 seconds is not possible in an M.S time; '3.60' would be a "
                  "time in seconds (--time-format seconds)", "q1 Q0 v1 3.60 4.00 1")),
    # a dot without seconds
    Bad("mmss-no-seconds", "qrels", b"q1 Q0 v1 3. 4.00 1\n",
        bad_field(1, "4 (start)", "3.", MMSS, "q1 Q0 v1 3. 4.00 1")),
    # a dot without minutes
    Bad("mmss-no-minutes", "qrels", b"q1 Q0 v1 .5 4.00 1\n",
        bad_field(1, "4 (start)", ".5", MMSS, "q1 Q0 v1 .5 4.00 1")),
    # no dot at all
    Bad("mmss-no-dot", "qrels", b"q1 Q0 v1 3 4.00 1\n",
        bad_field(1, "4 (start)", "3", MMSS + "; '3' would be a time in seconds (--time-format seconds)",
                  "q1 Q0 v1 3 4.00 1")),
    # negative time
    Bad("mmss-negative", "qrels", b"q1 Q0 v1 -0.01 4.00 1\n",
        bad_field(1, "4 (start)", "-0.01", MMSS + "; a time cannot be negative", "q1 Q0 v1 -0.01 4.00 1")),
    # exponent notation in the end time of a run
    Bad("mmss-exponent", "run", b"q1 Q0 v1 1.00 1e3 1 0.5 r\n",
        bad_field(1, "5 (end)", "1e3", MMSS, "q1 Q0 v1 1.00 1e3 1 0.5 r")),
    # three digits of seconds
    Bad("mmss-three-digits", "run", b"q1 Q0 v1 3.123 4.00 1 0.5 r\n",
        bad_field(1, "4 (start)", "3.123", MMSS + "; '3.123' would be a time in seconds (--time-format seconds)",
                  "q1 Q0 v1 3.123 4.00 1 0.5 r")),
    # not a number at all
    Bad("mmss-letters", "run", b"q1 Q0 v1 abc 4.00 1 0.5 r\n",
        bad_field(1, "4 (start)", "abc", MMSS, "q1 Q0 v1 abc 4.00 1 0.5 r")),
    # the jump-in point of a search run is an M.S time too
    Bad("mmss-jumpin", "run", b"q1 Q0 v1 1.00 2.00 1.99 1 0.5 r\n",
        bad_field(1, "6 (jumpin)", "1.99", MMSS + "; 99 seconds is not possible in an M.S time; '1.99' would be "
                  "a time in seconds (--time-format seconds)", "q1 Q0 v1 1.00 2.00 1.99 1 0.5 r"), kind="search"),
    # ---- end before start (validation stage, after parsing)
    # qrels segment ending before it starts, on line 2
    Bad("qrels-end-before-start", "qrels", b"q1 Q0 v1 1.00 2.00 1\nq1 Q0 v1 3.00 2.00 1\n",
        f"{E}, line 2: the end time (120 s) is earlier than the start time (180 s); expected end >= start\n"
        "  line 2: q1 Q0 v1 3.00 2.00 1\n"),
    # run result ending before it starts
    Bad("run-end-before-start", "run", b"q1 Q0 v1 3.00 2.00 1 0.5 r\n",
        f"{E}, line 1: the end time (120 s) is earlier than the start time (180 s); expected end >= start\n"
        "  line 1: q1 Q0 v1 3.00 2.00 1 0.5 r\n"),
    # ---- ranks
    # rank 0 (validation stage)
    Bad("rank-0", "run", b"q1 Q0 v1 1.00 2.00 0 0.5 r\n",
        f"{E}, line 1: the rank is 0; expected an integer rank >= 1\n  line 1: q1 Q0 v1 1.00 2.00 0 0.5 r\n"),
    # negative rank (validation stage)
    Bad("rank-negative", "run", b"q1 Q0 v1 1.00 2.00 -1 0.5 r\n",
        f"{E}, line 1: the rank is -1; expected an integer rank >= 1\n"
        "  line 1: q1 Q0 v1 1.00 2.00 -1 0.5 r\n"),
    # fractional rank
    Bad("rank-fraction", "run", b"q1 Q0 v1 1.00 2.00 1.5 0.5 r\n",
        bad_field(1, "6 (rank)", "1.5", INT, "q1 Q0 v1 1.00 2.00 1.5 0.5 r")),
    # rank that is not a number
    Bad("rank-letters", "run", b"q1 Q0 v1 1.00 2.00 x 0.5 r\n",
        bad_field(1, "6 (rank)", "x", INT, "q1 Q0 v1 1.00 2.00 x 0.5 r")),
    # rank in the search format (field 7)
    Bad("rank-search-letters", "run", b"q1 Q0 v1 1.00 2.00 1.00 x 0.5\n",
        bad_field(1, "7 (rank)", "x", INT, "q1 Q0 v1 1.00 2.00 1.00 x 0.5"), kind="search"),
    # ---- scores
    # NaN score
    Bad("score-nan", "run", b"q1 Q0 v1 1.00 2.00 1 nan r\n",
        bad_field(1, "7 (score)", "nan", "a finite number", "q1 Q0 v1 1.00 2.00 1 nan r")),
    # infinite score
    Bad("score-inf", "run", b"q1 Q0 v1 1.00 2.00 1 inf r\n",
        bad_field(1, "7 (score)", "inf", "a finite number", "q1 Q0 v1 1.00 2.00 1 inf r")),
    # score overflowing to infinity
    Bad("score-overflow", "run", b"q1 Q0 v1 1.00 2.00 1 1e999 r\n",
        bad_field(1, "7 (score)", "1e999", "a finite number", "q1 Q0 v1 1.00 2.00 1 1e999 r")),
    # score that is not a number
    Bad("score-letters", "run", b"q1 Q0 v1 1.00 2.00 1 abc r\n",
        bad_field(1, "7 (score)", "abc", "a finite number", "q1 Q0 v1 1.00 2.00 1 abc r")),
    # ---- relevance
    # relevance written as a decimal: not an integer
    Bad("rel-decimal", "qrels", b"q1 Q0 v1 1.00 2.00 1.0\n",
        bad_field(1, "6 (rel)", "1.0", INT, "q1 Q0 v1 1.00 2.00 1.0")),
    # relevance that is not a number
    Bad("rel-letters", "qrels", b"q1 Q0 v1 1.00 2.00 x\n",
        bad_field(1, "6 (rel)", "x", INT, "q1 Q0 v1 1.00 2.00 x")),
    # ---- encoding and bytes
    # invalid UTF-8 byte (0xff) on line 2, byte 8 of the line; shown with U+FFFD
    Bad("invalid-utf8", "qrels", QRELS_OK + b"q1 Q0 v\xff1 1.00 2.00 1\n",
        f"{E}, line 2: is not valid UTF-8 text (byte 8 of the line); expected UTF-8 "
        f"({DELIBERATE})\n"
        "  line 2: q1 Q0 v\ufffd1 1.00 2.00 1\n"),
    # invalid UTF-8 in a run
    Bad("invalid-utf8-run", "run", b"q1 Q0 v1 1.00 2.00 1 0.5 r\xe9\n",
        f"{E}, line 1: is not valid UTF-8 text (byte 27 of the line); expected UTF-8 "
        f"({DELIBERATE})\n"
        "  line 1: q1 Q0 v1 1.00 2.00 1 0.5 r\ufffd\n"),
    # a NUL byte inside a field, shown as \0
    Bad("nul-byte", "qrels", b"q1 Q0 v\x001 1.00 2.00 1\n",
        f"{E}, line 1: contains a NUL byte; expected a text line\n  line 1: q1 Q0 v\\01 1.00 2.00 1\n"),
    # ---- empty files
    # empty qrels
    Bad("qrels-empty", "qrels", b"",
        f"{E}: has no data lines; expected MediaEval qrels lines such as {QRELS_EX}\n"),
    # empty linking run
    Bad("run-empty", "run", b"",
        f"{E}: has no data lines; expected MediaEval linking run lines such as {LINKING_EX}\n"),
    # only blank and white-space lines (with CRLF and tabs)
    Bad("only-blank-lines", "qrels", b"\n   \n\t\r\n\r\n",
        f"{E}: has no data lines; expected MediaEval qrels lines such as {QRELS_EX}\n"),
    # a gzip file holding nothing
    Bad("empty-gzip", "run", gzip.compress(b"\n\n"),
        f"{E}: has no data lines; expected MediaEval linking run lines such as {LINKING_EX}\n",
        name="run.gz"),
    # ---- files that cannot be read
    # missing qrels
    Bad("qrels-missing", "qrels", None, f"{E}: no such file\n"),
    # missing run
    Bad("run-missing", "run", None, f"{E}: no such file\n"),
    # a directory given as the run
    Bad("run-directory", "run", None, f"{E}: is a directory, expected a file\n", directory=True),
    # gzip magic number with a truncated body
    Bad("gzip-truncated", "qrels", truncated_gzip(),
        f"{E}: is not a valid gzip file (it ends before the end-of-stream marker); "
        "expected a complete .gz file\n", name="qrels.gz"),
    # gzip magic number followed by garbage
    Bad("gzip-bad-method", "run", b"\x1f\x8b" + b"x" * 30,
        f"{E}: is not a valid gzip file (unknown compression method); expected a complete .gz file\n",
        name="run.gz"),
    # a .gz name on a plain text file
    Bad("gz-name-not-gzip", "run", LINKING_OK,
        f"{E}: has a .gz name but is not gzip-compressed; expected a gzip file\n", name="run.gz"),
    # ---- line numbers count every physical line (blank, white-space only, CRLF)
    # parse error on line 5 after CRLF lines and blank lines
    Bad("line-5-parse", "qrels",
        b"q1 Q0 v1 1.00 2.00 1\r\n\r\n  \nq1 Q0 v1 3.00 4.00 1\r\nq1 Q0 v1 5.00 6.00 y\r\n",
        bad_field(5, "6 (rel)", "y", INT, "q1 Q0 v1 5.00 6.00 y")),
    # validation error (end < start) on line 5 after CRLF lines and blank lines
    Bad("line-5-validate", "qrels",
        b"q1 Q0 v1 1.00 2.00 1\r\n\r\n\t\nq1 Q0 v1 3.00 4.00 1\r\nq1 Q0 v1 6.00 5.00 1\r\n",
        f"{E}, line 5: the end time (300 s) is earlier than the start time (360 s); expected end >= start\n"
        "  line 5: q1 Q0 v1 6.00 5.00 1\n"),
    # rank 0 on line 5 of a run with blank lines in front
    Bad("line-5-rank", "run",
        b"\r\nq1 Q0 v1 1.00 2.00 1 0.5 r\r\n\n \nq1 Q0 v1 5.00 6.00 0 0.5 r\n",
        f"{E}, line 5: the rank is 0; expected an integer rank >= 1\n  line 5: q1 Q0 v1 5.00 6.00 0 0.5 r\n"),
    # field count error on line 5 of a gzipped search run
    Bad("line-5-gzip-search", "run",
        gzip.compress(b"q1 Q0 v1 1.00 2.00 1.00 1 0.5\n\n\r\nq1 Q0 v1 1.00 2.00 1.00 2 0.5 r\nq1 Q0 v1\n"),
        fields(3, "8 or 9", "MediaEval search run", SEARCH_EX, "q1 Q0 v1", number=5),
        kind="search", name="run.gz"),
]


def _param(case: Bad) -> object:
    marks = [pytest.mark.xfail(reason=case.bug, strict=True)] if case.bug else []
    return pytest.param(case, id=case.id, marks=marks)


def _write(tmp_path: Path, case: Bad) -> tuple[str, str, str]:
    """Write the good and the bad file; return (qrels path, run path, bad path)."""
    good = {"qrels": QRELS_OK, "run": SEARCH_OK if case.kind == "search" else LINKING_OK}
    paths = {}
    for which in ("qrels", "run"):
        name = case.name if which == case.bad and case.name else f"{which}.txt"
        path = tmp_path / name
        if which != case.bad:
            path.write_bytes(good[which])
        elif case.directory:
            path.mkdir()
        elif case.content is not None:
            path.write_bytes(case.content)
        paths[which] = str(path)
    return paths["qrels"], paths["run"], paths[case.bad]


@pytest.mark.parametrize("case", [_param(c) for c in BAD])
def test_bad_input_exits_2_with_exact_message(tmp_path: Path, case: Bad) -> None:
    qrels, run, bad = _write(tmp_path, case)
    code, out, err = run_cli("me13sh", "--kind", case.kind, qrels, run)
    assert "Traceback" not in err
    assert out == ""
    assert err == case.message.replace("{path}", bad)
    assert code == case.code


# Inputs that once ended in an internal error (exit 1); these check the shape of the message:
# exit 2, "segeval: error: <file>, line <n>: ...", the line quoted.
INTERNAL = [
    # old Mac line ends (CR only): the fast path sees 2 rows, the line counter 1 line
    pytest.param("qrels", b"q1 Q0 v1 1.00 2.00 1\rq1 Q0 v1 3.00 4.00 1\r", 1, id="cr-line-ends"),
    # a lone CR inside a line, on line 2
    pytest.param("run", LINKING_OK + b"q1 Q0 v1 1.00 2.00 2 0.5 r\rq1 Q0 v2 1.00 2.00 3 0.5 r\n", 2,
                 id="lone-cr"),
    # a rank beyond int64
    pytest.param("run", b"q1 Q0 v1 1.00 2.00 99999999999999999999 0.5 r\n", 1, id="rank-beyond-int64"),
    # minutes beyond int64 in an M.S time
    pytest.param("run", b"q1 Q0 v1 99999999999999999999.00 99999999999999999999.01 1 0.5 r\n", 1,
                 id="minutes-beyond-int64"),
]


@pytest.mark.parametrize(("bad", "content", "line"), INTERNAL)
def test_odd_input_is_an_input_error_not_an_internal_error(
    tmp_path: Path, bad: str, content: bytes, line: int
) -> None:
    files = {"qrels": QRELS_OK, "run": LINKING_OK}
    files[bad] = content
    for which, data in files.items():
        (tmp_path / which).write_bytes(data)
    code, out, err = run_cli("me13sh", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert "Traceback" not in err
    assert "internal error" not in err
    assert out == ""
    assert err.startswith(f"segeval: error: {tmp_path / bad}, line {line}: ")
    assert f"\n  line {line}: " in err
    assert code == 2


# ------------------------------------------------------------------ harmless variations

QRELS = (b"q1 Q0 v1 1.00 2.00 1\n"
         b"q1 Q0 v1 2.00 3.00 1\n"
         b"q1 Q0 v2 0.00 0.30 0\n"
         b"q1 Q0 v2 10.00 11.00 1\n"
         b"q2 Q0 v9 0.00 1.00 1\n"
         b"q2 Q0 v9 2.00 3.00 0\n")
LINKING = (b"q1 Q0 v1 3.00 4.00 1 0.9 r\n"
           b"q1 Q0 v2 0.10 0.20 2 0.8 r\n"
           b"q1 Q0 v3 1.00 2.00 3 0.7 r\n"
           b"q1 Q0 v2 9.00 10.00 4 0.6 r\n"
           b"q2 Q0 v9 0.30 0.40 2 0.5 r\n"
           b"q2 Q0 v9 2.30 2.40 1 0.6 r\n")
SEARCH = (b"q1 Q0 v1 3.00 4.00 3.00 1 0.9 r\n"
          b"q1 Q0 v2 0.10 0.20 0.10 2 0.8 r\n"
          b"q1 Q0 v3 1.00 2.00 1.00 3 0.7 r\n"
          b"q1 Q0 v2 9.00 10.00 9.00 4 0.6 r\n"
          b"q2 Q0 v9 0.30 0.40 0.30 2 0.5 r\n"
          b"q2 Q0 v9 2.30 2.40 2.30 1 0.6 r\n")


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=False)


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def tabs(data: bytes) -> bytes:
    return data.replace(b" ", b"\t")


def blank_lines(data: bytes) -> bytes:
    pads = [b"\n", b"   \n", b"\t \t\n", b" \r\n"]
    out = b"\n"
    for i, line in enumerate(_lines(data)):
        out += line + b"\n" + pads[i % len(pads)]
    return out


def padded(data: bytes) -> bytes:
    return b"".join(b"  \t" + line + b" \t \n" for line in _lines(data))


def no_final_newline(data: bytes) -> bytes:
    return data.rstrip(b"\n")


def drop_run_name_on_odd_lines(data: bytes) -> bytes:
    lines = _lines(data)
    return b"".join((line.rsplit(b" ", 1)[0] if i % 2 else line) + b"\n" for i, line in enumerate(lines))


def everything(data: bytes) -> bytes:
    return gzip.compress(no_final_newline(crlf(padded(blank_lines(tabs(data))))))


Variant = Callable[[bytes], bytes]


def same(data: bytes) -> bytes:
    return data


HARMLESS = [
    # CRLF line ends in both files
    pytest.param("linking", crlf, crlf, id="crlf"),
    # tabs instead of spaces
    pytest.param("linking", tabs, tabs, id="tabs"),
    # blank and white-space-only lines before, between and after the data lines
    pytest.param("linking", blank_lines, blank_lines, id="blank-lines"),
    # leading and trailing spaces and tabs on every line
    pytest.param("linking", padded, padded, id="leading-trailing-space"),
    # gzip-compressed qrels and run
    pytest.param("linking", gzip.compress, gzip.compress, id="gzip"),
    # last line without a newline
    pytest.param("linking", no_final_newline, no_final_newline, id="no-final-newline"),
    # all of the above at once
    pytest.param("linking", everything, everything, id="everything"),
    # search run: the optional 9th field (run name) missing on some lines
    pytest.param("search", same, drop_run_name_on_odd_lines, id="search-optional-field"),
    # search run: the 9th field missing on some lines, with CRLF and blank lines
    pytest.param("search", crlf, lambda d: crlf(blank_lines(drop_run_name_on_odd_lines(d))),
                 id="search-optional-field-crlf-blank"),
]


def _report(tmp_path: Path, sub: str, kind: str, qrels: bytes, run: bytes) -> str:
    folder = tmp_path / sub
    folder.mkdir()
    (folder / "qrels").write_bytes(qrels)
    (folder / "run").write_bytes(run)  # same name in every folder: the runid row shows it
    code, out, err = run_cli("me13sh", "--kind", kind, str(folder / "qrels"), str(folder / "run"))
    assert (code, err) == (0, "")
    return out


@pytest.mark.parametrize(("kind", "qrels_variant", "run_variant"), HARMLESS)
def test_harmless_variation_gives_identical_report(
    tmp_path: Path, kind: str, qrels_variant: Variant, run_variant: Variant
) -> None:
    run = SEARCH if kind == "search" else LINKING
    plain = _report(tmp_path, "plain", kind, QRELS, run)
    varied = _report(tmp_path, "varied", kind, qrels_variant(QRELS), run_variant(run))
    assert "num_q               \tall\t2" in plain  # both queries evaluated: a real comparison
    assert varied.encode() == plain.encode()


def test_gz_named_files_give_the_same_report_apart_from_runid(tmp_path: Path) -> None:
    plain = _report(tmp_path, "plain", "linking", QRELS, LINKING)
    (tmp_path / "qrels.gz").write_bytes(gzip.compress(QRELS))
    (tmp_path / "run.gz").write_bytes(gzip.compress(LINKING))
    code, out, err = run_cli("me13sh", str(tmp_path / "qrels.gz"), str(tmp_path / "run.gz"))
    assert (code, err) == (0, "")
    first, *rest = out.splitlines()
    assert first.split("\t")[2].strip() == "run.gz"
    assert rest == plain.splitlines()[1:]


def test_non_utf8_refusal_is_documented_as_deliberate() -> None:
    """The message points at docs/trec_eval-semantics.md, whose table of deliberate differences has the row."""
    doc = (ROOT / "docs" / "trec_eval-semantics.md").read_text(encoding="utf-8")
    assert ("| non-UTF-8 bytes in a docno or runid (any line of any input) | refused with the file, line and byte, the "
            "message saying the difference is deliberate and pointing here |") in doc
