"""The byte scanner's reading of segment files (``scan_parse``, tried first by ``parse_table``) either
declines (None) or gives exactly the columns of the line parser that defines the syntax: values, text
categories in code-point order, line numbers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings

from segeval.core.errors import InputError
from segeval.readers.formats import MEDIAEVAL_LINKING_RUN, MEDIAEVAL_QRELS, MEDIAEVAL_SEARCH_RUN, LineFormat
from segeval.readers.line_parser import parse_lines
from segeval.readers.tokenizer import scan_parse
from tests.conftest import examples
from tests.unit.readers.test_read_paths import files


def _values(column: Any) -> list[Any]:
    return list(np.asarray(column, dtype=object)) if isinstance(column, pd.Categorical) else list(column)


def _agree(data: bytes, fmt: LineFormat) -> bool:
    """Whether the scanner read the file (and then agreed with the line parser)."""
    scanned = scan_parse(data, fmt)
    try:
        slow = parse_lines(data, fmt, "f")
    except InputError:
        assert scanned is None, "the scanner accepted what the line parser rejects"
        return False
    if scanned is None:
        return False
    assert set(scanned) == set(slow) | ({"run"} if "run" in scanned else set())
    for name, values in slow.items():
        assert _values(scanned[name]) == list(values), name
    for name, column in scanned.items():
        if isinstance(column, pd.Categorical):  # the distinct values, in code-point order
            assert list(column.categories) == sorted(set(_values(column))), name
    return True


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(8))
def test_scanner_agrees_on_linking_runs(data: bytes) -> None:
    _agree(data, MEDIAEVAL_LINKING_RUN)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(6))
def test_scanner_agrees_on_qrels(data: bytes) -> None:
    _agree(data, MEDIAEVAL_QRELS)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(9))
def test_scanner_agrees_on_search_runs(data: bytes) -> None:
    _agree(data, MEDIAEVAL_SEARCH_RUN)


def test_scanner_reads_the_usual_files_and_declines_the_rest() -> None:
    linking = b"q2 Q0 v1 1.05 1.30 1 0.5 r\n\nq1 Q0 v\xc3\xa9 0.05 1.3 2 1e3 r\r\n"
    assert _agree(linking, MEDIAEVAL_LINKING_RUN)  # a blank line, CRLF, UTF-8, exponent
    assert _agree(b"q1 Q0 v1 1.05 1.30 1.00 1 5\nq2\tQ0 v1 1.05 1.30 1.00 2 5\n", MEDIAEVAL_SEARCH_RUN)  # 8 fields
    assert _agree(b"q1 Q0 v1 1.05 1.30 1\n", MEDIAEVAL_QRELS)
    assert scan_parse(b"q1 Q0 v1 1.05 1.30 1 nan r\n", MEDIAEVAL_LINKING_RUN) is None  # not a number it reads
    assert scan_parse(b"q1 Q0 v1 1.5x 1.30 1 0.5 r\n", MEDIAEVAL_LINKING_RUN) is None  # not M.S
    assert scan_parse(b"\xef\xbb\xbfq1 Q0 v1 1.05 1.30 1 0.5 r\n", MEDIAEVAL_LINKING_RUN) is None  # a BOM
    seconds = scan_parse(b"q1 Q0 v1 1.05 1.30 1 0.5 r\n", MEDIAEVAL_LINKING_RUN, "seconds")  # times per distinct token
    assert seconds is not None and list(seconds["start"]) == [1.05]
    assert scan_parse(b"q1 Q0 v1 1.05 1.30 1 0.5 r\n", MEDIAEVAL_LINKING_RUN, "hms") is None  # not H:MM:SS
