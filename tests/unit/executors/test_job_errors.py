"""Errors of the job itself: a measure that needs time spans on a document run is refused with one
message (it was an internal error), and an error the same for every run is said once (it was said per run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli

TIMED = ["maisp", "avglength_ret", "avglength_rel", "num_rel_secs", "num_ret_secs", "num_rel_ret_secs", "mgap",
         "mrr_window", "masp", "masdwp"]


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 1.0 a\n")
    (tmp_path / "b").write_text("q1 Q0 d1 1 2.0 b\n")
    return [str(tmp_path / n) for n in "qab"]


@pytest.mark.parametrize("measure", TIMED)
@pytest.mark.parametrize("memory", ["auto", "chunked", "in-memory"])
def test_timed_measures_on_documents(files: list[str], measure: str, memory: str) -> None:
    code, out, err = run_cli("eval", "-m", measure, "--memory", memory, files[0], files[1])
    assert (code, out) == (2, "")
    assert err.startswith(f"segeval: error: The 'measures' parameter must name measures of document runs: {measure}")
    assert "internal error" not in err


def test_the_registry_declares_them(files: list[str]) -> None:
    from segeval.measures.definitions import FAMILIES

    assert sorted(f.name for f in FAMILIES if f.times) == sorted(TIMED)
    code, out, _ = run_cli("eval", "-m", "videos_ret", files[0], files[1])  # needs no times: one item, d1
    assert code == 0 and out.split("\t")[-1].strip() == "1"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("measure", ["xinfAP", "maisp"])
def test_a_job_error_is_said_once(files: list[str], jobs: str, measure: str) -> None:
    code, out, err = run_cli("eval", "-m", measure, "-j", jobs, *files)
    assert (code, out) == (2, "") and err.count("segeval: error:") == 1
