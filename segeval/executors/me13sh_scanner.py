"""The lane of ``segeval me13sh``: MediaEval qrels and a linking or search run, without pandas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from segeval.adapters.base import Adapter
    from segeval.core.evaluation import Evaluation


def me13sh_evaluation(
    qrels_path: str, run_path: str, kind: str, measures: Sequence[str], adapters: Sequence[Adapter]
) -> Evaluation | None:
    """``segeval me13sh``'s :class:`~segeval.core.evaluation.Evaluation`, or None when the usual path must decide."""
    from segeval.core.plan import plan
    from segeval.core.settings import CHUNK_LINES
    from segeval.readers.files import is_stream
    from segeval.readers.formats import MEDIAEVAL_LINKING_RUN, MEDIAEVAL_SEARCH_RUN
    from segeval.readers.scanner_segments import planned_result

    fmt = {"linking": MEDIAEVAL_LINKING_RUN, "search": MEDIAEVAL_SEARCH_RUN}.get(kind)
    if is_stream(qrels_path) or is_stream(run_path) or fmt is None:
        return None  # a stream is read once: the usual path reads it
    how = plan(False, list(measures), adapters=list(adapters))
    result = planned_result(qrels_path, run_path, how, "whole", CHUNK_LINES, fmt=fmt)
    return None if result is None else result.evaluation
