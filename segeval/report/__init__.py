"""Report stage: turn an :class:`~segeval.pipeline.Evaluation` into text."""
