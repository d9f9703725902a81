"""TVR (VCMR / SVMR / VR): drawn timelines, the official evaluator's outputs on generated cases and
on the shared sample (CI), the corpus ranking as segeval lines, and every malformed input."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.protocols.moments.protocol import MrOptions
from segeval.protocols.moments.tvr import evaluate, evaluate_files, iou32, per_query
from segeval.protocols.moments.tvr.reading import Query, Tvr, key, read
from tests.conftest import FIXTURES, ROOT, full_only, run_cli, shared
from tests.support.scripts import load_script
from tests.support.timeline import spans

TVR = FIXTURES / "tvr"
VIDEOS = {"v1": 10, "v2": 11, "v3": 12}


def picture(drawing: str, scale: float = 1.0, qid: int = 1, kind: str = "v") -> Tvr:
    """One query from an ASCII timeline (video v1 unless ``N@v2``): ``rel`` lines are the ground truth
    moment, several of them DiDeMo-style annotators; ``N`` the prediction at list position N. The
    drawing starts at the 7th character; one character is 1/scale seconds."""
    moments: list[tuple[float, float]] = []
    preds: dict[int, list[float]] = {}
    for line in drawing.strip("\n").splitlines():
        name, art = line[:6].rstrip(": "), line[6:]
        (s, e), = [(a / scale, b / scale) for a, b in spans(art)]
        if name == "rel":
            moments.append((s, e))
        else:
            rank, _, video = name.partition("@")
            preds[int(rank)] = [VIDEOS[video or "v1"], s, e]
    q = Query(qid, "v1", np.array(moments, dtype=np.float64), kind, 1)
    rows = np.array([preds[n] for n in sorted(preds)], dtype=np.float64).reshape(-1, 3)
    data = Tvr(queries=[q], video2idx=VIDEOS)
    for task in ("VCMR", "SVMR", "VR"):
        data.predictions[task] = {key(qid): rows}
        data.empty[task], data.unknown[task], data.longer[task], data.reversed[task] = [], [], 0, 0
    return data


def hit(data: Tvr, task: str, name: str, thresholds: tuple[float, ...] = (0.5, 0.7),
        top_k: tuple[int, ...] = (1, 2, 5)) -> bool:
    return bool(per_query(data, task, thresholds, top_k)[name][0])


def test_timeline_iou_exactly_on_the_threshold_is_a_hit() -> None:
    half = picture("""
rel : [=========]
1   : [====]
""")
    # truth 0-10, prediction 0-5: 5/10 = 0.5, a hit at 0.5 (>=), not at 0.7
    assert hit(half, "VCMR", "0.5-r1") and not hit(half, "VCMR", "0.7-r1")
    seven = picture("""
rel : [=========]
1   : ...[======]
""")
    # 3-10 against 0-10: 7/10 in float32 is float32(0.7) = 0.699999988, and the threshold 0.7 is taken
    # as float32 too: a hit
    assert float(iou32(np.array([[3, 10]], dtype=np.float32), np.array([0, 10], dtype=np.float32))[0]) == \
        float(np.float32(0.7))
    assert hit(seven, "VCMR", "0.7-r1") and hit(seven, "SVMR", "0.7-r1")
    under = picture("""
rel : [=========]
1   : ....[=====]
""")
    # 4-10: 0.6, a miss at 0.7
    assert hit(under, "VCMR", "0.5-r1") and not hit(under, "VCMR", "0.7-r1")
    hull = picture("""
rel : [====].....
1   : ...[======]
""")
    # 3-10 against 0-5: overlap 2 over the hull 0-10 (the same as the union when they overlap): 0.2
    assert not hit(hull, "VCMR", "0.5-r1") and hit(hull, "VCMR", "0.2-r1", thresholds=(0.2,))


def test_timeline_wrong_video_svmr_keeps_only_the_truth_video() -> None:
    data = picture("""
rel : ....[====]
1@v2: ....[====]
2   : [=]
3   : ....[====]
""")
    # VCMR: rank 1 is the right moment in the wrong video (IoU set to 0): a hit first at rank 3
    assert not hit(data, "VCMR", "0.5-r1") and not hit(data, "VCMR", "0.5-r2") and hit(data, "VCMR", "0.5-r5")
    # SVMR drops v2's prediction: the list is [2, 3], so the hit is at rank 2
    assert not hit(data, "SVMR", "0.5-r1") and hit(data, "SVMR", "0.5-r2")
    # VR: the truth video first appears at rank 2
    assert not hit(data, "VR", "r1") and hit(data, "VR", "r2")


def test_timeline_didemo_style_needs_two_annotators() -> None:
    two = picture("""
rel : [=========]
rel : [=========]
rel : ..........[=========]
rel : ....................[=========]
1   : [=========]
""")
    # four annotators' moments; the prediction equals two of them: a hit
    assert hit(two, "VCMR", "0.7-r1")
    one = picture("""
rel : [=========]
rel : ..........[=========]
rel : ....................[=========]
rel : ..............................[=========]
1   : [=========]
""")
    # IoU 1 with one annotator only: a miss, however good
    assert not hit(one, "VCMR", "0.5-r1")
    near = picture("""
rel : [=========]
rel : [==============]
rel : [===================]
rel : ..............................[=========]
1   : [=========]
""")
    # truth 0-10, 0-15, 0-20, 30-40 against 0-10: IoU 1, 0.667, 0.5, 0: three reach 0.5 (hit), one 0.7 (miss)
    assert hit(near, "VCMR", "0.5-r1") and not hit(near, "VCMR", "0.7-r1")


def test_timeline_zero_length_windows_never_hit() -> None:
    data = picture("""
rel : .....*
1   : .....*
2   : ....[=]
""")
    # the official IoU of [5, 5] with itself is 0 (empty hull), and 4-6 covers no length of it: 0
    assert not hit(data, "VCMR", "0.5-r5")
    assert hit(data, "VR", "r1")  # the video is right


def test_missing_and_empty_predictions_score_zero_with_notes() -> None:
    data = picture("""
rel : [====]
1   : [====]
""")
    data.queries.append(Query(2, "v2", np.array([[0.0, 4.0]]), "t", 2))
    data.queries.append(Query(3, "v3", np.array([[0.0, 4.0]]), "vt", 3))
    data.predictions["VCMR"][key(3)] = np.zeros((0, 3))
    data.empty["VCMR"] = ["3"]
    figures, notes = evaluate(data)
    # 1 hit of 3 queries: 33.33; query 2 has no record, query 3 an empty list
    assert figures["VCMR"]["0.5-r1"] == 33.33 and figures["VCMR_by_type"]["t-0.5-r1"] == 0.0
    assert figures["VCMR_by_type"]["desc_type_ratio"] == "v 33.33 t 33.33 vt 33.33"
    assert "VCMR: 1 ground-truth query has no record (e.g. 2) and score 0; the official script asserts" in notes[0]
    assert "VCMR: 1 query has an empty 'predictions' list (e.g. 3) and score 0; the official script stops" \
        in notes[1]


def _compare(got: dict[str, Any], expected: dict[str, Any]) -> int:
    """Every official value equal (NaN as null), in the official key order; return how many."""
    count = 0
    assert [k for k in got if k != "notes"] == list(expected)
    for task, values in expected.items():
        assert list(got[task]) == list(values), task
        for name, value in values.items():
            if isinstance(value, float) and math.isnan(value):
                assert got[task][name] is None, (task, name)
            else:
                assert got[task][name] == value, (task, name, got[task][name], value)
            count += 1
    return count


@pytest.mark.parametrize("case", ["boundary", "random"])
def test_official_output_on_generated_cases(case: str) -> None:
    expected = json.loads((TVR / f"{case}.official.json").read_text())
    code, out, _ = run_cli("mr", "-p", "tvr", "-o", "json", str(TVR / f"{case}.gt.jsonl.gz"),
                           str(TVR / f"{case}.submission.json.gz"))
    assert code == 0
    # 3 tasks (8 + 8 + 4) and their by-type figures (3 x (8 + 8 + 4)) plus 3 desc_type_ratio strings
    assert _compare(json.loads(out), expected) == 83


@pytest.mark.parametrize("case", ["boundary", "random"])
def test_official_per_query_hits_exactly(case: str) -> None:
    data = read(str(TVR / f"{case}.gt.jsonl.gz"), str(TVR / f"{case}.submission.json.gz"))
    ref = json.loads(gzip.decompress((TVR / f"{case}.official-perquery.json.gz").read_bytes()))
    compared = 0
    for task in ("VCMR", "SVMR", "VR"):
        found = per_query(data, task)
        for i, q in enumerate(data.queries):
            for name, value in ref[str(q.desc_id)][task].items():
                assert 100.0 * found[name][i] == value, (task, q.desc_id, name)
                compared += 1
    assert compared == {"boundary": 107, "random": 200}[case] * 20


def test_official_thresholds_and_cutoffs_as_options() -> None:
    expected = json.loads((TVR / "random.official-options.json").read_text())
    result = evaluate_files(str(TVR / "random.gt.jsonl.gz"), str(TVR / "random.submission.json.gz"),
                            MrOptions(thresholds=(0.3, 0.5, 0.9), top_k=(1, 2, 3, 50)))
    # 3 thresholds x 4 cut-offs for VCMR and SVMR, 4 for VR, the same per type, 3 ratios
    assert _compare(result.figures, {k: expected[k] for k in result.figures}) == 28 + 3 * 28 + 3


def test_ground_truth_without_type_gives_no_by_type(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in gzip.decompress((TVR / "random.gt.jsonl.gz").read_bytes()).splitlines()]
    (tmp_path / "gt.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "type"}) + "\n"
                                               for r in rows))
    code, out, err = run_cli("mr", "-p", "tvr", "-o", "json", str(tmp_path / "gt.jsonl"),
                             str(TVR / "random.submission.json.gz"))
    assert code == 0
    expected = json.loads((TVR / "random.official-notype.json").read_text())  # use_desc_type=False
    assert _compare(json.loads(out), expected) == 20
    assert "the ground truth has no 'type': no *_by_type figures (the official script stops with a KeyError" in err


def test_float32_and_double_disagree_on_the_boundary_pairs() -> None:
    # these truth/prediction pairs have IoU exactly 0.5 or 0.7 in decimal; the generated cases hold them
    cases = load_script("tvr_cases")
    for truth, pred in cases.DISAGREE:
        theta = 0.5 if abs((pred[1] - pred[0]) / (truth[1] - truth[0]) - 0.5) < 1e-6 else 0.7
        f32 = iou32(np.array([pred], dtype=np.float32), np.array(truth, dtype=np.float32))[0] >= np.float32(theta)
        f64 = (min(pred[1], truth[1]) - max(pred[0], truth[0])) / (max(pred[1], truth[1]) - min(pred[0], truth[0]))
        assert bool(f32) != (f64 >= theta), (truth, pred)


def _lines(tmp_path: Path, gt: Path, submission: Path) -> tuple[str, str]:
    prefix = tmp_path / "tvr"
    code, _, err = run_cli("mr", "-p", "tvr", "--write-lines", str(prefix), str(gt), str(submission))
    assert code == 0, err
    assert f"wrote {prefix}.qrels" in err and f"wrote {prefix}.run" in err
    return f"{prefix}.qrels", f"{prefix}.run"


def _eval(qrels: str, run: str, adapter: str, *flags: str) -> dict[str, Any]:
    code, out, err = run_cli("eval", "-c", "--time-format", "seconds", "-a", adapter, "-m", "Success@1,5,10,100",
                             "-m", "R@1,5,10,100", "-o", "json", *flags, qrels, run)
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def _eval_per_query(qrels: str, run: str, adapter: str) -> dict[str, dict[str, float]]:
    per: dict[str, dict[str, float]] = _eval(qrels, run, adapter, "-q")["per_query"]
    return per


def test_corpus_ranking_as_lines_gives_the_vcmr_figures(tmp_path: Path) -> None:
    qrels, run = _lines(tmp_path, TVR / "random.gt.jsonl.gz", TVR / "random.submission.json.gz")
    data = read(str(TVR / "random.gt.jsonl.gz"), str(TVR / "random.submission.json.gz"))
    compared = 0
    for theta in (0.5, 0.7):
        found = per_query(data, "VCMR", (theta,))
        for suffix in ("", "f"):  # double and float32 arithmetic agree here (no IoU exactly on θ)
            per = _eval_per_query(qrels, run, f"tiou:{theta}" + (":float32" if suffix else ""))
            for k in (1, 5, 10, 100):
                for i, q in enumerate(data.queries):
                    values = per[str(q.desc_id)]
                    name = f"success_{k}_tiou{theta}{suffix}"
                    # success (1 if a hit in the top k) is VCMR R@k; with one moment per query recall equals it
                    assert values[name] == float(found[f"{theta}-r{k}"][i])
                    assert values[f"recall_{k}_tiou{theta}{suffix}"] == values[name]
                    compared += 1
    assert compared == 2 * 2 * 4 * 200


def test_lines_path_differs_where_float32_does(tmp_path: Path) -> None:
    # generated on purpose: IoU 0.5 exactly in decimal; float32 says hit, float64 (segeval's tiou) says miss
    (tmp_path / "gt.jsonl").write_text('{"desc_id": 1, "vid_name": "a", "ts": [85.06, 85.08], "type": "v"}\n'
                                       '{"desc_id": 2, "vid_name": "a", "ts": [30.78, 30.82], "type": "v"}\n')
    (tmp_path / "sub.json").write_text('{"video2idx": {"a": 0}, "VCMR": ['
                                       '{"desc_id": 1, "predictions": [[0, 85.06, 85.07, 1]]},'
                                       '{"desc_id": 2, "predictions": [[0, 30.78, 30.8, 1]]}]}')
    code, out, _ = run_cli("mr", "-p", "tvr", "-o", "json", str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"))
    assert code == 0 and json.loads(out)["VCMR"]["0.5-r1"] == 50.0  # query 1 only
    qrels, run = _lines(tmp_path, tmp_path / "gt.jsonl", tmp_path / "sub.json")
    per = _eval_per_query(qrels, run, "tiou:0.5")
    # float64: 0.00999999999999 / 0.0200000000000 < 0.5 for query 1, >= 0.5 for query 2: the reverse
    assert per["1"]["success_1_tiou0.5"] == 0.0 and per["2"]["success_1_tiou0.5"] == 1.0
    per = _eval_per_query(qrels, run, "tiou:0.5:float32")  # the official arithmetic
    assert per["1"]["success_1_tiou0.5f"] == 1.0 and per["2"]["success_1_tiou0.5f"] == 0.0


def test_explain_shows_the_two_arithmetics(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 Q0 a 85.06 85.08 1\n")
    (tmp_path / "r").write_text("1 Q0 a 85.06 85.07 1 1 r\n")
    code, out, err = run_cli("show", str(tmp_path / "q"), str(tmp_path / "r"), "--query", "1", "-a",
                             "tiou:0.5:float32", "-a", "tiou:0.5", "--explain", "--time-format", "seconds")
    assert code == 0, err
    # 0.01 / 0.02: float32 rounds it to 0.5 exactly, doubles leave it just below
    assert "tiou:0.5:float32\t1\tqrels line 1 (a 85.06-85.08 rel 1): IoU 0.5 >= 0.5, matched here" in out
    assert "tiou:0.5\t0\tqrels line 1 (a 85.06-85.08 rel 1): best IoU 0.49999999999" in out


def test_float32_tiou_gives_equal_zero_length_spans_iou_0(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 Q0 a 5 5 1\n")
    (tmp_path / "r").write_text("1 Q0 a 5 5 1 1 r\n")
    # double: two equal zero-length spans have IoU 1; TVR's float32 IoU is 0 (empty hull)
    assert _eval(str(tmp_path / "q"), str(tmp_path / "r"), "tiou:0.5")["summary"]["success_1_tiou0.5"] == 1.0
    assert _eval(str(tmp_path / "q"), str(tmp_path / "r"), "tiou:0.5:float32")["summary"]["success_1_tiou0.5f"] == 0


def test_write_lines_refuses_what_lines_cannot_say(tmp_path: Path) -> None:
    code, _, err = run_cli("mr", "-p", "tvr", "--write-lines", str(tmp_path / "x"),
                           str(TVR / "boundary.gt.jsonl.gz"), str(TVR / "boundary.submission.json.gz"))
    assert code == 2 and "annotators' moments (DiDeMo-style); its 2-annotator rule has no line equivalent" in err
    qvh = FIXTURES / "qvh"
    code, _, err = run_cli("mr", "--write-lines", str(tmp_path / "x"), str(qvh / "random.gt.jsonl.gz"),
                           str(qvh / "random.pred.jsonl.gz"))
    assert code == 2 and "random.gt.jsonl.gz: query 3 has the negative time -6.4; the lines' seconds format has no " \
                         "negative times (--write-lines)" in err


def test_measure_lists_in_the_ir_measures_spelling() -> None:
    from segeval.measures.definitions import expand

    assert [m.name for m in expand("Success@10,1,5")] == ["success_1", "success_5", "success_10"]
    assert [m.name for m in expand("R@1,100")] == ["recall_1", "recall_100"]  # R@k stays recall


GT = ('{"desc_id": 1, "vid_name": "a", "ts": [0, 5], "type": "v"}\n'
      '{"desc_id": 2, "vid_name": "b", "ts": [1, 6], "type": "t"}\n')
SUB = {"video2idx": {"a": 0, "b": 1},
       "VCMR": [{"desc_id": 1, "predictions": [[0, 0, 5, 1.0]]}, {"desc_id": 2, "predictions": [[1, 1, 6, 1.0]]}]}


@pytest.mark.parametrize(("gt", "problem"), [
    ("not json", "gt.jsonl, line 1: is not a JSON object"),
    ('{"desc_id": 1, "vid_name": "a", "type": "v"}',
     "gt.jsonl, line 1: has no 'ts'; expected one JSON object per line with"),
    ('[1, 2]', "gt.jsonl, line 1: is not a JSON object; expected one JSON object per line with 'desc_id', "
     "'vid_name', 'ts' and 'type'"),
    ('{"desc_id": 1, "vid_name": "a", "ts": [0, 5, 6], "type": "v"}',
     "line 1: 'ts' is [0, 5, 6]; expected [start, end] or, DiDeMo-style, a list of at least 4 [start, end] pairs"),
    ('{"desc_id": 1, "vid_name": "a", "ts": [[0, 5], [1, 6]], "type": "v"}', "'ts' is [[0, 5], [1, 6]]; expected"),
    ('{"desc_id": 1, "vid_name": "a", "ts": [5, 0], "type": "v"}', "end < start; expected start <= end"),
    ('{"desc_id": 1, "vid_name": "a", "ts": [0, 5], "type": "x"}', "'type' is \"x\"; expected one of"),
    ('{"desc_id": true, "vid_name": "a", "ts": [0, 5], "type": "v"}', "'desc_id' is true; expected an integer"),
    ('{"desc_id": 1, "vid_name": 3, "ts": [0, 5], "type": "v"}', "'vid_name' is 3; expected a string"),
    (GT + '{"desc_id": 1, "vid_name": "a", "ts": [0, 5], "type": "v"}',
     "line 3: desc_id 1 appears twice (first on line 1); expected one line per query"),
    ('{"desc_id": 1, "vid_name": "a", "ts": [0, 5], "type": "v"}\n{"desc_id": 2, "vid_name": "b", "ts": [1, 6]}',
     "line 2: has no 'type' here but other lines have one"),
    ('{"desc_id": 1, "vid_name": "zz", "ts": [0, 5], "type": "v"}',
     "'video2idx' has no entry for the ground-truth video 'zz' (desc_id 1, line 1 of the ground truth)"),
])
def test_bad_ground_truth_exits_2(tmp_path: Path, gt: str, problem: str) -> None:
    (tmp_path / "gt.jsonl").write_text(gt + "\n")
    (tmp_path / "sub.json").write_text(json.dumps(SUB))
    code, out, err = run_cli("mr", "-p", "tvr", str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"))
    assert code == 2 and out == "" and problem in err, err
    assert "Traceback" not in err and "internal error" not in err


def brief(out: str) -> dict[str, float]:
    """``mr -o text``'s table: a header, then one ``name<TAB>value`` line per headline figure."""
    return {name: float(value) for name, value in (line.split("\t") for line in out.splitlines()[1:])}


def _with(**changes: Any) -> dict[str, Any]:
    sub = json.loads(json.dumps(SUB))
    sub.update(changes)
    return sub


@pytest.mark.parametrize(("sub", "problem"), [
    ("[1", "sub.json, line 1: is not JSON"),
    ([1, 2], "expected a JSON object with 'video2idx' and any of 'VCMR', 'SVMR', 'VR'"),
    ({"VCMR": []}, "expected a JSON object with 'video2idx'"),
    ({"video2idx": {"a": 0, "b": 1}, "vcmr": []}, "has none of 'VCMR', 'SVMR', 'VR' (keys: video2idx, vcmr)"),
    (_with(video2idx={"a": "0", "b": 1}), "'video2idx' must map video names to integers from 0 to 16777215"),
    (_with(video2idx={"a": 0, "b": 0}), "'video2idx' gives two videos the same index"),
    (_with(VCMR={"1": []}), "'VCMR' is {\"1\": []}; expected a list of"),
    (_with(VCMR=[{"desc_id": 1}]), "VCMR[0] is {\"desc_id\": 1}; expected an object with 'desc_id' and 'predictions'"),
    (_with(VCMR=[{"desc_id": 1, "predictions": [0, 0, 5]}]),
     "VCMR[0] (desc_id 1): predictions[0] is 0; expected [video_index, start, end, score]"),
    (_with(SVMR=[{"desc_id": 1, "predictions": [[0, 0, 5], [0, 1]]}]),
     "SVMR[0] (desc_id 1): predictions[1] is [0, 1]; expected [video_index, start, end, score] (3 finite"),
    (_with(VCMR=[{"desc_id": 1, "predictions": [[0, 0, "5"]]}]), "predictions[0] is [0, 0, \"5\"]; expected"),
    (_with(VCMR=[{"desc_id": 1, "predictions": {"a": 1}}]), "'predictions' is {\"a\": 1}; expected a list"),
    (_with(VR=[{"desc_id": 1, "predictions": [[0, 0, 0], [7, 0, 0]]}]),
     "VR[0] (desc_id 1): predictions[1] names the video index 7, which is not in 'video2idx'"),
    (_with(VR=[{"desc_id": 1, "predictions": [[0.5, 0, 0]]}]), "names the video index 0.5, which is not in"),
    (_with(VR=[{"desc_id": 1, "predictions": [[0, 0, 0], [-1, 0, 0]]}]), "predictions[1] names the video index -1,"),
    (_with(VCMR=[{"desc_id": 1, "predictions": [[0, 0, 5, 1], [0, True, 5, 1]]}]),
     "VCMR[0] (desc_id 1): predictions[1] is [0, true, 5, 1]; expected [video_index, start, end, score]"),
    (_with(VCMR=[{"desc_id": 1, "predictions": []}, {"desc_id": 1, "predictions": []}]),
     "VCMR[1] (desc_id 1): desc_id 1 appears twice in 'VCMR'; expected one record per query"),
])
def test_bad_submission_exits_2(tmp_path: Path, sub: Any, problem: str) -> None:
    (tmp_path / "gt.jsonl").write_text(GT)
    (tmp_path / "sub.json").write_text(sub if isinstance(sub, str) else json.dumps(sub))
    code, out, err = run_cli("mr", "-p", "tvr", str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"))
    assert code == 2 and out == "" and f"{tmp_path / 'sub.json'}" in err and problem in err, err
    assert "Traceback" not in err and "internal error" not in err


def test_a_boolean_score_is_not_read(tmp_path: Path) -> None:
    # the score (4th value) is not used: true there is let through, as a number in the first three would be
    (tmp_path / "gt.jsonl").write_text(GT)
    sub = _with(VCMR=[{"desc_id": 1, "predictions": [[0, 0, 5, True]]}, {"desc_id": 2, "predictions": [[1, 1, 6, 0]]}])
    (tmp_path / "sub.json").write_text(json.dumps(sub))
    code, out, err = run_cli("mr", "-p", "tvr", str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"))
    assert code == 0 and brief(out)["VCMR-0.5-r1"] == 100.0, err


def test_unknown_queries_and_options(tmp_path: Path) -> None:
    (tmp_path / "gt.jsonl").write_text(GT)
    sub = _with(VCMR=[*SUB["VCMR"], {"desc_id": 9, "predictions": [[0, 0, 5]]}])
    (tmp_path / "sub.json").write_text(json.dumps(sub))
    code, out, err = run_cli("mr", "-p", "tvr", str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"))
    assert code == 0 and brief(out)["VCMR-0.5-r1"] == 100.0
    assert "VCMR: 1 record is for queries not in the ground truth (e.g. 9) and are ignored" in err
    from segeval.core.errors import ParameterError

    with pytest.raises(ParameterError, match="takes no --nms"):
        evaluate_files(str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"), MrOptions(nms=0.5))
    with pytest.raises(ParameterError, match="cut-offs from 1 to 100"):
        evaluate_files(str(tmp_path / "gt.jsonl"), str(tmp_path / "sub.json"), MrOptions(top_k=(200,)))


def test_the_generator_reproduces_the_stored_inputs(tmp_path: Path) -> None:
    import subprocess
    import sys

    subprocess.run([sys.executable, str(ROOT / "scripts" / "tvr_cases.py"), str(tmp_path)], check=True)
    for case in ("boundary", "random"):
        for part in ("gt.jsonl", "submission.json"):
            assert (tmp_path / f"{case}.{part}").read_bytes() == gzip.decompress(
                (TVR / f"{case}.{part}.gz").read_bytes()), (case, part)


@full_only
@pytest.mark.reference
def test_official_tvr_figures() -> None:
    truth = shared("tvr", "sample_gt.jsonl.gz")
    preds = shared("tvr", "sample_predictions.json.gz")
    expected = json.loads(shared("tvr", "sample_metrics_official.json").read_text())
    code, out, _ = run_cli("mr", "-p", "tvr", "-o", "json", str(truth), str(preds))
    assert code == 0
    assert _compare(json.loads(out), expected) == 83  # every figure, exactly, in the official key order


@full_only
@pytest.mark.reference
def test_official_tvr_vcmr_from_lines(tmp_path: Path) -> None:
    truth = shared("tvr", "sample_gt.jsonl.gz")
    preds = shared("tvr", "sample_predictions.json.gz")
    expected = json.loads(shared("tvr", "sample_metrics_official.json").read_text())["VCMR"]
    from segeval.protocols.moments.lines import write_lines

    write_lines("tvr", str(truth), str(preds), MrOptions(), str(tmp_path / "tvr"))
    qrels, run = str(tmp_path / "tvr.qrels"), str(tmp_path / "tvr.run")
    differ = []
    for theta in (0.5, 0.7):
        exact = _eval(qrels, run, f"tiou:{theta}:float32")["summary"]
        for k in (1, 5, 10, 100):
            # 2500 queries: a fraction x 100 has at most 2 decimals
            assert round(exact[f"success_{k}_tiou{theta}f"] * 100, 2) == expected[f"{theta}-r{k}"]
    double = _eval(qrels, run, "tiou:0.5")["summary"]
    for k in (1, 5, 10, 100):
        if round(double[f"success_{k}_tiou0.5"] * 100, 2) != expected[f"0.5-r{k}"]:
            differ.append((k, round(double[f"success_{k}_tiou0.5"] * 100, 2)))
    # in doubles one query's IoU reaches 0.5 (desc_id 96839: 82.86-85.34 against 80.79-85.75, 2.48 / 4.96)
    # where float32 falls short: 15.60 instead of 15.56
    assert differ == [(5, 15.6)]


def test_shipped_example_matches_the_official_output_and_its_readme(tmp_path: Path) -> None:
    gt, sub = ROOT / "examples" / "tvr" / "gt.jsonl", ROOT / "examples" / "tvr" / "submission.json"
    code, out, _ = run_cli("mr", "-p", "tvr", "-o", "json", str(gt), str(sub))
    assert code == 0
    assert _compare(json.loads(out), json.loads((TVR / "example.official.json").read_text())) == 83
    code, out, err = run_cli("mr", str(gt), str(sub))  # the protocol told from the ground truth
    assert "note: protocol tvr: " in err
    figures = brief(out)
    # examples/tvr/README.md's table: 4 of 6 at 0.5, 3 of 6 at 0.7; SVMR 5 of 6 at 0.5
    assert (figures["VCMR-0.5-r1"], figures["VCMR-0.7-r1"], figures["SVMR-0.5-r1"]) == (66.67, 50.0, 83.33)
    qrels, run = _lines(tmp_path, gt, sub)
    code, out, _ = run_cli("eval", "-c", "--time-format", "seconds", "-a", "tiou:0.5:float32", "-m",
                           "Success@1,5,10,100", "-m", "map", "-m", "ndcg_cut_10", qrels, run)
    readme = (ROOT / "examples" / "tvr" / "README.md").read_text()
    assert code == 0 and out.strip() in readme


@pytest.mark.parametrize(("spec", "ok"), [("tiou", True), ("tiou:0.5:float32", True), ("tiou:0.5:strict:float32", True),
                                          ("tiou:0.5:float32:strict", False), ("tiou:0.5:float64", False),
                                          ("tiou:0.5:strict:empty0", True), ("tiou:0.5:empty0:float32", True),
                                          ("tiou:0.5:empty0:strict", False), ("tiou:0.5:empty0:empty0", False)])
def test_tiou_adapter_specs(spec: str, ok: bool) -> None:
    from segeval.core.errors import ParameterError
    from segeval.core.pipeline import make_adapter

    if ok:
        assert make_adapter(spec).spec == (spec if spec != "tiou" else "tiou:0.5")
    else:
        with pytest.raises(ParameterError, match=r"the flags after theta must be any of 'strict', "
                                                 r"'empty0', 'best', 'float32', each once and in that order"):
            make_adapter(spec)
