"""The standard streams as the command line finds them: closed, failing or in an encoding that cannot write
every character (docs/cli.md, "Standard streams and locales"); :func:`prepare` runs once at the entry point."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from typing import IO, Any

#: which standard streams were closed when the process started
CLOSED: set[str] = set()
_NAMES = {0: "stdin", 1: "stdout", 2: "stderr"}


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError as exc:
        return exc.errno == errno.EBADF
    return False


def prepare() -> None:
    """Reopen closed standard descriptors on /dev/null (so that no library or worker gets 0, 1 or 2 by accident;
    remembered in :data:`CLOSED`) and make standard output and standard error write UTF-8."""
    for fd, name in _NAMES.items():
        if _closed(fd):
            CLOSED.add(name)
            try:
                null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            except OSError:
                continue
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            mode, errors = ("r", None) if fd == 0 else ("w", "backslashreplace")
            raw = io.FileIO(fd, mode, closefd=False)
            stream = io.TextIOWrapper(raw, encoding="utf-8", errors=errors, line_buffering=fd == 2)
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError, io.UnsupportedOperation):
                reconfigure(encoding="utf-8", errors="backslashreplace")


def stdin_closed() -> bool:
    """Whether standard input was closed when the process started (``<&-``)."""
    return "stdin" in CLOSED


def stdout_closed() -> bool:
    """Whether standard output was closed when the process started (``>&-``)."""
    return "stdout" in CLOSED


class GuardedStderr:
    """Standard error whose reader may leave: a write error silences it instead of failing the command."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._silent = False

    def write(self, text: str) -> int:
        if self._silent:
            return len(text)
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            self._silence()
            return len(text)

    def flush(self) -> None:
        if self._silent:
            return
        try:
            self._stream.flush()
        except (OSError, ValueError):
            self._silence()

    def _silence(self) -> None:
        from segeval.reports.output import silence

        self._silent = True
        silence(2)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
