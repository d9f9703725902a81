"""QUESST's figures from the command line: eval -q on STD list and TREC runs, compare and report on two runs,
`qbe` and `eval` printing the same digits over generated trials and every option, and bad input (exit 2,
file and line)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from tests.conftest import run_cli

#: several runs in one process unless -j says otherwise (the full step: a pool, as by default)
pytestmark = pytest.mark.usefixtures("one_process")

LN3 = math.log(3)
BETA = 12.49  # (1/100)(1 − 0.0008)/0.0008
# q1: target u1 at ln 3 (YES), non-target u2 at -ln 3 (NO); q2: target u3, non-targets u4-u6, all at 0, u3 u4 YES
KEY = "q1 u1 1\nq1 u2 0\nq2 u3 1\nq2 u4 0\nq2 u5 0\nq2 u6 0\n"


def stdlist(terms: dict[str, list[tuple[str, float, str]]], system: str = "sys") -> str:
    body = "".join(f'  <detected_termlist termid="{q}" term_search_time="1" oov_term_count="0">\n' + "".join(
        f'    <term file="{u}" channel="1" tbeg="0" dur="1" score="{s!r}" decision="{d}"/>\n' for u, s, d in ts) +
        "  </detected_termlist>\n" for q, ts in terms.items())
    return f'<?xml version="1.0"?>\n<stdlist termlist_filename="t" system_id="{system}">\n{body}</stdlist>\n'


RUN_A = stdlist({"q1": [("u1", LN3, "YES"), ("u2", -LN3, "NO")],
                 "q2": [("u3", 0.0, "YES"), ("u4", 0.0, "YES"), ("u5", 0.0, "NO"), ("u6", 0.0, "NO")]}, "a")
# b: q1 reversed (target at -ln 3, NO; non-target at ln 3, YES), q2 as a
RUN_B = stdlist({"q1": [("u1", -LN3, "NO"), ("u2", LN3, "YES")],
                 "q2": [("u3", 0.0, "YES"), ("u4", 0.0, "YES"), ("u5", 0.0, "NO"), ("u6", 0.0, "NO")]}, "b")


def write(tmp_path: Path, **files: str) -> dict[str, str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in files}


def ok(*args: str) -> str:
    code, out, err = run_cli(*args)
    assert (code, err) == (0, ""), err
    return out


def table(out: str) -> dict[tuple[str, str], str]:
    rows = (line.split("\t") for line in out.splitlines())
    return {(n.strip(), q.strip()): v.strip() for n, q, v in rows}


def test_eval_per_query_and_pooled_lines(tmp_path: Path) -> None:
    f = write(tmp_path, key=KEY, a=RUN_A)
    got = table(ok("eval", "-q", "-m", "actCnxe.prior=0.5", "-m", "actTWV", "-m", "maxTWV_threshold", f["key"], f["a"]))
    a = math.log2(4 / 3)
    assert got == {
        ("actCnxe_prior=0.5", "q1"): f"{a:.4f}",  # 0.4150: (½·log2(4/3) + ½·log2(4/3)) / H(½)
        ("actCnxe_prior=0.5", "q2"): "1.0000",  # every LLR 0
        ("actCnxe_prior=0.5", "all"): f"{0.375 * a + 0.625:.4f}",  # pooled: ½(a + 1)/2 + ½(a + 3)/4, not (a + 1)/2
        ("actTWV", "q1"): "1.0000",
        ("actTWV", "q2"): f"{1 - BETA / 3:.4f}",  # -3.1633: u4 a false alarm of 3 non-targets
        ("actTWV", "all"): f"{(2 - BETA / 3) / 2:.4f}",  # -1.0817: the mean over the queries with a target
        ("maxTWV_threshold", "q1"): f"{LN3:.4f}",
        ("maxTWV_threshold", "q2"): "inf",  # rejecting all is q2's best (accepting all: 1 − β)
        ("maxTWV_threshold", "all"): f"{LN3:.4f}",
    }


def test_compare_and_report_on_two_runs(tmp_path: Path) -> None:
    f = write(tmp_path, key=KEY, a=RUN_A, b=RUN_B)
    out = json.loads(ok("compare", "-m", "maxTWV", "-m", "minCnxe", "-o", "json", f["key"], f["a"], f["b"]))
    rows = {(run, m): cell for run, cells in out["cells"].items() for m, cell in cells.items()}
    # b's q1 ranks the non-target first: maxTWV 0 there (a: 1); q2 as a (0): pooled, b's best is at 0 ... inf:
    # rejecting all (0) or accepting q1's non-target alone (1 − ½ − β/2): 0; per-query difference (0 − 1 + 0)/2
    assert rows[("b", "maxTWV")]["mean"] == 0.0 and rows[("a", "maxTWV")]["mean"] == 0.5
    assert rows[("b", "maxTWV")]["diff"] == -0.5
    # minCnxe of b's q1: the two trials in the wrong order pool into one block (posterior ½ = the share): 1
    assert rows[("b", "minCnxe")]["diff"] == pytest.approx(0.5)  # ((1 − 0) + (1 − 1)) / 2
    assert any("pooled" in note for note in out["notes"])
    report = tmp_path / "report.html"
    ok("report", "-m", "quesst", "-o", str(report), f["key"], f["a"], f["b"])
    page = report.read_text()
    assert all(name in page for name in ("actCnxe", "minCnxe", "actTWV", "maxTWV"))


def test_trec_run_needs_bayes_decisions(tmp_path: Path) -> None:
    f = write(tmp_path, qrels="".join(f"{q} 0 {u} {r}\n" for q, u, r in (x.split() for x in KEY.splitlines())),
              run=f"q1 Q0 u1 1 {LN3!r} r\nq1 Q0 u2 2 {-LN3!r} r\nq2 Q0 u3 1 0 r\nq2 Q0 u4 2 0 r\n")
    got = table(ok("eval", "-q", "-m", "actTWV.decisions=bayes", "-m", "maxTWV", f["qrels"], f["run"]))
    # ln β = 2.52: nothing YES, both targets missed; maxTWV: q1 at ln 3 (1), q2's u5 u6 unreported score -ln 3
    # (the lowest), so at 0 q2 accepts u3 and u4: 1 − β/3 < 0, and rejects all: 0; pooled at ln 3: 1 − ½
    assert got[("actTWV_decisions=bayes", "all")] == "0.0000"
    assert (got[("maxTWV", "q1")], got[("maxTWV", "q2")], got[("maxTWV", "all")]) == ("1.0000", "0.0000", "0.5000")
    code, _, err = run_cli("eval", "-m", "actTWV", f["qrels"], f["run"])
    assert code == 2 and "actTWV.decisions=bayes" in err


def test_the_run_is_read_whole(tmp_path: Path) -> None:
    f = write(tmp_path, key=KEY, a=RUN_A)
    code, _, err = run_cli("eval", "--route", "--memory", "chunked", "-m", "map", f["key"], f["a"])
    assert code == 0 and "route: table+whole (an STD list run (XML): read whole)" in err
    (tmp_path / "run").write_text("q1 Q0 u1 1 1 r\n")
    code, _, err = run_cli("eval", "--route", "--memory", "chunked", "-m", "minCnxe", f["key"], str(tmp_path / "run"))
    assert code == 0 and "QUESST's figures pool every trial" in err


@pytest.mark.parametrize(("case", "problem"), [
    ('<stdlist>\n  <detected_termlist termid="q1">\n    <term file="u1" score="1" decision="YES">\n</stdlist>\n',
     "a, line 4: not well-formed XML (mismatched tag)"),
    ('<stdlist>\n  <detected_termlist termid="q1">\n    <term file="u1" score="high" decision="YES"/>\n'
     '  </detected_termlist>\n</stdlist>\n', "a, line 3: <term> score is 'high'; expected a finite number"),
    ('<stdlist>\n  <detected_termlist termid="q1">\n    <term file="u1" score="1"/>\n  </detected_termlist>\n'
     '</stdlist>\n', "a, line 3: <term> has no decision= attribute"),
    ('<stdlist>\n  <detected_termlist termid="q1">\n    <term file="u1" score="1" decision="YES"/>\n'
     '    <term file="u9" score="1" decision="NO"/>\n  </detected_termlist>\n</stdlist>\n',
     "a, line 4: query q1 in utterance u9 is not a trial of the key"),
    ('<?xml version="1.0"?>\n<kwslist/>\n', "a, line 2: the root element is <kwslist>; expected <stdlist>"),
])
def test_bad_input_names_file_and_line(tmp_path: Path, case: str, problem: str) -> None:
    f = write(tmp_path, key=KEY, a=case)
    for args in (("eval", "-m", "actCnxe", f["key"], f["a"]), ("qbe", f["key"], f["a"])):
        code, out, err = run_cli(*args)
        assert (code, out) == (2, "") and f"{tmp_path}/{problem}" in err, err
        assert "Traceback" not in err


def test_bad_key_and_segment_runs(tmp_path: Path) -> None:
    f = write(tmp_path, key="q1 u1 1\nq1 u2 maybe\n", a=RUN_A, segments="q1 Q0 v1 0.00 1.00 1 1.0 r\n",
              mediaeval="q1 Q0 v1 0.00 1.00 1\n")
    code, _, err = run_cli("qbe", f["key"], f["a"])
    assert code == 2 and f"{f['key']}, line 2:" in err
    code, _, err = run_cli("eval", "-m", "minCnxe", f["mediaeval"], f["segments"])
    assert code == 2 and "minCnxe scores (query, utterance) trials" in err


def test_qbe_key_grades_are_1_or_0_while_eval_applies_l(tmp_path: Path) -> None:
    """qbe's key says 1|0: a grade 2 is refused at its line; eval's trial measures take it, a trial a target when
    its grade reaches -l, as their documented rule says."""
    f = write(tmp_path, key="q1 u1 2\nq1 u2 1\n", a=RUN_A.replace('<detected_termlist termid="q2"', '<x').split(
        "<x")[0] + "</stdlist>\n")
    code, out, err = run_cli("qbe", f["key"], f["a"])
    assert (code, out) == (2, "") and f"{f['key']}, line 1: has grade 2; expected 1 (a target) or 0" in err, err
    # q1: u1 at ln 3 YES, u2 at -ln 3 NO.  -l 1: both targets, u2 missed: actTWV 1 - 1/2 = 0.5;
    # -l 2: u2 a non-target rightly NO: 1 - 0 - β·0 = 1
    assert table(ok("eval", "-m", "actTWV", f["key"], f["a"]))[("actTWV", "all")] == "0.5000"
    assert table(ok("eval", "-l", "2", "-m", "actTWV", f["key"], f["a"]))[("actTWV", "all")] == "1.0000"


def random_case(rng: random.Random) -> tuple[str, str]:
    """A key (queries with 1-8 trials, some without a target) and an STD list reporting some of them (tied,
    repeated detections of a pair, YES and NO)."""
    key, terms = [], {}
    for q in range(rng.randint(1, 5)):
        trials = [f"u{u}" for u in rng.sample(range(12), rng.randint(1, 8))]
        reported = []
        for u in trials:
            key.append(f"q{q} {u} {rng.choice((0, 0, 1))}\n")
            for _ in range(rng.choice((0, 1, 1, 2))):
                reported.append((u, rng.choice((-4.5, -1.0, 0.0, 0.25, 2.0, 3.0, rng.uniform(-5, 5))),
                                 rng.choice(("YES", "NO"))))
        terms[f"q{q}"] = reported
    if not any(terms.values()):
        terms["q0"] = [(key[0].split()[1], 1.0, "YES")]
    return "".join(key), stdlist(terms)


OPTIONS = {"p_target": ("--p-target", ("0.0008", "0.01", "0.5")), "cost_miss": ("--cost-miss", ("100", "1", "7.5")),
           "cost_fa": ("--cost-fa", ("1", "0.3")), "prior": ("--prior", (None, "0.5", "0.02")),
           "default_score": ("--default-score", (None, "-3", "0.25")), "decisions": ("--decisions", ("given", "bayes"))}


def test_qbe_and_eval_print_the_same_digits(tmp_path: Path) -> None:
    rng = random.Random(26)
    for case in range(8):
        key, run = random_case(rng)
        f = write(tmp_path, key=key, run=run)
        chosen = {name: rng.choice(values) for name, (_, values) in OPTIONS.items()}
        flags = [x for name, v in chosen.items() if v is not None for x in (OPTIONS[name][0], v)]
        qbe = dict(line.split("\t") for line in ok("qbe", *flags, f["key"], f["run"]).splitlines()[1:])
        keys = {"actCnxe": ("p_target", "cost_miss", "cost_fa", "prior", "default_score"),
                "minCnxe": ("p_target", "cost_miss", "cost_fa", "prior", "default_score"),
                "actTWV": ("p_target", "cost_miss", "cost_fa", "default_score", "decisions"),
                "maxTWV": ("p_target", "cost_miss", "cost_fa", "default_score"),
                "maxTWV_threshold": ("p_target", "cost_miss", "cost_fa", "default_score")}
        measures = {figure: f"{figure}." + ",".join(f"{k}={chosen[k]}" for k in ks if chosen[k] is not None)
                    for figure, ks in keys.items()}
        args = [x for m in measures.values() for x in ("-m", m)]
        evaluated = ok("eval", "-c", *args, f["key"], f["run"])  # -c: key queries the run does not report too
        printed = [line.split("\t")[2].strip() for line in evaluated.splitlines()]
        assert printed == [qbe[figure] for figure in measures], (case, chosen, key, run)
