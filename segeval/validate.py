"""Cross-field checks on freshly read qrels and runs (vectorised; errors cite the line).

Each check raises the first problem, or, given ``on_error``, reports every problem to
it and returns the frame without the offending rows (``--lenient`` and ``check``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.errors import InputError
from segeval.read import source_line

OnError = Callable[[InputError], None]


def _error(df: pd.DataFrame, position: int, problem: str, kind: str) -> InputError:
    path = str(df.attrs.get("path", "<data>"))
    number = int(df["line"].to_numpy()[position])
    return InputError(path, problem, line=number, text=source_line(path, number) if path != "<data>" else None,
                      kind=kind)


def _apply(df: pd.DataFrame, problems: list[tuple[int, str, str]], on_error: OnError | None) -> pd.DataFrame:
    """Raise the first problem, or report all and drop their rows."""
    if not problems:
        return df
    problems.sort()
    if on_error is None:
        position, problem, kind = problems[0]
        raise _error(df, position, problem, kind)
    for position, problem, kind in problems:
        on_error(_error(df, position, problem, kind))
    keep = np.ones(len(df), dtype=bool)
    keep[[p for p, _, _ in problems]] = False
    out = df.loc[keep].reset_index(drop=True)
    out.attrs = dict(df.attrs)
    return out


def _time_problems(df: pd.DataFrame) -> list[tuple[int, str, str]]:
    start = df["start"].to_numpy()
    end = df["end"].to_numpy()
    found = [(int(i), f"the end time ({end[i]:g} s) is earlier than the start time ({start[i]:g} s); expected end "
                      f">= start", "end before start") for i in np.flatnonzero(end < start)]
    found += [(int(i), "the start time is negative; expected a time >= 0", "negative time")
              for i in np.flatnonzero(start < 0)]
    return found


def is_documents(df: pd.DataFrame) -> bool:
    """True for document qrels or runs (no times), False for segments."""
    return bool(np.isnan(df["start"].to_numpy(dtype=np.float64)).all())


def validate_qrels(qrels: pd.DataFrame, on_error: OnError | None = None) -> pd.DataFrame:
    """Check qrels values beyond syntax: end >= start >= 0."""
    return _apply(qrels, _time_problems(qrels), on_error)


def validate_run(run: pd.DataFrame, on_error: OnError | None = None) -> pd.DataFrame:
    """Check run values beyond syntax.

    Segments: end >= start >= 0 and integer rank >= 1.  Documents: each docno at
    most once per query (as trec_eval); the rank column is not used for them.
    """
    if is_documents(run):
        if on_error is None:
            return run  # once per query: checked by check_unique_documents, on the codes prepare makes
        query_codes = pd.factorize(run["query"].to_numpy(dtype=object))[0]
        item_codes = pd.factorize(run["item"].to_numpy(dtype=object))[0]
        return _apply(run, _duplicate_problems(run, query_codes, item_codes), on_error)
    problems = _time_problems(run)
    rank = run["rank"].to_numpy()
    problems += [(int(i), f"the rank is {rank[i]}; expected an integer rank >= 1", "rank below 1")
                 for i in np.flatnonzero(rank < 1)]
    return _apply(run, problems, on_error)


def _duplicate_problems(run: pd.DataFrame, query_codes: npt.NDArray[np.int64],
                        item_codes: npt.NDArray[np.int64]) -> list[tuple[int, str, str]]:
    pair = query_codes.astype(np.int64) * (int(item_codes.max(initial=0)) + 1) + item_codes
    dup = np.flatnonzero(pd.Series(pair).duplicated().to_numpy())
    if len(dup) == 0:
        return []
    out = []
    first_of: dict[int, int] = {}
    for i in np.flatnonzero(pd.Series(pair).duplicated(keep=False).to_numpy()).tolist():
        first_of.setdefault(int(pair[i]), i)
    lines = run["line"].to_numpy()
    for i in dup.tolist():
        out.append((i, f"document '{run['item'].iat[i]}' appears again for query '{run['query'].iat[i]}' (first on "
                       f"line {int(lines[first_of[int(pair[i])]])}); expected each document once per query",
                    "duplicate document"))
    return out


def check_unique_documents(run: pd.DataFrame, query_codes: npt.NDArray[np.int64],
                           item_codes: npt.NDArray[np.int64]) -> None:
    """Each document at most once per query in a document run (as trec_eval); codes identify the
    run rows' query and item."""
    _apply(run, _duplicate_problems(run, query_codes, item_codes), None)
