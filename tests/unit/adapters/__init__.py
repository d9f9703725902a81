"""Tests of segeval.adapters."""
