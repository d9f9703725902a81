"""A byte-order mark after the start of a file is refused wherever the blocks it is read in are cut (the mark
split between two blocks, blocks of one or two bytes), naming its line; none is found where there is none
(ASCII blocks are not searched)."""

from __future__ import annotations

import pytest

from segeval.core.errors import InputError
from segeval.readers.files import _Checks

BOM = b"\xef\xbb\xbf"
TEXT = "q1 0 d1 1\nq1 0 d2 0\nq2 0 dé 1\n".encode()


def _checked(blocks: list[bytes]) -> None:
    checks = _Checks("f", None, 1 << 20)
    for block in blocks:
        checks(block)


def _cuts(data: bytes, first: int, second: int) -> list[bytes]:
    return [data[:first], data[first:second], data[second:]]


@pytest.mark.parametrize("at", [3, 10, 11, 21, len(TEXT)])
def test_a_mark_anywhere_is_refused_with_its_line(at: int) -> None:
    data = TEXT[:at] + BOM + TEXT[at:]
    line = TEXT[:at].count(b"\n") + 1
    for first in range(len(data) + 1):
        for second in (first, first + 1, first + 2, first + 3, len(data)):
            with pytest.raises(InputError) as caught:
                _checked(_cuts(data, first, min(second, len(data))))
            assert caught.value.line == line and caught.value.kind == "byte-order mark", (first, second)


def test_no_mark_nothing_refused() -> None:
    for first in range(len(TEXT) + 1):
        _checked(_cuts(TEXT, first, first + 2))
    _checked([BOM + TEXT])  # the file's first character: not data, not refused
