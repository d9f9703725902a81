"""Tests of segeval.readers."""
