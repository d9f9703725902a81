"""``python -m tests.support.held POINT MARK ARGS...``: ``segeval ARGS``, waiting (600 s) at the point ``POINT`` of
its work after appending the process id to the file ``MARK``, so that a test can signal a process at work.

The points are patched in here, around segeval's own functions, so segeval holds no test hook:
``lane`` (the byte scanner's lanes, once their files are matched), ``evaluate`` (each run in a worker),
``write`` (an output written, before it replaces its file), ``svm`` (before the classifier is fitted).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

#: each point's functions, as (module, attribute path, hold after the call instead of before)
POINTS: dict[str, list[tuple[str, str, bool]]] = {
    "lane": [("segeval.readers.scanner_documents", "exact_batch", False),
             ("segeval.readers.scanner_segments", "Evaluator.part", False)],
    "evaluate": [("segeval.executors.processes", "evaluate_one", False)],
    "write": [("os", "fsync", False)],
    "svm": [("sklearn.svm", "SVC.fit", False)],
}


def hold(mark: str) -> None:
    with open(mark, "a", encoding="ascii") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(600)  # far beyond any test's wait: ending early means a signal stopped it


def held(function: Callable[..., Any], mark: str, after: bool) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not after:
            hold(mark)
        out = function(*args, **kwargs)
        if after:
            hold(mark)
        return out

    return wrapper


def main(argv: list[str]) -> None:
    point, mark, args = argv[0], argv[1], argv[2:]
    for module_name, path, after in POINTS[point]:
        owner: Any = importlib.import_module(module_name)
        *parents, name = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        setattr(owner, name, held(getattr(owner, name), mark, after))
    from segeval.cli import entry

    sys.argv = ["segeval", *args]
    entry()


if __name__ == "__main__":
    main(sys.argv[1:])
