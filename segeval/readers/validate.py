"""Cross-field checks on freshly read qrels and runs: each raises the first problem, or reports every problem
to ``on_error`` and returns the frame without their rows (``--lenient`` and ``check``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.adapters.exact import listed_twice
from segeval.core.arrays import IntArray
from segeval.core.errors import InputError
from segeval.readers.blocks import line_texts
from segeval.readers.line_parser import OnError


def _apply(df: pd.DataFrame, problems: list[tuple[int, str, str]], on_error: OnError | None) -> pd.DataFrame:
    """Raise the first problem, or report all and drop their rows (the file read once for their lines)."""
    if not problems:
        return df
    problems = sorted(problems)[: None if on_error else 1]
    path = str(df.attrs.get("path", "<data>"))
    lines = df["line"].to_numpy()
    numbers = [int(lines[position]) for position, _, _ in problems]
    texts = {} if path.startswith("<") else line_texts(path, numbers)  # "<qrels>", "<run>": tables in memory
    errors = [
        InputError(path, problem, line=n, text=texts.get(n), kind=kind)
        for n, (_, problem, kind) in zip(numbers, problems, strict=True)
    ]
    if on_error is None:
        raise errors[0]
    for error in errors:
        on_error(error)
    keep = np.ones(len(df), dtype=bool)
    keep[[p for p, _, _ in problems]] = False
    out = df.loc[keep].reset_index(drop=True)
    out.attrs = dict(df.attrs)
    return out


def _time_problems(df: pd.DataFrame) -> list[tuple[int, str, str]]:
    start, end = df["start"].to_numpy(), df["end"].to_numpy()
    why = "the end time ({:g} s) is earlier than the start time ({:g} s); expected end >= start"
    found = [(int(i), why.format(end[i], start[i]), "end before start") for i in np.flatnonzero(end < start)]
    negative = "the start time is negative; expected a time >= 0"
    return found + [(int(i), negative, "negative time") for i in np.flatnonzero(start < 0)]


def is_documents(df: pd.DataFrame) -> bool:
    """True for document qrels or runs (no times), False for segments."""
    return bool(np.isnan(df["start"].to_numpy(dtype=np.float64)).all())


def validate_qrels(qrels: pd.DataFrame, on_error: OnError | None = None) -> pd.DataFrame:
    """Check qrels values beyond syntax: end >= start >= 0, one judgement per query and item (docs/input-checks.md)."""
    return _apply(qrels, _time_problems(qrels) + qrels_duplicates(qrels), on_error)


def id_codes(column: pd.Series) -> tuple[IntArray, npt.NDArray[np.object_]]:
    """pd.factorize's codes and distinct values of an id column (a Categorical's own when it uses every category)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = np.asarray(column.cat.codes, dtype=np.int64)
        names = np.asarray(column.cat.categories, dtype=object)
        if len(codes) and codes.min() >= 0 and bool(np.bincount(codes, minlength=len(names)).all()):
            return codes, names
    codes, names = pd.factorize(column.to_numpy(dtype=object))
    return codes.astype(np.int64, copy=False), np.asarray(names, dtype=object)


#: the kind of problem of a (query, item) judged again (``check`` counts them)
DUPLICATE = "duplicate judgement"


def qrels_duplicates(qrels: pd.DataFrame) -> list[tuple[int, str, str]]:
    """Qrels rows that judge a (query, item) pair again: position, problem, kind."""
    documents = is_documents(qrels)
    subtopics = "subtopic" in qrels.columns  # subtopic qrels: one judgement per query, subtopic and document
    extra = ("subtopic",) if subtopics else () if documents else ("start", "end")  # segments: times too
    again, first = _repeated(qrels, extra)
    path = str(qrels.attrs.get("path", "<data>"))
    lines, rel = qrels["line"].to_numpy(), qrels["rel"].to_numpy()
    query, item, start, end = (qrels[c].to_numpy() for c in ("query", "item", "start", "end"))  # once, not per row
    once = f"query and {'document' if documents else 'segment'} (trec_eval refuses duplicates too)"
    once = "query, subtopic and document" if subtopics else once
    out = []
    for i, j in zip(again.tolist(), first.tolist(), strict=True):
        what = f"document '{item[i]}'" if documents else f"video '{item[i]}', segment {start[i]:g}-{end[i]:g} s"
        what = f"subtopic '{qrels['subtopic'].iat[i]}', {what}" if subtopics else what
        grades = f"the same grade {rel[i]}" if rel[i] == rel[j] else f"grade {rel[i]} (first {rel[j]})"
        problem = f"query '{query[i]}', {what} is judged again, with {grades}; first judged on {path}, line {lines[j]}"
        out.append((i, f"{problem}; expected one judgement per {once}", DUPLICATE))
    return out


def _repeated(df: pd.DataFrame, extra: tuple[str, ...] = ()) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """:func:`segeval.adapters.exact.listed_twice` of the rows' (query, item, ``extra`` columns)."""
    columns = [id_codes(df["query"])[0], id_codes(df["item"])[0]]
    columns += [pd.factorize(df[c].to_numpy())[0] for c in extra]
    return listed_twice(*columns)


def check_kinds(
    qrels: pd.DataFrame, run_documents: bool, run_path: str | None = None, run_format: str | None = None
) -> None:
    """Raise an InputError when one of the qrels and the run holds documents and the other segments."""
    if len(qrels) == 0 or is_documents(qrels) == run_documents:
        return
    qrels_path = str(qrels.attrs.get("path", "the qrels"))
    found = str(qrels.attrs.get("format", "qrels"))
    qrels_format = {"groups": "ground-truth groups"}.get(found, found)
    kind = {True: "documents, no times", False: "video segments, with times"}
    raise InputError(
        run_path or "the run",
        f"is a {run_format or 'run'} ({kind[run_documents]}), but {qrels_path} holds "
        f"{qrels_format} ({kind[not run_documents]}); expected a run and qrels of the same kind: "
        f"TREC runs with TREC qrels, MediaEval runs with MediaEval qrels",
        kind="kind mismatch",
    )


def validate_run(run: pd.DataFrame, on_error: OnError | None = None) -> pd.DataFrame:
    """Check run values beyond syntax: segments end >= start >= 0 and rank >= 1 (one listed twice is kept, as
    the MediaEval reference keeps it); documents each at most once per query (as trec_eval)."""
    if is_documents(run):
        if on_error is None:
            return run  # once per query: checked by check_unique_documents, on the codes prepare makes
        return _apply(run, _duplicate_problems(run), on_error)
    problems = _time_problems(run)
    rank = run["rank"].to_numpy()
    problems += [
        (int(i), f"the rank is {rank[i]}; expected an integer rank >= 1", "rank below 1")
        for i in np.flatnonzero(rank < 1)
    ]
    return _apply(run, problems, on_error)


def segments_listed_twice(run: pd.DataFrame) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The segment run's rows that list a (query, video, start, end) again, and the first row listing it."""
    return _repeated(run, ("start", "end"))


def _duplicate_problems(run: pd.DataFrame) -> list[tuple[int, str, str]]:
    again, first = _repeated(run)
    lines, query, item = run["line"].to_numpy(), run["query"].to_numpy(), run["item"].to_numpy()  # once, not per row
    why = "document '{}' appears again for query '{}' (first on line {}); expected each document once per query"
    pairs = zip(again.tolist(), first.tolist(), strict=True)
    return [(i, why.format(item[i], query[i], int(lines[j])), "duplicate document") for i, j in pairs]


def check_unique_documents(run: pd.DataFrame, query_codes: IntArray, item_codes: IntArray) -> None:
    """Each document at most once per query in a document run (as trec_eval), given each row's codes."""
    again, first = listed_twice(query_codes, item_codes)
    if len(again):
        rows = run.take(np.sort(np.concatenate([again, first])))
        _apply(rows, _duplicate_problems(rows), None)


def check_key_grades(key: pd.DataFrame) -> None:
    """A trial key (``qbe``): every grade 1 (a target) or 0 (a non-target), else an InputError at the first other."""
    other = np.flatnonzero(~np.isin(key["rel"].to_numpy(), (0, 1)))
    if len(other):
        at = int(other[0])
        _apply(
            key, [(at, f"has grade {key['rel'].iloc[at]}; expected 1 (a target) or 0 (a non-target)", "grade")], None
        )


def check_trials(qrels: pd.DataFrame, run: pd.DataFrame) -> None:
    """For the trial measures: every (query, utterance) the run scores is a trial of the key, else an InputError."""
    key = pd.MultiIndex.from_arrays([qrels["query"].astype(str), qrels["item"].astype(str)])
    pairs = pd.MultiIndex.from_arrays([run["query"].astype(str), run["item"].astype(str)])
    outside = np.flatnonzero(~pairs.isin(key))
    if len(outside):
        at = int(outside[np.argmin(run["line"].to_numpy()[outside])])
        query, item = str(run["query"].iloc[at]), str(run["item"].iloc[at])
        problem = (
            f"query {query} in utterance {item} is not a trial of the key; expected only the key's "
            "(query, utterance) pairs"
        )
        _apply(run, [(at, problem, "unknown trial")], None)
