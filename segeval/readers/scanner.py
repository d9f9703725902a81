"""A NumPy byte scanner for white-space separated files (TREC and MediaEval runs and qrels), without pandas:
per wanted field the tokens as zero-padded words and numbers parsed from their bytes.  It accepts only what the
line parser accepts, with the same values, and gives up (None) on anything else (control bytes but tab, LF and
CR before LF, bytes that are not UTF-8, another field count, a token over :data:`MAX_WIDTH`, a bad number)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Required, TypedDict, Unpack, cast

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.readers.byte_tokens import (
    Matrix as Matrix,  # the byte and word layouts, named here for the scanner's readers
)
from segeval.readers.byte_tokens import Words as Words
from segeval.readers.byte_tokens import byte_tokens, mmss_matrix, parse_ints

if TYPE_CHECKING:
    from segeval.readers.formats import LineFormat

#: bytes scanned at a time (a block ends at a line end): 1 MiB blocks scan as fast as 4 MiB ones, in less memory
BLOCK_BYTES = 1 << 20
#: the longest token the scanner keeps
MAX_WIDTH = 255


@dataclass(frozen=True)
class Scanned:
    """The data lines' wanted fields (text as :data:`Words`), and the first and last line's ``first`` fields."""

    text: dict[Any, Words]
    floats: dict[Any, FloatArray]
    ints: dict[Any, IntArray]
    first: dict[Any, bytes]
    last: dict[Any, bytes]

    @property
    def lines(self) -> int:
        return len(next(iter(self.text.values())))


def plain_bytes(data: bytes) -> bool:
    """Valid UTF-8 (the per-block checks see the control bytes)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class Wanted(TypedDict, total=False):
    """The fields :func:`scan` reads, by position: ``text`` as tokens, ``floats``, ``ints`` and ``times`` (M.S,
    seconds in :attr:`Scanned.ints`) parsed as :mod:`segeval.readers.formats` parses them, ``checked_*`` only
    checked, and the first and last line's ``first`` fields."""

    text: Required[tuple[int, ...]]
    floats: tuple[int, ...]
    ints: tuple[int, ...]
    times: tuple[int, ...]
    checked_ints: tuple[int, ...]
    checked_floats: tuple[int, ...]
    first: tuple[int, ...]


#: the kinds of :class:`Wanted` fields the block scanner reads (of a field in two, the later)
_KINDS = ("text", "floats", "ints", "times", "checked_ints", "checked_floats")


def scan(data: bytes, n_fields: int, **wanted: Unpack[Wanted]) -> Scanned | None:
    """The ``wanted`` fields of lines of exactly ``n_fields`` tokens; None when anything is unusual."""
    return scan_blocks(line_views(data), n_fields, utf8=True, **wanted) if plain_bytes(data) else None


def scan_format(
    data: bytes | Iterable[bytes], fmt: LineFormat, *, n_fields: int | None = None, **wanted: tuple[str, ...]
) -> Scanned | None:
    """:func:`scan` (or :func:`scan_blocks` of blocks) of lines of ``fmt`` (``n_fields`` of its fields), the wanted
    fields named and the results keyed as ``fmt`` names them (``text=("query", "item")``)."""
    at: dict[str, Any] = {kind: tuple(fmt.position(name) for name in names) for kind, names in wanted.items()}
    count = len(fmt.fields) if n_fields is None else n_fields
    got = scan(data, count, **at) if isinstance(data, bytes) else scan_blocks(data, count, **at)
    if got is None:
        return None
    name = {fmt.position(n): n for names in wanted.values() for n in names}
    return Scanned(*({name[k]: v for k, v in getattr(got, f.name).items()} for f in fields(Scanned)))


def line_views(data: bytes) -> Iterator[memoryview]:
    """``data`` in blocks of about :data:`BLOCK_BYTES` that end at a line end (views, not copies)."""
    view = memoryview(data)
    begin = 0
    while begin < len(data):
        end = min(begin + BLOCK_BYTES, len(data))
        if end < len(data):
            cut = data.rfind(b"\n", begin, end)
            end = cut + 1 if cut >= begin else (data.find(b"\n", end) + 1 or len(data))
        yield view[begin:end]
        begin = end


def scan_blocks(
    blocks: Iterable[bytes | memoryview], n_fields: int, utf8: bool = False, **wanted: Unpack[Wanted]
) -> Scanned | None:
    """:func:`scan` of blocks that end at line ends, each scanned as it comes (``utf8``: known to be UTF-8)."""
    at = cast("dict[str, tuple[int, ...]]", wanted)  # each a tuple of positions
    kinds = {f: kind for kind in _KINDS for f in at.get(kind, ())}
    text, floats, ints, times, first = (at.get(name, ()) for name in ("text", "floats", "ints", "times", "first"))
    columns: dict[int, list[npt.NDArray[Any]]] = {f: [] for f in (*text, *floats, *ints, *times)}
    tokens: list[bytes] | None = None
    final: list[bytes] = []
    for block in blocks:
        if not utf8 and not plain_bytes(bytes(block)):
            return None
        got = _block(np.frombuffer(block, dtype=np.uint8), n_fields, kinds)
        if got is None:
            return None
        if not got:
            continue  # blank lines only
        for f, values in got.items():
            columns[f].append(values)
        del got
        if tokens is None:
            tokens = _first_line(bytes(block))
        final = _last_line(block)
    if tokens is None:
        return None  # no data line
    out_text = {f: stacked(columns.pop(f)) for f in text}  # each block freed once copied
    out_floats = {f: stacked(columns.pop(f)) for f in floats}
    out_ints = {f: stacked(columns.pop(f)) for f in (*ints, *times)}
    return Scanned(out_text, out_floats, out_ints, {f: tokens[f] for f in first}, {f: final[f] for f in first})


def _first_line(block: bytes) -> list[bytes]:
    """The tokens of the first non-blank line."""
    at = 0
    while True:
        stop = block.find(b"\n", at)
        tokens = block[at : len(block) if stop < 0 else stop].split()
        if tokens or stop < 0:
            return tokens
        at = stop + 1


def _last_line(block: bytes | memoryview) -> list[bytes]:
    """The tokens of the last non-blank line of a block that has one (read from its end)."""
    size = 4096
    while True:
        tail = bytes(block[-size:]).rstrip() if size < len(block) else bytes(block).rstrip()
        cut = tail.rfind(b"\n")
        if cut >= 0 or size >= len(block):
            return tail[cut + 1 :].split()
        size *= 16


def stacked(blocks: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """Blocks as one array (token blocks of any widths zero-padded to the widest); the list is emptied as they are
    copied (each freed)."""
    widths = (max(b.shape[1] for b in blocks),) if blocks[0].ndim == 2 else ()
    out = np.zeros((sum(len(b) for b in blocks), *widths), dtype=blocks[0].dtype)
    at = 0
    blocks.reverse()
    while blocks:
        b = blocks.pop()
        rows = out[at : at + len(b)]
        rows[..., : b.shape[-1]] = b  # a narrower token block: its words, zeros after them
        at += len(b)
    return out


def _bounds(block: Matrix, n_fields: int) -> tuple[npt.NDArray[np.intp] | None, npt.NDArray[np.intp]] | None:
    """(starts, ends) of the tokens as (lines, n_fields) arrays (``starts`` None: single separators); None unless
    each non-blank line has ``n_fields`` tokens and the only control bytes are tabs, LF and CR before LF."""
    blank = block <= 32
    ws = np.flatnonzero(blank)
    n_newline = int(np.count_nonzero(block == 10))
    if n_newline + int(np.count_nonzero(block == 32)) != len(ws):  # tabs, CR or other control bytes
        kinds = block[ws]
        if not bool(((kinds == 10) | (kinds == 32) | (kinds == 9) | (kinds == 13)).all()):
            return None  # NUL, vertical tab, form feed ...
        cr = ws[kinds == 13]
        if len(cr) and (cr[-1] + 1 >= len(block) or not bool((block[cr + 1] == 10).all())):
            return None  # a CR that does not end a line
    n = len(block)
    if len(ws) % n_fields == 0 and len(ws) and ws[-1] == n - 1 and block[0] > 32:
        # the usual layout: single separators, each line ending in LF right after its last token (the
        # checks on the bytes, not on the separators' positions: a few times fewer to look at)
        seps = ws.reshape(-1, n_fields)
        if (
            n_newline == len(seps)
            and bool((block[seps[:, -1]] == 10).all())
            and not bool((blank[1:] & blank[:-1]).any())
        ):
            return None, seps  # each token starts after the separator before it
    # anything else (tabs, runs of blanks, CRLF, blank lines): every token and the line it is on
    word = (block > 32).view(np.int8)
    edges = np.flatnonzero(np.diff(word, prepend=np.int8(0), append=np.int8(0)))
    starts, ends = edges[0::2], edges[1::2]
    if len(starts) % n_fields:
        return None
    newlines = np.flatnonzero(block == 10)
    s2, e2 = starts.reshape(-1, n_fields), ends.reshape(-1, n_fields)
    line_first = np.searchsorted(newlines, s2[:, 0])
    line_last = np.searchsorted(newlines, s2[:, -1])
    if not bool((line_first == line_last).all()) or not bool((np.diff(line_first) > 0).all()):
        return None
    return s2, e2


def _starts(starts: npt.NDArray[np.intp] | None, ends: npt.NDArray[np.intp], f: int) -> npt.NDArray[np.intp]:
    """The starts of field ``f``'s tokens (:func:`_bounds`), only this field's when they follow single separators."""
    if starts is not None:
        return starts[:, f]
    if f:
        return ends[:, f - 1] + 1
    out = np.empty(len(ends), dtype=ends.dtype)
    out[:1] = 0
    np.add(ends[:-1, -1], 1, out=out[1:])
    return out


#: MASKS[k]: the low k bytes of a word
MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


def _gather(words: npt.NDArray[np.uint64], starts: npt.NDArray[np.intp], ends: npt.NDArray[np.intp]) -> Words | None:
    """The tokens ``block[starts[i]:ends[i]]`` as zero-padded little-endian words, (tokens, words)."""
    lengths = ends - starts
    width = int(lengths.max(initial=1))
    if width > MAX_WIDTH:
        return None
    k = -(-width // 8)
    out = np.empty((len(starts), k), dtype=np.uint64)
    for j in range(k):
        out[:, j] = words[starts + 8 * j]
        out[:, j] &= MASKS[lengths if k == 1 else np.clip(lengths - 8 * j, 0, 8)]
    return out


def _block(block: Matrix, n_fields: int, kinds: dict[int, str]) -> dict[int, npt.NDArray[Any]] | None:
    """The wanted fields of a block's lines by kind; {} for blank lines only; None when anything is unusual."""
    found = _bounds(block, n_fields)
    if found is None:
        return None
    starts, ends = found
    if len(ends) == 0:  # blank lines only
        return {}
    padded = np.empty(len(block) + 8 * (MAX_WIDTH // 8 + 2), dtype=np.uint8)
    padded[: len(block)] = block
    padded[len(block) :] = 0
    # a word at every byte, and past the end as far as the widest token's last word reaches
    words = np.ndarray((len(block) + 8 * (MAX_WIDTH // 8 + 1),), dtype="<u8", buffer=padded, strides=(1,))
    out: dict[int, npt.NDArray[Any]] = {}
    for f, kind in kinds.items():
        tokens = _gather(words, _starts(starts, ends, f), ends[:, f])
        if tokens is None:
            return None
        if kind == "text":
            out[f] = tokens
            continue
        mat = tokens.view(np.uint8).reshape(len(tokens), 8 * tokens.shape[1])
        if kind == "checked_floats":
            if not floats_read(mat):
                return None
            continue
        values = (
            parse_floats(mat)
            if kind == "floats"
            else mmss_matrix(mat)
            if kind == "times"
            else parse_ints(mat, keep=kind == "ints")
        )
        if values is None:
            return None
        if kind != "checked_ints":
            out[f] = values
    return out


#: 10**k for the digits after the dot of a plain decimal (exact in a double up to 10**22)
_POWERS = 10.0 ** np.arange(16)


def _decimals(mat: Matrix) -> tuple[Matrix, Matrix, BoolArray, BoolArray, BoolArray]:
    """The tokens' bytes one row per byte position, their digit values, where digits and dots are, and which
    tokens are plain decimals of at most 15 digits."""
    used = np.flatnonzero(mat.any(axis=0))
    width = int(used[-1]) + 1 if len(used) else 1
    t = np.ascontiguousarray(mat[:, :width].T)
    digit = t - np.uint8(48)
    is_digit = digit < 10
    is_dot = t == 46
    ok = is_digit | is_dot | (t == 0)
    ok[0] |= (t[0] == 45) | (t[0] == 43)
    n_digits = is_digit.sum(axis=0, dtype=np.int16)
    plain = ok.all(axis=0) & (is_dot.sum(axis=0, dtype=np.int16) <= 1) & (n_digits >= 1) & (n_digits <= 15)
    return t, digit, is_digit, is_dot, plain


def parse_floats(mat: Matrix) -> FloatArray | None:
    """Number tokens as :func:`segeval.readers.formats.parse_float` reads them; None when one is not a number.
    Plain decimals of at most 15 digits: m < 2**53 over 10**k, one correctly rounded division (Python's value)."""
    t, digit, is_digit, is_dot, plain = _decimals(mat)
    negative = t[0] == 45
    whole = np.zeros(len(mat), dtype=np.int64)
    after = np.zeros(len(mat), dtype=np.int16)  # digits after the dot
    dot = np.zeros(len(mat), dtype=bool)
    ten = np.where(is_digit, np.uint8(10), np.uint8(1))
    np.multiply(digit, is_digit, out=digit)
    for j in range(len(t) if bool(plain.any()) else 0):
        whole *= ten[j]
        whole += digit[j]
        dot |= is_dot[j]
        after += is_digit[j] & dot
    values = whole / _POWERS[np.where(plain, after, 0)]
    np.negative(values, out=values, where=negative)
    if not bool(plain.all()):
        rest = np.flatnonzero(~plain)
        other = _numpy_floats(mat[rest])
        if other is None:
            return None
        values[rest] = other
    return values


def _numpy_floats(mat: Matrix) -> FloatArray | None:
    if bool((mat == 95).any()) or bool((mat > 127).any()):
        return None  # '_' (which Python's float takes between digits) or not ASCII
    try:  # NumPy reads what the parser reads, and refuses what it refuses, but for inf and nan (not finite)
        values = byte_tokens(mat).astype(np.float64)
    except ValueError:
        return None
    return values if bool(np.isfinite(values).all()) else None


def floats_read(mat: Matrix) -> bool:
    """Whether every token reads as :func:`parse_floats` reads it (plain decimals checked without parsing)."""
    return bool(_decimals(mat)[4].all()) or parse_floats(mat) is not None
