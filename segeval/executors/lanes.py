"""The byte scanner's lanes, without pandas: ``segeval eval`` on plain TREC qrels and run (the run read whole or in
batches), ``segeval me13sh`` on MediaEval qrels and a linking or search run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.core.arrays import FloatArray
from segeval.core.errors import SegevalError
from segeval.core.settings import BATCH_BYTES
from segeval.executors.results import RunResult
from segeval.executors.route import lane_requests
from segeval.readers.blocks import Regrouped, batches, line_blocks, open_blocks, run_starts, whole_queries
from segeval.readers.formats import TREC_QRELS, TREC_RUN
from segeval.readers.scanner import Scanned, Words, scan_format, stacked
from segeval.readers.scanner_documents import LaneQrels, batch_values, query_names, token_codes
from segeval.readers.scanner_segments import GiveUp
from segeval.reports.trec import runid as trec_runid

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from segeval.adapters.base import Adapter
    from segeval.core.evaluation import Evaluation
    from segeval.core.plan import Plan
    from segeval.core.settings import Job
    from segeval.measures.compute import Request

Rows = tuple[Words, Words, FloatArray]  # a run's query tokens, docno tokens and scores


def lane_values(
    qrels_path: str,
    run_path: str,
    job: Job,
    on_read: Callable[[int], object] | None = None,
    chunks: bool = False,
    whole_if_ungrouped: bool = False,
) -> RunResult | None:
    """The lane's :class:`RunResult` of this job, the run read whole or in ``chunks``; None when the usual path must
    decide (a run in chunks not grouped by query: with ``whole_if_ungrouped``, read whole)."""
    reqs = lane_requests(job.measures)
    try:
        q = None if reqs is None else lane_qrels(qrels_path)
        if q is None or reqs is None:
            return None
        if chunks:
            try:
                return _streamed(q, run_path, job, reqs, on_read)
            except Regrouped:
                if not whole_if_ungrouped:
                    return None
        return _whole(q, run_path, job, reqs)
    except (SegevalError, OSError, MemoryError, GiveUp):  # unreadable, too big, not gzip: the usual path explains
        return None


def _whole(q: LaneQrels, run_path: str, job: Job, reqs: list[Request]) -> RunResult | None:
    r = scan_run(line_blocks(run_path, BATCH_BYTES))  # in batches' blocks: the file is never held whole
    if r is None:
        return None
    seen = set(query_names(r.text["query"]))
    got = batch_values(
        r.text.pop("query"), r.text.pop("item"), r.floats.pop("score"), q, reqs, job.settings
    )  # popped: each column is freed once used
    runid = trec_runid([r.last["run"].decode("utf-8")])
    return None if got is None else finish_values(q, *got, seen, reqs, job, runid)


def _streamed(
    q: LaneQrels, run_path: str, job: Job, reqs: list[Request], on_read: Callable[[int], object] | None
) -> RunResult | None:
    """The run read in batches, each evaluated once its queries are over (:class:`Regrouped`: not grouped)."""
    blocks = batches(open_blocks(run_path, on_read=on_read), job.engine.chunk_lines, BATCH_BYTES)
    tag: list[bytes] = []  # trec_eval's runid: the last line's (segeval.reports.trec.runid)
    seen: set[str] = set()
    names: list[str] = []
    values: dict[str, list[Any]] = {x.name: [] for x in reqs}
    for rows, tokens in whole_queries(_scanned(blocks, tag), _query_runs, _cut, _joined):
        seen.update(t.decode("utf-8") for t in tokens)
        got = batch_values(*rows, q, reqs, job.settings)
        if got is None:
            return None
        names += got[0]
        for k, v in got[1].items():
            values[k] += v
    if not tag:
        return None  # no data line: the usual path says so
    return finish_values(q, names, values, seen, reqs, job, trec_runid([tag[0].decode("utf-8")]))


def _scanned(blocks: Iterator[tuple[int, bytes]], tag: list[bytes]) -> Iterator[Rows]:
    for _, data in blocks:
        if not data or data.isspace():  # (no stripped copy of the batch)
            continue  # blank lines only
        r = scan_run(data)
        if r is None:
            raise GiveUp
        tag[:] = [r.last["run"]]
        yield r.text["query"], r.text["item"], r.floats["score"]


def _query_runs(rows: Rows) -> tuple[list[bytes], npt.NDArray[np.intp]]:
    local, tokens = token_codes(rows[0])
    starts = run_starts(local)
    return [tokens[c] for c in local[starts].tolist()], starts


def _joined(parts: list[Rows]) -> Rows:
    if len(parts) == 1:
        return parts[0]
    return stacked([p[0] for p in parts]), stacked([p[1] for p in parts]), stacked([p[2] for p in parts])


def _cut(rows: Rows, start: int, stop: int | None) -> Rows:
    return rows[0][start:stop], rows[1][start:stop], rows[2][start:stop]


def scan_run(data: bytes | Iterable[bytes]) -> Scanned | None:
    """A TREC run's query and docno tokens, scores, and first tag, as the lanes read them (ranks only checked)."""
    return scan_format(
        data, TREC_RUN, text=("query", "item"), floats=("score",), checked_ints=("rank",), first=("run",)
    )


def lane_qrels(path: str) -> LaneQrels | None:
    """Plain TREC qrels ('query 0 docno rel') indexed by query, read in blocks; None when they are anything else."""
    code: dict[bytes, int] = {}
    codes, docs, rels = [], [], []
    for data in line_blocks(path):
        if b"|" in data:
            return None  # ground-truth groups
        if not data or data.isspace():
            continue
        q = scan_format(data, TREC_QRELS, text=("query", "item"), ints=("rel",))
        if q is None:
            return None
        local, tokens = token_codes(q.text["query"])
        codes.append(np.asarray([code.setdefault(t, len(code)) for t in tokens], dtype=np.int32)[local])
        docs.append(q.text["item"])
        rels.append(q.ints["rel"])
    if not codes:
        return None  # no data line
    return LaneQrels.of(stacked(codes), [t.decode("utf-8") for t in code], stacked(docs), stacked(rels))


def finish_values(
    qrels: LaneQrels,
    names: list[str],
    per_query: dict[str, list[Any]],
    seen: set[str],
    reqs: list[Request],
    job: Job,
    runid: str,
) -> RunResult | None:
    """:class:`RunResult` of the run's queries (sorted) and values, the judgements of the qrels queries not ``seen``
    in the run checked (None: judged twice) and with ``-c`` evaluated."""
    from segeval.core.plan import Plan, finished

    missing = [c for c, name in enumerate(qrels.names) if name not in seen]
    empty = np.zeros((0, 1), dtype=np.uint64)
    if missing and batch_values(empty, empty, np.zeros(0), qrels, reqs, job.settings, missing) is None:
        return None
    order = sorted(range(len(names)), key=names.__getitem__)
    names = [names[i] for i in order]
    per_query = {k: [v[i] for i in order] for k, v in per_query.items()}
    how = Plan(reqs, job.settings)
    if missing and job.settings.missing_queries == "zero":
        names, per_query = _with_missing(qrels, missing, names, per_query, how)
    return RunResult(finished(how, names, per_query, set(qrels.names), int((qrels.rel > 0).sum())), runid)


def _with_missing(
    qrels: LaneQrels, missing: list[int], names: list[str], per_query: dict[str, list[Any]], how: Plan
) -> tuple[list[str], dict[str, list[Any]]]:
    """The values of the run's queries and of the qrels queries ``missing`` (codes), which have no result."""
    import pandas as pd

    from segeval.core.pipeline import merge_parts, without_results

    rows = qrels.rows(np.asarray(missing, dtype=np.int64))
    docs = np.ascontiguousarray(qrels.docs[rows])
    q = pd.DataFrame(
        {
            "query": np.repeat([qrels.names[c] for c in missing], np.diff(qrels.offsets)[missing]),
            "item": [t.decode("utf-8") for t in docs.view(f"S{8 * docs.shape[1]}").ravel().tolist()],
            "start": np.nan,
            "end": np.nan,
            "rel": qrels.rel[rows],
            "line": 0,
        }
    )
    return merge_parts([(names, per_query), without_results(q, how, names)], how)


def me13sh_evaluation(
    qrels_path: str, run_path: str, kind: str, measures: Sequence[str], adapters: Sequence[Adapter]
) -> Evaluation | None:
    """``segeval me13sh``'s :class:`~segeval.core.evaluation.Evaluation`, or None when the usual path must decide."""
    from segeval.core.plan import plan
    from segeval.core.settings import CHUNK_LINES
    from segeval.readers.files import is_stream
    from segeval.readers.formats import MEDIAEVAL_LINKING_RUN, MEDIAEVAL_SEARCH_RUN
    from segeval.readers.scanner_segments import planned_result

    fmt = {"linking": MEDIAEVAL_LINKING_RUN, "search": MEDIAEVAL_SEARCH_RUN}.get(kind)
    if is_stream(qrels_path) or is_stream(run_path) or fmt is None:
        return None  # a stream is read once: the usual path reads it
    how = plan(False, list(measures), adapters=list(adapters))
    result = planned_result(qrels_path, run_path, how, "whole", CHUNK_LINES, fmt=fmt)
    return None if result is None else result.evaluation
