"""Vectorised readers of byte tokens, without pandas: M.S times and integers as :mod:`segeval.readers.formats`
reads them, and per-row counts and positions in byte matrices."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import BoolArray, IntArray
from segeval.readers.formats import parse_int

Matrix = npt.NDArray[np.uint8]
#: tokens as (tokens, k) little-endian uint64 words holding their bytes in order, zero-padded
Words = npt.NDArray[np.uint64]


def mmss_matrix(b: Matrix) -> IntArray | None:
    """Seconds of M.S tokens held as a zero-padded byte matrix, as :func:`segeval.readers.formats.parse_mmss`
    reads them ('1.5' is 1.05); None when a token is not one."""
    n, width = b.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    is_dot = b == 46
    digit = (b - np.uint8(48)) < 10
    if not bool((digit | is_dot | (b == 0)).all()) or not bool((row_counts(is_dot) == 1).all()):
        return None
    dot_at = first_true(is_dot)
    frac_digits = row_counts(b != 0) - dot_at - 1
    if bool(((dot_at < 1) | (dot_at > 12) | (frac_digits < 1) | (frac_digits > 2)).any()):
        return None
    minutes = leading_number(b, dot_at)
    at = np.arange(0, n * width, width) + dot_at  # the dot in the flat bytes
    flat = b.ravel()
    first = flat[at + 1].astype(np.int64) - 48
    second = flat[np.minimum(at + 2, len(flat) - 1)].astype(np.int64) - 48
    seconds = np.where(frac_digits == 2, first * 10 + second, first)
    if bool((seconds > 59).any()):
        return None
    return np.asarray(minutes * 60 + seconds, dtype=np.int64)


_ONES = np.uint64(0x0101010101010101)


def _words(mask: BoolArray) -> Words:
    """A (rows, width) boolean matrix as (rows, words) little-endian words of its bytes (zero-padded)."""
    n, width = mask.shape
    raw = mask.view(np.uint8)
    if width % 8:
        padded = np.zeros((n, width + 8 - width % 8), dtype=np.uint8)
        padded[:, :width] = raw
        raw = padded
    return np.ascontiguousarray(raw).view(np.uint64)


def row_counts(mask: BoolArray) -> IntArray:
    """The number of True entries in each row (a byte sum per word, no per-row reduction)."""
    words = _words(mask)
    total = np.zeros(len(words), dtype=np.int64)
    for j in range(words.shape[1]):
        total += ((words[:, j] * _ONES) >> np.uint64(56)).astype(np.int64)
    return total


def first_true(mask: BoolArray) -> IntArray:
    """The column of the first True entry of each row (the width when none)."""
    words = _words(mask)
    out = np.full(len(words), mask.shape[1], dtype=np.int64)
    for j in reversed(range(words.shape[1])):
        w = words[:, j]
        lowest = w & (~w + np.uint64(1))  # the lowest set bit: a power of two, exact as a float
        byte = (np.frexp(lowest.astype(np.float64))[1].astype(np.int64) - 1) // 8
        out = np.where(w != 0, 8 * j + byte, out)
    return out


def leading_number(mat: Matrix, lengths: IntArray) -> IntArray:
    """The whole number written by the first ``lengths[i]`` bytes (digits) of each row."""
    value = np.zeros(len(mat), dtype=np.int64)
    for j in range(int(lengths.max(initial=0))):  # most significant first
        value = np.where(j < lengths, value * 10 + (mat[:, j].astype(np.int64) - 48), value)
    return value


def byte_tokens(mat: Matrix) -> npt.NDArray[np.bytes_]:
    """The rows of a byte matrix as fixed-width byte strings."""
    return np.ascontiguousarray(mat).view(f"S{mat.shape[1]}").ravel()


def _table(chars: bytes) -> BoolArray:
    table = np.zeros(256, dtype=bool)
    table[0] = True  # padding
    table[list(chars)] = True
    return table


_INT_BYTES = _table(b"0123456789+-")


def parse_ints(mat: Matrix, keep: bool = True) -> IntArray | None:
    """Integer tokens as :func:`segeval.readers.formats.parse_int` reads them, None when one is not; with
    ``keep=False`` only checked (an empty array)."""
    digit = (mat - np.uint8(48)) < 10
    usual = mat.shape[1] <= 8 and bool(digit[:, 0].all()) and bool((digit | (mat == 0)).all())  # 1-8 digits
    if not usual and (
        not bool(_INT_BYTES[mat].all())
        or mat.shape[1] > 24
        or any(parse_int(t.decode("ascii")) is None for t in byte_tokens(mat).tolist())
    ):
        return None
    if not keep:
        return np.zeros(0, dtype=np.int64)
    if not usual:
        return byte_tokens(mat).astype(np.int64)
    return leading_number(mat, row_counts(mat != 0))


def pack_bytes(
    column: Callable[[int], npt.NDArray[np.uint64]], n: int, varying: Sequence[int]
) -> npt.NDArray[np.uint64]:
    """Per token, its bytes at the positions ``varying`` (ascending, at most 8) packed into one integer that
    orders as they do; ``column(j)``: the tokens' word j big-endian (byte 8j + b at bits 8 * (7 - b))."""
    key = np.zeros(n, dtype=np.uint64)
    for j in sorted({p // 8 for p in varying}):
        spans: list[list[int]] = []  # consecutive varying bytes of word j
        for b in (p % 8 for p in varying if p // 8 == j):
            if spans and spans[-1][-1] == b - 1:
                spans[-1].append(b)
            else:
                spans.append([b])
        word = column(j)
        for span in spans:
            bits = 8 * len(span)
            part = (word >> np.uint64(8 * (7 - span[-1]))) & np.uint64((1 << bits) - 1)
            if bits < 64:
                key <<= np.uint64(bits)
                key |= part
            else:
                key = part
    return key


def varying_bytes(*sides: Words) -> list[int]:
    """The byte positions (byte ``8j + b``: bits ``8b`` of word ``j``) where some token of the ``sides`` differs
    from the first one (past a side's width its bytes are zeros)."""
    first = next((w[0] for w in sides if len(w)), None)
    if first is None:
        return []
    out: list[int] = []
    for j in range(max(w.shape[1] for w in sides)):
        at = first[j] if j < len(first) else np.uint64(0)
        differ = 0  # the bits where some token's word j differs from the first one's
        for w in sides:
            differ |= int(np.bitwise_or.reduce(w[:, j] ^ at, initial=0)) if j < w.shape[1] else int(at) * bool(len(w))
        out += [8 * j + b for b in range(8) if differ >> (8 * b) & 0xFF]
    return out


def byte_keys(words: Words, varying: Sequence[int]) -> npt.NDArray[Any]:
    """Per token, its bytes at the positions ``varying`` (:func:`varying_bytes`): packed into one integer that
    orders as they do (:func:`pack_bytes`) when at most 8, else as byte strings (zeros past the tokens' width)."""
    n, k = len(words), words.shape[1]
    if len(varying) > 8:
        padded = pad_words(words, varying[-1] // 8 + 1)
        matrix = padded.view(np.uint8).reshape(n, 8 * padded.shape[1])
        return np.ascontiguousarray(matrix[:, varying]).view(f"S{len(varying)}").ravel()
    return pack_bytes(lambda j: words[:, j].byteswap() if j < k else np.zeros(n, dtype=np.uint64), n, varying)


def pad_words(words: Words, k: int) -> Words:
    """Tokens as at least ``k`` words each (zeros after their own)."""
    if words.shape[1] >= k:
        return words
    out = np.zeros((len(words), k), dtype=np.uint64)
    out[:, : words.shape[1]] = words
    return out
