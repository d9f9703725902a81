"""Tests of segeval.api."""
