"""`segeval show`: the explanation, a PNG, an SVG and an HTML page whose elements are checked."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from segeval.adapters import Adapter, TiouAdapter, ToleranceAdapter
from segeval.adapters.registry import EXAMPLES
from segeval.readers.from_tables import Prepared
from tests.conftest import Tags, run_cli, sliced

QRELS = "q1 Q0 v1 0.10 0.20 1\nq1 Q0 v1 0.29 0.34 1\nq1 Q0 v1 0.00 0.04 0\nq1 Q0 v2 0.05 0.12 1\n"
RUN = ("q1 Q0 v1 0.02 0.06 1 0.9 r\nq1 Q0 v1 0.08 0.13 2 0.8 r\nq1 Q0 v1 0.12 0.16 3 0.7 r\n"
       "q1 Q0 v1 0.25 0.32 4 0.6 r\nq1 Q0 v2 0.06 0.12 5 0.5 r\nq1 Q0 v3 0.00 0.10 6 0.4 r\n")


def files(tmp_path: Path) -> list[str]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return [str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q1"]


def test_explain_names_the_deciding_qrels_line(tmp_path: Path) -> None:
    code, out, _ = run_cli("show", *files(tmp_path), "-a", "overlap", "-a", "overlap-once", "--explain")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 12  # 6 results x 2 adapters
    # rank 1 (2-6 s) meets the non-relevant 0-4 s of qrels line 3; times written in M.S, as the files write them
    assert rows[0] == ["rank 1", "v1 0.02-0.06", "overlap", "0",
                       "qrels line 3 (v1 0.00-0.04 rel 0): non-relevant, meets it; no relevant one does"]
    # rank 3 (12-16 s) meets the relevant 10-20 s of line 1, already credited to rank 2 under overlap-once
    assert rows[5] == ["rank 3", "v1 0.12-0.16", "overlap-once", "s",
                       "qrels line 1 (v1 0.10-0.20 rel 1): relevant, meets it, already credited to an earlier result"]
    # rank 6 is in a video without judgements
    assert rows[10] == ["rank 6", "v3 0.00-0.10", "overlap", "-", "no qrels segment meets it"]
    (tmp_path / "r").write_text("q1 Q0 v1 0:00:12.5 0:00:16 1 0.9 r\n")
    code, out, _ = run_cli("show", str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q1", "--time-format", "hms",
                           "--explain")
    assert code == 2  # the M.S qrels do not read as H:MM:SS
    (tmp_path / "q").write_text("q1 Q0 v1 0:00:10 0:00:20 1\n")
    code, out, _ = run_cli("show", *files_as_is(tmp_path), "--time-format", "hms", "--explain")
    assert out == ("rank 1\tv1 0:00:12.5-0:00:16\toverlap-once\t1\tqrels line 1 (v1 0:00:10-0:00:20 rel 1): "
                   "relevant, meets it\n")


def files_as_is(tmp_path: Path) -> list[str]:
    return [str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q1"]


def test_crowded_rank_labels_are_left_out_and_the_truth_is_not_grey(tmp_path: Path) -> None:
    from segeval.figures.show import COLOURS, LABEL_GAP, TRUTH, shown_labels

    # starts 0, 1, 2, 50, 51 on a 100 s axis: labels need LABEL_GAP x 100 = 2.5 s; 1 and 2 are too close to 0
    # (2 is 2 s after the last shown), 51 to 50
    assert LABEL_GAP == 0.025 and shown_labels([2, 0, 1, 51, 50], 100) == [False, True, False, False, True]
    assert TRUTH[False] not in COLOURS.values() and len(set(TRUTH.values()) | set(COLOURS.values())) == 7
    assert run_cli("show", *files(tmp_path), "-a", "overlap", "-o", str(tmp_path / "t.svg"))[0] == 0
    svg = (tmp_path / "t.svg").read_text()
    # the non-relevant 0-4 s of line 3 in amber; rank labels: v1's results at 2, 8, 12, 25 s on a 34 s axis
    # (0.85 s apart at least): 12 is 4 s after 8, all shown
    assert f'fill="{TRUTH[False]}"><title>qrels line 3' in svg and "#bdbdbd" not in svg
    assert len(re.findall(r'font-size="9">\d+</text>', svg)) == 6


def test_explain_tiou_names_the_segment_and_each_adapter_by_its_parameters(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 Q0 v1 10 20 1\nq1 Q0 v1 30 40 1\n")
    (tmp_path / "r").write_text("q1 Q0 v1 10 19 1 0.9 r\nq1 Q0 v1 10 20 2 0.8 r\nq1 Q0 v1 5 15 3 0.7 r\n"
                                "q1 Q0 v1 50 60 4 0.6 r\n")
    code, out, _ = run_cli("show", str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q1", "--time-format", "seconds",
                           "-a", "tiou:0.5", "-a", "tiou:0.9", "-a", "tiou:0.9", "--explain")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[2] for r in rows[:3]] == ["tiou:0.5", "tiou:0.9", "tiou:0.9#2"]
    by = {(r[0], r[2]): r[3:] for r in rows}
    # rank 1, 10-19 against 10-20: IoU 9/10 = 0.9, matched at both thresholds
    assert by["rank 1", "tiou:0.9"] == ["1", "qrels line 1 (v1 10-20 rel 1): IoU 0.9 >= 0.9, matched here"]
    # rank 2, the exact segment: IoU 1, but line 1 is taken by rank 1
    assert by["rank 2", "tiou:0.5"] == ["s", "qrels line 1 (v1 10-20 rel 1): IoU 1 >= 0.5, already matched by rank 1"]
    # rank 3, 5-15 against 10-20: IoU 5/15 = 0.3333 < 0.5
    assert by["rank 3", "tiou:0.5"] == ["0", "qrels line 1 (v1 10-20 rel 1): best IoU 0.3333, not >= 0.5"]
    assert by["rank 4", "tiou:0.5"] == ["0", "no relevant qrels segment of its video overlaps it"]


def test_explain_tiou_best_names_the_taken_segment_and_the_rank_that_took_it(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 Q0 v1 10 20 1\n")
    (tmp_path / "r").write_text("q1 Q0 v1 10 19 1 0.9 r\nq1 Q0 v1 10 20 2 0.8 r\nq1 Q0 v1 5 15 3 0.7 r\n")
    code, out, _ = run_cli("show", str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q1", "--time-format", "seconds",
                           "-a", "tiou-best:0.5", "--explain")
    assert code == 0
    by = {r[0]: r[3:] for r in (line.split("\t") for line in out.splitlines())}
    line = "qrels line 1 (v1 10-20 rel 1): "
    # rank 1: inter 9 / (9 + 10 - 9) = 0.9; rank 2: 10 / 10 = 1.0, line 1 taken; rank 3: 5 / (10 + 10 - 5) = 1/3
    assert by["rank 1"] == ["1", line + "tIoU 0.9 >= 0.5, the best free segment: taken here"]
    assert by["rank 2"] == ["s", line + "tIoU 1.0 >= 0.5, taken by rank 1"]
    assert by["rank 3"] == ["0", line + "best tIoU 0.3333333333333333, not >= 0.5"]


def test_html_page_elements(tmp_path: Path) -> None:
    out = tmp_path / "q1.html"
    code, _, _ = run_cli("show", *files(tmp_path), "-a", "overlap", "-a", "tiou:0.5", "-o", str(out))
    assert code == 0
    page = Tags()
    page.feed(out.read_text())
    tags = [t for t, _ in page.tags]
    assert tags.count("svg") == 1 and tags.count("table") == 1
    truth = [a for t, a in page.tags if t == "rect" and a.get("class") == "truth"]
    result = [a for t, a in page.tags if t == "rect" and a.get("class") == "result"]
    assert len(truth) == 4  # every qrels segment of the query
    assert len(result) == 6 * 2  # every result under each adapter
    assert tags.count("tr") == 1 + 6  # header and one row per result
    assert out.read_text().count('<td class="label">') == 12


def test_png_and_svg(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    code, _, _ = run_cli("show", *files(tmp_path), "-a", "overlap", "-o", str(tmp_path / "t.png"))
    assert code == 0 and (tmp_path / "t.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "t.png").stat().st_size > 10000
    code, _, _ = run_cli("show", *files(tmp_path), "-o", str(tmp_path / "t.svg"))
    assert code == 0 and (tmp_path / "t.svg").read_text().startswith("<svg")


def test_show_errors(tmp_path: Path) -> None:
    args = files(tmp_path)
    assert run_cli("show", *args)[2] == "segeval: error: Nothing to do: give -o FILE.png|svg|html and/or --explain.\n"
    code, _, err = run_cli("show", *args, "-o", str(tmp_path / "t.gif"))
    assert code == 2 and "must end in .png, .svg or .html" in err


# ----------------------------------------------------------------- explanations agree with labels

#: every declared variant and flag (tests/unit/adapters/test_declarations.py: every adapter class is declared), and
#: a few other parameter values
SPECS = [*EXAMPLES, "binned:7:start", "tolerance:5", "tiou:0.3:strict"]


def _generated(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded qrels and a run over 3 queries x 3 videos; a third of the results copy (or nudge) a qrels span."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in ("q1", "q2", "q10"):
        spans = []
        for _ in range(int(rng.integers(2, 7))):
            v, s = f"v{rng.integers(1, 4)}", float(rng.integers(0, 50))
            e = s + float(rng.integers(0, 15))
            spans.append((v, s, e))
            qrels.append({"query": q, "item": v, "start": s, "end": e, "rel": int(rng.choice([-1, 0, 1, 2])),
                          "line": len(qrels) + 1})
        for rank in range(1, int(rng.integers(5, 25))):
            if rng.random() < 0.35:
                v, s, e = spans[int(rng.integers(len(spans)))]
                if rng.random() < 0.5:
                    s, e = s + float(rng.integers(-2, 3)), e + float(rng.integers(-2, 3))
                    s, e = max(s, 0.0), max(e, max(s, 0.0))
            else:
                v, s = f"v{rng.integers(1, 4)}", float(rng.integers(0, 60))
                e = s + float(rng.integers(0, 20))
            run.append({"query": q, "item": v, "start": s, "end": e, "jumpin": float("nan"), "rank": rank,
                        "score": float(100 - rank), "run": "r", "line": len(run) + 1})
    return (pd.DataFrame(qrels).astype({"rel": "int64", "line": "int64"}),
            pd.DataFrame(run).astype({"rank": "int64", "line": "int64"}))


# each rule written here again, independently of segeval.core.segment
def _closed(s1: float, e1: float, s2: float, e2: float) -> bool:
    return s1 <= e2 and s2 <= e1


def _whole_seconds(a: float, b: float, s: float, e: float) -> bool:
    """Look-up [a, b) meets [s, e) on a whole second; a look-up ending at 0 is the point a."""
    if b == 0:
        return s <= a < e
    return math.ceil(max(a, s)) < min(b, e)


def _iou(s1: float, e1: float, s2: float, e2: float) -> float:
    union = max(e1, e2) - min(s1, s2)
    return max(0.0, min(e1, e2) - max(s1, s2)) / union if union > 0 else float(s1 == s2)


def _bins(s: float, e: float, size: int, assign: str) -> list[int]:
    if assign == "start":
        return [math.floor(s / size)]
    return list(range(math.floor(s / size), math.floor((e - 1) / size) + 1))


def _merged(data: Prepared, qrows: range) -> dict[int, int]:
    """Relevant qrels row -> its merged segment (touching or overlapping segments of a video merged)."""
    Q = data.qrels
    rel = sorted((str(data.items[Q["icode"].iat[j]]), float(Q["start"].iat[j]), float(Q["end"].iat[j]), j)
                 for j in qrows if Q["rel"].iat[j] >= 1)
    out: dict[int, int] = {}
    group, video, end = -1, None, -math.inf
    for v, s, e, j in rel:
        if v != video or s > end:
            group, video, end = group + 1, v, e
        end = max(end, e)
        out[j] = group
    return out


def _rule(adapter: Adapter, spec: str, data: Prepared, j: int, span: tuple[str, float, float],
          bin_no: int | None, for_relevance: bool) -> bool:
    """The adapter's rule for qrels row j against a result (or its bin), written independently."""
    Q, kind = data.qrels, spec.split(":")[0]
    v, s, e = span
    if data.items[Q["icode"].iat[j]] != v:
        return False
    qs, qe = float(Q["start"].iat[j]), float(Q["end"].iat[j])
    if kind == "exact":
        return (qs, qe) == (s, e)
    if kind in ("overlap", "overlap-once"):
        return _closed(s, e, qs, qe)
    if isinstance(adapter, ToleranceAdapter):
        return _whole_seconds(s, s + adapter.tolerance if for_relevance else e, qs, qe)
    if kind.startswith("binned"):
        return bin_no in _bins(qs, qe, adapter.bin_size, adapter.assign)  # type: ignore[attr-defined]
    if kind == "tiou-best":  # ActivityNet's tIoU: lengths minus the intersection; 0/0 (NaN) reaches θ
        inter = max(0.0, min(e, qe) - max(s, qs))
        union = (qe - qs) + (e - s) - inter
        return union == 0 or inter / union >= float(spec.split(":")[1])
    if kind == "collar":  # sed_eval's collars: onsets within t, offsets within max(t, p x the segment's length)
        t, p = (float(x) for x in spec.split(":")[1:3])
        return abs(qs - s) <= t and (spec.endswith(":onset") or abs(qe - e) <= max(t, p * (qe - qs)))
    assert isinstance(adapter, TiouAdapter)
    return _iou(s, e, qs, qe) > adapter.theta if adapter.strict else _iou(s, e, qs, qe) >= adapter.theta


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", sliced(range(12), 4))
def test_explanation_agrees_with_label(spec: str, seed: int) -> None:
    from segeval.core.pipeline import make_adapter
    from segeval.readers.from_tables import prepare

    adapter = make_adapter(spec)
    q, r = _generated(seed)
    data = prepare(q, r, missing_queries="zero")
    Q, R = data.qrels, data.run
    kind = spec.split(":")[0]
    checked = 0
    for k, a in enumerate(adapter.adapt(data)):
        qrows = range(int(data.qrels_bounds[k]), int(data.qrels_bounds[k + 1]))
        matched_at: dict[int, int] = {}  # tiou: qrels row -> rank matching it
        merged, credited = _merged(data, qrows), set()  # overlap-once: merged relevant segments credited
        for u in range(len(a)):
            label = chr(int(a.labels[u]))
            i = int(data.run_bounds[k] + a.source[u])
            v, s, e = data.items[R["icode"].iat[i]], float(R["start"].iat[i]), float(R["end"].iat[i])
            reasons = adapter.explain(data, a, u, k)
            rows = [x.row for x in reasons if x.row >= 0]
            assert rows or len(reasons) == 1, reasons  # no row: one sentence saying so
            bin_no = None
            if kind.startswith("binned"):
                m = re.search(r"bin (-?\d+) ", reasons[0].why)
                assert m, reasons
                bin_no = int(m.group(1))
                assert bin_no in _bins(s, e, adapter.bin_size, adapter.assign)  # type: ignore[attr-defined]

            def relevant(j: int) -> bool:
                return int(Q["rel"].iat[j]) >= 1

            def meets(j: int, for_relevance: bool, span: tuple[str, float, float] = (v, s, e),
                      bin_no: int | None = bin_no) -> bool:
                return _rule(adapter, spec, data, j, span, bin_no, for_relevance)

            rel_named = [j for j in rows if relevant(j) and meets(j, True)]
            any_rel = [j for j in qrows if relevant(j) and meets(j, True)]
            # a relevant label (1, or s: relevant but already credited) <=> the explanation names a
            # relevant qrels line that the rule matches
            assert (label in "1s") == bool(rel_named), (label, reasons)
            if kind == "overlap-once" and label in "1s":  # 1 <=> a merged segment it meets is not yet credited
                groups = {merged[j] for j in rel_named}
                assert (label == "1") == bool(groups - credited), (label, reasons)
                credited |= groups
            assert all(data.items[Q["icode"].iat[j]] == v for j in rows), reasons  # every line named is of its video
            if kind == "exact":
                if label == "1":
                    assert rows == [min(j for j in qrows if meets(j, True))]  # the first qrels line of it
                elif label == "0":
                    assert rows and all(0 <= Q["rel"].iat[j] < 1 and meets(j, True) for j in rows)
                else:  # no line, or a negative grade
                    assert all(Q["rel"].iat[j] < 0 and meets(j, True) for j in rows)
                    assert not any_rel
            elif kind in ("tiou", "tiou-best", "collar"):
                if label == "1":
                    (row,) = rows
                    assert row not in matched_at
                    matched_at[row] = u
                elif label == "s":
                    assert rows and sorted(rows) == sorted(any_rel)  # every segment it reaches ...
                    assert all(matched_at[j] < u for j in rows)  # ... was matched at an earlier rank
                else:
                    assert label == "0" and not any_rel
                    assert all(relevant(j) and not meets(j, True) for j in rows)
            else:  # overlap family: 1 / s name relevant lines met, 0 / S non-relevant ones, - none
                if label in "1s":
                    assert rows and all(relevant(j) and meets(j, True) for j in rows)
                    assert sorted(rows) == sorted(any_rel)
                elif label in "0S":
                    assert not any_rel
                    assert rows and all(not relevant(j) and meets(j, False) for j in rows)
                    assert sorted(rows) == sorted(j for j in qrows if not relevant(j) and meets(j, False))
                else:
                    assert label == "-" and not rows and not any_rel
                    assert not any(not relevant(j) and meets(j, False) for j in qrows)
            checked += 1
    assert checked > 10


def test_two_tiou_adapters_in_one_evaluation_keep_their_own_labels(tmp_path: Path) -> None:
    """The same pattern as the display name: adapters keyed by name shared one adapter's labels."""
    from segeval.adapters import TiouAdapter
    from segeval.core.pipeline import evaluate

    (tmp_path / "q").write_text("q1 Q0 v1 10 20 1\n")
    (tmp_path / "r").write_text("q1 Q0 v1 10 18 1 0.9 r\n")
    ev = evaluate(tmp_path / "q", tmp_path / "r", ["map"], adapters=[TiouAdapter(0.5), TiouAdapter(0.9)],
                  time_format="seconds")
    # 10-18 against 10-20: IoU 8/10 = 0.8, relevant at 0.5 (AP 1), not at 0.9 (AP 0)
    assert ev.summary == {"map_tiou0.5": 1.0, "map_tiou0.9": 0.0}


def test_a_document_run_is_refused_not_crashed() -> None:
    # it ended in "internal error: ValueError: cannot convert float NaN to integer": documents have no times
    qrels, run = "examples/ir/qrels.txt", "examples/ir/run.txt"
    for adapter in ("exact", "overlap-once"):
        code, out, err = run_cli("show", "-Q", "301", "-a", adapter, "--explain", qrels, run)
        assert (code, out) == (2, "")
        why = "is a document run (no times): show draws time spans ('segeval eval -q' scores it)"
        assert err == f"segeval: error: {run}: {why}\n"


@pytest.mark.parametrize("spec", ["binned:10", "binned:10:start", "binned:1"])
def test_binned_explain_names_each_units_bin(spec: str) -> None:
    # each unit is a (video, bin) at its first appearance in rank order: walk the results one by one
    from segeval.adapters.binned import expand_bins
    from segeval.adapters.registry import make_adapter
    from segeval.core.settings import DEFAULTS
    from segeval.readers.from_tables import prepare
    from segeval.readers.tables import read_qrels, read_run

    q, r = read_qrels("tests/fixtures/gen_linking.qrels"), read_run("tests/fixtures/gen_linking.run")
    adapter = make_adapter(spec)
    for query in ("anchor_1", "anchor_2"):
        data = prepare(q, r, queries=[query], order=DEFAULTS.order_for(False), missing_queries="zero")
        (adapted,) = adapter.adapt(data)
        run = data.run_columns
        walked: list[int] = []
        seen: set[tuple[int, int]] = set()
        for row in range(len(run["start"])):
            span = run["start"][row : row + 1], run["end"][row : row + 1]
            _, bins = expand_bins(*span, adapter.bin_size, adapter.assign)
            for b in bins.tolist():
                if (int(run["gid"][row]), b) not in seen:
                    seen.add((int(run["gid"][row]), b))
                    walked.append(b)
        assert len(walked) == len(adapted.labels)
        assert [adapter.unit_bin(data, adapted, u) for u in range(len(walked))] == walked
