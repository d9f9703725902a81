"""Terminal safety: control characters from file content and file names never reach stderr raw.

A generator puts random control characters (C0, DEL, C1, bidirectional overrides; newlines too in file
names) into the offending tokens and the file names of every kind of error, note and listing, and checks
that stderr holds no control character but the line ends segeval writes, and that every stderr line is one
of segeval's (a name holding a newline does not split a message).
"""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from segeval.core.errors import InputError, SegevalError, printable
from tests.conftest import run_cli, sliced

#: every control character but the newline, which segeval's own line structure uses
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: what a token inside a line may hold: no ASCII white space (it separates fields) and no NUL (its own case)
TOKEN_CONTROLS = ([chr(c) for c in range(1, 0x20) if chr(c) not in "\t\n\x0b\x0c\r"] + ["\x7f"]
                  + [chr(c) for c in range(0x80, 0xA0)] + ["\u202e", "\u2066", "\u200f", "\u061c"])
NAME_CONTROLS = [*TOKEN_CONTROLS, "\n", "\t", "\r", "\x0b", "\x0c"]
ESCAPES = ["\x1b]0;owned\x07", "\x1b[2J", "\x9b31m", "\x1b[1A\x1b[K"]  # retitle, clear, C1 CSI, erase a line


def hostile(rng: random.Random, pool: list[str]) -> str:
    """A short string of letters, control characters and whole escape sequences."""
    parts = [rng.choice(pool) if rng.random() < 0.5 else rng.choice(ESCAPES) for _ in range(rng.randint(1, 3))]
    return "x" + "".join(parts) + "y"


def token(rng: random.Random) -> str:
    return hostile(rng, TOKEN_CONTROLS)


def name(rng: random.Random) -> str:
    return hostile(rng, NAME_CONTROLS)


class Files:
    """Files with hostile names in one directory."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root, self.rng = root, rng
        self.n = 0

    def __call__(self, content: str | bytes | None, suffix: str = "", directory: bool = False) -> str:
        """A file holding ``content`` (None: no file), or an empty directory."""
        self.n += 1
        path = self.root / f"{self.n}{name(self.rng)}{suffix}"
        if directory:
            path.mkdir()
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif content is not None:
            path.write_bytes(content)
        return str(path)


QM = "q1 Q0 v1 1.00 2.00 1\n"
RM = "q1 Q0 v1 1.00 2.00 1 0.5 r\n"
QT = "301 0 d1 1\n"
RT = "301 Q0 d1 1 2.5 r\n"

Case = Callable[[Files, random.Random], list[str]]


def _cases() -> dict[str, Case]:
    def t(rng: random.Random) -> str:
        return token(rng)

    return {
        "field count": lambda f, rng: ["eval", f(QM), f(RM + f"q1 Q0 v1 1.00 2.00 1 0.5 r {t(rng)}\n")],
        "bad rank": lambda f, rng: ["eval", f(QT), f(f"301 Q0 d1 {t(rng)} 2.5 r\n301 Q0 d2 2 1 r\n")],
        "bad time": lambda f, rng: ["me13sh", f(QM), f(f"q1 Q0 v1 1.00 {t(rng)} 1 0.5 r\n")],
        "bad score": lambda f, rng: ["check", f(QM), f(RM + f"q1 Q0 v1 1.00 2.00 1 {t(rng)} r\n")],
        "encoding": lambda f, rng: ["eval", f(QT), f(f"301 Q0 d1 1 2.5 {t(rng)}".encode() + b"\xff\xfe\n")],
        "NUL": lambda f, rng: ["eval", f(QT), f(f"301 Q0 d{t(rng)}\x00 1 2.5 r\n")],
        "carriage return": lambda f, rng: ["eval", f(QT), f(f"301 Q0 {t(rng)}\r1 1 2.5 r\n")],
        "end before start": lambda f, rng: ["me13sh", f(QM), f(f"q1 Q0 {t(rng)} 3.00 2.00 1 0.5 r\n")],
        "rank below 1": lambda f, rng: ["check", f(QM), f(f"q1 Q0 {t(rng)} 1.00 2.00 0 0.5 r\n")],
        "duplicate document": lambda f, rng: ["eval", f(QT), f(f"301 Q0 {(d := t(rng))} 1 2 r\n301 Q0 {d} 2 1 r\n")],
        "duplicate judgement": lambda f, rng: ["eval", f(f"301 0 {(d := t(rng))} 1\n301 0 {d} 0\n"), f(RT)],
        "kind mismatch": lambda f, rng: ["eval", f(QM), f(RT)],
        "mixed formats": lambda f, rng: ["eval", f(QM), f(f"{t(rng)} Q0 v1 1 0.5 r\nq1 Q0 v1 1.00 2.00 2 0.4 r\n")],
        "not a run line": lambda f, rng: ["eval", f(QM), f(f"{t(rng)} {t(rng)}\n")],
        "qrels field count": lambda f, rng: ["eval", f(f"{t(rng)} 0 d1\n"), f(RT)],
        "linking or search": lambda f, rng: ["eval", "--time-format", "seconds", f("q1 Q0 v1 1 2 1\n"),
                                             f(f"q1 Q0 {t(rng)} 10 20 30 1 0.5\n")],
        "no such file": lambda f, rng: ["me13sh", f(QM), f(None)],
        "nothing matches": lambda f, rng: ["eval", f(QT), f(None) + "*"],
        "directory": lambda f, rng: ["me13sh", f(QM), f(None, directory=True)],
        "no data lines": lambda f, rng: ["eval", f(QT), f("\n\n")],
        "not gzip": lambda f, rng: ["eval", f(QT), f(RT, ".gz")],
        "bad gzip": lambda f, rng: ["eval", f(QT), f(gzip.compress(RT.encode())[:-12])],
        "no run files": lambda f, rng: ["eval", f(QT), f(None, directory=True)],
        "groups": lambda f, rng: ["eval", f(f"q1 a,{t(rng)},a | b\n"), f(RT)],
        "unknown query": lambda f, rng: ["show", f(QM), f(RM), "-Q", t(rng), "--explain"],
        "lenient listing": lambda f, rng: ["eval", "--lenient", f(f"{t(rng)}\n" + QT), f(RT + f"{t(rng)} x\n")],
        "map above 1": lambda f, rng: ["me13sh", f(f"{(q := t(rng))} Q0 v1 1.00 2.00 1\n"),
                                       f(f"{q} Q0 v1 1.00 2.00 1 0.5 r\n{q} Q0 v1 1.10 1.50 2 0.4 r\n")],
        "queries not averaged": lambda f, rng: ["eval", f(QT + f"{t(rng)} 0 d1 1\n"), f(RT)],
        "no common query": lambda f, rng: ["me13sh", f(QM), f(f"{t(rng)} Q0 v1 1.00 2.00 1 0.5 r\n")],
        "not grouped": lambda f, rng: ["eval", "--memory", "chunked", "--chunk-lines", "1", f(QT),
                                       f(f"301 Q0 d1 1 2 r\n{t(rng)} Q0 d1 1 2 r\n301 Q0 d2 2 1 r\n")],
        "compare": lambda f, rng: ["compare", f(QT), f(RT), f(RT + f"301 Q0 d1 {t(rng)} 2 r\n")],
    }


CASES = _cases()


def check_stderr(err: str) -> None:
    assert RAW.search(err) is None, repr(err)
    for line in err.splitlines():
        assert line.startswith(("segeval: ", "note: ", "  line ")), repr(err)


#: what each case's stderr says: the generator covers the kind it names
SAYS = {"field count": "fields; expected", "bad rank": "field 4 (rank)", "bad time": "field 5 (end)",
        "bad score": "field 7 (score)", "encoding": "not valid UTF-8", "NUL": "NUL byte",
        "carriage return": "carriage return", "end before start": "earlier than the start",
        "rank below 1": "expected an integer rank >= 1", "duplicate document": "appears again",
        "duplicate judgement": "judged again", "kind mismatch": "same kind", "mixed formats": "expected one format",
        "no such file": "no such file", "nothing matches": "matches nothing", "directory": "is a directory",
        "no data lines": "has no data lines", "not gzip": "not gzip-compressed", "bad gzip": "not a valid gzip file",
        "no run files": "no run files in", "groups": "  line 1: q1 a,", "unknown query": "'query' parameter",
        "lenient listing": "segeval: skipped ", "map above 1": "above 1", "queries not averaged": "not averaged",
        "no common query": "no query is in", "not grouped": "not grouped by query", "linking or search": "cannot tell",
        "not a run line": "does not look like a run line", "qrels field count": "expected a qrels line",
        "compare": "field 4 (rank)"}


@pytest.mark.parametrize("seed", sliced(range(2), 2))
@pytest.mark.parametrize("kind", sorted(CASES))
def test_no_raw_control_character_reaches_stderr(tmp_path: Path, kind: str, seed: int) -> None:
    rng = random.Random(f"{kind}/{seed}")
    args = CASES[kind](Files(tmp_path, rng), rng)
    code, out, err = run_cli(*args)
    assert SAYS[kind] in err, (kind, code, err)
    assert code in (0, 2, 3), (kind, err)
    check_stderr(err)
    if args[0] == "check":  # the listing names the files on stdout, in tab-separated fields
        assert all(RAW.search(field) is None for line in out.splitlines() for field in line.split("\t")), repr(out)


def test_printable_escapes_each_control_character() -> None:
    assert printable("a\x1b[2Jb\x9b\u202ec\nd\te\x7f\x00") == "a\\x1b[2Jb\\x9b\\u202ec\\nd\\te\\x7f\\x00"
    assert printable("plain é 中 ü") == "plain é 中 ü"  # printable non-ASCII stays as is
    e = InputError("f\nx", "has 'a\x1bb'", line=3, text="a\x1bb\tc")
    assert str(e) == "f\\nx, line 3: has 'a\\x1bb'\n  line 3: a\\x1bb\\tc"  # segeval's own newline stays
    assert str(SegevalError("no run files in d\x1b\n")) == "no run files in d\\x1b\\n"


# --- names in a non-UTF-8 locale (issue 27): LC_ALL=C hands argv and file names over as surrogates -----------

def test_names_given_in_a_non_utf8_locale_read_as_utf8() -> None:
    from segeval.core.errors import utf8_text
    from segeval.executors.processes import run_names

    as_c_locale = "rün_日本.run".encode().decode("ascii", "surrogateescape")  # what LC_ALL=C's argv holds
    assert as_c_locale != "rün_日本.run"
    assert utf8_text(as_c_locale) == "rün_日本.run"
    assert utf8_text("plain.run") == "plain.run" and utf8_text("rün") == "rün"
    assert utf8_text("bad\udcff.run") == "bad\udcff.run"  # not UTF-8: the byte stays a surrogate (written back)
    assert utf8_text("json\ud800") == "json\ud800"  # a surrogate no byte stands for: unchanged
    assert run_names([f"/data/{as_c_locale}", "/data/other.run"]) == ["rün_日本.run", "other.run"]
    message = str(InputError(f"/data/{as_c_locale}", "has 8 fields", line=3, text="x"))
    assert message.startswith("/data/rün_日本.run, line 3: has 8 fields")


def test_a_written_file_is_announced_unless_standard_output_was_closed(capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from segeval.reports.output import GuardedStdout, announce_written

    announce_written(Path("figure.svg"))
    assert capsys.readouterr().out == "figure.svg\n"
    monkeypatch.setattr(sys, "stdout", GuardedStdout(io.StringIO(), closed=True))
    announce_written("figure.svg")  # '>&-': the figure is the result; writing its name would be an error
