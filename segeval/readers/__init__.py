"""Input: the readers of files (strata, anchors, ...) and of tables in memory (frames)."""
