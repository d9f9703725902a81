"""``--trec-eval 9`` against a trec_eval 9.0.8 binary (``TREC_EVAL_9``, which .ci/run builds from
../shared/src/trec_eval-9.0.8), on the generated rounding-boundary cases of :mod:`tests.support.trec_boundary`.

Skipped without the binary (a failure under SEGEVAL_REQUIRE_REFERENCE=1). Only the variable names
it: a ``trec_eval`` on PATH may be 10.0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.support import trec_boundary as TB
from tests.support.reference import require_binary

SEEDS = (101, 102, 103)
# known differences of --trec-eval 9 from 9.0.8 (test_bytes below fails, strictly, until they are gone):
# 11pt_avg takes 10.0's cut-offs lround(p * R) where 9.0.8 takes (long)(p * R + 0.9), as it does for
# iprec_at_recall; and -m all_trec adds rbp, rbp_resid and unj_5/10/20, which 9.0.8 does not have
KNOWN = "11pt_avg"


@pytest.fixture
def trec_eval_9() -> str:
    return require_binary(variable="TREC_EVAL_9", why="build trec_eval 9.0.8 from ../shared/src/trec_eval-9.0.8")


def outputs(binary: str, directory: Path, seed: int) -> tuple[str, str]:
    """(trec_eval 9.0.8's output, segeval --trec-eval 9's) for the case under ``-q -m all_trec``."""
    case = TB.generate(seed)
    expected = TB.run_trec_eval(binary, case, directory, "all_trec")
    code, out, err = run_cli("eval", "--trec-eval", "9", *TB.COMMANDS["all_trec"],
                             str(directory / f"seed{seed}.qrels"), str(directory / f"seed{seed}.run"))
    assert code == 0, err
    return expected, out


@pytest.mark.parametrize("seed", SEEDS)
def test_every_line_of_trec_eval_9(trec_eval_9: str, tmp_path: Path, seed: int) -> None:
    """Every line 9.0.8 prints (but 11pt_avg's) is segeval's, in 9.0.8's order."""
    expected, out = outputs(trec_eval_9, tmp_path, seed)
    lines = [line for line in expected.splitlines() if line.split()[0] != KNOWN]
    printed = set(lines)
    assert len(lines) > 250
    assert [line for line in out.splitlines() if line in printed] == lines


@pytest.mark.xfail(strict=True, reason="--trec-eval 9: 11pt_avg's cut-offs, and all_trec's measures (see KNOWN)")
def test_bytes(trec_eval_9: str, tmp_path: Path) -> None:
    expected, out = outputs(trec_eval_9, tmp_path, 101)  # seed 101 has a differing 11pt_avg
    assert out == expected
