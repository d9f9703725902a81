"""Stopping on SIGINT, SIGTERM and SIGHUP: promptly, with no worker left, no partial output and no traceback."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from types import FrameType
from typing import Any

#: the signals that stop segeval, and their names in the message
SIGHUP = getattr(signal, "SIGHUP", None)
SIGNALS = {s: s.name for s in (signal.SIGINT, signal.SIGTERM, SIGHUP) if s is not None}
#: the process that forks workers, recorded before each fork (a worker whose parent is gone ends)
_parent = [os.getpid()]
_lock = threading.Lock()  # held while the set of partial outputs changes; taken for good when stopping
_partial: set[str] = set()
#: whether :func:`install` routes the signals of this process
installed = False
_stopping = threading.Event()
_on_stop: set[Callable[[], object]] = set()


def install() -> None:
    """Route SIGINT, SIGTERM and SIGHUP to the watcher thread (idempotent; POSIX only, else a no-op)."""
    global installed
    if installed or not hasattr(os, "register_at_fork") or threading.current_thread() is not threading.main_thread():
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    for fd in (read_end, write_end):
        os.set_inheritable(fd, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    for signum in SIGNALS:
        if signum != SIGHUP or signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _ignore)  # a Python-level handler makes the wakeup fd receive the signal number
    os.register_at_fork(before=_record_parent, after_in_child=worker_signals)
    threading.Thread(target=_watch, args=(read_end,), name="segeval-signals", daemon=True).start()
    installed = True


def _record_parent() -> None:
    _parent[0] = os.getpid()


def die_with_parent() -> None:
    """In a worker process: SIGKILL when the parent ends (Linux's parent-death signal), or now if it has."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the parent's stop() ends its descendants
        return
    if os.getppid() != _parent[0]:
        os._exit(1)


def worker_signals() -> None:
    """In a worker process: ignore SIGINT, default SIGTERM and SIGHUP, and die with the parent."""
    if threading.current_thread() is not threading.main_thread():
        return
    die_with_parent()
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if SIGHUP is not None and signal.getsignal(SIGHUP) is not signal.SIG_IGN:  # nohup: still ignored
            signal.signal(SIGHUP, signal.SIG_DFL)
    except (ValueError, OSError):  # not the main thread of the interpreter
        pass


def _ignore(signum: int, frame: FrameType | None) -> None:
    """The main thread's handler: nothing; the watcher thread stops the process."""


def _watch(fd: int) -> None:
    while True:
        try:
            data = os.read(fd, 64)
        except InterruptedError:
            continue
        if not data:
            return
        for signum in data:
            if signum in SIGNALS:
                stop(signum)


@contextmanager
def _registered(items: set[Any], item: Any) -> Iterator[None]:
    """``item`` in ``items`` (under the lock) within the block."""
    with _lock:
        items.add(item)
    try:
        yield
    finally:
        with _lock:
            items.discard(item)


def partial_output(path: str) -> AbstractContextManager[None]:
    """Mark ``path`` as an output being written: removed if the process is stopped meanwhile."""
    return _registered(_partial, path)


def on_stop(callback: Callable[[], object]) -> AbstractContextManager[None]:
    """Call ``callback`` before the descendants are ended if the process is stopped within the block."""
    return _registered(_on_stop, callback)


def stop(signum: int) -> None:
    """End the descendants, remove partial outputs, say so in one line and exit with 128 + ``signum``."""
    _stopping.set()
    try:  # what other threads print while the process ends (a Dask scheduler's log) is not shown
        stderr = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
    except OSError:
        stderr = 2
    _lock.acquire(timeout=1.0)  # never released: no output is started or completed after this
    for callback in [_no_new_tracker, *_on_stop]:
        with suppress(BaseException):  # stopping goes on whatever a callback does
            callback()
    for path in list(_partial):
        with suppress(OSError):
            os.unlink(path)
    end_descendants()
    name = SIGNALS.get(signal.Signals(signum), f"signal {signum}")
    with suppress(OSError):
        os.write(stderr, f"segeval: interrupted by {name}; stopped\n".encode())
    os._exit(128 + signum)


def _no_new_tracker() -> None:
    """Keep multiprocessing from starting a new resource tracker when the one it has is ended."""
    import sys

    tracker = sys.modules.get("multiprocessing.resource_tracker")
    if tracker is not None:
        tracker._resource_tracker.ensure_running = lambda: None
        tracker.ensure_running = lambda: None  # type: ignore[attr-defined]


def wait_if_stopping() -> None:
    """Block for good when the process is being stopped (the watcher thread exits it)."""
    if _stopping.is_set():
        threading.Event().wait()


def descendants() -> list[int]:
    """The process ids below this process, children first."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        import multiprocessing

        return [p.pid for p in multiprocessing.active_children() if p.pid is not None]
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (command) ": state, ppid, ...
        if len(fields) > 1 and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    out: list[int] = []
    todo = [os.getpid()]
    while todo:
        found = children.get(todo.pop(0), [])
        out += found
        todo += found
    return out


def end_descendants(timeout: float = 1.0) -> None:
    """SIGKILL every descendant and reap the children until none is left or ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while quiet < 3 and time.monotonic() < deadline:
        pids = descendants()
        quiet = 0 if pids else quiet + 1
        for pid in pids:
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
        with suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:  # reap the ended children
                pass
