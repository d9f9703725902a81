"""Hostile inputs against every reading command: a clear exit-2 error naming the file, never a traceback,
an internal error, a silent acceptance or a partial output.

Each hostile file is given once as the run and once as the qrels of every command that reads them
(eval, me13sh, check, compare, report, plot pr, show, pool, pool-bias, incompleteness,
complete-qrels), as the run of ``fix``, ``anchoring`` and ``sample-eval``, and as either input of ``mr``.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli

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
               "gzip then text"}
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


def args_for(command: str, paths: dict[str, Path], out_dir: Path) -> list[str]:
    def one(x: str) -> str:
        if x.startswith("OUT"):
            return str(out_dir / ("out" + x[3:]))
        if x == "QUERY":
            return query()
        return str(paths.get(x, x))

    return [one(x) for x in COMMANDS[command]]


#: the commands that evaluate several runs or write files run a representative subset (suite time)
SLOW = {"report", "plot pr", "pool-bias", "incompleteness", "complete-qrels", "compare"}
SUBSET = {"empty", "NUL byte", "bzip2", "gzip then text", "one field short", "escape sequences"}
MATRIX = [(c, h, r) for c in sorted(COMMANDS) for h in sorted(HOSTILE) for r in ("RUN", "QRELS")
          if (c not in SLOW or h in SUBSET) and (c, h) not in ACCEPTED
          and (c not in OWN_FORMAT or (r in OWN_FORMAT[c] and h in FORMAT_FREE))]


@pytest.mark.parametrize(("command", "case", "role"), MATRIX)
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
