"""Readers of the files segeval takes as input."""
