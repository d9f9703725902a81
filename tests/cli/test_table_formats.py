"""Every table-printing command in every output format (one writer, docs/cli.md "Output formats"): valid JSON
(no bare NaN or Infinity), CSV as wide as its header with a JSON table's keys as its columns, text and the other
human formats rounded (no full-precision float of the JSON printed), non-finite values spelled nan/inf/-inf
(null in JSON) and the summary rows named alike."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_layer import FILES, _write
from tests.conftest import FIXTURES, run_cli

KWS = FIXTURES / "kws" / "case_exact"
MR = FIXTURES / "mr"
ANCHORS = FIXTURES / "anchoring"
#: command -> (arguments, formats, True when its text is an official tool's fixed layout, not the writer's)
COMMANDS: dict[str, tuple[list[str], tuple[str, ...], bool]] = {
    "eval": (["eval", "-q", "-j", "1", "-m", "map", "-m", "P_5", "Q", "A"], ("text", "json", "csv"), True),
    "check": (["check", "Q", "A"], ("text", "json", "csv"), False),
    "compare": (["compare", "-j", "1", "-m", "map", "Q", "A", "B"], ("text", "json", "csv", "markdown", "latex"),
                True),
    "correlate": (["correlate", "Q", "A", "B", "--adapter2", "tolerance:15"], ("text", "json", "csv"), False),
    "pool": (["pool", "Q", "A", "B", "--groups", "G", "-d", "5"], ("text", "json", "csv"), False),
    "pool-bias": (["pool-bias", "Q", "A", "B", "--groups", "G", "-d", "5", "--quiet"], ("text", "json", "csv"),
                  False),
    "incompleteness": (["incompleteness", "Q", "A", "B", "-r", "2", "--fractions", "1,0.5", "--quiet"],
                       ("text", "json", "csv"), False),
    "measures": (["measures"], ("json", "csv"), False),
    "anchoring": (["anchoring", str(ANCHORS / "anchoring_seed1.qrels"), str(ANCHORS / "anchoring_seed1.run")],
                  ("text", "json", "csv"), True),
    "detect": (["detect", "DGT", "DPRED"], ("text", "json", "csv"), False),
    "proposals": (["proposals", "DGT", "DPROP", "--max-proposals", "3"], ("text", "json", "csv"), False),
    "spot": (["spot", "SGT", "SPRED", "-m", "at1"], ("text", "json", "csv"), False),
    "kws": (["kws", "-e", str(KWS / "ecf.xml"), "-r", str(KWS / "rttm"), "-t", str(KWS / "kwlist.xml"), "-s",
             str(KWS / "kwslist.xml"), "--optimum"], ("text", "json", "csv"), True),
    "qbe": (["qbe", "QKEY", "QSYS"], ("text", "json", "csv"), False),
    "mr": (["mr", "-p", "ego4d-nlq", str(MR / "ego4d.gt.json.gz"), str(MR / "ego4d.pred.json.gz")],
           ("text", "json", "csv"), False),
    "mr nan": (["mr", "-p", "ego4d-nlq", str(MR / "ego4d-nan.gt.json.gz"), str(MR / "ego4d-nan.pred.json.gz")],
               ("json", "csv"), False),
    "mr -q": (["mr", "-q", "-p", "ego4d-nlq", str(MR / "ego4d.gt.json.gz"), str(MR / "ego4d.pred.json.gz")],
              ("text", "json", "csv"), False),
    "mr --full": (["mr", "--full", "-p", "ego4d-nlq", str(MR / "ego4d.gt.json.gz"), str(MR / "ego4d.pred.json.gz")],
                  ("text", "csv"), False),
}
CASES = [(c, f) for c, (_, formats, _) in COMMANDS.items() for f in formats]
NON_FINITE = {"nan", "inf", "-inf"}
#: spellings of a missing or non-finite number that no format may write
FOREIGN = {"NaN", "Infinity", "-Infinity", "None", "null", "n/a", "NA", "Inf", "-Inf"}


def _refuse(constant: str) -> None:
    raise AssertionError(f"bare {constant} in JSON")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("formats")
    paths = {key: str(path) for key, path in _write(root / "lines", seconds=False).items()}
    out = {name: paths[key] for name, key in FILES.items() if key in paths}
    truth = {"database": {v: {"subset": "validation", "duration": 100.0, "annotations": [
        {"segment": [10.0 + i, 20.0 + i], "label": label} for i, label in enumerate(("jump", "run", "jump"))]}
        for v in ("v1", "v2")}}
    # scores and boundaries that give means with many digits (0.8999999999999999 tIoU, 1/3 recalls)
    predictions = {"results": {v: [{"segment": [10.0 + k, 21.0 + k / 3], "score": 1 - k / 7, "label": label}
                                   for k, label in enumerate(("jump", "run", "run", "jump"))] for v in ("v1", "v2")}}
    proposals = {"results": {v: [{"segment": [9.0 + k, 20.0 + k / 3], "score": 1 - k / 7} for k in range(4)]
                             for v in ("v1", "v2")}}
    for name, doc in (("DGT", truth), ("DPRED", predictions), ("DPROP", proposals)):
        (root / f"{name}.json").write_text(json.dumps(doc))
        out[name] = str(root / f"{name}.json")
    events = [{"gameTime": f"1 - 00:0{s}", "label": "Goal", "position": str(1000 * s), "team": "home",
               "visibility": "visible"} for s in (1, 4, 7)]
    preds = [{"label": "Goal", "position": str(1000 * s + 300), "half": "1", "confidence": str(0.9 - s / 10)}
             for s in (1, 3, 7)]
    (root / "Labels-v2.json").write_text(json.dumps({"annotations": events}))
    (root / "results_spotting.json").write_text(json.dumps({"predictions": preds}))
    out["SGT"], out["SPRED"] = str(root / "Labels-v2.json"), str(root / "results_spotting.json")
    (root / "key").write_text("q1 u1 1\nq1 u2 1\nq1 u3 0\nq1 u4 0\n")
    terms = "".join(f'    <term file="{u}" channel="1" tbeg="0" dur="1" score="{s}" decision="{d}"/>\n'
                    for u, s, d in (("u1", 1.3, "YES"), ("u2", -0.7, "NO"), ("u3", 0.4, "YES")))
    (root / "sys.xml").write_text(
        '<stdlist termlist_filename="t" indexing_time="1" language="x" index_size="1" system_id="s">\n'
        f'  <detected_termlist termid="q1" term_search_time="1" oov_term_count="0">\n{terms}'
        '  </detected_termlist>\n</stdlist>\n')
    out["QKEY"], out["QSYS"] = str(root / "key"), str(root / "sys.xml")
    return out


def _run(command: str, fmt: str, files: dict[str, str]) -> str:
    args, _, _ = COMMANDS[command]
    code, out, err = run_cli(*(files.get(a, a) for a in args), "-o", fmt)
    assert code == 0, err
    return out


def _floats(doc: Any) -> list[float]:
    if isinstance(doc, dict):
        return [x for v in doc.values() for x in _floats(v)]
    if isinstance(doc, list):
        return [x for v in doc for x in _floats(v)]
    return [doc] if isinstance(doc, float) else []


def _is_table(doc: Any) -> bool:
    return isinstance(doc, list) and bool(doc) and all(
        isinstance(r, dict) and not any(isinstance(v, dict | list) for v in r.values()) for r in doc)


def _tables(doc: Any) -> list[list[dict[str, Any]]]:
    """The JSON's flat tables: the document when it is a list of flat rows, else its values that are."""
    if _is_table(doc):
        return [doc]
    return [v for v in doc.values() if _is_table(v)] if isinstance(doc, dict) else []


def _cells(text: str, fmt: str) -> list[str]:
    if fmt == "csv":
        return [c for row in csv.reader(io.StringIO(text)) for c in row]
    separators = {"markdown": "|", "latex": "&"}
    return [c.strip().removesuffix("\\\\").strip() for line in text.splitlines()
            for c in (line.split(separators[fmt]) if fmt in separators else line.replace("\t", "  ").split("  "))]


@pytest.mark.parametrize(("command", "fmt"), CASES, ids=[f"{c}-{f}" for c, f in CASES])
def test_every_command_in_every_format(command: str, fmt: str, files: dict[str, str]) -> None:
    out = _run(command, fmt, files)
    assert out.endswith("\n")
    if fmt == "json":
        json.loads(out, parse_constant=_refuse)
        return
    cells = _cells(out, fmt)
    assert not FOREIGN & set(cells), FOREIGN & set(cells)
    if fmt == "csv":
        blocks = [list(csv.reader(io.StringIO(b))) for b in out.split("\n\n") if b.strip()]
        assert all(len({len(r) for r in rows}) == 1 for rows in blocks)  # every row as wide as its header
        if "json" in COMMANDS[command][1]:
            tables = _tables(json.loads(_run(command, "json", files)))
            if tables:  # the JSON's tables are the CSV's blocks: the same columns and rows
                assert [rows[0] for rows in blocks] == [list(t[0]) for t in tables]
                assert [len(rows) - 1 for rows in blocks] == [len(t) for t in tables]
        return
    if COMMANDS[command][2] or command == "mr --full":
        return  # an official tool's fixed text layout (trec_eval, KWSEval, the anchoring toolkit, compare's cells)
    full = [x for x in _floats(json.loads(_run(command, "json", files)))
            if math.isfinite(x) and repr(float(format(x, ".6g"))) != repr(x)]
    assert full or command in ("check", "pool"), "a case that cannot fail: no number of more than 6 digits"
    shown = [repr(x) for x in full if repr(x) in cells]
    assert not shown, shown  # a human table rounds


def test_non_finite_values_are_spelled_alike(files: dict[str, str], tmp_path: Path) -> None:
    # every run scores the same in setting 2 (num_ret of one result per query): tau and rho are undefined
    for name in ("A", "B"):
        (tmp_path / name).write_text("".join(f"{q} Q0 {v} 0.00 0.10 1 1 {name}\n" for q, v in
                                             (("anchor_1", "v1"), ("anchor_2", "v2"), ("anchor_3", "v3"))))
    args = ["correlate", files["Q"], str(tmp_path / "A"), str(tmp_path / "B"), "-m", "P_1", "--measure2", "num_ret"]
    outs = {fmt: run_cli(*args, "-o", fmt)[1] for fmt in ("text", "json", "csv")}
    doc = json.loads(outs["json"], parse_constant=_refuse)
    assert doc["kendall_tau_b"] is None  # null in JSON
    text = dict(line.split("\t") for line in outs["text"].split("\n\n")[1].splitlines()[1:])
    rows = dict(r for r in csv.reader(io.StringIO(outs["csv"].split("\n\n")[1])))
    assert text["kendall_tau_b"] == rows["kendall_tau_b"] == "nan"


def test_the_summary_rows_are_named_alike(files: dict[str, str]) -> None:
    """The mean over thresholds or tolerances of a mean AP: one row name, its class empty (all classes)."""
    detect = json.loads(_run("detect", "json", files))
    spot = json.loads(_run("spot", "json", files))
    rows = list(csv.DictReader(io.StringIO(_run("spot", "csv", files))))
    assert [r["class"] for r in detect if r["figure"] == "Average-mAP"] == [""]
    assert [r["figure"] for r in detect if r["tiou"] is not None and r["class"] == ""] == ["mAP"] * 10
    assert {r["figure"] for r in rows} == {"Average-mAP"} and float(
        next(r["value"] for r in rows if r["class"] == "" and r["variant"] == "all")) == spot["at1"]["a_mAP"]
