"""The reader's fast path must agree with the line-by-line parser that defines the syntax.

For any input, the fast path either declines (None) or returns exactly the
columns the line parser returns; and the line parser either returns columns or
raises an InputError.  Checked on generated lines with hostile token mutations.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from segeval.core.errors import InputError
from segeval.readers.byte_tokens import mmss_matrix, parse_ints
from segeval.readers.formats import (
    MEDIAEVAL_LINKING_RUN,
    MEDIAEVAL_QRELS,
    MEDIAEVAL_SEARCH_RUN,
    TREC_QRELS,
    TREC_RUN,
    parse_mmss,
)
from segeval.readers.line_parser import parse_lines
from segeval.readers.scanner import MAX_WIDTH
from segeval.readers.tokenizer import decode_tokens, factorize_bytes, scan_parse
from tests.conftest import examples

TOKENS = st.sampled_from([
    "0.00", "17.10", "3.0", "01.50", "59.59", "1.60", "1.", ".5", "1", "-1", "+1", "1.0", "1e3", "0x10",
    "nan", "inf", "-0", "1e308", "1e999", "99999999999999999999", "123456789012.05", "1234567890123.05",
    "q1", "v1", "Q0", "x", "é", "\u00a0", "\x00", "1_0", "+.5", "-.5e-3", "007",
])
SEPARATORS = st.sampled_from([" ", "  ", "\t", " \t "])
ENDINGS = st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\n \n"])


@st.composite
def files(draw: st.DrawFn, fmt_fields: int) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        n = draw(st.sampled_from([fmt_fields - 1, fmt_fields, fmt_fields, fmt_fields, fmt_fields + 1]))
        valid = ["q1", "Q0", "v1", "1.00", "2.30", "1", "0.5", "r", "x"][:n]
        toks = [draw(TOKENS) if draw(st.integers(0, 4)) == 0 else t for t in valid]
        line = draw(SEPARATORS).join(toks)
        lines.append(line + draw(ENDINGS))
    return "".join(lines).encode("utf-8")


def _agree(data: bytes, fmt) -> None:  # type: ignore[no-untyped-def]
    for time_format in ("mmss", "seconds") if any(f.kind == "time" for f in fmt.fields) else ("mmss",):
        fast = scan_parse(data, fmt, time_format)
        try:
            slow = parse_lines(data, fmt, "f", time_format)
        except InputError:
            assert fast is None, f"fast path ({time_format}) accepted what the line parser rejects"
            continue
        if fast is None:
            continue
        assert set(fast) == set(slow)
        for name, values in slow.items():
            assert list(fast[name]) == list(values), (time_format, name)


def _matrix(tokens: list[str]) -> np.ndarray:  # type: ignore[type-arg]
    """Tokens as the scanner holds them: a zero-padded byte matrix, one row each."""
    values = np.array(tokens, dtype="S")
    return values.view(np.uint8).reshape(len(tokens), values.dtype.itemsize)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(8))
def test_fast_path_agrees_on_linking_runs(data: bytes) -> None:
    _agree(data, MEDIAEVAL_LINKING_RUN)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(6))
def test_fast_path_agrees_on_qrels(data: bytes) -> None:
    _agree(data, MEDIAEVAL_QRELS)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(9))
def test_fast_path_agrees_on_search_runs(data: bytes) -> None:
    _agree(data, MEDIAEVAL_SEARCH_RUN)


@pytest.mark.parametrize("token", ["0.0", "17.10", "3.5", "01.50", "59.59", "123456789012.59"])
def test_vectorised_mmss_equals_scalar(token: str) -> None:
    assert mmss_matrix(_matrix([token])).tolist() == [parse_mmss(token)]  # type: ignore[union-attr]


@pytest.mark.parametrize("token", ["1.60", "1.", ".5", "1", "1.234", "-1.0", "1e3", "1234567890123.00"])
def test_vectorised_mmss_rejects(token: str) -> None:
    assert mmss_matrix(_matrix([token, "1.00"])) is None
    assert parse_mmss(token) is None


def test_vectorised_ints() -> None:
    assert parse_ints(_matrix(["1", "+7", "-3", "007", "123456789012345678"])).tolist() == [  # type: ignore[union-attr]
        1, 7, -3, 7, 123456789012345678]
    for bad in ["1.0", "", "+", "1+", "1234567890123456789", "0x1", "1 "]:
        assert parse_ints(_matrix([bad, "1"])) is None, bad


TREC_TOKENS = st.sampled_from([
    "q1", "q10", "2", "02", "Q0", "d1", "d10", "d9", "é", "DOC-0000001", "x" * 40, "x" * 70, "", "1", "-3", "+4",
    "1.5", "1e3", "nan", "inf", "0", "-0.0", "12.5", "7", "run", "\u00a0", "a\x00", "\xff",
])


@st.composite
def trec_files(draw: st.DrawFn, n_fields: int, valid: list[str]) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        n = draw(st.sampled_from([n_fields - 1, n_fields, n_fields, n_fields, n_fields + 1]))
        toks = [draw(TREC_TOKENS) if draw(st.integers(0, 3)) == 0 else t for t in (valid * 2)[:n]]
        lines.append(draw(SEPARATORS).join(toks) + draw(ENDINGS))
    return "".join(lines).encode("utf-8", "surrogateescape")


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_files(6, ["q1", "Q0", "d1", "1", "0.5", "r"]))
def test_fast_path_agrees_on_trec_runs(data: bytes) -> None:
    _agree(data, TREC_RUN)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_files(4, ["q1", "0", "d1", "1"]))
def test_fast_path_agrees_on_trec_qrels(data: bytes) -> None:
    _agree(data, TREC_QRELS)


def test_long_tokens() -> None:
    """Tokens as long as the scanner keeps read as categories; a longer one leaves the file to the line parser."""
    head = "".join(f"q{i % 7} Q0 d{i} {i + 1} {i % 5}.5 run\n" for i in range(3000))
    wide = "q1 Q0 " + "D" * MAX_WIDTH + " 9 1.0 " + "r" * 50 + "\n"
    wider = "q1 Q0 " + "D" * (MAX_WIDTH + 1) + " 9 1.0 r\n"
    accented = "q1 Q0 é 1 2 r\nq1 Q0 e 2 1 r\n"
    for text, scanned in ((head, True), (head + wide, True), (head + wider, False), (accented, True)):
        data = text.encode()
        fast = scan_parse(data, TREC_RUN)
        assert (fast is not None) == scanned
        if fast is None:
            continue
        assert isinstance(fast["item"], pd.Categorical)
        slow = parse_lines(data, TREC_RUN, "f")
        for name, values in slow.items():
            assert list(fast[name]) == list(values), name


def test_factorize_bytes_orders_by_code_point() -> None:
    tokens = [b"d10", b"d9", b"", b"\xc3\xa9", b"d1", b"D", b"d10", b"a" * 9, b"a" * 9 + b"b", b"12345678", b"1234567"]
    for width in (12, 16, 24):
        values = np.array(tokens, dtype=f"S{width}")
        for sort in (True, False):
            codes, distinct = factorize_bytes(values, sort)
            assert [distinct[c] for c in codes] == tokens
            if sort:
                assert distinct.tolist() == sorted(set(tokens))
                names = decode_tokens(distinct)
                assert names is not None and list(names) == sorted({t.decode() for t in tokens})


def test_every_reader_refuses_non_utf8_saying_it_is_deliberate() -> None:
    """The groups reader decodes as the line reader does: one message, naming the byte and the documented
    difference from trec_eval."""
    from segeval.core.errors import InputError
    from segeval.readers.line_parser import DIFFERENT_ON_PURPOSE
    from segeval.readers.tables import parse_groups

    with pytest.raises(InputError) as caught:
        parse_groups(b"q1 a|b\nq2 c|d\xff\n", "groups.txt")
    assert "line 2: is not valid UTF-8 text (byte 7 of the line)" in str(caught.value)  # after "q2 c|d", 6 bytes
    assert DIFFERENT_ON_PURPOSE in str(caught.value)
