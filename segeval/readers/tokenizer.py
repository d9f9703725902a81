"""The fast paths of well-formed files (pandas' C tokenizer, the byte scanner); on anything unusual they give up
(None) and the strict line parser (:mod:`segeval.readers.line_parser`) decides."""

from __future__ import annotations

import csv
import io
import warnings
import weakref
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.core.arrays import BoolArray, IntArray
from segeval.readers.byte_tokens import int_tokens as int_tokens  # one vectorised parser of each kind, in tokens
from segeval.readers.byte_tokens import mmss_to_seconds as mmss_to_seconds
from segeval.readers.byte_tokens import pack_bytes
from segeval.readers.formats import TIME_PARSERS, LineFormat
from segeval.readers.scanner import plain_bytes, scan

#: the byte path reads each field at twice the longest token of a sample (at least 8, at most 64 bytes)
SAMPLE_BYTES = 1 << 15
MAX_TOKEN_WIDTH = 64

Column = npt.NDArray[Any] | pd.Categorical


def fast_parse(data: bytes, fmt: LineFormat, sep: str = r"\s+", time_format: str = "mmss") -> dict[str, Column] | None:
    """Columns via pandas' C tokenizer (text as categories in code-point order), or None when anything is unusual
    (with ``sep=" "``, twice as fast, irregular spacing gives up: the caller retries)."""
    lone_cr = b"\r" in data and data.count(b"\r") != data.count(b"\r\n")
    if lone_cr or b"\x00" in data or b"\x0b" in data or b"\x0c" in data or not plain_bytes(data):
        return None  # lone carriage returns, NUL bytes, vertical tabs, form feeds, not UTF-8: the line parser decides
    out = _fast_parse_bytes(data, fmt, sep, time_format)
    return out if out is not None else _fast_parse_objects(data, fmt, sep, time_format)


def scan_parse(data: bytes, fmt: LineFormat, time_format: str = "mmss") -> dict[str, Column] | None:
    """The columns of a segment file (M.S times) as :func:`fast_parse` gives them, read by the byte scanner (half
    the time, a third of the memory); None when the scanner gives up or the file is not such a file."""
    if time_format != "mmss" or not any(f.kind == "time" for f in fmt.fields) or data.startswith(b"\xef\xbb\xbf"):
        return None
    for present in range(len(fmt.fields), len(fmt.fields) - fmt.optional - 1, -1):
        fields = fmt.fields[:present]
        kinds = {
            kind: tuple(i for i, f in enumerate(fields) if f.kind == kind) for kind in ("str", "time", "int", "float")
        }
        got = scan(data, present, text=kinds["str"], floats=kinds["float"], ints=kinds["int"], times=kinds["time"])
        if got is not None:
            break
    else:
        return None
    rows = got.lines
    out: dict[str, Column] = {}
    for i, f in enumerate(fmt.fields):
        if f.kind == "ignore":
            continue
        if i >= present:  # an absent optional field: as the tokenizer pads it, an empty token
            if f.kind != "str":
                return None
            col = np.zeros(rows, dtype="S8")
        elif f.kind == "str":
            words = got.text[i]
            col = np.ascontiguousarray(words).view(f"S{8 * words.shape[1]}").ravel()
        else:
            out[f.name] = got.floats[i] if f.kind == "float" else got.ints[i]
            continue
        codes, distinct = factorize_bytes(col, sort=True)
        names = decode_tokens(distinct)
        if names is None:
            return None
        out[f.name] = categorical(codes, names, distinct)
    return _with_lines(out, data, rows)


def _sample_widths(data: bytes, n_fields: int) -> list[int] | None:
    """Per field, twice the longest token in the file's first and last :data:`SAMPLE_BYTES`, rounded up to 8;
    None when that exceeds :data:`MAX_TOKEN_WIDTH`."""
    lines = data[:SAMPLE_BYTES].split(b"\n")[:-1] + data[-SAMPLE_BYTES:].split(b"\n")[1:]
    longest = [0] * n_fields
    for line in lines:
        for i, token in enumerate(line.split()[:n_fields]):
            longest[i] = max(longest[i], len(token))
    widths = [max(8, -(-2 * n // 8) * 8) for n in longest]
    return widths if max(widths) <= MAX_TOKEN_WIDTH else None


def read_csv(data: bytes, sep: str, dtypes: dict[int, Any], n_columns: int) -> pd.DataFrame | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pd.read_csv(
                io.BytesIO(data),
                sep=sep,
                header=None,
                names=list(range(n_columns)),
                dtype=dtypes,
                quoting=csv.QUOTE_NONE,
                na_filter=False,
                engine="c",
                index_col=False,
                encoding="utf-8",
                skip_blank_lines=True,
                low_memory=False,
            )
    except Exception:  # any tokenizer or conversion trouble: let the strict parser explain it
        return None


def _fast_parse_bytes(data: bytes, fmt: LineFormat, sep: str, time_format: str) -> dict[str, Column] | None:
    """The fast path without per-row objects: fixed-width byte tokens, each distinct one decoded and parsed once."""
    n_fields = len(fmt.fields)
    widths = _sample_widths(data, n_fields)
    if widths is None:
        return None
    one = np.dtype("S1")  # ignored fields and the spare column: only whether a token is there matters
    dtypes: dict[int, Any] = {
        i: np.float64 if f.kind == "float" else one if f.kind == "ignore" else np.dtype(f"S{widths[i]}")
        for i, f in enumerate(fmt.fields)
    }
    dtypes[n_fields] = one  # a spare column: any value in it means too many fields
    df = read_csv(data, sep, dtypes, n_fields + 1)
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
    return _with_lines(out, data, rows)


def _fast_parse_objects(data: bytes, fmt: LineFormat, sep: str, time_format: str) -> dict[str, Column] | None:
    """The fast path with one Python string per cell (any token length)."""
    n_fields = len(fmt.fields)
    # ignored fields as categories (no per-row objects); times and integers are factorised below
    # (pandas would turn numeric-looking categories into numbers, and '32.30' is not '32.3')
    kind_dtype = {"float": np.float64, "str": object, "time": object, "int": object, "ignore": "category"}
    dtypes: dict[int, Any] = {i: kind_dtype[f.kind] for i, f in enumerate(fmt.fields)}
    dtypes[n_fields] = object  # a spare column: any value in it means too many fields
    df = read_csv(data, sep, dtypes, n_fields + 1)
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
    return _with_lines(out, data, len(df))


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
    # the bits that differ from the first token, word by word (no n-by-width temporary)
    diff = [int(np.bitwise_or.reduce(words[:, j] ^ words[0, j])) for j in range(words.shape[1])]
    varying = [8 * j + k for j, d in enumerate(diff) for k in range(8) if (d >> (8 * k)) & 0xFF]
    first = bytes(values[0])
    width = max(varying[-1] + 1 if varying else 1, len(first), 1)  # the longest token
    if not varying:
        return np.zeros(n, dtype=np.intp), values[:1].astype(f"S{width}")
    key: npt.NDArray[Any]
    if len(varying) <= 8:
        key = pack_bytes(lambda j: words[:, j].byteswap().view(np.uint64), n, varying)
    else:
        b = values.view(np.uint8).reshape(n, -1)
        key = np.ascontiguousarray(b[:, varying]).view(f"S{len(varying)}").ravel()
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


def _parse_distinct(kind: str, distinct: npt.NDArray[np.bytes_], time_format: str) -> npt.NDArray[np.generic] | None:
    """Distinct ``int`` or ``time`` byte tokens as numbers, or None when one does not parse."""
    if kind == "int":
        return int_tokens(distinct)
    if time_format == "mmss":
        return mmss_to_seconds(distinct)
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


def _present(col: pd.Series) -> BoolArray:
    """Cells that hold a token (with ``na_filter=False`` the tokenizer pads missing fields with '')."""
    return np.asarray(col.to_numpy(dtype=object) != "", dtype=bool)


def _with_lines(out: dict[str, Column], data: bytes, rows: int) -> dict[str, Column] | None:
    """``out`` with each row's line number (column ``line``); None when the non-blank lines are not ``rows``."""
    out["line"] = line_numbers(data, rows)
    return out if len(out["line"]) == rows else None


def line_numbers(data: bytes, rows: int) -> IntArray:
    newlines = data.count(b"\n")
    lines = newlines + (0 if data.endswith(b"\n") or not data else 1)
    if lines == rows:
        return np.arange(1, rows + 1, dtype=np.int64)
    numbers = [i for i, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
    return np.asarray(numbers, dtype=np.int64)
