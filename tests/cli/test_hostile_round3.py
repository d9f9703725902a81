"""Hostile inputs, round 3 (issue 27): one test per finding kind, each a generator where a kind has
instances (the matrices over every command are in test_hostile_matrix.py)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from segeval.readers import files
from segeval.reports.escaping import csv_text, latex, markdown, terminal
from segeval.reports.output import GuardedStdout
from tests.conftest import FIXTURES, ROOT, run_cli

QRELS, RUN = FIXTURES / "gen_linking.qrels", FIXTURES / "gen_linking.run"
FULL = os.environ.get("SEGEVAL_FULL") == "1"
EXAMPLES = ROOT / "examples"


def python(code: str, *args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, **kwargs)  # type: ignore[call-overload]


# item 1: output = log ------------------------------------------------------------------------------------------

def test_fix_refuses_the_same_file_as_output_and_log(tmp_path: Path) -> None:
    out = tmp_path / "x"
    videos = EXAMPLES / "collection" / "videos.txt"
    for second in (str(out), str(tmp_path / "." / "x")):
        code, _, err = run_cli("fix", str(RUN), "--videos", str(videos), "-o", str(out), "--log", second)
        assert code == 2 and "also the output" in err, err
        assert not out.exists()  # refused before any work
    link = tmp_path / "link"
    link.symlink_to(out)
    code, _, err = run_cli("fix", str(RUN), "--videos", str(videos), "-o", str(link), "--log", str(out))
    assert code == 2 and "also the output" in err, err


# item 2: a byte-order mark in the middle ----------------------------------------------------------------------

@pytest.mark.parametrize("block", [1, 2, 3, 7, 4096])
def test_bom_in_the_middle_is_refused_at_any_block_boundary(tmp_path: Path, block: int) -> None:
    """cat of two files with byte-order marks: refused, naming the second file's first line, however the
    blocks cut the mark (the map would silently change: 0.6667 -> 0.8333 in the issue)."""
    first = RUN.read_bytes()
    joined = b"\xef\xbb\xbf" + first + b"\xef\xbb\xbf" + first
    path = tmp_path / "joined.run"
    path.write_bytes(joined)
    with pytest.raises(files.InputError) as caught:
        b"".join(files.read_blocks(path, max_bytes=None, block=block))
    assert caught.value.line == first.count(b"\n") + 1 and "byte-order mark" in str(caught.value)
    code, out, err = run_cli("eval", str(QRELS), str(path))
    assert code == 2 and out == "" and "byte-order mark" in err and "\\ufeff" in err


# item 5: directories -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", ["broken symlink", "FIFO", "link to /dev/zero", "hidden", "subdirectory"])
def test_runs_directory_names_what_it_does_not_read(tmp_path: Path, entry: str) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_bytes(RUN.read_bytes())
    odd = runs / ("b.run" if entry not in ("hidden", "subdirectory") else ".b" if entry == "hidden" else "sub")
    if entry == "broken symlink":
        odd.symlink_to(tmp_path / "absent")
    elif entry == "FIFO":
        os.mkfifo(odd)
    elif entry == "link to /dev/zero":
        odd.symlink_to("/dev/zero")
    elif entry == "hidden":
        odd.write_bytes(RUN.read_bytes())
    else:
        odd.mkdir()
    code, out, err = run_cli("eval", str(QRELS), str(runs))
    if entry in ("hidden", "subdirectory"):
        assert code == 0 and f"{odd.name} (" in err and "not read" in err, err
    else:
        assert code == 2 and out == "" and str(odd) in err, err


# items 6, 7: JSON Lines and duplicate keys ---------------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_json_lines_split_on_line_feeds_only(tmp_path: Path, separator: str) -> None:
    gt, preds = tmp_path / "gt.jsonl", tmp_path / "preds.jsonl"
    gt.write_text(json.dumps({"qid": 1, "query": f"a{separator}b", "vid": "v", "relevant_windows": [[0, 10]]},
                             ensure_ascii=False) + "\n", encoding="utf-8")
    preds.write_text('{"qid": 1, "pred_relevant_windows": [[0, 8, 0.9]]}\n')
    code, _out, err = run_cli("mr", str(gt), str(preds))
    assert code == 0, err
    if separator != "\u2028":  # the groups file once (suite time)
        return
    groups = tmp_path / "groups"
    groups.write_text(f"{RUN.name}{separator}x g1\n", encoding="utf-8")  # a run name holding the character
    code, _, err = run_cli("pool-bias", str(QRELS), str(RUN), "-d", "5", "--groups", str(groups))
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize(("line", "key"), [('{"qid": 1, "qid": 2, "pred_relevant_windows": []}', "qid"),
                                           ('{"qid": 1, "pred_relevant_windows": [[0, 8, 0.9]], '
                                            '"pred_relevant_windows": [[0, 2, 0.1]]}', "pred_relevant_windows"),
                                           ('{"qid": 1, "x": {"a": 1, "a": 2}, "pred_relevant_windows": []}', "a")])
def test_duplicate_json_keys_are_refused_naming_key_and_line(tmp_path: Path, line: str, key: str) -> None:
    gt, preds = tmp_path / "gt.jsonl", tmp_path / "preds.jsonl"
    gt.write_text('{"qid": 1, "vid": "v", "relevant_windows": [[0, 10]]}\n')
    preds.write_text("\n" + line + "\n")
    code, _, err = run_cli("mr", str(gt), str(preds))
    assert code == 2 and f"{preds}, line 2" in err and f'"{key}" twice' in err, err


def test_duplicate_keys_in_a_json_document_name_their_line(tmp_path: Path) -> None:
    truth = tmp_path / "gt.json"
    truth.write_text('[{"times": [[0, 0]],\n  "annotation_id": 1},\n {"times": [[1, 1]],\n "times": [[2, 2]]}]\n')
    code, _, err = run_cli("mr", "-p", "didemo", str(truth), str(truth))
    assert code == 2 and f"{truth}, line 4" in err and '"times" twice' in err, err


# item 8: DiDeMo units ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("moment", [[6, 7], [0, 6], [5, 9]])
def test_didemo_truth_outside_units_0_to_5_is_refused(tmp_path: Path, moment: list[int]) -> None:
    truth, preds = tmp_path / "gt.json", tmp_path / "p.json"
    truth.write_text(json.dumps([{"times": [[0, 0], moment], "annotation_id": 1}]))
    preds.write_text(json.dumps([[[0, 0], [1, 1]]]))
    code, _, err = run_cli("mr", "-p", "didemo", str(truth), str(preds))
    assert code == 2 and str(moment) in err and "0 to 5" in err, err


# item 9: QVHighlights qids -------------------------------------------------------------------------------------

def _qvh(tmp_path: Path, pred_qid: object) -> tuple[int, dict[str, object], str]:
    gt, preds = tmp_path / "gt.jsonl", tmp_path / "preds.jsonl"
    gt.write_text("".join(json.dumps({"qid": q, "vid": "v", "relevant_windows": [[0, 10 + q]]}) + "\n"
                          for q in (1, 5)))
    preds.write_text(json.dumps({"qid": 1, "pred_relevant_windows": [[0, 11, 0.9]]}) + "\n"
                     + json.dumps({"qid": pred_qid, "pred_relevant_windows": [[0, 15, 0.9], [2, 4, 0.1]]}) + "\n")
    code, out, err = run_cli("mr", str(gt), str(preds), "-o", "json")
    return code, json.loads(out) if code == 0 else {}, err


@pytest.mark.parametrize(("qid", "equal"), [(5, True), (5.0, True), ("5", False), ("5.0", False)])
def test_qvhighlights_qids_match_by_python_equality(tmp_path: Path, qid: object, equal: bool) -> None:
    """The official evaluator pairs qids by Python equality (5 == 5.0; "5" != 5): the same figures as the
    qid written as the ground truth does, or a note that it is unknown (never a silent match)."""
    code, same, _ = _qvh(tmp_path, 5)
    code, figures, err = _qvh(tmp_path, qid)
    assert code == 0, err
    notes = " ".join(map(str, figures.get("notes", [])))
    if equal:
        assert {k: v for k, v in figures.items() if k != "notes"} == {k: v for k, v in same.items() if k != "notes"}
        assert ("Python equality" in notes) == (json.dumps(qid) != "5"), notes
    else:
        assert "not in the ground truth" in notes and '"5' in notes, notes


def test_qvhighlights_true_is_qid_1(tmp_path: Path) -> None:
    gt, preds = tmp_path / "gt.jsonl", tmp_path / "preds.jsonl"
    gt.write_text('{"qid": 1, "vid": "v", "relevant_windows": [[0, 10]]}\n')
    preds.write_text('{"qid": true, "pred_relevant_windows": [[0, 10, 0.9]]}\n')
    code, out, _err = run_cli("mr", str(gt), str(preds), "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["brief"]["MR-full-R1@0.5"] == 100.0 and "Python equality" in " ".join(doc["notes"]), out


# item 10: me13sh byte parity -----------------------------------------------------------------------------------

def test_me13sh_pads_by_utf8_bytes_like_the_reference(tmp_path: Path) -> None:
    """``gen_linking.utf8.expected`` is the reference script's output (Python 2.7 sh_eval.py) on the fixture with
    two query ids and the run file name made non-ASCII; segeval's output is byte-identical (314 lines)."""
    def non_ascii(data: bytes) -> bytes:
        return data.replace(b"anchor_1 ", "ánchor_é1 ".encode()).replace(b"anchor_2 ", "anchör_2_日本 ".encode())

    qrels, run = tmp_path / "nq.qrels", tmp_path / "rün_日本.run"
    qrels.write_bytes(non_ascii(QRELS.read_bytes()))
    run.write_bytes(non_ascii(RUN.read_bytes()))
    code, out, _ = run_cli("me13sh", str(qrels), str(run))
    assert code == 0 and out.encode() == (FIXTURES / "gen_linking.utf8.expected").read_bytes()


def test_me13sh_notes_a_bom_read_away(tmp_path: Path) -> None:
    qrels = tmp_path / "bom.qrels"
    qrels.write_bytes(b"\xef\xbb\xbf" + QRELS.read_bytes())
    code, out, err = run_cli("me13sh", str(qrels), str(RUN))
    assert code == 0 and "byte-order mark" in err and out == run_cli("me13sh", str(QRELS), str(RUN))[1]


# items 11-13: escapers -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cells_that_would_be_formulas_are_quoted_and_prefixed(monkeypatch: pytest.MonkeyPatch, start: str
                                                                   ) -> None:
    import csv

    cell = start + "HYPERLINK(\"http://x\")"
    text = csv_text([["query", "value"], [cell, -0.5], ["-5", 1]])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1] == ["'" + cell, "-0.5"] and rows[2] == ["-5", "1"] and f"\"'{start}" in text
    monkeypatch.setenv("SEGEVAL_CSV", "raw")
    assert list(csv.reader(io.StringIO(csv_text([[cell]])))) == [[cell]]
    monkeypatch.setenv("SEGEVAL_CSV", "nope")
    code, _, err = run_cli("eval", "-o", "csv", str(QRELS), str(RUN))
    assert code == 2 and "SEGEVAL_CSV" in err


def test_latex_and_markdown_escape_every_special_character() -> None:
    import re

    name = "x_&%$#{}\\input{etc}~^"
    escaped = latex(name)
    undo = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^"}
    tokens = re.findall(r"\\text(?:backslash|asciitilde|asciicircum)\{\}|\\[_&%$#{}]|[^\\]", escaped)
    assert "".join(tokens) == escaped  # every backslash opens an escape
    assert not [t for t in tokens if len(t) == 1 and t in "\\{}$&#^_~%"]  # no special character bare
    assert "".join(undo.get(t, t[-1]) for t in tokens) == name
    assert markdown("a|b\\c").count("\\|") == 1 and markdown("a|b").split("\\|") == ["a", "b"]


def test_terminal_escaping_only_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def __init__(self, tty: bool) -> None:
            super().__init__()
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    hostile = "q\x1b]0;pwned\x07\u202e1\tmap\t0.5\n"
    for tty in (True, False):
        stream = Tty(tty)
        GuardedStdout(stream).write(hostile)
        assert stream.getvalue() == (terminal(hostile) if tty else hostile)
    assert terminal(hostile) == "q\\x1b]0;pwned\\x07\\u202e1\tmap\t0.5\n"


# item 15, 17, 20, 23: figures -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a$x$", "$\\frac{1}{0}$", "x^_{b}$"][:None if FULL else 2])
def test_dollar_in_names_never_reaches_mathtext(tmp_path: Path, name: str) -> None:
    pytest.importorskip("matplotlib")
    a, b = tmp_path / f"{name}.run", tmp_path / "b$.run"
    a.write_bytes(RUN.read_bytes().replace(b"anchor_1 ", name.encode() + b" "))
    b.write_bytes(RUN.read_bytes())
    qrels = tmp_path / "q"
    qrels.write_bytes(QRELS.read_bytes().replace(b"anchor_1 ", name.encode() + b" "))
    for args in (["plot", "pr", str(qrels), str(a), str(b), "-o", str(tmp_path / "pr.svg")],
                 ["plot", "diff", str(qrels), str(a), str(b), "-o", str(tmp_path / "d.png")]):
        code, _, err = run_cli(*args)
        assert code == 0, err


def test_long_ids_are_cut_for_display_only(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from segeval.figures import LABEL_WIDTH, label

    big = "Q" + "x" * 200_000
    assert len(label(big)) == LABEL_WIDTH and label("\x1bq") == "\\x1bq"
    qrels, a, b = tmp_path / "q", tmp_path / "a.run", tmp_path / "b.run"
    qrels.write_text(f"{big} Q0 v1 10.00 20.00 1\nq2 Q0 v1 10.00 20.00 1\n")
    a.write_text(f"{big} Q0 v1 10.00 20.00 1 0.5 r\nq2 Q0 v1 11.00 20.00 1 0.5 r\n")
    b.write_text(f"{big} Q0 v1 12.00 20.00 1 0.5 r\nq2 Q0 v1 10.00 20.00 1 0.5 r\n")
    code, _, err = run_cli("plot", "diff", str(qrels), str(a), str(b), "-o", str(tmp_path / "d.svg"))
    assert code == 0 and (tmp_path / "d.svg").stat().st_size < 100_000, err
    code, out, _ = run_cli("eval", "-q", "-o", "csv", str(qrels), str(a))
    assert code == 0 and big in out  # data keeps the full id


def test_unknown_mplbackend_and_warnings(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "p.png"
    glyphs = tmp_path / "g.run"
    glyphs.write_bytes(RUN.read_bytes().replace(b"anchor_1 ", "\U0001f600\u4e00 ".encode()))
    qrels = tmp_path / "g.qrels"
    qrels.write_bytes(QRELS.read_bytes().replace(b"anchor_1 ", "\U0001f600\u4e00 ".encode()))
    p = python("from segeval.cli import entry; import sys; sys.argv[0] = 'segeval'; entry()", "plot", "diff",
               str(qrels), str(glyphs), str(RUN), "-o", str(out), env={**os.environ, "MPLBACKEND": "nosuch"})
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0 and out.exists(), err
    assert b".py:" not in err and b"Warning" not in err, err


def test_output_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = tmp_path / "link.svg"
    link.symlink_to(tmp_path / "nowhere" / "x.svg")
    code, _, err = run_cli("plot", "pr", str(QRELS), str(RUN), "-o", str(link))
    assert code == 2 and "symbolic link" in err and str(tmp_path / "nowhere") in err, err
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "9" * 26)
    assert files.limits()[0] == sys.maxsize
    collection = EXAMPLES / "collection"
    p = subprocess.run(f"{sys.executable} -m segeval fix {collection / 'run.txt'} --videos {collection / 'videos.txt'} "
                       f"-o /dev/stdout --log /dev/null | cat", shell=True, capture_output=True, cwd=ROOT,
                       timeout=300, check=False)
    usual = run_cli("fix", str(collection / "run.txt"), "--videos", str(collection / "videos.txt"), "--log",
                    "/dev/null")
    assert p.returncode == 0 and p.stdout == usual[1].encode() and usual[1], p.stderr


# item 18: a FIFO with no reader --------------------------------------------------------------------------------

def test_output_to_a_fifo_without_reader_is_refused_not_a_hang(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    fifo = tmp_path / "x.svg"
    os.mkfifo(fifo)
    p = python("from segeval.cli import entry; import sys; sys.argv[0] = 'segeval'; entry()", "plot", "pr",
               str(QRELS), str(RUN), "-o", str(fifo))
    _, err = p.communicate(timeout=300)  # before the fix: blocked for ever
    assert p.returncode == 2 and b"no reader" in err, err


# item 19: limits -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "args"), [
    ("repeats", ["incompleteness", str(QRELS), str(RUN), "-r", "99999999999999999999"]),
    ("permutations", ["compare", str(QRELS), str(RUN), "OTHER", "--permutations", "99999999999999999999"]),
    ("top-k", ["mr", "-p", "tvr", str(QRELS), str(RUN), "--top-k", "1,99999999999999999999"]),
])
def test_every_count_has_its_limit(tmp_path: Path, name: str, args: list[str]) -> None:
    from segeval.core.limits import COUNTS

    assert name in COUNTS
    other = tmp_path / "other.run"
    other.write_bytes(RUN.read_bytes())
    code, _out, err = run_cli(*[str(other) if a == "OTHER" else a for a in args])
    assert code == 2 and f"'{name}' parameter" in err and COUNTS[name][2] in err, err


# item 21: pipes that can no longer be valid --------------------------------------------------------------------

def test_endless_blank_input_stops_early(monkeypatch: pytest.MonkeyPatch) -> None:
    class Endless:
        taken = 0

        def __init__(self) -> None:
            self.buffer = self

        def read(self, size: int = -1) -> bytes:
            self.taken += max(size, 0)
            return b"\n \t" * (max(size, 3) // 3)

    stdin = Endless()
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(files, "BLANK_LIMIT", 1024 * 1024)
    code, _, err = run_cli("eval", str(QRELS), "-")
    assert code == 2 and "only white space" in err and stdin.taken < 16 * 1024 * 1024, err


# item 22: signals and workers ----------------------------------------------------------------------------------

def test_sighup_removes_partial_outputs(tmp_path: Path) -> None:
    part = tmp_path / ".x.html.1234.part"
    p = python("""
        import sys, time
        from segeval.executors.interrupt import install, partial_output
        install()
        open(sys.argv[1], "w").close()
        with partial_output(sys.argv[1]):
            print("ready", flush=True)
            time.sleep(120)
    """, str(part), preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))  # as from a terminal, not nohup
    assert p.stdout is not None and p.stdout.readline() == b"ready\n"
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 129 and not part.exists() and b"SIGHUP" in err, err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_workers_die_with_their_parent() -> None:
    p = python("""
        import os, time
        from concurrent.futures import ProcessPoolExecutor
        from segeval.executors.interrupt import install
        install()
        pool = ProcessPoolExecutor(2)
        pids = [pool.submit(os.getpid).result() for _ in range(4)]
        for _ in range(2):
            pool.submit(time.sleep, 120)
        print(" ".join(map(str, sorted(set(pids)))), flush=True)
        time.sleep(120)
    """)
    assert p.stdout is not None
    workers = [int(x) for x in p.stdout.readline().split()]
    assert workers
    p.kill()  # SIGKILL: no handler of the parent runs
    p.communicate(timeout=300)  # and its pipes closed
    import time

    deadline = time.monotonic() + 300  # a hang guard for a loaded machine, not a clock
    for pid in workers:
        while time.monotonic() < deadline:  # the kernel sends SIGKILL at once; the reaper (init) collects them
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            if Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z":
                break
            time.sleep(0.01)
        else:
            pytest.fail(f"worker {pid} outlived its parent")


def test_sighup_stays_ignored_under_nohup() -> None:
    p = python("""
        import time
        from segeval.executors.interrupt import install
        install()
        print("ready", flush=True)
        input()  # until the test has sent SIGHUP
        print("alive", flush=True)
    """, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN), stdin=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.readline() == b"ready\n"
    p.send_signal(signal.SIGHUP)
    out, _ = p.communicate(b"go\n", timeout=300)
    assert p.returncode == 0 and out == b"alive\n"
