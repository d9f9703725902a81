"""Measures: pure per-query functions, declared once in :mod:`segeval.measures.registry`."""

from segeval.measures.registry import FAMILIES, Family, Measure, measure, measure_table

__all__ = ["FAMILIES", "Family", "Measure", "measure", "measure_table"]
