"""The result of one run, as every engine (processes, chunked reading, Dask) gives it, and its rendering."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from segeval.core.errors import InputError, SegevalError
from segeval.core.words import plural, verb

if TYPE_CHECKING:
    from segeval.core.evaluation import Evaluation


@dataclass
class RunResult:
    """One run's result: evaluation (None: failed), run tag, skipped lines, notes, error and file."""

    evaluation: Evaluation | None
    runid: str = ""
    skipped: list[InputError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: SegevalError | None = None
    file: str = ""


@dataclass(frozen=True)
class Outcome:
    """What ``segeval eval`` printed for one run's :class:`RunResult`, and how it ended."""

    stdout: str
    stderr: str
    skipped: int
    failed: bool


def unevaluated_note(count: int) -> str:
    """The note on ``count`` qrels queries without results in the run (``segeval eval`` without ``-c``)."""
    return (
        f"note: {plural(count, 'qrels query', 'qrels queries')} {verb(count, 'has', 'have')} no results in the "
        f"run and are not averaged (-c counts them as 0)"
    )
