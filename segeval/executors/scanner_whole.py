"""The fast lane of ``segeval eval``: a plain TREC run against plain TREC qrels, without pandas."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from segeval.core.errors import SegevalError
from segeval.core.settings import BATCH_BYTES
from segeval.executors.results import RunResult
from segeval.executors.route import lane_requests
from segeval.readers.blocks import line_blocks
from segeval.readers.formats import TREC_QRELS, TREC_RUN
from segeval.readers.scanner import Scanned, concatenated, scan_format, stack_words
from segeval.readers.scanner_documents import LaneQrels, batch_values, query_names, token_codes
from segeval.reports.trec import runid as trec_runid

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from segeval.core.evaluation import Evaluation
    from segeval.core.plan import Plan
    from segeval.core.settings import Job, OutputOptions
    from segeval.measures.compute import Request


def fast_eval(qrels_path: str, run_path: str, job: Job, out: OutputOptions) -> tuple[str, str] | None:
    """(stdout, stderr) of ``segeval eval`` with these values."""
    result = lane_values(qrels_path, run_path, job)
    return None if result is None else printed(result, job, out, run_path)


def printed(result: RunResult, job: Job, out: OutputOptions, run_path: str) -> tuple[str, str]:
    """(stdout, stderr) of ``segeval eval`` for the lane's result."""
    from segeval.executors.processes import outcome
    from segeval.reports.trec import render

    def shown(ev: Evaluation, runid: str, skipped: int, file: str) -> str:
        return render(ev, runid, per_query=out.per_query, summary=out.summary, header=out.header)

    done = outcome(replace(result, file=run_path), render=shown, complete=job.settings.missing_queries == "zero")
    return done.stdout, done.stderr


#: what makes a lane give up: the usual path reads the files again and explains
GIVE_UP = (SegevalError, OSError, MemoryError)


def lane_values(
    qrels_path: str, run_path: str, job: Job, evaluate: Callable[..., RunResult | None] | None = None
) -> RunResult | None:
    """The lane's :class:`RunResult` of this job (``evaluate(qrels, run_path, job, requests)``, default
    :func:`whole_values`), or None when the usual path must decide."""
    reqs = lane_requests(job.measures)
    try:
        q = None if reqs is None else lane_qrels(qrels_path)
        return None if q is None or reqs is None else (evaluate or whole_values)(q, run_path, job, reqs)
    except GIVE_UP:  # unreadable, too big, not gzip ...
        return None


def whole_values(q: LaneQrels, run_path: str, job: Job, reqs: list[Request]) -> RunResult | None:
    """:func:`lane_values` with the qrels read (the streaming lane's way out for a run not grouped by query)."""
    r = scan_run(line_blocks(run_path, BATCH_BYTES))  # in batches' blocks: the file is never held whole
    if r is None:
        return None
    seen = set(query_names(r.text["query"]))
    got = batch_values(
        r.text.pop("query"), r.text.pop("item"), r.floats.pop("score"), q, reqs, job.settings
    )  # popped: each column is freed once used
    runid = trec_runid([r.last["run"].decode("utf-8")])
    return None if got is None else finish_values(q, *got, seen, reqs, job, runid)


def scan_run(data: bytes | Iterable[bytes]) -> Scanned | None:
    """A TREC run's query and docno tokens, scores, and first tag, as the lanes read them (ranks only checked)."""
    return scan_format(
        data, TREC_RUN, text=("query", "item"), floats=("score",), checked_ints=("rank",), first=("run",)
    )


def lane_qrels(path: str) -> LaneQrels | None:
    """Plain TREC qrels ('query 0 docno rel') indexed by query, read in blocks; None when they are anything else."""
    import numpy as np

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
    return LaneQrels.of(concatenated(codes), [t.decode("utf-8") for t in code], stack_words(docs), concatenated(rels))


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
    import numpy as np

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
    import numpy as np
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
