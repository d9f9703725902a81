"""The lane of ``segeval me13sh``: MediaEval qrels and a linking or search run, without pandas.

The usual job (regular files, M.S times, every query) goes from the files' bytes
(:mod:`segeval.io.scan`) to query and video codes, the rank order and
:func:`segeval.prepared.assemble`; the adapters, the measures and the report are the usual path's.
Whenever the job or the bytes are anything else (a token the scanner does not keep, a time that is
not M.S, a line whose end is before its start, a rank below 1, a segment judged twice, no query in
both files), :func:`me13sh_evaluation` returns None before printing anything, and the usual path
reads the files and decides, with its messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from segeval.engines.lanebatch import doc_keys, token_codes
from segeval.errors import SegevalError
from segeval.io.files import read_bytes
from segeval.io.formats import MEDIAEVAL_LINKING_RUN, MEDIAEVAL_QRELS, MEDIAEVAL_SEARCH_RUN, LineFormat
from segeval.io.scan import Scanned, Words, scan_format
from segeval.ordering import listed_order
from segeval.prepared import IntArray, Prepared, assemble, chosen_queries, first_occurrences, judged_twice
from segeval.settings import DEFAULTS

if TYPE_CHECKING:
    from segeval.adapt.base import Adapter
    from segeval.evaluation import Evaluation

#: the run's line format of each ``--kind``
RUN_FORMATS = {"linking": MEDIAEVAL_LINKING_RUN, "search": MEDIAEVAL_SEARCH_RUN}
#: the text fields the lane keeps (the run tag is only counted as a field)
TEXT = ("query", "item")


def me13sh_evaluation(qrels_path: str, run_path: str, kind: str, measures: Sequence[str],
                      adapters: Sequence[Adapter]) -> Evaluation | None:
    """The :class:`~segeval.evaluation.Evaluation` of ``segeval me13sh`` on MediaEval qrels and a run of
    ``kind`` (linking or search) with M.S times, every query, or None when the usual path must decide."""
    from segeval.evaluation import Evaluation, summaries
    from segeval.measures.compute import compute, requests
    from segeval.notes import value_notes

    try:
        q = _scan(read_bytes(qrels_path), MEDIAEVAL_QRELS)
        r = None if q is None or kind not in RUN_FORMATS else _scan(read_bytes(run_path), RUN_FORMATS[kind])
    except (SegevalError, OSError, MemoryError):  # unreadable, too big, not gzip ...: the usual path explains
        return None
    if q is None or r is None:
        return None
    made = _prepared(q, r)
    if made is None:
        return None
    data, unevaluated = made
    reqs = requests(list(measures), adapters)
    used = {x.adapter.spec: x.adapter for x in reqs if x.adapter is not None}
    per_query = compute(data, {name: adapter.adapt(data) for name, adapter in used.items()}, reqs)
    return Evaluation(data.queries, reqs, per_query, summaries(reqs, per_query),
                      value_notes(data.queries, reqs, per_query), unevaluated)


def _scan(data: bytes, fmt: LineFormat) -> Scanned | None:
    """The file's lines of ``fmt`` as :func:`~segeval.io.scan.scan_format` reads them, keyed by field name:
    query and video as text, the fields of kind time and int as numbers, those of kind float checked.  A
    format whose last fields may be absent (a search run's tag) has as many as the first data line has (a
    file with both: the usual path)."""
    n_fields = len(fmt.fields)
    if fmt.optional:
        first = next((line.split() for line in data[:65536].split(b"\n") if line.strip()), [])
        n_fields = len(first) if fmt.accepts(len(first)) else n_fields
    fields = fmt.fields[:n_fields]

    def of_kind(kind: str) -> tuple[str, ...]:
        return tuple(f.name for f in fields if f.kind == kind)

    return scan_format(data, fmt, n_fields=n_fields, text=TEXT, times=of_kind("time"), ints=of_kind("int"),
                       checked_floats=of_kind("float"))


def _prepared(q: Scanned, r: Scanned) -> tuple[Prepared, list[str]] | None:
    """The :class:`Prepared` of the scanned files (rank order, every query in both) and the qrels queries
    not evaluated; None when the usual path would refuse the files or has a note to give."""
    rank = r.ints["rank"]
    q_start, q_end, r_start, r_end = q.ints["start"], q.ints["end"], r.ints["start"], r.ints["end"]
    if bool((q_end < q_start).any()) or bool((r_end < r_start).any()) or bool((rank < 1).any()):
        return None  # validate_qrels and validate_run refuse them
    qrels_raw, qrels_tokens = token_codes(q.text["query"])
    run_raw, run_tokens = token_codes(r.text["query"])
    qrels_names = [t.decode("utf-8") for t in qrels_tokens]
    run_names = [t.decode("utf-8") for t in run_tokens]
    chosen = chosen_queries(set(qrels_names), set(run_names), None, DEFAULTS.missing_queries)
    if not chosen:
        return None  # the usual path notes it
    run_icode, qrels_icode, items = _item_codes(r.text["item"], q.text["item"])
    if judged_twice(qrels_raw, qrels_icode, q_start, q_end):
        return None
    code_of = {name: i for i, name in enumerate(chosen)}
    run_qcode = np.asarray([code_of.get(n, -1) for n in run_names], dtype=np.int64)[run_raw]
    qrels_qcode = np.asarray([code_of.get(n, -1) for n in qrels_names], dtype=np.int64)[qrels_raw]
    rows = listed_order(np.flatnonzero(run_qcode >= 0), run_qcode, rank)
    keep = np.flatnonzero(qrels_qcode >= 0)
    run = {"start": r_start[rows].astype(np.float64), "end": r_end[rows].astype(np.float64), "rank": rank[rows],
           "icode": run_icode[rows], "qcode": run_qcode[rows]}
    qrels = {"start": q_start[keep].astype(np.float64), "end": q_end[keep].astype(np.float64),
             "rel": q.ints["rel"][keep], "icode": qrels_icode[keep], "qcode": qrels_qcode[keep]}
    data = assemble(chosen, items, run, qrels, DEFAULTS.relevance_level)
    return data, sorted(set(qrels_names) - set(chosen))


def _item_codes(run_items: Words, qrels_items: Words) -> tuple[IntArray, IntArray, npt.NDArray[np.object_]]:
    """Codes of the videos of the run then the qrels, in order of first appearance (as ``prepare``
    numbers them), and the videos they index."""
    run_key, qrels_key = doc_keys(run_items, qrels_items)
    keys = np.concatenate([run_key, qrels_key])
    codes = factorize(keys)
    heads = first_occurrences(codes)  # each video's first row, in row order
    renumber = np.empty(len(heads), dtype=np.int64)
    renumber[codes[heads]] = np.arange(len(heads), dtype=np.int64)
    codes = renumber[codes]
    n_run = len(run_key)
    from_run = heads < n_run
    names = np.empty(len(heads), dtype=object)
    names[from_run] = _tokens(run_items, heads[from_run])
    names[~from_run] = _tokens(qrels_items, heads[~from_run] - n_run)
    return codes[:n_run], codes[n_run:], names


def factorize(keys: npt.NDArray[np.uint64]) -> IntArray:
    """Codes 0..k-1 of the k distinct keys (equal codes for equal keys, in no particular order): by a
    hash table twice the size of the input (at most 4M slots); the keys that lose their slot to another
    are sorted."""
    bits = min(max(10, len(keys).bit_length() + 1), 22)
    slot = ((keys * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)).astype(np.intp)
    table = np.zeros(1 << bits, dtype=np.uint64)
    table[slot] = keys  # one of the keys of each slot
    kept = table[slot] == keys
    taken = np.zeros(1 << bits, dtype=bool)
    taken[slot[kept]] = True
    number = np.cumsum(taken) - 1
    codes = number[slot].astype(np.int64)
    lost = np.flatnonzero(~kept)
    if len(lost):
        codes[lost] = int(number[-1]) + 1 + np.unique(keys[lost], return_inverse=True)[1].ravel()
    return codes


def _tokens(words: Words, rows: IntArray) -> list[str]:
    """The tokens of ``rows`` as text (a token's padding NULs dropped)."""
    picked = np.ascontiguousarray(words[rows])
    return [t.decode("utf-8") for t in picked.view(f"S{8 * words.shape[1]}").ravel().tolist()]

