"""Relevance adapters: turn ranked segments into relevance labels."""

from segeval.adapt.base import Adapted, Adapter, Label
from segeval.adapt.binned import BinnedAdapter
from segeval.adapt.exact import ExactAdapter
from segeval.adapt.once import OverlapOnceAdapter
from segeval.adapt.overlap import OverlapAdapter
from segeval.adapt.tiou import TiouAdapter
from segeval.adapt.tolerance import ToleranceAdapter

__all__ = ["Adapted", "Adapter", "BinnedAdapter", "ExactAdapter", "Label", "OverlapAdapter", "OverlapOnceAdapter",
           "TiouAdapter", "ToleranceAdapter"]
