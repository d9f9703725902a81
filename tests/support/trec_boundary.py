"""Generated qrels and runs whose exact trec_eval values sit on a 4th-decimal boundary.

trec_eval prints ``%6.4f`` of a double.  When a measure's exact value ends in 5 at the 5th
decimal (x.xxxx5 as a rational number), the printed digit depends on the last bit of the
double, so on the order and the operands of every sum and division.  This module builds small
qrels and runs in which many per-query values and ``all`` averages are such boundaries, for
every measure family of ``-m all_trec`` with rational values (the log-based ndcg family, binG,
G and the geometric means are irrational and never sit exactly on a boundary; they are still
compared line by line) and for parameter variants (:data:`PARAMS`).

The exact values are computed here with fractions from the definitions in
``docs/trec_eval-semantics.md``; they only say which printed lines are boundaries.  What a
line must print is trec_eval's output (stored in ``tests/fixtures/trec_boundary``).

Write the fixtures with trec_eval binaries built from their sources (../shared/src)::

    python -m tests.support.trec_boundary --trec-eval /tmp/te10/trec_eval --trec-eval-9 /tmp/te9/trec_eval

It also writes the parity fixtures (:data:`PARITY_FLAGS`: trec_eval 10.0's flag sets, and 9.0.8's for
``--trec-eval 9``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

FIXTURE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "trec_boundary"
SEEDS = tuple(range(13))  # the seeds whose trec_eval outputs are stored: one per ALL_TARGETS entry
#: the two trec_eval command lines of every case (the files are appended)
ALL_TREC = ("-q", "-m", "all_trec")
PARAMS = ("-q", "-m", "P.32,160", "-m", "recall.32", "-m", "map_cut.32", "-m", "relative_P.32", "-m", "unj.32",
          "-m", "success.32", "-m", "iprec_at_recall..05,.15,.25,.33,.5", "-m", "Rprec_mult.0.5,1.5,3",
          "-m", "11pt_avg..2,.4,.6,.8", "-m", "utility.0.00005,0,0,0", "-m", "ndcg_cut.32")
COMMANDS = {"all_trec": ALL_TREC, "params": PARAMS}

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL = tuple(f"{x / 10:.1f}" for x in range(11))  # trec_eval's iprec_at_recall and 11pt_avg levels
RPREC_MULT = tuple(f"{x / 10:.1f}" for x in range(2, 21, 2))
SMOOTH = (1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 40)  # 2^a 5^b: denominators that end in a finite decimal
NONPOOL, UNJUDGED = -1, -2  # trec_eval's values of a retrieved doc not in the qrels / judged negative
EPS = Fraction(1, 100_000)  # infAP's epsilon
P_RBP = Fraction(9, 10)


@dataclass(frozen=True)
class Query:
    """One topic: the trec_eval value of each ranked doc (a level >= 0, NONPOOL or UNJUDGED) and
    the qrels levels of the judged docs that are not retrieved (-1 written as a negative judgement)."""

    qid: str
    ranked: tuple[int, ...]
    unretrieved: tuple[int, ...]

    @property
    def levels(self) -> list[int]:
        """The qrels values >= 0 of the topic."""
        return [v for v in (*self.ranked, *self.unretrieved) if v >= 0]

    @property
    def num_rel(self) -> int:
        return sum(1 for v in self.levels if v >= 1)

    @property
    def num_nonrel(self) -> int:
        return sum(1 for v in self.levels if v == 0)

    def found(self, k: int) -> int:
        """Relevant docs in the top k."""
        return sum(1 for v in self.ranked[:k] if v >= 1)

    def rel_ranks(self) -> list[int]:
        return [i + 1 for i, v in enumerate(self.ranked) if v >= 1]


# ----------------------------------------------------------------- exact values, by family

def _name_p(x: str) -> str:
    return f"{float(x):3.2f}"


def _map(q: Query, cut: int | None = None) -> Fraction:
    if q.num_rel == 0:
        return Fraction(0)
    ranks = [r for r in q.rel_ranks() if cut is None or r <= cut]
    return sum((Fraction(k, r) for k, r in enumerate(ranks, start=1)), Fraction(0)) / q.num_rel


def _lround(x: float) -> int:
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


def _iprec(q: Query, level: str) -> Fraction:
    ranks = q.rel_ranks()
    c = _lround(float(level) * q.num_rel)
    if c > len(ranks) or not ranks:
        return Fraction(0)
    start = ranks[max(c, 1) - 1]
    return max(Fraction(q.found(i), i) for i in range(start, len(q.ranked) + 1))


def _bpref(q: Query) -> Fraction:
    big_r, big_n = q.num_rel, q.num_nonrel
    if big_r == 0:
        return Fraction(0)
    total, nonrel = Fraction(0), 0
    for v in q.ranked:
        if v < 0:
            continue
        if v == 0:
            nonrel += 1
        else:
            total += 1 - Fraction(min(nonrel, big_r), min(big_n, big_r)) if nonrel else 1
    return total / big_r


def _infap(q: Query) -> Fraction:
    total, rel, nonrel, unjudged = Fraction(0), 0, 0, 0
    for j, v in enumerate(q.ranked):
        if v == NONPOOL:
            continue
        if v == UNJUDGED:
            unjudged += 1
        elif v == 0:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                total += 1
            else:
                total += (Fraction(1, j + 1) + Fraction(j, j + 1) * Fraction(rel - 1 + nonrel + unjudged, j)
                          * ((rel - 1 + EPS) / (rel - 1 + nonrel + 2 * EPS)))
    return total / q.num_rel if q.num_rel else total


def _p_at(q: Query, k: int) -> Fraction:
    return Fraction(q.found(k), k) if k > 0 else Fraction(0)


def _set(q: Query) -> dict[str, Fraction]:
    n, big_r, rr = len(q.ranked), q.num_rel, q.found(len(q.ranked))
    out = {"set_P": Fraction(rr, n) if n else Fraction(0),
           "set_relative_P": Fraction(rr, min(n, big_r)) if n and big_r else Fraction(0),
           "set_recall": Fraction(rr, big_r) if big_r else Fraction(0),
           "set_map": Fraction(rr * rr, n * big_r) if n and big_r else Fraction(0),
           "set_F": Fraction(0)}
    if rr:
        p, r = Fraction(rr, n), Fraction(rr, big_r)
        out["set_F"] = 2 * p * r / (p + r)
    return out


def _rbp(q: Query) -> dict[str, Fraction]:
    top = max(q.levels, default=0)  # gains are the levels, scaled into [0, 1] when the highest is above 1
    gains = [Fraction(max(v, 0), top if top > 1 else 1) for v in q.ranked]
    out = {"rbp": (1 - P_RBP) * sum((g * P_RBP**i for i, g in enumerate(gains)), Fraction(0)),
           "rbp_resid": Fraction(0)}
    unjudged = [i for i, v in enumerate(q.ranked) if v < 0]
    if unjudged:
        out["rbp_resid"] = P_RBP ** len(q.ranked) + (1 - P_RBP) * sum((P_RBP**i for i in unjudged), Fraction(0))
    return out


def _rprec(q: Query) -> Fraction:
    m = min(len(q.ranked), q.num_rel)
    return Fraction(q.found(m), q.num_rel) if m else Fraction(0)


def _relative_p(q: Query, k: int) -> Fraction:
    return Fraction(q.found(k), min(k, q.num_rel)) if q.num_rel else Fraction(0)


def _unj(q: Query, k: int) -> Fraction:
    return Fraction(sum(1 for v in q.ranked[:k] if v < 0), k)


def _rprec_mult(q: Query, x: str) -> Fraction:
    return _p_at(q, int(float(x) * q.num_rel + 0.9))  # trec_eval's truncation, in doubles


def _utility(q: Query, p1: Fraction = Fraction(1), p2: Fraction = Fraction(-1)) -> Fraction:
    rr = q.found(len(q.ranked))
    return p1 * rr + p2 * (len(q.ranked) - rr)


Exact = Callable[[Query], dict[str, Fraction]]

#: per family (of all_trec, then the parameter variants of :data:`PARAMS`): the exact values it prints
FAMILIES: dict[str, Exact] = {
    "map": lambda q: {"map": _map(q)},
    "Rprec": lambda q: {"Rprec": _rprec(q)},
    "bpref": lambda q: {"bpref": _bpref(q)},
    "recip_rank": lambda q: {"recip_rank": Fraction(1, q.rel_ranks()[0]) if q.rel_ranks() else Fraction(0)},
    "iprec_at_recall": lambda q: {f"iprec_at_recall_{_name_p(x)}": _iprec(q, x) for x in RECALL},
    "P": lambda q: {f"P_{k}": _p_at(q, k) for k in CUTOFFS},
    "recall": lambda q: {f"recall_{k}": Fraction(q.found(k), q.num_rel) if q.num_rel else Fraction(0)
                         for k in CUTOFFS},
    "infAP": lambda q: {"infAP": _infap(q)},
    "Rprec_mult": lambda q: {f"Rprec_mult_{_name_p(x)}": _rprec_mult(q, x) for x in RPREC_MULT},
    "utility": lambda q: {"utility": _utility(q)},
    "11pt_avg": lambda q: {"11pt_avg": sum((_iprec(q, x) for x in RECALL), Fraction(0)) / len(RECALL)},
    "map_cut": lambda q: {f"map_cut_{k}": _map(q, k) for k in CUTOFFS},
    "relative_P": lambda q: {f"relative_P_{k}": _relative_p(q, k) for k in CUTOFFS},
    "success": lambda q: {f"success_{k}": Fraction(int(q.found(k) > 0)) for k in (1, 5, 10)},
    "set": _set,
    "rbp": lambda q: {"rbp": _rbp(q)["rbp"]},
    "rbp_resid": lambda q: {"rbp_resid": _rbp(q)["rbp_resid"]},
    "unj": lambda q: {f"unj_{k}": _unj(q, k) for k in (5, 10, 20)},
    # the parameter variants
    "P.32,160": lambda q: {"P_32": _p_at(q, 32), "P_160": _p_at(q, 160)},
    "recall.32": lambda q: {"recall_32": Fraction(q.found(32), q.num_rel) if q.num_rel else Fraction(0)},
    "map_cut.32": lambda q: {"map_cut_32": _map(q, 32)},
    "relative_P.32": lambda q: {"relative_P_32": _relative_p(q, 32)},
    "unj.32": lambda q: {"unj_32": _unj(q, 32)},
    "iprec_at_recall..05,...": lambda q: {f"iprec_at_recall_{_name_p(x)}": _iprec(q, x)
                                          for x in (".05", ".15", ".25", ".33", ".5")},
    "Rprec_mult.0.5,1.5,3": lambda q: {f"Rprec_mult_{_name_p(x)}": _rprec_mult(q, x) for x in ("0.5", "1.5", "3")},
    "11pt_avg..2,.4,.6,.8": lambda q: {"11pt_avg_.2,.4,.6,.8": sum((_iprec(q, x) for x in (".2", ".4", ".6", ".8")),
                                                                   Fraction(0)) / 4},
    "utility.0.00005,0,0,0": lambda q: {"utility_0.00005,0,0,0": _utility(q, Fraction("0.00005"), Fraction(0))},
}
#: families whose per-query values are never (or hardly ever) boundaries (P and unj at the default
#: cut-offs have denominators 5 to 1000; success is 0 or 1; utility is an integer; rbp_resid's
#: 5th decimal is 0, 1 or 9 within 5 ranks): only their ``all`` averages are aimed at
ALL_ONLY = frozenset({"P", "unj", "success", "utility", "rbp_resid"})


def exact(q: Query) -> dict[str, Fraction]:
    """Every rational value trec_eval prints for the topic (both command lines)."""
    out: dict[str, Fraction] = {}
    for f in FAMILIES.values():
        out.update(f(q))
    return out


def boundary(v: Fraction) -> bool:
    """True when v ends in 5 at the 5th decimal exactly (x.xxxx5)."""
    scaled = v * 100_000
    return scaled.denominator == 1 and abs(scaled.numerator) % 10 == 5


#: the family of every printed name (each family prints the same names for any topic)
FAMILY_OF = {name: family for family, f in FAMILIES.items() for name in f(Query("x", (1,), ()))}


# ----------------------------------------------------------------- generation

def random_query(rng: random.Random, qid: str) -> Query:
    """A small topic whose counts and ranks lean to 2^a 5^b, so that exact values are often finite
    decimals (and often boundaries)."""
    big_r = rng.choice(SMOOTH)
    n = rng.choice((*SMOOTH, 3, 6, 7, 12))
    top = rng.choice((1, 1, 2, 4))
    mode = rng.random()
    ranked = [NONPOOL] * n
    if mode < 0.15:  # one relevant doc at a 2^a 5^b rank, after docs not in the pool (infAP's exact terms)
        big_r = rng.choice((1, 1, 2, 4, 5))
        rank = rng.choice((*SMOOTH, 160))
        ranked = [NONPOOL] * max(n, rank)
        ranked[rank - 1] = rng.randint(1, top)
    elif mode < 0.35:  # many relevant docs among all the judged non-relevant ones: long sums (bpref, map)
        big_r, big_n = rng.choice((16, 20, 32, 40)), rng.choice((4, 5, 8, 10, 16, 20, 25))
        m = rng.randint(8, big_r)
        ranked = [0] * big_n + [rng.randint(1, top) for _ in range(m)]
        rng.shuffle(ranked)
    else:
        slots = [r - 1 for r in SMOOTH if r <= n] if mode < 0.7 else list(range(n))
        m = rng.randint(0, min(big_r, len(slots)))
        for i in rng.sample(slots, m):
            ranked[i] = rng.randint(1, top)
        p_nonrel, p_unjudged = rng.random(), rng.random() * 0.3
        for i in range(n):
            if ranked[i] == NONPOOL:
                x = rng.random()
                ranked[i] = 0 if x < p_nonrel else UNJUDGED if x < p_nonrel + p_unjudged else NONPOOL
    found = sum(1 for v in ranked if v >= 1)
    missing = max(big_r - found, 0)
    unretrieved = [rng.randint(1, top) for _ in range(missing)]
    unretrieved += [0] * rng.choice((0, 0, 1, 2, 4, 5, 8, 16, 25))
    unretrieved += [-1] * rng.choice((0, 0, 1))
    if top > 1 and top not in ranked and top not in unretrieved:  # the highest grade is judged somewhere
        unretrieved.append(top)
    if not any(v >= 0 for v in (*ranked, *unretrieved)):  # trec_eval needs a level >= 0 in the qrels
        unretrieved.append(0)
    return Query(qid, tuple(ranked), tuple(unretrieved))


def short(v: Fraction) -> bool:
    """True when v has at most 5 decimals, so that a sum of such values over Q topics can be made
    a boundary average by the last topic."""
    return (v * 100_000).denominator == 1


def _value(q: Query, name: str) -> Fraction:
    return FAMILIES[FAMILY_OF[name]](q)[name]


def _scaled(name: str, v: Fraction) -> Fraction:
    return v * 11 if name == "11pt_avg" else v  # a sum of 11 finite decimals, divided by 11


def find(rng: random.Random, qid: str, family: str, keep: Sequence[str] = (), tries: int = 300) -> Query:
    """A random topic with a boundary value in ``family`` whose values of the names in ``keep`` have
    at most 5 decimals (so that an ``all`` average of them can still be a boundary); when no such
    topic turns up, one that keeps them short."""
    for attempt in range(10 * tries):
        q = random_query(rng, qid)
        if not all(short(_scaled(name, _value(q, name))) for name in keep):
            continue
        if attempt >= tries or any(boundary(v) for v in FAMILIES[family](q).values()):
            return q
    raise AssertionError(f"no topic keeps {keep} short")  # pragma: no cover - a topic with no relevant doc does


@dataclass(frozen=True)
class Case:
    """A generated qrels and run, with the boundary lines: (measure, qid or "all") -> exact value."""

    seed: int
    queries: tuple[Query, ...]
    qrels: str
    run: str
    boundaries: dict[tuple[str, str], Fraction]


#: per seed: the number of topics Q and the names whose ``all`` average the last topic makes a
#: boundary (sum / Q must end in 5 at the 5th decimal: success_1 and utility need Q = 32,
#: P_1000 Q = 20 or 4, P_160 Q = 5, rbp_resid Q = 2, ...)
ALL_TARGETS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (4, ("map", "utility_0.00005,0,0,0")),
    (5, ("bpref", "P_160")),
    (8, ("infAP",)),
    (4, ("rbp",)),
    (8, ("11pt_avg_.2,.4,.6,.8",)),
    (20, ("map_cut_10", "P_1000")),
    (16, ("Rprec", "set_F")),
    (32, ("success_1", "utility", "unj_5")),
    (5, ("map_cut_32",)),
    (4, ("11pt_avg",)),
    (8, ("Rprec_mult_1.50", "relative_P_32")),
    (2, ("rbp_resid",)),
    (4, ("recip_rank",)),
)


def _pool(rng: random.Random, qid: str, wanted: Sequence[str], size: int) -> list[tuple[Query, tuple[int, ...]]]:
    """``size`` random topics whose values of ``wanted`` have at most 5 decimals, with those values
    times 10^5 (times 11 for 11pt_avg)."""
    out: list[tuple[Query, tuple[int, ...]]] = []
    while len(out) < size:
        q = random_query(rng, qid)
        scaled = [_scaled(name, _value(q, name)) * 100_000 for name in wanted]
        if all(x.denominator == 1 for x in scaled):
            out.append((q, tuple(int(x) for x in scaled)))
    return out


def generate(seed: int) -> Case:
    """The case of ``seed``: each topic but the last two aims at a per-query boundary of one family
    in turn; the last two make the ``all`` averages of the seed's :data:`ALL_TARGETS` boundaries
    (a pair whose sums have the right residues, found through a table of the second topics)."""
    rng = random.Random(seed)
    count, wanted = ALL_TARGETS[seed % len(ALL_TARGETS)]
    targets = [f for f in FAMILIES if f not in ALL_ONLY]
    rng.shuffle(targets)
    queries = [find(rng, f"q{i:02d}", targets[i % len(targets)], wanted) for i in range(count - 2)]
    # (sum + x) / (10^5 c Q) ends in 5 at the 5th decimal <=> sum + x = 5 c Q (mod 10 c Q)
    scale = [11 if name == "11pt_avg" else 1 for name in wanted]
    modulus = [10 * c * count for c in scale]
    sums = [int(sum((_scaled(name, _value(q, name)) for q in queries), Fraction(0)) * 100_000) for name in wanted]
    pair: tuple[Query, Query] | None = None
    for _ in range(8):  # rounds of fresh candidates until a pair fits (the first pair if none does)
        firsts = _pool(rng, f"q{count - 2:02d}", wanted, 200)
        seconds = _pool(rng, f"q{count - 1:02d}", wanted, 200)
        pair = pair or (firsts[0][0], seconds[0][0])
        table: dict[tuple[int, ...], Query] = {}
        for q, xs in seconds:
            table.setdefault(tuple(x % m for x, m in zip(xs, modulus, strict=True)), q)
        found = next((
            (q, table[need]) for q, xs in firsts
            if (need := tuple((5 * c * count - s - x) % m
                              for c, s, x, m in zip(scale, sums, xs, modulus, strict=True))) in table), None)
        if found:
            pair = found
            break
    assert pair is not None
    return case_of(seed, [*queries, *pair])


def case_of(seed: int, queries: Sequence[Query]) -> Case:
    """The qrels and run text of the topics, and their boundary lines."""
    qrels, run = [], []
    bounds: dict[tuple[str, str], Fraction] = {}
    totals: dict[str, Fraction] = {}
    for q in queries:
        for i, v in enumerate(q.ranked):
            doc = f"{q.qid}.d{i:03d}"
            if v != NONPOOL:
                qrels.append(f"{q.qid} 0 {doc} {v if v >= 0 else -1}")
            run.append(f"{q.qid} Q0 {doc} {i + 1} {len(q.ranked) - i} gen{seed}")
        qrels += [f"{q.qid} 0 {q.qid}.u{j:03d} {v}" for j, v in enumerate(q.unretrieved)]
        for name, v in exact(q).items():
            totals[name] = totals.get(name, Fraction(0)) + v
            if boundary(v):
                bounds[(name, q.qid)] = v
    for name, total in totals.items():
        if boundary(total / len(queries)):
            bounds[(name, "all")] = total / len(queries)
    return Case(seed, tuple(queries), "\n".join(qrels) + "\n", "\n".join(run) + "\n", bounds)


# ----------------------------------------------------------------- fixtures

def fixture_path(seed: int, command: str) -> Path:
    return FIXTURE_DIR / f"seed{seed}.{command}.out.gz"


def stored_output(seed: int, command: str) -> str:
    """trec_eval's stored output for a seed's case under one of :data:`COMMANDS`."""
    with gzip.open(fixture_path(seed, command), "rt", encoding="utf-8", newline="") as f:
        return f.read()


def run_trec_eval(binary: str, case: Case, directory: Path, command: str) -> str:
    """trec_eval's output for the case under one of :data:`COMMANDS`."""
    directory.mkdir(parents=True, exist_ok=True)
    qrels, run = directory / f"seed{case.seed}.qrels", directory / f"seed{case.seed}.run"
    qrels.write_text(case.qrels)
    run.write_text(case.run)
    done = subprocess.run([binary, *COMMANDS[command], str(qrels), str(run)], capture_output=True, text=True,
                          check=True)
    return done.stdout


# ----------------------------------------------------------------- parity collections (issue 28)
#
# Small random collections in four styles, each evaluated under trec_eval's flag sets; trec_eval
# 10.0's and 9.0.8's exit codes and outputs are stored in ``fixtures/trec_boundary/parity<version>.json.gz``.
# plain: graded levels 0-4 and -1 judgements, tied scores; tags: the run tag varies from line to line
# and the lines are shuffled (the runid row is the last line's); spell: grades written 02, +1, -0;
# missing: qrels topics without results (only under -c: trec_eval 10 exits 4 without it); placeholder: more of
# them, and qrels judging the docno trec_eval 10 ranks for them (segeval.core.pipeline.PLACEHOLDER), in any topic.

PARITY_STYLES = ("plain", "tags", "spell", "missing", "placeholder")
#: the styles with qrels topics the run lacks: compared under -c only
WITHOUT_RESULTS = ("missing", "placeholder")
PARITY_SEEDS = tuple(range(4))
PARITY_FLAGS: dict[str, dict[str, tuple[str, ...]]] = {
    "10": {
        "default": (),
        "q": ("-q", "-m", "all_trec"),
        "c": ("-c", "-q", "-m", "all_trec"),
        "J": ("-J", "-q", "-m", "all_trec"),
        # -J emptying rankings, and the topics -c adds (trec_eval 10 ranks a dummy unjudged document there)
        "cJ": ("-c", "-J", "-q", "-m", "all_trec"),
        "M": ("-M", "3", "-q", "-m", "all_trec"),
        "l2": ("-l", "2", "-q", "-m", "all_trec"),
        "n": ("-n", "-q", "-m", "all_trec"),
        # repeated and parameterised -m: the first with parameters wins; 3-decimal real parameters
        "params": ("-q", "-m", "P.10", "-m", "P.20", "-m", "11pt_avg.0.5,0.25,0.125", "-m", "11pt_avg",
                   "-m", "iprec_at_recall..333,.155,.33", "-m", "Rprec_mult.0.339", "-m", "relstring.2.9",
                   "-m", "set_F.0.5", "-m", "rbp.p=0.8", "-m", "rbp_resid.p=0.5", "-m", "utility.2,-1,0.5,0",
                   "-m", "ndcg.p=2,1=3"),
        # gain tables, fractional gains (sorted by trec_eval's truncating comparator), names it skips
        "gains": ("-q", "-m", "ndcg.2=1.5", "-m", "ndcg_rel.1=3,2=9", "-m", "G.0=1,3=1.5", "-m", "Rndcg.1=2"),
        "gains2": ("-q", "-m", "ndcg.1=0.5,2=0.7", "-m", "Rndcg.1=-1,2=0.5", "-m", "ndcg_rel.-1=2",
                   "-m", "G.p=2,1=3"),
        # -c's leftovers: trec_eval 10 clears utility, relstring and rbp_resid by their bare names only
        "cparams": ("-c", "-q", "-m", "all_trec", "-m", "utility.2,-1,0.5,0", "-m", "relstring.3",
                    "-m", "rbp_resid.p=0.5", "-m", "unj.2,7"),
        "cbare": ("-c", "-q", "-l", "2", "-m", "utility", "-m", "relstring", "-m", "rbp_resid", "-m", "map",
                  "-m", "P.1,2", "-m", "num_ret", "-m", "num_rel"),
        "dcg": ("-q", "-m", "dcg.1=3,2=1", "-m", "set_F.0.25"),
        "ideal_dcg": ("-q", "-m", "ideal_dcg.2=1,1=2.5", "-m", "relstring"),
    },
    "9": {
        "default": (),
        "q": ("-q", "-m", "all_trec"),
        "c": ("-c", "-m", "all_trec"),
        "cq": ("-c", "-q", "-m", "all_trec"),
        "J": ("-J", "-q", "-m", "all_trec"),
        "cJ": ("-c", "-J", "-q", "-m", "all_trec"),
        "M": ("-M", "3", "-q", "-m", "all_trec"),
        "l2": ("-l", "2", "-q", "-m", "all_trec"),
        "params": ("-q", "-m", "P.10", "-m", "P.20", "-m", "11pt_avg.0.5,0.25,0.125", "-m", "11pt_avg",
                   "-m", "iprec_at_recall..333,.155", "-m", "Rprec_mult.0.339", "-m", "relstring.2.9",
                   "-m", "set_F.0.5", "-m", "ndcg.2=1.5"),
        # 9.0.8 averages the topics the run lacks in as 0, utility's p3 R term too
        "cparams": ("-c", "-m", "all_trec", "-m", "utility.2,-1,0.5,0"),
    },
}


#: hand-made cases of issue 28: (qrels, run, flags, the trec_eval versions that store them)
_GRADED = "1 0 a 2\n1 0 b 1\n1 0 c 1\n1 0 d 0\n"
_RANKED = "1 Q0 a 1 4 r\n1 Q0 b 2 3 r\n1 Q0 c 3 2 r\n1 Q0 x 4 1 r\n"
_THIRDS = "".join(f"1 0 r{i} 1\n" for i in range(13)) + "1 0 n0 0\n"
_THIRDS_RUN = "".join(f"1 Q0 {d} {i + 1} {30 - i} r\n" for i, d in enumerate(
    ["r0", "n0", "r1", "x1", "r2", "r3", "x2", "r4", "x3", "x4", "r5", "r6", "x5", "r7", "r8", "x6", "r9"]))
_EMPTIED, _EMPTIED_RUN = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n3 0 e 1\n", "1 Q0 x 1 2 r\n1 Q0 a 2 1 r\n2 Q0 y 1 1 r\n"
HAND_CASES: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...]]] = {
    # the spec's example: level 2 at 1.5 sorts level 1 (gain 1) after it, so the ideal is not ideal: 1.1050
    "fractional_gain": (_GRADED, _RANKED, ("-q", "-m", "ndcg.2=1.5"), ("10", "9")),
    "gains_below_1": (_GRADED, _RANKED, ("-q", "-m", "ndcg.1=0.5,2=0.7", "-m", "G.1=0.5,2=0.7"), ("10", "9")),
    # 3-decimal levels: never rounded to 2 decimals (two lines both printed _0.33)
    "three_decimals": (_THIRDS, _THIRDS_RUN, ("-q", "-m", "iprec_at_recall..333,.155,.33", "-m", "Rprec_mult.0.339"),
                       ("10", "9")),
    "relstring_real": (_THIRDS, _THIRDS_RUN, ("-q", "-m", "relstring.2.9", "-m", "relstring.12"), ("10", "9")),
    "given_twice": (_THIRDS, _THIRDS_RUN, ("-m", "P.10", "-m", "P.20", "-m", "11pt_avg.0.5,0.25,0.125", "-m",
                                          "11pt_avg", "-m", "P", "-m", "official"), ("10", "9")),
    # all grades 0 with -l 0: Rndcg has no term, 0/0, printed -nan by glibc
    "nan": ("1 0 a 0\n1 0 b 0\n2 0 a 1\n", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 a 1 1 r\n",
            ("-q", "-l", "0", "-m", "Rndcg", "-m", "map"), ("10",)),
    "runid_last_line": (_GRADED, "1 Q0 a 1 4 first\n1 Q0 b 2 3 second\n1 Q0 c 3 2 last\n", ("-m", "official"),
                        ("10", "9")),
    "rbp_params": (_GRADED, _RANKED, ("-q", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.8", "-m", "set_F.0.25"), ("10",)),
    "gain_tables": (_GRADED, _RANKED, ("-q", "-m", "G.1=3", "-m", "Rndcg.2=4", "-m", "ndcg_rel.1=2,2=1", "-m",
                                       "dcg.2=3"), ("10",)),
    "ideal_dcg": (_GRADED, _RANKED, ("-q", "-m", "ideal_dcg.1=2"), ("10",)),
    # grades written 02, +1, -0: ndcg asked alone (issue 28; fixed on main in 3d62b46)
    "grade_spellings": ("1 0 a 02\n1 0 b +1\n1 0 c -0\n1 0 d 1\n2 0 a 01\n",
                        "1 Q0 c 1 4 r\n1 Q0 a 2 3 r\n1 Q0 b 3 2 r\n2 Q0 a 1 1 r\n", ("-q", "-m", "ndcg"), ("10", "9")),
    # -J drops every result of topic 2 (R = 2) and -c adds topic 3 (R = 1): num_ret / num_ret = 0/0 (-nan) at
    # the cut-offs needing 0 relevant results: 10.0 lround(p R) = 0 (2: p <= 0.2; 3: p <= 0.4, its dummy
    # document dropped too), 9.0.8 (long)(p R + 0.9) = 0 (p = 0 only; topic 3 averaged in as 0); 0 elsewhere
    "judged_only_empty": (_EMPTIED, _EMPTIED_RUN, ("-c", "-J", "-q", "-m", "iprec_at_recall", "-m", "11pt_avg",
                                                   "-m", "num_ret"), ("10", "9")),
    # 11pt_avg at levels all needing a relevant result: 0, not -nan (topic 2: lround(.5 * 2) = 1)
    "judged_only_empty_levels": (_EMPTIED, _EMPTIED_RUN, ("-J", "-c", "-q", "-m", "11pt_avg.0.5,1",
                                                          "-m", "iprec_at_recall.0.5,1"), ("10", "9")),
    # refused as trec_eval refuses them (exit 2)
    "duplicate_cutoffs": (_GRADED, _RANKED, ("-m", "P.5,5"), ("10", "9")),
    "duplicate_levels": (_GRADED, _RANKED, ("-m", "iprec_at_recall.0.5,.5"), ("10", "9")),
    # -c: topic 2 has no result; trec_eval 10 ranks its placeholder there, which these qrels judge relevant
    # (map 1/2: 1 / R = 2; P_5 1/5, recip_rank 1); 9.0.8 averages topic 2 in as 0
    "placeholder_judged": (_GRADED + "2 0 x 1\n2 0 ceci_nest_pas_un_docno 1\n", _RANKED,
                           ("-c", "-q", "-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "bpref", "-m", "num_ret",
                            "-m", "relstring", "-m", "utility.0,0,1,0"), ("10", "9")),
    # -c's leftovers cleared by bare name only: utility_2,-1,0,0 keeps 2*0 - 1*1 = -1 for topic 2, relstring_3
    # shows its '-', rbp_resid_p=0.5 keeps 0.5^1 + 0.5 * 1 = 1; unj_* and num_ret are 0
    "placeholder_leftovers": (_GRADED + "2 0 x 1\n", _RANKED,
                              ("-c", "-q", "-m", "utility.2,-1,0,0", "-m", "relstring.3", "-m", "rbp_resid.p=0.5",
                               "-m", "unj.3", "-m", "num_ret", "-m", "num_nonrel_judged_ret"), ("10",)),
    # -c and no run topic in the qrels: every qrels topic ranks the placeholder (9.0.8: exit 7, section 9)
    "no_common_topic": (_GRADED, "999 Q0 a 1 1 r\n", ("-c", "-q", "-m", "official", "-m", "utility.2,-1,0,0"),
                        ("10",)),
    # what segeval reads a file starting with a UTF-8 BOM as (DELIBERATE's "bom")
    "bom_free": (_GRADED, _RANKED, ("-q", "-m", "map", "-m", "num_ret"), ("10", "9")),
}

#: where segeval differs from trec_eval on purpose (docs/trec_eval-semantics.md section 9): (qrels, run, flags,
#: the trec_eval versions stored, segeval's exit code, a fragment of its message or the HAND_CASES key whose
#: stored output segeval prints). Stored as "deliberate.<name>": what trec_eval does, so the test shows it differs.
DELIBERATE: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...], int, str]] = {
    # trec_eval only checks the topics it evaluates: a docno twice under topic 999 (not in the qrels) passes
    "duplicate_in_unjudged_topic": (_GRADED, _RANKED + "999 Q0 z 1 1 r\n999 Q0 z 2 0.5 r\n", ("-m", "map"),
                                    ("10", "9"), 2, "'z'"),
    # 10.0 prints topic 1, then exits 4 on topic 2; 9.0.8 never evaluates topic 2 and exits 0
    "duplicate_judgement_without_results": (_GRADED + "2 0 y 1\n2 0 y 0\n", _RANKED, ("-c", "-q", "-m", "map"),
                                            ("10", "9"), 2, "'y'"),
    # trec_eval splits fields at any isspace() byte
    "carriage_return": (_GRADED, "1 Q0 a 1 4\rr\n1 Q0 b 2 3 r\n", ("-m", "map"), ("10", "9"), 2,
                        "carriage return"),
    # atol: -M 2.5 is 2, -M 1e1 is 1, -l 1.9 is 1
    "max_results_real": (_GRADED, _RANKED, ("-M", "2.5", "-m", "P.2"), ("10", "9"), 2, "'2.5' is not a valid int"),
    "max_results_exponent": (_GRADED, _RANKED, ("-M", "1e1", "-m", "P.2"), ("10", "9"), 2, "'1e1' is not a valid int"),
    "level_real": (_GRADED, _RANKED, ("-l", "1.9", "-m", "map"), ("10", "9"), 2, "'1.9' is not a valid int"),
    # trec_eval reads a BOM as part of the first id (topic '\ufeff1' is not topic 1); segeval skips it
    "bom": (_GRADED, "\ufeff" + _RANKED, ("-q", "-m", "map", "-m", "num_ret"), ("10", "9"), 0, "hand.bom_free"),
    # 9.0.8 -c with no run topic in the qrels: "No queries with both results and relevance info", exit 7;
    # segeval averages every qrels topic in as 0, as 10.0 does
    "no_common_topic": (_GRADED, "999 Q0 a 1 1 r\n", ("-c", "-m", "map"), ("9",), 0, ""),
}


def parity_collection(seed: int, style: str) -> tuple[str, str]:
    """The qrels and run text of a parity collection."""
    rng = random.Random(f"{style}{seed}")
    qrels, run = [], []
    for q in range(rng.randint(1, 6)):
        qid = str(rng.choice([1, 2, 10, 301, 7, 33]) * 10 + q)
        docs = list(dict.fromkeys(f"d{rng.randint(0, 60)}" for _ in range(rng.randint(1, 25))))
        for d in docs:
            if rng.random() < 0.7:
                g = rng.choice([0, 0, 1, 1, 2, 3, 4, -1])
                text = str(g)
                if style == "spell" and g >= 0:
                    text = rng.choice([text, f"0{g}", f"+{g}", "-0" if g == 0 else text])
                qrels.append(f"{qid} 0 {d} {text}")
        qrels += [f"{qid} 0 u{j} {rng.choice([0, 1, 2])}" for j in range(rng.randint(0, 5))]
        if style == "placeholder" and rng.random() < 0.5:
            qrels.append(f"{qid} 0 ceci_nest_pas_un_docno {rng.choice([0, 1, 2, -1])}")
        if style in WITHOUT_RESULTS and q > 0 and rng.random() < (0.3 if style == "missing" else 0.7):
            continue
        for i, d in enumerate(rng.sample(docs + [f"n{i}" for i in range(8)], rng.randint(1, min(20, len(docs) + 8)))):
            score = rng.choice([round(rng.random() * 10, 2), float(rng.randint(0, 3))])
            tag = rng.choice(("tagA", "tagB", "zz")) if style == "tags" else "run1"
            run.append(f"{qid} Q0 {d} {i + 1} {score} {tag}")
    run.append(f"999 Q0 x 1 1.0 {'tagC' if style == 'tags' else 'run1'}")  # a topic not in the qrels
    if style == "tags":
        rng.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def parity_cases(version: str, seeds: Sequence[int] = PARITY_SEEDS) -> list[tuple[str, int, str, tuple[str, ...]]]:
    """(style, seed, flag set name, flags) of every stored parity comparison of a trec_eval version."""
    out = []
    for name, flags in PARITY_FLAGS[version].items():
        for style in PARITY_STYLES:
            if style in WITHOUT_RESULTS and "-c" not in flags:
                continue
            out += [(style, seed, name, flags) for seed in seeds]
    return out


def parity_key(style: str, seed: int, name: str) -> str:
    return f"{style}{seed}.{name}"


def parity_path(version: str) -> Path:
    return FIXTURE_DIR / f"parity{version}.json.gz"


def stored_parity(version: str) -> dict[str, tuple[int, str]]:
    """trec_eval ``version``'s stored exit code and output of every parity comparison, by :func:`parity_key`."""
    with gzip.open(parity_path(version), "rt", encoding="utf-8") as f:
        return {k: (v[0], v[1]) for k, v in json.load(f).items()}


def run_binary(binary: str, qrels: str, run: str, flags: Sequence[str], directory: Path) -> tuple[int, str]:
    """A trec_eval binary's exit code and output on the texts."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "qrels").write_text(qrels)
    (directory / "run").write_text(run)
    done = subprocess.run([binary, *flags, str(directory / "qrels"), str(directory / "run")], capture_output=True,
                          text=True, check=False)
    return done.returncode, done.stdout


def write_parity(binary: str, version: str, work: Path) -> int:
    """Store the binary's exit codes and outputs of the parity comparisons; the number stored."""
    stored = {}
    for style, seed, name, flags in parity_cases(version):
        stored[parity_key(style, seed, name)] = run_binary(binary, *parity_collection(seed, style), flags, work)
    for name, (qrels, run, flags, versions) in HAND_CASES.items():
        if version in versions:
            stored[f"hand.{name}"] = run_binary(binary, qrels, run, flags, work)
    for name, (qrels, run, flags, versions, *_) in DELIBERATE.items():
        if version in versions:
            stored[f"deliberate.{name}"] = run_binary(binary, qrels, run, flags, work)
    with gzip.GzipFile(parity_path(version), "wb", mtime=0) as f:  # the same bytes every time
        f.write(json.dumps(stored, sort_keys=True).encode())
    return len(stored)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trec-eval", required=True, help="the trec_eval 10.0 binary")
    parser.add_argument("--trec-eval-9", help="the trec_eval 9.0.8 binary (for the parity fixtures of --trec-eval 9)")
    parser.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS))
    parser.add_argument("--work", default="/tmp/trec_boundary", help="where the qrels and runs are written")
    args = parser.parse_args(argv)
    FIXTURE_DIR.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        case = generate(seed)
        for command in COMMANDS:
            text = run_trec_eval(args.trec_eval, case, Path(args.work), command)
            with gzip.GzipFile(fixture_path(seed, command), "wb", mtime=0) as f:  # the same bytes every time
                f.write(text.encode())
        print(f"seed {seed}: {len(case.queries)} topics, {len(case.boundaries)} boundary values")
    for version, binary in (("10", args.trec_eval), ("9", args.trec_eval_9)):
        if binary:
            print(f"parity {version}: {write_parity(binary, version, Path(args.work) / 'parity')} outputs")


if __name__ == "__main__":
    main()
