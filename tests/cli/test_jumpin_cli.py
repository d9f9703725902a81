"""The jump-in point measures from the command line: eval -q on linking and search runs, compare and report,
and their parameter refusals (exit 2); every value derived by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

# Times are M.S (minutes.seconds); seconds in the comments.
QRELS = (
    "q1 Q0 v1 1.40 2.40 1\n"  # onset v1 100, relevant 100-160
    "q2 Q0 v2 0.00 0.30 1\n"  # onset v2 0, relevant 0-30
)
LINKING = (
    "q1 Q0 v1 0.00 1.00 1 0.9 a\n"  # 0-60: no relevant content; start 100 s from the onset
    "q1 Q0 v1 1.30 2.30 2 0.8 a\n"  # 90-150: 50 s relevant; start 10 s from the onset
    "q1 Q0 v2 0.00 0.30 3 0.7 a\n"  # v2: q1 has no onset there
    "q1 Q0 v1 2.20 2.50 4 0.6 a\n"  # 140-170: 20 s relevant; start 40 s from the onset
    "q2 Q0 v2 0.20 0.50 1 0.9 a\n"  # 20-50: 10 s relevant; start 20 s from the onset
)
# the same results in the search format (a jump-in column after the end; the measures read the start)
SEARCH = "".join(f"{' '.join(f[:5])} {f[3]} {' '.join(f[5:])}\n" for f in (x.split() for x in LINKING.splitlines()))
PERFECT = "q1 Q0 v1 1.40 2.40 1 0.9 b\nq2 Q0 v2 0.00 0.30 1 0.9 b\n"  # each relevant segment exactly, alone

EXPECTED = {
    # q1 rewards (150 s window, 15 s steps, onset credited once): rank 1, 100 s -> 6 steps -> 0.4, takes the
    # onset; ranks 2 and 4 find it taken -> 0: 0.4 * 0.4 / 1
    ("mgap", "q1"): "0.1600",
    ("mgap", "q2"): "0.8100",  # 20 s -> one step -> 0.9; 0.9 * 0.9 / 1
    ("mgap", "all"): "0.4850",  # (0.16 + 0.81) / 2
    ("mrr_window_10", "q1"): "0.5000",  # rank 2 starts 10 s away (the edge counts)
    ("mrr_window_10", "q2"): "0.0000",  # 20 s > 10
    ("mrr_window_30", "q2"): "1.0000",
    ("mrr_window_10", "all"): "0.2500",
    ("masp", "q1"): "0.4028",  # (50/120 + 70/180) / 2 ranks holding relevant content
    ("masp", "q2"): "0.3333",  # 10/30
    ("masp", "all"): "0.3681",  # (0.402778 + 0.333333) / 2
    ("masdwp", "q1"): "0.3639",  # (50/120 * 1.0 + 70/180 * 0.8) / 2: 10 s no step, 40 s two steps
    ("masdwp", "q2"): "0.3000",  # 10/30 * 0.9
    ("masdwp_window=60,step=0", "q2"): "0.2222",  # 10/30 * (1 - 20/60)
    # 60 s window, no steps: rank 1 (100 s away) scores 0 and leaves the onset to rank 2 (10 s: 1 - 10/60 =
    # 5/6), rank 4 finds it taken: 5/6 * (0 + 5/6) / 2
    ("mgap_window=60,step=0", "q1"): "0.3472",
}


def write(tmp_path: Path, **files: str) -> dict[str, str]:
    out = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def table(out: str) -> dict[tuple[str, str], str]:
    rows = (line.split("\t") for line in out.splitlines())
    return {(n.strip(), q.strip()): v.strip() for n, q, v in rows}


def ok(*args: str) -> str:
    code, out, err = run_cli(*args)
    assert (code, err) == (0, ""), err
    return out


MEASURES = ["-m", "mgap", "-m", "mrr_window", "-m", "masp", "-m", "masdwp", "-m", "masdwp.window=60,step=0",
            "-m", "mgap.window=60,step=0"]


@pytest.mark.parametrize("run", ["linking", "search"])
def test_eval_per_query_hand_derived(tmp_path: Path, run: str) -> None:
    f = write(tmp_path, qrels=QRELS, run=LINKING if run == "linking" else SEARCH)
    got = table(ok("eval", "-q", *MEASURES, f["qrels"], f["run"]))
    assert {k: got.get(k) for k in EXPECTED} == EXPECTED


def test_compare_and_report(tmp_path: Path) -> None:
    f = write(tmp_path, qrels=QRELS, a=LINKING, b=PERFECT)
    doc = json.loads(ok("compare", "-o", "json", "-m", "mgap", "-m", "masp.norm=qrels", f["qrels"], f["a"], f["b"]))
    assert doc["measures"] == ["mgap", "masp_norm=qrels"]
    assert doc["cells"]["a"]["mgap"]["mean"] == pytest.approx(0.485)  # as eval's
    # masp norm=qrels for a: q1 (50/120 + 70/180) / 1 = 0.805556, q2 1/3: mean 0.569444
    assert doc["cells"]["a"]["masp_norm=qrels"]["mean"] == pytest.approx((50 / 120 + 70 / 180 + 1 / 3) / 2)
    assert doc["cells"]["b"]["mgap"]["mean"] == 1.0  # the perfect run
    page = tmp_path / "r.html"
    code, _, err = run_cli("report", "-m", "mgap", "-m", "masdwp", "-m", "maisp", "-o", str(page), f["qrels"],
                             f["a"], f["b"])
    assert (code, err) == (0, "")  # segment-only measures were refused by report (it read them as document ones)
    text = page.read_text()
    assert "masdwp" in text and "mgap" in text


@pytest.mark.parametrize(("measure", "expected"), [
    ("mgap.window=0", "The 'mgap.window' parameter must be a number in [1e-100, 1e100]. Got '0' instead."),
    ("masp.norm=best", "The 'masp.norm' parameter must be one of 'retrieved', 'qrels'. Got 'best' instead."),
    ("mgap.match=all,match=once", "each key once"),
])
def test_bad_parameters_exit_2(tmp_path: Path, measure: str, expected: str) -> None:
    f = write(tmp_path, qrels=QRELS, run=LINKING)
    code, out, err = run_cli("eval", "-m", measure, f["qrels"], f["run"])
    assert (code, out) == (2, "")
    assert expected in err and "Traceback" not in err


def test_every_segment_only_measure_goes_through_the_reports_comparison(tmp_path: Path) -> None:
    # the kind of the report defect: compare_runs(also=...) planned the columns for document runs too, and
    # refused every measure that needs time spans; taken from the registry, so a new one is covered
    from segeval.analyses.compare import Statistics, compare_runs
    from segeval.measures import REGISTRY
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import validate_qrels

    f = write(tmp_path, qrels=QRELS, a=LINKING, b=PERFECT)
    timed = [f.name for f in REGISTRY.families if f.times]
    assert {"maisp", "mgap", "mrr_window", "masp", "masdwp"} <= set(timed)
    result = compare_runs(validate_qrels(read_qrels(f["qrels"])), [f["a"], f["b"]], timed,
                          statistics=Statistics(permutations=100),
                          also=["iprec_at_recall"])
    assert result.evaluations["b"].summary["mgap"] == 1.0  # the perfect run
    assert result.evaluations["a"].summary["mrr_window_10"] == 0.25  # as eval's


def test_a_value_above_one_is_noted_with_the_parameter_that_allows_it(tmp_path: Path) -> None:
    # relevant 0-10; two results 0-10: masp norm=qrels (1 + 1) / 1 = 2, mgap match=all (1 + 1 * 2/2) / 1 = 2
    f = write(tmp_path, qrels="q1 Q0 v1 0.00 0.10 1\n", run="q1 Q0 v1 0.00 0.10 1 1 r\nq1 Q0 v1 0.00 0.10 2 1 r\n")
    code, out, err = run_cli("eval", "-m", "masp.norm=qrels", "-m", "mgap_match=all", f["qrels"], f["run"])
    assert code == 0 and table(out) == {("masp_norm=qrels", "all"): "2.0000", ("mgap_match=all", "all"): "2.0000"}
    assert err.count("its parameter credits one relevant onset or segment to several results") == 2
    assert "adapter" not in err  # no adapter judges these measures
