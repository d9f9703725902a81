"""Tests of segeval.engines."""
