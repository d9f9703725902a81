"""The fast path of well-formed files (the byte scanner, :mod:`segeval.readers.scanner`), as columns; on anything
unusual it gives up (None) and the strict line parser (:mod:`segeval.readers.line_parser`) decides."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.core.arrays import IntArray
from segeval.readers.byte_tokens import byte_keys, varying_bytes
from segeval.readers.formats import TIME_PARSERS, LineFormat
from segeval.readers.scanner import scan

Column = npt.NDArray[Any] | pd.Categorical


def scan_parse(data: bytes, fmt: LineFormat, time_format: str = "mmss") -> dict[str, Column] | None:
    """The columns of a line-oriented file as the line parser gives them (text as categories in code-point order),
    read by the byte scanner; None when the scanner gives up (the line parser decides and explains)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None
    mmss = time_format == "mmss"  # M.S times parsed by the scanner, other times once per distinct token
    for present in range(len(fmt.fields), len(fmt.fields) - fmt.optional - 1, -1):
        fields = fmt.fields[:present]
        kinds = {
            kind: tuple(i for i, f in enumerate(fields) if f.kind == kind) for kind in ("str", "time", "int", "float")
        }
        text, times = (kinds["str"], kinds["time"]) if mmss else (kinds["str"] + kinds["time"], ())
        got = scan(data, present, text=text, floats=kinds["float"], ints=kinds["int"], times=times)
        if got is not None:
            break
    else:
        return None
    rows = got.lines
    out: dict[str, Column] = {}
    for i, f in enumerate(fmt.fields):
        if f.kind == "ignore":
            continue
        if i >= present:  # an absent optional field: as the line parser pads it, an empty token
            if f.kind != "str":
                return None
            col = np.zeros(rows, dtype="S8")
        elif i in text:
            words = got.text[i]
            col = np.ascontiguousarray(words).view(f"S{8 * words.shape[1]}").ravel()
        else:
            out[f.name] = got.floats[i] if f.kind == "float" else got.ints[i]
            continue
        codes, distinct = factorize_bytes(col, sort=True)
        if f.kind == "time":
            parsed = _parse_times(distinct, time_format)
            if parsed is None:
                return None
            out[f.name] = parsed[codes]
            continue
        names = decode_tokens(distinct)
        if names is None:
            return None
        out[f.name] = categorical(codes, names, distinct)
    out["line"] = line_numbers(data, rows)  # each row's line; None when the non-blank lines are not the rows
    return out if len(out["line"]) == rows else None


def factorize_bytes(
    values: npt.NDArray[np.bytes_], sort: bool = True
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bytes_]]:
    """(codes, distinct) of fixed-width byte tokens, ``distinct`` as wide as the longest token and, with ``sort``,
    in byte order (code-point order); the bytes that vary, when at most eight, packed into one key per token."""
    n, size = len(values), values.dtype.itemsize
    if n == 0:
        return np.zeros(0, dtype=np.intp), values[:0]
    if size % 8:
        values = values.astype(f"S{size + 8 - size % 8}")
    words = values.view("<u8").reshape(n, -1)
    varying = varying_bytes(words)
    first = bytes(values[0])
    width = max(varying[-1] + 1 if varying else 1, len(first), 1)  # the longest token
    if not varying:
        return np.zeros(n, dtype=np.intp), values[:1].astype(f"S{width}")
    key = byte_keys(words, varying)
    if key.dtype.kind == "S" or (sort and len(np.unique(key[:10_000])) > 5_000):  # mostly distinct: sort, not hash
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


def _parse_times(distinct: npt.NDArray[np.bytes_], time_format: str) -> npt.NDArray[np.float64] | None:
    """Distinct time byte tokens (seconds or H:MM:SS) as seconds, or None when one does not parse."""
    texts = decode_tokens(distinct)
    if texts is None:
        return None
    values = [TIME_PARSERS[time_format](str(t)) for t in texts.tolist()]
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


def categorical(
    codes: npt.NDArray[np.integer[Any]], names: npt.NDArray[np.object_], tokens: npt.NDArray[np.bytes_] | None = None
) -> pd.Categorical:
    """A Categorical of ``names[codes]`` (distinct); ``tokens``: their UTF-8 bytes in byte order, which
    :func:`category_bytes` then returns for the categories."""
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


def line_numbers(data: bytes, rows: int) -> IntArray:
    newlines = data.count(b"\n")
    lines = newlines + (0 if data.endswith(b"\n") or not data else 1)
    if lines == rows:
        return np.arange(1, rows + 1, dtype=np.int64)
    numbers = [i for i, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
    return np.asarray(numbers, dtype=np.int64)
