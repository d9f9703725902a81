"""Differential tests: `segeval kws` against NIST F4DE KWSEval's stored output.

``fixtures/kws/<case>`` were made by ``scripts/kws_cases.py`` (the inputs and KWSEval's output, F4DE commit
7de28d51, for the default run, ``--zGlobalMeasures Optimum/Supremum``, ``-inc`` and other parameters). The
public sample of ``../shared/data/kws`` is compared when it is present (CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli, shared

CASES = sorted(p.name for p in (FIXTURES / "kws").iterdir() if p.is_dir())
VARIANTS = {"official.txt": [], "official_optimum.txt": ["--optimum"], "official_inc.txt": ["--inc"],
            "official_params.txt": ["-S", "0.25", "-F", "0.75", "--trials-per-second", "2", "--cost", "0.2",
                                    "--value", "2", "--p-target", "0.001"]}
PROGRESS = ("Loading ", "Performing ", "Computing ", "Summary Report: ", "Block Summary Report: ")


def tables(official: Path) -> str:
    """KWSEval's stdout without its progress lines: the tables alone."""
    return "".join(line for line in official.read_text().splitlines(keepends=True) if not line.startswith(PROGRESS))


def score(folder: Path, ecf: str, rttm: str, kwlist: str, kwslist: str, *options: str) -> str:
    code, out, err = run_cli("kws", *options, "-e", str(folder / ecf), "-r", str(folder / rttm),
                             "-t", str(folder / kwlist), "-s", str(folder / kwslist))
    assert code == 0, err
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("case", CASES)
def test_generated_case_matches_kwseval(case: str, variant: str) -> None:
    folder = FIXTURES / "kws" / case
    out = score(folder, "ecf.xml", "rttm", "kwlist.xml", "kwslist.xml", *VARIANTS[variant])
    assert out == tables(folder / variant)


@pytest.mark.reference
@pytest.mark.parametrize(("official", "options"), [("sample_kwseval_official.txt", []),
                                                   ("sample_kwseval_official_otwv.txt", ["--optimum"])])
def test_shared_sample_matches_kwseval(official: str, options: list[str]) -> None:
    expected = shared("kws", official)
    out = score(expected.parent, "sample.ecf.xml", "sample.rttm", "sample.kwlist.xml", "sample.kwslist.xml",
                *options)
    assert out == tables(expected)
    # the headline figures, as the sample's README states them
    assert "|   -1.2927 |       0.5009 |   0.00000 |    0.852 |   0.1476 |         0.823 |" in out
