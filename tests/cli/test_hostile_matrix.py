"""Hostile inputs against every reading command: a clear exit-2 error naming the file, never a traceback,
an internal error, a silent acceptance or a partial output.

Each hostile file is given once as the run and once as the qrels of every command that reads them
(eval, me13sh, check, compare, report, plot pr, show, pool, pool-bias, incompleteness,
complete-qrels), as the run of ``fix``, ``anchoring`` and ``sample-eval``, and as either input of ``mr``.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import re
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli, sliced

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

QRELS = FIXTURES / "gen_linking.qrels"
RUN = FIXTURES / "gen_linking.run"
GOOD = RUN.read_bytes()
FIRST = GOOD.splitlines(keepends=True)[0]

#: name -> (bytes of the file, a fragment the error must contain)
HOSTILE: dict[str, tuple[bytes, str]] = {
    "empty": (b"", "no data lines"),
    "blank lines only": (b"\n\r\n \t\n", "no data lines"),
    "NUL byte": (FIRST + b"q1 Q0 v1\x00 1.00 2.00 1 0.5 r\n", "NUL"),
    "binary noise": (bytes(range(256)) * 4, ""),
    "bzip2": (bz2.compress(GOOD), "bzip2"),
    "xz": (lzma.compress(GOOD), "xz"),
    "truncated gzip": (gzip.compress(GOOD)[:-12], "gzip"),
    "gzip then text": (gzip.compress(GOOD) + b"q1 Q0 v1 1.00 2.00 1 0.5 r\n", "after its gzip data"),
    "one field short": (FIRST + b"q1 Q0 v1 1.00 2.00 1 0.5\n", "line 2"),
    "escape sequences": (FIRST + b"q1 Q0 v1 \x1b]0;pwned\x07\x1b[2J 2.00 1 0.5 r\n", "line 2"),
    "invalid UTF-8": (FIRST + b"q1 Q0 v\xff\xfe 1.00 x 1 0.5 r\n", "line 2"),
    # round 3: two files joined with cat, the second starting with a byte-order mark (never a new query id)
    "BOM in the middle": (GOOD + b"\xef\xbb\xbf" + FIRST, "byte-order mark"),
}

# a command: (arguments with QRELS/RUN/OTHER/OUT placeholders, which inputs it reads)
COMMANDS: dict[str, list[str]] = {
    "eval": ["eval", "QRELS", "RUN"],
    "me13sh": ["me13sh", "QRELS", "RUN"],
    "check": ["check", "QRELS", "RUN"],
    "compare": ["compare", "QRELS", "RUN", "OTHER"],
    "report": ["report", "QRELS", "RUN", "OTHER", "-m", "map", "-o", "OUT.html"],
    "plot pr": ["plot", "pr", "QRELS", "RUN", "OTHER", "-o", "OUT.svg"],
    "show": ["show", "QRELS", "RUN", "-Q", "QUERY", "--explain"],
    "pool": ["pool", "QRELS", "RUN", "OTHER", "-d", "5"],
    "pool-bias": ["pool-bias", "QRELS", "RUN", "OTHER", "-d", "5", "--groups", "GROUPS"],
    "incompleteness": ["incompleteness", "QRELS", "RUN", "OTHER"],
    "complete-qrels": ["complete-qrels", "QRELS", "RUN", "--texts", "TEXTS", "-o", "OUT.qrels"],
    "fix": ["fix", "RUN", "--videos", "VIDEOS", "-o", "OUT.run", "--log", "OUT.log"],
    "anchoring": ["anchoring", "ANCHORS", "RUN"],
    "sample-eval": ["sample-eval", "STRATA", "RUN"],
}
#: commands whose inputs are not MediaEval qrels/runs: the hostile bytes that do not depend on the format
OWN_FORMAT = {"fix": ("RUN",), "anchoring": ("RUN",), "sample-eval": ("RUN",)}
FORMAT_FREE = {"empty", "blank lines only", "NUL byte", "binary noise", "bzip2", "xz", "truncated gzip",
               "gzip then text", "BOM in the middle"}
#: an empty anchoring run prints the toolkit's three header lines and a note (byte for byte with its script)
ACCEPTED = {("anchoring", "empty"), ("anchoring", "blank lines only")}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def outcome_is_clean(code: int, out: str, err: str, bad: Path, fragment: str, listing: bool = False) -> None:
    """Exit 2; one error line naming the file (``check`` lists every problem, each naming it)."""
    assert code == 2, (code, err)
    assert "Traceback" not in err and "internal error" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("segeval: ")]
    assert len(errors) >= 1 if listing else len(errors) == 1 and errors[0].startswith("segeval: error: "), err
    assert all(str(bad) in e for e in errors), err  # names the file
    assert fragment.lower() in err.lower(), err
    assert not CONTROL.search(err), err  # terminal-safe


def make(tmp_path: Path) -> dict[str, Path]:
    other = tmp_path / "other.run"
    other.write_bytes(b"".join(x for i, x in enumerate(GOOD.splitlines(keepends=True)) if i % 3))
    texts = tmp_path / "transcript.txt"
    texts.write_text("v1 0 600 words about the topic\n")
    groups = tmp_path / "groups"
    examples = FIXTURES.parents[1] / "examples"
    return {"QRELS": QRELS, "RUN": RUN, "OTHER": other, "TEXTS": texts, "GROUPS": groups,
            "VIDEOS": examples / "collection" / "videos.txt", "ANCHORS": examples / "anchoring" / "anchors.qrels",
            "STRATA": examples / "xinf" / "qrels.strata"}


def query() -> str:
    return QRELS.read_text().split()[0]


def args_for(command: str, paths: dict[str, Path], out_dir: Path, qid: str | None = None) -> list[str]:
    def one(x: str) -> str:
        if x.startswith("OUT"):
            return str(out_dir / ("out" + x[3:]))
        if x == "QUERY":
            return qid or query()
        return str(paths.get(x, x))

    return [one(x) for x in COMMANDS[command]]


#: the commands that evaluate several runs or write files run a representative subset (suite time)
SLOW = {"report", "plot pr", "pool-bias", "incompleteness", "complete-qrels", "compare"}
SUBSET = {"empty", "NUL byte", "bzip2", "gzip then text", "one field short", "escape sequences", "BOM in the middle"}
MATRIX = [(c, h, r) for c in sorted(COMMANDS) for h in sorted(HOSTILE) for r in ("RUN", "QRELS")
          if (c not in SLOW or h in SUBSET) and (c, h) not in ACCEPTED
          and (c not in OWN_FORMAT or (r in OWN_FORMAT[c] and h in FORMAT_FREE))]


@pytest.mark.parametrize(("command", "case", "role"), sliced(MATRIX, 4, many=True))
def test_hostile_file(tmp_path: Path, command: str, case: str, role: str) -> None:
    if command == "plot pr":
        pytest.importorskip("matplotlib")
    data, fragment = HOSTILE[case]
    paths = make(tmp_path)
    bad = tmp_path / f"hostile_{role.lower()}"
    bad.write_bytes(data)
    paths[role] = bad
    paths["GROUPS"].write_text(f"{paths['RUN'].name} g1\nother.run g2\n")
    if command in OWN_FORMAT:
        fragment = fragment if "line" not in fragment else ""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = run_cli(*args_for(command, paths, out_dir))
    outcome_is_clean(code, out, err, bad, fragment if role == "RUN" or "line" not in fragment else "",
                     listing=command == "check")
    assert os.listdir(out_dir) == []  # no partial output


@pytest.mark.parametrize("which", ["truth", "predictions"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_moments(tmp_path: Path, case: str, which: str) -> None:
    gt, preds = tmp_path / "gt.jsonl", tmp_path / "preds.jsonl"
    gt.write_text('{"qid": 1, "vid": "a", "relevant_windows": [[0, 10]]}\n')
    preds.write_text('{"qid": 1, "pred_relevant_windows": [[0, 8, 0.9]]}\n')
    data, _ = HOSTILE[case]
    bad = gt if which == "truth" else preds
    bad.write_bytes(data)
    code, out, err = run_cli("mr", str(gt), str(preds))
    outcome_is_clean(code, out, err, bad, "")


def special(d: Path, case: str) -> Path:
    """A path that is not a readable file: a directory of subdirectories, a missing file, a symlink loop,
    a missing file whose name holds a newline."""
    if case == "directory":
        (d / "sub").mkdir()
        return d
    if case == "symlink loop":
        os.symlink(d / "loop", d / "loop")
        return d / "loop"
    return d / ("absent" if case == "missing" else "a\nb")


@pytest.mark.parametrize("case", ["directory", "missing", "symlink loop", "name with a newline"])
@pytest.mark.parametrize("command", ["eval", "me13sh", "check", "compare", "pool"])
def test_special_paths(tmp_path: Path, command: str, case: str) -> None:
    paths = make(tmp_path)
    (tmp_path / "special").mkdir()
    paths["RUN"] = special(tmp_path / "special", case)
    code, _, err = run_cli(*args_for(command, paths, tmp_path))
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err
    prefix = "segeval: " if command == "check" else "segeval: error: "  # check lists problems
    assert len([x for x in err.splitlines() if x.startswith(prefix)]) == 1, err
    assert not CONTROL.search(err), err


# --- round 3: every command with closed or odd standard streams and locales (issue 27, items 16, 17) ----------

FULL = os.environ.get("SEGEVAL_FULL") == "1"
#: a stream condition: (environment changes, which descriptor is closed or left by its reader)
STREAMS: dict[str, tuple[dict[str, str], str]] = {
    "closed stdin": ({}, "stdin"),
    "closed stdout": ({}, "stdout"),
    "closed stderr": ({}, "stderr"),
    "stderr reader gone": ({}, "stderr gone"),
    "LC_ALL=C": ({"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}, ""),
    "PYTHONIOENCODING=ascii": ({"PYTHONIOENCODING": "ascii"}, ""),
    "MPLBACKEND=nosuch": ({"MPLBACKEND": "nosuch"}, ""),
}
#: commands that write only files (nothing on standard output when all goes well)
FILE_ONLY = {"report", "plot pr", "complete-qrels", "fix"}


#: commands whose run is not a MediaEval run: the usual run of their own format
OWN_RUN = {"anchoring": FIXTURES.parents[1] / "examples" / "anchoring" / "detector.run",
           "sample-eval": FIXTURES.parents[1] / "examples" / "xinf" / "run_a"}


NON_ASCII_ID = "ánchor_日本".encode()


def non_ascii(tmp_path: Path, command: str) -> dict[str, Path]:
    """The usual inputs of ``command`` with non-ASCII query ids (and a non-ASCII run file name)."""
    paths = make(tmp_path)
    paths["RUN"] = OWN_RUN.get(command, paths["RUN"])
    for role, name in (("QRELS", "qrels_é.qrels"), ("RUN", "rün_日本.run")):
        target = tmp_path / name
        target.write_bytes(paths[role].read_bytes().replace(b"anchor_1 ", NON_ASCII_ID + b" "))
        paths[role] = target
    paths["GROUPS"].write_text(f"{paths['RUN'].name} g1\nother.run g2\n")
    return paths


def cli_process(args: list[str], env: dict[str, str], close: str) -> tuple[int, bytes, bytes]:
    """``python -m segeval ARGS`` in a child with one standard stream closed (or its reader gone)."""
    import subprocess
    import sys

    environment = {**os.environ, **env}
    reader, writer = os.pipe()
    command = [sys.executable, "-m", "segeval", *args]
    try:
        if close == "stderr gone":
            os.close(reader)  # the reader left before the first message
            p = subprocess.run(command, env=environment, stdout=subprocess.PIPE, stderr=writer,
                               stdin=subprocess.DEVNULL, timeout=300, check=False)
            return p.returncode, p.stdout, b""
        os.close(reader)
        os.close(writer)
        fd = {"stdin": 0, "stdout": 1, "stderr": 2}.get(close)
        p = subprocess.run(command, env=environment, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=300, check=False,
                           preexec_fn=(lambda: os.close(fd)) if fd is not None else None)
        return p.returncode, p.stdout, p.stderr
    finally:
        for x in (reader, writer):
            with contextlib.suppress(OSError):
                os.close(x)


#: each condition with every command under SEGEVAL_FULL=1; else one command per condition (suite time)
STREAM_MATRIX = ([(c, s) for c in sorted(COMMANDS) for s in sorted(STREAMS)] if FULL else
                 [("me13sh", "LC_ALL=C"), ("me13sh", "PYTHONIOENCODING=ascii"), ("plot pr", "MPLBACKEND=nosuch"),
                  ("check", "closed stdin"), ("eval", "closed stdout"),
                  ("fix", "closed stderr"),
                  ("anchoring", "stderr reader gone")])


@pytest.mark.parametrize(("command", "condition"), STREAM_MATRIX)
def test_standard_streams_and_locales(tmp_path: Path, command: str, condition: str) -> None:
    """Each command does what it does with usual streams, or refuses clearly: a closed standard input
    is no problem unless '-' is read; a closed standard output is an error (exit 2) naming it when
    something is printed; a closed or gone standard error keeps the exit code and never moves errors to
    standard output; in any locale the output is the UTF-8 bytes of the usual run."""
    if command in ("report", "plot pr") or condition.startswith("MPL"):
        pytest.importorskip("matplotlib")
    env, close = STREAMS[condition]
    paths = non_ascii(tmp_path, command)
    base_dir, out_dir = tmp_path / "base", tmp_path / "out"
    base_dir.mkdir()
    out_dir.mkdir()
    qid = NON_ASCII_ID.decode()
    code, text, err = run_cli(*args_for(command, paths, base_dir, qid))  # in-process: the same bytes, faster
    usual = (code, text.encode(), err.encode())
    code, out, err = cli_process(args_for(command, paths, out_dir, qid), env, close)
    out = out.replace(str(out_dir).encode(), str(base_dir).encode())
    assert b"Traceback" not in err and b"internal error" not in err, err
    assert b"segeval: error" not in out, out
    if close == "stdout" and command not in FILE_ONLY:
        assert code == 2 and b"standard output" in err, (code, err)
        return
    assert code == usual[0], (code, usual[0], err, usual[2])
    if close not in ("stdout",):
        assert out == usual[1]  # the same bytes, whatever the locale
    assert sorted(os.listdir(out_dir)) == sorted(os.listdir(base_dir))
    for name in os.listdir(out_dir):
        if not name.endswith((".png", ".svg", ".html", ".log")):
            assert (out_dir / name).read_bytes() == (base_dir / name).read_bytes()


# --- round 3: hostile ids in every table writer (issue 27, items 11, 12, 13) -----------------------------------

#: ids a spreadsheet, LaTeX, Markdown or a terminal would act on
HOSTILE_IDS = ["=HYPERLINK(\"http://x\")", "+1+cmd", "-2+3", "@SUM(A1)", "x|y", "x_&%$#{}\\input{etc}~^",
               "\x1b]0;t\x07", "a\u202eb"]
TABLES = {  # a table-writing command and its formats: (arguments with RUN/OTHER/QRELS/ANCHORS, formats)
    "eval": (["eval", "-q", "QRELS", "RUN"], ["csv", "json"]),
    "compare": (["compare", "QRELS", "RUN", "OTHER", "--permutations", "20"], ["csv", "json", "latex", "markdown"]),
    "correlate": (["correlate", "QRELS", "RUN", "OTHER", "-m", "map", "--measure2", "P_10"], ["csv", "json"]),
    "check": (["check", "QRELS", "RUN"], ["csv", "json"]),
    "pool": (["pool", "QRELS", "RUN", "OTHER", "-d", "5"], ["csv", "json"]),
}


def hostile_names(tmp_path: Path, hostile: str) -> dict[str, Path]:
    """Inputs whose first query id and run file name are ``hostile`` (as far as a file name can hold it)."""
    paths = make(tmp_path)
    token = hostile.replace(" ", "_").replace("|", "!").encode()  # '|' in an id is the ADR groups format
    for role in ("QRELS", "RUN", "OTHER"):
        safe = hostile.replace("/", "_").replace("\x00", "")
        target = tmp_path / f"{role.lower()}{safe}"
        target.write_bytes(paths[role].read_bytes().replace(b"anchor_1 ", token + b" "))
        paths[role] = target
    return paths


def formula_cells(text: str) -> list[str]:
    import csv
    import io

    return [cell for row in csv.reader(io.StringIO(text)) for cell in row
            if cell.startswith(("=", "+", "-", "@", "\t", "\r")) and not re.fullmatch(r"[+-]?[0-9.eE+-]+|-?inf", cell)]


def latex_clean(text: str) -> bool:
    """No LaTeX special character outside its escape (the escapes removed, none may be left)."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith(("%", "\\caption{", "\\centering",
                                                                             "\\begin{table}", "\\end{table}")))
    body = re.sub(r"\\textbf\{([0-9.]+)\}|\$\^\{[a-zA-Z]+\}\$", r"\1", body)  # compare's bold best, superscripts
    body = re.sub(r"\\(?:textbackslash|textasciitilde|textasciicircum)\{\}|\\[{}$&#_%]|\\\\|\\(?:begin|end)\{tabular\}"
                  r"(?:\{l*r*\})?|\\(?:top|mid|bottom)rule", "", body)
    return not re.search(r"[\\{}$#^~%]", body) and body.count("&") == body.count(" & ")


def markdown_columns(text: str) -> set[int]:
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return {len(re.split(r"(?<!\\)\|", row)) for row in rows}


@pytest.mark.parametrize("hostile", HOSTILE_IDS if FULL else [HOSTILE_IDS[0], HOSTILE_IDS[5]])
@pytest.mark.parametrize("command", sorted(TABLES))
def test_hostile_ids_in_every_table_format(tmp_path: Path, command: str, hostile: str) -> None:
    import json

    paths = hostile_names(tmp_path, hostile)
    arguments, formats = TABLES[command]
    for fmt in formats:
        code, out, err = run_cli(*[str(paths.get(a, a)) for a in arguments], "-o", fmt)
        assert code in (0, 2) and "Traceback" not in err and "internal error" not in err, err
        if fmt == "csv":
            assert formula_cells(out) == [], out
        elif fmt == "json":
            json.loads(out, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
        elif fmt == "latex":
            assert latex_clean(out), out
        elif fmt == "markdown":
            assert len(markdown_columns(out)) == 1, out
