"""The one writer of output files (:func:`open_output`), and guarded standard output; the guarantees and
refusals are docs/cli.md, "Exit codes" ("Outputs: ...")."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from segeval.core.errors import SegevalError, printable


class OutputError(SegevalError):
    """An output that cannot be written: the path and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"cannot write {shown(path)}: {reason}")


class OutputClosed(Exception):
    """Standard output was closed by its reader (EPIPE, as in ``segeval eval ... | head``)."""


def shown(text: str) -> str:
    """``text`` with control characters escaped; ``''`` when empty."""
    return printable(text) if text else "''"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_output(path: str | os.PathLike[str], inputs: Sequence[str | os.PathLike[str]] = ()) -> str:
    """The real path to write for ``path`` (symbolic links followed), or an :class:`OutputError`."""
    name = os.fspath(path)
    if not name:
        raise OutputError(name, "the output path is empty; expected a file name")
    if name.endswith(os.sep) or os.path.isdir(name):
        raise OutputError(name, "it is a directory; expected a file name")
    if _special(name):  # a device, FIFO or /dev/stdout (also through /proc/self/fd): written as it is
        return name
    target = os.path.realpath(name)
    directory = os.path.dirname(target) or "."
    if not os.path.exists(directory):
        if os.path.islink(name):
            raise OutputError(
                name,
                f"it is a symbolic link to {shown(os.readlink(name))}, whose directory "
                f"{shown(directory)} does not exist",
            )
        missing = os.path.dirname(name) or os.path.dirname(os.path.abspath(name))
        raise OutputError(name, f"the directory {shown(missing)} does not exist")
    if not os.path.isdir(directory):
        raise OutputError(name, f"{shown(directory)} is not a directory")
    try:
        limit = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    size = len(os.fsencode(os.path.basename(target)))
    if size > limit:
        raise OutputError(name, f"the file name is {size} bytes long; the file system allows at most {limit}")
    if os.path.exists(target):
        for source in inputs:
            try:
                same = os.path.samefile(target, source)
            except (OSError, ValueError):
                continue
            if same:
                raise OutputError(name, f"it is the input {shown(os.fspath(source))}; choose another output file")
    return target


def check_outputs(
    outputs: Sequence[str | os.PathLike[str] | None], inputs: Sequence[str | os.PathLike[str]] = ()
) -> None:
    """:func:`check_output` for each of a command's outputs (None: not given), no two the same file."""
    seen: dict[str, str] = {}
    for path in outputs:
        if path is None:
            continue
        name = os.fspath(path)
        target = check_output(name, inputs)
        key = target if not _special(name) else os.path.realpath(name)
        if key in seen:
            raise OutputError(
                name, f"it is also the output {shown(seen[key])}; expected a different file for each output"
            )
        seen[key] = name


def _special(name: str) -> bool:
    """Whether ``name`` exists and is not a regular file (a device, FIFO, socket, /dev/stdout)."""
    try:
        mode = os.stat(name).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _open_special(name: str, binary: bool) -> IO[Any]:
    """A device or FIFO opened for writing; a FIFO must have a reader already (never blocks)."""
    try:
        fd = (
            os.open(name, os.O_WRONLY | os.O_NONBLOCK)
            if stat.S_ISFIFO(os.stat(name).st_mode)
            else os.open(name, os.O_WRONLY)
        )
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(name, "it is a FIFO with no reader; start its reader first") from None
        raise OutputError(name, _reason(exc)) from None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", errors=TEXT_ERRORS)


#: a name read from the command line in a non-UTF-8 locale holds its undecodable bytes as surrogates: they
#: are written back as the same bytes (a file name in a log is the name the user gave)
TEXT_ERRORS = "surrogateescape"


@contextmanager
def open_output(
    path: str | os.PathLike[str], *, binary: bool = False, inputs: Sequence[str | os.PathLike[str]] = ()
) -> Iterator[IO[Any]]:
    """A file to write ``path`` through: a temporary file in its directory, renamed over ``path`` when the block
    ends normally and removed otherwise; an OSError becomes an :class:`OutputError` naming ``path``."""
    from segeval.executors.interrupt import partial_output

    name = os.fspath(path)
    target = check_output(name, inputs)
    mode = "wb" if binary else "w"
    encoding = None if binary else "utf-8"
    if _special(name):  # a device or FIFO: no rename, written as it is
        try:
            with _open_special(name, binary) as f:
                yield f
        except OSError as exc:
            raise OutputError(name, _reason(exc)) from None
        return
    directory, base = os.path.split(target)
    import tempfile  # here: every command imports this module for its guarded standard output

    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{base[:40]}.", suffix=".part", dir=directory)
    except OSError as exc:
        raise OutputError(name, _reason(exc)) from None
    with partial_output(temporary):
        done = False
        try:
            with os.fdopen(fd, mode, encoding=encoding, errors=None if binary else TEXT_ERRORS) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.chmod(temporary, _mode(target))
            os.replace(temporary, target)
            done = True
        except OSError as exc:
            raise OutputError(name, _reason(exc)) from None
        finally:
            if not done:
                with suppress(OSError):
                    os.unlink(temporary)
    _sync_directory(directory)


def write_output(
    path: str | os.PathLike[str], data: str | bytes, *, inputs: Sequence[str | os.PathLike[str]] = ()
) -> Path:
    """Write ``data`` to ``path`` through :func:`open_output`; return the path."""
    with open_output(path, binary=isinstance(data, bytes), inputs=inputs) as f:
        f.write(data)
    return Path(path)


def _mode(target: str) -> int:
    """The permissions of the file replaced, or of a new file under the current umask."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _sync_directory(directory: str) -> None:
    with suppress(OSError):
        fd = os.open(directory or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class GuardedStdout:
    """Standard output whose write errors are clear: EPIPE raises :class:`OutputClosed` (stop quietly), any
    other OSError an :class:`OutputError`."""

    def __init__(self, stream: IO[str], *, closed: bool = False) -> None:
        self._stream = stream
        self._closed = closed
        self._terminal = False
        with suppress(OSError, ValueError, AttributeError):
            self._terminal = stream.isatty()

    def write(self, text: str) -> int:
        if self._closed:
            raise OutputError(
                "standard output",
                "it is closed (>&-); expected somewhere to write the results (a file, a pipe or a terminal)",
            )
        if self._terminal:  # a terminal acts on control characters; files and pipes keep the bytes
            from segeval.reports.escaping import terminal

            text = terminal(text)
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise _failure(exc) from None

    @property
    def was_closed(self) -> bool:
        return self._closed

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise _failure(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def announce_written(path: str | os.PathLike[str]) -> None:
    """The name of an output file just written, on standard output (unless it was closed, ``>&-``)."""
    if not getattr(sys.stdout, "was_closed", False):
        print(os.fspath(path))


def _failure(exc: OSError) -> Exception:
    silence_stdout()
    if exc.errno == errno.EPIPE:
        return OutputClosed()
    return OutputError("standard output", _reason(exc))


def silence_stdout() -> None:
    """Point the standard output's descriptor at /dev/null: what is still buffered goes nowhere instead of
    failing again at exit."""
    with suppress(OSError, ValueError, AttributeError):
        silence(sys.__stdout__.fileno() if sys.__stdout__ is not None else -1)


def silence(fd: int) -> None:
    """Point descriptor ``fd`` (if any) at /dev/null."""
    if fd >= 0:
        with suppress(OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
