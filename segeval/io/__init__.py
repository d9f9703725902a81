"""Readers of input files."""
