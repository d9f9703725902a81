"""Hostile input: each case with its exact outcome (message and exit code), `check`, `--lenient`."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.conftest import run_cli

QRELS = "q1 Q0 v1 1.00 2.00 1\nq1 Q0 v1 3.00 4.00 0\n"
RUN = "q1 Q0 v1 1.00 2.00 1 0.5 r\n"


def me13sh(tmp_path: Path, qrels: str | bytes, run: str | bytes, name: str = "run") -> tuple[int, str, str, Path]:
    q, r = tmp_path / "qrels", tmp_path / name
    q.write_bytes(qrels.encode() if isinstance(qrels, str) else qrels)
    r.write_bytes(run.encode() if isinstance(run, str) else run)
    code, out, err = run_cli("me13sh", str(q), str(r))
    return code, out, err, r


def test_gzip_bomb_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", str(1024**2))
    bomb = gzip.compress(RUN.encode() + b" " * (8 * 1024**2))  # 8 MiB of spaces in a few kB
    code, out, err, r = me13sh(tmp_path, QRELS, bomb, "run.gz")
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {r}: decompresses to more than 1 MiB (a gzip bomb?); expected a smaller file "
                   f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)\n")


def test_file_above_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "100")
    code, _, err, r = me13sh(tmp_path, QRELS, RUN * 10)
    assert code == 2
    assert err == (f"segeval: error: {r}: is larger than 100 bytes; expected a smaller file "
                   f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)\n")


def test_runaway_line_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "1000")
    code, _, err, r = me13sh(tmp_path, QRELS, RUN + "q1 Q0 " + "v" * 5000 + " 1.00 2.00 2 0.4 r\n")
    assert code == 2
    assert err == (f"segeval: error: {r}: line 2 is longer than 1000 bytes; expected text lines "
                   f"(SEGEVAL_MAX_LINE_BYTES raises the limit)\n")


@pytest.mark.parametrize(("token", "message"), [
    ("1e308", None),  # a huge but finite score: accepted
    ("-0", None),  # negative zero: accepted
    ("0x10", "field 7 (score) is '0x10'; expected a finite number"),  # no hexadecimal
    ("1e309", "field 7 (score) is '1e309'; expected a finite number"),  # overflows to inf
])
def test_scores(tmp_path: Path, token: str, message: str | None) -> None:
    code, out, err, r = me13sh(tmp_path, QRELS, f"q1 Q0 v1 1.00 2.00 1 {token} r\n")
    if message is None:
        assert code == 0 and "num_rel_ret" in out
    else:
        assert code == 2
        assert err == f"segeval: error: {r}, line 1: {message}\n  line 1: q1 Q0 v1 1.00 2.00 1 {token} r\n"


MMSS = "an M.S time: minutes (at most 12 digits), a dot and seconds 0-59 (one or two digits), such as '17.05'"


@pytest.mark.parametrize(("token", "accepted", "hint"), [
    ("59.59", True, ""),  # 59 minutes 59 seconds
    ("0.60", False, "; 60 seconds is not possible in an M.S time; '0.60' would be a time in seconds "
                    "(--time-format seconds)"),  # seconds must be 0-59
    ("-0.01", False, "; a time cannot be negative"),  # no sign
    ("1e3", False, ""),  # no exponent
])
def test_times(tmp_path: Path, token: str, accepted: bool, hint: str) -> None:
    code, out, err, r = me13sh(tmp_path, QRELS, f"q1 Q0 v1 {token} 60.00 1 0.5 r\n")
    if accepted:
        rows = {(n.strip(), q.strip()): v.strip() for n, q, v in (line.split("\t") for line in out.splitlines())}
        assert code == 0 and rows[("avglength_ret", "q1")] == "1"  # 60.00 - 59.59 = 3600 - 3599 = 1 s
    else:
        assert code == 2
        assert err == (f"segeval: error: {r}, line 1: field 4 (start) is '{token}'; expected {MMSS}{hint}\n"
                       f"  line 1: q1 Q0 v1 {token} 60.00 1 0.5 r\n")


def test_unicode_and_very_long_ids(tmp_path: Path) -> None:
    long_video = "v" + "é" * 3000
    qrels = f"κ-1 Q0 {long_video} 1.00 2.00 1\nκ-1 Q0 vidéo_中 3.00 4.00 1\n"
    run = f"κ-1 Q0 {long_video} 1.00 2.00 1 0.5 r\nκ-1 Q0 vidéo_中 3.00 4.00 2 0.4 r\n"
    code, out, _, _ = me13sh(tmp_path, qrels, run)
    assert code == 0
    assert [line.split("\t")[2].strip() for line in out.splitlines() if line.startswith("num_rel_ret ")] == ["2", "2"]


def test_quotes_are_not_special(tmp_path: Path) -> None:
    # a quoted id with a tab inside is two fields, as white space separates fields everywhere
    code, _, err, r = me13sh(tmp_path, QRELS, 'q1 Q0 "v\t1" 1.00 2.00 1 0.5 r\n')
    assert code == 2
    assert err.startswith(f"segeval: error: {r}, line 1: has 9 fields; expected 8 fields for a MediaEval linking run")


def test_check_reports_every_problem_with_counts(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 Q0 v1 1.00 2.00 1\nq1 Q0 v1 3.00 2.00 1\nq1 Q0 v1 1.60 2.00 1\n")
    (tmp_path / "r").write_text("q1 Q0 v1 1.00 2.00 0 0.5 r\nq1 Q0 v1 1.00 2.00 1 x r\nq1 Q0 v1 1.00 2.00 2 0.1\n")
    code, out, err = run_cli("check", str(tmp_path / "q"), str(tmp_path / "r"))
    assert code == 2
    q, r = tmp_path / "q", tmp_path / "r"
    assert out.splitlines() == [f"{q}\tbad start\t1", f"{q}\tend before start\t1", f"{r}\tbad score\t1",
                                f"{r}\tfield count\t1", f"{r}\trank below 1\t1", "5 problems"]
    assert err.count("segeval: ") == 5 and "Traceback" not in err
    code, out, _ = run_cli("check", str(q), str(q).replace("q", "q"))
    assert code == 2


def test_check_on_valid_files(tmp_path: Path) -> None:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    assert run_cli("check", str(tmp_path / "q"), str(tmp_path / "r")) == (0, "no problems\n", "")


def test_long_line_probe_never_misses() -> None:
    import random

    from segeval.readers.files import may_have_long_line

    rng = random.Random(3)
    for _ in range(2000):
        limit = rng.randint(1, 40)
        data = bytes(rng.choice(b"ab\n") if rng.random() < 0.3 else ord("x") for _ in range(rng.randint(0, 200)))
        longest = max((len(line) for line in data.split(b"\n")), default=0)
        if longest > limit:
            assert may_have_long_line(data, limit), (data, limit)
