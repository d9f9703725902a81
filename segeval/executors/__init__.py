"""Evaluation engines: the route, the byte-scanner lanes, processes, chunks, Dask, progress."""
