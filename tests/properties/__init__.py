"""Invariants over generated inputs (hypothesis, seeded generators, fuzzing)."""
