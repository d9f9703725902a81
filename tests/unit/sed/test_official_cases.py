"""``segeval sed`` against sed_eval 0.2.1 and psds_eval 0.5.3: their stored outputs on the generated cases
of scripts/sed_cases.py (every figure compared exactly, NaN with NaN) and, marked ``reference``, the shared
sample's official numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from segeval.core.errors import SegevalError
from segeval.protocols.sed import measures, report
from tests.conftest import FIXTURES
from tests.support.reference import require_shared

SED = FIXTURES / "sed"
CASES = sorted(p.name for p in SED.iterdir() if p.is_dir())
KEYS = ("f_measure", "precision", "recall", "error_rate", "deletion_rate", "insertion_rate")
#: the label psds_eval adds to its class names (after the ground truth's)
WORLD = "injected_psds_world_label"


def _same(ours: float, theirs: Any) -> bool:
    theirs = math.nan if theirs == "nan" else theirs
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def _sed_eval(case: Path, run: dict[str, Any]) -> report.Report:
    if run["tool"] == "event":
        collar = measures.Collar(run["t_collar"], run["percentage_of_length"], run["onset"], run["offset"])
        return report.sed_eval(str(case / "ground_truth.tsv"), str(case / "detections.tsv"),
                               str(case / "durations.tsv"), "event", collar=collar, matching=run["matching"])
    return report.sed_eval(str(case / "ground_truth.tsv"), str(case / "detections.tsv"), str(case / "durations.tsv"),
                           "segment", resolution=run["resolution"],
                           length="duration" if run["length"] == "duration" else "last-offset")


def compare_sed_eval(ours: dict[str, Any], official: dict[str, Any]) -> int:
    """Every figure of sed_eval's results (overall, class-wise, class-wise average); the count compared."""
    n = 0
    pairs = [(ours["overall"], official["overall"]), (ours["class_wise_average"], official["class_wise_average"])]
    pairs += [(ours["class_wise"][c], official["class_wise"][c]) for c in official["class_wise"]]
    assert ours["labels"] == official["labels"]
    for mine, theirs in pairs:
        flat = {**theirs.get("f_measure", {}), **theirs.get("error_rate", {}), **theirs.get("count", {})}
        for key, value in flat.items():
            assert _same(mine[key], value), (key, mine[key], value)
            n += 1
    return n


def _psds(case: Path, run: dict[str, Any]) -> report.Report:
    kw = {k: run[k] for k in ("dtc", "gtc", "cttc")}
    if run["tool"] == "macro_f1":
        table = sorted((case / "operating_points").iterdir())[len(list((case / "operating_points").iterdir())) // 2]
        return report.macro_f1(str(case / "ground_truth.tsv"), str(table), str(case / "durations.tsv"),
                               measures.Criteria(**kw))
    return report.psds(str(case / "ground_truth.tsv"), str(case / "operating_points"), str(case / "durations.tsv"),
                       measures.Criteria(alpha_ct=run["alpha_ct"], alpha_st=run["alpha_st"], max_efpr=run["max_efpr"],
                                         **kw))


def compare_psds(ours: dict[str, Any], official: dict[str, Any]) -> int:
    if "f_avg" in official:
        assert _same(ours["f_avg"], official["f_avg"])
        for c, v in official["f_per_class"].items():
            assert _same(ours["f_per_class"][c], v), c
        return 1 + len(official["f_per_class"])
    assert _same(ours["psds"], official["psds"]), (ours["psds"], official["psds"])
    assert ours["max_efpr"] == official["max_efpr"]
    classes = ours["classes"]
    assert [*classes, WORLD] == official["class_names"]
    n = 2
    added = [p for p, ok in zip(official["thresholds"], official["added"], strict=False) if ok]
    assert len(ours["operating_points"]) == len(official["tpr"]) == len(added)
    for op, tpr, fpr, ctr in zip(ours["operating_points"], official["tpr"], official["fpr"], official["ctr"],
                                 strict=True):
        for k, c in enumerate(classes):
            assert _same(op["tpr"][c], tpr[k]) and _same(op["fpr"][c], fpr[k]), (c, op["threshold"])
            for j, o in enumerate(classes):
                assert _same(op["ctr"][c][o], ctr[k][j]), (c, o)
            n += 2 + len(classes)
    return n


def _sse(case: Path, run: dict[str, Any]) -> report.Report:
    return report.sed_scores(str(case / "ground_truth.tsv"), str(case / "scores"), str(case / "durations.tsv"),
                             measures.Criteria(**{k: run[k] for k in ("dtc", "gtc", "cttc", "alpha_ct", "alpha_st",
                                                                      "max_efpr")}))


def compare_sse(ours: dict[str, Any], official: dict[str, Any]) -> int:
    assert _same(ours["psds"], official["psds"]), (ours["psds"], official["psds"])
    for c, v in official["single_class_psds"].items():
        assert _same(ours["single_class_psds"][c], v), (c, ours["single_class_psds"][c], v)
    return 1 + len(official["single_class_psds"])


@pytest.mark.parametrize("name", CASES)
def test_generated_case_equals_official(name: str) -> None:
    case = SED / name
    runs = json.loads((case / "runs.json").read_text())
    official = json.loads((case / "official.json").read_text())
    compared = 0
    for run, theirs in zip(runs, official, strict=True):
        tool = run["tool"]
        scorer = _sed_eval if tool in ("event", "segment") else _sse if tool == "sed_scores_eval" else _psds
        if "error" in theirs:
            with pytest.raises(SegevalError):
                scorer(case, run)
            continue
        ours = scorer(case, run).doc
        compare = compare_sed_eval if scorer is _sed_eval else compare_sse if scorer is _sse else compare_psds
        compared += compare(ours, theirs)
    assert compared > 0


@pytest.mark.reference
@pytest.mark.parametrize("name", ["sample_sed_eval", "sample_psds", "sample_nonint_durations"])
def test_shared_case_equals_official(name: str) -> None:
    case = require_shared("dcase", name)
    official = json.loads((case / "official.json").read_text())
    for entry in official["runs"]:
        run, tool = entry["params"], entry["params"]["tool"]
        gt, durs = str(case / "ground_truth.tsv"), str(case / "durations.tsv")
        if tool == "sed_eval.event":
            collar = measures.Collar(run["t_collar"], run["percentage_of_length"], run["evaluate_onset"],
                                     run["evaluate_offset"])
            ours = report.sed_eval(gt, str(case / "detections.tsv"), durs, "event", collar=collar,
                                   matching=run["event_matching_type"]).doc
        elif tool == "sed_eval.segment":
            ours = report.sed_eval(gt, str(case / "detections.tsv"), durs, "segment", resolution=run["time_resolution"],
                                   length="duration" if run["evaluated_length"] == "duration" else "last-offset").doc
        elif tool == "psds_eval":
            ours = report.psds(gt, str(case / "operating_points"), durs, measures.Criteria(
                run["dtc_threshold"], run["gtc_threshold"], run["cttc_threshold"], run["alpha_ct"], run["alpha_st"],
                run["max_efpr"])).doc
            assert ours["psds"] == entry["psds"]
            for op, row in zip(ours["operating_points"], entry["operating_point_table"], strict=True):
                assert list(op["tpr"].values()) == row["tpr"] and list(op["fpr"].values()) == row["fpr"]
            continue
        elif tool == "psds_eval.macro_f1":
            ours = report.macro_f1(gt, str(case / "operating_points" / f"predictions_th_{run['threshold']}.tsv"), durs,
                                   measures.Criteria(run["dtc_threshold"], run["gtc_threshold"],
                                                     run["cttc_threshold"])).doc
            assert _same(ours["f_avg"], entry["f_avg"])
            continue
        else:
            ours = report.sed_scores(gt, str(case / "scores"), durs, measures.Criteria(
                run["dtc_threshold"], run["gtc_threshold"], run["cttc_threshold"], run["alpha_ct"], run["alpha_st"],
                run["max_efpr"])).doc
            assert ours["psds"] == entry["psds"] and ours["single_class_psds"] == entry["single_class_psds"]
            continue
        results = entry["results"]
        theirs = {"labels": sorted(results["class_wise"]), "overall": results["overall"],
                  "class_wise": results["class_wise"], "class_wise_average": results["class_wise_average"]}
        assert compare_sed_eval(ours, theirs) > 0
