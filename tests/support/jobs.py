"""A test shorthand for an ``eval`` job as the command line makes it: a :class:`~segeval.core.settings.Job` and
its :class:`~segeval.core.settings.OutputOptions`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from segeval.core.settings import CHUNK_LINES, EngineOptions, Job, OutputOptions, Settings


@dataclass(frozen=True)
class EvalCase:
    measures: Sequence[str]
    per_query: bool = False
    summary: bool = True
    header: Sequence[str] = ()
    relevance_level: int = 1
    complete: bool = False
    max_results: int | None = None

    def job(self, chunk_lines: int = CHUNK_LINES) -> Job:
        settings = Settings(relevance_level=self.relevance_level, max_results=self.max_results,
                            missing_queries="zero" if self.complete else "skip")
        return Job(tuple(self.measures), (), settings, engine=EngineOptions(chunk_lines=chunk_lines, quiet=True))

    def out(self) -> OutputOptions:
        return OutputOptions("trec", self.per_query, self.summary, tuple(self.header))
