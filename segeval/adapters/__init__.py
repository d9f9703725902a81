"""Relevance adapters: turn ranked segments into relevance labels."""

from __future__ import annotations

from typing import TYPE_CHECKING

from segeval.adapters.registry import KINDS

if TYPE_CHECKING:  # for type checkers (tests/unit/adapters/test_declarations.py keeps them the declared ones)
    from segeval.adapters.base import Adapted as Adapted
    from segeval.adapters.base import Adapter as Adapter
    from segeval.adapters.base import Label as Label
    from segeval.adapters.binned import BinnedAdapter as BinnedAdapter
    from segeval.adapters.collar import CollarAdapter as CollarAdapter
    from segeval.adapters.exact import ExactAdapter as ExactAdapter
    from segeval.adapters.overlap import OverlapAdapter as OverlapAdapter
    from segeval.adapters.overlap import OverlapOnceAdapter as OverlapOnceAdapter
    from segeval.adapters.tiou import TiouAdapter as TiouAdapter
    from segeval.adapters.tiou_best import TiouBestAdapter as TiouBestAdapter
    from segeval.adapters.tolerance import ToleranceAdapter as ToleranceAdapter

_LAZY = {"Adapted": "base", "Adapter": "base", "Label": "base", **{k.cls: k.module for k in KINDS}}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"segeval.adapters.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'segeval.adapters' has no attribute {name!r}")
