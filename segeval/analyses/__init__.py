"""Analyses over evaluated runs: statistics, comparison, correlation, pools, completion, moments."""
