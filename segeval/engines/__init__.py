"""Evaluation engines: many runs, bounded-memory chunks, Dask, progress."""
