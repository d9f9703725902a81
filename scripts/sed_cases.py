"""Generate the sound-event-detection cases of tests/fixtures/sed/ and score them with the official tools.

    python scripts/sed_cases.py make OUT            # inputs only (any Python 3 with the standard library)
    /tmp/tools/dcase/V/bin/python scripts/sed_cases.py score OUT   # adds official.json to every case

The scoring step needs a venv of its own (sed_eval 0.2.1, dcase_util 0.2.20, psds_eval 0.5.3,
sed_scores_eval 0.0.4, numpy 1.26.4, pandas 2.2.3; docs/sed.md).  Each case folder holds
``ground_truth.tsv``, ``durations.tsv``, ``detections.tsv`` (one operating point),
``operating_points/predictions_th_<t>.tsv``, ``scores/<clip>.tsv`` (frame scores) and ``runs.json``;
``official.json`` stores each run's figures (NaN as "nan"), or the error the tool raised.
Seeded: the same cases byte for byte on every machine.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys

HEAD = "filename\tonset\toffset\tevent_label\n"

EVENT = {"tool": "event", "t_collar": 0.2, "percentage_of_length": 0.2, "onset": True, "offset": True}
EVENT_RUNS = [
    {**EVENT, "matching": "optimal"},
    {**EVENT, "percentage_of_length": 0.5, "matching": "optimal"},
    {**EVENT, "matching": "greedy"},
    {**EVENT, "offset": False, "matching": "optimal"},
    {**EVENT, "t_collar": 0.25, "onset": False, "matching": "greedy"},
    {"tool": "segment", "resolution": 1.0, "length": "last_offset"},
    {"tool": "segment", "resolution": 1.0, "length": "duration"},
    {"tool": "segment", "resolution": 0.5, "length": "last_offset"},
]
PSDS1 = {"dtc": 0.7, "gtc": 0.7, "cttc": 0.3, "alpha_ct": 0.0, "alpha_st": 1.0, "max_efpr": 100.0}
PSDS2 = {"dtc": 0.1, "gtc": 0.1, "cttc": 0.3, "alpha_ct": 0.5, "alpha_st": 1.0, "max_efpr": 100.0}
PSDS_RUNS = [
    {"tool": "psds_eval", **PSDS1},
    {"tool": "psds_eval", **PSDS2},
    {"tool": "psds_eval", **PSDS2, "max_efpr": None},
    {"tool": "macro_f1", "dtc": 0.5, "gtc": 0.5, "cttc": 0.3},
    {"tool": "sed_scores_eval", **PSDS1, "cttc": None},
    {"tool": "sed_scores_eval", **PSDS2},
]


def fmt(x: float) -> str:
    return f"{x:.3f}"


def rows(events: list[tuple[str, float, float, str]]) -> str:
    return HEAD + "".join(f"{f}\t{fmt(a)}\t{fmt(b)}\t{c}\n" for f, a, b, c in events)


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="\n") as fh:
        fh.write(text)


def truth_events(rng: random.Random, clips: dict[str, float], classes: list[str], overlap: bool,
                 empty_share: float) -> list[tuple[str, float, float, str]]:
    """Up to three events per clip; same-class events overlap only with ``overlap``."""
    out = []
    for clip, dur in clips.items():
        if rng.random() < empty_share:
            continue
        taken: dict[str, list[tuple[float, float]]] = {}
        for _ in range(rng.randint(1, 3)):
            c = rng.choice(classes)
            a = round(rng.uniform(0, dur - 0.5), 3)
            b = round(min(dur, a + rng.uniform(0.3, dur / 2)), 3)
            if not overlap and any(a < y and x < b for x, y in taken.get(c, [])):
                continue
            taken.setdefault(c, []).append((a, b))
            out.append((clip, a, b, c))
    return sorted(out)


def frame_scores(rng: random.Random, dur: float, hop: float, classes: list[str],
                 events: list[tuple[float, float, str]]) -> list[list[float]]:
    """Per frame, per class: high on (jittered) events of the class, low elsewhere (4 decimals)."""
    n = max(1, math.ceil(dur / hop - 1e-9))
    out = []
    shift = {i: rng.uniform(-0.4, 0.4) for i in range(len(events))}
    for k in range(n):
        t = (k + 0.5) * hop
        row = []
        for c in classes:
            on = any(a + shift[i] <= t <= b + shift[i] for i, (a, b, e) in enumerate(events) if e == c)
            row.append(round(min(1.0, max(0.0, (0.6 if on else 0.1) + rng.gauss(0, 0.22))), 4))
        out.append(row)
    return out


def detections_at(scores: dict[str, list[list[float]]], hop: float, classes: list[str], t: float,
                  clips: dict[str, float]) -> list[tuple[str, float, float, str]]:
    """Each maximal run of frames with score > t, ending at the clip's duration at the latest."""
    out = []
    for clip, frames in scores.items():
        for j, c in enumerate(classes):
            start = None
            for k, row in enumerate([*frames, [-1.0] * len(classes)]):
                if row[j] > t and start is None:
                    start = k
                elif row[j] <= t and start is not None:
                    out.append((clip, round(start * hop, 3), round(min(k * hop, clips[clip]), 3), c))
                    start = None
    return sorted(out)


def random_case(seed: int, n_clips: int, classes: list[str], *, nonint: bool = False, overlap: bool = False,
                empty_share: float = 0.2, hop: float = 0.5, thresholds: int = 5) -> dict[str, object]:
    rng = random.Random(seed)
    clips = {f"c{seed}_{i:03d}.wav": (round(rng.uniform(6, 10), 3) if nonint else 10.0) for i in range(n_clips)}
    truth = truth_events(rng, clips, classes, overlap, empty_share)
    scores = {clip: frame_scores(rng, d, hop, classes, [(a, b, c) for f, a, b, c in truth if f == clip])
              for clip, d in clips.items()}
    ths = [round((i + 0.5) / thresholds, 3) for i in range(thresholds)]
    ops = {t: detections_at(scores, hop, classes, t, clips) for t in ths}
    return {"clips": clips, "truth": truth, "scores": scores, "hop": hop, "classes": classes, "ops": ops,
            "detections": ops[ths[len(ths) // 2]]}


CLASSES = ["Alarm", "Blender", "Cat", "Dishes", "Dog", "Frying", "Speech", "Vacuum", "Water", "Shaver"]


def cases() -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for i in range(8):
        out[f"random_{i}"] = random_case(9100 + i, 5 + i, CLASSES[: 2 + i % 4], nonint=i % 2 == 1)
    out["many_classes"] = random_case(9200, 16, CLASSES, thresholds=6)
    out["nonint_durations"] = random_case(9201, 12, CLASSES[:3], nonint=True, empty_share=0.4)
    out["files_without_events"] = random_case(9202, 10, CLASSES[:3], empty_share=0.6)
    out["overlap_same_class"] = random_case(9203, 8, CLASSES[:2], overlap=True)
    # hand-made: float collars on the limit (2.5 - 2.3 > 0.2, 1.2 - 1.0 < 0.2), offsets on 0.2 x length
    clips = {"a.wav": 10.0, "b.wav": 10.0, "c.wav": 7.5}
    truth = [("a.wav", 1.0, 3.0, "Dog"), ("a.wav", 2.3, 6.3, "Cat"), ("b.wav", 0.1, 5.1, "Dog"),
             ("b.wav", 6.0, 6.5, "Cat"), ("c.wav", 3.0, 7.0, "Dog")]
    dets = [("a.wav", 1.2, 3.2, "Dog"), ("a.wav", 2.5, 7.1, "Cat"), ("b.wav", 0.3, 6.1, "Dog"),
            ("b.wav", 6.2, 6.7, "Dog"), ("c.wav", 2.8, 7.8, "Dog")]
    out["collar_limits"] = manual(clips, truth, dets)
    # class with no ground truth, zero-length events, detections outside clips / unknown labels / unlisted clips
    truth = [("a.wav", 1.0, 3.0, "Dog"), ("a.wav", 4.0, 4.0, "Dog"), ("b.wav", 2.0, 5.0, "Cat"),
             ("b.wav", 7.0, 7.0, "Cat")]
    dets = [("a.wav", 1.1, 3.1, "Dog"), ("a.wav", 4.0, 4.0, "Dog"), ("a.wav", 5.0, 6.0, "Bird"),
            ("b.wav", 2.0, 5.2, "Cat"), ("b.wav", 9.5, 11.0, "Cat"), ("b.wav", 7.0, 7.0, "Cat"),
            ("x.wav", 1.0, 2.0, "Dog"), ("c.wav", 0.0, 2.0, "Dog")]
    out["edge_events"] = manual({"a.wav": 10.0, "b.wav": 10.0, "c.wav": 10.0}, truth, dets)
    # nothing detected at all: every rate zero
    out["no_detections"] = manual({"a.wav": 10.0, "b.wav": 8.0}, [("a.wav", 1.0, 2.0, "Dog")], [])
    return out


def manual(clips: dict[str, float], truth: list[tuple[str, float, float, str]],
           dets: list[tuple[str, float, float, str]]) -> dict[str, object]:
    """A hand-made case: its detections are every operating point (two thresholds, the second empty)."""
    return {"clips": clips, "truth": sorted(truth), "scores": None, "hop": None, "classes": None,
            "ops": {0.25: sorted(dets), 0.75: []}, "detections": sorted(dets)}


def make(out: str) -> None:
    for name, case in cases().items():
        write_case(os.path.join(out, name), case)


def write_case(d: str, case: dict[str, object], runs: list[dict[str, object]] | None = None) -> None:
    """A case's tables and ``runs.json`` (default: every run; those of sed_scores_eval only with scores)."""
    clips = case["clips"]
    write(os.path.join(d, "ground_truth.tsv"), rows(case["truth"]))  # type: ignore[arg-type]
    write(os.path.join(d, "detections.tsv"), rows(case["detections"]))  # type: ignore[arg-type]
    write(os.path.join(d, "durations.tsv"),
          "filename\tduration\n" + "".join(f"{c}\t{v}\n" for c, v in clips.items()))  # type: ignore[union-attr]
    for t, dets in case["ops"].items():  # type: ignore[union-attr]
        write(os.path.join(d, "operating_points", f"predictions_th_{t:.3f}.tsv"), rows(dets))
    runs = runs or EVENT_RUNS + PSDS_RUNS
    if case["scores"] is not None:
        hop, classes = case["hop"], case["classes"]
        for clip, frames in case["scores"].items():  # type: ignore[union-attr]
            body = "onset\toffset\t" + "\t".join(classes) + "\n"  # type: ignore[arg-type]
            body += "".join(f"{fmt(k * hop)}\t{fmt((k + 1) * hop)}\t" + "\t".join(f"{v:.4f}" for v in row) + "\n"
                            for k, row in enumerate(frames))
            write(os.path.join(d, "scores", clip[:-4] + ".tsv"), body)
    else:
        runs = [r for r in runs if r["tool"] != "sed_scores_eval"]
    write(os.path.join(d, "runs.json"), json.dumps(runs, indent=0) + "\n")


# ----------------------------------------------------------------------------- scoring (official venv only)

def clean(x: object) -> object:
    import numpy as np
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [clean(v) for v in x]
    if isinstance(x, (float, np.floating, np.integer)):
        x = float(x)
        return "nan" if math.isnan(x) else ("inf" if x == math.inf else x)
    return x


def sed_eval_run(d: str, run: dict) -> dict:
    import pandas as pd
    import sed_eval
    gt = pd.read_csv(os.path.join(d, "ground_truth.tsv"), sep="\t")
    det = pd.read_csv(os.path.join(d, "detections.tsv"), sep="\t")
    durs = pd.read_csv(os.path.join(d, "durations.tsv"), sep="\t")
    labels = sorted(set(gt.event_label.dropna()) | set(det.event_label.dropna()))
    if run["tool"] == "event":
        metric = sed_eval.sound_event.EventBasedMetrics(
            event_label_list=labels, t_collar=run["t_collar"], percentage_of_length=run["percentage_of_length"],
            evaluate_onset=run["onset"], evaluate_offset=run["offset"], event_matching_type=run["matching"],
            empty_system_output_handling="zero_score")
    else:
        metric = sed_eval.sound_event.SegmentBasedMetrics(event_label_list=labels, time_resolution=run["resolution"])
    by_duration = run.get("length") == "duration"
    files = list(durs.filename) if by_duration else list(dict.fromkeys(gt.filename))
    length = dict(zip(durs.filename, durs.duration, strict=True))
    for f in files:
        ref = gt[gt.filename == f].to_dict("records") or [{"filename": f}]
        est = det[det.filename == f].to_dict("records") or [{"filename": f}]
        kw = {"evaluated_length_seconds": float(length[f])} if by_duration else {}
        metric.evaluate(reference_event_list=ref, estimated_event_list=est, **kw)
    res = metric.results()
    keep = ("f_measure", "error_rate", "count")
    return {"labels": labels, "overall": {k: v for k, v in res["overall"].items() if k in keep},
            "class_wise": {c: {k: v for k, v in r.items() if k in keep} for c, r in res["class_wise"].items()},
            "class_wise_average": {k: v for k, v in res["class_wise_average"].items() if k in keep}}


def psds_eval_run(d: str, run: dict) -> dict:
    import pandas as pd
    from psds_eval import PSDSEval
    gt = pd.read_csv(os.path.join(d, "ground_truth.tsv"), sep="\t")
    durs = pd.read_csv(os.path.join(d, "durations.tsv"), sep="\t")
    ev = PSDSEval(dtc_threshold=run["dtc"], gtc_threshold=run["gtc"], cttc_threshold=run["cttc"],
                  ground_truth=gt, metadata=durs)
    names = sorted(os.listdir(os.path.join(d, "operating_points")))
    tables = [pd.read_csv(os.path.join(d, "operating_points", n), sep="\t") for n in names]
    if run["tool"] == "macro_f1":
        f_avg, per_class = ev.compute_macro_f_score(tables[len(tables) // 2])
        return {"f_avg": f_avg, "f_per_class": per_class, "table": names[len(tables) // 2]}
    added = []
    for i, det in enumerate(tables):
        det = det.set_index(pd.Index(range(1, len(det) + 1)))  # the DCASE wrapper re-indexes each table
        n = ev.num_operating_points()
        ev.add_operating_point(det, info={"name": f"Op {i + 1:02d}", "threshold": float(names[i][15:-4])})
        added.append(ev.num_operating_points() > n)
    score = ev.psds(alpha_ct=run["alpha_ct"], alpha_st=run["alpha_st"], max_efpr=run["max_efpr"])
    ops = ev.operating_points
    return {"psds": score.value, "max_efpr": score.max_efpr, "added": added, "class_names": list(ev.class_names),
            "thresholds": list(ops.threshold), "tpr": [list(x) for x in ops.tpr], "fpr": [list(x) for x in ops.fpr],
            "ctr": [[list(r) for r in x] for x in ops.ctr]}


def sse_run(d: str, run: dict) -> dict:
    import sed_scores_eval
    from sed_scores_eval.base_modules.io import read_audio_durations, read_ground_truth_events, read_sed_scores
    scores = read_sed_scores(os.path.join(d, "scores"))
    gt = read_ground_truth_events(os.path.join(d, "ground_truth.tsv"))
    durs = read_audio_durations(os.path.join(d, "durations.tsv"))
    gt = {k: v for k, v in gt.items() if v}  # the DCASE recipe: clips with events only
    value, single, _, _ = sed_scores_eval.intersection_based.psds(
        scores={k: scores[k] for k in gt}, ground_truth=gt, audio_durations={k: durs[k] for k in gt},
        dtc_threshold=run["dtc"], gtc_threshold=run["gtc"], cttc_threshold=run["cttc"], alpha_ct=run["alpha_ct"],
        alpha_st=run["alpha_st"], unit_of_time="hour", max_efpr=run["max_efpr"], num_jobs=1)
    return {"psds": value, "single_class_psds": single}


def score(out: str) -> None:
    import warnings
    for name in sorted(os.listdir(out)):
        d = os.path.join(out, name)
        with open(os.path.join(d, "runs.json")) as fh:
            runs = json.load(fh)
        results = []
        for run in runs:
            tool = globals()[TOOLS[run["tool"]]]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    results.append(tool(d, run))
            except Exception as exc:  # the refusal is the official outcome
                results.append({"error": f"{type(exc).__name__}: {exc}"})
        with open(os.path.join(d, "official.json"), "w") as fh:
            json.dump(clean(results), fh, separators=(",", ":"))
            fh.write("\n")
        print(name, [next(iter(r)) if "error" not in r else r["error"][:60] for r in results])


TOOLS = {"event": "sed_eval_run", "segment": "sed_eval_run", "psds_eval": "psds_eval_run", "macro_f1": "psds_eval_run",
         "sed_scores_eval": "sse_run"}


def run_one(d: str, index: str) -> None:
    """One run of ``runs.json`` (for timing the official tool alone)."""
    with open(os.path.join(d, "runs.json")) as fh:
        run = json.load(fh)[int(index)]
    globals()[TOOLS[run["tool"]]](d, run)


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run_one(sys.argv[2], sys.argv[3])
    else:
        {"make": make, "score": score}[sys.argv[1]](sys.argv[2])
