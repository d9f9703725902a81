"""The one measure-parameter parser (segeval.measures.params), used by every family and command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from segeval.core.domains import MAX_WHOLE
from segeval.core.errors import ParameterError
from segeval.measures.definitions import ECOSYSTEM, FAMILIES, REGISTRY, for_trec_eval, resolve
from segeval.measures.params import Params
from tests.conftest import run_cli

#: text that is no finite number, and numbers no cut-off can be (issue 27 item 14)
NOT_FINITE = ("nan", "inf", "-inf", "1e400", "NaN", "0x10", "1,,2")
NOT_CUTOFFS = (*NOT_FINITE, "0", "-5", "1e19", "99999999999999999999", str(MAX_WHOLE + 1), "5x", "5,nan")


def example(kind: str) -> list[str]:
    return [f.name for f in FAMILIES if f.param == kind]


@pytest.mark.parametrize("family", example("cutoff"))
@pytest.mark.parametrize("text", NOT_CUTOFFS)
def test_cutoffs_refuse_what_is_no_whole_number(family: str, text: str) -> None:
    with pytest.raises(ParameterError, match=f"The '{family}' parameters must be whole numbers"):
        REGISTRY.expand(f"{family}.{text}")


@pytest.mark.parametrize("family", example("level") + example("reals"))
@pytest.mark.parametrize("text", NOT_FINITE)
def test_real_parameters_refuse_what_is_not_finite(family: str, text: str) -> None:
    with pytest.raises(ParameterError, match=f"The '{family}' parameters? must be"):
        REGISTRY.expand(f"{family}.{text}")


@pytest.mark.parametrize("family", example("gains"))
@pytest.mark.parametrize("text", ["1=nan", "1=inf", "2=1e400", "1", "1=2=3", "=3", "1=3,,2=1"])
def test_gain_pairs_refuse_what_is_malformed(family: str, text: str) -> None:
    if family in ECOSYSTEM.dotted and text.isdigit():  # ranx's rbp.NN: persistence 0.NN (test_ecosystem.py)
        assert [m.name for m in REGISTRY.expand(f"{family}.{text}")] == [f"{ECOSYSTEM.dotted[family]}_p=0.{text}"]
        return
    refused = rf"The '{family}(\.[12])?' parameters? must be (a number|name=value pairs)"
    with pytest.raises(ParameterError, match=refused):
        REGISTRY.expand(f"{family}.{text}")


@pytest.mark.parametrize("family", [f.name for f in FAMILIES if f.param is not None])
def test_an_empty_parameter_is_refused(family: str) -> None:
    with pytest.raises(ParameterError, match=f"The '{family}' parameters must follow the dot"):
        REGISTRY.expand(f"{family}.")


def test_cutoffs_are_read_as_atol_sorted_and_once() -> None:
    # atol: 23.4 is 23 (trec_eval prints ndcg_cut_23); sorted ascending
    assert [m.name for m in REGISTRY.expand("ndcg_cut.20,10,23.4")] == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]
    with pytest.raises(ParameterError, match="trec_eval refuses duplicate cut-offs too"):
        REGISTRY.expand("P.5,5")
    with pytest.raises(ParameterError, match="duplicate"):
        REGISTRY.expand("P.5.5,5")  # both are 5 after atol


def test_real_cutoffs_are_doubles_printed_with_two_decimals() -> None:
    ms = REGISTRY.expand("iprec_at_recall..333,.155,.33")
    assert [m.param for m in ms] == [0.155, 0.33, 0.333]  # the doubles themselves, never rounded
    assert [m.label for m in ms] == ["iprec_at_recall_0.15", "iprec_at_recall_0.33", "iprec_at_recall_0.33"]
    assert len({m.name for m in ms}) == 3  # results are keyed by name: the keys stay distinct
    assert REGISTRY.expand("Rprec_mult.0.339")[0].label == "Rprec_mult_0.34"
    assert REGISTRY.measure("iprec_at_recall_0.10").param == 0.1


def test_reals_and_gains_keep_their_text() -> None:
    [relstring] = REGISTRY.expand("relstring.2.9")
    assert relstring.label == "relstring_2.9" and relstring.param == Params("2.9", values=(2.9,))
    [ndcg] = REGISTRY.expand("ndcg.p=2,1=3")
    assert ndcg.label == "ndcg_p=2,1=3" and ndcg.param.gain_levels() == ((1, 3.0),)  # type: ignore[union-attr]
    [rbp] = REGISTRY.expand("rbp.p=0.8")
    assert rbp.param.named("p", 0.9) == 0.8  # type: ignore[union-attr]
    with pytest.raises(ParameterError, match="must be 4 numbers"):
        REGISTRY.expand("utility.1,2")


def test_a_measure_given_twice_is_computed_once_first_with_parameters_wins() -> None:
    assert [m.name for m in resolve(["P.10", "P.20"])] == ["P_10"]
    assert [m.name for m in resolve(["11pt_avg.0.5,0.25", "11pt_avg"])] == ["11pt_avg_0.5,0.25"]
    assert [m.name for m in resolve(["P", "P.20"])] == ["P_20"]
    assert [m.name for m in resolve(["P_10", "P_10", "P@10"])] == ["P_10"]
    official = [m.name for m in resolve(["official", "P.5"])]
    assert [n for n in official if n.startswith("P_")] == ["P_5"]
    with pytest.raises(ParameterError):
        resolve(["P.10", "P.nan"])  # a later parameter is still checked


def test_trec_eval_9_has_no_measures_new_in_10() -> None:
    names = for_trec_eval(["all_trec"], "9")
    assert "rbp" not in names and "unj" not in names and "P" in names
    for name in ("rbp", "rbp_resid.p=0.5", "unj.5", "dcg", "ideal_dcg"):
        with pytest.raises(ParameterError, match="new in trec_eval 10"):
            for_trec_eval([name], "9")
    assert for_trec_eval(["rbp"], "10") == ["rbp"]


@pytest.mark.parametrize("command", ["eval", "compare", "report"])
@pytest.mark.parametrize("measure", ["P.nan", "ndcg_cut.1e19", "iprec_at_recall.inf", "ndcg.1=nan", "Judged.inf"])
def test_every_command_refuses_with_the_parameter_named(tmp_path: Path, command: str, measure: str) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    (tmp_path / "r2").write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")
    r2 = str(tmp_path / "r2")
    args = {"eval": [q, r], "compare": [q, r, r2], "report": [q, r, r2, "-o", str(tmp_path / "x.html")]}[command]
    code, _, err = run_cli(command, "-m", measure, *args)
    assert code == 2 and re.search(rf"The '{measure.split('.')[0]}(\.1)?' parameters? must be", err), (code, err)
    assert "Traceback" not in err


def test_json_has_no_bare_nan(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 0\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    code, out, err = run_cli("eval", "-q", "-l", "0", "-m", "Rndcg", "-o", "json", str(tmp_path / "q"),
                             str(tmp_path / "r"))
    assert code == 0, err
    assert "NaN" not in out and json.loads(out)["summary"]["Rndcg"] is None  # Rndcg is 0/0 here
    code, out, _ = run_cli("eval", "-q", "-l", "0", "-m", "Rndcg", str(tmp_path / "q"), str(tmp_path / "r"))
    assert out.endswith("Rndcg                 \tall\t  -nan\n")  # as glibc prints trec_eval's 0/0


@pytest.mark.parametrize(("flags", "reason"), [(("-l", "-1"), "trec_eval's -l -1"), (("-M", "0"), "trec_eval's -M 0")])
def test_deliberate_refusals_say_why(tmp_path: Path, flags: tuple[str, str], reason: str) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n")
    code, _, err = run_cli("eval", *flags, str(tmp_path / "q"), str(tmp_path / "r"))
    assert code == 2 and reason in err and "docs/trec_eval-semantics.md" in err, err
