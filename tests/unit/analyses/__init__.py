"""Tests of segeval.analyses."""
