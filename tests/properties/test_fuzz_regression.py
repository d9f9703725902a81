"""The reader fuzzer, briefly and seeded: every mutated input ends in a result or a SegevalError
naming the file.  Cases a longer run once broke would live in tests/fuzz_corpus/."""

from __future__ import annotations

import math
from pathlib import Path

from tests.conftest import FULL, ROOT
from tests.support.scripts import load_script


def _fuzzer():  # type: ignore[no-untyped-def]
    return load_script("fuzz_readers")


def test_seeded_fuzzing_finds_nothing(tmp_path: Path) -> None:
    # a count of cases, never a clock: a loaded machine runs the same ones (400 in CI's full step)
    cases = 400 if FULL else 25
    executions, failures, kinds = _fuzzer().fuzz(seconds=math.inf, seed=11, corpus=tmp_path, iterations=cases)
    assert executions == cases
    assert (failures, kinds) == (0, {})


def test_corpus_cases_still_pass() -> None:
    corpus = ROOT / "tests" / "fuzz_corpus"
    fuzzer = _fuzzer()
    cases = sorted(corpus.glob("*.bin"))
    assert len(cases) >= 7
    for case in cases:
        kind = next(k for k in sorted(fuzzer.COMPANIONS, key=len, reverse=True) if case.name.startswith(f"{k}-"))
        assert fuzzer.check(kind, case, fuzzer.COMPANIONS[kind]) is None, case.name
