"""The batched QVHighlights arithmetic equals the per-query arithmetic bit for bit: numpy's pairwise
summation of many rows, highlight AP and Hit1 of all queries at once, mAP and R1 of all buckets at once
(queries in classes of window counts, in chunks), and the bulk reader."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.protocols.moments.qvhighlights import SALIENCY_LEVELS, evaluate_moments, highlights, retrieval
from segeval.protocols.moments.qvhighlights.highlights import batch_highlights, pairwise_sums
from segeval.protocols.moments.qvhighlights.reading import Moments, read_moments
from segeval.protocols.moments.qvhighlights.retrieval import (
    batch_average_precisions,
    batch_first_ious,
    iou_matrix,
)
from tests.conftest import run_cli
from tests.unit.analyses.test_moments import QVH, official_loop_ap

LEVELS = tuple(float(v) for v in SALIENCY_LEVELS.values())


def bits(a: np.ndarray) -> bytes:  # type: ignore[type-arg]
    return np.ascontiguousarray(a, dtype=np.float64).tobytes()


def test_pairwise_sums_hand_derived() -> None:
    big = 2.0**53  # from here on float64 has a spacing of 2: big + 1 rounds back to big (ties to even)
    values = np.array([[big] + [1.0] * 8] * 3)
    got = pairwise_sums(values, np.array([7, 8, 9]))
    # 7 values, left to right: every + 1 is lost -> big
    # 8 values, eight running sums: ((big + 1) + (1 + 1)) + ((1 + 1) + (1 + 1)) = (big + 2) + 4 = big + 6
    # 9 values: the same, then + 1 -> big + 7, halfway, to the even neighbour big + 8
    assert got.tolist() == [big, big + 6, big + 8]
    assert got.tolist() == [np.add.reduce(values[n, :k]) for n, k in enumerate((7, 8, 9))]


def test_pairwise_sums_equal_numpy_on_every_length() -> None:
    rng = np.random.default_rng(11)
    differs = 0
    for width in (1, 7, 8, 9, 15, 16, 17, 75, 127, 128, 129, 300):
        # magnitudes over 16 decades: the order of additions shows in the last bits
        values = rng.random((60, width)) * 10.0 ** rng.integers(-8, 8, (60, width))
        counts = rng.integers(0, width + 1, 60)
        counts[:3] = (0, width, min(width, 8))
        got = pairwise_sums(values, counts)
        expected = np.array([np.add.reduce(values[n, :k]) for n, k in enumerate(counts)])
        assert bits(got) == bits(expected), width
        left_to_right = np.array([sum(values[n, :k].tolist()) for n, k in enumerate(counts)])
        differs += int((left_to_right != expected).sum())
    assert differs > 50  # the test sees the summation order


def highlight_cases(rng: np.random.Generator, n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:  # type: ignore[type-arg]
    """Saliency matrices and predicted scores on purpose: 1 to 300 clips (more than 128 recall steps),
    every clip positive, none, predictions all tied, few distinct values (-0.0 and 0.0 among them),
    shorter or longer than the clip count, the top score past the clips."""
    saliency, scores = [], []
    for q in range(n):
        clips = 300 if q % 10 == 3 else int(rng.choice([1, 2, 3, 7, 8, 9, 16, 17, 40, 75, 75, 75, 130, 300]))
        s = np.zeros((clips, 3))
        ids = rng.choice(clips, int(rng.integers(0, clips + 1)), replace=False)
        s[ids] = rng.integers(0, 5, (len(ids), 3))
        if q % 10 == 0:
            s[:] = 4  # every label positive
        if q % 10 == 3:
            s[:150] = 4  # 150 positives: as many recall steps with distinct scores
        length = max(1, int(rng.choice([clips, clips, clips - 1, clips + 3, clips // 2])))
        kind = q % 5
        if kind == 0:
            p = np.full(length, 0.5)
        elif kind == 1:
            p = rng.choice([0.0, -0.0, 0.1, 0.2, 0.5, 1.0], length)
        elif kind == 2:
            p = np.round(rng.uniform(-1, 1, length), 2)
        elif kind == 3:
            p = rng.uniform(-1, 1, length)
        else:
            p = np.round(rng.uniform(-1, 1, length), 3)
            p[-1] = 9.0  # the top score, past the clip count when the list is longer
        saliency.append(s)
        scores.append(p)
    return saliency, scores


def highlight_aps(labels: np.ndarray, y_score: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    """The per-query reference (segeval's before the batch took every query): the official ``get_ap`` of each
    column of binary clip labels ``labels`` (clips, k) ranked by one score list (0 without positive, 1 all
    positive), bit for bit."""
    clips = len(labels)
    if len(y_score) > clips:
        y_score = y_score[:clips]
    elif len(y_score) < clips:
        padded = np.zeros(clips)
        padded[: len(y_score)] = y_score
        y_score = padded
    out = np.zeros(labels.shape[1])
    constant = (labels == labels[:1]).all(axis=0)
    out[constant] = labels[0, constant] != 0
    if constant.all():
        return out
    # precision and recall at each distinct score, highest score first, as scikit-learn computes them
    order = np.argsort(y_score, kind="mergesort")[::-1]
    ranked_score, ranked_true = y_score[order], labels[order]
    cut = np.r_[np.where(np.diff(ranked_score))[0], clips - 1]
    tps = np.cumsum(ranked_true == 1, axis=0, dtype=np.float64)[cut]
    fps = 1 + cut[:, None] - tps
    precision = np.ones((len(tps) + 1, labels.shape[1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision[:-1] = (tps / (tps + fps))[::-1]
        recall = np.zeros((len(tps) + 1, labels.shape[1]))
        recall[:-1] = (tps / tps[-1])[::-1]
    recall = recall.astype(np.float32)
    precision = np.maximum.accumulate(precision, axis=0)  # the envelope from the left, as get_ap
    steps = np.diff(recall, axis=0) != 0
    for c in np.flatnonzero(~constant):  # np.mean's arithmetic: a 1-D add.reduce (pairwise), then / n
        picked = precision[:-1, c][steps[:, c]]
        out[c] = np.add.reduce(picked) / len(picked)
    return out


def per_query_highlights(s: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """The previous per-query computation: ``highlight_aps`` of the nine label columns, the official Hit1."""
    labels = np.concatenate([(s >= v).astype(float) for v in LEVELS], axis=1)
    top = int(np.argmax(p))
    return highlight_aps(labels, p), (labels[top] if top < len(labels) else np.zeros(9))


@pytest.mark.parametrize("chunk", [highlights.CHUNK_CLIPS, 2**8])
def test_batch_highlights_equal_one_query_at_a_time(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(highlights, "CHUNK_CLIPS", chunk)
    saliency, scores = highlight_cases(np.random.default_rng(3), 700)
    ap, hit = batch_highlights(saliency, scores, LEVELS)
    steps = 0
    for n, (s, p) in enumerate(zip(saliency, scores, strict=True)):
        ref_ap, ref_hit = per_query_highlights(s, p)
        assert bits(ap[n]) == bits(ref_ap), n
        assert bits(hit[n]) == bits(ref_hit), n
        if len(np.unique(p[:len(s)])) == len(s):  # distinct scores: one recall step per positive clip
            steps = max(steps, int((s >= LEVELS[0]).sum(axis=0).max()))
    assert {0.0, 1.0} <= set(ap.ravel().tolist())  # constant columns both ways
    assert steps > 128 and (ap > 0).sum() > 1000 and (hit > 0).any() and (hit == 0).any()


def test_batch_highlights_with_integer_scores_rank_integers() -> None:
    # integer scores beyond 2**53 are not all distinct in float64: they are ranked as integers
    saliency = [np.array([[4.0, 0, 0], [0, 4, 0], [0, 0, 4]])] * 2
    scores = [np.array([2**53 + 1, 2**53, 0]), np.array([0.1, 0.3, 0.2])]
    ap, hit = batch_highlights(saliency, scores, LEVELS)
    for n in range(2):
        ref_ap, ref_hit = per_query_highlights(saliency[n], scores[n])
        assert bits(ap[n]) == bits(ref_ap) and bits(hit[n]) == bits(ref_hit)
    assert hit[0, :3].tolist() == [1.0, 0.0, 0.0]  # clip 0 scores highest (2**53 + 1, an integer)


@pytest.mark.parametrize("case", ["thresholds", "random"])
def test_batch_highlights_equal_the_official_per_query_values(case: str) -> None:
    m = read_moments(QVH / f"{case}.gt.jsonl.gz", QVH / f"{case}.pred.jsonl.gz")
    ref = json.loads(gzip.decompress((QVH / f"{case}.official-perquery.json.gz").read_bytes()))
    queries = list(ref)
    ap, hit = batch_highlights([m.saliency[q] for q in queries], [m.pred_saliency[q] for q in queries], LEVELS)
    for n, q in enumerate(queries):
        assert ap[n].tolist() == [v for name in SALIENCY_LEVELS for v in ref[q]["hl_ap"][name]], q
        # the official Hit1 of one query: 100 x the best annotator's label at the top clip
        assert [100.0 * hit[n, 3 * k:3 * k + 3].max() for k in range(3)] == [
            ref[q]["hl_hit1"][name] for name in SALIENCY_LEVELS], q


def window_cases(rng: np.random.Generator, n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:  # type: ignore[type-arg]
    """0 to 40 truth windows per query (every class of window counts holds several counts), integer
    times (IoU ties and IoU exactly on thresholds), zero-length windows, 0 to 12 predictions, tied scores."""
    truths, preds = [], []
    for q in range(n):
        k = q % 41 if q % 4 == 0 else int(rng.integers(1, 6))  # every count from 0 to 40
        starts = rng.integers(0, 20, k).astype(float)
        truths.append(np.stack([starts, starts + rng.integers(0, 6, k)], axis=1).reshape(-1, 2))
        p = int(rng.integers(0, 13))
        ps = rng.integers(0, 20, p).astype(float)
        pred = np.stack([ps, ps + rng.integers(0, 6, p), rng.integers(0, 3, p).astype(float)], axis=1)
        if q % 3 == 0 and k:  # copies of truth windows: many matches
            pred[:, :2] = truths[-1][rng.integers(0, k, p)]
        preds.append(pred.reshape(-1, 3))
    return truths, preds


@pytest.mark.parametrize("chunk", [retrieval.CHUNK_QUERIES, 7])
def test_batch_ap_and_r1_across_window_count_classes(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(retrieval, "CHUNK_QUERIES", chunk)
    truths, preds = window_cases(np.random.default_rng(5), 400)
    with np.errstate(divide="ignore", invalid="ignore"):  # no truth window: recall 0/0, as the official
        single = np.array([official_loop_ap(t, p) for t, p in zip(truths, preds, strict=True)])
    batch = batch_average_precisions(truths, preds)
    np.testing.assert_array_equal(batch, single)  # NaN (no truth window) equals NaN here
    assert bits(batch[~np.isnan(single)]) == bits(single[~np.isnan(single)])
    r1, top1, top5 = batch_first_ious(truths, preds)
    for n, (t, p) in enumerate(zip(truths, preds, strict=True)):
        assert r1[n] == batch_first_ious([t], [p])[0][0], n  # one query at a time: no padding, no class
        assert top1[n] == (iou_matrix(p[:1, :2], t).max() if len(p) and len(t) else 0.0), n
        assert top5[n] == (iou_matrix(p[:5, :2], t).max() if len(p) and len(t) else 0.0), n
    counts = {len(t) for t in truths}
    assert {0, 1, 2, 3, 16, 17} <= counts and max(counts) >= 32 and (batch > 0).any()


def test_length_buckets_on_their_bounds() -> None:
    # (lo, hi] seconds: 0 is in no bucket but full, 10 short, 10.5 and 30 middle, 30.5 and 150 long, 150.5 full only
    lengths = [0, 10, 10.5, 30, 30.5, 150, 150.5]
    m = Moments(truth={str(n): np.array([[5.0, 5.0 + x]]) for n, x in enumerate(lengths)},
                predictions={str(n): np.array([[5.0, 5.0 + x, 1.0]]) for n, x in enumerate(lengths)})
    m.truth["mixed"] = np.array([[0.0, 4.0], [10.0, 50.0]])  # one short and one long window
    m.predictions["mixed"] = np.array([[10.0, 50.0, 1.0]])
    result = evaluate_moments(m)
    assert [result[b]["queries"] for b in ("short", "middle", "long", "full")] == [2, 2, 3, 8]
    # the exact hit scores 1 where its window is the bucket's; "mixed" misses in short (IoU 0 with [0, 4])
    assert result["short"]["MR-R1"]["0.5"] == 50.0 and result["long"]["MR-R1"]["0.5"] == 100.0
    # full: the zero-length query has a 0/0 hull IoU, counted 0, as the official r1
    assert result["full"]["MR-R1"]["0.5"] == 87.5


def read_independently(truth: Path, pred: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each line read on its own, as the official evaluator reads it; and the prediction file's query order."""
    out: dict[str, dict[str, Any]] = {}
    for line in gzip.decompress(truth.read_bytes()).decode().splitlines():
        r = json.loads(line)
        full = np.zeros((int(r["duration"] / 2), 3))
        full[np.array(r["relevant_clip_ids"])] = np.array(r["saliency_scores"])
        out[str(r["qid"])] = {"truth": np.array(r["relevant_windows"], dtype=np.float64).reshape(-1, 2),
                              "saliency": full}
    order = []
    for line in gzip.decompress(pred.read_bytes()).decode().splitlines():
        r = json.loads(line)
        order.append(str(r["qid"]))
        out[order[-1]]["pred"] = np.array(r["pred_relevant_windows"], dtype=np.float64).reshape(-1, 3)
        out[order[-1]]["scores"] = np.array(r["pred_saliency_scores"])
    return out, order


@pytest.mark.parametrize("case", ["thresholds", "random"])
def test_bulk_reader_equals_reading_each_line(case: str) -> None:
    truth, pred = QVH / f"{case}.gt.jsonl.gz", QVH / f"{case}.pred.jsonl.gz"
    m, (ref, order) = read_moments(truth, pred), read_independently(truth, pred)
    assert list(m.truth) == list(ref) and list(m.predictions) == order
    for q, r in ref.items():
        assert m.truth[q].shape == r["truth"].shape and bits(m.truth[q]) == bits(r["truth"]), q
        assert m.saliency[q].shape == r["saliency"].shape and bits(m.saliency[q]) == bits(r["saliency"]), q
        assert m.predictions[q].shape == r["pred"].shape and bits(m.predictions[q]) == bits(r["pred"]), q
        assert m.pred_saliency[q].tolist() == r["scores"].tolist(), q


def test_integer_scores_give_the_figures_of_the_same_floats(tmp_path: Path) -> None:
    gt = ('{"qid": 1, "duration": 8, "relevant_windows": [[2, 6]], "relevant_clip_ids": [1, 2], '
          '"saliency_scores": [[4, 2, 0], [3, 3, 1]]}\n'
          '{"qid": 2, "duration": 6, "relevant_windows": [[0, 2]], "relevant_clip_ids": [0], '
          '"saliency_scores": [[2, 2, 2]]}\n')
    (tmp_path / "gt").write_text(gt)
    results = []
    for scores in ("[3, 1, 2, 0]", "[3.0, 1.0, 2.0, 0.0]", f"[{2**53 + 1}, 1, 2, 0]"):
        (tmp_path / "p").write_text(f'{{"qid": 1, "pred_relevant_windows": [[2, 6, 1]], "pred_saliency_scores": '
                                    f'{scores}}}\n{{"qid": 2, "pred_relevant_windows": [[0, 2, 1]], '
                                    '"pred_saliency_scores": [1, 0, 0]}\n')
        m = read_moments(tmp_path / "gt", tmp_path / "p")
        results.append(evaluate_moments(m))
    assert results[0] == results[1] == results[2]
    # clip 0 (all zero labels) scores highest in query 1: Hit1 0; query 2's top clip 0 is positive: mean 50
    assert results[0]["HL-min-Fair"]["HL-Hit1"] == 50.0


@pytest.mark.parametrize(("duration", "shown"), [("1e300", "1e+300"), ("2097154", "2097154")])
def test_a_video_too_long_to_hold_is_refused_naming_its_line(tmp_path: Path, duration: str, shown: str) -> None:
    # 2097154 s is 1048577 two-second clips, one more than the limit (2**20); 1e300 used to be an internal error
    (tmp_path / "gt").write_text('{"qid": 1, "duration": 8, "relevant_windows": [[0, 2]], "relevant_clip_ids": [0], '
                                 '"saliency_scores": [[1, 2, 3]]}\n'
                                 f'{{"qid": 2, "duration": {duration}, "relevant_windows": [[0, 2]], '
                                 '"relevant_clip_ids": [0], "saliency_scores": [[1, 2, 3]]}\n')
    (tmp_path / "p").write_text('{"qid": 1, "pred_relevant_windows": [[0, 2, 1]], "pred_saliency_scores": [1]}\n')
    code, out, err = run_cli("mr", str(tmp_path / "gt"), str(tmp_path / "p"))
    assert (code, out) == (2, "") and "Traceback" not in err
    assert f"gt, line 2: 'duration' is {shown}; expected less than 2097154 seconds (at most 1048576 clips)" in err
