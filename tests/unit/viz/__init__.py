"""Tests of segeval.viz."""
