"""TVR (video corpus moment retrieval): the official ``standalone_eval/eval.py`` figures.

Follows jayleicn/TVRetrieval's evaluator, its 32-bit float arithmetic included.  The inputs, the
``VCMR``/``SVMR``/``VR`` figures, the float32 conventions and what segeval does where the official script
fails are docs/moments.md, 'tvr'.
"""

from __future__ import annotations

from segeval.protocols.moments.tvr.report import evaluate_files

__all__ = ["evaluate_files"]
