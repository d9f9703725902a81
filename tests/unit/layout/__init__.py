"""Tests of segeval.layout."""
