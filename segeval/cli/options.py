"""Every argument and option more than one command takes, declared once with its help (a command keeps its own
default in its signature; an option only one command takes is declared with that command)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from segeval.adapters.registry import ADAPTER_HELP
from segeval.core.domains import CUTOFF, SEED, check_options
from segeval.core.errors import utf8_text
from segeval.core.settings import DASK_TIMEOUTS, DEFAULTS, EngineOptions, Settings
from segeval.measures import REGISTRY

if TYPE_CHECKING:
    from segeval.core.domains import Domain

_TIMES = "times as --time-format says"


def argument(metavar: str, help: str) -> Any:
    """A positional argument, shown as ``metavar`` in the usage line (it has no default to show)."""
    return typer.Argument(metavar=metavar, show_default=False, help=help)


def numeric(flag: str, domain: Domain, text: str, *more: str, metavar: str | None = None) -> Any:
    """A numeric option: its flag (then ``more``), help ending in its domain, and the domain checked as the command
    line is read (before any work); :func:`segeval.cli.commands.load` lists it in
    :data:`~segeval.core.domains.OPTIONS`."""

    def checked(value: Any) -> Any:
        check_options({"value": (flag, domain)}, {"value": value})
        return value

    checked.declared = (flag, domain)  # type: ignore[attr-defined]
    return typer.Option(flag, *more, metavar=metavar, help=f"{text}: {domain}.", callback=checked)


def group(
    keyword: str, build: type, declared: Mapping[str, Any], **fixed: object
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A decorator giving a command the options ``declared`` (a field of the dataclass ``build`` -> its annotated
    type; its default the field's) in place of its parameter ``keyword``, which receives ``build`` of their values
    and ``fixed``: options several commands take as one object, declared once."""
    defaults = {f.name: f.default for f in dataclasses.fields(build)}

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        own = list(inspect.signature(command, eval_str=True).parameters.values())
        at = [p.name for p in own].index(keyword)
        added = [inspect.Parameter(n, own[at].kind, annotation=a, default=defaults[n]) for n, a in declared.items()]
        parameters = [*own[:at], *added, *own[at + 1 :]]

        @functools.wraps(command)
        def run(**given: Any) -> None:
            values = {name: given.pop(name) for name in declared}
            command(**given, **{keyword: build(**values, **fixed)})

        run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        return run

    return decorate


def output_option(help: str, metavar: str = "text|json|csv") -> Any:
    """A command's ``--output``/``-o`` option."""
    return typer.Option("--output", "-o", metavar=metavar, help=help)


# ---- inputs
Qrels = Annotated[
    str,
    argument(
        "QRELS",
        f"Qrels file ('-' for standard input, .gz ok): TREC 'qid 0 docno rel' lines for documents, "
        f"MediaEval 'qid Q0 video start end rel' lines for segments ({_TIMES}), or a QUESST key 'query "
        f"utterance 1|0'; the format is detected.",
    ),
]
MediaEvalQrels = Annotated[
    str, argument("QRELS", f"MediaEval qrels: 'qid Q0 video start end rel' lines ({_TIMES}; .gz ok).")
]
Run = Annotated[
    str,
    argument(
        "RUN",
        f"Run file (.gz ok): TREC 'qid Q0 docno rank score tag' lines, or MediaEval segment lines "
        f"(linking: 'qid Q0 video start end rank score run'; search: 'qid Q0 video start end jumpin rank score "
        f"[run]'; {_TIMES}), or an STD list (XML, query by example); the format is detected.",
    ),
]
MediaEvalRun = Annotated[str, argument("RUN", f"Run file in the --kind format ({_TIMES}; .gz ok).")]
Runs = Annotated[
    list[str],
    argument(
        "RUN...",
        f"Run files (TREC or MediaEval lines or STD lists, detected; {_TIMES}; .gz ok), globs or directories "
        f"(each file once; outputs in this order).",
    ),
]
CompareRuns = Annotated[
    list[str],
    argument("RUN...", "Two or more run files, globs or directories (each file once; outputs in this order)."),
]

# ---- reading
TimeFormat = Annotated[
    str,
    typer.Option(
        "--time-format",
        metavar="mmss|seconds|hms",
        help="Times in segment files: mmss (M.S, the MediaEval format), seconds (1025.5) or hms (0:17:05.5).",
    ),
]
TIME_FORMAT = DEFAULTS.time_format


# ---- evaluation
def adapter_option(help: str) -> Any:
    """The ``--adapter``/``-a`` option (repeatable when its type is a list)."""
    return typer.Option("--adapter", "-a", metavar="NAME", help=help)


Adapter = Annotated[
    str | None,
    adapter_option(
        f"Relevance adapter for segment runs: {ADAPTER_HELP} (default: exact for documents, overlap-once for "
        "segments; overlap is the MediaEval reference's)."
    ),
]
EvalAdapters = Annotated[
    list[str] | None,
    adapter_option(
        f"Relevance adapter (repeatable: each labels for every label measure, whose names get its suffix): "
        f"{ADAPTER_HELP} (default: exact for documents, overlap-once for segments)."
    ),
]
Adapters = Annotated[
    list[str] | None, adapter_option(f"Adapters to label with (repeatable; default overlap-once): {ADAPTER_HELP}.")
]
Measure = Annotated[str, typer.Option("--measure", "-m", metavar="NAME", help=REGISTRY.help("map", repeatable=False))]


def measures(default: str) -> Any:
    """The repeatable ``--measure`` option, its help naming the command's ``default``."""
    return typer.Option("--measure", "-m", metavar="NAME", help=REGISTRY.help(default=default))


Level = Annotated[int, typer.Option("-l", metavar="N", help="Relevant means a qrels grade >= N.")]
MaxResults = Annotated[int | None, typer.Option("-M", metavar="N", help="Use the first N results per query.")]
JudgedOnly = Annotated[bool, typer.Option("-J", help="Drop unjudged results before evaluating.")]
TrecEvalVersion = Annotated[
    str,
    typer.Option(
        "--trec-eval",
        metavar="10|9",
        help="trec_eval version to reproduce: 10 (default) or 9.0.8, which pytrec_eval "
        "wraps (32-bit scores, iprec_at_recall cut-offs rounded up).",
    ),
]
Query = Annotated[
    str, typer.Option("--query", "-Q", metavar="QID", parser=utf8_text, help="The query to show (a qrels query).")
]

# ---- statistics
Baseline = Annotated[
    str | None,
    typer.Option("--baseline", metavar="RUN", help="The run the others are compared with (default: the first)."),
]
Test = Annotated[
    str,
    typer.Option(
        "--test",
        metavar="t|wilcoxon|randomization|bootstrap|tukey",
        help="Significance test: paired (t, wilcoxon, randomization, bootstrap), or "
        "Tukey's HSD over all runs of a measure (as ranx).",
    ),
]
Correction = Annotated[
    str | None,
    typer.Option(
        "--correction",
        metavar="holm|bonferroni|none",
        help="Correction of the p-values across the comparisons (default: holm; none with --test tukey, which "
        "adjusts its own).",
    ),
]
AllPairs = Annotated[
    bool,
    typer.Option(
        "--all-pairs",
        help="Compare every pair of runs, not each run with the "
        "baseline (the correction runs over all pairs and measures).",
    ),
]
Seed = Annotated[int, numeric("--seed", SEED, "Random seed (results are reproducible)", metavar="S")]

# ---- pools
Depth = Annotated[int, numeric("--depth", CUTOFF, "Pool depth: each run's top D results", "-d", metavar="D")]


def groups_option(more: str = "") -> Any:
    """The ``--groups`` option (``more``: what else the command does with it)."""
    return typer.Option(
        "--groups",
        metavar="FILE",
        help=f"'run group [type]' lines, one per run (its file name, or that without extensions){more}.",
    )


Groups = Annotated[str, groups_option()]
OptionalGroups = Annotated[str | None, groups_option("; adds each group's unique contribution")]

# ---- output
TableOutput = Annotated[
    str, output_option("text: tab-separated columns; json: a list of rows; csv: comma-separated with a header line.")
]
Figure = Annotated[str, output_option("Where to write the figure.", "FILE.png|svg")]
Quiet = Annotated[bool, typer.Option("--quiet", help="No progress line on stderr.")]

# ---- engines (checked by segeval.core.settings.EngineOptions)
#: a command's parameter ``engine_options``, replaced by the engine options (in this order)
with_engine = group(
    "engine_options",
    EngineOptions,
    {
        "jobs": Annotated[
            int | None,
            numeric(
                "--jobs",
                CUTOFF,
                "Processes for several runs (default: all cores; the output does not depend on it)",
                "-j",
                metavar="N",
            ),
        ],
        "quiet": Quiet,
        "memory": Annotated[
            str,
            typer.Option(
                "--memory",
                metavar="auto|chunked|in-memory",
                help="How a run is read. chunked: in chunks, evaluating each query once its lines are read, so "
                "memory stays flat (needs each query's lines together, else it says so and reads the file whole); "
                "in-memory: whole; auto: chunked for plain TREC runs of 2 MiB or more that the byte scanner reads "
                "(whole if not grouped by query, below 128 MiB), for other files of 128 MiB or more (gzip: a "
                "quarter). Same output.",
            ),
        ],
        "chunk_lines": Annotated[
            int,
            numeric(
                "--chunk-lines",
                CUTOFF,
                "Lines per chunk in the chunked path (parsed and evaluated in batches of at least 2 MiB of whole "
                "chunks; same output)",
                metavar="N",
            ),
        ],
        "engine": Annotated[
            str,
            typer.Option(
                "--engine",
                metavar="processes|dask",
                help="processes: --jobs local processes; dask: (run, query-partition) tasks on a Dask cluster "
                "(pip install 'segeval[dask]'). Same output.",
            ),
        ],
        "scheduler": Annotated[
            str | None,
            typer.Option(
                "--scheduler",
                metavar="ADDRESS",
                help="With --engine dask: the scheduler of an existing cluster, such as tcp://host:8786 (the "
                "workers must see the run files). Default: start a local cluster of --jobs worker processes.",
            ),
        ],
        "dask_timeout": Annotated[
            float,
            numeric(
                "--dask-timeout",
                DASK_TIMEOUTS,
                "With --engine dask: how long to wait for a worker, at the start and whenever none is left while "
                "runs wait (then exit 2)",
                metavar="SECONDS",
            ),
        ],
    },
)
#: what a command's ``engine_options`` stands for until :data:`with_engine` replaces it
ENGINE_DEFAULTS = EngineOptions()

#: a command's parameter ``settings``, replaced by the options (in this order) of the policies the comparing
#: commands share with ``eval`` (every qrels query counts)
with_settings = group(
    "settings",
    Settings,
    {
        "time_format": TimeFormat,
        "relevance_level": Level,
        "max_results": MaxResults,
        "judged_only": JudgedOnly,
        "trec_eval": TrecEvalVersion,
    },
    missing_queries="zero",
)
