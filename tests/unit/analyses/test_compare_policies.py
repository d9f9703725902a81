"""``compare``, ``correlate`` and ``report`` take ``-l``, ``-M``, ``-J`` and ``--trec-eval`` as ``eval`` does
(declared once in segeval.cli.options): each run's mean there is ``eval -c``'s summary with the same flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d7 -1\nq2 0 d3 1\nq2 0 d4 3\nq3 0 d5 2\n"
RUNS = {"a.run": "q1 Q0 d2 1 3.0 a\nq1 Q0 d1 2 2.0 a\nq1 Q0 d9 3 1.5 a\nq2 Q0 d3 1 3.0 a\nq2 Q0 d4 2 1.0 a\n",
        "b.run": "q1 Q0 d9 1 4.0 b\nq1 Q0 d1 2 3.00000001 b\nq1 Q0 d2 3 3.0 b\nq2 Q0 d4 1 1.0 b\nq3 Q0 d5 1 1 b\n"}
FLAGS = [[], ["-l", "2"], ["-M", "1"], ["-J"], ["--trec-eval", "9"], ["-l", "2", "-M", "2", "-J"]]


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "q").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / "q"), *(str(tmp_path / n) for n in RUNS)]


def summaries(files: list[str], flags: list[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for run in files[1:]:
        code, text, err = run_cli("eval", "-c", "-m", "map", "-m", "P_2", "-o", "json", *flags, files[0], run)
        assert code == 0, err
        out[Path(run).name] = json.loads(text)["summary"]
    return out


@pytest.mark.parametrize("flags", FLAGS, ids=" ".join)
def test_compare_takes_evals_policies(files: list[str], flags: list[str]) -> None:
    code, text, err = run_cli("compare", "-m", "map", "-m", "P_2", "-o", "json", "--permutations", "10", *flags, *files)
    assert code == 0, err
    cells = json.loads(text)["cells"]
    expected = summaries(files, flags)
    assert {run: {m: c["mean"] for m, c in cells[run].items()} for run in cells} == expected


@pytest.mark.parametrize("flags", FLAGS[1:3], ids=" ".join)
def test_correlate_takes_evals_policies(files: list[str], flags: list[str]) -> None:
    code, text, err = run_cli("correlate", "-o", "json", "-m", "map", *flags, *files)
    assert code == 0, err
    assert json.loads(text)["setting1"] == [v["map"] for v in summaries(files, flags).values()]


def test_the_policies_change_the_numbers(files: list[str]) -> None:
    """The fixtures are not blind to the flags: each flag set gives other means than the defaults."""
    plain = summaries(files, [])
    assert all(summaries(files, flags) != plain for flags in FLAGS[1:])
