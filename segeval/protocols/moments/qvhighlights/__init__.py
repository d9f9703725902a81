"""Moment retrieval and highlight detection (QVHighlights): the official evaluator's figures (docs/moments.md,
'qvhighlights')."""

from __future__ import annotations

from segeval.protocols.moments.qvhighlights.report import evaluate_files, evaluate_moments

__all__ = ["evaluate_files", "evaluate_moments"]
