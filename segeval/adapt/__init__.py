"""Relevance adapters: turn ranked segments into relevance labels.  Each adapter is imported on first
use (``from segeval.adapt import OverlapAdapter``), so the interface in :mod:`.base` loads without pandas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from segeval.adapt.base import Adapted, Adapter, Label

if TYPE_CHECKING:
    from segeval.adapt.binned import BinnedAdapter
    from segeval.adapt.exact import ExactAdapter
    from segeval.adapt.once import OverlapOnceAdapter
    from segeval.adapt.overlap import OverlapAdapter
    from segeval.adapt.tiou import TiouAdapter
    from segeval.adapt.tiou_best import TiouBestAdapter
    from segeval.adapt.tolerance import ToleranceAdapter

__all__ = ["Adapted", "Adapter", "BinnedAdapter", "ExactAdapter", "Label", "OverlapAdapter", "OverlapOnceAdapter",
           "TiouAdapter", "TiouBestAdapter", "ToleranceAdapter"]

_LAZY = {"BinnedAdapter": "binned", "ExactAdapter": "exact", "OverlapOnceAdapter": "once",
         "OverlapAdapter": "overlap", "TiouAdapter": "tiou", "TiouBestAdapter": "tiou_best",
         "ToleranceAdapter": "tolerance"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"segeval.adapt.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'segeval.adapt' has no attribute {name!r}")
