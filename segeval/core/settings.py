"""Every policy default and choice, declared once: a frozen, typed :class:`Settings`, checked on creation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from segeval.core.domains import CUTOFF, MAX_WHOLE, NONNEGATIVE, Domain
from segeval.core.errors import ParameterError, check_choice, shown

#: result orders (``prepare``): rank column, score descending (trec_eval), or as listed
ORDERS = ("rank", "score", "file")
#: time formats of segment files: M.S (the MediaEval format), seconds, H:MM:SS.fff
TIME_FORMATS = ("mmss", "seconds", "hms")
MISSING_QUERIES = ("skip", "zero")
PREDICTED = ("use", "ignore")
TREC_EVAL_VERSIONS = ("10", "9")
MEMORY_POLICIES = ("auto", "chunked", "in-memory")

#: the default order and adapter of each kind of run: trec_eval's for documents, the MediaEval reference's for segments
DEFAULT_ORDER = {"documents": "score", "segments": "rank"}
DEFAULT_ADAPTER = {"documents": "exact", "segments": "overlap-once"}
DEFAULT_MEASURES = ("official",)

BIN_SIZE = 300  #: seconds per bin of the binned adapter (the reference's -B)
TOLERANCE = 15  #: seconds of the tolerance-to-irrelevance window (the reference's -T)
TIOU = 0.5  #: temporal IoU threshold of the tiou adapter
COLLAR = 0.2  #: the collar adapter's t (seconds) and p (share of the length): DCASE task 4's
CHUNK_LINES = 100_000  #: lines per chunk of the chunked reader
AUTO_BYTES = 128 * 1024**2  #: --memory auto reads a run in chunks from this size on disk (gzip: a quarter)
#: chunks are gathered into batches of at least this many bytes, parsed and evaluated together (a batch's fixed cost)
BATCH_BYTES = 2 * 1024**2
#: --memory auto reads a plain TREC run the byte scanner takes in chunks from this size (docs/benchmarks.md)
SCANNER_AUTO_BYTES = BATCH_BYTES
DASK_TIMEOUT = 30.0  #: seconds to wait for a Dask worker (--dask-timeout)
DASK_TIMEOUTS = Domain(0.0, 86_400.0, open_low=True)  #: its domain (seconds)


def spec_error(spec: str, what: str, text: str, expected: str) -> ParameterError:
    return ParameterError(f"The 'adapter' parameter {spec!r}: {what} must be {expected}. Got {text!r} instead.")


@dataclass(frozen=True)
class Param:
    """A positional parameter of an adapter spec: keyword, ``Settings`` field, help symbol, wording and domain."""

    keyword: str
    setting: str
    symbol: str
    what: str
    domain: Domain

    def check(self, value: Any, name: str | None = None) -> Any:
        """``value`` when in the domain (a real number as a float), else a ParameterError naming ``name``."""
        self.domain.check(name or self.keyword, value)
        return value if isinstance(value, str) or self.domain.whole else float(value)

    def read(self, spec: str, text: str) -> Any:
        """The value ``text`` writes in ``spec``; a ParameterError naming the part otherwise."""
        try:
            return self.check(self.domain.read(self.keyword, text.strip()))
        except ParameterError:
            raise spec_error(spec, self.what, text, str(self.domain)) from None


THETA = Param("theta", "tiou", "theta", "the IoU threshold theta", Domain(0.0, 1.0, open_low=True))
BINS = Param("bin_size", "bin_size", "B", "the bin size B (seconds)", Domain(1, MAX_WHOLE, whole=True))
ASSIGN = Param(
    "assign", "bin_assign", "start|span", "the bin assignment", Domain(words=("span", "start"), numbers=False)
)
WINDOW = Param("tolerance", "tolerance", "T", "the window T (seconds)", Domain(0, MAX_WHOLE, whole=True))
T_COLLAR = Param("t_collar", "t_collar", "t", "the collar t (seconds)", NONNEGATIVE)
LENGTH_SHARE = Param(
    "percentage_of_length", "percentage_of_length", "p", "the offset collar's share p of the length", NONNEGATIVE
)


def kind(documents: bool) -> str:
    """``"documents"`` or ``"segments"``: the key of the per-kind defaults."""
    return "documents" if documents else "segments"


def check_relevance_level(level: object) -> int:
    """The relevance level (``-l``): an integer >= 0.  trec_eval's ``-l -1`` counts the retrieved
    results missing from the qrels as relevant; segeval refuses it (docs/trec_eval-semantics.md)."""
    if isinstance(level, bool) or not isinstance(level, int):
        raise ParameterError(f"The 'relevance_level' parameter must be an integer. Got {shown(level)} instead.")
    if level < 0:
        raise ParameterError(
            "The 'relevance_level' parameter must be an integer >= 0 (trec_eval's -l -1 would count results missing "
            f"from the qrels as relevant; segeval refuses it, docs/trec_eval-semantics.md). Got {shown(level)} instead."
        )
    return level


@dataclass(frozen=True)
class Settings:
    """The policies of an evaluation, each with its documented default; invalid values raise
    :class:`~segeval.core.errors.ParameterError` when the object is made (the fields: docs/api.md)."""

    order: str | None = None
    time_format: str = "mmss"
    relevance_level: int = 1
    missing_queries: str = "skip"
    max_results: int | None = None
    judged_only: bool = False
    trec_eval: str = "10"
    predicted: str = "use"
    queries: tuple[str, ...] | None = None
    bin_size: int = BIN_SIZE
    bin_assign: str = "span"
    tolerance: int = TOLERANCE
    tiou: float = TIOU
    t_collar: float = COLLAR
    percentage_of_length: float = COLLAR

    def __post_init__(self) -> None:
        if self.order is not None:
            check_choice("order", self.order, ORDERS)
        check_choice("time_format", self.time_format, TIME_FORMATS)
        check_relevance_level(self.relevance_level)
        check_choice("missing_queries", self.missing_queries, MISSING_QUERIES)
        if self.max_results is not None and (
            isinstance(self.max_results, bool) or not isinstance(self.max_results, int) or self.max_results < 1
        ):
            raise ParameterError(
                "The 'max_results' parameter (-M) must be an integer >= 1 (trec_eval's -M 0 evaluates empty rankings; "
                f"segeval refuses it, docs/trec_eval-semantics.md). Got {shown(self.max_results)} instead."
            )
        _check_type("judged_only", self.judged_only)
        check_choice("trec_eval", self.trec_eval, TREC_EVAL_VERSIONS)
        check_choice("predicted", self.predicted, PREDICTED)
        if self.queries is not None:
            _strings(self, "queries", "a list of query ids (strings)", Sequence | set | frozenset)
        for param in (BINS, ASSIGN, WINDOW, THETA, T_COLLAR, LENGTH_SHARE):  # the adapters' declared domains
            param.check(getattr(self, param.setting), param.setting)

    def order_for(self, documents: bool) -> str:
        """The result order for a document (or segment) run: ``order``, or the kind's default."""
        return self.order if self.order is not None else DEFAULT_ORDER[kind(documents)]

    def but(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (names of fields; a None value leaves that field as it is)."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ParameterError(
                f"The {unknown[0]!r} parameter is not a setting. Expected one of {', '.join(sorted(names))}."
            )
        given = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **given) if given else self


def settings_of(settings: object) -> Settings:
    """``settings`` as a :class:`Settings` (from one, a dict of fields, or None), else a ParameterError."""
    if settings is None:
        return Settings()
    if isinstance(settings, Settings):
        return settings
    if isinstance(settings, dict):
        return Settings().but(**settings)
    raise ParameterError(
        f"The 'settings' parameter must be a segeval.Settings, a dict of its fields or None. "
        f"Got {type(settings).__name__} instead."
    )


def _strings(owner: object, name: str, what: str, kinds: Any = Sequence) -> None:
    """Field ``name`` of ``owner`` made a tuple of strings, else a ParameterError saying it must be ``what``."""
    given = getattr(owner, name)
    if isinstance(given, str) or not isinstance(given, kinds) or not all(isinstance(x, str) for x in given):
        raise ParameterError(f"The '{name}' parameter must be {what}. Got {shown(given)} instead.")
    object.__setattr__(owner, name, tuple(given))


def _check_type(name: str, value: object, kind: type = bool, what: str = "True or False") -> None:
    """A ParameterError unless ``value`` is a ``kind``, saying it must be ``what``."""
    if not isinstance(value, kind):
        raise ParameterError(f"The '{name}' parameter must be {what}. Got {shown(value)} instead.")


DEFAULTS = Settings()

ENGINES = ("processes", "dask")
OUTPUTS = ("trec", "json", "csv")


@dataclass(frozen=True)
class EngineOptions:
    """How runs are read and by whom; no effect on the numbers."""

    memory: str = "auto"
    chunk_lines: int = CHUNK_LINES
    jobs: int | None = None
    engine: str = "processes"
    scheduler: str | None = None
    quiet: bool = False
    dask_timeout: float = DASK_TIMEOUT

    def __post_init__(self) -> None:
        check_choice("memory", self.memory, MEMORY_POLICIES)
        CUTOFF.check("chunk_lines", self.chunk_lines)
        if self.jobs is not None:
            CUTOFF.check("jobs", self.jobs)
        check_choice("engine", self.engine, ENGINES)
        if self.scheduler is not None and self.engine != "dask":
            raise ParameterError(f"The 'scheduler' parameter needs --engine dask. Got --engine {self.engine} instead.")
        if self.engine == "dask" and self.memory == "chunked":
            raise ParameterError(
                "The 'memory' parameter must be 'auto' or 'in-memory' with --engine dask (its "
                "workers read each run whole). Got 'chunked' instead."
            )
        _check_type("quiet", self.quiet)
        DASK_TIMEOUTS.check("dask_timeout", self.dask_timeout)


@dataclass(frozen=True)
class OutputOptions:
    """How ``segeval eval`` shows results: format, per-query rows, summary rows, header rows."""

    format: str = "trec"
    per_query: bool = False
    summary: bool = True
    header: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_choice("output", self.format, OUTPUTS)
        object.__setattr__(self, "header", tuple(self.header))


@dataclass(frozen=True)
class Job:
    """What every engine evaluates each run with, checked once and passed whole to the workers (it pickles)."""

    measures: tuple[str, ...] = DEFAULT_MEASURES
    adapters: tuple[str, ...] = ()
    settings: Settings = Settings()
    lenient: bool = False
    engine: EngineOptions = EngineOptions()

    def __post_init__(self) -> None:
        _strings(self, "measures", "a list of measure names")
        _strings(self, "adapters", "a list of adapter specs such as ['overlap']")
        _check_type("settings", self.settings, Settings, "a segeval.Settings")
        _check_type("lenient", self.lenient)
        _check_type("engine", self.engine, EngineOptions, "a segeval.core.settings.EngineOptions")
