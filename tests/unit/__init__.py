"""Tests of one module or package each, mirroring segeval/."""
