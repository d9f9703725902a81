"""Cross-field checks on freshly read qrels and runs (vectorised; errors cite the line)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.errors import InputError
from segeval.read import source_line


def _fail(df: pd.DataFrame, position: int, problem: str) -> InputError:
    path = str(df.attrs.get("path", "<data>"))
    number = int(df["line"].to_numpy()[position])
    return InputError(path, problem, line=number, text=source_line(path, number) if path != "<data>" else None)


def _check_times(df: pd.DataFrame) -> None:
    start = df["start"].to_numpy()
    end = df["end"].to_numpy()
    bad = np.flatnonzero(end < start)
    if len(bad):
        i = int(bad[0])
        raise _fail(df, i, f"the end time ({end[i]:g} s) is earlier than the start time ({start[i]:g} s); "
                           f"expected end >= start")
    bad = np.flatnonzero(start < 0)
    if len(bad):
        raise _fail(df, int(bad[0]), "the start time is negative; expected a time >= 0")


def check_unique_documents(run: pd.DataFrame, query_codes: npt.NDArray[np.int64],
                           item_codes: npt.NDArray[np.int64]) -> None:
    """Each document at most once per query in a document run (as trec_eval); codes identify the
    run rows' query and item."""
    pair = query_codes.astype(np.int64) * (int(item_codes.max(initial=0)) + 1) + item_codes
    dup = np.flatnonzero(pd.Series(pair).duplicated().to_numpy())
    if len(dup):
        i = int(dup[0])
        first = int(np.flatnonzero(pair == pair[i])[0])
        raise _fail(run, i, f"document '{run['item'].iat[i]}' appears again for query '{run['query'].iat[i]}' "
                            f"(first on line {int(run['line'].to_numpy()[first])}); expected each document once "
                            f"per query")


def validate_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """Check qrels values beyond syntax: end >= start >= 0."""
    _check_times(qrels)
    return qrels


def is_documents(df: pd.DataFrame) -> bool:
    """True for document qrels or runs (no times), False for segments."""
    return bool(np.isnan(df["start"].to_numpy(dtype=np.float64)).all())


def validate_run(run: pd.DataFrame) -> pd.DataFrame:
    """Check run values beyond syntax.

    Segments: end >= start >= 0 and integer rank >= 1.  Documents: each docno at
    most once per query (as trec_eval); the rank column is not used for them.
    """
    if is_documents(run):
        return run  # once per query: checked by check_unique_documents, on the codes prepare makes
    _check_times(run)
    rank = run["rank"].to_numpy()
    bad = np.flatnonzero(rank < 1)
    if len(bad):
        i = int(bad[0])
        raise _fail(run, i, f"the rank is {rank[i]}; expected an integer rank >= 1")
    return run
