"""The core: segments, settings, errors, orders, the prepared form, plan, evaluation and aggregate."""
