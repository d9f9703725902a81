"""Generate detection cases and run DETAD's false-positive analysis on them (``segeval detect --errors``).

Usage:
    python scripts/detad_cases.py write OUT_DIR
        writes OUT_DIR/<case>.gt.json and OUT_DIR/<case>.pred.json for every case (deterministic)
    python scripts/detad_cases.py official OUT_DIR FIXTURES_DIR DETAD_SRC PYTHON
        writes the cases, runs DETAD on each and stores its figures as FIXTURES_DIR/<case>.detad.json

DETAD: HumamAlwassel/DETAD commit 24f7d95 (``src/``), under Python 3.11 with numpy 1.23.5, pandas 1.5.3, joblib
and matplotlib 3.7 (imported, never drawn).  It is called as ``false_positive_analysis.py``'s ``main`` calls it
(``limit_factor=10``, ``min_tiou_thr=0.1``, ``normalize_ap=True``, ``minimum_normalized_precision_threshold_for_
detection=0.0``) but without the extra annotations (``load_extra_annotations=False``: the characteristics only
feed the other analyses) and without the PDF; the figures are the ones it plots and prints:
``fp_error_types_count_df``, ``fp_error_types_precentage_df``, the per-slice profile of
``split_predictions_by_score_ranges``, ``average_mAP`` and ``average_mAP_gain``, and each prediction's type.
Set up as: ``git archive`` of DETAD's ``src/`` into /tmp/tools/detad, then ``python3.11 -m venv venv`` and
``venv/bin/pip install numpy==1.23.5 pandas==1.5.3 joblib matplotlib==3.7.5``; ``python scripts/detad_cases.py
official /tmp/detad_cases tests/fixtures/detection /tmp/tools/detad/src /tmp/tools/detad/venv/bin/python``.

Cases (distinct scores: DETAD's pandas sorts and the protocol's order agree only then):

* ``detad_anet``: 4 classes, 8 videos, ActivityNet's 10 thresholds, predictions of every error type.
* ``detad_thumos``: DETAD's THUMOS14 setting (one threshold, 0.5), a class with more than 10 G predictions
  (the cut).
* ``detad_stale``: a video without ground truth holding three predictions (sorting after the videos with
  ground truth): DETAD compares all but the first with the previous video's instances (docs/detection.md);
  G slices 5G to 10G empty (0/0).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ANET = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]

DRIVER = r"""
import json, sys
import numpy as np
from action_detector_diagnosis import ActionDetectorDiagnosis
from false_positive_analysis import split_predictions_by_score_ranges
gt, pred, thresholds, out = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
if thresholds == 'anet':
    thresholds = np.linspace(0.5, 0.95, 10)
d = ActionDetectorDiagnosis(ground_truth_filename=gt, prediction_filename=pred, tiou_thresholds=thresholds,
                            limit_factor=10, min_tiou_thr=0.1, subset='validation', verbose=True,
                            load_extra_annotations=False, normalize_ap=True,
                            minimum_normalized_precision_threshold_for_detection=0.0)
d.evaluate()
d.diagnose()
_, _, slices = split_predictions_by_score_ranges(d, d.limit_factor)
names = {v: k for k, v in d.activity_index.items()}
rows = [{'video': r['video-id'], 'segment': [r['t-start'], r['t-end']], 'label': names[r['label']],
         'score': r['score'], 'types': [int(r[c]) for c in d.fp_error_type_cols]} for _, r in d.prediction.iterrows()]
def table(df):
    return {str(col): {k: float(df[col][k]) for k in df.index} for col in df.columns}
json.dump({'thresholds': [float(t) for t in d.tiou_thresholds], 'predictions': rows,
           'count': table(d.fp_error_types_count_df), 'fraction': table(d.fp_error_types_precentage_df),
           'slices': {str(g + 1): {k: float(df['avg'][k]) for k in df.index} for g, df in slices.items()},
           'average_mAP_N': float(d.average_mAP),
           'average_mAP_N_gain': {k: float(v) for k, v in d.average_mAP_gain.items()}},
          open(out, 'w'), indent=1)
"""


def _case(seed: int, n_classes: int, n_videos: int, per_video: int, n_preds: int, extra: int = 0,
          stale: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = random.Random(seed)
    classes = [f"class{c}" for c in range(n_classes)]
    database: dict[str, Any] = {}
    instances = []
    for v in range(n_videos):
        name = f"v{v:02d}"
        anns = []
        for _ in range(rng.randint(1, per_video)):
            s = round(rng.uniform(0, 90), 2)
            e = round(s + rng.uniform(2, 30), 2)
            label = rng.choice(classes)
            anns.append({"segment": [s, e], "label": label})
            instances.append((name, s, e, label))
        database[name] = {"subset": "validation", "duration": 130.0, "annotations": anns}
    database["train0"] = {"subset": "training", "duration": 50.0,
                          "annotations": [{"segment": [1.0, 5.0], "label": classes[0]}]}
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in database if name != "train0"}
    scores = rng.sample(range(1, 10**6), n_preds + extra + 3)

    def add(video: str, s: float, e: float, label: str) -> None:
        results.setdefault(video, []).append({"segment": [round(s, 2), round(max(e, s + 0.5), 2)], "label": label,
                                              "score": scores.pop() / 10**6})

    for _ in range(n_preds):
        video, s, e, label = rng.choice(instances)
        kind = rng.random()
        jitter = (e - s) * rng.choice([0.02, 0.1, 0.3, 0.6, 1.5])
        if kind < 0.5:  # near an instance: a hit, a double detection or a localization error
            add(video, s + rng.uniform(-jitter, jitter), e + rng.uniform(-jitter, jitter),
                label if rng.random() < 0.7 else rng.choice(classes))
        elif kind < 0.8:  # anywhere in a video
            s2 = rng.uniform(0, 110)
            add(video, s2, s2 + rng.uniform(1, 20), rng.choice(classes))
        else:  # on an instance, any label
            add(video, s, e, rng.choice(classes))
    for _ in range(extra):  # one class flooded: more than 10 G predictions
        s2 = rng.uniform(0, 110)
        add(rng.choice(list(database)[:n_videos]), s2, s2 + rng.uniform(1, 20), classes[-1])
    if stale:
        last = sorted(results)[-1]
        for s, e, label in [(i[1], i[2], i[3]) for i in instances if i[0] == last][:3] * 3:
            add("zz_no_truth", s, e, label)
            if len(results["zz_no_truth"]) == 3:
                break
    gt = {"version": "generated", "taxonomy": [], "database": database}
    return gt, {"version": "generated", "external_data": {}, "results": results}


CASES: dict[str, tuple[Any, tuple[dict[str, Any], dict[str, Any]]]] = {
    "detad_anet": ("anet", _case(1, 4, 8, 4, 90)),
    "detad_thumos": ([0.5], _case(2, 3, 5, 3, 40, extra=60)),
    "detad_stale": ([0.3, 0.5, 0.7], _case(3, 2, 4, 3, 30, stale=True)),
}


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (_, (gt, pred)) in CASES.items():
        (out / f"{name}.gt.json").write_text(json.dumps(gt, indent=1))
        (out / f"{name}.pred.json").write_text(json.dumps(pred, indent=1))


def official(out: Path, fixtures: Path, detad_src: str, python: str) -> None:
    write(out)
    fixtures.mkdir(parents=True, exist_ok=True)
    for name, (thresholds, _) in CASES.items():
        subprocess.run([python, "-c", DRIVER, str((out / f"{name}.gt.json").resolve()),
                        str((out / f"{name}.pred.json").resolve()), json.dumps(thresholds),
                        str((fixtures / f"{name}.detad.json").resolve())], cwd=detad_src, check=True)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(Path(sys.argv[2]))
    else:
        official(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], sys.argv[5])
