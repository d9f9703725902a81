"""Select the evaluated queries, order each query's results, and index both sides (the policies: parameters
as :class:`segeval.core.settings.Settings` names them; equal scores by item id in code-point order)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.adapters.exact import listed_twice
from segeval.core.arrays import FloatArray, IntArray
from segeval.core.domains import COUNT
from segeval.core.errors import check_choice
from segeval.core.ordering import listed_order, name_ranks, score_order
from segeval.core.prepared import Prepared, assemble, chosen_queries, first_results
from segeval.core.settings import DEFAULTS, MISSING_QUERIES, ORDERS
from segeval.readers.tokenizer import category_bytes
from segeval.readers.validate import check_kinds, check_unique_documents, id_codes, is_documents

#: columns carried into the evaluation; videos and queries become integer codes
RUN_COLUMNS = ("start", "end", "rank", "score", "line", "decision")  # decision: STD list runs only
#: stratum: stratified qrels only; subtopic: subtopic qrels only (read for the diversity measures)
QRELS_COLUMNS = ("start", "end", "rel", "line", "stratum", "subtopic")
_OPTIONAL = ("stratum", "subtopic")


def has_duplicates(query_codes: IntArray, item_codes: IntArray, chosen: IntArray, gid: IntArray) -> bool:
    """Whether a (query, item) pair occurs twice in the run: among the evaluated queries' rows (whose
    group ids ``gid`` are given) or among the other rows."""
    if len(gid) and int(np.bincount(gid).max()) > 1:
        return True
    other = np.flatnonzero(chosen < 0)
    return bool(len(listed_twice(query_codes[other], item_codes[other])[0]))


def _joint_codes(
    run_items: pd.Series, qrels_items: pd.Series
) -> tuple[IntArray, IntArray, npt.NDArray[np.object_]] | None:
    """(run codes, qrels codes, names) of the items of both sides, the run's codes in code-point order of its
    ids, when the run's column comes from the fast reader (its sorted UTF-8 tokens known); else None."""
    if not isinstance(run_items.dtype, pd.CategoricalDtype):
        return None
    run_cats = run_items.cat.categories
    run_tokens = category_bytes(run_cats)
    if run_tokens is None:
        return None
    categorical = isinstance(qrels_items.dtype, pd.CategoricalDtype)
    qrels_tokens = category_bytes(qrels_items.cat.categories) if categorical else None
    if qrels_tokens is not None:
        qrels_codes = np.asarray(qrels_items.cat.codes, dtype=np.int64)
        qrels_names = np.asarray(qrels_items.cat.categories, dtype=object)
    else:  # plain strings (or categories made elsewhere, e.g. unpickled): encode them
        qrels_codes, qrels_names = id_codes(qrels_items)
        qrels_tokens = _utf8_tokens(qrels_names)
        if qrels_tokens is None or (qrels_codes < 0).any():
            return None
    width = max(run_tokens.dtype.itemsize, qrels_tokens.dtype.itemsize)
    run_tokens, qrels_tokens = run_tokens.astype(f"S{width}"), qrels_tokens.astype(f"S{width}")
    at = np.searchsorted(run_tokens, qrels_tokens)
    found = at < len(run_tokens)
    found[found] = run_tokens[at[found]] == qrels_tokens[found]
    extra = np.flatnonzero(~found)  # qrels items the run does not have: codes after the run's
    at[extra] = len(run_tokens) + np.arange(len(extra))
    names = np.concatenate([np.asarray(run_cats, dtype=object), qrels_names[extra]])
    return np.asarray(run_items.cat.codes, dtype=np.int64), at.astype(np.int64)[qrels_codes], names


def _utf8_tokens(names: npt.NDArray[np.object_]) -> npt.NDArray[np.bytes_] | None:
    """Strings as fixed-width UTF-8 bytes; None when one is not a string or holds a NUL (which
    fixed-width bytes cannot keep)."""
    try:
        encoded = [name.encode("utf-8") for name in names.tolist()]
    except (AttributeError, UnicodeEncodeError):
        return None
    if any(b"\x00" in token for token in encoded):
        return None
    return np.array(encoded, dtype=f"S{max((len(t) for t in encoded), default=1) or 1}")


def prepare(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    *,
    queries: Sequence[str] | None = None,
    order: str | None = None,
    relevance_level: int = DEFAULTS.relevance_level,
    missing_queries: str = DEFAULTS.missing_queries,
    max_results: int | None = None,
) -> Prepared:
    """Select queries, order the run (``order`` None: the run kind's default) and index both sides by
    (query, item)."""
    documents = len(run) > 0 and is_documents(run)
    order = DEFAULTS.order_for(documents) if order is None else order
    check_choice("order", order, ORDERS)
    check_choice("missing_queries", missing_queries, MISSING_QUERIES)
    if max_results is not None:
        COUNT.check("max_results", max_results)
    run_raw, run_names = id_codes(run["query"])
    qrels_raw, qrels_names = id_codes(qrels["query"])
    chosen = chosen_queries(set(qrels_names.tolist()), set(run_names.tolist()), queries, missing_queries)
    if len(run):
        check_kinds(qrels, documents, run.attrs.get("path"), run.attrs.get("format"))
    code_of = {q: i for i, q in enumerate(chosen)}
    run_qcode, qrels_qcode = query_codes(run_raw, run_names, code_of), query_codes(qrels_raw, qrels_names, code_of)
    run_icode, qrels_icode, item_names, sorted_items = _item_codes(run, qrels, documents)
    # each document once per query: checked on the group ids below when they cover every row of a query
    deferred = sorted_items and max_results is None
    if documents and not deferred:
        check_unique_documents(run, run_raw, run_icode)
    items = run["item"].to_numpy(dtype=object)
    tie_key = run_icode.__getitem__ if sorted_items else lambda at: name_ranks(items[at])
    score, rank = run["score"].to_numpy(dtype=np.float64), run["rank"].to_numpy()
    rows = ranked_rows(run_qcode, score, rank, tie_key, len(chosen), order, max_results)
    r = {
        **{c: run[c].to_numpy()[rows] for c in RUN_COLUMNS if c in run or c != "decision"},
        "icode": run_icode[rows],
        "qcode": run_qcode[rows],
    }
    keep_q = np.flatnonzero(qrels_qcode >= 0)
    q = {
        **{c: qrels_values(qrels, c)[keep_q] for c in QRELS_COLUMNS if c in qrels or c not in _OPTIONAL},
        "icode": qrels_icode[keep_q],
        "qcode": qrels_qcode[keep_q],
    }
    data = assemble(chosen, item_names, r, q, relevance_level)
    if deferred and has_duplicates(run_raw, run_icode, run_qcode, data.run_columns["gid"]):
        check_unique_documents(run, run_raw, run_icode)  # raises, naming the first duplicate
    return data


def qrels_values(qrels: pd.DataFrame, column: str) -> npt.NDArray[Any]:
    """A qrels column's values; subtopics as their numbers (the first line of each over the whole qrels)."""
    if column != "subtopic":
        return qrels[column].to_numpy()
    values = qrels[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        return np.asarray(values.cat.codes, dtype=np.int64)
    return pd.factorize(values.to_numpy(dtype=object))[0].astype(np.int64)


def query_codes(raw: IntArray, names: Sequence[str] | npt.NDArray[np.object_], code_of: dict[str, int]) -> IntArray:
    """Each row's code among the evaluated queries (-1: not evaluated), from its raw code in ``names``."""
    lookup = np.array([code_of.get(name, -1) for name in names], dtype=np.int64)
    return lookup[raw] if len(lookup) else np.zeros(len(raw), dtype=np.int64)


def _item_codes(
    run: pd.DataFrame, qrels: pd.DataFrame, documents: bool
) -> tuple[IntArray, IntArray, npt.NDArray[np.object_], bool]:
    """(run codes, qrels codes, names) of the items of both sides, and whether the run's codes are in code-point
    order of its ids (:func:`_joint_codes`)."""
    joint = _joint_codes(run["item"], qrels["item"]) if documents else None
    if joint is not None:
        return (*joint, True)
    item_codes, item_names = pd.factorize(
        np.concatenate([run["item"].to_numpy(dtype=object), qrels["item"].to_numpy(dtype=object)])
    )
    return item_codes[: len(run)], item_codes[len(run) :], np.asarray(item_names, dtype=object), False


def ranked_rows(
    qcode: IntArray,
    score: FloatArray,
    rank: IntArray | None,
    tie_key: Callable[[IntArray], IntArray],
    n_q: int,
    order: str,
    max_results: int | None,
) -> IntArray:
    """The evaluated queries' rows (``qcode`` >= 0) ordered within each query by the ``order`` policy, at most
    ``max_results`` each; ``tie_key(rows)``: integer keys of those rows in code-point order of their ids."""
    keep = np.flatnonzero(qcode >= 0)
    if order != "score":
        rows = listed_order(keep, qcode, rank if order == "rank" else None)
    elif len(keep) == len(qcode):  # every row evaluated: no copies
        rows = score_order(qcode, score, n_q, tie_key)
    else:
        rows = keep[score_order(qcode[keep], score[keep], n_q, lambda at: tie_key(keep[at]))]
    return first_results(rows, qcode, n_q, max_results)
