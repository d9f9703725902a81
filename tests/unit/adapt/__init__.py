"""Tests of segeval.adapt."""
