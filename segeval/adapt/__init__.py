"""Relevance adapters: turn ranked segments into relevance labels."""

from segeval.adapt.base import Adapted, Adapter, Label
from segeval.adapt.binned import BinnedAdapter
from segeval.adapt.exact import ExactAdapter
from segeval.adapt.overlap import OverlapAdapter
from segeval.adapt.tolerance import ToleranceAdapter

__all__ = ["Adapted", "Adapter", "BinnedAdapter", "ExactAdapter", "Label", "OverlapAdapter", "ToleranceAdapter"]
