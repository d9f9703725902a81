"""The general path: ``segeval detect --write-lines`` then ``segeval eval -a tiou-best:θ -m ap_interp``
gives ActivityNet's AP per class and mAP at θ; the adapter and ``detect`` share one matching function."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from segeval.adapters.registry import make_adapter
from segeval.adapters.tiou_best import TiouBestAdapter
from segeval.core.errors import ParameterError
from segeval.protocols.detection.ap import interpolated_ap, kit_ap, voc_ap
from segeval.protocols.detection.match import best_free_match
from segeval.protocols.moments.qvhighlights.retrieval import batch_average_precisions
from tests.conftest import run_cli
from tests.support.scripts import load_script


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("detection_lines")
    load_script("detection_cases").write(folder)
    return folder


@pytest.mark.parametrize(("case", "theta"), [("random1", "0.5"), ("many_classes", "0.5"), ("ties", "0.7"),
                                              ("thresholds", "0.8999999999999999"), ("missing", "0.5"),
                                              ("line_ties", "0.5"), ("line_ties", "0.3")])
def test_eval_on_the_lines_gives_activitynet_ap(case: str, theta: str, inputs: Path, tmp_path: Path) -> None:
    gt, pred = str(inputs / f"{case}.gt.json"), str(inputs / f"{case}.pred.json")
    prefix = str(tmp_path / case)
    code, out, err = run_cli("detect", gt, pred, "--thresholds", theta, "-o", "json", "--write-lines", prefix)
    assert code == 0, err
    rows = json.loads(out)
    ap = {row["class"].replace(" ", "_"): row["value"] for row in rows if row["figure"] == "AP"}
    m = [row["value"] for row in rows if row["figure"] == "mAP"]
    code, out, err = run_cli("eval", "-c", "--time-format", "seconds", "-a", f"tiou-best:{theta}", "-m", "ap_interp",
                             "-o", "json", f"{prefix}.qrels", f"{prefix}.run")
    assert code == 0, err
    doc = json.loads(out)
    name = f"ap_interp_tioubest{float(theta):g}"
    got = {q: v[name] for q, v in doc["per_query"].items()}
    assert got == {q: v for q, v in ap.items() if q in got}  # bit for bit, class by class
    assert set(ap) - set(got) == {q for q, v in ap.items() if v == 0.0 and q not in got}
    assert doc["summary"][name] == pytest.approx(m[0], rel=1e-15, abs=0)  # the mean: summation order aside


@pytest.mark.parametrize("case", ["ties_everywhere1", "ties_everywhere4"])
def test_eval_on_the_lines_keeps_the_official_orders(case: str, inputs: Path, tmp_path: Path) -> None:
    """Ties everywhere (scores across videos, tIoUs among up to 40 instances, unsorted annotations): the lines give
    detect's AP (each repeated instance kept once: --write-lines refuses repeats)."""
    gt = json.loads((inputs / f"{case}.gt.json").read_text())
    for entry in gt["database"].values():
        entry["annotations"] = list({json.dumps(a, sort_keys=True): a for a in entry["annotations"]}.values())
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    prefix = str(tmp_path / "lines")
    code, out, err = run_cli("detect", str(tmp_path / "gt.json"), str(inputs / f"{case}.pred.json"), "--thresholds",
                             "0.7", "-o", "json", "--write-lines", prefix)
    assert code == 0, err
    ap = {row["class"]: row["value"] for row in json.loads(out) if row["figure"] == "AP"}
    for route in (["--time-format", "seconds"], ["--time-format", "seconds", "-c"]):
        code, out, err = run_cli("eval", *route, "-a", "tiou-best:0.7", "-m", "ap_interp", "-o", "json",
                                 f"{prefix}.qrels", f"{prefix}.run")
        assert code == 0, err
        assert {q: v["ap_interp_tioubest0.7"] for q, v in json.loads(out)["per_query"].items()} == ap


@pytest.mark.parametrize("times", [("0 10", "2 12", "1 11"), ("0.00 0.10", "0.02 0.12", "0.01 0.11")])
def test_the_adapter_takes_equal_tious_in_file_order(times: tuple[str, str, str], tmp_path: Path) -> None:
    # instances [2, 12] then [0, 10] (not in time order); [1, 11] has tIoU 9/11 with both and takes the later line,
    # [0, 10]; [0, 10] then finds only [2, 12] at 8/12 < 0.7: AP 1/2 on every route (seconds: the strict reader;
    # M.S times: the segment lane), as eval_detection.py, which holds a video's instances in file order
    b, a, p = times
    (tmp_path / "q").write_text(f"A Q0 v {a} 1\nA Q0 v {b} 1\n")
    (tmp_path / "r").write_text(f"A Q0 v {p} 1 2 x\nA Q0 v {b} 2 1 x\n")
    form = ["--time-format", "seconds"] if times[0] == "0 10" else []
    code, out, err = run_cli("eval", *form, "-a", "tiou-best:0.7", "-m", "ap_interp", str(tmp_path / "q"),
                             str(tmp_path / "r"))
    assert code == 0 and out.splitlines()[-1].split() == ["ap_interp_tioubest0.7", "all", "0.5000"], err


def test_the_adapter_labels_fall_through_and_seen() -> None:
    # instances A 0-10, B 1-11 of one video; ranks: 0-10 (takes A), 0-10 (A taken: B at 9/11 >= 0.5),
    # 0-10 (both taken: seen), 50-60 (nothing reaches: 0); at 0.85 only A reaches (B: 9/11 = 0.818), so ranks
    # 2 and 3 are repeats of a found instance
    tp, taken, reach = best_free_match(np.zeros(4, dtype=np.int64), np.array([0.0, 0, 0, 50]),
                                       np.array([10.0, 10, 10, 60]), np.zeros(2, dtype=np.int64),
                                       np.array([0.0, 1.0]), np.array([10.0, 11.0]), [0.5, 0.85])
    assert tp.tolist() == [[True, True, False, False], [True, False, False, False]]
    assert taken.tolist() == [[0, 1, -1, -1], [0, -1, -1, -1]]
    assert reach.tolist() == [[True, True, True, False], [True, True, True, False]]


def test_equal_tiou_takes_the_later_instance() -> None:
    # 1-11 has tIoU 9/11 with 0-10 and with 2-12: the reversed argsort visits the later instance (row 1) first
    _, taken, _ = best_free_match(np.zeros(1, dtype=np.int64), np.array([1.0]), np.array([11.0]),
                                   np.zeros(2, dtype=np.int64), np.array([0.0, 2.0]), np.array([10.0, 12.0]), [0.5])
    assert taken.tolist() == [[1]]


def test_zero_length_windows_match_as_the_official_nan() -> None:
    # 0/0 = NaN is not < θ in the official test: a hit at every threshold, visited first
    _, taken, _ = best_free_match(np.zeros(1, dtype=np.int64), np.array([5.0]), np.array([5.0]),
                                   np.zeros(2, dtype=np.int64), np.array([0.0, 7.0]), np.array([10.0, 7.0]), [0.95])
    assert taken.tolist() == [[1]]


def test_adapter_spec() -> None:
    a = make_adapter("tiou-best:0.8999999999999999")
    assert isinstance(a, TiouBestAdapter) and a.theta == 0.8999999999999999
    assert a.spec == "tiou-best:0.8999999999999999"
    assert make_adapter("tiou-best").spec == "tiou-best:0.5"
    with pytest.raises(ParameterError, match="the IoU threshold theta must be a number in"):
        make_adapter("tiou-best:1.5")


def test_interpolated_ap_by_hand() -> None:
    # hits 1 0 1, 4 instances: precision 1, 1/2, 2/3 at recall 1/4, 1/4, 1/2; interpolated: 1 up to 1/4,
    # 2/3 up to 1/2: 1/4 * 1 + 1/4 * 2/3 = 5/12
    assert interpolated_ap(np.array([True, False, True]), 4) == pytest.approx(5 / 12, abs=1e-15)
    # non-interpolated (the kit): (1 + 2/3) / 4 = 5/12 too; with hits 0 1 1: (1/2 + 2/3) / 4 = 7/24
    assert kit_ap(np.array([False, True, True]), 4) == pytest.approx(7 / 24, abs=1e-15)
    # interpolated of 0 1 1: precision 2/3 carried back to recall 1/4: 2/4 * 2/3 = 1/3
    assert interpolated_ap(np.array([False, True, True]), 4) == pytest.approx(1 / 3, abs=1e-15)
    assert interpolated_ap(np.zeros(0, dtype=np.bool_), 3) == 0.0


def _official_interpolated_ap(hits: list[bool], npos: int) -> float:
    """``interpolated_prec_rec`` of ActivityNet's utils.py on one ranking, written as the official."""
    tp = np.cumsum(hits).astype(np.float64)
    fp = np.cumsum(~np.asarray(hits, dtype=np.bool_)).astype(np.float64)
    mprec = np.hstack([[0], tp / (tp + fp), [0]])
    mrec = np.hstack([[0], tp / npos, [1]])
    for i in range(len(mprec) - 1)[::-1]:
        mprec[i] = max(mprec[i], mprec[i + 1])
    idx = np.where(mrec[1::] != mrec[0:-1])[0] + 1
    return float(np.sum((mrec[idx] - mrec[idx - 1]) * mprec[idx]))


def test_one_voc_ap_for_detection_and_qvhighlights() -> None:
    """voc_ap (``detect``, ``ap_interp``, QVHighlights' MR-mAP) on 3000 padded rankings at once (up to 60 ranks:
    fewer than 8 and 8 or more recall steps) equals the official per ranking, bit for bit."""
    rng = np.random.default_rng(37)
    rows, width = 3000, 60
    lengths = rng.integers(0, width + 1, rows)
    valid = np.arange(width)[None, :] < lengths[:, None]
    tp = (rng.random((rows, width)) < rng.random((rows, 1))) & valid
    npos = tp.sum(axis=1) + rng.integers(0, 5, rows)
    npos[npos == 0] = 1
    ours = voc_ap(tp.reshape(30, 100, width), valid.reshape(30, 100, width), npos.reshape(30, 100)).ravel()
    official = [_official_interpolated_ap(tp[r, :lengths[r]].tolist(), int(npos[r])) if lengths[r] else 0.0
                for r in range(rows)]
    assert ours.tolist() == official
    steps = [len(set(np.cumsum(tp[r]).tolist()) - {0}) for r in range(rows)]
    assert min(steps) < 8 <= max(steps)


def test_qvhighlights_takes_equal_ious_in_numpy_1x_order() -> None:
    # windows [0, 10], [2, 12] and two far ones; [1, 11] has IoU 9/11 with both: numpy 1.x's argsort()[::-1] (insertion
    # sort, reversed) visits [2, 12] first, so [0, 10] (score 0.8) then takes [0, 10]: 2 hits at 0.7, AP 2/4 = 0.5
    # (numpy 2 on an AVX-512 CPU visits [0, 10] first: the second prediction finds only 8/12 < 0.7, AP 0.25)
    truth = np.array([[0, 10], [2, 12], [100, 110], [200, 210]], dtype=np.float64)
    predictions = np.array([[1, 11, 0.9], [0, 10, 0.8]])
    assert batch_average_precisions([truth], [predictions], (0.7,))[0].tolist() == [0.5]
