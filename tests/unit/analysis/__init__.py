"""Tests of segeval.analysis."""
