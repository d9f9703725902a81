"""Read qrels and runs into DataFrames with fixed columns and dtypes.

Every format is a :class:`LineFormat`: fields separated by ASCII white space
(so identifiers may hold any other Unicode character), each field with a kind.
A fast path (pandas' C tokenizer plus vectorised time parsing) reads
well-formed files; whenever it meets anything unusual the line-by-line parser,
which defines the accepted syntax, re-reads the file and either returns the
same table or raises an :class:`~segeval.errors.InputError` naming the file,
line, offending text and what was expected.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import re
import stat
import sys
import warnings
import weakref
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.errors import InputError, ParameterError, check_choice

FieldKind = Literal["str", "ignore", "time", "int", "float"]
TIME_FORMATS = ("mmss", "seconds", "hms")

QRELS_COLUMNS = ("query", "item", "start", "end", "rel", "line")
RUN_COLUMNS = ("query", "item", "start", "end", "jumpin", "rank", "score", "run", "line")


@dataclass(frozen=True)
class Field:
    """One white-space separated field: its column name and kind."""

    name: str
    kind: FieldKind


@dataclass(frozen=True)
class LineFormat:
    """A line-oriented format: its fields, how many trailing ones may be absent, an example."""

    name: str
    fields: tuple[Field, ...]
    example: str
    optional: int = 0
    #: fields after the last one are ignored (trec_eval's runs: "reserved for future expansion")
    trailing: bool = False

    @property
    def counts(self) -> tuple[int, ...]:
        n = len(self.fields)
        return tuple(range(n - self.optional, n + 1))

    def accepts(self, n_tokens: int) -> bool:
        return n_tokens in self.counts or (self.trailing and n_tokens > len(self.fields))

    def describe_counts(self) -> str:
        c = self.counts
        text = str(c[0]) if len(c) == 1 else " or ".join(str(x) for x in c)
        return text + " or more" if self.trailing else text


MEDIAEVAL_QRELS = LineFormat(
    "MediaEval qrels",
    (Field("query", "str"), Field("q0", "ignore"), Field("item", "str"), Field("start", "time"),
     Field("end", "time"), Field("rel", "int")),
    "anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1",
)
MEDIAEVAL_LINKING_RUN = LineFormat(
    "MediaEval linking run",
    (Field("query", "str"), Field("q0", "ignore"), Field("item", "str"), Field("start", "time"),
     Field("end", "time"), Field("rank", "int"), Field("score", "float"), Field("run", "str")),
    "anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1 0.93 myrun",
)
MEDIAEVAL_SEARCH_RUN = LineFormat(
    "MediaEval search run",
    (Field("query", "str"), Field("q0", "ignore"), Field("item", "str"), Field("start", "time"),
     Field("end", "time"), Field("jumpin", "time"), Field("rank", "int"), Field("score", "float"),
     Field("run", "str")),
    "query_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 2.30 1 0.93 myrun",
    optional=1,
)
TREC_QRELS = LineFormat(
    "TREC qrels",
    (Field("query", "str"), Field("iter", "ignore"), Field("item", "str"), Field("rel", "int")),
    "301 0 FBIS3-10082 1",
)
TREC_RUN = LineFormat(
    "TREC run",
    (Field("query", "str"), Field("q0", "ignore"), Field("item", "str"), Field("rank", "int"),
     Field("score", "float"), Field("run", "str")),
    "301 Q0 FBIS3-10082 1 12.5 myrun",
    trailing=True,
)
#: completed qrels (``segeval complete-qrels``): one more field saying who judged the line,
#: ``human`` or ``predicted:CLASSIFIER``, so predicted labels never pass for human ones
SOURCE_HUMAN = "human"
SOURCE_PREDICTED = "predicted:"
TREC_QRELS_COMPLETED = LineFormat(
    "completed TREC qrels", (*TREC_QRELS.fields, Field("source", "str")), "301 0 FBIS3-10082 1 predicted:kld")
MEDIAEVAL_QRELS_COMPLETED = LineFormat(
    "completed MediaEval qrels", (*MEDIAEVAL_QRELS.fields, Field("source", "str")),
    "anchor_1 Q0 v20080511_013500_bbcfour_the_book_quiz 2.30 3.05 1 predicted:svm")
QRELS_FORMATS = {"mediaeval": MEDIAEVAL_QRELS, "trec": TREC_QRELS, "trec-completed": TREC_QRELS_COMPLETED,
                 "mediaeval-completed": MEDIAEVAL_QRELS_COMPLETED}
RUN_FORMATS = {"linking": MEDIAEVAL_LINKING_RUN, "search": MEDIAEVAL_SEARCH_RUN, "trec": TREC_RUN}
DOCUMENT_FORMATS = (TREC_QRELS, TREC_QRELS_COMPLETED, TREC_RUN)
COMPLETED_FORMATS = (TREC_QRELS_COMPLETED, MEDIAEVAL_QRELS_COMPLETED)
QRELS_FORMATS_BY_NAME = {f.name: f for f in QRELS_FORMATS.values()}

EXPECTED = {
    "mmss": "an M.S time: minutes (at most 12 digits), a dot and seconds 0-59 (one or two digits), such as '17.05'",
    "seconds": "a time in seconds: digits with an optional decimal part, such as '1025.5'",
    "hms": "an H:MM:SS time with optional decimals, such as '1:05:09.25'",
    "int": "an integer (at most 18 digits)",
    "float": "a finite number",
}

# ----------------------------------------------------------------------------- bytes

MAX_BYTES = 2 * 1024**3  # per file read whole, after decompression (SEGEVAL_MAX_INPUT_BYTES)
MAX_LINE = 16 * 1024**2  # per line (SEGEVAL_MAX_LINE_BYTES)
#: a gzip file may expand at most this many times once it has given GZIP_RATIO_FROM bytes
#: (SEGEVAL_MAX_GZIP_RATIO); real runs and qrels expand 3 to 15 times, deflate at most about 1032
MAX_GZIP_RATIO = 100
GZIP_RATIO_FROM = 16 * 1024**2
BLOCK_BYTES = 4 * 1024**2
#: the name that means standard input
STDIN = "-"

#: magic numbers of compressions segeval does not read (it reads plain text and gzip)
_OTHER_COMPRESSIONS = (
    (re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), "bzip2", "bunzip2"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz", "unxz"),
    (re.compile(rb"PK(?:\x03\x04|\x05\x06|\x07\x08)"), "zip", "unzip"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "unzstd"),
    (re.compile(rb"\x04\x22\x4d\x18"), "lz4", "unlz4"),
    (re.compile(rb"7z\xbc\xaf\x27\x1c"), "7-zip", "7z x"),
    (re.compile(rb"\x1f\x9d"), "compress (.Z)", "uncompress"),
)
_MAGIC_BYTES = 10  # enough for every magic number above

#: content of the streams (pipes, standard input) read so far, by name: they cannot be read again
_STREAMS: dict[str, bytes] = {}


def _env_bytes(name: str, default: int) -> int:
    """A positive whole number of bytes from environment variable ``name``, else ``default``."""
    text = os.environ.get(name)
    if text is None:
        return default
    if not re.fullmatch(r"[0-9]{1,18}", text.strip()) or int(text) < 1:
        raise ParameterError(f"The {name} environment variable must be a whole number >= 1 (default {default}). "
                             f"Got {text!r} instead.")
    return int(text)


def _limits() -> tuple[int, int]:
    """The input limits in force: bytes per file read whole, bytes per line (environment variables
    ``SEGEVAL_MAX_INPUT_BYTES`` and ``SEGEVAL_MAX_LINE_BYTES`` override the defaults)."""
    return _env_bytes("SEGEVAL_MAX_INPUT_BYTES", MAX_BYTES), _env_bytes("SEGEVAL_MAX_LINE_BYTES", MAX_LINE)


def _size(n: int) -> str:
    return f"{n / 1024**3:.4g} GiB" if n >= 1024**3 else f"{n / 1024**2:.4g} MiB" if n >= 1024**2 else f"{n} bytes"


def reset_streams() -> None:
    """Forget the streams read so far (one CLI command reads each stream once)."""
    _STREAMS.clear()


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` is standard input (``-``) or names a pipe, socket or device: something read
    once, front to back, whose size is unknown (never opened here, so a FIFO does not block)."""
    name = str(path)
    if name == STDIN:
        return True
    try:
        mode = os.stat(name).st_mode
    except (OSError, ValueError):
        return False  # opening it explains
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def open_input(path: str | Path) -> tuple[BinaryIO, bool]:
    """The file opened for reading (``-``: standard input) and whether it is a regular file.

    Errors name the file and say why: no such file, a directory, a symbolic link loop, a name too
    long, no permission.
    """
    name = str(path)
    if name == STDIN:
        return sys.stdin.buffer, False
    if not name:
        raise InputError("''", "is an empty file name; expected the path of a file")
    try:
        fh = open(name, "rb")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise InputError(name, _os_problem(exc)) from None
    except ValueError:  # a NUL in the name
        raise InputError(name.replace("\x00", "\\0"), "holds a NUL character; expected the path of a file") from None
    try:
        mode = os.fstat(fh.fileno()).st_mode
    except OSError as exc:
        fh.close()
        raise InputError(name, _os_problem(exc)) from None
    if stat.S_ISDIR(mode):
        fh.close()
        raise InputError(name, "is a directory, expected a file")
    return fh, stat.S_ISREG(mode)


def _os_problem(exc: OSError) -> str:
    """What an OSError from opening or reading a file means, for a message."""
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.EISDIR:
        return "is a directory, expected a file"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop (too many levels of symbolic links); expected a file"
    if exc.errno == errno.ENAMETOOLONG:
        return "is a file name too long for the system; expected a shorter path"
    if exc.errno == errno.ENOTDIR:
        return "no such file (a part of the path is not a directory)"
    return f"cannot be read: {exc.strerror or exc}"


class _Checks:
    """The limits every byte read passes, block by block, before anything is kept: the line length,
    no NUL byte (a binary file), at most ``max_bytes`` in all (None: no limit)."""

    def __init__(self, name: str, max_bytes: int | None, max_line: int) -> None:
        self.name, self.max_bytes, self.max_line = name, max_bytes, max_line
        self.total = 0  # bytes seen
        self.lines = 0  # newlines seen
        self.tail = 0  # bytes of the current line so far
        self.head = b""  # its first bytes (for a message)
        self.started = False
        self.gzip = False  # the bytes are decompressed ones
        self.uncounted = b""  # the last block, whose newlines are counted when the next one comes

    def __call__(self, block: bytes) -> bytes:
        self.lines += self.uncounted.count(b"\n")
        self.uncounted = b""
        if not self.started and block:
            self.started = True
            if block.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark is not data
                block = block[3:]
        nul = block.find(b"\x00")
        if nul >= 0:
            self._nul(block, nul)
        last = block.rfind(b"\n")
        if self.tail + len(block) > self.max_line:
            self._long_line(block, last)
        self.total += len(block)
        if self.max_bytes is not None and self.total > self.max_bytes:
            what = "decompresses to more than {} (a gzip bomb?)" if self.gzip else "is larger than {}"
            raise InputError(self.name, f"{what.format(_size(self.max_bytes))}; expected a smaller file "
                                        f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)")
        if last < 0:
            if len(self.head) < 256:
                self.head += block[:256 - len(self.head)]
            self.tail += len(block)
        else:
            self.uncounted = block  # (a file read whole is not counted)
            self.tail = len(block) - last - 1
            self.head = block[last + 1:last + 257]
        return block

    def _nul(self, block: bytes, at: int) -> None:
        start = block.rfind(b"\n", 0, at) + 1
        end = block.find(b"\n", at)
        before = self.head if start == 0 else b""
        line = (before + block[start:len(block) if end < 0 else end][:1024]).rstrip(b"\r")
        text = line.decode("utf-8", "replace").replace("\x00", "\\0")
        raise InputError(self.name, "contains a NUL byte; expected a text line",
                         line=self.lines + block.count(b"\n", 0, at) + 1, text=text, kind="NUL byte")

    def _long_line(self, block: bytes, last: int) -> None:
        if last < 0 or (block.find(b"\n") + self.tail > self.max_line):
            over = 0  # the line that was open when the block began
        elif len(block) - last - 1 <= self.max_line and not _may_have_long_line(block, self.max_line):
            return
        else:
            ends = np.concatenate([[-1 - self.tail], np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10),
                                   [len(block)]])
            found = np.flatnonzero(np.diff(ends) - 1 > self.max_line)
            if not len(found):
                return
            over = int(found[0])
        raise InputError(self.name, f"line {self.lines + over + 1} is longer than {_size(self.max_line)}; expected "
                                    f"text lines (SEGEVAL_MAX_LINE_BYTES raises the limit)")


def _may_have_long_line(raw: bytes, max_line: int) -> bool:
    """Cheap probe: a line longer than ``max_line`` contains a whole aligned window of half that
    length without a newline; each probe stops at its first newline."""
    width = max(1, max_line // 2)
    return any(raw.find(b"\n", pos, pos + width) < 0 for pos in range(0, len(raw) - width + 1, width))


def read_blocks(path: str | Path, *, max_bytes: int | None, block: int = BLOCK_BYTES,
                on_read: Callable[[int], object] | None = None, whole: bool = False) -> Iterator[bytes]:
    """The file's text in blocks, gunzipped on the fly when it starts with the gzip magic number,
    from any readable file: a regular file, a pipe, a FIFO, a device, ``-`` (standard input).

    Nothing is assumed about its size: the first bytes are read, looked at and then given back.
    Every block passes the limits before it is given out: lines of at most ``SEGEVAL_MAX_LINE_BYTES``
    (16 MiB), no NUL byte, at most ``max_bytes`` bytes in all (after decompression; None: no limit),
    a gzip file expanding at most ``SEGEVAL_MAX_GZIP_RATIO`` (100) times.  Files compressed otherwise
    (bzip2, xz, zip, zstd ...), a gzip file with other bytes after its data and a truncated or corrupt
    gzip file are refused.  ``on_read`` is told how many bytes of the file each read took.  With
    ``whole``, a regular uncompressed file comes in one block (read at once, below ``max_bytes``).
    """
    name = str(path)
    max_line = _limits()[1]
    checks = _Checks(name, max_bytes, max_line)
    fh, regular = open_input(path)

    def read(size: int) -> bytes:
        try:
            raw: bytes = fh.read(size)
        except OSError as exc:
            raise InputError(name, _os_problem(exc)) from None
        if on_read is not None:
            on_read(len(raw))
        return raw

    try:
        head = read(block)
        while 0 < len(head) < _MAGIC_BYTES:  # a pipe may give a few bytes at a time
            more = read(block)
            if not more:
                break
            head += more
        if head[:2] == b"\x1f\x8b":
            checks.gzip = True
            yield from _gunzip_blocks(head, read, block, name, checks)
            return
        for pattern, kind, tool in _OTHER_COMPRESSIONS:
            if pattern.match(head):
                raise InputError(name, f"is {kind}-compressed; expected plain text or gzip (decompress it first, "
                                       f"such as with {tool})")
        if name.endswith(".gz") and head:
            raise InputError(name, "has a .gz name but is not gzip-compressed; expected a gzip file")
        if regular and max_bytes is not None:
            try:
                size = os.fstat(fh.fileno()).st_size
            except OSError as exc:
                raise InputError(name, _os_problem(exc)) from None
            if size > max_bytes:  # a regular file's size is known: refuse before reading it
                raise InputError(name, f"is larger than {_size(max_bytes)}; expected a smaller file "
                                       f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)")
            if whole:  # one read of a regular file, no copy
                fh.seek(0)
                head = read(-1)
        while head:
            yield checks(head)
            head = read(block)
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def _gunzip_blocks(head: bytes, read: Callable[[int], bytes], block: int, name: str,
                   check: Callable[[bytes], bytes]) -> Iterator[bytes]:
    """Decompress concatenated gzip members block by block (at most ``block`` bytes each), each block
    passing ``check`` first, at most ``SEGEVAL_MAX_GZIP_RATIO`` times the bytes read; anything but a
    gzip member after one is refused."""
    ratio = _env_bytes("SEGEVAL_MAX_GZIP_RATIO", MAX_GZIP_RATIO)
    d = zlib.decompressobj(wbits=31)
    data, consumed, produced = head, len(head), 0  # consumed: bytes read from the file
    try:
        while True:
            while data:
                out = d.decompress(data, block)
                data = d.unconsumed_tail
                if out:
                    out = check(out)
                    produced += len(out)
                    used = consumed - len(data)  # bytes of the file decompressed so far
                    if produced > GZIP_RATIO_FROM and produced > ratio * used:
                        raise InputError(name, f"expands more than {ratio} times (its first {_size(used)} give "
                                               f"{_size(produced)}: a gzip bomb?); expected a gzip file of text "
                                               f"(SEGEVAL_MAX_GZIP_RATIO raises the limit)")
                    yield out
                if d.eof:
                    # everything after the member is in unused_data (unconsumed_tail may hold a stale copy
                    # of its end when the output was capped as the member ended)
                    rest = d.unused_data
                    while len(rest) < 2:
                        more = read(block)
                        if not more:
                            break
                        consumed += len(more)
                        rest += more
                    if not rest:
                        return
                    if rest[:2] != b"\x1f\x8b":
                        at = consumed - len(rest)
                        shown = rest[:40].decode("utf-8", "replace")
                        raise InputError(name, f"has other data after its gzip data, from byte {at + 1} of the "
                                               f"file: {shown!r}; expected only gzip members (as 'cat a.gz b.gz' "
                                               f"makes)")
                    d, data = zlib.decompressobj(wbits=31), rest
            data = read(block)
            consumed += len(data)
            if not data:
                break
        rest = d.flush()  # output zlib may still hold when the input ended with the output capped
        if rest:
            yield check(rest)
    except zlib.error as exc:
        reason = str(exc).split(": ", 1)[-1]  # zlib's "Error -3 while decompressing data: <reason>"
        raise InputError(name, f"is not a valid gzip file ({reason}); expected a complete .gz file") from None
    if not d.eof:
        raise InputError(name, "is not a valid gzip file (it ends before the end-of-stream marker); expected "
                               "a complete .gz file")


def read_bytes(path: str | Path) -> bytes:
    """The file's content (any readable file, ``-`` for standard input), gunzipped when it starts
    with the gzip magic number; the limits of :func:`read_blocks`, at most ``SEGEVAL_MAX_INPUT_BYTES``
    (2 GiB) after decompression.

    A stream (a pipe, standard input) is read once: its content is kept, and reading it again
    gives the same bytes (until :func:`reset_streams`).
    """
    name = str(path)
    stream = is_stream(name)
    if stream and name in _STREAMS:
        return _STREAMS[name]
    blocks = list(read_blocks(path, max_bytes=_limits()[0], whole=True))
    data = blocks[0] if len(blocks) == 1 else b"".join(blocks)
    if stream:
        _STREAMS[name] = data
    return data


def source_line(path: str | Path, number: int) -> str:
    """Line ``number`` (1-based) of the file, decoded leniently, for error messages."""
    lines = read_bytes(path).split(b"\n")
    if 1 <= number <= len(lines):
        return lines[number - 1].rstrip(b"\r").decode("utf-8", "replace")
    return ""


# ------------------------------------------------------------------------ slow path

_INT = re.compile(r"[+-]?[0-9]{1,18}\Z")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_MMSS = re.compile(r"([0-9]{1,12})\.([0-9]{1,2})\Z")


def parse_mmss(token: str) -> int | None:
    """Seconds of an ``M.S`` time, or None when ``token`` is not one."""
    m = _MMSS.match(token)
    if m is None:
        return None
    seconds = int(m.group(2))
    if seconds > 59:
        return None
    return int(m.group(1)) * 60 + seconds


def _parse_int(token: str) -> int | None:
    return int(token) if _INT.match(token) else None


def _parse_float(token: str) -> float | None:
    if not _FLOAT.match(token):
        return None
    value = float(token)
    return value if np.isfinite(value) else None


_SECONDS = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?\Z")
_HMS = re.compile(r"([0-9]{1,9}):([0-5][0-9]):([0-5][0-9](?:\.[0-9]{1,9})?)\Z")


def parse_seconds(token: str) -> float | None:
    """Seconds written as a plain decimal number (no sign, no exponent), or None."""
    return float(token) if _SECONDS.match(token) else None


def parse_hms(token: str) -> float | None:
    """Seconds of an ``H:MM:SS(.fff)`` time, or None."""
    m = _HMS.match(token)
    if m is None:
        return None
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


def format_time(seconds: float, time_format: str) -> str:
    """``seconds`` written in ``time_format`` so that parsing it gives the value back (mmss: whole
    seconds; seconds and hms: up to 9 decimals)."""
    check_choice("time_format", time_format, TIME_FORMATS)
    if time_format == "mmss":
        whole = round(seconds)
        if whole != seconds:
            raise ParameterError(f"The 'seconds' parameter must be a whole number for the mmss time format. "
                                 f"Got {seconds!r} instead.")
        return f"{whole // 60}.{whole % 60:02d}"
    if time_format == "seconds":
        return f"{seconds:.9f}".rstrip("0").rstrip(".")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:012.9f}".rstrip("0").rstrip(".")
    return f"{int(hours)}:{int(minutes):02d}:{text}"


_TIME_PARSERS: dict[str, Callable[[str], float | int | None]] = {
    "mmss": parse_mmss, "seconds": parse_seconds, "hms": parse_hms}
TIME_NAMES = {"mmss": "an M.S time", "seconds": "a time in seconds", "hms": "an H:MM:SS time"}
_MMSS_OVER = re.compile(r"[0-9]{1,12}\.([0-9]{2})\Z")


def time_hint(token: str, time_format: str) -> str:
    """What a time token that does not read in ``time_format`` may be instead ('' when nothing):
    negative, seconds above 59 in an M.S time, or a time in another format (with its option)."""
    if token.startswith("-") and any(parse(token[1:]) is not None for parse in _TIME_PARSERS.values()):
        return "; a time cannot be negative"
    others = [f for f in TIME_FORMATS if f != time_format and _TIME_PARSERS[f](token) is not None]
    over = _MMSS_OVER.match(token) if time_format == "mmss" else None
    why = f"; {over.group(1)} seconds is not possible in an M.S time" if over else ""
    if not others:
        return why
    return f"{why}; '{token}' would be " + " or ".join(f"{TIME_NAMES[f]} (--time-format {f})" for f in others)


_PARSERS: dict[str, Callable[[str], object]] = {"int": _parse_int, "float": _parse_float}


OnError = Callable[[InputError], None]


def _slow_parse(data: bytes, fmt: LineFormat, path: str, time_format: str = "mmss",
                on_error: OnError | None = None) -> dict[str, list[object]]:
    """The line parser that defines the syntax.  A bad line raises, or with ``on_error``
    is reported to it and skipped."""
    columns: dict[str, list[object]] = {f.name: [] for f in fmt.fields if f.kind != "ignore"}
    columns["line"] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            row = _parse_line(raw, number, fmt, path, time_format)
        except InputError as exc:
            if on_error is None:
                raise
            on_error(exc)
            continue
        if row is None:
            continue
        for name, value in row.items():
            columns[name].append(value)
        columns["line"].append(number)
    return columns


def _parse_line(raw: bytes, number: int, fmt: LineFormat, path: str, time_format: str) -> dict[str, object] | None:
    """One line's values by field name, None for a blank line; InputError when malformed."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = raw.decode("utf-8", "replace").rstrip("\r")
        raise InputError(path, f"is not valid UTF-8 text (byte {exc.start + 1} of the line); expected UTF-8",
                         line=number, text=shown, kind="encoding") from None
    text = text.rstrip("\r")
    tokens = [t.decode("utf-8") for t in raw.rstrip(b"\r").split()]  # ASCII white space only
    if not tokens:
        return None
    if "\r" in text:
        raise InputError(path, "contains a carriage return inside the line (old Mac line ends?); "
                               "expected lines ending in LF or CRLF", line=number, text=text.replace("\r", "\\r"),
                         kind="line ends")
    if "\x00" in text:
        raise InputError(path, "contains a NUL byte; expected a text line", line=number,
                         text=text.replace("\x00", "\\0"), kind="NUL byte")
    if not fmt.accepts(len(tokens)):
        raise InputError(path, f"has {len(tokens)} fields; expected {fmt.describe_counts()} fields for a {fmt.name} "
                               f"line, such as '{fmt.example}'", line=number, text=text, kind="field count")
    row: dict[str, object] = {}
    for i, field in enumerate(fmt.fields):
        if field.kind == "ignore":
            continue
        if i >= len(tokens):
            row[field.name] = ""
            continue
        token = tokens[i]
        parser = _TIME_PARSERS[time_format] if field.kind == "time" else _PARSERS.get(field.kind)
        if parser is None:
            row[field.name] = token
            continue
        value = parser(token)
        if value is None:
            expected = EXPECTED[time_format if field.kind == "time" else field.kind]
            hint = time_hint(token, time_format) if field.kind == "time" else ""
            raise InputError(path, f"field {i + 1} ({field.name}) is '{token}'; expected {expected}{hint}",
                             line=number, text=text, kind=f"bad {field.name}")
        row[field.name] = value
    return row


# ------------------------------------------------------------------------ fast path

def _byte_matrix(values: npt.NDArray[np.bytes_], max_width: int) -> npt.NDArray[np.uint8] | None:
    """Fixed-width tokens as an (n, width) byte matrix; None when too wide or a NUL is not padding."""
    width = values.dtype.itemsize
    if width > max_width or width == 0:
        return None
    b = values.view(np.uint8).reshape(len(values), width)
    nul = b == 0
    if not (nul[:, :-1] <= nul[:, 1:]).all():
        return None
    return b


def mmss_to_seconds(values: npt.NDArray[np.bytes_]) -> npt.NDArray[np.int64] | None:
    """Vectorised :func:`parse_mmss` over a bytes array; None when any entry is not an M.S time.

    The bytes are validated (digits, one dot, 1-12 minute and 1-2 second digits);
    the value comes from NumPy's float parser: minutes = floor(x) and seconds =
    round(fraction * 10 ** digits), exact since the float error stays far below
    half a second for 12-digit minutes.
    """
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    b = _byte_matrix(values, 15)
    if b is None:
        return None
    is_dot = b == 46
    if not bool((((b >= 48) & (b <= 57)) | is_dot | (b == 0)).all()) or not bool((is_dot.sum(axis=1) == 1).all()):
        return None
    dot_at = is_dot.argmax(axis=1)
    frac_digits = (b != 0).sum(axis=1) - dot_at - 1
    if (dot_at < 1).any() or (dot_at > 12).any() or (frac_digits < 1).any() or (frac_digits > 2).any():
        return None
    x = values.astype(np.float64)
    minutes = np.floor(x)
    seconds = np.rint((x - minutes) * np.where(frac_digits == 2, 100.0, 10.0)).astype(np.int64)
    if (seconds > 59).any():
        return None
    return minutes.astype(np.int64) * 60 + seconds


def int_tokens(values: npt.NDArray[np.bytes_]) -> npt.NDArray[np.int64] | None:
    """Vectorised strict integer parse (optional sign, 1-18 digits); None when any entry is not one."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    b = _byte_matrix(values, 19)
    if b is None:
        return None
    signed = (b[:, 0] == 45) | (b[:, 0] == 43)
    digit = (b >= 48) & (b <= 57)
    ok = digit | (b == 0)
    ok[:, 0] |= signed
    n_digits = digit.sum(axis=1)
    if not bool(ok.all()) or (n_digits < 1).any() or (n_digits > 18).any():
        return None
    return values.astype(np.int64)


#: the byte path reads each field at twice the longest token of a sample (at least 8, at most 64 bytes)
SAMPLE_BYTES = 1 << 15
MAX_TOKEN_WIDTH = 64

Column = npt.NDArray[Any] | pd.Categorical


def _fast_parse(data: bytes, fmt: LineFormat, sep: str = r"\s+",
                time_format: str = "mmss") -> dict[str, Column] | None:
    """Columns via pandas' C tokenizer, or None when anything is unusual.

    With ``sep=" "`` (twice as fast) any irregular spacing leaves an empty cell
    in a required column or a token in the spare column, and the caller retries.
    Text fields come back as :class:`pandas.Categorical` with categories in code-point
    order (see :func:`category_bytes`).
    """
    lone_cr = b"\r" in data and data.count(b"\r") != data.count(b"\r\n")
    if lone_cr or b"\x00" in data or b"\x0b" in data or b"\x0c" in data:
        return None  # lone carriage returns, NUL bytes, vertical tabs and form feeds: the line parser decides
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    out = _fast_parse_bytes(data, fmt, sep, time_format)
    return out if out is not None else _fast_parse_objects(data, fmt, sep, time_format)


def _sample_widths(data: bytes, n_fields: int) -> list[int] | None:
    """Per field, a byte width for the tokenizer: twice the longest token in the first and last
    :data:`SAMPLE_BYTES` of the file, rounded up to 8; None when that exceeds :data:`MAX_TOKEN_WIDTH`."""
    lines = data[:SAMPLE_BYTES].split(b"\n")[:-1] + data[-SAMPLE_BYTES:].split(b"\n")[1:]
    longest = [0] * n_fields
    for line in lines:
        for i, token in enumerate(line.split()[:n_fields]):
            longest[i] = max(longest[i], len(token))
    widths = [max(8, -(-2 * n // 8) * 8) for n in longest]
    return widths if max(widths) <= MAX_TOKEN_WIDTH else None


def _read_csv(data: bytes, sep: str, dtypes: dict[int, Any], n_columns: int) -> pd.DataFrame | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pd.read_csv(
                io.BytesIO(data), sep=sep, header=None, names=list(range(n_columns)), dtype=dtypes,
                quoting=csv.QUOTE_NONE, na_filter=False, engine="c", index_col=False,
                encoding="utf-8", skip_blank_lines=True, low_memory=False,
            )
    except Exception:  # any tokenizer or conversion trouble: let the strict parser explain it
        return None


def _fast_parse_bytes(data: bytes, fmt: LineFormat, sep: str, time_format: str) -> dict[str, Column] | None:
    """The fast path without per-row Python objects: tokens as fixed-width bytes, each distinct
    token decoded and parsed once.  None when a token may be longer than its field's width
    (the object path decides) or anything is unusual."""
    n_fields = len(fmt.fields)
    widths = _sample_widths(data, n_fields)
    if widths is None:
        return None
    one = np.dtype("S1")  # ignored fields and the spare column: only whether a token is there matters
    dtypes: dict[int, Any] = {i: np.float64 if f.kind == "float" else one if f.kind == "ignore"
                              else np.dtype(f"S{widths[i]}") for i, f in enumerate(fmt.fields)}
    dtypes[n_fields] = one  # a spare column: any value in it means too many fields
    df = _read_csv(data, sep, dtypes, n_fields + 1)
    if df is None or len(df) == 0:
        return None
    rows = len(df)
    if not fmt.trailing and (df[n_fields].to_numpy() != b"").any():
        return None
    out: dict[str, Column] = {}
    required = len(fmt.fields) - fmt.optional
    for i, f in enumerate(fmt.fields):
        col = df[i].to_numpy()
        del df[i]  # each column leaves the frame once read: lower peak memory
        if f.kind == "float":
            floats = np.asarray(col, dtype=np.float64)
            if not np.isfinite(floats).all():
                return None
            out[f.name] = floats
            continue
        if col.dtype.kind != "S":
            return None
        if f.kind == "ignore":
            if (col == b"").any():
                return None
            continue
        width = widths[i]
        if col.dtype.itemsize != width or col.view(np.uint8)[width - 1 :: width].any():
            return None  # a token may have been cut at the width
        codes, distinct = factorize_bytes(col, sort=f.kind == "str")
        if f.kind == "str":
            if i < required and len(distinct) and distinct[0] == b"":
                return None  # sorted first: an empty cell in a required column
            names = decode_tokens(distinct)
            if names is None:
                return None
            out[f.name] = categorical(codes, names, distinct)
            continue
        parsed = _parse_distinct(f.kind, distinct, time_format)
        if parsed is None:
            return None
        out[f.name] = parsed[codes]
    # the tokenizer pads a missing optional last field; too few required fields failed above
    out["line"] = _line_numbers(data, rows)
    if len(out["line"]) != rows:
        return None
    return out


def _fast_parse_objects(data: bytes, fmt: LineFormat, sep: str, time_format: str) -> dict[str, Column] | None:
    """The fast path with one Python string per cell (any token length)."""
    n_fields = len(fmt.fields)
    # ignored fields as categories (no per-row objects); times and integers are factorised below
    # (pandas would turn numeric-looking categories into numbers, and '32.30' is not '32.3')
    kind_dtype = {"float": np.float64, "str": object, "time": object, "int": object, "ignore": "category"}
    dtypes: dict[int, Any] = {i: kind_dtype[f.kind] for i, f in enumerate(fmt.fields)}
    dtypes[n_fields] = object  # a spare column: any value in it means too many fields
    df = _read_csv(data, sep, dtypes, n_fields + 1)
    if df is None or len(df) == 0 or (not fmt.trailing and _present(df[n_fields]).any()):
        return None
    out: dict[str, Column] = {}
    required = len(fmt.fields) - fmt.optional
    for i, f in enumerate(fmt.fields):
        col = df[i]
        if f.kind == "ignore":
            if "" in col.cat.categories:
                return None
            continue
        if f.kind == "str":
            values = col.to_numpy(dtype=object)
            missing = ~_present(col)
            if missing.any():
                if i < required:
                    return None
                values = np.where(missing, "", values)
            out[f.name] = values
        elif f.kind in ("time", "int"):
            # times and ranks repeat: parse each distinct token once
            codes, distinct = pd.factorize(col.to_numpy(dtype=object))
            try:
                as_bytes = np.asarray(distinct, dtype=object).astype("S")
            except (UnicodeEncodeError, ValueError):
                return None
            parsed = _parse_distinct(f.kind, as_bytes, time_format)
            if parsed is None or (codes < 0).any():
                return None
            out[f.name] = parsed[codes]
        else:
            floats = col.to_numpy(dtype=np.float64)
            if not np.isfinite(floats).all():
                return None
            out[f.name] = floats
    # the tokenizer pads a missing optional last field; too few required fields failed above
    out["line"] = _line_numbers(data, len(df))
    if len(out["line"]) != len(df):
        return None
    return out


def factorize_bytes(values: npt.NDArray[np.bytes_],
                    sort: bool = True) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bytes_]]:
    """(codes, distinct) of fixed-width byte tokens, ``distinct`` as wide as the longest token and,
    with ``sort``, in byte order (which is code-point order for UTF-8), so that code order is token order.

    Byte positions equal in every token do not change the order and are dropped; when at most
    eight remain they are packed big-endian into one integer key per token.
    """
    n, size = len(values), values.dtype.itemsize
    if n == 0:
        return np.zeros(0, dtype=np.intp), values[:0]
    if size % 8:
        values = values.astype(f"S{size + 8 - size % 8}")
    words = values.view("<u8").reshape(n, -1)
    # the bits that differ from the first token, word by word (no n-by-width temporary)
    diff = [int(np.bitwise_or.reduce(words[:, j] ^ words[0, j])) for j in range(words.shape[1])]
    varying = [8 * j + k for j, d in enumerate(diff) for k in range(8) if (d >> (8 * k)) & 0xFF]
    first = bytes(values[0])
    width = max(varying[-1] + 1 if varying else 1, len(first), 1)  # the longest token
    if not varying:
        return np.zeros(n, dtype=np.intp), values[:1].astype(f"S{width}")
    key: npt.NDArray[Any]
    if len(varying) <= 8:
        key = np.zeros(n, dtype=np.uint64)
        for j in sorted({p // 8 for p in varying}):
            big = words[:, j].byteswap().view(np.uint64)  # byte k of the token at bits 8 * (7 - k)
            ks = [p % 8 for p in varying if p // 8 == j]
            runs: list[list[int]] = []
            for k in ks:
                if runs and runs[-1][-1] == k - 1:
                    runs[-1].append(k)
                else:
                    runs.append([k])
            for run in runs:
                bits = 8 * len(run)
                part = (big >> np.uint64(8 * (7 - run[-1]))) & np.uint64((1 << bits) - 1)
                key = (key << np.uint64(bits)) | part
    else:
        b = values.view(np.uint8).reshape(n, -1)
        key = np.ascontiguousarray(b[:, varying]).view(f"S{len(varying)}").ravel()
    if key.dtype.kind == "S" or (sort and len(np.unique(key[:10_000])) > 1_000):  # many distinct: sort, not hash
        codes = np.unique(key, return_inverse=True)[1].ravel()
    else:
        codes, keys = pd.factorize(key)
        if sort:
            order = np.argsort(keys)
            rank = np.empty(len(order), dtype=np.intp)
            rank[order] = np.arange(len(order))
            codes = rank[codes]
    where = np.empty(int(codes.max()) + 1, dtype=np.intp)
    where[codes] = np.arange(n)  # a position of each distinct token (equal keys are equal tokens)
    return codes, values[where].astype(f"S{width}")


def _parse_distinct(kind: str, distinct: npt.NDArray[np.bytes_], time_format: str) -> npt.NDArray[np.generic] | None:
    """Distinct ``int`` or ``time`` byte tokens as numbers, or None when one does not parse."""
    if kind == "int":
        return int_tokens(distinct)
    if time_format == "mmss":
        return mmss_to_seconds(distinct)
    texts = decode_tokens(distinct)
    if texts is None:
        return None
    values = [_TIME_PARSERS[time_format](str(t)) for t in texts.tolist()]
    return None if any(v is None for v in values) else np.asarray(values, dtype=np.float64)


def decode_tokens(values: npt.NDArray[np.bytes_]) -> npt.NDArray[np.object_] | None:
    """Byte tokens (without newlines) as Python strings, or None when one is not valid UTF-8."""
    n = len(values)
    b = np.empty((n, values.dtype.itemsize + 1), dtype=np.uint8)
    b[:, :-1] = values.view(np.uint8).reshape(n, values.dtype.itemsize)
    b[:, -1] = 10
    flat = b.ravel()
    try:
        text = flat[flat != 0].tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return None
    out = np.empty(n, dtype=object)
    out[:] = text.split("\n")[:-1]
    return out


_BYTES: dict[int, tuple[weakref.ref[pd.Index], npt.NDArray[np.bytes_]]] = {}


def categorical(codes: npt.NDArray[np.integer[Any]], names: npt.NDArray[np.object_],
                tokens: npt.NDArray[np.bytes_] | None = None) -> pd.Categorical:
    """A Categorical of ``names[codes]``; ``names`` are distinct.  With ``tokens`` (the UTF-8 bytes
    of ``names``, in the same order, which must be byte order) :func:`category_bytes` returns them
    for the categories."""
    categories = pd.Index(names, dtype=object)
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)  # distinct already: skip pandas' check
    dtype = fast(categories, False) if fast is not None else pd.CategoricalDtype(categories)
    result = pd.Categorical.from_codes(codes, dtype=dtype, validate=False)
    if tokens is not None:
        kept: pd.Index = result.categories  # the object every slice of the Categorical shares
        key = id(kept)
        _BYTES[key] = (weakref.ref(kept, lambda _: _BYTES.pop(key, None)), tokens)
    return result


def category_bytes(categories: pd.Index) -> npt.NDArray[np.bytes_] | None:
    """The sorted fixed-width UTF-8 tokens of categories made by the fast reader, else None."""
    entry = _BYTES.get(id(categories))
    return entry[1] if entry is not None and entry[0]() is categories else None


def _present(col: pd.Series) -> npt.NDArray[np.bool_]:
    """Cells that hold a token (with ``na_filter=False`` the tokenizer pads missing fields with '')."""
    return np.asarray(col.to_numpy(dtype=object) != "", dtype=bool)


def _line_numbers(data: bytes, rows: int) -> npt.NDArray[np.int64]:
    newlines = data.count(b"\n")
    lines = newlines + (0 if data.endswith(b"\n") or not data else 1)
    if lines == rows:
        return np.arange(1, rows + 1, dtype=np.int64)
    numbers = [i for i, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
    return np.asarray(numbers, dtype=np.int64)


# --------------------------------------------------------------------------- public

def parse_table(
    data: bytes, fmt: LineFormat, path: str, time_format: str = "mmss", on_error: OnError | None = None
) -> dict[str, Column]:
    """Columns of a line-oriented file, keyed by field name plus ``line`` (1-based line numbers).

    Text fields are object arrays of strings, or (from the fast path) :class:`pandas.Categorical`.

    Time fields are read in ``time_format``: ``mmss`` (M.S), ``seconds`` or ``hms`` (H:MM:SS.fff).
    """
    check_choice("time_format", time_format, TIME_FORMATS)
    fast = _fast_parse(data, fmt, " ", time_format) if b"\t" not in data else None  # the usual single spaces
    if fast is None:
        fast = _fast_parse(data, fmt, r"\s+", time_format)
    if fast is not None:
        return fast
    slow = _slow_parse(data, fmt, path, time_format, on_error)
    if not slow["line"]:
        raise InputError(path, f"has no data lines; expected {fmt.name} lines such as '{fmt.example}'")
    result: dict[str, Column] = {}
    for name, values in slow.items():
        kind = next((f.kind for f in fmt.fields if f.name == name), "int")
        dtype = {"int": np.int64, "time": np.float64, "float": np.float64}.get(kind, object)
        result[name] = np.asarray(values, dtype=dtype)
    return result


def _frame(columns: Mapping[str, Column], names: tuple[str, ...], path: str) -> pd.DataFrame:
    n = len(columns["line"])
    frame: dict[str, object] = {}
    for name in names:
        values: Column
        if name in columns:
            values = columns[name]
        elif name in ("start", "end", "jumpin"):
            values = np.full(n, np.nan)
        elif name == "run":
            values = np.full(n, "", dtype=object)
        else:  # pragma: no cover - every format has the remaining columns
            raise KeyError(name)
        if name in ("start", "end", "jumpin"):
            values = np.asarray(values, dtype=np.float64)
        frame[name] = values
    df = pd.DataFrame(frame, copy=False)  # the arrays are fresh: no need to copy them into blocks
    for name in ("query", "item", "run"):  # strings (object, not pandas' str), or categories in code-point order
        if name in df and not isinstance(df[name].dtype, pd.CategoricalDtype):
            df[name] = df[name].astype(object)
    df.attrs["path"] = path
    return df


#: format detection reads the first DETECT_LINES data (non-blank) lines of a file
DETECT_LINES = 1000


def _data_lines(data: bytes, path: str, limit: int = DETECT_LINES) -> list[tuple[int, list[str]]]:
    """(line number, tokens) of the first ``limit`` non-blank lines; an error when there is none."""
    out: list[tuple[int, list[str]]] = []
    start, number = 0, 1
    while start < len(data) and len(out) < limit:
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        tokens = data[start:end].split()
        if tokens:
            out.append((number, [t.decode("utf-8", "replace") for t in tokens]))
        start, number = end + 1, number + 1
    if not out:
        raise InputError(path, "has no data lines; expected qrels or run lines")
    return out


def _disagree(path: str, first: tuple[int, list[str], str], other: tuple[int, list[str], str]) -> InputError:
    """Two lines that fit different formats: the error names both, at the later one."""
    (a, _, a_kind), (b, b_tokens, b_kind) = sorted([first, other])
    return InputError(path, f"looks like a {b_kind} line, but line {a} looks like a {a_kind} line; expected one "
                            f"format in a file (format detection reads the first {DETECT_LINES} data lines)",
                      line=b, text=" ".join(b_tokens), kind="mixed formats")


def _is_int(token: str) -> bool:
    return _parse_int(token) is not None


def _qrels_fit(tokens: list[str], by_count: bool = False) -> LineFormat | None:
    """The qrels format a line fits (by its field count, and with a grade that is an integer unless
    ``by_count``), or None."""
    n = len(tokens)
    if n in (5, 7) and (tokens[-1] == SOURCE_HUMAN or tokens[-1].startswith(SOURCE_PREDICTED)):
        fmt = TREC_QRELS_COMPLETED if n == 5 else MEDIAEVAL_QRELS_COMPLETED
    elif n in (4, 6):
        fmt = TREC_QRELS if n == 4 else MEDIAEVAL_QRELS
    else:
        return None
    return fmt if by_count or _is_int(tokens[len(fmt.fields) - 1 - (fmt in COMPLETED_FORMATS)]) else None


def _looks_like_groups(data: bytes, path: str) -> bool:
    """Ground-truth groups: the first data line has a '|', or another of the first :data:`DETECT_LINES`
    has one and none fits a qrels format (the first line is a header or a single group)."""
    lines = _data_lines(data, path)
    if "|" in " ".join(lines[0][1]):
        return True
    return (any("|" in " ".join(tokens) for _, tokens in lines)
            and not any(_qrels_fit(tokens) for _, tokens in lines))


def detect_qrels_format(data: bytes, path: str) -> LineFormat:
    """The qrels format of a file, from the field counts of its first :data:`DETECT_LINES` data lines
    (4: TREC, 6: MediaEval; one more for completed qrels, whose last field is ``human`` or
    ``predicted:CLASSIFIER``).  Lines that fit no format (a header) are left to the parser, which
    reports them; lines that fit different formats are an error naming one of each."""
    lines = _data_lines(data, path)
    found: dict[str, tuple[int, list[str], str]] = {}
    for number, tokens in lines:
        fmt = _qrels_fit(tokens)
        if fmt is not None and fmt.name not in found:
            found[fmt.name] = (number, tokens, fmt.name)
            if len(found) > 1:
                raise _disagree(path, *found.values())
    if found:
        return QRELS_FORMATS_BY_NAME[next(iter(found))]
    for _, tokens in lines:  # no line has an integer grade: the first whose field count fits decides
        fmt = _qrels_fit(tokens, by_count=True)
        if fmt is not None:
            return fmt
    number, tokens = lines[0]
    raise InputError(path, f"has {len(tokens)} fields; expected a qrels line: 4 fields (TREC, such as "
                           f"'{TREC_QRELS.example}') or 6 (MediaEval, such as '{MEDIAEVAL_QRELS.example}'), "
                           f"or one more ending in '{SOURCE_HUMAN}' or '{SOURCE_PREDICTED}CLASSIFIER' "
                           f"for completed qrels", line=number, text=" ".join(tokens), kind="field count")


_LOOSE_HMS = re.compile(r"[+-]?[0-9]+(?::[0-9]+)+(?:\.[0-9]*)?\Z")


def _loose_time(token: str) -> bool:
    """A number or an H:MM:SS-like token: a time in some format, or a malformed one."""
    return _parse_float(token) is not None or _LOOSE_HMS.match(token) is not None


def _mediaeval_fits(tokens: list[str], is_time: Callable[[str], bool]) -> list[LineFormat]:
    """The MediaEval run formats a line fits (times, ranks and scores where each format has them)."""
    n = len(tokens)

    def kinds(*checks: tuple[int, Callable[[str], bool]]) -> bool:
        return all(i < n and check(tokens[i]) for i, check in checks)

    def number(token: str) -> bool:
        return _parse_float(token) is not None

    return [f for f, ok in (
        (MEDIAEVAL_LINKING_RUN, n == 8 and kinds((3, is_time), (4, is_time), (5, _is_int), (6, number))),
        (MEDIAEVAL_SEARCH_RUN, n in (8, 9) and kinds((3, is_time), (4, is_time), (5, is_time), (6, _is_int),
                                                     (7, number))),
    ) if ok]


def detect_run_format(data: bytes, path: str, time_format: str = "mmss") -> LineFormat:
    """The run format of a file, from its first :data:`DETECT_LINES` data lines (times, ranks and
    scores where each format has them).

    A line with a MediaEval format's fields is a MediaEval line, also when its times do not read in
    ``time_format`` (the parser then says so) and when it would also fit TREC's format, whose extra
    fields are free text.  Lines that fit no format (a header) are left to the parser, which reports
    them; lines that fit different formats are an error naming one of each.
    """
    lines = _data_lines(data, path)
    parse_time = _TIME_PARSERS[time_format]

    def is_time(token: str) -> bool:
        return parse_time(token) is not None

    strict: list[tuple[int, list[str], list[LineFormat]]] = []
    loose: list[tuple[int, list[str], list[LineFormat]]] = []
    trec: tuple[int, list[str], str] | None = None
    for number, tokens in lines:
        fits = _mediaeval_fits(tokens, is_time)
        if fits:
            strict.append((number, tokens, fits))
            continue
        fits = _mediaeval_fits(tokens, _loose_time)
        if fits:
            loose.append((number, tokens, fits))
        elif trec is None and len(tokens) >= 6 and _is_int(tokens[3]) and _parse_float(tokens[4]) is not None:
            trec = (number, tokens, TREC_RUN.name)
    segments = strict or loose
    if segments and trec is not None:
        number, tokens, fits = min(strict[:1] + loose[:1])
        raise _disagree(path, trec, (number, tokens, fits[0].name))
    if trec is not None:
        return TREC_RUN
    if segments:
        common = [f for f in (MEDIAEVAL_LINKING_RUN, MEDIAEVAL_SEARCH_RUN) if all(f in fits for _, _, fits in segments)]
        if len(common) == 1 or (common and not strict):  # times that do not read: the parser says why
            return common[0]
        if not common:
            linking = next(x for x in segments if MEDIAEVAL_SEARCH_RUN not in x[2])
            search = next(x for x in segments if MEDIAEVAL_LINKING_RUN not in x[2])
            raise _disagree(path, (linking[0], linking[1], MEDIAEVAL_LINKING_RUN.name),
                            (search[0], search[1], MEDIAEVAL_SEARCH_RUN.name))
        number, tokens, _ = segments[0]
        raise InputError(path, "cannot tell a MediaEval linking run ('qid Q0 video start end rank score run') "
                               "from a search run ('qid Q0 video start end jumpin rank score'); "
                               "expected the format to be named (--run-format linking|search)",
                         line=number, text=" ".join(tokens))
    number, tokens = lines[0]
    raise InputError(path, f"does not look like a run line ({len(tokens)} fields); expected a TREC run line such "
                           f"as '{TREC_RUN.example}' or a MediaEval run line such as "
                           f"'{MEDIAEVAL_LINKING_RUN.example}' (times in {time_format} format)",
                     line=number, text=" ".join(tokens))


GROUPS_EXAMPLE = "q1 1,2 | 3,4,5"


def parse_groups(data: bytes, path: str) -> dict[str, npt.NDArray[np.generic]]:
    """A groups file: per line a query id, then groups in order (``|``), items in a group by ``,``.

    Each item becomes a qrels row whose grade orders the groups: with g groups the
    first group's items get grade g, the last group's grade 1.
    """
    columns: dict[str, list[object]] = {"query": [], "item": [], "rel": [], "line": []}
    seen_queries: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            raise InputError(path, "is not valid UTF-8 text; expected UTF-8", line=number,
                             text=raw.decode("utf-8", "replace")) from None
        if not text.strip():
            continue
        query, _, rest = text.strip().partition(" ") if " " in text.strip() else text.strip().partition("\t")
        groups = [[item.strip() for item in group.split(",")] for group in rest.split("|")]
        if not rest.strip() or any(not item or any(c.isspace() for c in item) for group in groups for item in group):
            raise InputError(path, f"expected a query id, then groups of items such as '{GROUPS_EXAMPLE}' "
                                   f"(items separated by commas, groups by '|', no empty item)", line=number, text=text)
        if query in seen_queries:
            raise InputError(path, f"query '{query}' appears again (first on line {seen_queries[query]}); expected "
                                   f"one line per query", line=number, text=text)
        seen_queries[query] = number
        items = [item for group in groups for item in group]
        if len(set(items)) != len(items):
            duplicate = next(item for item in items if items.count(item) > 1)
            raise InputError(path, f"item '{duplicate}' is in the ground truth twice; expected each item once",
                             line=number, text=text)
        for position, group in enumerate(groups):
            for item in group:
                columns["query"].append(query)
                columns["item"].append(item)
                columns["rel"].append(len(groups) - position)
                columns["line"].append(number)
    if not columns["line"]:
        raise InputError(path, f"has no data lines; expected ground-truth groups such as '{GROUPS_EXAMPLE}'")
    return {"query": np.asarray(columns["query"], dtype=object), "item": np.asarray(columns["item"], dtype=object),
            "rel": np.asarray(columns["rel"], dtype=np.int64), "line": np.asarray(columns["line"], dtype=np.int64)}


def read_qrels(path: str | Path, fmt: LineFormat | str = "auto", time_format: str = "mmss",
               on_error: OnError | None = None) -> pd.DataFrame:
    """Read a qrels file: columns query, item, start, end (seconds; NaN for documents), rel, line.

    ``fmt`` is a :class:`LineFormat`, a name of :data:`QRELS_FORMATS`, ``"groups"``
    (ordered ground-truth groups, see :func:`parse_groups`) or ``"auto"``.
    """
    name = str(path)
    data = read_bytes(path)
    if fmt == "auto":  # stratified qrels (sampled judgements): 5 fields, integer stratum and grade
        from segeval.io.strata import is_strata_qrels, strata_qrels_frame
        if is_strata_qrels(data):
            return strata_qrels_frame(data, name, on_error)
    if fmt == "groups" or (fmt == "auto" and _looks_like_groups(data, name)):
        df = _frame(parse_groups(data, name), QRELS_COLUMNS, name)
        df.attrs["format"] = "groups"
        return df
    if isinstance(fmt, str):
        fmt = detect_qrels_format(data, name) if fmt == "auto" else QRELS_FORMATS[fmt]
    columns = parse_table(data, fmt, name, time_format, on_error)
    df = _frame(columns, QRELS_COLUMNS, name)
    if "source" in columns:
        df["source"] = _check_sources(np.asarray(columns["source"], dtype=object), np.asarray(columns["line"]), data,
                                      name)
    df.attrs["format"] = fmt.name
    return df


def _check_sources(values: npt.NDArray[np.generic], lines: npt.NDArray[np.generic], data: bytes,
                   path: str) -> npt.NDArray[np.object_]:
    """The ``source`` field of completed qrels: ``human`` or ``predicted:CLASSIFIER``."""
    sources = np.asarray(values, dtype=object)
    for token in pd.unique(sources):
        text = str(token)
        if text != SOURCE_HUMAN and not (text.startswith(SOURCE_PREDICTED) and len(text) > len(SOURCE_PREDICTED)):
            number = int(np.asarray(lines)[np.flatnonzero(sources == token)[0]])
            raw = data.split(b"\n")[number - 1].rstrip(b"\r").decode("utf-8", "replace")
            raise InputError(path, f"has source '{text}'; expected '{SOURCE_HUMAN}' or "
                                   f"'{SOURCE_PREDICTED}CLASSIFIER' as the last field of completed qrels",
                             line=number, text=raw)
    return sources


def predicted_mask(qrels: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Per qrels line: judged by a classifier (``predicted:...`` in completed qrels), not by a person."""
    if "source" not in qrels:
        return np.zeros(len(qrels), dtype=bool)
    return np.asarray(qrels["source"].astype(str).str.startswith(SOURCE_PREDICTED).to_numpy(), dtype=bool)


def read_run(path: str | Path, fmt: LineFormat | str = "auto", time_format: str = "mmss",
             on_error: OnError | None = None) -> pd.DataFrame:
    """Read a run: columns query, item, start, end, jumpin (seconds), rank, score, run, line.

    ``fmt`` is a :class:`LineFormat`, a name of :data:`RUN_FORMATS`, or ``"auto"``.
    With ``on_error``, malformed lines are reported to it and skipped instead of raising.
    """
    name = str(path)
    data = read_bytes(path)
    if isinstance(fmt, str):
        fmt = detect_run_format(data, name, time_format) if fmt == "auto" else RUN_FORMATS[fmt]
    df = _frame(parse_table(data, fmt, name, time_format, on_error), RUN_COLUMNS, name)
    df.attrs["format"] = fmt.name
    return df
