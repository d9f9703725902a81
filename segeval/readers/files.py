"""The only code that opens input files: the opener, the input limits, gzip members, streams read
again, files in blocks or whole (the limits: docs/cli.md, streams: docs/engines.md#streams)."""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from segeval.core.errors import InputError, ParameterError
from segeval.core.words import plural

MAX_BYTES = 2 * 1024**3  # per file read whole, after decompression (SEGEVAL_MAX_INPUT_BYTES)
MAX_LINE = 16 * 1024**2  # per line (SEGEVAL_MAX_LINE_BYTES)
#: a gzip file may expand at most this many times once it has given GZIP_RATIO_FROM bytes
#: (SEGEVAL_MAX_GZIP_RATIO); real runs and qrels expand 3 to 15 times, deflate at most about 1032
MAX_GZIP_RATIO = 100
GZIP_RATIO_FROM = 16 * 1024**2
BLOCK_BYTES = 4 * 1024**2
#: a file whose first this many bytes are all white space is refused there (docs/input-checks.md)
BLANK_LIMIT = 64 * 1024**2
_BLANKS = b" \t\r\n\x0b\x0c"
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


class _Spool:
    """A stream (a pipe, standard input) and a copy of what was read from it in a temporary file, which a
    reader opened again replays before reading on."""

    def __init__(self, name: str, source: BinaryIO) -> None:
        import tempfile

        self.name, self.source = name, source
        try:
            self.copy = tempfile.TemporaryFile(prefix="segeval-stream-")  # noqa: SIM115 - closed by reset_streams
        except OSError as exc:
            raise self._no_copy(exc, "a writable TMPDIR") from None
        self.size = 0
        self.done = False
        self.refused: InputError | None = None

    def _no_copy(self, exc: OSError, expected: str) -> InputError:
        problem = f"cannot be copied to the temporary folder to read it again ({exc.strerror}); expected {expected}"
        return InputError(self.name, problem)

    def read_at(self, offset: int, n: int) -> bytes:
        """Up to ``n`` bytes from ``offset``: from the copy, else from the stream (copied as it goes)."""
        if offset < self.size:
            return os.pread(self.copy.fileno(), min(n, self.size - offset), offset)
        if self.refused is not None:
            raise self.refused  # a reader that gave up on it leaves no more bytes to read
        if self.done:
            return b""
        data = self.source.read(n)
        if not data:
            self.done = True
            return b""
        if self.size + len(data) > limits()[0]:  # the copy on disk is bounded as a stream read whole is
            self.refused = too_large(self.name, limits()[0])
            raise self.refused
        try:
            os.pwrite(self.copy.fileno(), data, self.size)
        except OSError as exc:
            raise self._no_copy(exc, "room in TMPDIR") from None
        self.size += len(data)
        return data


class _Replay:
    """One reading of a spooled stream, from its first byte, in blocks (:func:`read_blocks`)."""

    def __init__(self, spool: _Spool) -> None:
        self.spool, self.offset = spool, 0

    def close(self) -> None:
        pass  # the spool stays open for the next reading

    def read(self, size: int) -> bytes:
        data = self.spool.read_at(self.offset, size)
        self.offset += len(data)
        return data


#: the streams opened so far, by name, each with the copy that lets it be read again
_SPOOLS: dict[str, _Spool] = {}
#: the files read so far whose UTF-8 byte-order mark at the start was read away (a command may say so)
BOM_READ: set[str] = set()


def _env_bytes(name: str, default: int) -> int:
    """A whole number >= 1 from environment variable ``name``, else ``default`` (huge: ``sys.maxsize``)."""
    text = os.environ.get(name)
    if text is None:
        return default
    if not re.fullmatch(r"[0-9]{1,4300}", text.strip()) or int(text) < 1:
        raise ParameterError(
            f"The {name} environment variable must be a whole number >= 1 (default {default}). Got {text!r} instead."
        )
    return min(int(text), sys.maxsize)


def limits() -> tuple[int, int]:
    """The input limits in force: bytes per file read whole, bytes per line."""
    return _env_bytes("SEGEVAL_MAX_INPUT_BYTES", MAX_BYTES), _env_bytes("SEGEVAL_MAX_LINE_BYTES", MAX_LINE)


def size_text(n: int) -> str:
    return f"{n / 1024**3:.4g} GiB" if n >= 1024**3 else f"{n / 1024**2:.4g} MiB" if n >= 1024**2 else plural(n, "byte")


def reset_streams() -> None:
    """Forget the streams read so far (one CLI command reads each stream once) and their copies."""
    BOM_READ.clear()
    for spool in _SPOOLS.values():
        spool.copy.close()
        if spool.name != STDIN:
            spool.source.close()
    _SPOOLS.clear()


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` is standard input (``-``) or a pipe, socket or device (not opened: a FIFO does not block)."""
    name = str(path)
    if name == STDIN:
        return True
    try:
        mode = os.stat(name).st_mode
    except (OSError, ValueError):
        return False  # opening it explains
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def input_size(path: str | Path) -> int:
    """The size of the regular file ``path`` (for a progress line); 0 for a stream or a path not readable."""
    try:
        return os.path.getsize(path) if os.path.isfile(path) else 0
    except (OSError, ValueError):
        return 0


def stream_read(path: str | Path) -> tuple[int, bool] | None:
    """(bytes, whether gzip) of a stream this command read to its end, else None (size unknown)."""
    spool = _SPOOLS.get(str(path))
    if spool is None or not spool.done:
        return None
    return spool.size, spool.read_at(0, 2) == b"\x1f\x8b"


def open_input(path: str | Path) -> tuple[BinaryIO, bool]:
    """The file opened for reading (``-``: standard input) and whether it is a regular file; a stream opened
    again is read from its first byte (:class:`_Spool`)."""
    name = str(path)
    if name in _SPOOLS:
        return _Replay(_SPOOLS[name]), False  # type: ignore[return-value]  # a binary reader
    if name == STDIN:
        closed = sys.modules.get("segeval.cli.streams")
        if sys.stdin is None or (closed is not None and closed.stdin_closed()):
            raise InputError(
                "standard input (-)", "is closed; expected data on standard input (a pipe or a redirected file)"
            )
        _SPOOLS[name] = _Spool(name, sys.stdin.buffer)
        return _Replay(_SPOOLS[name]), False  # type: ignore[return-value]
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
    if not stat.S_ISREG(mode):
        _SPOOLS[name] = _Spool(name, fh)
        return _Replay(_SPOOLS[name]), False  # type: ignore[return-value]
    return fh, True


_OS_PROBLEMS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a directory, expected a file",
    errno.ELOOP: "is a symbolic link loop (too many levels of symbolic links); expected a file",
    errno.ENAMETOOLONG: "is a file name too long for the system; expected a shorter path",
    errno.ENOTDIR: "no such file (a part of the path is not a directory)",
}


def _os_problem(exc: OSError) -> str:
    """What an OSError from opening or reading a file means, for a message."""
    return _OS_PROBLEMS.get(exc.errno or 0, f"cannot be read: {exc.strerror or exc}")


_BOM = b"\xef\xbb\xbf"  # the UTF-8 byte-order mark


def nul_byte(path: str, number: int, text: str) -> InputError:
    """The refusal of line ``number`` holding a NUL byte (a binary file)."""
    return InputError(
        path,
        "contains a NUL byte; expected a text line",
        line=number,
        text=text.replace("\x00", "\\0"),
        kind="NUL byte",
    )


def newlines(data: bytes) -> int:
    """The LF bytes of ``data``: NumPy counts them about three times faster than ``bytes.count``."""
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 10))


class _Checks:
    """The limits every byte read passes, block by block, before anything is kept: the line length,
    no NUL byte (a binary file), at most ``max_bytes`` in all (None: no limit)."""

    def __init__(self, name: str, max_bytes: int | None, max_line: int, *, boms: bool = True) -> None:
        self.name, self.max_bytes, self.max_line = name, max_bytes, max_line
        self.boms = boms  # refuse a byte-order mark after the start (text lines; not inside a JSON document)
        self.previous = b""  # the last two bytes of the previous block (a mark split between blocks)
        self.total = 0  # bytes seen
        self.lines = 0  # newlines seen
        self.tail = 0  # bytes of the current line so far
        self.head = b""  # its first bytes (for a message)
        self.started = False
        self.gzip = False  # the bytes are decompressed ones
        self.uncounted = b""  # the last block, whose newlines are counted when the next one comes
        self.data = False  # a byte other than white space seen

    def __call__(self, block: bytes) -> bytes:
        self.lines += newlines(self.uncounted)
        self.uncounted = b""
        if not self.started and block:
            self.started = True
            if block.startswith(_BOM):  # a UTF-8 byte-order mark is not data
                block = block[3:]
                BOM_READ.add(self.name)
        nul = block.find(b"\x00")
        if nul >= 0:
            raise nul_byte(self.name, *self._line_at(block, nul))
        if self.boms:
            self._bom(block)
        if not self.data:
            self.data = bool(block.lstrip(_BLANKS))  # a byte other than these (no copy when the block starts with one)
            if not self.data and self.total + len(block) > BLANK_LIMIT:
                raise InputError(
                    self.name,
                    f"holds only white space in its first {size_text(BLANK_LIMIT)}; expected data "
                    "(stopped reading there)",
                    kind="no data",
                )
        last = block.rfind(b"\n")
        if self.tail + len(block) > self.max_line:
            self._long_line(block, last)
        self.total += len(block)
        if self.max_bytes is not None and self.total > self.max_bytes:
            raise too_large(self.name, self.max_bytes, gzip=self.gzip)
        if last < 0:
            if len(self.head) < 256:
                self.head += block[: 256 - len(self.head)]
            self.tail += len(block)
        else:
            self.uncounted = block  # (a file read whole is not counted)
            self.tail = len(block) - last - 1
            self.head = block[last + 1 : last + 257]
        return block

    def _line_at(self, block: bytes, at: int) -> tuple[int, str]:
        """The number and text of the line holding byte ``at`` of ``block`` (for a message)."""
        start = block.rfind(b"\n", 0, at) + 1
        end = block.find(b"\n", at)
        before = self.head if start == 0 else b""
        line = (before + block[start : len(block) if end < 0 else end][:1024]).rstrip(b"\r")
        return self.lines + block.count(b"\n", 0, at) + 1, line.decode("utf-8", "replace")

    def _bom(self, block: bytes) -> None:
        """Refuse a UTF-8 byte-order mark after the file's start (``cat a b``): it would become part of an id."""
        carried = len(self.previous)
        edge = self.previous + block[:2]  # a mark that began in the previous block
        self.previous = edge[-2:] if len(block) < 2 else block[-2:]
        at = edge.find(_BOM)
        if at >= 0:
            at -= carried  # position in block (negative: it began in the previous block)
        elif block.isascii():  # holds none (a much faster check than the search)
            return
        else:
            at = block.find(_BOM)
            if at < 0:
                return
        number, text = self._line_at(block, max(at, 0))
        raise InputError(
            self.name,
            "holds a byte-order mark (U+FEFF) after the start of the file (two files joined with cat?); "
            "expected one only as the file's first character (remove it, such as with sed 's/\\xef\\xbb\\xbf//g')",
            line=number,
            text=text.replace("\ufeff", "\\ufeff"),
            kind="byte-order mark",
        )

    def _long_line(self, block: bytes, last: int) -> None:
        if last < 0 or (block.find(b"\n") + self.tail > self.max_line):
            over = 0  # the line that was open when the block began
        elif len(block) - last - 1 <= self.max_line and not may_have_long_line(block, self.max_line):
            return
        else:
            ends = np.concatenate(
                [[-1 - self.tail], np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10), [len(block)]]
            )
            found = np.flatnonzero(np.diff(ends) - 1 > self.max_line)
            if not len(found):
                return
            over = int(found[0])
        raise InputError(
            self.name,
            f"line {self.lines + over + 1} is longer than {size_text(self.max_line)}; expected "
            f"text lines (SEGEVAL_MAX_LINE_BYTES raises the limit)",
        )


def may_have_long_line(raw: bytes, max_line: int) -> bool:
    """Whether an aligned window of half ``max_line`` bytes has no newline (a line longer than ``max_line`` has)."""
    width = max(1, max_line // 2)
    return any(raw.find(b"\n", pos, pos + width) < 0 for pos in range(0, len(raw) - width + 1, width))


def read_blocks(
    path: str | Path,
    *,
    max_bytes: int | None,
    block: int = BLOCK_BYTES,
    on_read: Callable[[int], object] | None = None,
    whole: bool = False,
    lines: bool = True,
) -> Generator[bytes, None, None]:
    """The text of any readable file (``-``: standard input) in blocks, gunzipped, each within the limits
    (``max_bytes`` in all, None: no limit; the line length only with ``lines``).  ``on_read`` is told the bytes
    of each read; with ``whole``, a regular uncompressed file comes in one block."""
    name = str(path)
    max_line = limits()[1] if lines else sys.maxsize
    checks = _Checks(name, max_bytes, max_line, boms=lines)
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
                raise InputError(
                    name,
                    f"is {kind}-compressed; expected plain text or gzip (decompress it first, such as with {tool})",
                )
        if name.endswith(".gz") and head:
            raise InputError(name, "has a .gz name but is not gzip-compressed; expected a gzip file")
        if regular and max_bytes is not None:
            try:
                size = os.fstat(fh.fileno()).st_size
            except OSError as exc:
                raise InputError(name, _os_problem(exc)) from None
            if size > max_bytes:
                raise too_large(name, max_bytes)
            if whole:  # one read of a regular file, no copy
                fh.seek(0)
                head = read(-1)
        while head:
            yield checks(head)
            head = read(block)
    finally:
        if name != STDIN:
            fh.close()


def too_large(name: str, max_bytes: int, *, gzip: bool = False) -> InputError:
    """The refusal of an input over ``SEGEVAL_MAX_INPUT_BYTES`` (``gzip``: once decompressed)."""
    what = "decompresses to more than {} (a gzip bomb?)" if gzip else "is larger than {}"
    return InputError(
        name, f"{what.format(size_text(max_bytes))}; expected a smaller file (SEGEVAL_MAX_INPUT_BYTES raises the limit)"
    )


def _gunzip_blocks(
    head: bytes, read: Callable[[int], bytes], block: int, name: str, check: Callable[[bytes], bytes]
) -> Iterator[bytes]:
    """Concatenated gzip members decompressed in blocks of at most ``block`` bytes, each passing ``check``."""
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
                        raise InputError(
                            name,
                            f"expands more than {ratio} times (its first {size_text(used)} give {size_text(produced)}: "
                            f"a gzip bomb?); expected a gzip file of text (SEGEVAL_MAX_GZIP_RATIO raises the limit)",
                        )
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
                        raise InputError(
                            name,
                            f"has other data after its gzip data, from byte {at + 1} of the file: {shown!r}; "
                            f"expected only gzip members (as 'cat a.gz b.gz' makes)",
                        )
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
        raise InputError(
            name, "is not a valid gzip file (it ends before the end-of-stream marker); expected a complete .gz file"
        )


#: A reader's check of a file's first bytes (the last line may be cut): True when the start is valid, False to be
#: called again with more, or the InputError reading the whole file would give (docs/input-checks.md)
HeadCheck = Callable[[bytes], bool]
#: a head check is given up (the whole read decides) once this many bytes are held unsettled
HEAD_LIMIT = 64 * 1024**2


def checked_blocks(blocks: Iterator[bytes], head: HeadCheck | None, first: int) -> list[bytes]:
    """The blocks, with ``head`` called on the bytes read so far from block ``first`` on, each time they have
    doubled, until it is settled or :data:`HEAD_LIMIT` bytes are held."""
    kept: list[bytes] = []
    held = asked = 0  # bytes held, and held at the last call
    for number, block in enumerate(blocks):
        kept.append(block)
        held += len(block)
        if head is None or number < first or held < 2 * asked:
            continue
        if held > HEAD_LIMIT:
            head = None
            continue
        kept, asked = [b"".join(kept)], held
        if head(kept[0]):
            head = None
    return kept


def read_bytes(path: str | Path, *, lines: bool = True, head: HeadCheck | None = None) -> bytes:
    """The content of any readable file (:func:`read_blocks`, at most ``SEGEVAL_MAX_INPUT_BYTES``); ``head``: the
    reader's check of a stream's start (:data:`HeadCheck`).  A stream is read again from its copy
    (:class:`_Spool`, until :func:`reset_streams`)."""
    first = 0 if is_stream(path) else 1
    blocks = checked_blocks(read_blocks(path, max_bytes=limits()[0], whole=True, lines=lines), head, first)
    return blocks[0] if len(blocks) == 1 else b"".join(blocks)


def read_utf8(path: str | Path, expected: str) -> str:
    """A file's text in strict UTF-8 with universal newlines (RTTM); an :class:`InputError` at the first bad byte
    (``expected``: what the file should be)."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        shown = data[start : len(data) if end < 0 else end][:1024].decode("utf-8", "backslashreplace")
        raise InputError(
            str(path),
            f"not UTF-8 text ({exc.reason}); expected {expected}",
            line=line,
            text=shown.rstrip("\r"),
            kind="not UTF-8",
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def sha256_hex(path: str | Path) -> str:
    """The SHA-256 of the regular file ``path`` as it is on disk (a report's provenance)."""
    import hashlib

    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def starts_with_gzip(path: str | Path) -> bool:
    """Whether the regular file ``path`` starts with the gzip magic number (OSError when it cannot be read)."""
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def read_text(path: str | Path, *, lines: bool = False, head: HeadCheck | None = None) -> str:
    """A file's text decoded leniently (:func:`read_bytes`; the line length only with ``lines``)."""
    return read_bytes(path, lines=lines, head=head).decode("utf-8", "replace")
