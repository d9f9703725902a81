"""One number grammar for every reader: each reader's number fields accept exactly the spellings
:func:`segeval.readers.formats.parse_float` / ``parse_int`` accept (within the field's domain) and read the same
value; everything else is an InputError, never an internal error.  One generator of hostile spellings
(underscores, full-width, Arabic-Indic and superscript digits, exponents, inf/nan, huge lengths) feeds them all."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from segeval.core.errors import InputError
from segeval.protocols.anchoring.read import read_anchor_run
from segeval.protocols.detection.read import read_kit_detections, read_kit_truth
from segeval.protocols.speech.ecf import read_ecf
from segeval.protocols.speech.kwslist import read_kwslist
from segeval.protocols.speech.rttm import read_rttm
from segeval.protocols.spotting.read import read_predictions
from segeval.readers.formats import TREC_RUN, parse_float, parse_int
from segeval.readers.json_records import load_document
from segeval.readers.line_parser import parse_lines
from segeval.readers.strata import parse_sampled_run, parse_strata_qrels
from segeval.readers.tables import read_qrels, read_run, stdlist_frame
from segeval.readers.tokenizer import scan_parse
from tests.conftest import examples

NUMBERS = st.one_of(
    st.from_regex(r"[+-]?[0-9]{0,20}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.text(alphabet="0123456789.+-eE_\uff10\uff19\u0663\u06f5\u00b2\u0967", min_size=1, max_size=12),
    st.sampled_from(["inf", "-inf", "Infinity", "nan", "NaN", "1e308", "1e309", "-1e999", "9" * 18, "-" + "9" * 18,
                     "9" * 19, "1" * 400, "1" * 5000, "0." + "1" * 400, "9_5", "\uff19", "\u0661", "\u00b2", "1_0.5",
                     "0x10", "1e", ".", "+", "1.", ".5", "+.5", "-0", "007", "1E+05", "1e-05"]),
).filter(bool)


def _outcome(read: Callable[[], float]) -> float | None:
    """The value a reader gives, None when it refuses with an InputError (any other exception fails)."""
    try:
        return read()
    except InputError:
        return None


def _expect(token: str, *, whole: bool = False, minimum: float | None = None) -> float | None:
    value = parse_int(token) if whole else parse_float(token)
    return None if value is None or (minimum is not None and value < minimum) else value


def _kit(root: Path, token: str, where: str) -> float | int:
    folder = root / "kit"
    folder.mkdir(exist_ok=True)
    class_id = token if where == "class id" else "7"
    (folder / "detclasslist.txt").write_text(f"{class_id} Pitch\n")
    (folder / "Pitch_test.txt").write_text(f"v1 {token if where == 'start' else '1'} 20\n")
    (folder / "Ambiguous_test.txt").write_text("v1 50 60\n")
    truth = read_kit_truth(str(folder), "test")
    if where == "class id":
        return truth.class_ids[0]
    if where == "start":
        return float(truth.start[0])
    (root / "det.txt").write_text(f"v1 10 20 7 {token}\n")
    return float(read_kit_detections(str(root / "det.txt"), truth).score[0])


def _xml(root: Path, name: str, text: str) -> str:
    (root / name).write_text(text)
    return str(root / name)


def _readers(root: Path) -> dict[str, tuple[Callable[[str], float], dict[str, object]]]:
    """Each reader's number field: a function of the token giving the value read, and the field's domain
    (whole, minimum, and ``valid``: what else the file's rules ask of the value)."""
    kws = '<kwslist kwlist_filename="k" language="english" system_id="s"><detected_kwlist kwid="K1" ' \
          'search_time="1" oov_count="0"><kw file="F" channel="1" tbeg="1" dur="1" score="{}" decision="YES"/>' \
          '</detected_kwlist></kwslist>'
    ecf = '<ecf source_signal_duration="30" language="english" version="x"><excerpt audio_filename="F.sph" ' \
          'channel="1" tbeg="{}" dur="30" source_type="bnews"/></ecf>'
    std = '<stdlist termlist_filename="t" indexing_time="1" language="x" index_size="1" system_id="s">' \
          '<detected_termlist termid="q1" term_search_time="1" oov_term_count="0"><term file="u1" channel="1" ' \
          'tbeg="0" dur="1" score="{}" decision="YES"/></detected_termlist></stdlist>'

    def spot(field: str) -> Callable[[str], float]:
        def read(token: str) -> float:
            record = {"label": "Goal", "position": "1000", "half": "1", "confidence": "0.5", field: token}
            (root / "results_spotting.json").write_text(json.dumps({"predictions": [record]}))
            got = read_predictions(str(root / "results_spotting.json"))[0][0]
            return got.position_ms if field == "position" else got.confidence
        return read

    def line(text: str, name: str = "lines") -> str:
        (root / name).write_text(text)
        return str(root / name)

    return {
        "kit class id": (lambda t: _kit(root, t, "class id"), {"whole": True, "minimum": 0}),
        "kit start": (lambda t: _kit(root, t, "start"), {"valid": lambda v: v < 20}),  # a window ends after it starts
        "kit confidence": (lambda t: _kit(root, t, "confidence"), {}),
        "RTTM tbeg": (lambda t: read_rttm(line(f"LEXEME F 1 {t} 0.5 w lex s <NA>\n"), False)
                      ._by_first["w"][0].begin, {"minimum": 0}),
        "kwslist score": (lambda t: read_kwslist(_xml(root, "s.xml", kws.format(t))).detections["K1"][0].score, {}),
        "ECF tbeg": (lambda t: read_ecf(_xml(root, "e.xml", ecf.format(t)))[0].tbeg,  # total duration above 0
                     {"minimum": 0, "valid": lambda v: float(f"{v + 30:.4f}") > v}),
        "stdlist score": (lambda t: float(stdlist_frame(std.format(t).encode(), "s.xml")["score"].iloc[0]), {}),
        "spot position": (spot("position"), {"whole": True, "minimum": 0}),
        "spot confidence": (spot("confidence"), {}),
        "sampled run score": (lambda t: parse_sampled_run(f"1 Q0 d 1 {t} r\n".encode(), "r").scores["1"]["d"], {}),
        "strata rel": (lambda t: parse_int(parse_strata_qrels(f"1 0 d 1 {t}\n".encode(), "q").topics["1"].docs["d"][0]),
                       {"whole": True}),
        "anchoring score": (lambda t: read_anchor_run(line(f"a1 Q0 1.00 2.00 1 {t} r\n"))[0].score, {}),
        "TREC run score": (lambda t: float(read_run(line(f"1 Q0 d 1 {t} r\n"), "trec")["score"].iloc[0]), {}),
        "TREC run rank": (lambda t: int(read_run(line(f"1 Q0 d {t} 0.5 r\n"), "trec")["rank"].iloc[0]),
                          {"whole": True}),
        "MediaEval run score": (lambda t: float(read_run(line(f"1 Q0 v 1.00 2.00 1 {t} r\n"), "linking")["score"]
                                                .iloc[0]), {}),
        "TREC qrels grade": (lambda t: int(read_qrels(line(f"1 0 d {t}\n"), "trec")["rel"].iloc[0]), {"whole": True}),
        "MediaEval qrels grade": (lambda t: int(read_qrels(line(f"1 0 v 1.00 2.00 {t}\n"), "mediaeval")["rel"]
                                                .iloc[0]), {"whole": True}),
    }


@settings(max_examples=examples(150, share=10), deadline=None)  # each example runs every reader
@given(NUMBERS)
def test_every_reader_reads_the_one_grammar(token: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, (read, domain) in _readers(Path(tmp)).items():
            valid = domain.pop("valid", None)
            expected = _expect(token, **domain)  # type: ignore[arg-type]
            if expected is not None and valid is not None and not valid(expected):  # type: ignore[operator]
                expected = None
            got = _outcome(lambda: read(token))  # noqa: B023
            assert got == expected, (name, token, got, expected)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=4))
def test_the_fast_path_accepts_what_the_grammar_accepts(tokens: list[str]) -> None:
    data = "".join(f"q{i} Q0 d {t} {t} r\n" for i, t in enumerate(tokens)).encode()
    grammar_ok = all(parse_int(t) is not None for t in tokens)
    for layout in (data, data.replace(b" ", b" \t ")):
        fast = scan_parse(layout, TREC_RUN)
        if fast is not None:  # declining is fine (the line parser decides); accepting must be the grammar's
            assert grammar_ok, tokens
            assert list(fast["rank"]) == [parse_int(t) for t in tokens]
            assert list(fast["score"]) == [parse_float(t) for t in tokens]
    try:
        slow = parse_lines(data, TREC_RUN, "f")
    except InputError:
        assert not grammar_ok
        return
    assert grammar_ok and slow["score"] == [parse_float(t) for t in tokens]


JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


@settings(max_examples=examples(200), deadline=None)
@given(NUMBERS)
def test_json_numbers_follow_the_grammar(token: str) -> None:
    if not JSON_NUMBER.fullmatch(token):
        return
    whole = "." not in token and "e" not in token.lower()
    expected = _expect(token, whole=whole)
    text = f'{{"x": 1,\n "y": [{token}]}}'
    got = _outcome(lambda: load_document("f.json", text, "an object")["y"][0])
    assert got == expected, token
    if expected is None:  # refused at its line and column
        try:
            load_document("f.json", text, "an object")
        except InputError as exc:
            assert exc.line == 2 and "(column 8)" in exc.problem, exc
