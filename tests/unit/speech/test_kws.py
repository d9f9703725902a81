"""`segeval kws`: hand-derived term-weighted values and the refusals of malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

ECF = '<ecf source_signal_duration="100" language="english" version="t">\n' \
      '  <excerpt audio_filename="A.sph" channel="1" tbeg="0.0" dur="100.0" source_type="bnews"/>\n</ecf>\n'
KWLIST = '<kwlist ecf_filename="e" version="t" language="english" compareNormalize="lowercase" encoding="UTF-8">\n' \
         '  <kw kwid="K1">\n    <kwtext>river</kwtext>\n  </kw>\n</kwlist>\n'
RTTM = "LEXEME A 1 10.0 0.5 river lex s <NA>\n"


def kwslist(*detections: tuple[float, float, str], kwid: str = "K1") -> str:
    kws = "".join(f'    <kw file="A" channel="1" tbeg="{b}" dur="0.5" score="{s}" decision="{d}"/>\n'
                  for b, s, d in detections)
    return f'<kwslist kwlist_filename="k" language="english" system_id="t">\n' \
           f'  <detected_kwlist kwid="{kwid}" search_time="1" oov_count="0">\n{kws}  </detected_kwlist>\n</kwslist>\n'


def run(tmp_path: Path, system: str, *options: str, ecf: str = ECF, rttm: str = RTTM,
        terms: str = KWLIST) -> tuple[int, str, str]:
    for name, text in (("e.xml", ecf), ("r.rttm", rttm), ("t.xml", terms), ("s.xml", system)):
        (tmp_path / name).write_text(text)
    return run_cli("kws", *options, "-e", str(tmp_path / "e.xml"), "-r", str(tmp_path / "r.rttm"),
                   "-t", str(tmp_path / "t.xml"), "-s", str(tmp_path / "s.xml"))


def figures(tmp_path: Path, system: str, *options: str) -> dict[str, object]:
    code, out, err = run(tmp_path, system, "-o", "json", *options)
    assert code == 0, err
    result: dict[str, object] = json.loads(out)
    return result


def test_a_hit_is_worth_one(tmp_path: Path) -> None:
    # one occurrence, one YES detection on it: P_miss 0, P_FA 0 -> TWV 1
    result = figures(tmp_path, kwslist((10.0, 0.9, "YES")))
    assert result["atwv"] == 1.0 and result["mtwv"] == 1.0


def test_a_false_alarm_costs_beta_over_the_non_target_trials(tmp_path: Path) -> None:
    # the detection lies 40 s away: a miss (P_miss 1) and a false alarm (P_FA 1/(100-1)):
    # TWV = 1 - (1 + 999.9/99) = -10.1
    result = figures(tmp_path, kwslist((50.0, 0.9, "YES")))
    assert result["atwv"] == pytest.approx(-10.1, abs=1e-12)


def test_mtwv_takes_the_best_global_threshold(tmp_path: Path) -> None:
    # hit scoring 0.9, false alarm scoring 0.3 (NO): at 0.3 TWV = 1 - 999.9/99 = -9.1; at 0.9 it is 1
    result = figures(tmp_path, kwslist((10.0, 0.9, "YES"), (60.0, 0.3, "NO")))
    assert result["mtwv"] == 1.0 and result["mtwv_threshold"] == 0.9
    assert result["atwv"] == 1.0


def test_det_curve_has_a_point_per_score_and_mtwv_is_its_best(tmp_path: Path) -> None:
    # the same two detections: at 0.3 both YES (P_FA 1/99, TWV -9.1), at 0.9 the hit alone (TWV 1)
    result = figures(tmp_path, kwslist((10.0, 0.9, "YES"), (60.0, 0.3, "NO")))
    assert result["det"] == {"threshold": [0.3, 0.9], "p_miss": [0.0, 0.0], "p_fa": [1 / 99, 0.0],
                             "twv": [pytest.approx(1 - 999.9 / 99, abs=1e-12), 1.0]}
    assert result["maximum"] == {"p_fa": 0.0, "p_miss": 0.0, "twv": 1.0, "threshold": 0.9}


def test_det_plot_is_drawn_or_refused_before_reading(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    system = kwslist((10.0, 0.9, "YES"), (60.0, 0.3, "NO"), (30.0, 0.2, "NO"))
    code, _, err = run(tmp_path, system, "--plot", str(tmp_path / "det.svg"))
    assert code == 0, err
    assert "Term-weighted DET curve" in (tmp_path / "det.svg").read_text()
    code, out, err = run(tmp_path, system, "--plot", str(tmp_path / "det.pdf"))
    assert (code, out) == (2, "") and "must end in .png or .svg" in err


def test_mid_point_on_the_tolerance_is_a_hit(tmp_path: Path) -> None:
    # occurrence 10.0-10.5; detection 10.75-11.25 has its mid-point at 11.0 = 10.5 + 0.5: a hit
    assert figures(tmp_path, kwslist((10.75, 0.9, "YES")))["atwv"] == 1.0
    # with -S 0.25 it is out of reach: TWV = -10.1 as above
    assert figures(tmp_path, kwslist((10.75, 0.9, "YES")), "-S", "0.25")["atwv"] == pytest.approx(-10.1, abs=1e-12)


def test_beta_and_trials_options(tmp_path: Path) -> None:
    # beta 9: TWV = 1 - (1 + 9/99); 2 trials a second means 100/2 = 50 trials (KWSEval divides):
    # TWV = 1 - (1 + 999.9/49)
    system = kwslist((50.0, 0.9, "YES"))
    assert figures(tmp_path, system, "--beta", "9")["atwv"] == pytest.approx(-9 / 99, abs=1e-12)
    assert figures(tmp_path, system, "--trials-per-second", "2")["atwv"] == pytest.approx(-999.9 / 49, abs=1e-12)


def test_a_no_above_a_yes_is_refused_naming_the_term(tmp_path: Path) -> None:
    code, _, err = run(tmp_path, kwslist((10.0, 0.4, "YES"), (60.0, 0.8, "NO")))
    assert code == 2 and "term K1 has a NO detection scoring 0.8, above a YES one of term K1 scoring 0.4" in err


@pytest.mark.parametrize(("system", "expected"), [
    ("<kwslist>\n  <detected_kwlist kwid='K1'>\n</kwslist>\n",
     "s.xml, line 3: not well-formed XML (mismatched tag); expected kwslist XML"),
    (kwslist((10.0, 0.9, "MAYBE")), "s.xml, line 3: term K1: decision=\"MAYBE\"; expected YES or NO"),
    (kwslist((10.0, 0.9, "YES"), kwid="K9"), "s.xml, line 2: term K9 is not in the kwlist"),
    (kwslist((10.0, 0.9, "YES")).replace(' score="0.9"', ""), "s.xml, line 3: <kw> has no score= attribute"),
    (kwslist((10.0, 0.9, "YES")).replace('tbeg="10.0"', 'tbeg="-1"'),
     's.xml, line 3: <kw> tbeg="-1": expected a number in [0, 1e100]'),
])
def test_malformed_system_output_names_file_and_line(tmp_path: Path, system: str, expected: str) -> None:
    code, out, err = run(tmp_path, system)
    assert code == 2 and out == ""
    assert expected in err


def test_malformed_reference_names_file_and_line(tmp_path: Path) -> None:
    code, _, err = run(tmp_path, kwslist(), rttm=RTTM + "LEXEME A 1 12.0 river lex s <NA>\n")
    assert code == 2 and "r.rttm, line 2: expected 9 fields" in err
    code, _, err = run(tmp_path, kwslist(), ecf=ECF.replace(' dur="100.0"', ""))
    assert code == 2 and "e.xml, line 2: <excerpt> has no dur= attribute" in err
    code, _, err = run(tmp_path, kwslist(), terms=KWLIST.replace("<kwtext>river</kwtext>", ""))
    assert code == 2 and "t.xml, line 2: term K1: expected one non-empty <kwtext>" in err
    code, _, err = run(tmp_path, kwslist(), ecf=ECF.replace("</ecf>", ""))
    assert code == 2 and "e.xml, line 4: not well-formed XML (no element found); expected ECF XML" in err
    code, _, err = run(tmp_path, kwslist(), ecf=ECF.replace(' source_type="bnews"', ""))
    assert code == 2 and "e.xml, line 2: <excerpt> has no source_type= attribute" in err


def test_help_names_kwsevals_options() -> None:
    # KWSEval's prior is -p (--prob-of-term); its -P pools the DET curves
    code, out, _ = run_cli("kws", "--help")
    text = " ".join(out.replace("│", " ").split())  # rich's boxes and line breaks aside
    assert code == 0 and "(KWSEval -p)" in text and "KWSEval -P" not in text
