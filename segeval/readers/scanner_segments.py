"""The segment routes of ``segeval eval`` (``segments+whole``, ``segments+chunks``): MediaEval qrels and a
linking or search run read by the byte scanner, without pandas; on anything else it gives up before anything
is printed and the strict reader reads the files (docs/internals.md, 'Segment routes')."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from segeval.adapters.exact import listed_twice
from segeval.core.arrays import FloatArray, IntArray
from segeval.core.errors import SegevalError
from segeval.core.ordering import listed_order
from segeval.core.prepared import assemble, first_occurrences, first_results
from segeval.readers.blocks import Regrouped, batches, line_blocks, open_blocks, run_starts, whole_queries
from segeval.readers.files import read_bytes
from segeval.readers.formats import (
    MEDIAEVAL_LINKING_RUN,
    MEDIAEVAL_QRELS,
    MEDIAEVAL_SEARCH_RUN,
    LineFormat,
    detect_run_format,
    head_lines,
)
from segeval.readers.scanner import Scanned, Words, line_views, scan_format

if TYPE_CHECKING:
    from segeval.core.plan import Plan
    from segeval.core.settings import Job
    from segeval.executors.results import RunResult

#: the segment run formats the reader takes, by name
RUN_FORMATS = {f.name: f for f in (MEDIAEVAL_LINKING_RUN, MEDIAEVAL_SEARCH_RUN)}
#: the multiplier of the token hashes (Fibonacci hashing)
_MIX = np.uint64(0x9E3779B97F4A7C15)


class GiveUp(Exception):
    """The strict reader must read the files (it explains whatever made the scanner stop)."""


class Codes:
    """Tokens numbered in order of first appearance, across blocks: a hash table of the tokens seen (each row's
    token checked against its code's), and a dict for new ones."""

    BITS = 18

    def __init__(self) -> None:
        self.code: dict[bytes, int] = {}
        self.names: list[str] = []
        self.slot_hash = np.zeros(0, dtype=np.uint64)  # made on the first block of tokens not in runs
        self.slot_code = np.zeros(0, dtype=np.int32)
        self.known = np.zeros((0, 1), dtype=np.uint64)  # each code's token, as words (NUL padded)

    def of(self, words: Words) -> npt.NDArray[np.int32]:
        """Each row's code (new tokens numbered as they first appear)."""
        n = len(words)
        if n == 0:
            return np.zeros(0, dtype=np.int32)
        change = np.ones(n, dtype=bool)
        for j in range(words.shape[1]):  # column by column: NumPy's any(axis=1) over a few words is much slower
            change[1:] |= words[1:, j] != words[:-1, j]
        heads = np.flatnonzero(change)
        if len(heads) * 4 < n:  # runs of equal tokens (queries): the heads only
            return np.repeat(self._looked_up(words[heads]), np.diff(np.append(heads, n)))
        if not len(self.slot_code):
            self.slot_hash = np.zeros(1 << self.BITS, dtype=np.uint64)
            self.slot_code = np.full(1 << self.BITS, -1, dtype=np.int32)
        h = np.zeros(n, dtype=np.uint64)
        for j in range(words.shape[1]):
            h ^= words[:, j]
            h *= _MIX
        h ^= h >> np.uint64(31)
        slot = (h >> np.uint64(64 - self.BITS)).astype(np.intp)
        code = self.slot_code[slot]
        miss = np.flatnonzero((code < 0) | (self.slot_hash[slot] != h))
        if len(miss):
            code[miss] = self._hashed(words, miss, h[miss])
            self.slot_hash[slot[miss]] = h[miss]
            self.slot_code[slot[miss]] = code[miss]
        width = words.shape[1]
        known = self._widen(width, len(self.names))
        if not all(bool((known[:, j][code] == words[:, j]).all()) for j in range(width)) or bool(
            known[code, width:].any()
        ):
            raise GiveUp  # two tokens with one hash (never seen): the strict reader reads the file
        return code

    def _hashed(self, words: Words, rows: IntArray, h: npt.NDArray[np.uint64]) -> npt.NDArray[np.int32]:
        """The codes of ``rows`` (of hashes ``h``): each hash's first row looked up when each hash is one token's."""
        order = np.argsort(h, kind="stable")
        first = np.ones(len(order), dtype=bool)
        first[1:] = h[order[1:]] != h[order[:-1]]
        group = np.empty(len(order), dtype=np.intp)
        group[order] = np.cumsum(first) - 1
        heads = order[first]  # each hash's first row (the sort is stable), in hash order
        if not bool((words[rows] == words[rows[heads[group]]]).all()):
            return self._looked_up(words[rows])  # two tokens with one hash
        by_row = np.argsort(heads)
        codes = np.empty(len(heads), dtype=np.int32)
        codes[by_row] = self._looked_up(words[rows[heads[by_row]]])
        return codes[group]

    def _looked_up(self, words: Words) -> npt.NDArray[np.int32]:
        """The codes of the rows' tokens, new ones numbered in row order."""
        tokens = np.ascontiguousarray(words).view(f"S{8 * words.shape[1]}").ravel().tolist()
        codes = [self.code.get(t, -1) for t in tokens]
        new = [i for i, c in enumerate(codes) if c < 0]
        if new:
            heads: list[int] = []  # each new token's first row
            for i in new:
                c = self.code.get(tokens[i])
                if c is None:
                    c = self.code[tokens[i]] = len(self.names) + len(heads)
                    heads.append(i)
                codes[i] = c
            self.names += [tokens[i].decode("utf-8") for i in heads]
            self._widen(words.shape[1], len(self.names))[len(self.names) - len(heads) :, : words.shape[1]] = words[
                heads
            ]
        return np.asarray(codes, dtype=np.int32)

    def _widen(self, width: int, rows: int) -> npt.NDArray[np.uint64]:
        """:attr:`known` with at least ``width`` words a row and ``rows`` rows (the new ones zero)."""
        have = self.known
        if have.shape[1] < width or len(have) < rows:
            self.known = np.zeros((max(rows, len(have)), max(width, have.shape[1])), dtype=np.uint64)
            self.known[: len(have), : have.shape[1]] = have
        return self.known


@dataclass
class Rows:
    """Coded rows of a file: query and video codes, start and end in seconds, and ``rank`` (runs) or
    ``rel`` (qrels)."""

    query: npt.NDArray[np.int32]
    item: npt.NDArray[np.int32]
    start: FloatArray
    end: FloatArray
    number: IntArray

    @classmethod
    def joined(cls, parts: list[Rows]) -> Rows:
        if len(parts) == 1:
            return parts[0]
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def cut(self, start: int, stop: int | None) -> Rows:
        return Rows(*(getattr(self, f.name)[start:stop] for f in fields(self)))


class SegmentReader:
    """The qrels, read and coded once, and the run's format; :meth:`run_blocks` codes run blocks as they come."""

    def __init__(self, qrels_blocks: Iterable[bytes], fmt: LineFormat, n_fields: int) -> None:
        self.queries, self.items = Codes(), Codes()
        self.fmt, self.n_fields, self.tag = fmt, n_fields, b""
        parts: list[Rows] = []
        for data in qrels_blocks:
            if b"|" in data:
                raise GiveUp  # ground-truth groups
            s = _scanned(
                scan_format(data, MEDIAEVAL_QRELS, text=("query", "item"), times=("start", "end"), ints=("rel",)), data
            )
            if s is not None:
                parts.append(self._coded(s, s.ints["rel"]))
        if not parts:
            raise GiveUp  # no data line
        self.qrels = Rows.joined(parts)
        if len(listed_twice(self.qrels.query, self.qrels.item, self.qrels.start, self.qrels.end)[0]):
            raise GiveUp  # validate_qrels refuses them
        self.qrels_queries = {self.queries.names[c] for c in _present(self.qrels.query)}

    def _coded(self, s: Scanned, number: IntArray) -> Rows:
        start, end = s.ints["start"], s.ints["end"]
        if bool((end < start).any()):
            raise GiveUp  # validate_qrels and validate_run refuse them
        return Rows(
            self.queries.of(s.text["query"]),
            self.items.of(s.text["item"]),
            start.astype(np.float64),
            end.astype(np.float64),
            number,
        )

    def run_blocks(self, blocks: Iterable[bytes]) -> Iterator[Rows]:
        """Each block's coded rows; :attr:`tag` is the last line's run tag (b'' for a search run without tags)."""
        times = ("start", "end", "jumpin") if self.fmt is MEDIAEVAL_SEARCH_RUN else ("start", "end")
        tagged = self.n_fields == len(self.fmt.fields)
        for data in blocks:
            s = _scanned(
                scan_format(
                    data,
                    self.fmt,
                    n_fields=self.n_fields,
                    text=("query", "item"),
                    times=times,
                    ints=("rank",),
                    checked_floats=("score",),
                    first=("run",) if tagged else (),
                ),
                data,
            )
            if s is None:
                continue
            rank = s.ints["rank"]
            if bool((rank < 1).any()):
                raise GiveUp
            rows, self.tag = self._coded(s, rank), s.last["run"] if tagged else b""
            del s, rank, data  # not held while the rows are evaluated
            yield rows


def _present(codes: npt.NDArray[np.int32]) -> list[int]:
    """The distinct codes, in increasing order (counted: ``np.unique`` would load numpy.ma)."""
    return np.flatnonzero(np.bincount(codes)).tolist() if len(codes) else []


def _scanned(s: Scanned | None, data: bytes) -> Scanned | None:
    """The scanned block; None for a block of blank lines; :class:`GiveUp` when the scanner gave up."""
    if s is None and data.strip():
        raise GiveUp
    return s


def run_format(head: bytes, path: str, given: LineFormat | None = None) -> tuple[LineFormat, int]:
    """The run's format (``given``, or detected from its first lines), and the number of fields the scanner
    reads (a search run: 9, or 8 when its first data line has no run tag)."""
    try:
        fmt = detect_run_format(head, path) if given is None else given
    except SegevalError:
        raise GiveUp from None
    if fmt.name not in RUN_FORMATS:
        raise GiveUp
    first = next((line.split() for line in head.split(b"\n") if line.strip()), [])
    return fmt, len(first) if fmt is MEDIAEVAL_SEARCH_RUN and len(first) in fmt.counts else len(fmt.fields)


class Evaluator:
    """The evaluated queries' values, part by part (each part the rows of whole queries)."""

    def __init__(self, reader: SegmentReader, how: Plan) -> None:
        self.reader, self.how = reader, how
        q = reader.qrels
        self.qrels_order = np.argsort(q.query, kind="stable")  # each query's qrels lines, in file order
        self.qrels_bounds = np.searchsorted(q.query[self.qrels_order], np.arange(len(reader.queries.names) + 1))
        self.names: list[str] = []
        self.values: dict[str, list[Any]] = {x.name: [] for x in how.requests}

    def part(self, rows: Rows, queries: list[str]) -> None:
        """Evaluate the chosen ``queries`` on ``rows``, which hold every run row they have (numbered in the order
        the run lists them, so that a run grouped by query and in rank order is evaluated without copies)."""
        if not queries:
            return
        s = self.how.settings
        code = self.reader.queries.code
        raw = [code[name.encode("utf-8")] for name in queries]
        listed = rows.query[first_occurrences(rows.query)].tolist() if len(rows.query) else []
        chosen = set(raw)
        raw = [c for c in listed if c in chosen] + sorted(chosen - set(listed), key=raw.index)
        queries = [self.reader.queries.names[c] for c in raw]
        lookup = np.full(len(self.reader.queries.names), -1, dtype=np.int64)
        lookup[raw] = np.arange(len(raw), dtype=np.int64)
        run_qcode = lookup[rows.query]
        keep = np.flatnonzero(run_qcode >= 0)
        ordered = listed_order(keep, run_qcode, rows.number if s.order == "rank" else None)
        ordered = first_results(ordered, run_qcode, len(queries), s.max_results)
        in_place = len(ordered) == len(rows.query) and bool((ordered[1:] > ordered[:-1]).all())
        del keep
        q = self.reader.qrels
        lines = np.sort(
            np.concatenate([self.qrels_order[self.qrels_bounds[c] : self.qrels_bounds[c + 1]] for c in raw])
        )
        # videos numbered in order of first appearance in the run's rows, then the qrels' (as prepare numbers them)
        both = np.concatenate([rows.item, q.item[lines]])
        firsts = both[first_occurrences(both)]
        del both
        renumber = np.zeros(len(self.reader.items.names), dtype=np.int64)
        renumber[firsts] = np.arange(len(firsts), dtype=np.int64)
        names = self.reader.items.names
        items = np.empty(len(firsts), dtype=object)
        items[:] = [names[c] for c in firsts.tolist()]
        pick = slice(None) if in_place else ordered  # every row, in file order (the usual run): views, no copies
        run = {
            "start": rows.start[pick],
            "end": rows.end[pick],
            "rank": rows.number[pick],
            "icode": renumber[rows.item[pick]],
            "qcode": run_qcode[pick],
        }
        del ordered, run_qcode
        qrels = {
            "start": q.start[lines],
            "end": q.end[lines],
            "rel": q.number[lines],
            "icode": renumber[q.item[lines]],
            "qcode": lookup[q.query[lines]],
        }
        from segeval.core.plan import measured

        values = measured(assemble(queries, items, run, qrels, s.relevance_level), self.how)
        self.names += queries
        for k, v in values.items():
            self.values.setdefault(k, []).extend(v)

    def finish(self, runid: str) -> RunResult:
        from segeval.core.plan import finished
        from segeval.executors.results import RunResult

        order = sorted(range(len(self.names)), key=self.names.__getitem__)
        names = [self.names[i] for i in order]
        per_query = {k: [v[i] for i in order] for k, v in self.values.items()}
        relevant = int((self.reader.qrels.number > 0).sum())
        return RunResult(finished(self.how, names, per_query, self.reader.qrels_queries, relevant), runid)


def segment_result(
    qrels_path: str, run_path: str, job: Job, executor: str, on_read: Callable[[int], object] | None = None
) -> RunResult | None:
    """The :class:`~segeval.executors.results.RunResult` of ``segeval eval`` on MediaEval qrels and one segment run,
    read whole (``executor`` ``whole``) or in batches (``chunks``); None when the strict reader must read them."""
    from segeval.core.plan import plan

    try:
        how = plan(False, list(job.measures), adapters=list(job.adapters) or None, settings=job.settings)
    except SegevalError:
        return None
    return planned_result(qrels_path, run_path, how, executor, job.engine.chunk_lines, on_read)


def planned_result(
    qrels_path: str,
    run_path: str,
    how: Plan,
    executor: str,
    chunk_lines: int,
    on_read: Callable[[int], object] | None = None,
    fmt: LineFormat | None = None,
) -> RunResult | None:
    """:func:`segment_result` of a resolved :class:`~segeval.core.plan.Plan`, the run in format ``fmt`` (None: as
    detected)."""
    from segeval.core.settings import BATCH_BYTES
    from segeval.reports.trec import runid as trec_runid

    if how.settings.order not in ("rank", "file"):
        return None
    try:
        fmt, n_fields = run_format(_head(run_path), run_path, fmt)
        reader = SegmentReader(line_blocks(qrels_path), fmt, n_fields)  # then the run: one file at a time
        ev = Evaluator(reader, how)
        seen: set[int] = set()  # the run's query codes
        if executor == "whole":
            pieces = list(reader.run_blocks(_views(read_bytes(run_path))))
            if not pieces:
                raise GiveUp  # no data line: the strict reader says so
            rows = Rows.joined(pieces)
            del pieces
            parts: Iterable[tuple[Rows, list[int]]] = [(rows, _checked(reader, how, _present(rows.query)))]
            del rows
        else:
            blocks = map(itemgetter(1), batches(open_blocks(run_path, on_read=on_read), chunk_lines, BATCH_BYTES))
            parts = whole_queries(reader.run_blocks(blocks), _query_runs, Rows.cut, Rows.joined)
        for rows, codes in parts:
            seen.update(codes)
            ev.part(rows, sorted({reader.queries.names[c] for c in codes} & reader.qrels_queries))
            del rows
            if executor != "whole":  # a batch's labels hold reference cycles: freed before the next batch is read
                gc.collect()
        _checked(reader, how, seen)
        return ev.finish(trec_runid([reader.tag.decode("utf-8")]))
    except (GiveUp, Regrouped, SegevalError, OSError, MemoryError, UnicodeDecodeError):
        return None


def _checked(reader: SegmentReader, how: Plan, codes: Iterable[int]) -> list[int]:
    """The run's query codes; GiveUp when no query is in both files or, under ``-c``, a qrels query has no result."""
    wanted, listed = reader.qrels_queries, {reader.queries.names[c] for c in codes}
    if not wanted & listed or (how.settings.missing_queries == "zero" and wanted - listed):
        raise GiveUp
    return list(codes)


def _query_runs(rows: Rows) -> tuple[list[int], npt.NDArray[np.intp]]:
    starts = run_starts(rows.query)
    return rows.query[starts].tolist(), starts


def _views(data: bytes) -> Iterator[bytes]:
    """The file's bytes in blocks of whole lines, each copied as it is scanned (the file freed after the last)."""
    views = line_views(data)
    del data
    for view in views:
        yield bytes(view)


def _head(path: str) -> bytes:
    """The run's first :data:`~segeval.readers.formats.DETECT_LINES` data lines (what detection reads)."""
    reading = open_blocks(path, block=1 << 16)
    data = b""
    for block in reading:
        data += block
        lines = head_lines(data)
        if lines is not None:
            return lines  # the rest is not read (the reader, dropped, closes the file)
        if len(data) > 1 << 22:
            raise GiveUp  # very long lines: the strict reader detects the format
    return data
