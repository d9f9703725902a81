"""``segeval mr`` without ``--protocol``: the protocol told from the ground truth's first record, and said."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli

CASES = {  # protocol -> (ground truth, predictions) of the stored official cases
    "qvhighlights": (FIXTURES / "qvh" / "random.gt.jsonl.gz", FIXTURES / "qvh" / "random.pred.jsonl.gz"),
    "tvr": (FIXTURES / "tvr" / "random.gt.jsonl.gz", FIXTURES / "tvr" / "random.submission.json.gz"),
    "didemo": (FIXTURES / "mr" / "didemo.gt.json.gz", FIXTURES / "mr" / "didemo.pred.json.gz"),
    "ego4d-nlq": (FIXTURES / "mr" / "ego4d.gt.json.gz", FIXTURES / "mr" / "ego4d.pred.json.gz"),
}


@pytest.mark.parametrize("protocol", sorted(CASES))
def test_the_protocol_is_told_from_the_ground_truth(protocol: str) -> None:
    truth, predictions = map(str, CASES[protocol])
    code, out, err = run_cli("mr", "-o", "json", truth, predictions)
    assert code == 0, err
    assert f"note: protocol {protocol}: {truth}: " in err
    named_code, named, _ = run_cli("mr", "-o", "json", "-p", protocol, truth, predictions)
    assert named_code == 0 and json.loads(out) == json.loads(named)  # the same as naming it


def test_recall_is_never_guessed_and_unknown_files_are_refused(tmp_path: Path) -> None:
    truth, predictions = FIXTURES / "mr" / "recall.gt.jsonl.gz", FIXTURES / "mr" / "recall.pred.jsonl.gz"
    code, _, err = run_cli("mr", str(truth), str(predictions))
    assert code == 0 and "note: protocol qvhighlights: " in err and "-p recall" in err
    other = tmp_path / "other.json"
    other.write_text('{"annotations": []}\n')
    code, _, err = run_cli("mr", str(other), str(predictions))
    assert code == 2 and f"{other}: does not look like any moment-retrieval ground truth" in err
    assert "--protocol" in err
    code, _, err = run_cli("mr", "-", str(predictions))
    assert code == 2 and "is a stream, which can be read only once; expected --protocol" in err


def test_text_output_is_a_table_of_the_headline_figures() -> None:
    truth, predictions = map(str, CASES["tvr"])
    code, out, _ = run_cli("mr", truth, predictions)
    rows = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and all(len(r) == 2 for r in rows) and rows[:2] == [["figure", "value"], ["VCMR-0.5-r1", "11.5"]]
    full = run_cli("mr", "--full", "-o", "csv", truth, predictions)[1].splitlines()
    assert full[0] == "figure,value" and len(full) > len(rows)


@pytest.mark.parametrize("protocol", [*sorted(CASES), "recall"])
def test_per_query_values_average_to_the_figures(protocol: str) -> None:
    """``mr -q``: each headline figure is the mean of its queries' values (before the official rounding to 2
    decimals: QVHighlights, TVR); the figures' own rows are the query ``all``."""
    truth, predictions = map(str, CASES.get(protocol, (FIXTURES / "mr" / "recall.gt.jsonl.gz",
                                                       FIXTURES / "mr" / "recall.pred.jsonl.gz")))
    code, out, err = run_cli("mr", "-p", protocol, "-q", "-o", "json", truth, predictions)
    assert code == 0, err
    doc = json.loads(out)
    rows = list(csv.DictReader(io.StringIO(run_cli("mr", "-p", protocol, "-q", "-o", "csv", truth, predictions)[1])))
    brief = {r["figure"]: r["value"] for r in rows if r["query"] == "all"}
    rounded = protocol in ("qvhighlights", "tvr")
    compared = 0
    for figure, shown in brief.items():
        values = [v[figure] for v in doc["per_query"].values() if figure in v]
        if shown == "" or not values:  # no value (an empty bucket)
            continue
        mean = sum(values) / len(values)
        assert float(shown) == (pytest.approx(mean, abs=0.005 + 1e-9) if rounded else pytest.approx(mean, rel=1e-12)), \
            figure
        compared += 1
    assert compared >= 3 and len([r for r in rows if r["query"] != "all"]) >= len(doc["per_query"]) > 1
