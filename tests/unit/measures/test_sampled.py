"""Sampled judgements (xinfAP, infNDCG, sample_eval.pl): hand-derived values on a 2-stratum example,
sample_eval.pl's own outputs on generated cases (tests/fixtures/xinf, scripts/xinf_cases.py), on the
shipped example and on the shared TRECVID runs (CI), and every malformed input."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from segeval.measures.sampled import interpolated, optimal_dcg, sample_eval, topic_values
from segeval.readers.line_parser import DIFFERENT_ON_PURPOSE
from segeval.readers.strata import parse_sampled_run, parse_strata_qrels
from tests.conftest import FIXTURES, ROOT, run_cli, shared, sliced

XINF = FIXTURES / "xinf"
EXAMPLE = ROOT / "examples" / "xinf"

# Two strata of topic 1.  Stratum 1 judged whole: a (rel), b (non-rel), c (rel): 3 docs, 3 sampled, 2 relevant.
# Stratum 2 sampled at half: d (rel), e (-1), f (non-rel), g (-1): 4 docs, 2 sampled, 1 relevant.
# Estimated relevant: 2 * 3 / 3 + 1 * 4 / 2 = 4.
TWO_STRATA = b"""1 0 a 1 1
1 0 b 1 0
1 0 c 1 1
1 0 d 2 1
1 0 e 2 -1
1 0 f 2 0
1 0 g 2 -1
"""
# ranked a d x e c: x is not pooled, e pooled but not sampled
TWO_RUN = b"""1 Q0 a 1 0.9 r
1 Q0 d 2 0.8 r
1 Q0 x 3 0.7 r
1 Q0 e 4 0.6 r
1 Q0 c 5 0.5 r
"""
E = (1 + 0.00001) / (1 + 0.00003)  # the reference's smoothed 1/1 (relevant + 1e-5) / (sampled + 3e-5)
E2 = (2 + 0.00001) / (2 + 0.00003)  # smoothed 2/2


def _two() -> tuple[object, object]:
    return parse_strata_qrels(TWO_STRATA, "q"), parse_sampled_run(TWO_RUN, "r")


def test_xinfap_two_strata_hand_derived() -> None:
    qrels, _ = _two()
    v = topic_values(qrels.topics["1"], ["a", "d", "x", "e", "c"])  # type: ignore[attr-defined]
    # precision estimates at the relevant ranks: rank 1 (a): 1/1, nothing pooled above;
    # rank 2 (d): 1/2 + (1/2) * [stratum 1: 1 of 1 pooled above, smoothed 1/1] = 1/2 + E/2;
    # rank 5 (c): 1/5 + (3/5) * [1/3 * E (stratum 1: a) + 2/3 * E (stratum 2: d sampled, e not)] = 1/5 + 3/5 E
    sap1 = 1.0 + (1 / 5 + (3 / 5) * (1 / 3 * E + 2 / 3 * E))
    sap2 = 1 / 2 + (1 / 2) * E
    # each stratum holds an estimated 2 of the 4 relevant: AP = 1/2 * sap1 / 2 + 1/2 * sap2 / 1
    assert v.infap == pytest.approx(0.5 * sap1 / 2 + 0.5 * sap2 / 1, rel=1e-15)
    assert v.infap == pytest.approx(0.95, abs=2e-5)  # without smoothing: (1 + 0.8) / 2 / 2 + 1 / 2
    # DCG per stratum over its sampled documents at the end (stratum 1: a, c sampled; stratum 2: d, e -> 1 sampled),
    # weighted by its share of the 4 pooled documents retrieved; ideal: 4 relevant of grade 1 at ranks 1-4
    dcg = (2 / 4) * (1 + 1 / math.log2(6)) / 2 + (2 / 4) * (1 / math.log2(3)) / 1
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    assert v.infndcg == pytest.approx(4 * dcg / ideal, rel=1e-12)
    # relevant retrieved at rank 5: stratum 1: 2 pooled * E2, stratum 2: 2 pooled * E (1 relevant of 1 sampled)
    assert v.num_rel_ret == pytest.approx(2 * E2 + 2 * E, rel=1e-15)
    assert v.num_rel == 4
    assert v.precision == pytest.approx((v.num_rel_ret / 10, v.num_rel_ret / 50, v.num_rel_ret / 1000))


def test_two_strata_report() -> None:
    qrels, run = _two()
    text = sample_eval(qrels, run, per_topic=True)  # type: ignore[arg-type]
    assert text.startswith("infAP\t\t1\t\t0.9500\ninfNDCG\t\t1\t\t")
    assert "inum_rel\t1\t        4.0000\nnum_ret\t\t1\t        5\n" in text
    assert text.endswith("inum_rel_ret\tall\t        3.9999\ninum_rel\tall\t        4.0000\n"
                         "num_ret\t\tall\t        5\n")


def test_interpolated_walk_passes_one_point_per_rank() -> None:
    # one stratum judged whole, a b c = rel, non-rel, rel: 2 relevant.  Estimated relevant retrieved at
    # ranks 1..3: 1 * E = 0.99998, 2 * (1 + 1e-5) / (2 + 3e-5) = 0.99999, 3 * (2 + 1e-5) / (3 + 3e-5) = 1.99998.
    qrels = parse_strata_qrels(b"1 0 a 1 1\n1 0 b 1 0\n1 0 c 1 1\n", "q")
    v = topic_values(qrels.topics["1"], ["a", "b", "c"])
    assert v.rel_at_rank == pytest.approx([E, 2 * 1.00001 / 2.00003, 3 * 2.00001 / 3.00003], rel=1e-15)
    out = interpolated(v)
    # recall 1 (2 relevant) is never reached by the smoothed 1.99998: 0
    assert out[10] == 0
    # walking up: rank 3 (1.99998, precision 2/3) passes no point, since 1.8 is not above it; rank 2 (0.99999 <
    # 1.8) credits point 0.9 with the best precision so far, 2/3; rank 1 (0.99998 < 1.6) credits point 0.8 with
    # 0.99998 (one point per rank: point 0.8 is really reached at rank 3 only); points 0-0.7 get the final best
    assert out[9] == pytest.approx(3 * 2.00001 / 3.00003 / 3, rel=1e-15)
    assert out[:9] == pytest.approx([E] * 9, rel=1e-15)


def test_optimal_dcg_rounds_counts_and_sorts_grades_as_strings() -> None:
    # grade 10 (1 doc) and grade 2 (1 doc) and grade 3: in descending string order 3, 2, 10
    qrels = parse_strata_qrels(b"1 0 a 1 10\n1 0 b 1 2\n1 0 c 1 3\n", "q")
    expected = 3 / math.log2(2) + 2 / math.log2(3) + 10 / math.log2(4)
    assert optimal_dcg(qrels.topics["1"]) == expected
    # with a cut-off of 1, each later grade still adds its first term (the reference's loop breaks per grade)
    assert optimal_dcg(qrels.topics["1"], 1) == expected
    # 1 relevant of 2 sampled in a stratum of 5: 2.5 estimated, rounded half up (int(2.5 + 0.5)) to 3 ideal ranks
    qrels = parse_strata_qrels(b"1 0 a 1 1\n1 0 b 1 -1\n1 0 c 1 -1\n1 0 d 1 0\n1 0 e 1 -1\n", "q")
    assert optimal_dcg(qrels.topics["1"]) == pytest.approx(1 + 1 / math.log2(3) + 1 / math.log2(4), rel=1e-15)


CASES = ["ties", "strata", "graded", "long", "short", "random"]


def _inputs(name: str) -> tuple[str, str]:
    q, r = XINF / f"{name}.qrels", XINF / f"{name}.run"
    return (str(q) if q.exists() else f"{q}.gz"), (str(r) if r.exists() else f"{r}.gz")


@pytest.mark.parametrize("name", CASES)
def test_generated_cases_match_sample_eval(name: str) -> None:
    code, out, err = run_cli("sample-eval", "-q", *_inputs(name))
    assert (code, err) == (0, "")
    assert out.encode() == (XINF / f"{name}.q.out").read_bytes()
    code, out, _ = run_cli("sample-eval", *_inputs(name))
    assert out.encode() == b"".join((XINF / f"{name}.q.out").read_bytes().splitlines(keepends=True)[-19:])


@pytest.mark.parametrize(("name", "gains"), [("graded", ["-G", "1=5", "-G", "3=0,2=0.5"]),
                                             ("random", ["-G", "1=2,2=0"])])
def test_gain_mapping_matches_sample_eval(name: str, gains: list[str]) -> None:
    code, out, err = run_cli("sample-eval", *gains, *_inputs(name))
    assert (code, err) == (0, "")
    assert out.encode() == (XINF / f"{name}.G.out").read_bytes()


@pytest.mark.parametrize("name", ["graded", "random"])
def test_grade_spellings_and_negative_gains_match_sample_eval(name: str) -> None:
    """Grades written 01, +1, 002, -0, 00, -01 (tests/support/xinf_spellings.py): counted apart from 1 by
    their text, valued as numbers; -G 1=-1 makes grade 1 unsampled (not 01), as sample_eval.pl does."""
    qrels = str(XINF / f"spelled_{name}.qrels")
    code, out, err = run_cli("sample-eval", "-q", qrels, _inputs(name)[1])
    assert (code, err) == (0, "")
    assert out.encode() == (XINF / f"spelled_{name}.q.out").read_bytes()
    code, out, err = run_cli("sample-eval", "-G", "1=-1", "-G", "2=0.5", qrels, _inputs(name)[1])
    assert (code, err) == (0, "")
    assert out.encode() == (XINF / f"spelled_{name}.G.out").read_bytes()


def test_grade_spelling_hand_derived() -> None:
    """One stratum of 4 documents: d1 grade 01, d2 grade 1, d3 0, d4 -01 (that is -1: not sampled).  The
    ideal DCG has grades '1' and '01' (value 1 each; '1' > '01' as strings) at ranks 1 and 2, each count
    1 * 4 docs / 3 sampled = 1.33, rounded to 1: 1 + 1/log2(3).  -G 1=-1 maps d2 (not d1: the mapping
    is keyed by the text) to -1, unsampled."""
    from segeval.readers.strata import parse_gains, parse_strata_qrels

    data = b"7 0 d1 1 01\n7 0 d2 1 1\n7 0 d3 1 0\n7 0 d4 1 -01\n"
    topic = parse_strata_qrels(data, "q").topics["7"]
    assert topic.strata["1"].grades == {"01": 1, "1": 1}  # 01 and 1 counted apart, as sample_eval.pl's hash
    assert (topic.strata["1"].sampled, topic.strata["1"].relevant) == (3, 2)  # -01 is -1: not sampled
    mapped = parse_strata_qrels(data, "q", parse_gains(["1=-1"])).topics["7"]
    assert mapped.docs["d2"] == ("-1", "1") and mapped.docs["d1"] == ("01", "1")  # 01 is not level 1
    assert (mapped.strata["1"].sampled, mapped.strata["1"].relevant) == (2, 1)
    assert optimal_dcg(topic) == pytest.approx(1 + 1 / math.log2(3))  # grades '1', '01': value 1 at ranks 1, 2


def test_max_result_size_matches_patched_sample_eval() -> None:
    _, out, _ = run_cli("sample-eval", "-q", "--max-result-size", "20", *_inputs("short"))
    assert out.encode() == (XINF / "short.m20.q.out").read_bytes()


@pytest.mark.parametrize("run", ["run_a", "run_b"])
def test_example(run: str) -> None:
    code, out, _ = run_cli("sample-eval", "-q", str(EXAMPLE / "qrels.strata"), str(EXAMPLE / run))
    assert code == 0
    assert out.encode() == (EXAMPLE / f"{run}.sample_eval.out").read_bytes()


@pytest.mark.parametrize("run", ["run0", "run1", "run2"])
def test_shared_trecvid_runs(run: str) -> None:
    """CI-only: the three shared runs against the shared stratified qrels, byte for byte."""
    expected = shared("xinf", f"{run}.sample_eval.out").read_bytes()
    code, out, _ = run_cli("sample-eval", "-q", str(shared("xinf", "qrels.strata.gz")),
                           str(shared("xinf", f"{run}.gz")))
    assert code == 0
    assert out.encode() == expected


def test_gzip_and_plain_agree(tmp_path: Path) -> None:
    q, r = _inputs("ties")
    gz = tmp_path / "q.gz"
    gz.write_bytes(gzip.compress(Path(q).read_bytes()))
    assert run_cli("sample-eval", "-q", str(gz), r) == run_cli("sample-eval", "-q", q, r)


QRELS_FIELDS = "expected 5: topic, 0, docno, stratum, rel (such as '501 0 shot12_5 2 1')"
INTEGER = "expected a whole number of at most 18 ASCII digits (an optional sign), such as '12'"
REL = INTEGER + " (field 5: -1 pooled, not sampled; 0 sampled, not relevant; or a positive grade)"
NUMBER = (
    "expected a finite number in ASCII digits (an optional sign, decimal part and exponent), such as '0.5' or '1e-05'"
)
RUN_FIELDS = "expected 6: topic, Q0, docno, rank, score, tag (such as '501 Q0 shot12_5 1 0.93 myrun')"
BAD = [
    ("qrels", b"1 0 a 1 1\n1 0 b 1\n", "line 2: has 4 fields; " + QRELS_FIELDS, "1 0 b 1"),
    ("qrels", b"1 0 a 1 1 extra\n", "line 1: has 6 fields; " + QRELS_FIELDS, "1 0 a 1 1 extra"),
    ("qrels", b"1 0 a s1 1\n", f"line 1: stratum is 's1'; {INTEGER} (field 4)", "1 0 a s1 1"),
    ("qrels", b"1 0 a 1.5 1\n", f"line 1: stratum is '1.5'; {INTEGER} (field 4)", "1 0 a 1.5 1"),
    ("qrels", b"\n1 0 a 1 1e3\n", "line 2: rel is '1e3'; " + REL, "1 0 a 1 1e3"),
    ("qrels", b"1 0 a 1 0.5\n", "line 1: rel is '0.5'; " + REL, "1 0 a 1 0.5"),
    ("qrels", b"1 0 a 1 yes\n", "line 1: rel is 'yes'; " + REL, "1 0 a 1 yes"),
    ("run", b"1 Q0 a 1 0.5\n", "line 1: has 5 fields; " + RUN_FIELDS, "1 Q0 a 1 0.5"),
    ("run", b"1 Q0 a 1 0.5 r\n1 Q0 b 2 high r\n", f"line 2: score is 'high'; {NUMBER} (field 5)",
     "1 Q0 b 2 high r"),
    ("run", b"1 Q0 a 1 nan r\n", f"line 1: score is 'nan'; {NUMBER} (field 5)", "1 Q0 a 1 nan r"),
]


@pytest.mark.parametrize(("which", "content", "problem", "text"), BAD)
def test_bad_input_exits_2_with_file_line_text(tmp_path: Path, which: str, content: bytes, problem: str,
                                               text: str) -> None:
    good_q, good_r = tmp_path / "good.qrels", tmp_path / "good.run"
    good_q.write_bytes(b"1 0 a 1 1\n")
    good_r.write_bytes(b"1 Q0 a 1 0.5 r\n")
    bad = tmp_path / "bad"
    bad.write_bytes(content)
    args = [str(bad), str(good_r)] if which == "qrels" else [str(good_q), str(bad)]
    code, out, err = run_cli("sample-eval", *args)
    number = problem.split(":")[0].split()[1]
    assert (code, out) == (2, "")
    assert err == f"segeval: error: {bad}, {problem}\n  line {number}: {text}\n"


@pytest.mark.parametrize(("args", "message"), [
    (["-G", "1:3"], "The 'gain' parameter must be LEVEL=GAIN pairs such as 1=3 (a qrels grade 0 or above, a "
                    "number: below 0, the grade's documents count as not sampled). Got '1:3' instead."),
    (["-G", "1=x"], "Got '1=x' instead."),
    (["-G", "-1=2"], "Got '-1=2' instead."),
    (["--max-result-size", "0"], "The '--max-result-size' parameter must be an integer >= 1. Got 0 instead."),
])
def test_bad_options(tmp_path: Path, args: list[str], message: str) -> None:
    q, r = _inputs("ties")
    code, out, err = run_cli("sample-eval", *args, q, r)
    assert code == 2 and out == ""
    assert message in err


def test_empty_files_and_no_common_topic(tmp_path: Path) -> None:
    q, r = _inputs("ties")
    empty = tmp_path / "empty"
    empty.write_bytes(b"\n\n")
    code, _, err = run_cli("sample-eval", str(empty), r)
    assert code == 2 and f"{empty}: has no data lines; expected stratified qrels lines" in err
    code, _, err = run_cli("sample-eval", q, str(empty))
    assert code == 2 and f"{empty}: has no data lines; expected run lines" in err
    other = tmp_path / "other.run"
    other.write_bytes(b"999 Q0 a 1 0.5 r\n")
    code, out, err = run_cli("sample-eval", q, str(other))
    assert (code, out) == (2, "")
    assert "No topic of" in err and "nothing to evaluate" in err


# ----------------------------------------------------------------- xinfAP / xinfNDCG in segeval eval


def _reference_values(qrels_path: str, run_path: str) -> dict[str, tuple[float, float]]:
    from segeval.measures.sampled import ranking
    from segeval.readers.strata import read_sampled_run, read_strata_qrels

    qrels, run = read_strata_qrels(qrels_path), read_sampled_run(run_path)
    out = {}
    for topic, scores in run.scores.items():
        if topic in qrels.topics:
            v = topic_values(qrels.topics[topic], ranking(scores))
            out[topic] = (v.infap, v.infndcg)
    return out


def _eval_equals_sample_eval(qrels_path: str, run_path: str) -> int:
    from segeval.core.pipeline import evaluate

    ev = evaluate(qrels_path, run_path, ["xinfAP", "xinfNDCG"])
    got = {q: (ev.per_query["xinfAP"][i], ev.per_query["xinfNDCG"][i]) for i, q in enumerate(ev.queries)}
    assert got == _reference_values(qrels_path, run_path)  # exact: the same arithmetic
    return len(got)


# cases whose runs and qrels eval accepts (ties: a docno twice in a run, zero-padded topics; strata: a docno
# judged twice; eval refuses repeated lines and compares topics as written)
@pytest.mark.parametrize("name", ["graded", "long", "short", "random"])
def test_eval_xinf_equals_sample_eval(name: str) -> None:
    assert _eval_equals_sample_eval(*_inputs(name)) > 0


def test_eval_xinf_example_all_row() -> None:
    code, out, _ = run_cli("eval", "-m", "xinfAP", "-m", "xinfNDCG", str(EXAMPLE / "qrels.strata"),
                           str(EXAMPLE / "run_b"))
    assert code == 0
    expected = (EXAMPLE / "run_b.sample_eval.out").read_text().splitlines()
    assert out.splitlines() == [f"xinfAP                \tall\t{expected[-19].split()[-1]}",
                                f"xinfNDCG              \tall\t{expected[-18].split()[-1]}"]


@pytest.mark.parametrize("run", sliced(["run0", "run1", "run2"], 3))
def test_eval_xinf_shared_runs(run: str) -> None:
    """CI-only: eval's per-topic xinfAP and xinfNDCG equal sample-eval's on the shared TRECVID runs."""
    assert _eval_equals_sample_eval(str(shared("xinf", "qrels.strata.gz")), str(shared("xinf", f"{run}.gz"))) == 20


def test_compare_and_pool_bias_take_xinf(tmp_path: Path) -> None:
    q, a, b = (str(EXAMPLE / n) for n in ("qrels.strata", "run_a", "run_b"))
    code, out, _ = run_cli("compare", "-m", "xinfAP", q, a, b)
    assert code == 0
    assert "run_a (baseline)  0.6080" in out and "run_b             0.3702 (-0.2378" in out
    groups = tmp_path / "groups"
    groups.write_text("run_a ga\nrun_b gb\n")
    code, out, _ = run_cli("pool-bias", "--groups", str(groups), "-d", "60", "-m", "xinfAP", q, a, b)
    assert code == 0 and out.splitlines()[1].startswith("xinfAP\t")


def test_eval_xinf_needs_stratified_qrels(tmp_path: Path) -> None:
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 0.5 r\n")
    code, out, err = run_cli("eval", "-m", "xinfAP", str(qrels), str(run))
    assert (code, out) == (2, "")
    assert "xinfAP and xinfNDCG need stratified qrels" in err


def test_eval_reads_bad_stratified_qrels_with_the_strata_messages(tmp_path: Path) -> None:
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1 1\n1 0 b x 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 0.5 r\n")
    code, out, err = run_cli("eval", "-m", "xinfAP", str(qrels), str(run))
    assert (code, out) == (2, "")
    assert f"{qrels}, line 2: stratum is 'x'; {INTEGER} (field 4)\n  line 2: 1 0 b x 0" in err


def test_eval_trec_measures_on_stratified_qrels_treat_unsampled_as_unjudged(tmp_path: Path) -> None:
    # a (rel 1), b (-1: pooled, not sampled), c (0): b is unjudged for trec_eval's measures, so bpref counts
    # only c as judged non-relevant: a above c -> bpref 1; num_rel 1; map 1 (a at rank 1)
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1 1\n1 0 b 2 -1\n1 0 c 2 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 b 1 0.9 r\n1 Q0 a 2 0.8 r\n1 Q0 c 3 0.7 r\n")
    code, out, _ = run_cli("eval", "-m", "num_rel", "-m", "bpref", "-m", "P_1", str(qrels), str(run))
    assert code == 0
    assert out.split() == ["num_rel", "all", "1", "bpref", "all", "1.0000", "P_1", "all", "0.0000"]


@pytest.mark.parametrize(("content", "problem"), [
    (b"1 0 a 1 1\n1 0 \xff 1 1\n", "line 2: is not valid UTF-8 text (byte 5 of the line); expected UTF-8 "
     f"({DIFFERENT_ON_PURPOSE})"),
    (b"1 0 a\x00 1 1\n", "line 1: contains a NUL byte; expected a text line"),
])
@pytest.mark.parametrize("command", ["sample-eval", "eval"])
def test_undecodable_lines_exit_2(tmp_path: Path, content: bytes, problem: str, command: str) -> None:
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_bytes(content)
    run.write_bytes(b"1 Q0 a 1 0.5 r\n")
    args = ["-m", "xinfAP"] if command == "eval" else []
    code, out, err = run_cli(command, *args, str(qrels), str(run))
    assert (code, out) == (2, "")
    assert err.startswith(f"segeval: error: {qrels}, {problem}\n")
