"""A stream's start checked as it arrives: a reader's check of the first bytes of a file (a
:data:`HeadCheck`), run on the blocks read so far, so that an input whose start cannot be valid is
refused after its first blocks instead of being read whole (up to ``SEGEVAL_MAX_INPUT_BYTES``) first.
The checks themselves belong to the readers: :func:`segeval.readers.formats.line_head` (line formats),
:func:`segeval.readers.json_records.record_head` and :func:`segeval.readers.json_records.document_head` (JSON)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

#: A reader's check of a file's first bytes, called with the bytes read so far as if more followed (the
#: last line may be cut): True when the start is valid (no further call), False to be called again
#: with more, or the InputError that reading the whole file would give (the same file, line, text and
#: expectation).  Readers give none when reading leniently (every bad line reported: the whole read).
HeadCheck = Callable[[bytes], bool]
#: a head check is given up (the whole read decides) once this many bytes are held unsettled
HEAD_LIMIT = 64 * 1024**2


def checked_blocks(blocks: Iterator[bytes], head: HeadCheck | None, first: int) -> list[bytes]:
    """The blocks, with ``head`` called on the bytes read so far from block ``first`` (0-based) on, each
    time they have at least doubled (so they are joined O(n) times in all), until it is settled or
    :data:`HEAD_LIMIT` bytes are held: an input whose start cannot be valid stops there, not after
    reading up to ``SEGEVAL_MAX_INPUT_BYTES``.  Once everything is read, the reader decides."""
    kept: list[bytes] = []
    held = asked = 0  # bytes held, and held at the last call
    for number, block in enumerate(blocks):
        kept.append(block)
        held += len(block)
        if head is None or number < first or held < 2 * asked:
            continue
        if held > HEAD_LIMIT:
            head = None
            continue
        kept, asked = [b"".join(kept)], held
        if head(kept[0]):
            head = None
    return kept
