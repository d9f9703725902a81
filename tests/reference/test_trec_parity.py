"""Byte-for-byte parity with trec_eval 10.0 and, under ``--trec-eval 9``, with 9.0.8 (issue 28).

The expected outputs and exit codes are the binaries' own, stored by
``python -m tests.support.trec_boundary --trec-eval ... --trec-eval-9 ...`` in
``fixtures/trec_boundary/parity{10,9}.json.gz``: random collections in four styles (varying run
tags, grades written 02/+1/-0, qrels topics missing from the run) under trec_eval's flag sets,
repeated and parameterised ``-m``, gain tables with fractional gains, 3-decimal real parameters,
and the hand-made cases of :data:`tests.support.trec_boundary.HAND_CASES`.  The default suite
compares the first seed of each style; ``SEGEVAL_FULL=1`` compares every stored seed.  With
binaries in ``TREC_EVAL`` / ``TREC_EVAL_9``, fresh seeds are compared live.
"""

from __future__ import annotations

import io
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import full_only, run_cli, sliced
from tests.support import trec_boundary as TB

FULL = os.environ.get("SEGEVAL_FULL") == "1"
SEEDS = TB.PARITY_SEEDS if FULL else TB.PARITY_SEEDS[:1]
#: the same output read from standard input, and in batches (the run file then needs a path)
ROUTES = {"file": (), "chunked": ("--memory", "chunked", "--chunk-lines", "7"), "in-memory": ("--memory", "in-memory")}


@cache
def stored(version: str) -> dict[str, tuple[int, str]]:
    return TB.stored_parity(version)


def segeval(tmp_path: Path, qrels: str, run: str, flags: tuple[str, ...], version: str,
            route: tuple[str, ...] = ()) -> tuple[int, str, str]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    extra = ("--trec-eval", "9") if version == "9" else ()
    return run_cli("eval", *extra, *route, *flags, str(tmp_path / "qrels"), str(tmp_path / "run"))


def check(got: tuple[int, str, str], expected: tuple[int, str]) -> None:
    code, out, err = got
    want_code, want = expected
    if want_code:  # trec_eval refuses: so does segeval, with its exit code for a parameter (2)
        assert code == 2 and out == "" and "segeval: error:" in err, (code, out, err)
        return
    assert code == 0, err
    if out != want:
        wrong = [(a, b) for a, b in zip(want.splitlines(), out.splitlines(), strict=False) if a != b]
        pytest.fail(f"{len(wrong)} lines differ from trec_eval's ({len(want.splitlines())} vs "
                    f"{len(out.splitlines())} lines), first: {wrong[:3]}")


@pytest.mark.parametrize(("version", "style", "seed", "name", "flags"),
                         sliced([("10", *c) for c in TB.parity_cases("10", SEEDS)]
                                + [("9", *c) for c in TB.parity_cases("9", SEEDS)], 2, many=True),
                         ids=lambda x: str(x) if not isinstance(x, tuple) else "")
def test_generated_collections_equal_trec_eval(tmp_path: Path, version: str, style: str, seed: int, name: str,
                                               flags: tuple[str, ...]) -> None:
    """trec_eval 10.0's stored bytes, and 9.0.8's under --trec-eval 9."""
    expected = stored(version)[TB.parity_key(style, seed, name)]
    check(segeval(tmp_path, *TB.parity_collection(seed, style), flags, version), expected)


def versions_of(cases: dict[str, tuple[Any, ...]]) -> list[tuple[str, str]]:
    """(case, version) of every trec_eval version a case is stored for (its fourth field): no test is made
    for the others, so none is skipped with a reason only the case table explains."""
    return [(case, v) for case in sorted(cases) for v in ("10", "9") if v in cases[case][3]]


@pytest.mark.parametrize(("case", "version"), versions_of(TB.HAND_CASES))
def test_hand_made_cases(tmp_path: Path, case: str, version: str) -> None:
    qrels, run, flags, _ = TB.HAND_CASES[case]
    check(segeval(tmp_path, qrels, run, flags, version), stored(version)[f"hand.{case}"])


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("name", ["q", "default", "params"])
def test_every_route_prints_trec_eval_bytes(tmp_path: Path, route: str, name: str) -> None:
    """The in-memory lane, the batches and the usual path give the same bytes (the runid row is the
    last line's on every route; the tags style shuffles its lines and varies their tags)."""
    for style in ("tags", "plain"):
        expected = stored("10")[TB.parity_key(style, 0, name)]
        check(segeval(tmp_path, *TB.parity_collection(0, style), TB.PARITY_FLAGS["10"][name], "10", ROUTES[route]),
              expected)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_judged_only_emptied_rankings_on_every_route(tmp_path: Path, route: str) -> None:
    """-J leaving a topic no result, and the topics -c adds: trec_eval's 0/0 (-nan) on every route."""
    for version in ("10", "9"):
        expected = stored(version)[TB.parity_key("missing", 1, "cJ")]
        assert "-nan" in expected[1]  # the collection has such a topic
        check(segeval(tmp_path, *TB.parity_collection(1, "missing"), TB.PARITY_FLAGS[version]["cJ"], version,
                      ROUTES[route]), expected)


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("name", ["cparams", "cbare"])
def test_queries_without_results_on_every_route(tmp_path: Path, route: str, name: str) -> None:
    """-c's topics without results, some judging trec_eval's placeholder docno: its bytes on every route."""
    expected = stored("10")[TB.parity_key("placeholder", 1, name)]
    assert "ceci_nest_pas_un_docno" in TB.parity_collection(1, "placeholder")[0]
    check(segeval(tmp_path, *TB.parity_collection(1, "placeholder"), TB.PARITY_FLAGS["10"][name], "10",
                  ROUTES[route]), expected)


@pytest.mark.parametrize(("case", "version"), versions_of(TB.DELIBERATE))
def test_deliberate_differences(tmp_path: Path, case: str, version: str) -> None:
    """Where segeval differs on purpose (docs/trec_eval-semantics.md section 9): trec_eval's stored result is
    not what segeval gives, which refuses with its message or prints what the named case stores."""
    qrels, run, flags, _, code, said = TB.DELIBERATE[case]
    theirs = stored(version)[f"deliberate.{case}"]
    got_code, out, err = segeval(tmp_path, qrels, run, flags, version)
    assert got_code == code, err
    if code:
        assert out == "" and said in err, err
    elif said:
        assert out == stored(version)[said][1] != theirs[1]
    else:
        assert theirs[0] != 0 and out, theirs


def test_parameters_given_twice_are_named_on_stderr(tmp_path: Path) -> None:
    """-m P.5 -m P.10: trec_eval's stdout (P_5 only), and a note naming P.10 and the spelling that keeps both."""
    qrels, run, flags, _ = TB.HAND_CASES["given_twice"]
    code, out, err = segeval(tmp_path, qrels, run, flags, "10")
    assert (code, out) == stored("10")["hand.given_twice"]
    assert "-m P.20 is not computed" in err and "-m P.10,20 gives both" in err
    _, _, err = segeval(tmp_path, qrels, run, ("-m", "utility.1,1,0,0", "-m", "utility.2,-1,0,0"), "10")
    assert "-m utility.2,-1,0,0 is not computed" in err and "gives both" not in err  # 4 coefficients: no list
    _, _, err = segeval(tmp_path, qrels, run, ("-m", "adr_cut.3", "-m", "adr_cut.5,3"), "10")  # segeval's own
    assert "-m adr_cut.5,3 is not computed" in err and "-m adr_cut.3,5 gives both" in err


def test_run_from_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = TB.parity_collection(0, "tags")
    (tmp_path / "qrels").write_text(qrels)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run.encode())))
    got = run_cli("eval", *TB.PARITY_FLAGS["10"]["q"], str(tmp_path / "qrels"), "-")
    check(got, stored("10")[TB.parity_key("tags", 0, "q")])


def test_run_from_standard_input_as_9_0_8_reads_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """9.0.8 cannot read standard input: --trec-eval 9 gives its output for the file (-c -q: the run's topics)."""
    qrels, run = TB.parity_collection(1, "placeholder")
    (tmp_path / "qrels").write_text(qrels)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run.encode())))
    got = run_cli("eval", "--trec-eval", "9", *TB.PARITY_FLAGS["9"]["cq"], str(tmp_path / "qrels"), "-")
    check(got, stored("9")[TB.parity_key("placeholder", 1, "cq")])


# ------------------------------------------------------------------- live, with binaries (CI)

@full_only  # the slice: the stored outputs above; CI's full step runs the binaries
@pytest.mark.parametrize("version", ["10", "9"])
def test_live_parity(tmp_path: Path, version: str) -> None:
    """Fresh seeds against binaries built from ../shared/src (TREC_EVAL, TREC_EVAL_9), when given."""
    binary = os.environ.get("TREC_EVAL" if version == "10" else "TREC_EVAL_9")
    if not binary:
        pytest.skip(f"no trec_eval {version} binary (set {'TREC_EVAL' if version == '10' else 'TREC_EVAL_9'})")
    for style, seed, _, flags in TB.parity_cases(version, seeds=(101, 102)):
        qrels, run = TB.parity_collection(seed, style)
        expected = TB.run_binary(binary, qrels, run, flags, tmp_path / "trec_eval")
        check(segeval(tmp_path, qrels, run, flags, version), expected)
