"""A progress line on stderr (done/total, elapsed, ETA) for long work; silent unless stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress(total, "runs") as p: ... p.advance()``; draws only on a terminal and not ``quiet``."""

    def __init__(
        self, total: int, unit: str, *, quiet: bool = False, stream: TextIO | None = None, scale: int = 1
    ) -> None:
        """``scale``: counts are shown divided by it (bytes as MiB: ``scale=2**20``)."""
        self.total, self.unit, self.done, self.scale = total, unit, 0, scale
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and total > 1 and bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()

    def __enter__(self) -> Progress:
        self._draw()
        return self

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        eta = f"{elapsed / self.done * (self.total - self.done):.0f}s" if self.done else "--"
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        done, total = (
            (f"{self.done}", f"{self.total}")
            if self.scale == 1
            else (f"{self.done / self.scale:.0f}", f"{self.total / self.scale:.0f}")
        )
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {self.unit}, {elapsed:.0f}s elapsed, ETA {eta} "
        )
        self.stream.flush()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
