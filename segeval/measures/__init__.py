"""Measures: pure per-query functions, declared once in :mod:`segeval.measures.definitions`."""

from segeval.measures.declaration import Family, Measure
from segeval.measures.definitions import FAMILIES, REGISTRY, SETS, expand, measure, measure_table

__all__ = ["FAMILIES", "REGISTRY", "SETS", "Family", "Measure", "expand", "measure", "measure_table"]
