"""``segeval check`` and ``eval --lenient`` on files with many bad lines: the problems, collected in
one pass, are listed with the same messages and in the same order as when each was reported on its
own (the messages are built here from the documented wording, not taken from segeval)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from segeval.readers.blocks import line_texts
from segeval.readers.tables import read_run
from segeval.readers.validate import validate_run
from tests.conftest import run_cli

N = 1_000


def _seconds(m: int, s: int) -> int:
    return 60 * m + s


def _files(tmp_path: Path) -> tuple[Path, Path, list[tuple[str, int, str, str]], list[tuple[str, int, str, str]]]:
    """MediaEval qrels and a linking run with bad lines of several kinds, and the problems each should
    give, in order: (kind, line, problem, text) for the qrels, then for the run."""
    q, r = tmp_path / "bad.qrels", tmp_path / "bad.run"
    qrels_lines = [f"a{i % 7} Q0 v{i} 1.00 2.00 1" for i in range(N)]
    qrels_problems = []
    for i in range(3, N, 10):  # judged again: same video and times as line 1 (query a0 when i % 7 == 0)
        grade = i % 2
        qrels_lines[i - 1] = f"a0 Q0 v0 1.00 2.00 {grade}"
        grades = "the same grade 1" if grade == 1 else "grade 0 (first 1)"
        qrels_problems.append(("duplicate judgement", i, f"query 'a0', video 'v0', segment 60-120 s is judged again, "
                               f"with {grades}; first judged on {q}, line 1; expected one judgement per query and "
                               f"segment (trec_eval refuses duplicates too)", qrels_lines[i - 1]))
    run_lines, parse, values = [], [], []
    for i in range(1, 4 * N + 1):
        m, s = i % 50, i % 60
        start, end, rank = f"{m}.{s:02d}", f"{m + 1}.{s:02d}", str(i)
        kind = i % 5
        if kind in (1, 3):  # end before start
            start, end = end, start
        if kind in (2, 3):
            rank = "0"
        if kind == 4:
            rank = f"x{i}"
        text = f"a{i % 7}\tQ0 v{i} {start} {end} {rank} 0.5 run" if i % 11 == 0 else \
            f"a{i % 7} Q0 v{i} {start} {end} {rank} 0.5 run"
        run_lines.append(text)
        if kind == 4:
            parse.append(("bad rank", i, f"field 6 (rank) is 'x{i}'; expected an integer (at most 18 digits)", text))
            continue
        if kind in (1, 3):  # sorted by problem: 'the end time ...' before 'the rank is ...'
            values.append(("end before start", i, f"the end time ({_seconds(m, s)} s) is earlier than the start "
                           f"time ({_seconds(m + 1, s)} s); expected end >= start", text))
        if kind in (2, 3):
            values.append(("rank below 1", i, "the rank is 0; expected an integer rank >= 1", text))
    q.write_text("\n".join(qrels_lines) + "\n")
    r.write_bytes("".join(line + ("\r\n" if i % 13 == 0 else "\n")  # some CRLF line ends
                          for i, line in enumerate(run_lines, start=1)).encode())
    return q, r, qrels_problems, parse + values


def test_check_lists_every_problem_as_reported_alone(tmp_path: Path) -> None:
    q, r, qrels_problems, run_problems = _files(tmp_path)
    code, out, err = run_cli("check", str(q), str(r))
    expected = [(q, *p) for p in qrels_problems] + [(r, *p) for p in run_problems]
    assert code == 2
    tab = "\\t"  # a tab is shown escaped
    assert err == "".join(f"segeval: {path}, line {n}: {problem}\n  line {n}: {text.replace(chr(9), tab)}\n"
                          for path, _, n, problem, text in expected)
    counts = Counter((str(path), kind) for path, kind, *_ in expected)
    assert out == "".join(f"{path}\t{kind}\t{n}\n" for (path, kind), n in sorted(counts.items())) + \
        f"{len(expected)} problems\n"
    assert len(expected) == 100 + 4 * N  # 100 duplicates; run: 1/5 fine, 1/5 with two problems


def test_lenient_skips_the_same_lines_with_the_same_messages(tmp_path: Path) -> None:
    q, r, qrels_problems, run_problems = _files(tmp_path)
    code, _, err = run_cli("eval", str(q), str(r), "--lenient", "--memory", "in-memory", "-m", "map")
    expected = [(q, *p) for p in qrels_problems] + [(r, *p) for p in run_problems]
    assert code == 3
    assert err == "".join(f"segeval: skipped {path}, line {n}: {problem}\n" for path, _, n, problem, _ in expected) + \
        f"segeval: {len(expected)} malformed lines skipped (--lenient)\n"


def test_the_one_pass_texts_equal_the_per_line_ones(tmp_path: Path) -> None:
    """The problems of the value checks get their line texts from one read; each alone reads it again."""
    _, r, _, run_problems = _files(tmp_path)
    collected: list[object] = []
    validate_run(read_run(r, on_error=lambda e: None), collected.append)
    numbers = [n for kind, n, _, _ in run_problems if kind != "bad rank"]
    assert [(e.line, e.text) for e in collected] == [(n, line_texts(r, [n])[n]) for n in numbers]  # type: ignore[attr-defined]
    assert line_texts(r, [5, 1, 5, 10**6]) == {1: line_texts(r, [1])[1], 5: line_texts(r, [5])[5], 10**6: ""}
