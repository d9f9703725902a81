"""Tests of segeval.core.segment."""
