"""Adapters declared once (:data:`KINDS`): the spec parser, help, docs table and tests' lists come from them."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from segeval.core.errors import ParameterError, shown
from segeval.core.settings import (
    ASSIGN,
    BINS,
    DEFAULT_ADAPTER,
    DEFAULTS,
    LENGTH_SHARE,
    T_COLLAR,
    THETA,
    WINDOW,
    Param,
    Settings,
    kind,
    spec_error,
)

if TYPE_CHECKING:
    from segeval.adapters.base import Adapter


@dataclass(frozen=True)
class Row:
    """One row of docs/adapters.md's table, and specs that make it (the first gives its report suffix)."""

    forms: str
    rule: str
    units: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class Kind:
    """An adapter kind: name, class, positional ``params``, ``flags`` after them (in order) and docs ``rows``."""

    name: str
    module: str
    cls: str
    rows: tuple[Row, ...]
    params: tuple[Param, ...] = ()
    flags: tuple[tuple[str, dict[str, Any]], ...] = ()

    @property
    def grammar(self) -> str:
        """The help form: ``binned[:B[:start|span]]``, ``tiou[:theta[:strict][:empty0][:best][:float32]]``."""
        tail = "".join(f"[:{f}]" for f, _ in self.flags)
        for p in reversed(self.params):
            tail = f"[:{p.symbol}{tail}]"
        return self.name + tail

    def make(self, spec: str, args: list[str], settings: Settings) -> Adapter:
        """The adapter of ``spec`` (``args``: its parts after the name); omitted parameters from ``settings``."""
        n = len(self.params)
        if len(args) > n and not self.flags:
            follow = (
                f"followed by at most {' and '.join(p.symbol for p in self.params)}"
                if n
                else "given without parameters"
            )
            where = f" ({self.grammar})" if n else ""
            raise spec_error(spec, self.name, ":".join(args), follow + where)
        values = {p.keyword: p.read(spec, text) for p, text in zip(self.params, args, strict=False)}
        values |= {p.keyword: getattr(settings, p.setting) for p in self.params[len(args) :]}
        given = args[n:]
        names = [f for f, _ in self.flags]
        if [f for f in names if f in given] != given:
            raise spec_error(
                spec,
                f"the flags after {self.params[-1].symbol}",
                ":".join(given),
                f"any of {', '.join(repr(f) for f in names)}, each once and in that order (e.g. "
                f"'{names[0]}:{names[-1]}')",
            )
        for f, keywords in self.flags:
            if f in given:
                values |= keywords
        return self.build(**values)

    def build(self, **values: Any) -> Adapter:
        """The adapter of this kind made with ``values`` (constructor keywords; its class checks them)."""
        made: Adapter = getattr(importlib.import_module(f"segeval.adapters.{self.module}"), self.cls)(**values)
        return made


_IOU = "relevant qrels segments"
_MERGED = "merged relevant segments"
KINDS: tuple[Kind, ...] = (
    Kind(
        "exact",
        "exact",
        "ExactAdapter",
        (
            Row(
                "`exact`",
                "trec_eval's matching: a result is judged by the qrels line of the same document (for segments: the "
                "same video, start and end); relevant when its grade reaches the relevance level (`-l`), non-relevant "
                "below it, unjudged without a line or with a negative grade",
                "qrels lines whose grade reaches the relevance level",
                ("exact",),
            ),
        ),
    ),
    Kind(
        "overlap",
        "overlap",
        "OverlapAdapter",
        (
            Row(
                "`overlap`",
                "relevant if the result overlaps a relevant qrels segment of its video (closed intervals, touching "
                "counts); every overlapping result counts, so `map` can exceed 1; else non-relevant if it meets a "
                "non-relevant segment, else unjudged",
                _MERGED,
                ("overlap",),
            ),
        ),
    ),
    Kind(
        "overlap-once",
        "overlap",
        "OverlapOnceAdapter",
        (
            Row(
                "`overlap-once`",
                "as `overlap`, but each merged relevant segment is credited to the first result (in rank order) "
                "overlapping it; a later result reaching only credited segments is `s`, so MAP stays within [0, 1]",
                _MERGED,
                ("overlap-once",),
            ),
        ),
    ),
    Kind(
        "binned",
        "binned",
        "BinnedAdapter",
        (
            Row(
                "`binned[:B]`, `binned:B:span` (`-B`, default 300 s)",
                "the results' spans cut into bins (a span (s, e) covers bins `s // B` .. `(e - 1) // B`); each bin "
                "ranked once, at its first appearance; a bin is relevant when a relevant qrels segment covers it "
                "(qrels not merged first), non-relevant when only a non-relevant one does (the reference script's "
                "rule)",
                "distinct relevant bins",
                ("binned:10", "binned:10:span"),
            ),
            Row(
                "`binned:B:start`",
                "the paper's formula: every result and every judged segment in the single bin of its start time",
                "distinct relevant bins",
                ("binned:10:start",),
            ),
        ),
        (BINS, ASSIGN),
    ),
    Kind(
        "tolerance",
        "tolerance",
        "ToleranceAdapter",
        (
            Row(
                "`tolerance[:T]` (`-T`, default 15 s)",
                "relevant if relevant content starts within T s of the result's start and the result does not start "
                "inside what the user has already seen (`s` then); `0`/`S` when it meets only non-relevant content",
                _MERGED,
                ("tolerance:15", "tolerance:0"),
            ),
        ),
        (WINDOW,),
    ),
    Kind(
        "tiou",
        "tiou",
        "TiouAdapter",
        (
            Row(
                "`tiou[:θ]` (default 0.5)",
                "relevant when the temporal IoU with a not yet matched relevant segment of the same video is at least "
                "θ (greedy in rank order, the highest IoU first, on equal IoUs the first qrels line; each segment "
                "matched once); `s` when θ is reached only with matched segments; any other result `0` (the ground "
                "truth is taken as exhaustive)",
                _IOU,
                ("tiou:0.5",),
            ),
            Row("`tiou:θ:strict`", "as `tiou`, with IoU above θ (not equal)", _IOU, ("tiou:0.5:strict",)),
            Row(
                "`tiou:θ:empty0` (flags in the order `strict`, `empty0`, `best`, `float32`)",
                "as `tiou`, with an empty hull (two equal zero-length spans) IoU 0, not 1: QVHighlights', Ego4D NLQ's "
                "and the recall report's convention ([moments.md](moments.md#lines-for-segeval-eval---write-lines))",
                _IOU,
                ("tiou:0.5:empty0",),
            ),
            Row(
                "`tiou:θ:empty0:best` (`best` with any other flag)",
                "as `tiou`, but a result is measured only against the relevant segment of its video with the highest "
                "IoU in the union form (∩ / (len1 + len2 − ∩); on equal IoUs the first qrels line): QVHighlights' R1 "
                "([moments.md](moments.md#lines-for-segeval-eval---write-lines))",
                _IOU,
                ("tiou:0.5:empty0:best", "tiou:0.5:best", "tiou:0.5:strict:best"),
            ),
            Row(
                "`tiou:θ:float32` (also `tiou:θ:strict:float32`)",
                "as `tiou`, in TVR's 32-bit arithmetic: times, IoU and θ as 32-bit floats, equal zero-length spans "
                "IoU 0",
                _IOU,
                ("tiou:0.5:float32", "tiou:0.5:strict:float32"),
            ),
        ),
        (THETA,),
        (
            ("strict", {"strict": True}),
            ("empty0", {"empty": "zero"}),
            ("best", {"pick": "best"}),
            ("float32", {"float32": True}),
        ),
    ),
    Kind(
        "tiou-best",
        "tiou_best",
        "TiouBestAdapter",
        (
            Row(
                "`tiou-best[:θ]` (default 0.5)",
                "ActivityNet's `eval_detection.py` matching: in rank order, each result takes the free relevant "
                "segment of its video with the highest tIoU if that reaches θ (tIoU = ∩ / (len1 + len2 − ∩); on equal "
                "tIoUs the later qrels line, as the official's reversed argsort visits them; two zero-length windows: "
                "NaN, a hit as in the official); `s` when only taken segments reach θ; with `-m ap_interp` "
                "ActivityNet's AP ([detection.md](detection.md#the-general-path-classes-as-queries))",
                _IOU,
                ("tiou-best:0.5",),
            ),
        ),
        (THETA,),
    ),
    Kind(
        "collar",
        "collar",
        "CollarAdapter",
        (
            Row(
                "`collar[:t[:p]]` (default `collar:0.2:0.2`; e.g. `collar:10:0.5`)",
                "sed_eval's event-based collar: a result hits a relevant segment of its video when the onsets are at "
                "most t s apart and the offsets at most max(t, p × the segment's length) (plain float differences and "
                "`<=`); in rank order each result takes the first free segment it hits, in qrels line order, which is "
                "sed_eval's greedy matching ([sed.md](sed.md#how-each-maps-onto-segevals-adapters)); `s` when it hits "
                "only taken segments; any other result `0`",
                _IOU,
                ("collar:10:0.5",),
            ),
            Row(
                "`collar:t:p:onset`",
                "as `collar`, onsets only (sed_eval's `evaluate_offset=False`)",
                _IOU,
                ("collar:10:0.2:onset",),
            ),
        ),
        (T_COLLAR, LENGTH_SHARE),
        (("onset", {"offset": False}),),
    ),
)
BY_NAME = {k.name: k for k in KINDS}
#: the spec grammar, as the help and the messages show it
ADAPTER_HELP = ", ".join(k.grammar for k in KINDS)
#: specs making every documented variant and flag (the tests' adapter lists)
EXAMPLES = tuple(e for k in KINDS for row in k.rows for e in row.examples)


def make_adapter(spec: str | Adapter, settings: Settings | None = None) -> Adapter:
    """An adapter from its spec (omitted parameters from ``settings``), or the given adapter."""
    from segeval.adapters.base import Adapter

    if isinstance(spec, Adapter):
        return spec
    if not isinstance(spec, str):
        raise ParameterError(
            f"The 'adapter' parameter must be an adapter name ({ADAPTER_HELP}) or an Adapter. "
            f"Got {type(spec).__name__} {spec!r} instead."
        )
    name, *args = spec.split(":")
    if name not in BY_NAME:
        raise ParameterError(
            f"The 'adapter' parameter must name an adapter kind ({ADAPTER_HELP}). Got {spec!r} instead."
        )
    return BY_NAME[name].make(spec, args, settings or DEFAULTS)


def make_adapters(specs: str | Adapter | Sequence[str | Adapter], settings: Settings | None = None) -> list[Adapter]:
    """Adapters from one spec or adapter, or a list of them, each spec once."""
    from segeval.adapters.base import Adapter

    if isinstance(specs, str | Adapter):
        return [make_adapter(specs, settings)]
    if not isinstance(specs, Sequence) or not specs:
        raise ParameterError(
            f"The 'adapters' parameter must be an adapter name ({ADAPTER_HELP}), an Adapter, or "
            f"a non-empty list of them. Got {shown(specs)} instead."
        )
    made: dict[str, Adapter] = {}
    for s in specs:
        a = make_adapter(s, settings)
        made.setdefault(a.spec, a)  # the first of each spec, in order
    return list(made.values())


def check_run_kind(adapters: Sequence[Adapter], documents: bool) -> None:
    """Refuse adapters that match time spans for a document run (all its results would be unjudged)."""
    by_times = [a.spec for a in adapters if a.times]
    if documents and by_times:
        raise ParameterError(
            f"The 'adapter' parameter must name an adapter of document runs (exact): {', '.join(by_times)} "
            f"{'matches' if len(by_times) == 1 else 'match'} time spans (segment runs: video, start, end). "
            f"Got a document run instead."
        )


def default_adapter(documents: bool, settings: Settings | None = None) -> Adapter:
    """The adapter of a run kind when none is named: ``exact`` for documents, ``overlap`` for segments."""
    return make_adapter(DEFAULT_ADAPTER[kind(documents)], settings)


def me13sh_adapters(bin_size: int | None = None, tolerance: int | None = None) -> list[Adapter]:
    """The reference's three adapters, in its report order (None: the default B and T)."""
    size = DEFAULTS.bin_size if bin_size is None else bin_size
    window = DEFAULTS.tolerance if tolerance is None else tolerance
    return [
        BY_NAME["overlap"].build(),
        BY_NAME["binned"].build(bin_size=size),
        BY_NAME["tolerance"].build(tolerance=window),
    ]


def docs_table() -> str:
    """docs/adapters.md's table of the adapters (a test keeps the page equal to it)."""
    head = "| adapter (`-a`) | report suffix | rule | relevant units (`num_rel`) |\n|---|---|---|---|\n"
    rows = [(r, make_adapter(r.examples[0]).suffix) for k in KINDS for r in k.rows]
    return head + "".join(f"| {r.forms} | {f'`{s}`' if s else 'none'} | {r.rule} | {r.units} |\n" for r, s in rows)
