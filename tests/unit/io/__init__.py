"""Tests of segeval.io."""
