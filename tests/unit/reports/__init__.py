"""Tests of segeval.reports."""
