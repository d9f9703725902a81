"""Tests of segeval.report."""
