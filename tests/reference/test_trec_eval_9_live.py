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
def test_bytes(trec_eval_9: str, tmp_path: Path, seed: int) -> None:
    """Byte for byte, 11pt_avg's 9.0.8 cut-offs (p * R + 0.9, truncated) and its all_trec set included;
    seed 101 has an 11pt_avg on which 10.0's and 9.0.8's cut-offs differ."""
    expected, out = outputs(trec_eval_9, tmp_path, seed)
    assert len(expected.splitlines()) > 250 and out == expected
