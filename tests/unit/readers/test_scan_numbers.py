"""The scanner's numbers (M.S times, integers, checked scores) read as the line parser's scalar
functions read them, and refuse what they refuse; its row helpers count and find as loops do."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segeval.readers.byte_tokens import first_true, mmss_matrix, row_counts
from segeval.readers.formats import parse_float, parse_int, parse_mmss
from segeval.readers.scanner import MAX_WIDTH, scan
from tests.conftest import examples

TOKENS = st.one_of(
    st.sampled_from(["0.00", "17.10", "3.0", "3.5", "01.50", "59.59", "1.60", "1.", ".5", "1", "-1", "+1", "1.0",
                     "-0.5", "+.5", "-.", "1e3", "-2E-4", "0x10", "nan", "inf", "-inf", "1e308", "1e999", "1_0",
                     "123456789012.05", "1234567890123.05", "99999999", "123456789", "000000001.5", "1.5.",
                     "..", "+", "-", "1-", "12345678.59", "1234567890123456789", "007", "1..5", "9_5", "\uff19",
                     "\u0661.5", "\u00b2", "1" * 400, "1" * 5000, "0." + "5" * 300, "Infinity", "NaN"]),
    st.from_regex(r"[+-]?[0-9]{0,14}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,3})?", fullmatch=True).filter(bool),
    st.text(alphabet="0123456789.+-eE_x\uff10\uff19\u0663\u00b2", min_size=1, max_size=17),
)


def _too_wide(tokens: list[str]) -> bool:
    """A token wider than the scanner's words: it gives up (None) and the strict reader reads the file, by the
    same grammar."""
    return any(len(t.encode()) > MAX_WIDTH for t in tokens)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(TOKENS, min_size=1, max_size=20))
def test_times_ints_and_scores_read_as_the_parser(tokens: list[str]) -> None:
    data = "".join(f"q Q0 v {t} {t} {t}\n" for t in tokens).encode()
    got = scan(data, 6, text=(0, 2), times=(3,), ints=(4,), checked_floats=(5,))
    times = [parse_mmss(t) for t in tokens]
    ints = [parse_int(t) for t in tokens]
    numbers = [parse_float(t) for t in tokens]
    if None in times or None in ints or None in numbers or _too_wide(tokens):
        assert got is None
        return
    assert got is not None
    assert got.ints[3].tolist() == times and got.ints[4].tolist() == ints


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(TOKENS, min_size=1, max_size=20))
def test_each_kind_alone(tokens: list[str]) -> None:
    data = "".join(f"q Q0 v {t}\n" for t in tokens).encode()
    for kind, parse in (("times", parse_mmss), ("ints", parse_int), ("checked_floats", parse_float)):
        got = scan(data, 4, text=(0,), **{kind: (3,)})
        values = [parse(t) for t in tokens]
        assert (got is None) == (None in values or _too_wide(tokens)), (kind, tokens)
        if got is not None and kind != "checked_floats":
            assert got.ints[3].tolist() == values


@pytest.mark.parametrize(("token", "seconds"), [("0.0", 0), ("1.5", 65), ("1.05", 65), ("1.50", 110),
                                                  ("59.59", 3599), ("123456789012.59", 123456789012 * 60 + 59)])
def test_mmss_values(token: str, seconds: int) -> None:
    width = 16
    mat = np.zeros((1, width), dtype=np.uint8)
    mat[0, : len(token)] = list(token.encode())
    got = mmss_matrix(mat)
    assert got is not None and got.tolist() == [seconds]


@pytest.mark.parametrize("width", [1, 3, 8, 9, 16, 17, 24])
def test_row_helpers(width: int) -> None:
    rng = np.random.default_rng(width)
    mask = rng.random((50, width)) < 0.2
    assert row_counts(mask).tolist() == [int(row.sum()) for row in mask]
    assert first_true(mask).tolist() == [int(np.argmax(row)) if row.any() else width for row in mask]

