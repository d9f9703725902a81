"""The moment-retrieval inputs (JSON Lines and JSON documents of every protocol) go through the one
opener: any readable file (standard input too), gzip, and the documented limits, the line length
for JSON Lines only (a JSON document may be one long line)."""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

import pytest

from segeval.core.errors import InputError
from segeval.readers.files import read_text
from tests.conftest import FIXTURES, run_cli

#: protocol, ground truth, predictions, whether each is JSON Lines
CASES = [
    ("qvhighlights", FIXTURES / "qvh" / "random.gt.jsonl.gz", FIXTURES / "qvh" / "random.pred.jsonl.gz", (True, True)),
    ("tvr", FIXTURES / "tvr" / "boundary.gt.jsonl.gz", FIXTURES / "tvr" / "boundary.submission.json.gz",
     (True, False)),
    ("didemo", FIXTURES / "mr" / "didemo.gt.json.gz", FIXTURES / "mr" / "didemo.pred.jsonl.gz", (False, True)),
    ("ego4d-nlq", FIXTURES / "mr" / "ego4d.gt.json.gz", FIXTURES / "mr" / "ego4d.pred.json.gz", (False, False)),
]
IDS = [c[0] for c in CASES]


def plain(tmp_path: Path, gz: Path) -> Path:
    """The fixture decompressed (so the size limit names the file's own size)."""
    out = tmp_path / gz.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(gz.read_bytes()))
    return out


@pytest.mark.parametrize(("protocol", "truth", "pred", "jsonl"), CASES, ids=IDS)
def test_predictions_from_standard_input(monkeypatch: pytest.MonkeyPatch, protocol: str, truth: Path, pred: Path,
                                         jsonl: tuple[bool, bool]) -> None:
    expected = run_cli("mr", "-p", protocol, "-o", "json", str(truth), str(pred))
    assert expected[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(pred.read_bytes())))
    assert run_cli("mr", "-p", protocol, "-o", "json", str(truth), "-") == expected


@pytest.mark.parametrize(("protocol", "truth", "pred", "jsonl"), CASES, ids=IDS)
def test_the_size_limit_applies(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, protocol: str, truth: Path,
                                pred: Path, jsonl: tuple[bool, bool]) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "1000")  # every fixture is larger
    t = plain(tmp_path, truth)
    code, out, err = run_cli("mr", "-p", protocol, str(t), str(pred))
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {t}: is larger than 1000 bytes; expected a smaller file "
                   f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)\n")


@pytest.mark.parametrize(("protocol", "truth", "pred", "jsonl"), CASES, ids=IDS)
def test_the_line_limit_applies_to_json_lines_only(monkeypatch: pytest.MonkeyPatch, protocol: str, truth: Path,
                                                   pred: Path, jsonl: tuple[bool, bool]) -> None:
    expected = run_cli("mr", "-p", protocol, "-o", "json", str(truth), str(pred))
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "32")  # every fixture has a longer line
    got = run_cli("mr", "-p", protocol, "-o", "json", str(truth), str(pred))
    first = next((path for path, lines in zip((truth, pred), jsonl, strict=True) if lines), None)
    if first is None:
        assert got == expected  # JSON documents: one long line is fine
    else:
        assert got == (2, "", f"segeval: error: {first}: line 1 is longer than 32 bytes; expected text lines "
                              f"(SEGEVAL_MAX_LINE_BYTES raises the limit)\n")


def test_a_directory_or_a_missing_file_is_named(tmp_path: Path) -> None:
    code, _, err = run_cli("mr", "-p", "ego4d-nlq", str(tmp_path), str(CASES[3][2]))
    assert (code, err) == (2, f"segeval: error: {tmp_path}: is a directory, expected a file\n")
    code, _, err = run_cli("mr", "-p", "didemo", str(CASES[2][1]), str(tmp_path / "absent.jsonl"))
    assert (code, err) == (2, f"segeval: error: {tmp_path / 'absent.jsonl'}: no such file\n")


def test_read_text_drops_a_byte_order_mark_and_refuses_nul(tmp_path: Path) -> None:
    p = tmp_path / "bom.json"
    p.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert read_text(p) == '{"a": 1}'
    p.write_bytes(b'{"a": "\x00"}')
    with pytest.raises(InputError, match="contains a NUL byte; expected a text line"):
        read_text(p)
