"""Helpers shared by the tests: drawn timelines, generated cases, loaders of scripts/."""
