"""The NumPy byte scanner (segeval.readers.scanner): the parser's tokens and numbers, or None on anything unusual."""

from __future__ import annotations

import random

import numpy as np
import pytest

from segeval.readers import scanner as S
from segeval.readers.formats import parse_float, parse_int


def tokens(words: np.ndarray) -> list[bytes]:
    return [bytes(row).rstrip(b"\0") for row in words.view(np.uint8).reshape(len(words), -1)]


def test_hand_made_run() -> None:
    # two lines, single spaces: fields 0 and 2 as tokens, 4 as numbers (.5 = 0.5, 1e-3 = 0.001), 3 checked
    got = S.scan(b"q1 Q0 d1 1 .5 r\nq22 Q0 doc-22 2 1e-3 r\n", 6, text=(0, 2), floats=(4,), checked_ints=(3,),
                 first=(5,))
    assert got is not None
    assert tokens(got.text[0]) == [b"q1", b"q22"] and tokens(got.text[2]) == [b"d1", b"doc-22"]
    assert got.floats[4].tolist() == [0.5, 0.001] and got.first == {5: b"r"} and got.lines == 2


LAYOUTS = {
    "tabs and runs of blanks": b"q1\tQ0  d1 1 2 r\n  q1 Q0 d2 2 1 r \n",
    "CRLF": b"q1 Q0 d1 1 2 r\r\nq1 Q0 d2 2 1 r\r\n",
    "blank lines": b"\n\n q1 Q0 d1 1 2 r\n\n  \nq1 Q0 d2 2 1 r\n\n\n",
    "no last LF": b"q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r",
    "UTF-8": "q1 Q0 dé 1 2 r\nq1 Q0 d\u4e2d 2 1 r\n".encode(),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layouts_give_the_tokens_of_split(name: str) -> None:
    data = LAYOUTS[name]
    lines = [line.split() for line in data.split(b"\n") if line.split()]
    got = S.scan(data, 6, text=(0, 2), floats=(4,), checked_ints=(3,), first=(5,))
    assert got is not None
    assert tokens(got.text[2]) == [t[2] for t in lines]
    assert got.floats[4].tolist() == [float(t[4]) for t in lines]


UNUSUAL = {
    "lone CR": b"q1 Q0 d1 1 2 r\rq1 Q0 d2 2 1 r\n",
    "CR at the end": b"q1 Q0 d1 1 2 r\r",
    "NUL": b"q1 Q0 d\x001 1 2 r\n",
    "vertical tab": b"q1 Q0 d1\x0b1 2 r\n",
    "form feed": b"q1 Q0 d1 1 2 r\x0c\n",
    "5 fields": b"q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1\n",
    "7 fields": b"q1 Q0 d1 1 2 r x\n",
    "two lines' fields on one": b"q1 Q0 d1 1 2 r q1 Q0 d2 2 1 r\n",
    "one line's fields on two": b"q1 Q0\nd1 1 2 r\n",
    "not UTF-8": b"q1 Q0 d\xff 1 2 r\n",
    "bad score": b"q1 Q0 d1 1 2.3.4 r\n",
    "bad rank": b"q1 Q0 d1 1.0 2 r\n",
    "empty": b"",
    "blank": b" \n\n",
    "token too long": b"q1 Q0 " + b"d" * (S.MAX_WIDTH + 1) + b" 1 2 r\n",
}


@pytest.mark.parametrize("name", sorted(UNUSUAL))
def test_unusual_bytes_give_up(name: str) -> None:
    assert S.scan(UNUSUAL[name], 6, text=(0, 2), floats=(4,), checked_ints=(3,), first=(5,)) is None


FLOATS = ["0", "-0", "+2", ".5", "5.", "1e-3", "1E+05", "-1.25", "+.5e-3", "007.50", "1" * 30, "0." + "1" * 40,
          "1.7976931348623157e308", "2e308", "-2e308", "1e", "e5", ".", "+", "-", "1.2.3", "--1", "1+1", "inf",
          "nan", "1_0", "0x1", "1e5.5", "١", "1,5", "12345678901234567890.123456789"]


@pytest.mark.parametrize("token", FLOATS)
def test_scores_read_as_the_parser_reads_them(token: str) -> None:
    data = f"q Q0 d 1 {token} r\n".encode()
    got = S.scan(data, 6, text=(0,), floats=(4,))
    expected = parse_float(token)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got.floats[4].tolist() == [expected]
        assert np.signbit(got.floats[4][0]) == np.signbit(expected)  # -0 stays -0 (equal to 0 in the ranking)


INTS = ["0", "007", "+5", "-3", "1" * 18, "1" * 19, "+" + "9" * 18, "1.0", "1e3", "+", "-", "12-", "١", "0x10", "1_0"]


@pytest.mark.parametrize("token", INTS)
def test_integers_read_as_the_parser_reads_them(token: str) -> None:
    got = S.scan(f"q 0 d {token}\n".encode(), 4, text=(0,), ints=(3,))
    expected = parse_int(token)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got.ints[3].tolist() == [expected]
    checked = S.scan(f"q 0 d {token}\n".encode(), 4, text=(0,), checked_ints=(3,))
    assert (checked is None) == (expected is None)


def test_random_scores_equal_the_parser() -> None:
    """Generated number tokens (signs, dots, exponents, many digits) over several blocks."""
    rng = random.Random(19)
    toks = []
    for _ in range(3000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 22)))
        at = rng.randint(0, len(digits))
        token = rng.choice(["", "-", "+"]) + (digits[:at] + "." + digits[at:] if rng.random() < 0.8 else digits)
        if rng.random() < 0.3:
            token += rng.choice("eE") + rng.choice(["", "-", "+"]) + str(rng.randint(0, 320))
        toks.append(token)
    data = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(toks)).encode()
    expected = [parse_float(t) for t in toks]
    good = [i for i, v in enumerate(expected) if v is not None]
    data = "".join(f"q Q0 d{i} 1 {toks[i]} r\n" for i in good).encode()
    got = S.scan(data, 6, text=(0,), floats=(4,))
    assert got is not None and got.floats[4].tolist() == [expected[i] for i in good]
    assert len(good) > 2000


def test_blocks_cut_anywhere_give_the_same_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    lines = [f"q{rng.randint(1, 9)}{rng.choice([' ', chr(9), '  '])}Q0 d{'x' * rng.randint(0, 20)}{i} {i + 1} "
             f"{rng.random():.5f} run{chr(13) if rng.random() < 0.1 else ''}\n" for i in range(500)]
    data = "".join(lines).encode()
    whole = S.scan(data, 6, text=(0, 2), floats=(4,), checked_ints=(3,))
    assert whole is not None
    for size in (1, 7, 64, 333):
        monkeypatch.setattr(S, "BLOCK_BYTES", size)
        parts = S.scan(data, 6, text=(0, 2), floats=(4,), checked_ints=(3,))
        assert parts is not None
        assert tokens(parts.text[2]) == tokens(whole.text[2]) and tokens(parts.text[0]) == tokens(whole.text[0])
        assert parts.floats[4].tolist() == whole.floats[4].tolist()


def test_plain_decimals_read_from_their_bytes_equal_float() -> None:
    """Plain decimals are read as (digits as a whole number) / 10**k: every one of 13 to 17 digits
    (across the 15-digit limit of that path), with halfway-looking tails, signs and leading zeros,
    mixed in one column with exponents (read by NumPy), equals Python's float, sign of zero included."""
    rng = random.Random(20)
    toks = []
    for _ in range(4000):
        n = rng.randint(13, 17)
        digits = "".join(rng.choice("0123456789") for _ in range(n - 2)) + rng.choice(["50", "49", "51", "05", "00"])
        at = rng.randint(0, n)
        token = rng.choice(["", "-", "+", "-0", "00"]) + digits[:at] + "." + digits[at:]
        toks.append(token + (f"e{rng.randint(-5, 5)}" if rng.random() < 0.1 else ""))
    toks += ["-0.0", "-.0", "0.000000000000001", "999999999999999", "9999999999999999", "0.1", "0.3", "-2."]
    data = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(toks)).encode()
    got = S.scan(data, 6, text=(0,), floats=(4,))
    assert got is not None
    for token, value in zip(toks, got.floats[4].tolist(), strict=True):
        assert value == float(token) and np.signbit(value) == np.signbit(float(token)), token


@pytest.mark.parametrize("wide", [9, 17, 40, S.MAX_WIDTH])
def test_a_wide_token_above_a_short_one_at_the_end_of_the_block(wide: int) -> None:
    """Every token of a column is gathered word by word up to the widest one's width: the short
    tokens of the last line must not read past the block (regression: 17 bytes and more failed)."""
    data = f"q Q0 {'d' * wide} 1 {'1' * wide} r\nq Q0 e 2 -2. r\n".encode()
    got = S.scan(data, 6, text=(0, 2), floats=(4,), first=(5,))
    assert got is not None
    assert got.floats[4].tolist() == [float("1" * wide), -2.0]
    docs = got.text[2].view(f"S{8 * got.text[2].shape[1]}").ravel().tolist()
    assert docs == [b"d" * wide, b"e"]


def test_the_first_line_comes_from_the_first_block_with_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of blank lines before the data: skipped, and the first fields are the first data line's."""
    monkeypatch.setattr(S, "BLOCK_BYTES", 2)
    got = S.scan(b"\n\n  \n\t\nq1 Q0 d1 1 2 tag1\nq2 Q0 d2 1 3 tag2", 6, text=(0,), floats=(4,), first=(5,))
    assert got is not None and got.first == {5: b"tag1"} and got.floats[4].tolist() == [2.0, 3.0]
    assert S.scan_blocks([b"\n", b"  \n"], 6, text=(0,)) is None  # no data line


@pytest.mark.parametrize("seed", range(30))
def test_generated_layouts_give_the_tokens_of_split(seed: int) -> None:
    """Lines of 2 to 7 fields with single spaces (the usual layout the scanner checks on the bytes), tabs,
    runs of blanks, CRLF, blank lines and a missing last LF: the tokens of ``split``, or given up exactly
    when a line has another number of fields."""
    rng = random.Random(seed)
    seps = [b" "] * 6 + [b"\t", b"  ", b" \t"] if seed % 2 else [b" "]
    lines = []
    for i in range(rng.randint(1, 40)):
        fields = [b"q%d" % rng.randint(1, 3), b"Q0", b"d%d" % i, b"%d" % (i + 1), b"%d.5" % rng.randint(0, 9), b"r"]
        if rng.random() < 0.1:  # 2 + 4 fields: two lines' worth of separators, each ending one (the LF count tells)
            fields = fields[: rng.choice([2, 4, 5])] if rng.random() < 0.7 else [*fields, b"x"]
        line = fields[0] + b"".join(rng.choice(seps) + f for f in fields[1:])
        lines.append(line + (b"\r\n" if seed % 3 == 0 and rng.random() < 0.5 else b"\n"))
        if seed % 5 == 0 and rng.random() < 0.2:
            lines.append(b"\n")
    data = b"".join(lines)
    if seed % 4 == 0:
        data = data.rstrip(b"\n")
    split = [line.split() for line in data.split(b"\n") if line.split()]
    got = S.scan(data, 6, text=(0, 2), floats=(4,), checked_ints=(3,), first=(5,))
    if any(len(t) != 6 for t in split):
        assert got is None
        return
    assert got is not None
    assert tokens(got.text[0]) == [t[0] for t in split] and tokens(got.text[2]) == [t[2] for t in split]
    assert got.floats[4].tolist() == [float(t[4]) for t in split]
