"""Input: tables in memory (:mod:`segeval.io.frames`); the file readers follow."""
