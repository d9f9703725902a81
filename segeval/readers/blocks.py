"""A file in line chunks without holding it whole, the one loop that cuts a run read so into the rows of whole
queries, and given lines' texts in one pass."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence, Set
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from segeval.core.settings import CHUNK_LINES
from segeval.readers.files import BLOCK_BYTES, limits, read_blocks
from segeval.readers.scanner import BLOCK_BYTES as SCAN_BYTES

Query = TypeVar("Query", bound=Hashable)
Rows = TypeVar("Rows")


def open_blocks(
    path: str | Path, block: int = BLOCK_BYTES, on_read: Callable[[int], object] | None = None
) -> Iterator[bytes]:
    """The file's text in blocks: :func:`read_blocks` without a total-size limit (never held whole)."""
    return read_blocks(path, max_bytes=None, block=block, on_read=on_read)


def line_blocks(path: str, size: int = SCAN_BYTES) -> Iterator[bytes]:
    """A file (within ``read_bytes``' limits) in blocks of whole lines of about ``size`` bytes (the last one may
    not end a line), for a reader that keeps less than its text."""
    rest = b""
    for block in read_blocks(path, max_bytes=limits()[0], block=size):
        data = rest + block if rest else block
        del block
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data  # a line longer than a block: wait for its end
            continue
        rest = data[cut:]
        yield data if cut == len(data) else data[:cut]
        del data
    if rest:
        yield rest


def batches(blocks: Iterator[bytes], chunk_lines: int, min_bytes: int) -> Iterator[tuple[int, bytes]]:
    """``(number of its first line, bytes)`` of whole ``chunk_lines``-line chunks gathered until they hold at least
    ``min_bytes`` bytes (the last batch may be shorter), holding no more than the blocks read."""
    parts: list[bytes] = []
    part_ends: list[npt.NDArray[np.intp]] = []  # the line ends of each part, from the start of the first
    lines = held = 0  # complete lines and bytes held
    first = 1  # the number of the first line held
    for block in blocks:
        parts.append(block)
        part_ends.append(np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10) + held)  # each block seen once
        lines += len(part_ends[-1])
        held += len(block)
        del block  # held in parts only
        if lines < chunk_lines or held < min_bytes:
            continue
        data = b"".join(parts)
        ends = np.concatenate(part_ends)
        parts.clear()
        part_ends.clear()
        pos = used = 0
        cuts: list[tuple[int, int, int]] = []  # (first line, start, stop) of each batch
        while lines - used >= chunk_lines:
            # the fewest whole chunks from line ``used`` whose bytes reach ``min_bytes``
            reach = int(np.searchsorted(ends, pos + min_bytes - 1)) if min_bytes > 0 else used
            take = max(1, -(-(reach - used + 1) // chunk_lines)) * chunk_lines
            if used + take > lines:
                break  # wait for more blocks
            cut = int(ends[used + take - 1]) + 1
            cuts.append((first, pos, cut))
            first, used, pos = first + take, used + take, cut
        part_ends.append(ends[used:] - pos)
        del ends
        ready = [(line, data[start:stop]) for line, start, stop in reversed(cuts)]
        parts.append(data[pos:])
        lines, held = lines - used, len(data) - pos
        del data
        while ready:
            yield ready.pop()  # not held here once taken
    data = b"".join(parts)
    parts.clear()
    if data:
        yield first, data


def data_lines(data: bytes, wanted: int) -> int:
    """The non-blank lines of ``data``, counted up to ``wanted`` (not split further: a batch may be big)."""
    seen, rest = 0, data
    while rest and seen < wanted:
        pieces = rest.split(b"\n", wanted - seen)
        rest = pieces.pop() if len(pieces) > wanted - seen else b""
        seen += sum(1 for line in pieces if line.strip())
    return min(seen, wanted)


def line_texts(path: str | Path, numbers: Iterable[int], chunk_lines: int = CHUNK_LINES) -> dict[int, str]:
    """The text of the given lines (1-based), decoded leniently ('' past the file's end), by number in increasing
    order, in one pass over the file (never whole)."""
    wanted = sorted(set(numbers))
    found = dict.fromkeys(wanted, "")
    if not wanted:
        return found
    at = 0  # the first wanted number not yet looked for
    for first, data in batches(open_blocks(path), chunk_lines, 0):
        end = at
        while end < len(wanted) and wanted[end] < first + chunk_lines:
            end += 1
        if end > at:
            lines = data.split(b"\n")
            for n in wanted[at:end]:
                if first <= n and n - first < len(lines):
                    found[n] = lines[n - first].rstrip(b"\r").decode("utf-8", "replace")
            at = end
        if at == len(wanted):
            break
    return found


def regrouped(heads: Sequence[Query], done: Set[Query]) -> int | None:
    """The position in ``heads`` (each run of equal queries' query, in file order) of the first query read
    before (in ``done`` or earlier in ``heads``); None while every query's lines stay contiguous."""
    seen: set[Query] = set()
    for at, head in enumerate(heads):
        if head in done or head in seen:
            return at
        seen.add(head)
    return None


def run_starts(values: npt.NDArray[Any]) -> npt.NDArray[np.intp]:
    """Where each run of equal values starts."""
    return np.flatnonzero(np.concatenate([[len(values) > 0], values[1:] != values[:-1]]))


class Regrouped(Exception):
    """A run not grouped by query: query ``key`` comes back at row ``row`` of the batch ``rows``."""

    def __init__(self, rows: object, row: int, key: object) -> None:
        super().__init__(key)
        self.rows, self.row, self.key = rows, row, key


def whole_queries(
    parts: Iterable[Rows],
    query_runs: Callable[[Rows], tuple[list[Query], npt.NDArray[np.intp]]],
    cut: Callable[[Rows, int, int | None], Rows],
    join: Callable[[list[Rows]], Rows],
) -> Iterator[tuple[Rows, list[Query]]]:
    """The rows of finished queries and their queries, in file order, from batches of a run's rows (each batch's
    last query carried to the next); ``query_runs``: a batch's query of each run of equal queries and where
    each starts; :class:`Regrouped` when a query comes back after another one."""
    done: set[Query] = set()
    pending: list[Rows] = []
    last: Query | None = None

    def finished(rows: Rows, keys: list[Query]) -> tuple[Rows, list[Query]]:
        done.update(keys)
        return rows, keys

    for rows in parts:
        heads, starts = query_runs(rows)
        if not heads:
            continue
        goes_on = bool(pending) and heads[0] == last
        before = int(bool(pending) and not goes_on)  # the carried query, checked with the batch's
        again = regrouped([last, *heads] if before else heads, done)
        if again is not None:
            raise Regrouped(rows, int(starts[again - before]), heads[again - before])
        if before:
            yield finished(join(pending), [last])  # type: ignore[list-item]
            pending = []
        if len(heads) > 1:
            head, end = (int(starts[1]) if goes_on else 0), int(starts[-1])
            if goes_on:  # the carried query's rows, joined apart from the batch's (no copy of the batch)
                yield finished(join([*pending, cut(rows, 0, head)]), heads[:1])
                pending = []
            if len(heads) > 1 + goes_on:
                yield finished(cut(rows, head, end), heads[int(goes_on) : -1])
            rows = cut(rows, end, None)
        pending.append(rows)
        last = heads[-1]
    if pending:
        yield finished(join(pending), [last])  # type: ignore[list-item]
