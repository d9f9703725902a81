"""trec_eval's measures over judgement groups (``-R qrels_jg``: ``*_avgjg``) and preferences (``-R prefs`` or
``qrels_prefs``: ``prefs_*``), with trec_eval 10's definitions and arithmetic: docs/trec_eval-semantics.md §10."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from segeval.adapters.base import Adapted, Label
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.errors import InputError, SegevalError
from segeval.measures import batch as B
from segeval.measures.arithmetic import running_sum
from segeval.readers.judgements import Judgement

if TYPE_CHECKING:
    from segeval.core.evaluation import Evaluation
    from segeval.core.plan import Plan

Kind = Literal["all", "imp", "ret"]
Values = dict[str, list[Any]]


class PreferenceError(SegevalError):
    """Preferences trec_eval cannot count: a document at two levels of one subgroup, or a group whose
    preferences contradict each other."""


# ------------------------------------------------------------------------------------ judgement groups


def groups(ranked: Sequence[str], lines: Sequence[Judgement], level: int, judged_only: bool) -> B.Batch:
    """The ranking (trec_eval's order) labelled by each group, in group-id order, as one batch: relevant at a grade
    of ``level`` or more, unjudged when the group has no line or a negative grade; ``judged_only`` drops a group's
    unjudged results."""
    out = []
    for _, members in itertools.groupby(sorted(lines), key=lambda j: j.group):
        grade = {j.item: j.level for j in members}
        seen = np.array([grade.get(d, -1.0) for d in ranked], dtype=np.float64)
        labels = np.where(seen < 0, Label.UNJUDGED, np.where(seen >= level, Label.RELEVANT, Label.NONRELEVANT))
        labels = labels[seen >= 0] if judged_only else labels
        n = len(labels)
        num_rel = sum(g >= level for g in grade.values())
        out.append(
            Adapted(
                labels.astype(np.uint8),
                num_rel,
                np.zeros(n + 1, dtype=np.int64),
                np.zeros(0, dtype=np.int64),
                np.arange(n, dtype=np.int64),
            )
        )
    return B.Batch.of(out)


def _averaged(f: Callable[..., list[float]], x: B.Batch, *param: Any) -> float:
    """``f`` (a batch form) on the groups' rankings, added in group order, over the number of groups (trec_eval)."""
    total = running_sum(f(x, *param))
    return total / len(x.num_rel) if len(x.num_rel) > 1 else total


p_avgjg = partial(_averaged, B.precision_at)
map_avgjg = partial(_averaged, B.average_precision)
rprec_mult_avgjg = partial(_averaged, B.rprec_mult)


# ------------------------------------------------------------------------------------ preferences


@dataclass(frozen=True)
class Group:
    """One judgement group's counts (:func:`_tally`) and its equivalence classes (document numbers of each level,
    levels descending) or, for several subgroups, its preference matrix and each document's level."""

    counts: dict[str, int]
    classes: tuple[IntArray, ...] | None = None
    matrix: BoolArray | None = None
    level: FloatArray | None = None


@dataclass(frozen=True)
class Preferences:
    """One query's groups (in id order), its judged documents, how many were retrieved, and ``pairs[i, j]``,
    the groups preferring document i to document j."""

    groups: tuple[Group, ...]
    judged: int
    retrieved: int
    pairs: npt.NDArray[np.int32]


def _tally(a: IntArray, b: IntArray, retrieved: int, relevant: BoolArray, nonrel: BoolArray, ret: BoolArray) -> Group:
    """A group's counts: of its preferences a[k] > b[k] (document numbers), and of its relevant and non-relevant
    documents (or lines), all and retrieved (``ret``)."""
    fwd, a_ret, b_ret = a < b, a < retrieved, b < retrieved
    ful_ret, ful_imp = int((fwd & b_ret).sum()), int((fwd & a_ret & ~b_ret).sum())
    counts = {
        "ful_ret": ful_ret,
        "poss_ret": ful_ret + int((~fwd & a_ret).sum()),
        "ful_imp": ful_imp,
        "poss_imp": ful_imp + int((~fwd & ~a_ret & b_ret).sum()),
        "notoccur": int((~a_ret & ~b_ret).sum()),
        "num_rel": int(relevant.sum()),
        "num_rel_ret": int((relevant & ret).sum()),
        "num_nonrel": int(nonrel.sum()),
        "num_nonrel_ret": int((nonrel & ret).sum()),
    }
    return Group(counts)


def preferences(ranked: Sequence[str], lines: Sequence[Judgement]) -> Preferences:
    """The preference counts of a query's lines against its ranking (score descending, docno ascending)."""
    judged = sorted({j.item for j in lines})
    known = set(judged)
    number = {d: i for i, d in enumerate(d for d in ranked if d in known)}
    retrieved = len(number)
    for d in judged:
        number.setdefault(d, len(number))
    rows = sorted(lines, key=lambda j: (j.group, j.subgroup, -j.level, number[j.item]))
    pairs = np.zeros((len(judged), len(judged)), dtype=np.int32)  # trec_eval: unsigned short
    out = []
    for group, members in itertools.groupby(rows, key=lambda j: j.group):
        block = list(members)
        ids = np.array([number[j.item] for j in block], dtype=np.int64)
        levels = np.array([j.level for j in block], dtype=np.float64)
        if len({j.subgroup for j in block}) == 1:
            a, b = np.nonzero(levels[:, None] > levels[None, :])
            same = np.flatnonzero(ids[a] == ids[b])
            if len(same):
                raise PreferenceError(
                    f"document '{block[a[same[0]]].item}' has two levels in judgement group "
                    f"'{group}', subgroup '{block[0].subgroup}'; expected one"
                )
            a, b = ids[a], ids[b]
            np.add.at(pairs, (a, b), 1)
            relevant = levels > 0
            counts = _tally(a, b, retrieved, relevant, ~relevant, ids < retrieved)
            classes = tuple(ids[levels == x] for x in dict.fromkeys(levels.tolist()))
            out.append(replace(counts, classes=classes))
            continue
        matrix, level = _closure(group, block, ids, levels, judged, number)
        pairs += matrix
        a, b = np.nonzero(matrix)
        counts = _tally(a, b, retrieved, level > 0, level == 0, np.arange(len(level)) < retrieved)
        out.append(replace(counts, matrix=matrix, level=level))
    return Preferences(tuple(out), len(judged), retrieved, pairs)


def _closure(
    group: str, block: list[Judgement], ids: IntArray, levels: FloatArray, judged: list[str], number: dict[str, int]
) -> tuple[BoolArray, FloatArray]:
    """A group of several subgroups: its preference matrix (each subgroup's, closed transitively) and each
    document's level (its last line's; -1 without a line); a document at 0 and above 0 is an error."""
    n = len(judged)
    level = np.full(n, -1.0)
    matrix = np.zeros((n, n), dtype=bool)
    for j, i, x in zip(block, ids.tolist(), levels.tolist(), strict=True):
        if (level[i] > 0 and x == 0) or (level[i] == 0 and x > 0):
            raise PreferenceError(
                f"document '{j.item}' has level 0 and a level above 0 in judgement group "
                f"'{group}'; expected one or the other"
            )
        level[i] = x
    start = 0
    for _, members in itertools.groupby(block, key=lambda j: j.subgroup):
        end = start + len(list(members))
        a, b = np.nonzero(levels[start:end, None] > levels[None, start:end])
        matrix[ids[start:end][a], ids[start:end][b]] = True
        start = end
    closed = (matrix | np.eye(n, dtype=bool)).astype(np.float32)
    while True:  # reachability by squaring (float32 counts stay exact far beyond any judged set's size)
        wider = ((closed @ closed) > 0).astype(np.float32)
        if np.array_equal(wider, closed):
            break
        closed = wider
    matrix = closed > 0
    np.fill_diagonal(matrix, False)
    both = np.argwhere(matrix & matrix.T)
    if len(both):
        name = {i: d for d, i in number.items()}
        raise PreferenceError(
            f"judgement group '{group}' prefers '{name[int(both[0][0])]}' to '{name[int(both[0][1])]}' and the other "
            "way round; expected consistent preferences within a group (contradictions belong in different groups)"
        )
    return matrix, level


def _fulfilled(g: Group, kind: Kind) -> tuple[int, int]:
    """(fulfilled, possible) preferences: all, with a retrieved document (``imp``), or both retrieved (``ret``)."""
    c = g.counts
    if kind == "ret":
        return c["ful_ret"], c["poss_ret"]
    imp = (c["ful_ret"] + c["ful_imp"], c["poss_ret"] + c["poss_imp"])
    return imp if kind == "imp" else (imp[0], imp[1] + c["notoccur"])


def _simp(x: Preferences, kind: Kind) -> float:
    ful, poss = _count(x, kind, 0), _count(x, kind, 1)
    return ful / poss if poss else 0.0


def _mean_over_groups(ratios: Sequence[float], n: int) -> float:
    """trec_eval's average over groups: the ratios added in order, divided by n when the sum is above 0."""
    total = running_sum(ratios)
    return total / n if total > 0 else 0.0


def _avgjg(x: Preferences, kind: Kind) -> float:
    fp = [_fulfilled(g, kind) for g in x.groups]
    return _mean_over_groups([f / p for f, p in fp if p], len(x.groups))


def _count(x: Preferences, kind: Kind, which: int) -> int:
    return sum(_fulfilled(g, kind)[which] for g in x.groups)


def _pair(x: Preferences, kind: Kind) -> float:
    """trec_eval's prefs_pair(_imp, _ret) (docs/trec_eval-semantics.md §10)."""
    c, r = x.pairs, x.retrieved
    upper = np.triu(np.ones((x.judged, x.judged), dtype=bool), 1)
    blocks = [(c[:r, :r], c[:r, :r].T, upper[:r, :r])]
    if kind != "ret":
        blocks.append((c[:r, r:], c[r:, :r].T, np.ones((r, x.judged - r), dtype=bool)))
    ratios = [ij[m] / (ij[m] + ji[m]) for ij, ji, keep in blocks for m in [keep & (ij + ji > 0)]]
    pairs = sum(len(v) for v in ratios)
    if kind == "all":
        pairs += int((upper[r:, r:] & ((c[r:, r:] + c[r:, r:].T) > 0)).sum())
    return running_sum(np.concatenate(ratios)) / pairs if pairs else 0.0


def _rnonrel(x: Preferences, ret_only: bool) -> float:
    """trec_eval's prefs_avgjg_Rnonrel(_ret) (docs/trec_eval-semantics.md §10)."""
    ratios = []
    for g in x.groups:
        c = g.counts
        r, n = (c["num_rel_ret"], c["num_nonrel_ret"]) if ret_only else (c["num_rel"], c["num_nonrel"])
        if r >= n:
            ful, poss = _fulfilled(g, "ret" if ret_only else "all")
            ful, poss = ful + c["num_rel_ret"] * (r - n), poss + c["num_rel"] * (r - n)
        else:
            ful, poss = _recount(g, x.retrieved, r, ret_only)
        ratios.append(ful / poss if poss else float("nan"))  # 0/0 is NaN in C: the sum is then no longer > 0
    return _mean_over_groups(ratios, len(x.groups))


def _recount(g: Group, retrieved: int, r: int, ret_only: bool) -> tuple[int, int]:
    """(fulfilled, possible) of a group keeping its first ``r`` non-relevant documents (trec_eval's recount)."""
    if g.classes is not None:
        cls, last = g.classes, g.classes[-1][:r]  # trec_eval: the last class is the non-relevant one
        parts = [(cls[i], cls[j]) for i in range(len(cls)) for j in range(i + 1, len(cls) - 1)]
        parts += [(c, last) for c in cls]
        a = np.concatenate([np.repeat(p, len(q)) for p, q in parts] + [np.zeros(0, dtype=np.int64)])
        b = np.concatenate([np.tile(q, len(p)) for p, q in parts] + [np.zeros(0, dtype=np.int64)])
    else:
        assert g.matrix is not None and g.level is not None
        zero = g.level == 0
        limit = retrieved if ret_only else len(zero)
        found = np.flatnonzero(zero[:limit])
        first = int(found[g.counts["num_rel"]]) if len(found) > g.counts["num_rel"] else limit
        keep = ~(zero & (np.arange(len(zero)) >= first))
        a, b = np.nonzero(g.matrix & keep[:, None] & keep[None, :])
    if ret_only:
        inside = (a < retrieved) & (b < retrieved)
        a, b = a[inside], b[inside]
    return int(((a < b) & (a < retrieved)).sum()), len(a)


KINDS: tuple[Kind, ...] = ("all", "imp", "ret")
simp, simp_imp, simp_ret = (partial(_simp, kind=k) for k in KINDS)
pair, pair_imp, pair_ret = (partial(_pair, kind=k) for k in KINDS)
avgjg, avgjg_imp, avgjg_ret = (partial(_avgjg, kind=k) for k in KINDS)
avgjg_rnonrel, avgjg_rnonrel_ret = partial(_rnonrel, ret_only=False), partial(_rnonrel, ret_only=True)
num_prefs_poss = partial(_count, kind="all", which=1)
num_prefs_ful = partial(_count, kind="all", which=0)
num_prefs_ful_ret = partial(_count, kind="ret", which=0)


# ------------------------------------------------------------------------------------ the -R route


def evaluate_judgements(path: str, rel_format: str, run: pd.DataFrame, how: Plan) -> Evaluation:
    """The evaluation of a validated document run against a ``rel_format`` file (``-R``): the queries of both,
    with ``-c`` the judged queries without results added (:func:`segeval.core.pipeline.without_results`)."""
    from segeval.core.pipeline import finish
    from segeval.readers.judgements import read_judgements
    from segeval.readers.validate import check_unique_documents

    judgements = read_judgements(path, rel_format)
    check_unique_documents(
        run, pd.factorize(run["query"].astype(str))[0].astype(np.int64), pd.factorize(run["item"])[0].astype(np.int64)
    )
    part = partial(_judged, path, rel_format, judgements)
    judged = pd.DataFrame({"query": list(judgements), "start": np.nan, "rel": 0})  # finish reads their queries
    return finish(judged, how, *part(run, how, how.settings.queries), part=part)


def _judged(
    path: str,
    rel_format: str,
    judgements: dict[str, list[Judgement]],
    run: pd.DataFrame,
    how: Plan,
    queries: Sequence[str] | None = None,
    missing_queries: str = "skip",
) -> tuple[list[str], Values]:
    """Per-query values of a run against the judgements, as :func:`segeval.core.pipeline.evaluate_part` gives them
    against qrels: the run ordered by score, ties by docno descending for judgement groups and ascending for
    preferences (as trec_eval), cut at ``-M``."""
    from segeval.core.ordering import name_ranks, stored_scores
    from segeval.core.prepared import chosen_queries
    from segeval.readers.from_tables import ranked_rows

    s = how.settings
    qids, items = run["query"].astype(str).to_numpy(), run["item"].to_numpy(dtype=object)
    chosen = chosen_queries(set(judgements), set(qids), queries, missing_queries)
    code = {q: i for i, q in enumerate(chosen)}
    qcode = np.array([code.get(q, -1) for q in qids], dtype=np.int64)
    score = stored_scores(run["score"].to_numpy(dtype=np.float64), s.trec_eval)
    ranks = name_ranks(items) * (1 if rel_format == "qrels_jg" else -1)
    order = ranked_rows(qcode, score, None, ranks.__getitem__, len(chosen), "score", s.max_results)
    cuts = np.searchsorted(qcode[order], np.arange(len(chosen) + 1)).tolist()
    values: Values = {x.name: [] for x in how.requests}
    for query, (a, b) in zip(chosen, itertools.pairwise(cuts), strict=True):
        docs, lines = items[order[a:b]].tolist(), judgements[query]
        try:
            labelled = (
                groups(docs, lines, s.relevance_level, s.judged_only)
                if rel_format == "qrels_jg"
                else preferences(docs, lines)
            )
        except PreferenceError as exc:
            raise InputError(path, f"query '{query}': {exc}", kind="preferences") from None
        for x in how.requests:
            values[x.name].append(x.measure(labelled))
    return chosen, values
