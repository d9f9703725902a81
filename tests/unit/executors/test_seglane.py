"""The segment routes (``segments+whole``, ``segments+chunks``): the scanner's codes, and the same bytes as the
strict reader on the MediaEval fixtures (a linking run, a gzip search run), with the options the route takes."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from segeval.readers import scanner_segments as seglane
from segeval.readers.byte_tokens import Words
from tests.conftest import FIXTURES, run_cli, sliced
from tests.support.routes import cli_outcome


def words(tokens: list[bytes]) -> Words:
    """Tokens as the scanner's zero-padded little-endian words."""
    k = max(-(-len(t) // 8) for t in tokens)
    return np.frombuffer(b"".join(t.ljust(8 * k, b"\0") for t in tokens), dtype="<u8").reshape(len(tokens), k)


def test_codes_in_order_of_first_appearance_across_blocks() -> None:
    c = seglane.Codes()
    first = [b"v2", b"v10", b"v2", b"a-long-video-name-17", b"v1"]
    second = [b"v1", b"v3", b"v10", b"v3", b"a-long-video-name-17"]
    got = [c.of(words(first)).tolist(), c.of(words(second)).tolist()]
    assert got == [[0, 1, 0, 2, 3], [3, 4, 1, 4, 2]]  # v2 v10 long v1, then v3 new: 4
    assert c.names == ["v2", "v10", "a-long-video-name-17", "v1", "v3"]
    grouped = seglane.Codes()  # runs of equal tokens (queries): the heads only
    assert grouped.of(words([b"q2"] * 5 + [b"q1"] * 5)).tolist() == [0] * 5 + [1] * 5


@pytest.mark.parametrize("seed", range(6))
def test_codes_as_a_dict_over_many_blocks(seed: int) -> None:
    """Blocks of tokens of 1 to 20 bytes (narrower and wider blocks in turn, new tokens now and then): each row's
    code is its token's first appearance, as a dict numbers them."""
    rng = np.random.default_rng(seed)
    pool = [b"v" * int(rng.integers(0, 20)) + b"%d" % i for i in range(60)]
    c, seen = seglane.Codes(), {}
    for _ in range(12):
        block = [pool[i] for i in rng.integers(0, int(rng.integers(1, 61)), int(rng.integers(5, 40)))]
        expected = [seen.setdefault(t, len(seen)) for t in block]
        assert c.of(words(block)).tolist() == expected
    assert c.names == [t.decode() for t in seen]


def test_a_hash_is_never_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every token hashed alike (a multiplier of 0): the second block's tokens all find the first one's slot, and
    the check against the tokens gives up instead of giving them one code."""
    monkeypatch.setattr(seglane, "_MIX", np.uint64(0))
    c = seglane.Codes()
    c.of(words([b"v1", b"v2", b"v3", b"v4"]))
    with pytest.raises(seglane.GiveUp):
        c.of(words([b"v2", b"v1", b"v4", b"v3"]))


def test_tokens_of_one_hash_are_numbered_apart_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every token hashed alike within a block: the new tokens are not taken as one (each hash's first row
    would stand for all), and are numbered in order of first appearance."""
    monkeypatch.setattr(seglane, "_MIX", np.uint64(0))
    c = seglane.Codes()
    assert c.of(words([b"x", b"y", b"z", b"x", b"y"])).tolist() == [0, 1, 2, 0, 1]
    assert c.names == ["x", "y", "z"]


@pytest.mark.parametrize("seed", range(4))
def test_codes_number_as_a_dict_would(seed: int) -> None:
    """Random tokens (1 to 30 bytes, some repeated, widths changing between blocks), coded block by block: the
    codes are those of numbering each new token in order of first appearance."""
    rng = np.random.default_rng(seed)
    pool = [bytes(rng.integers(97, 123, size=int(rng.integers(1, 31))).astype(np.uint8)) for _ in range(300)]
    c = seglane.Codes()
    seen: list[bytes] = []
    got: list[int] = []
    for _ in range(5):
        block = [pool[i] for i in rng.integers(0, int(rng.integers(5, 301)), size=int(rng.integers(1, 2000)))]
        got += c.of(words(block)).tolist()
        seen += block
    first = list(dict.fromkeys(seen))
    assert c.names == [t.decode() for t in first]
    assert got == [first.index(t) for t in seen]


#: (adapter, options): each adapter kind and each option the route takes, once
JOBS = [("overlap", ["-q", "-c"]), ("tolerance", ["-M", "3", "-q"]), ("tiou:0.5:float32", ["-l", "2", "-J"]),
        ("binned:60:start", ["--order", "file", "-q"]), ("overlap-once", ["-o", "json"])]


@pytest.mark.parametrize(("adapter", "options"), sliced(JOBS, 6, many=True),
                         ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_the_same_bytes_as_the_strict_reader(adapter: str, options: list[str], tmp_path: Path) -> None:
    """The linking fixture and the search fixture (gzip, 9 fields) through the segment route, whole and in chunks
    of 7 lines, print what the strict reader prints from standard input (the file name aside)."""
    search = tmp_path / "search.run"
    search.write_bytes(gzip.decompress((FIXTURES / "gen_search.run.gz").read_bytes()))
    for qrels, run in ((FIXTURES / "gen_linking.qrels", FIXTURES / "gen_linking.run"),
                       (FIXTURES / "gen_search.qrels", search)):
        args = ["eval", "-a", adapter, *options, str(qrels)]
        strict = cli_outcome([*args, "-"], stdin=run.read_bytes())
        for memory in (["--memory", "in-memory"], ["--memory", "chunked", "--chunk-lines", "7"]):
            code, out, err = run_cli(*args[:1], "--route", *memory, *args[1:], str(run))
            assert "route: segments+" in err and "gave up" not in err
            assert (code, out.replace(str(run), "-")) == (strict.code, strict.stdout)
