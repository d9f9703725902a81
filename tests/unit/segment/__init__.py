"""Tests of segeval.segment."""
