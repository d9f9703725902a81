"""A value nested too deeply to print (100,000 levels) in any parameter of the API is refused with a
ParameterError naming the parameter, never a RecursionError while the message is built."""

from __future__ import annotations

from typing import Any

import pytest

import segeval

QRELS = {"q1": {"d1": 1}}
RUN = {"q1": {"d1": 1.0}}


def _deep() -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(100_000):
        node["a"] = {}
        node = node["a"]
    return root


@pytest.mark.parametrize("where", ["qrels", "qrels values", "run", "run values", "measures", "adapters"])
def test_a_deep_value_is_a_parameter_error(where: str) -> None:
    deep = _deep()
    args: dict[str, Any] = {"qrels": QRELS, "run": RUN, "measures": ["map"]}
    if where.endswith("values"):
        args[where.split()[0]] = {"q1": deep}
    elif where == "adapters":
        args["adapters"] = deep
    else:
        args[where] = deep
    with pytest.raises(segeval.ParameterError) as raised:
        segeval.evaluate(**args)
    assert len(str(raised.value)) < 1000


def test_a_deep_run_in_compare_is_a_parameter_error() -> None:
    with pytest.raises(segeval.ParameterError):
        segeval.compare(QRELS, {"a": RUN, "b": {"q1": _deep()}}, "map")
