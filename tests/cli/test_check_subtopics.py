"""``segeval check`` on subtopic (diversity) qrels, ``qid subtopic docno rel``: read as plain qrels (as every
measure but the diversity ones reads them) a document judged once per subtopic is judged again, as ``eval -m
map`` refuses it; one note says so and names --subtopics, which checks them as the diversity measures read
them (one judgement per query, subtopic and document)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

# query 1: d1 under subtopics 1 and 2 (line 2 repeats (1, d1) under another second field), d2 under 2;
# line 5 repeats line 1 exactly (the same subtopic: a duplicate under any reading); query 2 a plain line
QRELS = "1 1 d1 1\n1 2 d1 0\n1 2 d2 1\n2 0 d3 1\n1 1 d1 1\n"
RUN = "1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n2 Q0 d3 1 1 r\n"


def files(tmp_path: Path, qrels: str = QRELS) -> tuple[str, str]:
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(RUN)
    return str(tmp_path / "q"), str(tmp_path / "r")


def judged_again(q: str, line: int, subtopic: str | None, grades: str) -> str:
    what = f"subtopic '{subtopic}', document 'd1'" if subtopic else "document 'd1'"
    once = "query, subtopic and document" if subtopic else "query and document (trec_eval refuses duplicates too)"
    text = QRELS.splitlines()[line - 1]
    return (f"segeval: {q}, line {line}: query '1', {what} is judged again, with {grades}; first judged on {q}, "
            f"line 1; expected one judgement per {once}\n  line {line}: {text}\n")


def note(q: str, n: int) -> str:
    verb = "repeats" if n == 1 else "repeat"
    return (f"segeval: note: {q}: {n} duplicate judgement{'s' * (n != 1)} {verb} a query and document with another "
            f"second field: subtopic (diversity) qrels, 'qid subtopic docno rel'? Only the diversity measures read "
            f"them (every other measure refuses the duplicates, as above); check --subtopics checks them as those "
            f"do\n")


def test_plain_reading_lists_both_duplicates_and_one_note(tmp_path: Path) -> None:
    q, r = files(tmp_path)
    # lines 2 and 5 repeat (1, d1) of line 1; only line 2 under another second field: the note counts 1
    assert run_cli("check", q, r) == (
        2, f"{q}\tduplicate judgement\t2\n2 problems\n",
        judged_again(q, 2, None, "grade 0 (first 1)") + judged_again(q, 5, None, "the same grade 1") + note(q, 1))
    assert run_cli("eval", "-m", "map", q, r)[0] == 2  # what check predicts: the plain reading refuses them


def test_subtopics_flag_reads_the_second_field_as_the_subtopic(tmp_path: Path) -> None:
    q, r = files(tmp_path)
    assert run_cli("check", "--subtopics", q, r) == (
        2, f"{q}\tduplicate judgement\t1\n1 problem\n", judged_again(q, 5, "1", "the same grade 1"))
    clean = "".join(QRELS.splitlines(keepends=True)[:4])
    q, r = files(tmp_path, clean)
    assert run_cli("check", "--subtopics", q, r) == (0, "no problems\n", "")
    assert run_cli("eval", "-m", "alpha_ndcg", q, r)[0] == 0  # and the diversity measures take them
    code, out, err = run_cli("check", "-o", "json", q, r)  # the plain reading: one duplicate, the note
    assert (code, json.loads(out), err.endswith(note(q, 1))) == (
        2, [{"file": q, "kind": "duplicate judgement", "count": 1}], True)


@pytest.mark.parametrize("qrels", ["1 0 d1 1\n1 0 d1 0\n", "1 Q0 v1 1.00 2.00 1\n1 Q0 v1 1.00 2.00 0\n"],
                         ids=["same-second-field", "segments"])
def test_no_note_when_the_second_field_does_not_differ(tmp_path: Path, qrels: str) -> None:
    """A duplicate with the same second field (TREC's iteration 0), or segment qrels (no subtopic): no note,
    with or without --subtopics (which leaves segment qrels as they are)."""
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text("1 Q0 v1 1.00 2.00 1 0.5 r\n" if "v1" in qrels else RUN)
    for flag in ((), ("--subtopics",)):
        code, out, err = run_cli("check", *flag, str(tmp_path / "q"), str(tmp_path / "r"))
        assert (code, out.splitlines()[-1]) == (2, "1 problem")
        notes = [line for line in err.splitlines() if line.startswith("segeval: note:")]
        if flag and "v1" in qrels:  # the flag cannot apply: said so
            assert notes == [f"segeval: note: --subtopics: {tmp_path / 'q'} is MediaEval qrels, which carry no "
                             f"subtopic field (TREC qrels do: 'qid subtopic docno rel'); checked as they are"]
        else:
            assert notes == []
        assert "judged again" in err


def test_subtopic_note_on_standard_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The note reads the qrels again: a stream is read once, and its copy serves the second reading."""
    _, r = files(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(QRELS.encode())))
    code, out, err = run_cli("check", "-", r)
    assert (code, out) == (2, "-\tduplicate judgement\t2\n2 problems\n")
    assert err.endswith(note("-", 1))
