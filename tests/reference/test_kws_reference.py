"""Differential tests: `segeval kws` against NIST F4DE KWSEval's stored output.

``fixtures/kws/<case>`` were made by ``scripts/kws_cases.py`` (the inputs and KWSEval's output, F4DE commit
7de28d51, for the default run, ``--zGlobalMeasures Optimum/Supremum``, ``-inc`` and other parameters; every
distinct output of 40 runs where KWSEval's output varies), and the Perl tables beside them (lc, //i, file ids).
The public sample of ``../shared/data/kws`` is compared when it is present (CI)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from segeval.protocols.speech.ecf import file_id
from segeval.protocols.speech.kwslist import detection_file
from segeval.protocols.speech.rttm import lowercase, same_word
from tests.conftest import FIXTURES, run_cli, shared

KWS = FIXTURES / "kws"
CASES = sorted(p.parent.name for p in KWS.glob("*/official_optimum.txt"))
VARIANTS = {"official.txt": [], "official_optimum.txt": ["--optimum"], "official_inc.txt": ["--inc"],
            "official_params.txt": ["-S", "0.25", "-F", "0.75", "--trials-per-second", "2", "--cost", "0.2",
                                    "--value", "2", "--p-target", "0.001"]}
PROGRESS = ("Loading ", "Performing ", "Computing ", "Summary Report: ", "Block Summary Report: ")


def tables(official: Path) -> str:
    """KWSEval's stdout without its progress lines: the tables alone."""
    return "".join(line for line in official.read_text().splitlines(keepends=True) if not line.startswith(PROGRESS))


def run(folder: Path, ecf: str = "ecf.xml", rttm: str = "rttm", kwlist: str = "kwlist.xml",
        kwslist: str = "kwslist.xml", *options: str) -> tuple[int, str, str]:
    return run_cli("kws", *options, "-e", str(folder / ecf), "-r", str(folder / rttm), "-t", str(folder / kwlist),
                   "-s", str(folder / kwslist))


def score(folder: Path, ecf: str, rttm: str, kwlist: str, kwslist: str, *options: str) -> str:
    code, out, err = run(folder, ecf, rttm, kwlist, kwslist, *options)
    assert code == 0, err
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("case", CASES)
def test_generated_case_matches_kwseval(case: str, variant: str) -> None:
    folder = KWS / case
    out = score(folder, "ecf.xml", "rttm", "kwlist.xml", "kwslist.xml", *VARIANTS[variant])
    assert out == tables(folder / variant)


@pytest.mark.parametrize("path", sorted(KWS.glob("*/official*_det.txt")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_det_curve_matches_kwseval(path: Path) -> None:
    # KWSEval -d's term-weighted curve (dat.1: score, PMiss, PFA, TWV; one row per distinct score) and its MTWV point
    # (dat.2: score, TWV, PMiss, PFA); Perl prints 15 significant digits
    out = score(path.parent, "ecf.xml", "rttm", "kwlist.xml", "kwslist.xml", "-o", "json",
                *VARIANTS[path.name.replace("_det", "")])
    doc = json.loads(out)
    rows = [[float(v) for v in line.split()] for line in path.read_text().splitlines() if not line.startswith("#")]
    if not rows:  # no detection score: KWSEval draws no curve, its one point (and segeval's) has no threshold
        assert (doc["det"]["threshold"], doc["det"]["twv"]) == ([None], [doc["mtwv"]])
        return
    *curve, best = rows
    ours = [list(point) for point in zip(*(doc["det"][k] for k in ("threshold", "p_miss", "p_fa", "twv")), strict=True)]
    assert len(ours) == len(curve)
    assert ours == [pytest.approx(row, rel=1e-13, abs=1e-15) for row in curve]
    mtwv = doc["maximum"]
    assert [mtwv["threshold"], mtwv["twv"], mtwv["p_miss"], mtwv["p_fa"]] == pytest.approx(best[:4], rel=1e-13,
                                                                                          abs=1e-15)


@pytest.mark.parametrize(("case", "rows"), [
    # a YES and a NO detection alike on one occurrence, twice: KWSEval pairs the one its memory addresses put
    # first, so its 40 runs printed all four outcomes; segeval pairs the first in the kwslist (docs/speech.md)
    ("tie", ["K1      |      river |       1 |       1 |     0 |       0 |",  # YES first: a hit
             "K2      |       bank |       1 |       0 |     1 |       1 |"]),  # NO first: a miss and a false alarm
    # NO, YES, NO alike within reach of two occurrences: two pairs, the YES among them or not (2 outcomes)
    ("tie_group", ["K1      |      river |       2 |       1 |     0 |       1 |"])])
def test_exact_ties_print_one_of_kwseval_outputs(case: str, rows: list[str]) -> None:
    outputs = {tables(path) for path in (KWS / case).glob("official_run*.txt")}
    assert len(outputs) == 2 ** len(rows)
    out = score(KWS / case, "ecf.xml", "rttm", "kwlist.xml", "kwslist.xml")
    assert out in outputs and all(row in out for row in rows)


@pytest.mark.parametrize(("case", "kwseval", "problem"), [
    ("refused_encoding", "Schemas validity error", 'kwlist.xml, line 1: encoding="": expected "UTF-8"'),
    ("refused_source_type", "Schemas validity error",  # KWSEval's validation, not always in time
     'ecf.xml, line 2: source_type="SPLITCTS": expected one of bnews, cts, splitcts, confmtg'),
    ("refused_file_name", "|   Occurrence |       0 |        0 |      0 |",  # no target: every figure NA
     "ecf.xml, line 2: file 'Fé' channel '1': expected ASCII")])
def test_what_kwseval_refuses_or_cannot_score_is_refused(case: str, kwseval: str, problem: str) -> None:
    outputs = [path.read_text() for path in (KWS / case).glob("official_run*.txt")]
    assert any(kwseval in text for text in outputs)
    code, out, err = run(KWS / case)
    assert (code, out) == (2, "") and problem in err


def test_splitcts_excerpts_count_half_with_a_note() -> None:
    # S1 40 s splitcts (20) + S2 cts 40 + S3 confmtg 40 + S4's splitcts 0-30 cut at 20 and 20-40 (10 + 10): 120
    code, out, err = run(KWS / "splitcts")
    assert code == 0 and "|                          TotDur |              120 |" in out
    assert err == (f"segeval: note: {KWS / 'splitcts' / 'ecf.xml'}: 3 of 5 excerpts have source_type=\"splitcts\"; "
                   "their duration counts half in the trials, as KWSEval counts it\n")


def hex_text(field: str) -> str:
    return "".join(chr(int(code, 16)) for code in field.split(",")) if field else ""


def test_lowercase_is_perls_lc() -> None:
    # every code point lc changes (Perl 5.36, Unicode 14) and 400 seeded strings around final sigma
    rows = [line.split(" ") for line in (KWS / "perl_lc.txt").read_text().splitlines()]
    assert len(rows) > 1400
    wrong = [(text, lc) for text, lc in rows if lowercase(hex_text(text)) != hex_text(lc)]
    assert wrong == []
    assert lowercase("ΟΔΟΣ") == "οδοσ" != "ΟΔΟΣ".lower()


def test_same_word_is_perls_case_insensitive_match() -> None:
    # each code point against its lc, uc, fc and ucfirst, both ways: 6282 pairs, 1 or 0 from Perl's //i
    with gzip.open(KWS / "perl_match.txt.gz", "rt") as handle:
        rows = [line.split(" ") for line in handle.read().splitlines()]
    assert len(rows) == 6282
    wrong = [row for row in rows if same_word(hex_text(row[0]), hex_text(row[1])) != (row[2] == "1")]
    assert wrong == []


def test_file_ids_are_kwsevals() -> None:
    # 1000 seeded names (dots, folders, sph/SPH/wav/gz): a detection's id (MMisc::split_dir_file_ext, split at the
    # first dot, only "sph" dropped) and an excerpt's (KWSecf_excerpt: the last extension dropped)
    rows = [line.split("\t") for line in (KWS / "file_ids.txt").read_text().splitlines()]
    assert len(rows) == 1000
    wrong = [row for row in rows if (detection_file(row[0]), file_id(row[0])) != (row[1], row[2])]
    assert wrong == []
    assert (detection_file("rec.v2.sph"), file_id("rec.v2.sph")) == ("rec.v2.sph", "rec.v2")


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
