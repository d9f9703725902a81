"""``segeval mr --write-lines``: for every protocol, ``segeval eval`` on the written lines prints the figures ``mr``
prints (the same digits as the protocol rounds them), on generated boundary cases and on the shared samples; the
commands it names are the ones tested here (:func:`segeval.protocols.moments.lines.write_lines`)."""

from __future__ import annotations

import json
import random
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from segeval.protocols.moments.lines import BUILDERS, EVAL, Figure
from segeval.protocols.moments.protocol import MrOptions, parse_options
from tests.conftest import FIXTURES, full_only, run_cli, shared

#: protocols whose output rounds a percentage to 2 decimals (the others print it unrounded, or a fraction)
ROUNDED = {"qvhighlights", "tvr"}


def figures(protocol: str, truth: str, predictions: str, options: MrOptions) -> list[Figure]:
    return BUILDERS[protocol](truth, predictions, options).figures


def check(protocol: str, truth: Path, predictions: Path, prefix: Path, *flags: str) -> int:
    """Run ``mr --write-lines``, then every eval command it names; assert each figure; return how many."""
    code, out, err = run_cli("mr", "-p", protocol, "-o", "json", "--write-lines", str(prefix), *flags, str(truth),
                             str(predictions))
    assert code == 0, err
    official = json.loads(out)
    options = parse_options(*(_flag(flags, f) for f in ("--thresholds", "--top-k", "--iou-compare")),
                            nms=float(n) if (n := _flag(flags, "--nms")) is not None else None)
    found = figures(protocol, str(truth), str(predictions), options)
    commands: dict[tuple[str, ...], list[Figure]] = {}
    for f in found:
        commands.setdefault(f.args, []).append(f)
    for args, group in commands.items():
        command = f"{EVAL} {' '.join(args)}".replace("PREFIX", shlex.quote(str(prefix)))
        assert f"note: {command}  gives" in err  # the command printed is the one run here
        code, out, err2 = run_cli(*shlex.split(command)[1:], "-o", "json")
        assert code == 0, err2
        summary = json.loads(out)["summary"]
        for f in group:
            expected: Any = official
            for k in f.key:
                expected = expected[k]
            got = summary[f.measure] * (100 if f.percent else 1)
            if protocol in ROUNDED:
                assert expected is not None and float(f"{got:.2f}") == expected, (f.key, got, expected)
            else:
                assert got == expected, (f.key, got, expected)  # bit for bit
    return len(found)


def _flag(flags: tuple[str, ...], name: str) -> str | None:
    return flags[flags.index(name) + 1] if name in flags else None


def write_pair(folder: Path, names: tuple[str, str], truth: str, predictions: str) -> tuple[Path, Path]:
    """The ground truth and the predictions written as given, under ``names`` in ``folder``."""
    paths = (folder / names[0], folder / names[1])
    for path, text in zip(paths, (truth, predictions), strict=True):
        path.write_text(text)
    return paths


def json_lines(records: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def mr_write(protocol: str, prefix: Path, truth: Path, predictions: Path) -> tuple[int, str]:
    """``mr --write-lines PREFIX``: its exit code and stderr (the notes naming the eval commands, or the error)."""
    code, _, err = run_cli("mr", "-p", protocol, "--write-lines", str(prefix), str(truth), str(predictions))
    return code, err


def write_lines(protocol: str, prefix: Path, truth: Path, predictions: Path) -> str:
    """``mr --write-lines PREFIX``, which must succeed; its notes (stderr)."""
    code, err = mr_write(protocol, prefix, truth, predictions)
    assert code == 0, err
    return err


def mr_json(protocol: str, truth: Path, predictions: Path) -> Any:
    """``mr -o json``'s figures, which must be given."""
    code, out, err = run_cli("mr", "-p", protocol, "-o", "json", str(truth), str(predictions))
    assert code == 0, err
    return json.loads(out)


def success_at_1(adapter: str, prefix: Path, run: str = "run") -> float:
    """``eval -c -m Success@1`` under ``adapter`` on the written PREFIX.qrels and PREFIX.run, in seconds."""
    code, out, err = run_cli("eval", "-c", "--time-format", "seconds", "-a", adapter, "-m", "Success@1", "-o",
                             "json", f"{prefix}.qrels", f"{prefix}.{run}")
    assert code == 0, err
    value: float = next(iter(json.loads(out)["summary"].values()))
    return value


# --- generated cases ---------------------------------------------------------------------------------------------

def _window(rng: random.Random, grid: float, zero: bool = True) -> list[float]:
    s = rng.randrange(0, 40) * grid
    length = rng.randrange(0 if zero else 1, rng.choice((12, 12, 50, 150))) * grid
    return [s, s + length]


#: two truth windows at IoU 0.5 in decimal with the first prediction: the union form ties them (0.4999999999999999)
#: and picks the first, whose hull IoU is 0.4999999999999999; the second's hull IoU is 0.5
BEST_TRUTH = [[46.37, 117.95], [10.58, 82.16]]
BEST_FIRST = [[46.37, 82.16, 1.0]]


def qvh_style(rng: random.Random, folder: Path, queries: int = 40) -> tuple[Path, Path]:
    """QVHighlights-style files: windows on a 0.5 s grid (IoUs exactly on 0.5, 0.7, 0.75 ...), hand cases first
    (IoU exactly 0.5 and 0.7, a zero-length prediction on a zero-length truth, tied scores, no predictions, a
    window twice in a ranking, two truth windows at one IoU), then random queries with scores drawn from 3 values
    (ties) and unsorted lists; lengths span the short, middle and long buckets."""
    hand: list[tuple[list[list[float]], list[list[float]]]] = [
        ([[10, 20]], [[10, 15, 0.9], [10, 17, 0.9], [0, 2, 0.5]]),      # IoU 0.5 then 0.7, tied scores
        ([[4, 4], [30, 40]], [[4, 4, 1.0], [30, 35, 0.2]]),              # zero-length on zero-length: IoU 0
        ([[0, 8]], []),                                                  # no predictions
        ([[0, 10], [20, 30]], [[5, 25, 0.4], [5, 25, 0.4], [0, 10, 0.1]]),  # a window twice; IoU 0.25 with both
        ([[0, 10], [5, 15]], [[5, 10, 0.3], [0, 15, 0.3]]),              # equal IoUs with two windows
        ([[12, 60]], [[12, 36, 0.7], [36, 60, 0.7], [12, 60, 0.1]]),     # middle/long: exactly 0.5 twice
        (BEST_TRUTH, BEST_FIRST),                                        # R1's window: the union form's pick
    ]
    gt, pred = [], []
    for n in range(queries):
        if n < len(hand):
            windows, listed = hand[n]
        else:
            windows = [_window(rng, 0.5) for _ in range(rng.choice((1, 1, 2, 3)))]
            listed = [[*_window(rng, 0.5), rng.choice((0.25, 0.5, 0.75))] for _ in range(rng.randrange(0, 14))]
            if rng.random() < 0.3:
                listed += [[*w, 0.5] for w in windows[:1]]
        gt.append({"qid": n, "vid": f"v{n % 7}", "duration": 150, "relevant_windows": windows})
        pred.append({"qid": n, "pred_relevant_windows": listed})
    return write_pair(folder, ("qvh.gt.jsonl", "qvh.pred.jsonl"), json_lines(gt), json_lines(pred))


def ego4d(rng: random.Random, folder: Path, queries: int = 40) -> tuple[Path, Path]:
    """Ego4D NLQ files on a 0.1 s grid (IoU exactly 0.3 and 0.5 in decimal), hand cases first (a zero-length
    first prediction on a zero-length truth: 0/0, a reversed truth and prediction, empty predicted_times, a hit at
    rank 5 and one at rank 6), some queries without a result."""
    hand: list[tuple[list[float], list[list[float]] | None]] = [
        ([3.0, 3.0], [[3.0, 3.0], [2.0, 4.0]]),
        ([10.0, 5.0], [[9.0, 4.0], [5.0, 10.0]]),
        ([0.0, 1.0], []),
        ([0.0, 1.0], [[5, 6]] * 4 + [[0.0, 0.5], [0.0, 1.0]]),            # IoU 0.5 at rank 5 (strict: miss), 1 at 6
        ([1.0, 2.0], [[1.0, 1.3]]),                                         # IoU 0.3 exactly in decimal
        ([0.0, 1.0], None),
    ]
    clips: list[dict[str, Any]] = []
    results = []
    for n in range(queries):
        if n < len(hand):
            window, listed = hand[n]
        else:
            s = rng.randrange(0, 50) / 10
            window = [s, round(s + rng.randrange(0, 30) / 10, 1)]  # at most 9 decimals: the lines keep them
            listed = None if rng.random() < 0.1 else [
                [round(a := rng.randrange(0, 50) / 10, 1), round(a + rng.randrange(0, 30) / 10, 1)]
                for _ in range(rng.randrange(1, 8))]
        clip = f"clip-{n}"
        clips.append({"clip_uid": clip, "annotations": [{"annotation_uid": f"ann-{n}", "language_queries": [
            {"clip_start_sec": window[0], "clip_end_sec": window[1], "query": "q"}]}]})
        if listed is not None:
            results.append({"clip_uid": clip, "annotation_uid": f"ann-{n}", "query_idx": 0, "predicted_times": listed})
    return write_pair(folder, ("ego4d.gt.json", "ego4d.pred.json"),
                      json.dumps({"videos": [{"video_uid": "v", "clips": clips}]}),
                      json.dumps({"version": "1.0", "challenge": "ego4d_nlq_challenge", "results": results}))


def didemo_files(rng: random.Random, folder: Path, items: int = 60) -> tuple[Path, Path]:
    """DiDeMo: 1 to 7 annotators, 3 (or all of fewer) often on the first moment, some empty or missing rankings."""
    candidates = [[s, e] for s in range(6) for e in range(s, 6)]
    truth, rankings = [], []
    for n in range(items):
        first = rng.choice(candidates)
        agree = rng.randrange(0, 5)
        count = rng.choice((1, 2, 3, 4, 4, 4, 5, 7))
        times = [first] * min(agree, count) + [rng.choice(candidates) for _ in range(count - min(agree, count))]
        truth.append({"times": times, "annotation_id": f"a{n}", "video": f"v{n}"})
        ranking = [first, *rng.sample([c for c in candidates if c != first], rng.randrange(0, 20))]
        rankings.append([] if n % 17 == 5 else ranking)
    return write_pair(folder, ("didemo.gt.json", "didemo.pred.json"),
                      json.dumps(truth), json.dumps(rankings[:-2]))  # the last two without a ranking


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=full_only)])
def test_qvhighlights_lines_give_its_figures(seed: int, tmp_path: Path) -> None:
    truth, predictions = qvh_style(random.Random(seed), tmp_path)
    # 4 buckets x (10 mAP + 10 R1 + 2 R5)
    assert check("qvhighlights", truth, predictions, tmp_path / "qvh") == 88


def test_qvhighlights_ap_per_query_bit_for_bit(tmp_path: Path) -> None:
    # the mean over queries adds in another order (eval: query order, left to right; the official: numpy's
    # pairwise sum in submission order), so the figures agree to the printed 2 decimals; each query's AP is
    # the same double
    from segeval.protocols.moments.qvhighlights.reading import read_moments
    from segeval.protocols.moments.qvhighlights.retrieval import THRESHOLDS, batch_average_precisions

    truth, predictions = qvh_style(random.Random(11), tmp_path)
    write_lines("qvhighlights", tmp_path / "q", truth, predictions)
    m = read_moments(truth, predictions)
    adapters = [x for t in THRESHOLDS for x in ("-a", f"tiou-best:{t}")]
    code, out, err = run_cli("eval", "-c", "--time-format", "seconds", *adapters, "-m", "ap_interp", "-q", "-o",
                             "json", str(tmp_path / "q.qrels"), str(tmp_path / "q.map.run"))
    assert code == 0, err
    per = json.loads(out)["per_query"]
    compared = 0
    for q, windows in m.truth.items():
        expected = batch_average_precisions([windows], [m.predictions.get(q, np.zeros((0, 3)))])[0]
        for t, value in zip(THRESHOLDS, expected.tolist(), strict=True):
            assert per[q][f"ap_interp_tioubest{t:g}"] == value, (q, t)
            compared += 1
    assert compared == 400


@pytest.mark.parametrize(("seed", "flags"), [(3, ()), (4, ("--iou-compare", "gt", "--nms", "0.5")),
                                             (5, ("--thresholds", "0.3,0.5,0.7", "--top-k", "1,5,10"))])
def test_recall_lines_give_its_figures(seed: int, flags: tuple[str, ...], tmp_path: Path) -> None:
    truth, predictions = qvh_style(random.Random(seed), tmp_path)
    n = check("recall", truth, predictions, tmp_path / "recall", *flags)
    assert n == (9 if "--top-k" in flags else 4)


@pytest.mark.parametrize(("seed", "flags"), [(6, ()), (7, ("--thresholds", "0.1,0.3,0.5,0.7", "--top-k", "1,3,5"))])
def test_ego4d_lines_give_its_figures(seed: int, flags: tuple[str, ...], tmp_path: Path) -> None:
    truth, predictions = ego4d(random.Random(seed), tmp_path)
    assert check("ego4d-nlq", truth, predictions, tmp_path / "ego4d", *flags) == (12 if flags else 4)


def test_didemo_lines_give_rank_at_1(tmp_path: Path) -> None:
    truth, predictions = didemo_files(random.Random(8), tmp_path)
    assert check("didemo", truth, predictions, tmp_path / "didemo") == 1
    mr = FIXTURES / "mr"  # the official fixtures: hand cases of 2, 3 and 7 annotators, the keyed form
    assert check("didemo", mr / "didemo.gt.json.gz", mr / "didemo.pred.jsonl.gz", tmp_path / "keyed") == 1
    assert check("ego4d-nlq", mr / "ego4d.gt.json.gz", mr / "ego4d.pred.json.gz", tmp_path / "e") == 4


def test_tvr_lines_give_the_vcmr_figures(tmp_path: Path) -> None:
    tvr = FIXTURES / "tvr"
    # VCMR and SVMR: 2 thresholds x 4 cut-offs; VR: 4 cut-offs
    assert check("tvr", tvr / "random.gt.jsonl.gz", tvr / "random.submission.json.gz", tmp_path / "tvr") == 20


@full_only
def test_tvr_lines_with_other_thresholds_and_cut_offs(tmp_path: Path) -> None:
    tvr = FIXTURES / "tvr"
    assert check("tvr", tvr / "random.gt.jsonl.gz", tvr / "random.submission.json.gz", tmp_path / "tvr2",
                 "--thresholds", "0.3,0.5,0.9", "--top-k", "1,2,50") == 21


def test_rank_at_1_grades_follow_the_annotators(tmp_path: Path) -> None:
    # 4 annotators, 3 on [1, 1]: grade 3; 2 annotators both on [2, 3]: grade 2 + 1 = 3; [0, 0] once among 4: 1
    truth, predictions = write_pair(tmp_path, ("gt.json", "p.json"),
                                    json.dumps([{"times": [[1, 1], [1, 1], [1, 1], [0, 0]], "annotation_id": "a"},
                                                {"times": [[2, 3], [2, 3]], "annotation_id": "b"}]),
                                    json.dumps([[[1, 1]], [[2, 3]]]))
    write_lines("didemo", tmp_path / "d", truth, predictions)
    # units [s, e] as the seconds [5 s, 5 (e + 1)]
    assert (tmp_path / "d.qrels").read_text() == ("a Q0 video 5 10 3\na Q0 video 0 5 1\n"
                                                 "b Q0 video 10 20 3\n")
    assert (tmp_path / "d.run").read_text() == "a Q0 video 5 10 1 1 didemo\nb Q0 video 10 20 1 1 didemo\n"


def test_what_eval_cannot_give_is_said(tmp_path: Path) -> None:
    truth, predictions = qvh_style(random.Random(9), tmp_path, queries=8)
    err = write_lines("qvhighlights", tmp_path / "q", truth, predictions)
    for name in ("MR-mAP average", "MR-mIoU", "HL-mAP, HL-Hit1"):
        assert f"note: {name}: no eval command: " in err
    for suffix in ("qrels", "short.qrels", "middle.qrels", "long.qrels", "run", "map.run"):
        assert f"wrote {tmp_path / 'q'}.{suffix}: " in err


@pytest.mark.parametrize("protocol", ["qvhighlights", "recall", "ego4d-nlq", "didemo"])
def test_bad_prefix_exits_2_naming_the_file(protocol: str, tmp_path: Path) -> None:
    rng = random.Random(10)
    make = {"qvhighlights": qvh_style, "recall": qvh_style, "ego4d-nlq": ego4d, "didemo": didemo_files}[protocol]
    truth, predictions = make(rng, tmp_path)
    missing = tmp_path / "no" / "such" / "folder" / "x"
    code, err = mr_write(protocol, missing, truth, predictions)
    assert code == 2 and str(missing.parent) in err, err
    # a prefix whose qrels would overwrite an input: PREFIX.qrels is the ground truth itself
    clash = tmp_path / "clash"
    clash.with_suffix(".qrels").write_bytes(truth.read_bytes())
    code, err = mr_write(protocol, clash, clash.with_suffix(".qrels"), predictions)
    assert code == 2 and f"{clash}.qrels" in err, err
    assert not (tmp_path / "clash.run").exists()  # nothing written when a path is refused


def test_negative_times_exit_2_naming_the_file(tmp_path: Path) -> None:
    truth, predictions = write_pair(tmp_path, ("gt.jsonl", "p.jsonl"), '{"qid": 1, "relevant_windows": [[0, 4]]}\n',
                                    '{"qid": 1, "pred_relevant_windows": [[-2, 4, 0.5]]}\n')
    code, err = mr_write("recall", tmp_path / "x", truth, predictions)
    assert code == 2 and f"{predictions}: query 1 has the negative time -2.0" in err


# --- the shared samples (CI) -------------------------------------------------------------------------------------

#: (protocol, folder under ../shared/data, ground truth, predictions, figures compared)
SHARED_SAMPLES = [
    ("ego4d-nlq", "ego4d_nlq", "synthetic_gt.json.gz", "synthetic_predictions.json.gz", 4),
    ("didemo", "didemo", "val_data.json.gz", "sample_val_predictions.json.gz", 1),
    ("qvhighlights", "qvhighlights", "highlight_val_release.jsonl.gz", "sample_val_preds.jsonl.gz", 88),
    ("tvr", "tvr", "sample_gt.jsonl.gz", "sample_predictions.json.gz", 20),
]


@full_only
@pytest.mark.parametrize(("protocol", "folder", "truth", "predictions", "figures"), SHARED_SAMPLES)
def test_shared_samples_through_the_lines(tmp_path: Path, protocol: str, folder: str, truth: str, predictions: str,
                                          figures: int) -> None:
    data = shared(folder)
    assert check(protocol, data / truth, data / predictions, tmp_path / folder) == figures


def test_best_is_what_qvhighlights_r1_needs(tmp_path: Path) -> None:
    truth, predictions = write_pair(tmp_path, ("gt.jsonl", "p.jsonl"),
                                    json_lines([{"qid": 1, "relevant_windows": BEST_TRUTH}]),
                                    json_lines([{"qid": 1, "pred_relevant_windows": BEST_FIRST}]))
    assert check("qvhighlights", truth, predictions, tmp_path / "q") == 44  # full and long: 2 x (10 + 10 + 2)
    assert mr_json("qvhighlights", truth, predictions)["full"]["MR-R1"]["0.5"] == 0.0  # the official's pick misses
    for adapter, value in (("tiou:0.5:empty0", 1.0), ("tiou:0.5:empty0:best", 0.0)):
        assert success_at_1(adapter, tmp_path / "q") == value, adapter


def test_empty0_is_what_the_protocols_need(tmp_path: Path) -> None:
    # a zero-length prediction on the zero-length truth [4, 4]: the protocols' IoU is 0 (or 0/0, never a hit); the
    # plain tiou adapter gives two equal zero-length spans IoU 1, so only tiou:θ:empty0 reproduces R@1 = 0
    truth, predictions = write_pair(
        tmp_path, ("gt.jsonl", "p.jsonl"),
        '{"qid": 1, "relevant_windows": [[4, 4]]}\n{"qid": 2, "relevant_windows": [[0, 4]]}\n',
        '{"qid": 1, "pred_relevant_windows": [[4, 4, 0.5]]}\n'
        '{"qid": 2, "pred_relevant_windows": [[0, 2, 0.5]]}\n')  # IoU 0.5 exactly: a hit
    assert check("recall", truth, predictions, tmp_path / "r") == 4
    assert mr_json("recall", truth, predictions)["R@1,IoU@0.5"] == 50.0
    for adapter, value in (("tiou:0.5", 1.0), ("tiou:0.5:empty0", 0.5)):
        assert success_at_1(adapter, tmp_path / "r") == value, adapter
