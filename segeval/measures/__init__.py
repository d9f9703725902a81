"""Measures: pure per-query functions, declared once in :mod:`segeval.measures.definitions`."""

from segeval.measures.definitions import FAMILIES, REGISTRY, SETS, expand, measure, measure_table
from segeval.measures.registry import Family, Measure

__all__ = ["FAMILIES", "REGISTRY", "SETS", "Family", "Measure", "expand", "measure", "measure_table"]
