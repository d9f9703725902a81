"""Tests of segeval.measures."""
