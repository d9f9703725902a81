"""Report stage: turn an :class:`~segeval.evaluation.Evaluation` into text."""
