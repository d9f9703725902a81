"""Every declared parameter domain (segeval/core/domains.py) against what the code does with its values (issue 36):
for each parameter of every measure family, adapter and kws/qbe option, enumerated from the declarations,
values just inside and just outside the domain, NaN, infinities, 1e308, 1e-320 and huge integers.  Inside: a
number (finite; numpy warnings are errors); outside: a ParameterError (exit 2) naming the parameter, the value
and the domain; never an internal error."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import segeval
from segeval.cli.commands import load
from segeval.core.domains import MAX_WHOLE, OPTIONS, Domain, shown
from segeval.core.errors import ParameterError
from segeval.core.settings import ASSIGN, BINS, LENGTH_SHARE, T_COLLAR, THETA, WINDOW, Param
from segeval.measures.declaration import KeyedFamily
from segeval.measures.definitions import FAMILIES, REGISTRY
from tests.conftest import FULL, run_cli, sliced

SPECIAL = ("nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "-1e-320", "0", "1", "-1", str(10**30), "x", "")


def _number(x: float, whole: bool) -> str:
    return str(int(x)) if whole else repr(float(x))


def candidates(domain: Domain) -> list[str]:
    """Texts at and just beyond each end, a middle value, the domain's words and the special values."""
    out = list(domain.words) + list(SPECIAL)
    if domain.numbers:
        step = 1 if domain.whole else None
        for end, toward in ((domain.low, math.inf), (domain.high, -math.inf)):
            if domain.whole:
                out += [_number(end, True), _number(end - step if toward > 0 else end + step, True)]  # type: ignore[operator]
            else:
                out += [repr(end), repr(math.nextafter(end, toward)), repr(math.nextafter(end, -toward))]
        if not domain.whole:
            out.append(repr((domain.low + domain.high) / 2))
    return list(dict.fromkeys(out))


def inside(domain: Domain, text: str) -> bool:
    value = domain.value(text)
    return value is not None and domain.holds(value)


def _spec(family: str, count: int | None, name: str, text: str) -> str:
    if name in ("n", "x"):
        return f"{family}.{','.join([text] * (count or 1))}"
    return f"{family}.{'1' if name == 'gain' else name}={text}"


def cases() -> list[tuple[str, str, str, Domain]]:
    """(family, parameter, text, domain) for every declared measure parameter and candidate text."""
    out = []
    for f in FAMILIES:
        for name, domain in f.domains():
            for text in candidates(domain):
                if (name == "n" and "." in text) or "," in text:
                    continue  # trec_eval's cut-offs cut a decimal part off (test_params.py)
                out.append((f.name, name, text, domain))
    return out


CASES = cases()


def test_every_parameterised_family_declares_its_domains() -> None:
    missing = [f.name for f in FAMILIES if f.param is not None and not f.domains() and f.name != "adr_tb"]
    assert not missing  # adr_tb's parameter is a word (adr_tb.standin), checked by its function
    assert sum(1 for f in FAMILIES if isinstance(f, KeyedFamily)) >= 10 and len(CASES) > 1000


@pytest.mark.parametrize(("family", "name", "text", "domain"),
                         sliced([c for c in CASES if not inside(c[3], c[2])], 3, many=True), ids=lambda x: str(x)[:30])
def test_outside_is_refused_naming_parameter_value_and_domain(family: str, name: str, text: str,
                                                              domain: Domain) -> None:
    spec = _spec(family, REGISTRY.by_name[family].count, name, text)
    with pytest.raises(ParameterError) as error:
        REGISTRY.expand(spec)
    message = str(error.value)
    assert family in message and (text in message or shown(float(text)) in message), message
    assert str(domain) in message or "whole numbers from 1" in message or "numbers in [0" in message or \
        "separated by commas" in message or "must follow the dot" in message, message


DOCS = ("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq1 0 d4 3\n",
        "q1 Q0 d1 1 4 r\nq1 Q0 d2 2 3 r\nq1 Q0 d5 3 2 r\nq1 Q0 d3 4 1 r\n")
SUBTOPICS = ("q1 1 d1 1\nq1 2 d1 1\nq1 1 d2 1\nq1 2 d3 0\nq1 2 d4 1\n", DOCS[1])
SEGMENTS = ("v1 Q0 a 0.00 1.00 1\nv1 Q0 b 2.00 3.00 1\n", "v1 Q0 a 0.10 0.50 1 1.0 r\nv1 Q0 c 0.00 1.00 2 0.5 r\n")
TRIALS = ("q1 u1 1\nq1 u2 0\nq1 u3 0\n", '<?xml version="1.0"?>\n<stdlist termlist_filename="t" system_id="s">\n'
          '<detected_termlist termid="q1" term_search_time="1" oov_term_count="0">\n'
          '<term file="u1" channel="1" tbeg="0" dur="1" score="1.5" decision="YES"/>\n'
          '<term file="u2" channel="1" tbeg="0" dur="1" score="-0.5" decision="NO"/>\n'
          '</detected_termlist>\n</stdlist>\n')


#: the constraints between parameters: cwl_eval's gain range, QUESST's effective prior (docs/speech.md)
JOINT = ("must have max_rel above min_rel", "must give an effective prior", "must leave more trials")


def _data(tmp_path: Path, family: str) -> tuple[Path, Path] | None:
    f = REGISTRY.by_name[family]
    texts = (TRIALS if f.scope == "trials" else SUBTOPICS if f.subtopics else SEGMENTS if f.times else
             DOCS if f.scope == "labels" else None)
    if texts is None:
        return None  # judgement groups: parsed only (the refusals above)
    paths = tmp_path / "qrels", tmp_path / ("run.xml" if f.scope == "trials" else "run")
    for path, text in zip(paths, texts, strict=True):
        path.write_text(text)
    return paths


@pytest.mark.parametrize("family", sorted({c[0] for c in CASES}))
def test_inside_gives_a_finite_number_without_warnings(tmp_path: Path, family: str) -> None:
    data = _data(tmp_path, family)
    texts: dict[str, list[str]] = {}  # each parameter's inside values
    for f, name, text, domain in CASES:
        if f == family and inside(domain, text):
            texts.setdefault(name, []).append(text)
    # the README's suite: each parameter's first, every third and last value (the full step: all of them)
    specs = [_spec(family, REGISTRY.by_name[family].count, name, text) for name, values in texts.items()
             for i, text in enumerate(values) if FULL or i % 3 == 0 or i == len(values) - 1]
    if data is None or not specs:
        return
    fam = REGISTRY.by_name[family]
    for spec in specs:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                ev = segeval.evaluate(*data, measures=[spec])
            except ParameterError as error:  # the documented joint constraints, checked beside the domains
                assert any(joint in str(error) for joint in JOINT), (spec, error)
                continue
        for value in ev.summary.values():
            numeric = not isinstance(value, str) and fam.fmt != "text"
            if numeric and not family.endswith("_threshold"):  # maxTWV_threshold is a statistic that can be inf
                assert math.isfinite(value), (spec, value)


def test_a_refusal_on_the_command_line_is_exit_2(tmp_path: Path) -> None:
    """One refused value per family through ``segeval eval``: exit 2, the message, no traceback."""
    (tmp_path / "q").write_text(DOCS[0])
    (tmp_path / "r").write_text(DOCS[1])
    seen: set[str] = set()
    for family, name, text, domain in CASES:
        if family in seen or inside(domain, text):
            continue
        seen.add(family)
        code, _, err = run_cli("eval", "-m", _spec(family, REGISTRY.by_name[family].count, name, text),
                               str(tmp_path / "q"), str(tmp_path / "r"))
        assert code == 2 and "must be" in err and "Traceback" not in err and "internal" not in err, (family, err)


@pytest.mark.parametrize("param", [BINS, ASSIGN, WINDOW, THETA, T_COLLAR, LENGTH_SHARE], ids=lambda p: p.keyword)
def test_adapter_parameters(param: Param) -> None:
    """The adapters' positional parameters (Settings' fields and spec parts) by their declared domains."""
    for text in candidates(param.domain):
        spec = f"x:{text}"
        if inside(param.domain, text):
            assert param.domain.holds(param.read(spec, text))
            segeval.Settings(**{param.setting: param.check(param.domain.value(text))})
        else:
            with pytest.raises(ParameterError, match=str(param.domain).replace("(", r"\(").replace("[", r"\[")):
                param.read(spec, text)


KWS = Path(__file__).parents[1] / "fixtures" / "kws" / "case_exact"
load("kws")  # kws's and qbe's numeric options, as their declarations give them (OPTIONS)
_KWS, _QBE = OPTIONS["kws"], OPTIONS["qbe"]


@pytest.mark.parametrize(("command", "option"), [*(("kws", o) for o in _KWS), *(("qbe", o) for o in _QBE)])
def test_command_options(tmp_path: Path, command: str, option: str) -> None:
    """kws's and qbe's numeric options: inside, the command runs (exit 0, no warning); outside, exit 2 naming
    the flag, the value and the domain."""
    flag, domain = (_KWS if command == "kws" else _QBE)[option]
    if command == "kws":
        files = ["-e", str(KWS / "ecf.xml"), "-r", str(KWS / "rttm"), "-t", str(KWS / "kwlist.xml"),
                 "-s", str(KWS / "kwslist.xml")]
    else:
        (tmp_path / "key").write_text(TRIALS[0])
        (tmp_path / "s.xml").write_text(TRIALS[1])
        files = [str(tmp_path / "key"), str(tmp_path / "s.xml")]
    for text in candidates(domain):
        if text in ("", "x") or (domain.numbers and not domain.words and text.lstrip("-").isdigit()
                                 and abs(int(text)) > MAX_WHOLE):
            continue  # not a number for typer (exit 2 by typer); huge integers are floats here
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            code, out, err = run_cli(command, *files, flag, text)
        if inside(domain, text) and not any(joint in err for joint in JOINT):
            assert code == 0 and "nan" not in out.lower().split(), (flag, text, err)
        elif inside(domain, text):
            assert code == 2 and "Traceback" not in err, (flag, text, err)
        else:
            assert code == 2 and flag in err and str(domain) in err and "Traceback" not in err, (flag, text, err)


@pytest.mark.parametrize("domain", [Domain(0.0, 1.0, open_low=True, many=True), Domain(1, MAX_WHOLE, whole=True,
                                                                                       many=True)])
def test_a_comma_list_is_its_elements(domain: Domain) -> None:
    """A list is read as each element alone would be (SPECIAL pairs): accepted when each is, as their values."""
    one = Domain(domain.low, domain.high, domain.open_low, whole=domain.whole)
    for a in SPECIAL:
        for b in ("0.5", "2", a):
            try:
                alone = (one.values("x", a), one.values("x", b))
            except ParameterError:
                alone = None
            try:
                both = domain.values("--x", f"{a},{b}")
            except ParameterError as e:
                assert alone is None and f"'--x' parameter must be {domain}" in str(e)
            else:
                assert alone is not None and both == alone[0] + alone[1]
