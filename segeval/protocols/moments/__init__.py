"""Moment-retrieval protocols: ``PROTOCOLS`` maps a name to the module whose
``evaluate_files(truth, predictions, options: MrOptions) -> MrResult`` implements it (docs/moments.md)."""

from __future__ import annotations

import importlib

from segeval.protocols.moments.protocol import Evaluate

PROTOCOLS: dict[str, str] = {
    "qvhighlights": "segeval.protocols.moments.qvhighlights",
    "didemo": "segeval.protocols.moments.didemo",
    "ego4d-nlq": "segeval.protocols.moments.ego4d_nlq",
    "recall": "segeval.protocols.moments.recall",
    "tvr": "segeval.protocols.moments.tvr",
}


def protocol(name: str) -> Evaluate:
    """The ``evaluate_files`` function of protocol ``name`` (imported on first use)."""
    from segeval.core.errors import check_choice

    check_choice("protocol", name, tuple(PROTOCOLS))
    function: Evaluate = importlib.import_module(PROTOCOLS[name]).evaluate_files
    return function
