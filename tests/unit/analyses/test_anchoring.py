"""Anchor detection (``segeval anchoring``): a drawn example with hand-derived values, the toolkit
script's outputs on generated data (byte for byte), the shipped example, policies and bad input.

The stored ``tests/fixtures/anchoring/*.out`` are the standard output of the hyperlinking toolkit's
``sh_eval_anchoring.py`` (github.com/robinaly/sh_eval, patched only to call
``loadVideoFiles(opt.task)``), run under Python 2.7 by ``scripts/anchoring_cases.py``.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest

from segeval.core.errors import InputError
from segeval.protocols.anchoring.evaluate import evaluate_anchoring
from tests.conftest import FIXTURES, ROOT, run_cli
from tests.support.scripts import load_script
from tests.support.timeline import spans

generate = load_script("anchoring_cases").generate

ANCHORING = FIXTURES / "anchoring"
SEEDS = (1, 2, 3, 4, 5)

# One character is one second; second 0 is column 5 (tests/support/timeline.py's marks).  Query v1
# (v2: one relevant anchor, no result; v3: only a non-relevant anchor; v4: results but no anchor).
DRAWN = """
rel: [=====]...[===]...........................
rel: ............[=====]
non: ....................[===]
1:   ......[===]
2:   *
3:   ...........[=]
4:   .............[=]
5:   .....................[]
6:   ....*
7:   ..............................[====]
9:   .....[==]
10:  .........................[====]
11:  [==]
"""
# the anchors: A (0,6) rel, B (10,14) rel, C (12,18) rel, N (20,24) not relevant; R = 3.
# the results (rank 8 is reversed, (3,1), not drawn), with the whole seconds they cover:
#  1 (6,10)  6..9   touches A's end and B's start: meets nothing        -> unjudged
#  2 (0,0)   ends at 0, so the point 0: in A                             -> first relevant, A new
#  3 (11,13) 11,12  meets B (10..13) and C (12..17)                       -> B and C new: one credit
#  4 (13,15) 13,14  meets B and C, both already credited                  -> no credit
#  5 (21,22) 21     meets N                                               -> judged, not relevant
#  6 (4,4)   none   zero length away from 0                               -> unjudged
#  7 (30,35)        no anchor                                             -> unjudged
#  8 (3,1)   none   reversed                                              -> unjudged
#  9 (5,8)   5..7   meets A, already credited                             -> no credit
# 10 (25,30)        no anchor                                             -> unjudged
# 11 (0,3)          meets A, but below rank 10
V1 = {
    "MRR": 1 / 2,               # first relevant hit at rank 2
    "Unjudged_10": 5.0,         # ranks 1, 6, 7, 8, 10
    "Unjudged_1000": 5.0,       # rank 11 meets A: judged
    "P_10": 2 / 10,             # ranks 2 (A) and 3 (B and C: one result, one credit) in the top 10
    "recall": 2 / 3,            # top R=3: ranks 2 and 3 credit (3 anchors found by 2 results: 2, not 3)
}
# all rows: sums over the run's queries / num_q = 2 (v1, v2; v3 has no relevant anchor)
ALL = {"P_10": 0.2 / 2, "recall": (2 / 3) / 2, "Unjudged_1000": 5 / 2, "Unjudged_10": 5 / 2, "MRR": 0.5 / 2}
DRAWN_TEXT = """\
runid         all drawn.run
num_q         all 2
MRR           v1  0.50000
Unjudged_10   v1  5.00000
Unjudged_1000 v1  5.00000
P_10          v1  0.20000
recall        v1  0.66667
num_q_ret     all 1
P_10          all 0.10000
recall        all 0.33333
Unjudged_1000 all 2.50000
Unjudged_10   all 2.50000
MRR           all 0.25000
"""


def mmss(seconds: int) -> str:
    return f"{seconds // 60}.{seconds % 60:02d}"


def drawn_files(tmp_path: Path, *, with_v4: bool = False) -> tuple[Path, Path]:
    qrels, run = [], []
    for line in DRAWN.strip("\n").splitlines():
        name, drawing = line[:5].rstrip(": "), line[5:]  # every drawing starts in column 5
        for s, e in spans(drawing):
            if name in ("rel", "non"):
                qrels.append(f"v1 {mmss(s)} {mmss(e)} {1 if name == 'rel' else 0}")
            else:
                run.append((int(name), f"v1 Q0 {mmss(s)} {mmss(e)} {name} {20 - int(name)} drawn"))
    run.append((8, "v1 Q0 0.03 0.01 8 12 drawn"))
    lines = [text for _, text in sorted(run)]
    if with_v4:
        lines.append("v4 Q0 0.00 0.05 1 1 drawn")
    qrels += ["v2 0.00 0.10 1", "v3 0.00 0.05 0"]
    qrels_path, run_path = tmp_path / "drawn.qrels", tmp_path / "drawn.run"
    qrels_path.write_text("\n".join(qrels) + "\n")
    run_path.write_text("\n".join(lines) + "\n")
    return qrels_path, run_path


def test_drawn_example_hand_values(tmp_path: Path) -> None:
    ev = evaluate_anchoring(*drawn_files(tmp_path))
    assert ev.num_q == 2 and ev.num_q_ret == 1
    assert ev.per_query == {"v1": V1}
    assert ev.means == ALL
    assert list(ev.means) == ["P_10", "recall", "Unjudged_1000", "Unjudged_10", "MRR"]
    assert any("1 of 2 queries with a relevant anchor have no result (first: v2)" in n for n in ev.notes)


def test_drawn_example_text(tmp_path: Path) -> None:
    # the same text is what the toolkit's script prints on these two files (checked by hand once)
    code, out, _ = run_cli("anchoring", *map(str, drawn_files(tmp_path)))
    assert code == 0 and out == DRAWN_TEXT


def test_run_query_without_relevant_anchor(tmp_path: Path) -> None:
    # the toolkit divides by zero on v4 (no relevant anchor); segeval skips it with a note, or stops
    qrels, run = drawn_files(tmp_path, with_v4=True)
    code, out, err = run_cli("anchoring", str(qrels), str(run))
    assert code == 0 and out == DRAWN_TEXT
    assert "1 query of the run has no relevant anchor in the qrels and are not evaluated (first: v4)" in err
    code, out, err = run_cli("anchoring", "--no-relevant", "error", str(qrels), str(run))
    assert code == 2 and out == ""
    assert f"{run}, line 12: query 'v4' has no relevant anchor" in err
    assert "line 12: v4 Q0 0.00 0.05 1 1 drawn" in err


@pytest.mark.parametrize("seed", SEEDS)
def test_toolkit_output_byte_for_byte(seed: int) -> None:
    stem = ANCHORING / f"anchoring_seed{seed}"
    code, out, _ = run_cli("anchoring", str(stem.with_suffix(".qrels")), str(stem.with_suffix(".run")))
    assert code == 0
    assert out.encode() == stem.with_suffix(".out").read_bytes()


@pytest.mark.parametrize("seed", SEEDS)
def test_fixtures_are_the_generator_output(seed: int) -> None:
    stem = ANCHORING / f"anchoring_seed{seed}"
    qrels, run = generate(seed)
    assert stem.with_suffix(".qrels").read_text() == qrels
    assert stem.with_suffix(".run").read_text() == run


def test_fixtures_hold_the_boundary_cases() -> None:
    lines = [ln.split() for s in SEEDS for ln in (ANCHORING / f"anchoring_seed{s}.run").read_text().splitlines()]
    times = [(int(a.split(".")[0]) * 60 + int(a.split(".")[1]), int(b.split(".")[0]) * 60 + int(b.split(".")[1]))
             for _, _, a, b, *_ in lines]
    assert any(s > e for s, e in times) and any(s == e > 0 for s, e in times) and (0, 0) in times
    assert any(s > 0 and e == 0 for s, e in times)
    outs = "".join((ANCHORING / f"anchoring_seed{s}.out").read_text() for s in SEEDS)
    assert "Unjudged_1000 v302_7061 499.00000" in outs  # a query with more than 1000 results


def test_shipped_example() -> None:
    folder = ROOT / "examples" / "anchoring"
    code, out, _ = run_cli("anchoring", str(folder / "anchors.qrels"), str(folder / "detector.run"))
    assert code == 0 and out == (folder / "expected.txt").read_text()


def test_json_and_csv_carry_the_text_values(tmp_path: Path) -> None:
    stem = ANCHORING / "anchoring_seed5"
    args = [str(stem.with_suffix(".qrels")), str(stem.with_suffix(".run"))]
    text = [ln.split() for ln in run_cli("anchoring", *args)[1].splitlines()]
    data = json.loads(run_cli("anchoring", "-o", "json", *args)[1])
    rows = list(csv.reader(io.StringIO(run_cli("anchoring", "-o", "csv", *args)[1])))
    assert rows[0] == ["measure", "query", "value"] and [r[:2] for r in rows[1:]] == [t[:2] for t in text]
    compared = 0
    for (m, q, shown), (_, _, full) in zip(text, rows[1:], strict=True):
        if m in ("runid", "num_q", "num_q_ret"):
            assert shown == full == str(data[m])
            continue
        value = data["all"][m] if q == "all" else data["queries"][q][m]
        assert float(full) == value and f"{value:0.5f}" == shown
        compared += 1
    assert compared == 5 * (data["num_q_ret"] + 1)


def test_gzip_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = drawn_files(tmp_path)
    gz = tmp_path / "drawn.run.gz"
    gz.write_bytes(gzip.compress(run.read_bytes()))
    code, out, _ = run_cli("anchoring", str(qrels), str(gz))
    assert code == 0 and out == DRAWN_TEXT.replace("drawn.run", "drawn.run.gz")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(run.read_bytes())))
    code, out, _ = run_cli("anchoring", str(qrels), "-")
    assert code == 0 and out.startswith("runid         all -\n")


def test_empty_run_prints_the_toolkit_header(tmp_path: Path) -> None:
    qrels, _ = drawn_files(tmp_path)
    empty = tmp_path / "empty"
    empty.write_text("")
    # the toolkit's script prints exactly these three lines for an empty run
    assert run_cli("anchoring", str(qrels), str(empty))[1] == "runid     all empty\nnum_q     all 2\nnum_q_ret all 0\n"


def test_lines_apart_are_ranked_together_with_a_note(tmp_path: Path) -> None:
    qrels = tmp_path / "q"
    qrels.write_text("a 0.00 0.10 1\nb 0.00 0.10 1\n")
    run = tmp_path / "r"
    # a: ranks 1 (miss) then, after b's line, 2 (hit): one ranking of a, MRR 1/2
    run.write_text("a Q0 0.20 0.30 1 3 x\nb Q0 0.00 0.05 1 3 x\na Q0 0.00 0.05 2 2 x\n")
    ev = evaluate_anchoring(qrels, run)
    assert ev.per_query["a"]["MRR"] == 0.5 and ev.num_q_ret == 2
    assert any("not together" in n and "(first: a, line 3)" in n for n in ev.notes)


def test_order_by_rank(tmp_path: Path) -> None:
    qrels = tmp_path / "q"
    qrels.write_text("a 0.00 0.10 1\n")
    run = tmp_path / "r"
    run.write_text("a Q0 0.20 0.30 1 3 x\na Q0 0.00 0.05 3 2 x\na Q0 0.40 0.45 2 2 x\n")
    assert evaluate_anchoring(qrels, run).per_query["a"]["MRR"] == 1 / 2  # file order: hit second
    assert evaluate_anchoring(qrels, run, order="rank").per_query["a"]["MRR"] == 1 / 3  # rank 3


@pytest.mark.parametrize(("which", "content", "expected"), [
    ("run", "a Q0 0.00 0.05 1 3\n", "line 1: has 6 fields; expected 7 fields for a MediaEval anchoring run line"),
    ("run", "a Q0 0.00 0.75 1 3 x\n", "line 1: field 4 (end) is '0.75'; expected an M.S time"),
    ("run", "a Q0 -0.05 0.10 1 3 x\n", "field 3 (start) is '-0.05'; expected an M.S time"),
    ("run", "a Q0 0.00 0.05 one 3 x\n", "field 5 (rank) is 'one'; expected an integer"),
    ("run", "a Q0 0.00 0.05 1 nan x\n", "field 6 (score) is 'nan'; expected a finite number"),
    ("qrels", "a 0.00 0.10 1\na 0.00 0.10\n",
     "line 2: has 3 fields; expected 4 fields for a MediaEval anchoring qrels line"),
    ("qrels", "a 0.00 0.10 yes\n", "field 4 (rel) is 'yes'; expected an integer"),
    ("qrels", "a 0.20 0.10 1\n", "line 1: the anchor ends at 10 s, before it starts at 20 s; expected start <= end"),
    ("qrels", b"a 0.00 0.10 \xff1\n", "is not valid UTF-8 text"),
])
def test_bad_input_exits_2_with_file_line_and_text(tmp_path: Path, which: str, content: str | bytes,
                                                   expected: str) -> None:
    qrels, run = tmp_path / "anchors.qrels", tmp_path / "system.run"
    qrels.write_text("a 0.00 0.10 1\n")
    run.write_text("a Q0 0.00 0.05 1 3 x\n")
    bad = run if which == "run" else qrels
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = run_cli("anchoring", str(qrels), str(run))
    assert code == 2 and out == ""
    assert err.startswith(f"segeval: error: {bad}, line ") and expected in err
    if isinstance(content, str):
        assert f"  line {content.count(chr(10))}: {content.splitlines()[-1]}" in err
    with pytest.raises(InputError):
        evaluate_anchoring(qrels, run)


def test_bad_options_exit_2(tmp_path: Path) -> None:
    qrels, run = drawn_files(tmp_path)
    for option, value in (("-o", "xml"), ("--order", "score"), ("--no-relevant", "zero"), ("--time-format", "x")):
        code, _, err = run_cli("anchoring", option, value, str(qrels), str(run))
        assert code == 2 and "must be one of" in err


def test_columns_are_padded_by_utf8_bytes_as_the_toolkit(tmp_path: Path) -> None:
    # the toolkit (Python 2) pads byte strings: 'ééé' is 6 bytes wide, so 'all' gets 3 more spaces;
    # these lines are the script's output on the same two files
    (tmp_path / "qu").write_text("ééé 0.00 0.05 1\n", encoding="utf-8")
    (tmp_path / "ru").write_text("ééé Q0 0.00 0.05 1 1 x\n", encoding="utf-8")
    out = run_cli("anchoring", str(tmp_path / "qu"), str(tmp_path / "ru"))[1]
    assert out.splitlines()[:3] == ["runid         all    ru", "num_q         all    1", "MRR           ééé 1.00000"]


def test_other_time_formats_keep_the_whole_seconds_rule(tmp_path: Path) -> None:
    _, run = drawn_files(tmp_path)
    seconds = tmp_path / "s.run"
    seconds.write_text("".join(
        " ".join([*f[:2], str(int(f[2].split(".")[0]) * 60 + int(f[2].split(".")[1])),
                  str(int(f[3].split(".")[0]) * 60 + int(f[3].split(".")[1])), *f[4:]]) + "\n"
        for f in (ln.split() for ln in run.read_text().splitlines())))
    q_seconds = tmp_path / "s.qrels"
    q_seconds.write_text("v1 0 6 1\nv1 10 14 1\nv1 12 18 2\nv1 20 24 0\nv2 0 10 1\nv3 0 5 0\n")
    ev = evaluate_anchoring(q_seconds, seconds, time_format="seconds")
    assert ev.per_query == {"v1": V1}
    # 5.5-6.2 holds no whole second of the anchor 0-6 (seconds 0..5), 6.0-6.9 neither: no hit
    seconds.write_text("v1 Q0 5.5 6.2 1 1 x\nv1 Q0 6.0 6.9 2 1 x\nv1 Q0 4.2 5.1 3 1 x\n")
    assert evaluate_anchoring(q_seconds, seconds, time_format="seconds").per_query["v1"]["MRR"] == 1 / 3
