"""A stream whose start cannot be valid is refused as its first blocks arrive (issue 27, item 21), with the
error reading it whole gives: generated heads of every reader (line formats, JSON Lines, JSON documents),
each read from a regular file (whole) and from standard input (head checked), the errors compared; and a
bounded-size check: a big invalid stream is refused after a few MiB, counted by the stream itself.

``SEGEVAL_FULL=1`` tries more bad lines and more read sizes."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from segeval.core.errors import InputError
from segeval.protocols.moments.qvhighlights.reading import read_moment_jsonl
from segeval.protocols.moments.reading import load_json, load_jsonl
from segeval.protocols.moments.tvr.reading import read_submission, read_truth
from segeval.readers.files import BLOCK_BYTES, reset_streams
from segeval.readers.formats import DETECT_LINES
from segeval.readers.strata import read_sampled_run, read_strata_qrels
from segeval.readers.tables import read_qrels, read_run

FULL = os.environ.get("SEGEVAL_FULL") == "1"


class Stream:
    """Standard input's bytes: ``head`` then ``filler`` repeated up to ``total`` bytes, made as they are read,
    at most ``most`` bytes a read (a pipe gives what it holds); ``given`` counts the bytes read."""

    def __init__(self, head: bytes, filler: bytes = b"", total: int = 0, most: int = BLOCK_BYTES) -> None:
        self.head, self.most = head, most
        self.filler = filler * max(1, (1 << 20) // max(1, len(filler)))  # whole copies, about 1 MiB
        self.cap = 16 * BLOCK_BYTES  # reading more fails the test at once (not after reading 2 GiB)
        self.total = max(total, len(head))
        self.given = 0

    def read(self, size: int = -1) -> bytes:
        size = min(self.total - self.given, self.most if size < 0 else min(size, self.most))
        assert self.given + size <= max(self.cap, len(self.head)), "read on past the stream's first blocks"
        out = bytearray()
        while len(out) < size:
            at = self.given + len(out)
            if at < len(self.head):
                out += self.head[at:at + size - len(out)]
            else:
                pos = (at - len(self.head)) % len(self.filler)
                out += self.filler[pos:pos + size - len(out)]
        self.given += len(out)
        return bytes(out)


class Stdin:
    def __init__(self, stream: Stream) -> None:
        self.buffer = stream


def _error(read: Callable[[str], Any], path: str) -> tuple[str, int | None, str | None, str] | Any:
    """The error reading ``path`` gives (problem, line, text, kind), or what it reads."""
    reset_streams()
    try:
        return read(path)
    except InputError as exc:
        return exc.problem, exc.line, exc.text, exc.kind


def _same(value: Any, other: Any) -> bool:
    if isinstance(value, pd.DataFrame):
        return isinstance(other, pd.DataFrame) and value.equals(other)
    if isinstance(value, list) and value and hasattr(value[0], "desc_id"):  # TVR queries
        return [(q.desc_id, q.video, q.line) for q in value] == [(q.desc_id, q.video, q.line) for q in other]
    return bool(value == other)


def _compare(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, read: Callable[[str], Any], data: bytes,
             most: int) -> Any:
    """The whole read of ``data`` from a file and the head-checked read from standard input agree."""
    file = tmp_path / "input"
    file.write_bytes(data)
    whole = _error(read, str(file))
    monkeypatch.setattr(sys, "stdin", Stdin(Stream(data, most=most)))
    streamed = _error(read, "-")
    assert type(whole) is type(streamed)
    assert _same(whole, streamed), (whole, streamed)
    return whole


# ------------------------------------------------------------------------ line formats

#: reader, a valid line, bad lines (fit no format, a bad field, another format's line)
LINE_READERS: dict[str, tuple[Callable[[str], Any], str, list[str]]] = {
    "qrels auto trec": (read_qrels, "301 0 FBIS3-{} 1", ["x y", "301 0 FBIS3-1 high", "q Q0 v 1.00 2.00 1"]),
    "qrels auto mediaeval": (read_qrels, "q1 Q0 v{} 1.00 2.00 1", ["x y", "q1 Q0 v 1.00 2.75 1", "301 0 D 1"]),
    "qrels auto completed": (read_qrels, "301 0 D{} 1 human", ["x y", "301 0 D 1 robot", "301 0 D 1"]),
    "qrels auto groups": (lambda p: read_qrels(p), "q{} 1,2 | 3", ["x", "q 1,,2", "q1 1 | 1"]),
    "qrels auto strata": (read_qrels, "301 0 D{} 2 1", ["x y", "301 0 D 2", "301 0 D x 1 2"]),
    "qrels trec": (lambda p: read_qrels(p, "trec"), "301 0 D{} 1", ["x y", "301 0 D x", "not a qrels line"]),
    "qrels mediaeval": (lambda p: read_qrels(p, "mediaeval"), "q Q0 v{} 1.00 2.00 1", ["x y", "q Q0 v 1.00 x 1"]),
    "run auto trec": (read_run, "301 Q0 D{} 1 12.5 tag", ["x y", "301 Q0 D one 1.0 t", "q Q0 v 1.00 2.00 1 0.5 t"]),
    "run auto linking": (read_run, "q Q0 v{} 1.00 2.00 1 0.5 t", ["x y", "q Q0 v 1.00 2.00 x 0.5 t", "301 Q0 D 1 1 t"]),
    "run linking": (lambda p: read_run(p, "linking"), "q Q0 v{} 1.00 2.00 1 0.5 t", ["x y", "q Q0 v 1.99 2.00 1 s t"]),
    "run search": (lambda p: read_run(p, "search"), "q Q0 v{} 1.00 2.00 1.00 1 0.5", ["x y", "q Q0 v a b c 1 0.5"]),
    # (their results name the file they came from: compared without it)
    "sample-eval qrels": (lambda p: replace(read_strata_qrels(p), path=""), "301 0 D{} 2 1", ["x y", "301 0 D 2 x"]),
    "sample-eval run": (lambda p: replace(read_sampled_run(p), path=""), "301 Q0 D{} 1 12.5 tag",
                        ["x y", "301 Q0 D 1 high tag"]),
}


def _layouts(good: str, bad: str) -> Iterator[tuple[str, list[str]]]:
    """Files of ``good`` lines (numbered items) and a ``bad`` one: bad from the start, a valid first line then
    bad ones, one bad line about where detection ends, a bad first line then valid ones (a header), blank
    lines first, and no bad line."""
    many = DETECT_LINES + 50

    def goods(n: int, at: int = 0) -> list[str]:
        return [good.format(at + i) for i in range(n)]

    yield "bad only", [bad] * many
    yield "valid then bad", goods(1) + [bad] * many
    yield "bad first, valid after", [bad, *goods(many)]
    if FULL:
        for k in (5, DETECT_LINES - 1, DETECT_LINES, DETECT_LINES + 1):
            yield f"bad at data line {k + 1}", [*goods(k), bad, *goods(many, k)]
        yield "blank lines, then bad", ["", "  \t", ""] + [bad] * 10
        yield "valid", goods(many)


LINE_CASES = [(reader, bad, layout, lines)
              for reader, (_, good, bads) in LINE_READERS.items() for bad in (bads if FULL else bads[:1])
              for layout, lines in _layouts(good, bad)]


@pytest.mark.parametrize(("reader", "bad", "layout", "lines"), LINE_CASES,
                         ids=[f"{r}|{b}|{layout}" for r, b, layout, _ in LINE_CASES])
def test_a_line_stream_gives_the_whole_reads_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, reader: str,
                                                   bad: str, layout: str, lines: list[str]) -> None:
    data = ("\n".join(lines) + "\n").encode()
    for most in (BLOCK_BYTES, 1000, 4099) if FULL else (1000,):
        _compare(monkeypatch, tmp_path, LINE_READERS[reader][0], data, most)


# ------------------------------------------------------------------------ JSON Lines and documents

TVR_LINE = '{{"desc_id": {}, "vid_name": "v", "ts": [1.0, 2.0], "type": "v"}}'
JSONL_READERS: dict[str, tuple[Callable[[str], Any], str, list[str]]] = {
    "tvr truth": (read_truth, TVR_LINE, ["not a json", "[1, 2]", '{"desc_id": 1}', '{"a": 1, "a": 2}']),
    "qvh": (read_moment_jsonl, '{{"qid": {}}}', ["not a json", '{"q": 1}', '{"qid": [[[[']),
    "jsonl": (lambda p: load_jsonl(p, "records"), '{{"id": {}}}', ["not a json", "{", '{"a": 1, "a": 2}']),
}
JSONL_CASES = [(reader, bad, layout, lines)
               for reader, (_, good, bads) in JSONL_READERS.items() for bad in (bads if FULL else bads[:2])
               for layout, lines in _layouts(good, bad)]


@pytest.mark.parametrize(("reader", "bad", "layout", "lines"), JSONL_CASES,
                         ids=[f"{r}|{b}|{layout}" for r, b, layout, _ in JSONL_CASES])
def test_a_json_lines_stream_gives_the_whole_reads_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         reader: str, bad: str, layout: str, lines: list[str]) -> None:
    data = ("\n".join(lines) + "\n").encode()
    _compare(monkeypatch, tmp_path, JSONL_READERS[reader][0], data, 1000)


def _documents() -> Iterator[tuple[str, str]]:
    """JSON documents, valid and not, with their errors near and far from the start and cut anywhere."""
    records = ",\n".join(f'{{"desc_id": {i}, "predictions": [[0, 1.5, 2.25, -1e-3], [1, 0, 1, 0.5]],'
                         f' "x": "caf\\u00e9 {i}", "t": [true, false, null]}}' for i in range(400))
    doc = f'{{"video2idx": {{"v": 0}},\n"VCMR": [{records}]}}\n'
    yield "valid", doc
    yield "not json", "not a json\n" * 3000
    yield "blank lines, then not json", "\n \n" + "nope\n" * 3000
    yield "a bad value early", doc.replace('"desc_id": 3,', '"desc_id": nan3,')
    yield "a bad value late", doc.replace('"desc_id": 399,', '"desc_id": x,')
    yield "extra data", '{"video2idx": {}}\n' + "x" * 5000
    yield "an unterminated string", '{"video2idx": "' + "x" * 20000
    yield "a long string", '{"video2idx": {"' + "x" * 20000 + '": 0}}'
    yield "a duplicate key", '{"video2idx": {}, "video2idx": {}}' + " " * 5000
    yield "a bad control character", '{"video2idx": {"a\tb": 0}}' + " " * 5000
    yield "deep", "[" * 100000


DOCUMENT_CASES = list(_documents())


@pytest.mark.parametrize(("reader", "what"), [("tvr submission", "tvr"), ("json", "json")])
@pytest.mark.parametrize(("layout", "text"), DOCUMENT_CASES, ids=[c[0] for c in DOCUMENT_CASES])
def test_a_json_document_stream_gives_the_whole_reads_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                            reader: str, what: str, layout: str, text: str) -> None:
    def read(path: str) -> Any:
        if what == "tvr":
            return json.dumps(read_submission(path, []).video2idx, sort_keys=True)
        return json.dumps(load_json(path, "a document"), sort_keys=True)

    for most in (1000, 1001, 1023, 4096, 65536) if FULL else (1023,):  # cuts everywhere
        _compare(monkeypatch, tmp_path, read, text.encode(), most)


# ------------------------------------------------------------------------ a bounded read

BIG = 3 * 1024**3  # made as read: only what is read is ever made
BOUNDED = [
    ("eval run", lambda p: read_run(p), b"", b"x y\n"),
    ("qrels", lambda p: read_qrels(p), b"", b"not a qrels line\n"),
    ("me13sh run", lambda p: read_run(p, "linking"), b"", b"x y\n"),
    ("sample-eval run", read_sampled_run, b"", b"x y\n"),
    ("valid first line", lambda p: read_run(p), b"301 Q0 D 1 1 t\n", b"301 Q0 D one 1 t\n"),
    ("tvr truth", read_truth, b"", b"not a json\n"),
    ("tvr submission", lambda p: read_submission(p, []), b"", b"not a json\n"),
]


@pytest.mark.parametrize(("name", "read", "head", "filler"), BOUNDED, ids=[b[0] for b in BOUNDED])
def test_a_big_invalid_stream_stops_after_a_few_mib(monkeypatch: pytest.MonkeyPatch, name: str,
                                                    read: Callable[[str], Any], head: bytes, filler: bytes) -> None:
    stream = Stream(head, filler, BIG)
    monkeypatch.setattr(sys, "stdin", Stdin(stream))
    reset_streams()
    with pytest.raises(InputError) as caught:
        read("-")
    assert caught.value.line == (2 if head else 1)
    assert stream.given <= 2 * BLOCK_BYTES  # the first block (4 MiB) and a few bytes to look for gzip
