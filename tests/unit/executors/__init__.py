"""Tests of segeval.executors."""
