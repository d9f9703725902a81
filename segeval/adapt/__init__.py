"""Relevance adapters: turn ranked segments into relevance labels.  Every name is imported on first use
(``from segeval.adapt import OverlapAdapter``), the adapters' modules from their declarations
(:data:`segeval.adapt.registry.KINDS`), so that the package loads without numpy or pandas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from segeval.adapt.registry import KINDS

if TYPE_CHECKING:  # for type checkers (tests/unit/adapt/test_declarations.py keeps them the declared ones)
    from segeval.adapt.base import Adapted as Adapted
    from segeval.adapt.base import Adapter as Adapter
    from segeval.adapt.base import Label as Label
    from segeval.adapt.binned import BinnedAdapter as BinnedAdapter
    from segeval.adapt.exact import ExactAdapter as ExactAdapter
    from segeval.adapt.once import OverlapOnceAdapter as OverlapOnceAdapter
    from segeval.adapt.overlap import OverlapAdapter as OverlapAdapter
    from segeval.adapt.tiou import TiouAdapter as TiouAdapter
    from segeval.adapt.tiou_best import TiouBestAdapter as TiouBestAdapter
    from segeval.adapt.tolerance import ToleranceAdapter as ToleranceAdapter

_LAZY = {"Adapted": "base", "Adapter": "base", "Label": "base", **{k.cls: k.module for k in KINDS}}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"segeval.adapt.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'segeval.adapt' has no attribute {name!r}")
