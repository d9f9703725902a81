"""Report stage: turn an :class:`~segeval.core.evaluation.Evaluation` into text."""
