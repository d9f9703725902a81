"""Run files given as files, globs or directories: the one expansion (docs/input-checks.md, "Directories and
queries")."""

from __future__ import annotations

import errno
import glob
import os
import stat
from collections.abc import Sequence

from segeval.core.errors import InputError, ParameterError, SegevalError, print_notes
from segeval.core.words import plural
from segeval.readers.files import STDIN

#: what a path that is not a regular file is, by its file type
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


def bad_entry_name(name: str) -> str | None:
    """Why ``name`` cannot name a file of a folder (the folder, its parent, a file below or outside it), or None."""
    if name in ("", ".", ".."):
        return "is empty" if not name else "names a folder, not a file"
    if "\x00" in name:
        return "holds a NUL character"
    if "/" in name or os.sep in name:
        return "holds a '/' (it would name a file below or outside the folder)"
    return None


def regular_file(path: str, expected: str) -> str:
    """``path`` when it is a regular file (also through a symbolic link), else an InputError saying what it is."""
    try:
        mode = os.stat(path).st_mode  # through links
    except OSError as exc:
        if not os.path.lexists(path):
            why = "is missing"
        elif exc.errno == errno.ELOOP:
            why = "is a symbolic link loop"
        elif os.path.islink(path):
            why = "is a broken symbolic link"
        else:
            why = f"cannot be examined ({exc.strerror or exc})"
        raise InputError(path, f"{why}; expected {expected}") from None
    if stat.S_ISREG(mode):
        return path
    link = " through a symbolic link" if os.path.islink(path) else ""
    what = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    raise InputError(path, f"is {what}{link}; expected {expected}")


def directory_files(directory: str) -> list[str]:
    """The run files of ``directory`` (sorted); a note on stderr names each entry skipped and why."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        raise InputError(directory, f"cannot be listed: {exc.strerror or exc}") from None
    found: list[str] = []
    skipped: list[str] = []
    for entry in entries:
        path = os.path.join(directory, entry.name)
        if entry.name.startswith("."):
            skipped.append(f"{entry.name} (hidden)")
            continue
        if os.path.isdir(path):  # through links
            skipped.append(f"{entry.name} (a subdirectory)")
        else:
            found.append(
                regular_file(
                    path, f"a run file in the runs directory {directory} (remove it, or name the runs one by one)"
                )
            )
    if not found:
        raise SegevalError(
            f"no run files in {directory}; expected a directory holding run files (subdirectories and hidden files "
            "are not read)"
        )
    if skipped:
        print_notes(
            f"{directory}: {plural(len(skipped), 'entry', 'entries')} not read: {', '.join(skipped)}", head="note: "
        )
    return found


def expand_runs(specs: Sequence[str]) -> list[str]:
    """Files as given, globs and directories expanded (sorted); each file once, in first-seen order."""
    if list(specs).count(STDIN) > 1:
        raise ParameterError(
            f"The 'runs' parameter may name standard input ('{STDIN}') once. Got it {list(specs).count(STDIN)} times."
        )
    out: list[str] = []
    for spec in specs:
        if spec and os.path.isdir(spec):  # (no OSError: a name too long is refused when read; "" is not ".")
            found = directory_files(spec)
        elif any(c in spec for c in "*?[") and not os.path.exists(spec):
            found = sorted(glob.glob(spec))
            if not found:
                raise ParameterError(
                    f"The 'runs' parameter must name existing files. Got {spec!r}, which matches nothing."
                )
        else:
            found = [spec]
        out += [f for f in found if f not in out]
    return out
