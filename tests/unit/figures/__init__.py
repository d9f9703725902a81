"""Tests of segeval.figures."""
