"""``eval -R qrels_jg|prefs|qrels_prefs``: byte-for-byte trec_eval 10.0's output and, under ``--trec-eval 9``,
9.0.8's, for every ``*_avgjg`` and ``prefs_*`` measure (``-q`` and summary, ``-c``, ``-M``, ``-l``, ``-J``).

The expected outputs are the binaries' own, stored by ``python scripts/trec_prefs_cases.py TREC_EVAL_10
TREC_EVAL_9 tests/fixtures/trec_prefs`` on its generated cases; judgements trec_eval refuses (it exits non-zero,
or aborts) segeval refuses with exit 2.  With binaries in ``TREC_EVAL`` / ``TREC_EVAL_9`` the cases are compared
live, and with ``TREC_EVAL_TESTS`` (trec_eval's repository test/ folder) trec_eval's own preference and
judgement-group tests are run.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_cli, sliced
from tests.support.reference import missing

STORED = FIXTURES / "trec_prefs"


@cache
def cases() -> dict[str, dict[str, Any]]:
    return json.loads((STORED / "cases.json").read_text())  # type: ignore[no-any-return]


@cache
def outputs() -> dict[str, list[Any]]:
    with gzip.open(STORED / "outputs.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def inputs(tmp_path: Path, case: dict[str, Any], flags_name: str) -> tuple[str, str]:
    rel, run = tmp_path / "rel", tmp_path / "run"
    rel.write_text(case["judgements"])
    run.write_text(case["run_c" if flags_name == "c" else "run"])
    return str(rel), str(run)


def check(got: tuple[int, str, str], expected: tuple[int, str], what: str) -> None:
    code, out, err = got
    if expected[0]:  # trec_eval refuses the judgements: so does segeval, naming the problem (exit 2)
        assert code == 2 and out == "" and "segeval: error:" in err, (what, code, out, err)
        return
    assert (code, out) == (0, expected[1]), (what, err)


@pytest.mark.parametrize(("name", "version"), sliced([(n, v) for n in sorted(cases()) for v in ("10", "9")], 4,
                                                     many=True))
def test_stored_trec_eval_outputs(tmp_path: Path, name: str, version: str) -> None:
    case = cases()[name]
    for flags_name, flags in case["flags"].items():
        extra = ("--trec-eval", "9") if version == "9" else ()
        rel, run = inputs(tmp_path, case, flags_name)
        expected = outputs()[f"{name}|{flags_name}|{version}"]
        got = run_cli("eval", *extra, "-R", case["format"], *flags, rel, run)
        check(got, expected, f"{name} {flags_name}")
        assert not expected[0] or f"error: {rel}" in got[2]  # a refusal names the judgements file


def test_every_measure_is_compared() -> None:
    """The stored outputs print every prefs_* and *_avgjg measure, per query and in the summary."""
    from segeval.measures.definitions import TREC_REL_INFO

    printed = {line.split()[0] for code, out in outputs().values() if code == 0 for line in out.splitlines()}
    assert {f.name for f in TREC_REL_INFO if f.plain} | {"P_avgjg_3", "Rprec_mult_avgjg_1.50"} <= printed


def test_results_format() -> None:
    """-T: trec_results, trec_eval's only results format, is accepted; another is refused, naming it."""
    code, _, err = run_cli("eval", "-T", "trec_top", "-R", "prefs", "r", "s")
    assert code == 2 and "'trec_results'" in err and "'trec_top'" in err
    code, _, err = run_cli("eval", "-R", "prefs_jg", "r", "s")
    assert code == 2 and "'qrels_jg'" in err


def test_measures_of_other_judgements_are_refused(tmp_path: Path) -> None:
    """A measure reads the judgements of its -R format only, on every route."""
    case = cases()["prefs.0"]
    code, _, err = run_cli("eval", "-R", "prefs", "-m", "map", *inputs(tmp_path, case, "q"))
    assert code == 2 and "map reads qrels" in err
    code, _, err = run_cli("eval", "-m", "prefs_simp", *inputs(tmp_path, case, "q"))
    assert code == 2 and "prefs_simp reads prefs or qrels_prefs" in err


def test_c_ranks_the_placeholder(tmp_path: Path) -> None:
    """-c: a judged query without results ranks trec_eval 10's placeholder docno, here judged by both groups of
    query 2: g relevant (AP 1, P_5 1/5), h not (0), so map_avgjg 1/2 and P_avgjg_5 1/10 beside query 1's 1 and
    1/5: means 0.75, 0.15 (the binary's); 9.0.8 does not evaluate the query (0: 0.5, 0.1), nor refuses its
    contradicting preferences (prefs)."""
    from segeval.core.pipeline import PLACEHOLDER

    rel, run, prefs = tmp_path / "rel", tmp_path / "run", tmp_path / "prefs"
    rel.write_text(f"1 g a 1\n2 g {PLACEHOLDER} 1\n2 g x 0\n2 h {PLACEHOLDER} 0\n2 h x 1\n")
    run.write_text("1 Q0 a 1 2 r\n")
    prefs.write_text("1 g s a 2\n1 g s b 1\n2 g s a 2\n2 g s b 1\n2 g t b 2\n2 g t a 1\n")
    for version, expected in (("10", ["0.7500", "0.1500"]), ("9", ["0.5000", "0.1000"])):
        code, out, _ = run_cli("eval", "--trec-eval", version, "-c", "-R", "qrels_jg", "-m", "map_avgjg", "-m",
                               "P_avgjg.5", str(rel), str(run))
        assert code == 0 and [line.split()[2] for line in out.splitlines()] == expected
    code, out, err = run_cli("eval", "-c", "-R", "prefs", str(prefs), str(run))
    assert code == 2 and "query '2'" in err
    code, out, _ = run_cli("eval", "--trec-eval", "9", "-c", "-R", "prefs", str(prefs), str(run))
    assert code == 0 and "num_q                 \tall\t2" in out


# ------------------------------------------------------------------- live, with binaries (CI)

def _binary(version: str) -> str:
    variable = "TREC_EVAL" if version == "10" else "TREC_EVAL_9"
    binary = os.environ.get(variable)
    if not binary:
        missing(f"no trec_eval {version} binary (set {variable})")
    return binary


@pytest.mark.parametrize("version", ["10", "9"])
def test_live(tmp_path: Path, version: str) -> None:
    """Fresh seeds of the generator against the binaries."""
    import random
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import trec_prefs_cases as G  # type: ignore[import-not-found]

    binary = _binary(version)
    for f in (G.qrels_jg, G.prefs, G.qrels_prefs):
        judgements, run = f(random.Random(101))
        case = {"judgements": judgements, "run": run, "run_c": G.run_for(run, "c")}
        for flags_name, flags in G.FLAGS[f.__name__].items():
            rel, run_path = inputs(tmp_path, case, flags_name)
            done = subprocess.run([binary, "-R", f.__name__, *flags, rel, run_path], capture_output=True, text=True,
                                  check=False)
            extra = ("--trec-eval", "9") if version == "9" else ()
            check(run_cli("eval", *extra, "-R", f.__name__, *flags, rel, run_path), (done.returncode, done.stdout),
                  f"{f.__name__} {flags_name}")


@pytest.mark.parametrize(("fmt", "rel", "run", "expected"), [
    ("prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
    ("prefs", "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
    ("qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
    ("qrels_jg", "qrels.123", "results.test", "out.test.qrels_jg"),
    ("qrels_jg", "qrels.comments.123", "results.test", "out.test.qrels_jg"),
])
def test_trec_eval_own_tests(fmt: str, rel: str, run: str, expected: str) -> None:
    """trec_eval's Makefile tests of these formats (its test/ folder in TREC_EVAL_TESTS)."""
    folder = os.environ.get("TREC_EVAL_TESTS")
    if not folder or not Path(folder, expected).exists():  # not in ../shared, so CI has none: an optional check
        pytest.skip("trec_eval's repository test/ folder is not given (TREC_EVAL_TESTS)")
    measures = "qrels_jg" if fmt == "qrels_jg" else "all_prefs"
    got = run_cli("eval", "-m", measures, "-q", "-R", fmt, str(Path(folder, rel)), str(Path(folder, run)))
    check(got, (0, Path(folder, expected).read_text()), rel)
