"""The speech scorers' inputs (`kws`: ECF, RTTM, kwlist, kwslist; `qbe`: the trial key and the STD list) go
through the one opener as runs and qrels do: the input limits (each refusal names the file, the limit and
its variable, exit 2), gzip, streams; the XML ones are documents (one long line is fine), the RTTM and the
key are lines."""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

import pytest

from segeval.core.errors import InputError
from tests.cli.test_hostile_matrix import FORMAT_FREE, HOSTILE, outcome_is_clean
from tests.conftest import run_cli
from tests.unit.speech.test_kws import ECF, KWLIST, RTTM, kwslist

SYSTEM = kwslist((10.0, 0.9, "YES"), (60.0, 0.3, "NO"))
#: what each kws input holds; the option that names it
KWS = {"ecf": ("-e", ECF), "rttm": ("-r", RTTM), "kwlist": ("-t", KWLIST), "kwslist": ("-s", SYSTEM)}
#: filler that leaves each file's meaning as it is: an XML comment, an RTTM comment line
PAD = {"ecf": "<!-- {} -->\n", "rttm": ";; {}\n", "kwlist": "<!-- {} -->\n", "kwslist": "<!-- {} -->\n"}
KEY = "q1 u1 1\nq1 u2 0\n"
STDLIST = ('<?xml version="1.0"?>\n<stdlist termlist_filename="t" system_id="s">\n'
           '  <detected_termlist termid="q1" term_search_time="1" oov_term_count="0">\n'
           '    <term file="u1" channel="1" tbeg="0" dur="1" score="1.5" decision="YES"/>\n'
           '    <term file="u2" channel="1" tbeg="0" dur="1" score="-1.5" decision="NO"/>\n'
           '  </detected_termlist>\n</stdlist>\n')


def write_kws(tmp_path: Path, texts: dict[str, str], gz: frozenset[str] = frozenset()) -> list[str]:
    """The four files written (those named in ``gz`` gzipped) and kws's options naming them."""
    args = []
    for name, (option, _) in KWS.items():
        path = tmp_path / (name + (".gz" if name in gz else ""))
        data = texts[name].encode()
        path.write_bytes(gzip.compress(data) if name in gz else data)
        args += [option, str(path)]
    return args


def kws(tmp_path: Path, **changed: str) -> tuple[int, str, str]:
    return run_cli("kws", "-o", "json", *write_kws(tmp_path, {n: changed.get(n, t) for n, (_, t) in KWS.items()}))


@pytest.fixture
def expected(tmp_path_factory: pytest.TempPathFactory) -> str:
    """kws's figures on the plain files, under the default limits."""
    code, out, err = kws(tmp_path_factory.mktemp("plain"))
    assert (code, err) == (0, "")
    assert '"atwv": 1.0' in out  # the hit scores, the NO false alarm does not count: ATWV 1
    return out


@pytest.mark.parametrize("name", list(KWS))
def test_each_kws_input_over_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                       name: str) -> None:
    padded = KWS[name][1] + PAD[name].format("x" * 3000)  # over 2000 bytes; every other file is under 1000
    assert max(len(t) for n, (_, t) in KWS.items() if n != name) < 1000
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "2000")
    assert kws(tmp_path, **{name: padded}) == (
        2, "", f"segeval: error: {tmp_path / name}: is larger than 2000 bytes; expected a smaller file "
               f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)\n")


@pytest.mark.parametrize("name", list(KWS))
def test_each_kws_input_gzipped_or_padded_reads_the_same(tmp_path: Path, expected: str, name: str) -> None:
    texts = {n: t for n, (_, t) in KWS.items()}
    (tmp_path / "gz").mkdir()
    assert run_cli("kws", "-o", "json", *write_kws(tmp_path / "gz", texts, frozenset({name}))) == (0, expected, "")
    (tmp_path / "padded").mkdir()
    assert kws(tmp_path / "padded", **{name: texts[name] + PAD[name].format("x" * 3000)}) == (0, expected, "")


def test_the_line_limit_applies_to_the_rttm_not_to_the_xml_documents(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path, expected: str) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "64")
    xml_lines = [len(line) for n, (_, t) in KWS.items() if n != "rttm" for line in t.encode().split(b"\n")]
    assert max(xml_lines) > 64 and max(len(line) for line in RTTM.encode().split(b"\n")) <= 64
    (tmp_path / "ok").mkdir()
    assert kws(tmp_path / "ok") == (0, expected, "")  # an XML line of 100 bytes is fine: a document
    one_line = {n: t.replace("\n", " ") for n, (_, t) in KWS.items() if n != "rttm"}  # minified XML
    (tmp_path / "minified").mkdir()
    assert kws(tmp_path / "minified", **one_line) == (0, expected, "")
    long_rttm = ";; " + "x" * 100 + "\n" + RTTM
    assert kws(tmp_path, rttm=long_rttm) == (
        2, "", f"segeval: error: {tmp_path / 'rttm'}: line 1 is longer than 64 bytes; expected text lines "
               f"(SEGEVAL_MAX_LINE_BYTES raises the limit)\n")


def test_a_kws_input_from_standard_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, expected: str) -> None:
    args = write_kws(tmp_path, {n: t for n, (_, t) in KWS.items()})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SYSTEM.encode())))
    args[args.index("-s") + 1] = "-"
    assert run_cli("kws", "-o", "json", *args) == (0, expected, "")


def test_an_rttm_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    assert kws(tmp_path, rttm=";; header\n" + RTTM)[0] == 0
    (tmp_path / "rttm").write_bytes(b";; header\n;; caf\xe9\n" + RTTM.encode())
    code, out, err = run_cli("kws", "-o", "json", "-e", str(tmp_path / "ecf"), "-r", str(tmp_path / "rttm"),
                             "-t", str(tmp_path / "kwlist"), "-s", str(tmp_path / "kwslist"))
    assert (code, out) == (2, "")
    assert err == (f"segeval: error: {tmp_path / 'rttm'}, line 2: not UTF-8 text (invalid continuation byte); "
                   f"expected an RTTM file in UTF-8\n  line 2: ;; caf\\xe9\n")


def test_an_empty_or_missing_xml_input_is_named(tmp_path: Path) -> None:
    code, _, err = kws(tmp_path, ecf="")
    assert code == 2 and err.startswith(f"segeval: error: {tmp_path / 'ecf'}, line 1: not well-formed XML")
    args = write_kws(tmp_path, {n: t for n, (_, t) in KWS.items()})
    args[args.index("-t") + 1] = str(tmp_path / "absent.xml")
    assert run_cli("kws", *args) == (2, "", f"segeval: error: {tmp_path / 'absent.xml'}: no such file\n")


def qbe(tmp_path: Path, key: str = KEY, system: str = STDLIST, gz: tuple[str, ...] = ()) -> tuple[int, str, str]:
    paths = []
    for name, text in (("key", key), ("stdlist", system)):
        path = tmp_path / (name + (".gz" if name in gz else ""))
        path.write_bytes(gzip.compress(text.encode()) if name in gz else text.encode())
        paths.append(str(path))
    return run_cli("qbe", "-o", "json", *paths)


@pytest.mark.parametrize("name", ["key", "stdlist"])
def test_each_qbe_input_over_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                       name: str) -> None:
    key, system = (KEY + "\n" * 3000, STDLIST) if name == "key" else (KEY, STDLIST + "<!--" + "x" * 3000 + "-->\n")
    code, _, err = qbe(tmp_path, key, system)
    assert (code, err) == (0, "")  # the padding changes nothing under the default limits
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "2000")
    assert qbe(tmp_path, key, system) == (
        2, "", f"segeval: error: {tmp_path / name}: is larger than 2000 bytes; expected a smaller file "
               f"(SEGEVAL_MAX_INPUT_BYTES raises the limit)\n")


def test_qbe_inputs_gzipped_and_the_std_list_as_one_long_line(monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    code, expected, err = qbe(tmp_path)
    assert (code, err) == (0, "")
    assert qbe(tmp_path, gz=("key", "stdlist")) == (0, expected, "")
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "64")
    assert qbe(tmp_path, system=STDLIST.replace("\n", " ")) == (0, expected, "")  # an XML document: one line is fine
    assert qbe(tmp_path, system=STDLIST.replace("\n", " "), gz=("stdlist",)) == (0, expected, "")
    long_key = "q1 u1 1" + " " * 100 + "\nq1 u2 0\n"
    assert qbe(tmp_path, key=long_key) == (
        2, "", f"segeval: error: {tmp_path / 'key'}: line 1 is longer than 64 bytes; expected text lines "
               f"(SEGEVAL_MAX_LINE_BYTES raises the limit)\n")


#: the hostile files whose refusal does not depend on the format (tests/cli/test_hostile_matrix.py), given as each
#: speech input; an XML document need not name the kind for text that is no XML (expat's reason names it)
XML_ANY = {"empty", "blank lines only", "binary noise", "BOM in the middle"}


@pytest.mark.parametrize("case", sorted(FORMAT_FREE))
@pytest.mark.parametrize("role", [*KWS, "key", "stdlist"])
def test_hostile_speech_input(tmp_path: Path, role: str, case: str) -> None:
    data, fragment = HOSTILE[case]
    if role in KWS:
        args = ["kws", *write_kws(tmp_path, {n: t for n, (_, t) in KWS.items()})]
        bad = tmp_path / role
    else:
        args = ["qbe", *(str(p) for p in (tmp_path / "key", tmp_path / "stdlist"))]
        (tmp_path / "key").write_text(KEY)
        (tmp_path / "stdlist").write_text(STDLIST)
        bad = tmp_path / role
    bad.write_bytes(data)
    code, out, err = run_cli(*args)
    outcome_is_clean(code, out, err, bad, "" if role in ("ecf", "kwlist", "kwslist") and case in XML_ANY
                     else fragment)


@pytest.mark.parametrize(("name", "text", "problem"), [
    ("rttm", ";; only a comment\n\n",
     "has no data lines; expected the reference's words as LEXEME records (type file channel tbeg dur ortho "
     "subtype speaker conf)"),
    ("rttm", ";; only a comment\nSPEAKER A 1 0.0 100.0 <NA> <NA> s <NA>\n",
     "holds no LEXEME record; expected the reference's words as LEXEME records (type file channel tbeg dur ortho "
     "subtype speaker conf)"),
    ("kwlist", '<kwlist ecf_filename="e" version="t" language="english" compareNormalize="">\n</kwlist>\n',
     "no <kw>: expected at least one term"),
    # KWSEval stops on such a list ("Requested hash key does not exists (compareNormalize)"): so does segeval
    ("kwlist", '<kwlist ecf_filename="e" version="t" language="english">\n<kw kwid="a"><kwtext>x</kwtext></kw>\n'
               '</kwlist>\n', '<kwlist> has no compareNormalize= attribute; expected compareNormalize="..."')],
    ids=["empty rttm", "rttm", "kwlist", "kwlist without compareNormalize"])
def test_a_reference_without_words_or_terms_is_refused(tmp_path: Path, name: str, text: str, problem: str) -> None:
    """Read as given, every term would have no occurrence (all figures NA, exit 0): a silent acceptance."""
    where = f"{tmp_path / name}" + (", line 1" if name == "kwlist" else "")
    assert kws(tmp_path, **{name: text}) == (2, "", f"segeval: error: {where}: {problem}\n")


def test_the_route_sniffs_a_one_line_std_list_without_the_line_limit(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    """``eval`` names an STD list run (read whole) from its head read as a document: a one-line list under a
    small SEGEVAL_MAX_LINE_BYTES is read, in every ``--memory``, as with the default limits."""
    (tmp_path / "key").write_text(KEY)
    (tmp_path / "run.xml").write_text(STDLIST.replace("\n", " ") + " " * 5000)
    args = ["-m", "map", "-m", "P.1", str(tmp_path / "key"), str(tmp_path / "run.xml")]
    expected = run_cli("eval", *args)
    assert expected[0] == 0, expected
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "64")
    for memory in ("auto", "chunked", "in-memory"):
        assert run_cli("eval", "--memory", memory, *args) == expected, memory


@pytest.mark.parametrize("name", ["ecf.xml", "kwlist.xml", "kwslist.xml"])
def test_an_xml_encoding_python_cannot_read_is_refused(tmp_path: Path, name: str) -> None:
    from tests.unit.speech.test_kws import run

    code, out, err = run(tmp_path, kwslist((10.0, 0.9, "YES")))  # writes the four inputs
    assert code == 0
    files = {"ecf.xml": "e.xml", "kwlist.xml": "t.xml", "kwslist.xml": "s.xml"}
    path = tmp_path / files[name]
    path.write_text('<?xml version="1.0" encoding="x-no-such"?>\n' + path.read_text())
    code, out, err = _kws(tmp_path)
    assert (code, out) == (2, "") and f"{files[name]}, line 1: declares an encoding Python cannot read" in err


def _kws(tmp_path: Path) -> tuple[int, str, str]:
    return run_cli("kws", "-e", str(tmp_path / "e.xml"), "-r", str(tmp_path / "r.rttm"), "-t",
                   str(tmp_path / "t.xml"), "-s", str(tmp_path / "s.xml"))


@pytest.mark.parametrize(("durations", "total"), [(("0",), "0"), (("1e-300",), "0")])
def test_an_ecf_without_a_finite_positive_duration_is_refused(tmp_path: Path, durations: tuple[str, ...],
                                                               total: str) -> None:
    from tests.unit.speech.test_kws import run

    run(tmp_path, kwslist((10.0, 0.9, "YES")))
    excerpts = "".join(f'<excerpt audio_filename="F{i}.sph" channel="1" tbeg="0" dur="{d}" source_type="bnews"/>'
                       for i, d in enumerate(durations))
    (tmp_path / "e.xml").write_text(f'<ecf source_signal_duration="1" language="english" version="x">{excerpts}</ecf>')
    code, out, err = _kws(tmp_path)
    assert (code, out) == (2, "") and f"the excerpts' total duration is {total} s; expected a finite duration above 0" \
        in err, err


def test_an_excerpt_duration_outside_its_domain_is_refused(tmp_path: Path) -> None:
    """Two excerpts of 1e308 s would total inf (TotDur inf in KWSEval): each duration is refused first."""
    from tests.unit.speech.test_kws import run

    run(tmp_path, kwslist((10.0, 0.9, "YES")))
    (tmp_path / "e.xml").write_text('<ecf source_signal_duration="1" language="english" version="x"><excerpt '
                                    'audio_filename="F.sph" channel="1" tbeg="0" dur="1e308" '
                                    'source_type="bnews"/></ecf>')
    code, out, err = _kws(tmp_path)
    assert (code, out) == (2, "") and 'line 1: <excerpt> dur="1e308": expected a number in [0, 1e100]' in err, err


def test_as_many_trials_as_occurrences_is_refused() -> None:
    from segeval.core.errors import ParameterError
    from segeval.protocols.speech.alignment import TermTrials
    from segeval.protocols.speech.twv import TwvParameters, score

    block = TermTrials("K1", "a", targets=[(0.9, True)], omitted=1)  # 2 occurrences
    assert score({"K1": block}, TwvParameters(3.0)).actual.p_fa == 0.0  # 3 trials: P_FA = 0 / (3 - 2)
    with pytest.raises(ParameterError, match=r"rounded: 2\) than a term has occurrences \(2\)"):
        score({"K1": block}, TwvParameters(2.0))


@pytest.mark.parametrize(("name", "after", "where", "expected"), [
    ("ecf", "<ecf ", "ecf", "excerpt"), ("kwlist", "<kwlist ", "kwlist", "kw"),
    ("kwslist", "<kwslist ", "kwslist", "detected_kwlist"), ("kwslist", "<detected_kwlist ", "detected_kwlist", "kw"),
    ("stdlist", "<stdlist ", "stdlist", "detected_termlist"),
    ("stdlist", "<detected_termlist ", "detected_termlist", "term")])
def test_an_unexpected_element_is_refused_at_its_line(tmp_path: Path, name: str, after: str, where: str,
                                                      expected: str) -> None:
    """A stray element (the line after the parent's start tag) is named with its parent and what belongs there."""
    from segeval.protocols.speech.ecf import read_ecf
    from segeval.protocols.speech.kwlist import read_kwlist
    from segeval.protocols.speech.kwslist import read_kwslist
    from segeval.readers.tables import stdlist_frame

    text = {"ecf": ECF, "kwlist": KWLIST, "kwslist": SYSTEM, "stdlist": STDLIST}[name]
    start = text.index(after)
    opened = text.index(">", start) + 1
    line = text.count("\n", 0, opened) + 2
    path = tmp_path / name
    path.write_text(text[:opened] + "\n<stray/>" + text[opened:])
    readers = {"ecf": read_ecf, "kwlist": read_kwlist, "kwslist": read_kwslist,
               "stdlist": lambda p: stdlist_frame(Path(p).read_bytes(), p)}
    with pytest.raises(InputError) as caught:
        readers[name](str(path))
    assert str(caught.value) == f"{path}, line {line}: unexpected <stray> in <{where}>; expected <{expected}>"
