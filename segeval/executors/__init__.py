"""Evaluation engines: the route that picks reader and executor, the byte-scanner lanes (whole, streamed,
MediaEval), many runs in processes, bounded-memory chunks, Dask, progress."""
