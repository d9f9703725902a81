"""Every measure through every route: generated collections, the jobs to run on them, and one
function per route that runs a job and returns what a user sees.

A *collection* (seeded, :func:`documents` and :func:`segments`) is qrels and two runs with the
awkward parts of real ones: tied scores, the same docnos in several queries, queries only in the
qrels or only in the runs, negative, zero and graded grades (written ``02``, ``+1``, ``-0`` too)
and unjudged results.  A *job* is the measures (``-m``), the options (``-q``, ``-c``, ``-J``,
``-M n``, ``-l 2``, ``--trec-eval 9``) and, on segments, an adapter.  A *route* is one way the
same job reaches its numbers: ``segeval eval`` from files (the fast lane for small files),
``--memory chunked`` with a tiny ``--chunk-lines``, ``--memory in-memory``, the run on standard
input, ``-j 2`` with both runs, ``--engine dask``, and the Python API on paths, DataFrames, dicts,
ir_measures records and ranx objects (rendered by the report function the command uses).

Every route must print the same bytes and exit with the same code; the command's routes also
print the same notes.  The measures come from the registry (:data:`FAMILIES`), so a new measure
is covered without editing this file.
"""

from __future__ import annotations

import atexit
import io
import math
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from segeval.adapters.registry import EXAMPLES
from segeval.cli import main
from segeval.core.errors import SegevalError
from segeval.core.plan import REL_INFO
from segeval.measures.definitions import FAMILIES, SETS, expand

Kind = Literal["documents", "segments"]

#: grade spellings trec_eval reads with atoi-like rules (value in brackets)
GRADES = ["0", "0", "1", "1", "1", "2", "3", "-1", "02", "+1", "-0", "-2"]
#: score values: few, so that ties are common
SCORES = ["3", "2.5", "2.5", "2", "1", "1", "0.5", "0", "-1", "10", "1.0"]
#: every declared adapter variant and flag (segeval/adapters/registry.py)
ADAPTERS = EXAMPLES
#: the options a job may carry (each a tuple of command-line words)
OPTIONS: tuple[tuple[str, ...], ...] = (("-q",), ("-c",), ("-J",), ("-M", "3"), ("-l", "2"), ("--trec-eval", "9"))


# ----------------------------------------------------------------------------------------- collections

@dataclass(frozen=True)
class Collection:
    """Qrels and two runs, as lines of fields (times in whole seconds for segments)."""

    name: str
    kind: Kind
    #: (query, item, grade text) or (query, video, start, end, grade text)
    qrels: list[tuple[Any, ...]]
    #: per run: (query, item, rank, score text) or (query, video, start, end, rank, score text)
    runs: list[list[tuple[Any, ...]]]
    tags: tuple[str, str] = ("runA", "runB")

    def qrels_text(self) -> str:
        if self.kind == "documents":
            return "".join(f"{q} 0 {d} {g}\n" for q, d, g in self.qrels)
        return "".join(f"{q} Q0 {v} {mmss(s)} {mmss(e)} {g}\n" for q, v, s, e, g in self.qrels)

    def run_text(self, i: int) -> str:
        tag = self.tags[i]
        if self.kind == "documents":
            return "".join(f"{q} Q0 {d} {r} {s} {tag}\n" for q, d, r, s in self.runs[i])
        return "".join(f"{q} Q0 {v} {mmss(a)} {mmss(b)} {r} {s} {tag}\n" for q, v, a, b, r, s in self.runs[i])

    def write(self, folder: Path) -> tuple[str, str, str]:
        """The qrels and both runs written in ``folder`` (once): their paths."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = (folder / f"{self.name}.qrels", folder / f"{self.name}.runA", folder / f"{self.name}.runB")
        texts = (self.qrels_text(), self.run_text(0), self.run_text(1))
        for path, text in zip(paths, texts, strict=True):
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
        return str(paths[0]), str(paths[1]), str(paths[2])


def mmss(seconds: int) -> str:
    """The MediaEval ``M.S`` time of whole seconds."""
    return f"{seconds // 60}.{seconds % 60:02d}"


def documents(seed: int, *, qrels_only: bool = True) -> Collection:
    """A small document collection: 3-7 queries over one pool of docnos (shared by every query),
    often one only in the runs and one only in the qrels, tied scores and spelled grades.

    Not ``qrels_only``: what trec_eval 10 evaluates without stopping (its exit 4): no query only in
    the qrels (without -c), none whose grades are all negative ("Can't calculate measure")."""
    rng = random.Random(seed)
    pool = [f"d{i}" for i in range(14)] + ["D-07", "doc.3", "FBIS3-10", "FBIS3-9"]
    queries = [f"q{i}" for i in rng.sample(range(1, 30), rng.randint(3, 7))]
    only_qrels = queries[-1:] if rng.random() < 0.7 and qrels_only else []
    only_runs = queries[:1] if rng.random() < 0.7 else []
    spelled = rng.random() < 0.6  # else plain 0..3 and -1
    qrels: list[tuple[Any, ...]] = []
    runs: list[list[tuple[Any, ...]]] = [[], []]
    for q in queries:
        if q not in only_runs:
            for d in rng.sample(pool, rng.randint(1, 10)):
                grade = rng.choice(GRADES) if spelled else rng.choice(["0", "1", "1", "2", "3", "-1"])
                qrels.append((q, d, grade))
            if not qrels_only and all(g.startswith("-") and g != "-0" for p, _, g in qrels if p == q):
                qrels.append((q, next(d for d in pool if (q, d) not in {(p, e) for p, e, _ in qrels}), "0"))
        if q in only_qrels:
            continue
        for run in runs:
            docs = rng.sample(pool, rng.randint(1, 12))  # some judged, some not
            ranks = list(range(1, len(docs) + 1))
            rng.shuffle(ranks)  # the rank column does not order TREC runs: the score does
            run.extend((q, d, r, rng.choice(SCORES)) for d, r in zip(docs, ranks, strict=True))
    for run in runs:
        if rng.random() < 0.3:
            rng.shuffle(run)  # not grouped by query
    if not any(g.lstrip("+-0") for _, _, g in qrels):  # at least one relevant grade
        qrels.append((queries[-1], pool[0], "1"))
    return Collection(f"docs{seed}", "documents", qrels, runs)


def placeholder(seed: int) -> Collection:
    """:func:`documents` with three more queries only in the qrels, judging trec_eval's placeholder docno (which
    trec_eval 10 ranks for such a query under ``-c``) relevant, not relevant and unjudged (-1)."""
    c = documents(seed)
    extra = [(f"qx{i}", d, g) for i, grade in enumerate(("2", "0", "-1"))
             for d, g in (("ceci_nest_pas_un_docno", grade), (f"d{i}", "1"))]
    return Collection(f"placeholder{seed}", "documents", c.qrels + extra, c.runs)


def trials(seed: int) -> Collection:
    """:func:`documents` with each run cut to the key's (query, docno) pairs: a collection of detection
    trials, which QUESST's trial measures score (they refuse a run pair the key lacks)."""
    c = documents(seed)
    key = {(q, d) for q, d, _ in c.qrels}
    return Collection(f"trials{seed}", "documents", c.qrels, [[t for t in run if t[:2] in key] for run in c.runs])


def segments(seed: int) -> Collection:
    """A small segment collection (MediaEval qrels, linking runs): 2-5 queries over 4 videos,
    overlapping and nested segments, tied scores, grades 0-3 and -1.  Each run query's ranks
    follow its scores (ties in file order), so the rank order of files and the score order of
    dicts agree."""
    rng = random.Random(seed)
    videos = ["v1", "v2", "v3", "v10"]
    queries = [f"s{i}" for i in rng.sample(range(1, 30), rng.randint(2, 5))]
    only_qrels = queries[-1:] if rng.random() < 0.5 else []
    only_runs = queries[:1] if rng.random() < 0.5 else []

    def segment() -> tuple[str, int, int]:
        start = rng.randrange(0, 400, 5)
        return rng.choice(videos), start, start + rng.choice([5, 10, 30, 60, 90])

    qrels: list[tuple[Any, ...]] = []
    runs: list[list[tuple[Any, ...]]] = [[], []]
    for q in queries:
        judged = list(dict.fromkeys(segment() for _ in range(rng.randint(1, 6))))
        if q not in only_runs:
            qrels.extend((q, *s, rng.choice(["0", "1", "1", "2", "3", "-1"])) for s in judged)
        if q in only_qrels:
            continue
        for run in runs:
            found = [(v, max(0, a + rng.randint(-20, 20)), b + rng.randint(-20, 20)) for v, a, b in judged
                     if rng.random() < 0.7]
            found = [(v, a, b) for v, a, b in found if b > a]
            picked = list(dict.fromkeys([*found, *(segment() for _ in range(rng.randint(1, 6)))]))
            scores = sorted((rng.choice(SCORES) for _ in picked), key=float, reverse=True)
            run.extend((q, v, a, b, i + 1, s) for i, ((v, a, b), s) in enumerate(zip(picked, scores, strict=True)))
    if not any(g not in ("0", "-1") for *_, g in qrels):
        q, v, a, b, _ = qrels[0]
        qrels[0] = (q, v, a, b, "1")
    return Collection(f"segs{seed}", "segments", qrels, runs)


# ------------------------------------------------------------------------------------------ measures

#: the measures of qrels (those of trec_eval's other judgements, -R, are compared in tests/reference/test_trec_prefs.py)
QRELS_FAMILIES = tuple(f for f in FAMILIES if f.scope not in REL_INFO)


def registered_measures() -> list[str]:
    """Every registered measure as a user names it alone: each family by its name (a family without a
    plain form stands for its default parameters), each default parameter in the canonical spelling,
    the declared example, and one trec_eval parameter list per family with a parameter (``P.3,7``,
    ``iprec_at_recall..05,.5``, ``ndcg.1=3,2=9``)."""
    names: list[str] = []
    for f in QRELS_FAMILIES:
        names.append(f.name)
        names += [f.canonical(p) for p in f.defaults]
        if f.param is None:
            continue
        if f.example:
            names.append(f.example)
        tail = f.example[len(f.name) + 1:] if f.example.startswith(f.name + "_") else ""
        if f.param in ("int", "cutoff"):
            names.append(f"{f.name}.3,7")
        elif f.param in ("recall", "hundredths", "level"):
            names.append(f"{f.name}..05,.5")
        elif tail:  # gains, reals, raw: the example's parameter after a dot
            names.append(f"{f.name}.{tail}")
    names += [s for s in SETS if all(m.family.scope not in REL_INFO for m in expand(s))]  # official, all_trec, ...
    return list(dict.fromkeys(names))


def family_of(name: str) -> str:
    """The registered family a measure spelling belongs to (``P_10``, ``P.3,7`` -> ``P``)."""
    names = sorted((f.name for f in FAMILIES), key=len, reverse=True)
    return next((f for f in names if name == f or name.startswith((f + "_", f + "."))), name)


@dataclass(frozen=True)
class Job:
    """One ``segeval eval`` job: measures, options (command-line words) and an adapter (segments)."""

    measures: tuple[str, ...]
    options: tuple[str, ...] = ()
    adapter: str | None = None

    def args(self) -> list[str]:
        out = [*self.options]
        for m in self.measures:
            out += ["-m", m]
        if self.adapter is not None:
            out += ["-a", self.adapter]
        return out

    def label(self) -> str:
        return " ".join([*self.options, *(f"-m {m}" for m in self.measures),
                         *([f"-a {self.adapter}"] if self.adapter else [])]) or "(defaults)"


def jobs(kind: Kind, rng: random.Random, *, alone: bool = True, options: bool = True, combos: int = 0,
         adapters: tuple[str, ...] = ADAPTERS, leave_out: frozenset[str] = frozenset(),
         allowed: Callable[[Job], bool] = lambda job: True) -> Iterator[Job]:
    """Each measure alone (with every option in turn when ``options``), then ``combos`` random
    combinations of 2-5 measures with random options; on segments, each under every adapter in turn.
    Families in ``leave_out`` are not combined, and a combination ``allowed`` refuses loses its
    options (known defects, tested on their own)."""
    measures = registered_measures()
    combinable = [m for m in measures if family_of(m) not in leave_out]
    turn = 0

    def adapter() -> str | None:
        nonlocal turn
        turn += 1
        return adapters[turn % len(adapters)] if kind == "segments" else None

    if alone:
        for m in measures:
            yield Job((m,), adapter=adapter())
            if options:
                for o in OPTIONS:
                    yield Job((m,), o, adapter=adapter())
        if kind == "segments":  # every adapter with the default measures
            for a in adapters:
                yield Job(("official",), ("-q",), adapter=a)
    for _ in range(combos):
        chosen = tuple(rng.sample(combinable, rng.randint(2, 5)))
        opts = [w for o in rng.sample(OPTIONS, rng.randint(0, 3)) for w in o]
        job = Job(chosen, tuple(opts), adapter=adapter())
        yield job if allowed(job) else Job(chosen, (), job.adapter)


# -------------------------------------------------------------------------------------------- routes

@dataclass(frozen=True)
class Outcome:
    """What a user sees: exit code, standard output, and the notes and errors on standard error."""

    code: int
    stdout: str
    stderr: str = ""
    #: full-precision values by (measure, query or 'all'), for the API routes
    values: dict[tuple[str, str], Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Inputs:
    """A collection written to files, and the job's run."""

    collection: Collection
    qrels: str
    run: str
    other: str


RouteFunction = Callable[[Inputs, Job], Outcome]


@dataclass(frozen=True)
class Route:
    name: str
    run: RouteFunction
    #: the reader and executor ``--route`` (or ``Evaluation.route``) names for a plain document job
    path: str
    #: the same for a plain segment job (None: as ``path``)
    segment_path: str | None = None
    kinds: tuple[Kind, ...] = ("documents", "segments")
    #: the command's routes: their notes must agree too
    cli: bool = True
    #: in the default suite's slice (the others run when SEGEVAL_FULL is set: slow to start, or
    #: the same reader as a faster route)
    fast: bool = False
    #: run on the first job of a test only: it starts processes or talks to a cluster for each job, or
    #: runs the code of another route on these small files (in-memory: the file route's fast lane;
    #: dicts, ir_measures, ranx: turned into the DataFrames of "api frames", which takes every job)
    sampled: bool = False


def cli_outcome(args: list[str], stdin: bytes | None = None) -> Outcome:
    """``segeval ARGS`` in this process (standard input from ``stdin``)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(args)
    finally:
        sys.stdin = saved
    return Outcome(code, out.getvalue(), err.getvalue())


def notes(x: Inputs, got: Outcome) -> str:
    """The notes and errors without the run's name (a run on standard input has none)."""
    return (got.stderr.replace(f"{x.run}: ", "").replace("note: -: ", "note: ").replace(f"'{x.run}'", "'-'")
            .replace(f"error: {x.run}, line ", "error: -, line "))


def _file(x: Inputs, job: Job) -> Outcome:
    return cli_outcome(["eval", *job.args(), x.qrels, x.run])


def _chunked(x: Inputs, job: Job) -> Outcome:
    got = cli_outcome(["eval", "--memory", "chunked", "--chunk-lines", "2", *job.args(), x.qrels, x.run])
    # the documented note of a run whose queries are not grouped (chunks need them together)
    kept = "".join(line for line in got.stderr.splitlines(keepends=True) if "is not grouped by query" not in line)
    return Outcome(got.code, got.stdout, kept)


def _in_memory(x: Inputs, job: Job) -> Outcome:
    return cli_outcome(["eval", "--memory", "in-memory", *job.args(), x.qrels, x.run])


def _stdin(x: Inputs, job: Job) -> Outcome:
    return cli_outcome(["eval", *job.args(), x.qrels, "-"], stdin=Path(x.run).read_bytes())


def run_rows(stdout: str, run: str) -> str:
    """The rows of one run in the output of several (each row opened by its run file and a tab)."""
    head = run + "\t"
    return "".join(line[len(head):] for line in stdout.splitlines(keepends=True) if line.startswith(head))


def _several(x: Inputs, job: Job, extra: list[str]) -> Outcome:
    got = cli_outcome(["eval", *extra, *job.args(), x.qrels, x.run, x.other])
    if got.code != 0:  # each run's error is reported: the other run's is left out
        return Outcome(got.code, got.stdout, _own_notes(got.stderr, x.run, x.other))
    return Outcome(got.code, run_rows(got.stdout, x.run), _own_notes(got.stderr, x.run, x.other))


def _own_notes(stderr: str, run: str, other: str) -> str:
    """The notes and errors about ``run`` (not those about the other run), each with its indented lines."""
    kept, keep = [], True
    for line in stderr.splitlines(keepends=True):
        if not line.startswith(" "):
            keep = other not in line
        if keep:
            kept.append(line)
    return "".join(kept)


def _jobs2(x: Inputs, job: Job) -> Outcome:
    return _several(x, job, ["-j", "2"])


_CLUSTER: list[Any] = []


def dask_scheduler() -> str:
    """The address of one local Dask cluster for the whole session (started on first use)."""
    if not _CLUSTER:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0")
        _CLUSTER.append(cluster)
        atexit.register(cluster.close)
    return str(_CLUSTER[0].scheduler_address)


def _dask(x: Inputs, job: Job) -> Outcome:
    return _several(x, job, ["--engine", "dask", "--scheduler", dask_scheduler()])


def api_settings(job: Job) -> tuple[dict[str, Any], dict[str, bool]]:
    """The job's options as :func:`segeval.evaluate`'s keywords, and the report's (per_query, summary)."""
    words = list(job.options)
    kw: dict[str, Any] = {}
    shown = {"per_query": False, "summary": True}
    while words:
        w = words.pop(0)
        if w == "--route":  # the API names its route in Evaluation.route
            continue
        if w == "-q":
            shown["per_query"] = True
        elif w == "-n":
            shown["summary"] = False
        elif w == "-c":
            kw["missing_queries"] = "zero"
        elif w == "-J":
            kw["judged_only"] = True
        elif w == "-M":
            kw["max_results"] = int(words.pop(0))
        elif w == "-l":
            kw["relevance_level"] = int(words.pop(0))
        elif w == "--trec-eval":
            kw["trec_eval"] = words.pop(0)
        elif w == "--order":
            kw["order"] = words.pop(0)
        else:
            raise ValueError(f"no API form for the option {w!r}")
    return kw, shown


def api_outcome(x: Inputs, job: Job, qrels: object, run: object) -> Outcome:
    """:func:`segeval.evaluate` on these inputs, rendered by the command's report function."""
    import segeval
    from segeval.cli.commands.evaluate import HEADER_SETS
    from segeval.reports.trec import render

    kw, shown = api_settings(job)
    names = list(job.measures) or ["official"]
    header = [n for n in ("runid", "num_q") if any(s in names for s in HEADER_SETS)]
    try:
        ev = segeval.evaluate(qrels, run, names, adapter=job.adapter, **kw)
        only_run = kw.get("trec_eval") == "9" and kw.get("missing_queries") == "zero"  # as eval: 9.0.8's -c -q
        text = render(ev, x.collection.tags[0], header=header, **shown,
                      shown=set(ev.queries) - set(ev.without_results) if only_run else None)
    except SegevalError as exc:
        return Outcome(2, "", str(exc))
    except Exception as exc:  # as the command: an internal error exits 1
        return Outcome(1, "", f"internal error: {exc!r}")
    values = {(r.name, q): ev.per_query[r.name][i] for r in ev.requests if r.measure.family.per_query
              for i, q in enumerate(ev.queries)}
    values |= {(r.name, "all"): ev.summary[r.name] for r in ev.requests if r.measure.family.aggregator != "none"}
    return Outcome(0, text, f"route: {ev.route}\n" if "--route" in job.options else "", values)


def _api_paths(x: Inputs, job: Job) -> Outcome:
    return api_outcome(x, job, x.qrels, x.run)


def _api_frames(x: Inputs, job: Job) -> Outcome:
    import pandas as pd

    c = x.collection
    if c.kind == "documents":
        qrels = pd.DataFrame([(q, d, int(g)) for q, d, g in c.qrels], columns=["query_id", "doc_id", "relevance"])
        run = pd.DataFrame([(q, d, float(s)) for q, d, _, s in c.runs[0]], columns=["query_id", "doc_id", "score"])
    else:
        qrels = pd.DataFrame([(q, v, float(a), float(b), int(g)) for q, v, a, b, g in c.qrels],
                             columns=["query_id", "video", "start", "end", "relevance"])
        run = pd.DataFrame([(q, v, float(a), float(b), r, float(s)) for q, v, a, b, r, s in c.runs[0]],
                           columns=["query_id", "video", "start", "end", "rank", "score"])
    return api_outcome(x, job, qrels, run)


def _dicts(c: Collection) -> tuple[dict[str, dict[Any, int]], dict[str, dict[Any, float]]]:
    qrels: dict[str, dict[Any, int]] = {}
    run: dict[str, dict[Any, float]] = {}
    if c.kind == "documents":
        for q, d, g in c.qrels:
            qrels.setdefault(q, {})[d] = int(g)
        for q, d, _, s in c.runs[0]:
            run.setdefault(q, {})[d] = float(s)
    else:
        for q, v, a, b, g in c.qrels:
            qrels.setdefault(q, {})[(v, float(a), float(b))] = int(g)
        for q, v, a, b, _, s in sorted(c.runs[0], key=lambda t: (t[0], t[4])):
            run.setdefault(q, {})[(v, float(a), float(b))] = float(s)
    return qrels, run


def _api_dicts(x: Inputs, job: Job) -> Outcome:
    return api_outcome(x, job, *_dicts(x.collection))


def _api_ir_measures(x: Inputs, job: Job) -> Outcome:
    import ir_measures

    c = x.collection
    qrels = [ir_measures.Qrel(q, d, int(g)) for q, d, g in c.qrels]
    run = [ir_measures.ScoredDoc(q, d, float(s)) for q, d, _, s in c.runs[0]]
    return api_outcome(x, job, qrels, run)


def _api_ranx(x: Inputs, job: Job) -> Outcome:
    import ranx

    qrels, run = _dicts(x.collection)
    return api_outcome(x, job, ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run))


ROUTES: tuple[Route, ...] = (
    Route("file", _file, "scanner+whole", "segments+whole", fast=True),
    Route("chunked", _chunked, "scanner+chunks", "segments+chunks", fast=True),
    Route("in-memory", _in_memory, "scanner+whole", "segments+whole", fast=True, sampled=True),
    Route("stdin", _stdin, "scanner+chunks", "segments+chunks"),  # a stream, of unknown size, read in chunks
    Route("-j 2", _jobs2, "table+processes", sampled=True),
    Route("dask", _dask, "table+dask", sampled=True),
    Route("api paths", _api_paths, "table+whole", cli=False, fast=True),
    Route("api frames", _api_frames, "frame+whole", cli=False),
    Route("api dicts", _api_dicts, "frame+whole", cli=False, sampled=True),
    Route("api ir_measures", _api_ir_measures, "frame+whole", kinds=("documents",), cli=False, sampled=True),
    # importing ranx takes seconds (the full run only)
    Route("api ranx", _api_ranx, "frame+whole", kinds=("documents",), cli=False, sampled=True),
)
#: the route the others are compared with: the command on standard input (a stream, read in chunks from a
#: copy; in the fast slice: the API on paths, the general path without the command)
REFERENCE = ("stdin", "api paths")


def routes(kind: Kind, full: bool, sampled: bool = True) -> list[Route]:
    return [r for r in ROUTES if kind in r.kinds and (full or r.fast) and (sampled or not r.sampled)]


# ----------------------------------------------------------------------------------------- comparing

def same_values(a: dict[tuple[str, str], Any], b: dict[tuple[str, str], Any]) -> bool:
    """Equal at full precision (NaN equal to NaN)."""
    if a.keys() != b.keys():
        return False
    for k, v in a.items():
        w = b[k]
        if isinstance(v, float) and isinstance(w, float) and math.isnan(v) and math.isnan(w):
            continue
        if v != w:
            return False
    return True


def differences(x: Inputs, job: Job, chosen: list[Route]) -> list[str]:
    """Each route whose outcome differs from the reference route's (stdout and exit code; notes
    among the command's routes; full-precision values among the API's), with the first difference;
    and any route that fails with an internal error (exit 1) instead of a result or a message."""
    outcomes = {r.name: r.run(x, job) for r in chosen}
    names = [r.name for r in chosen]
    ref = outcomes[next((n for n in REFERENCE if n in outcomes), names[0])]
    cli_ref = next((outcomes[r.name] for r in chosen if r.cli), None)
    api_ref = outcomes.get("api paths")
    found: list[str] = []
    for r in chosen:
        got = outcomes[r.name]
        problem = ""
        if got.code not in (0, 2):
            problem = f"exit {got.code}: {(got.stderr or got.stdout).strip()[:300]}"
        elif got.code != ref.code:
            problem = f"exit {got.code} (reference {ref.code}): {(got.stderr or got.stdout).strip()[:200]}"
        elif got.stdout != ref.stdout:
            problem = first_difference(ref.stdout, got.stdout)
        elif r.cli and cli_ref is not None and notes(x, got) != notes(x, cli_ref):
            problem = "stderr: " + first_difference(notes(x, cli_ref), notes(x, got))
        elif not r.cli and api_ref is not None and not same_values(api_ref.values, got.values):
            keys = sorted(set(api_ref.values) | set(got.values))
            k = next(k for k in keys if not same_values({k: api_ref.values.get(k)}, {k: got.values.get(k)}))
            problem = f"value {k}: {got.values.get(k)!r}, api paths {api_ref.values.get(k)!r}"
        if problem:
            found.append(f"{x.collection.name} [{r.name}] {job.label()}: {problem}")
    return found


def first_difference(expected: str, got: str) -> str:
    a, b = expected.splitlines(), got.splitlines()
    for i, (p, q) in enumerate(zip(a, b, strict=False)):
        if p != q:
            return f"line {i + 1}: {q!r}, expected {p!r}"
    return f"{len(b)} lines, expected {len(a)}" + (f" (first extra: {(a + b)[min(len(a), len(b))]!r})")
