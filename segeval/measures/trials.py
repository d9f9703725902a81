"""Detection trials and the QUESST figures over them (MediaEval SWS 2013, QUESST 2014-2015): a query's value on its
trials, the all line on every query's trials pooled (:class:`Pooled`); docs/speech.md, "Query by example"."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.errors import ParameterError
from segeval.measures.quesst import ACT_TWV_KEYS, CNXE_KEYS, TWV_KEYS, QbeParameters, parameters

if TYPE_CHECKING:
    from segeval.core.prepared import Prepared
    from segeval.measures.declaration import Measure


@dataclass(frozen=True)
class Trials:
    """Trials of one query or several (score NaN when unreported); ``lowest``: the lowest score the whole run
    reports (the default score); ``decided``: whether the run gives decisions."""

    query: IntArray
    target: BoolArray
    score: FloatArray
    yes: BoolArray
    reported: BoolArray
    lowest: float
    decided: bool

    def __len__(self) -> int:
        return len(self.query)

    @staticmethod
    def pool(parts: Sequence[Trials]) -> Trials:
        """The trials of several queries together (in the order given)."""
        if len(parts) == 1:
            return parts[0]
        query, target, score, yes, reported = (
            np.concatenate([getattr(p, name) for p in parts])
            for name in ("query", "target", "score", "yes", "reported")
        )
        return Trials(query, target, score, yes, reported, min(p.lowest for p in parts), all(p.decided for p in parts))

    def scores(self, p: QbeParameters) -> FloatArray:
        """Every trial's score: the run's, or the default for an unreported trial."""
        default = self.lowest if p.default_score is None else p.default_score
        return np.where(self.reported, self.score, default)


def query_trials(data: Prepared) -> list[Trials]:
    """Each evaluated query's trials: its key rows in utterance id order (so sums do not depend on the inputs'
    order or form), with the run's score and decision for the utterance; key rows the run lacks are unreported."""
    run, key = data.run_columns, data.qrels_columns
    top = int(max(run["gid"].max(initial=-1), key["gid"].max(initial=-1))) + 1
    at = np.full(top, -1, dtype=np.int64)
    at[run["gid"]] = np.arange(len(run["gid"]))
    by_id = np.empty(len(data.items), dtype=np.int64)
    by_id[np.argsort(data.items.astype(str), kind="stable")] = np.arange(len(data.items))
    by_item = np.lexsort((by_id[key["icode"]], key["qcode"]))  # within each query (the bounds stay valid)
    row = at[key["gid"][by_item]]
    reported = row >= 0
    score = np.where(reported, np.asarray(run["score"], dtype=np.float64)[row], np.nan)
    decided = "decision" in run
    yes = reported & (np.asarray(run["decision"], dtype=bool)[row] if decided else False)
    lowest = float(np.min(run["score"])) if len(run["score"]) else 0.0
    target = np.asarray(data.relevant, dtype=bool)[by_item]
    qcode = np.asarray(key["qcode"], dtype=np.int64)[by_item]
    b = data.qrels_bounds.tolist()
    return [
        Trials(qcode[i:j], target[i:j], score[i:j], yes[i:j], reported[i:j], lowest, decided)
        for i, j in itertools.pairwise(b)
    ]


class Pooled(float):
    """A figure's value on one query's trials whose aggregate is the figure on every query's trials pooled
    (aggregator ``pooled``), not the mean of the values: it keeps the trials and the measure."""

    trials: Trials
    measure: Measure

    def __new__(cls, value: float, trials: Trials, measure: Measure) -> Pooled:
        self = super().__new__(cls, value)
        self.trials = trials
        self.measure = measure
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return Pooled, (float(self), self.trials, self.measure)

    def pool(self, values: Sequence[Any]) -> float:
        """The measure on the trials of ``values`` (this value's measure's, each a :class:`Pooled`) pooled."""
        return float(self.measure(Trials.pool([v.trials for v in values])))


def cross_entropy(llr: FloatArray, target: BoolArray, prior: float) -> float:
    """Cxe in bits: prior/N_tar · Σ_tar log2(1 + e^(−llr − logit prior)) + (1−prior)/N_non · Σ_non
    log2(1 + e^(llr + logit prior)); a class without trials adds nothing."""
    logit = math.log(prior / (1 - prior))
    tar, non = llr[target], llr[~target]
    cost = 0.0
    if len(tar):
        cost += prior * float(np.mean(np.logaddexp(0, -(tar + logit))))
    if len(non):
        cost += (1 - prior) * float(np.mean(np.logaddexp(0, non + logit)))
    return cost / math.log(2)


def prior_entropy(prior: float) -> float:
    """The cross-entropy of the prior alone, in bits: Cnxe's normaliser."""
    return -(prior * math.log2(prior) + (1 - prior) * math.log2(1 - prior))


def pav(scores: FloatArray, target: BoolArray) -> FloatArray:
    """The pool-adjacent-violators fit (least squares, non-decreasing in the score), equal scores pooled first."""
    order = np.argsort(scores, kind="stable")
    s, y = scores[order], target[order].astype(float)
    blocks: list[list[float]] = []  # [sum of labels, count, first index]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        blocks.append([float(y[i : j + 1].sum()), float(j + 1 - i), float(i)])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            last = blocks.pop()
            blocks[-1][0] += last[0]
            blocks[-1][1] += last[1]
        i = j + 1
    fitted = np.empty(len(s))
    for total, count, first in blocks:
        fitted[int(first) : int(first + count)] = total / count
    result = np.empty(len(s))
    result[order] = fitted
    return result


def act_cnxe(t: Trials, params: str | None = None) -> float:
    """Actual Cnxe: Cxe of the scores as LLRs at the prior, over the prior's entropy."""
    p = parameters(CNXE_KEYS, params)
    prior = p.effective_prior
    return cross_entropy(t.scores(p), t.target, prior) / prior_entropy(prior)


def min_cnxe(t: Trials, params: str | None = None) -> float:
    """Cnxe after the best monotone recalibration: PAV posteriors turned into LLRs by removing the
    empirical prior (log-odds of the share of targets); 0 when the trials are all of one class."""
    p = parameters(CNXE_KEYS, params)
    if t.target.all() or not t.target.any():
        return 0.0
    prior = p.effective_prior
    posterior = pav(t.scores(p), t.target)
    empirical = float(t.target.mean())
    with np.errstate(divide="ignore"):
        llr = np.log(posterior) - np.log1p(-posterior) - math.log(empirical / (1 - empirical))
    return cross_entropy(llr, t.target, prior) / prior_entropy(prior)


def _weights(t: Trials, beta: float) -> tuple[FloatArray, FloatArray]:
    """Per trial, its cost when missed (1/(N_tar of its query · queries)) and when accepted (β/(N_non · queries));
    the queries are those with a target (the others' trials cost 0), or every query when none has one."""
    _, query = np.unique(t.query, return_inverse=True)
    query = query.ravel()
    n_all = np.bincount(query).astype(np.float64)
    n_tar = np.bincount(query, weights=t.target.astype(np.float64))
    counted = n_tar > 0 if n_tar.any() else np.ones(len(n_all), dtype=bool)
    queries = float(counted.sum())
    n_non = n_all - n_tar
    with np.errstate(divide="ignore", invalid="ignore"):
        miss = np.where(t.target & counted[query], 1 / (n_tar[query] * queries), 0.0)
        fa = np.where(~t.target & counted[query], beta / (n_non[query] * queries), 0.0)
    return miss, fa


def act_twv(t: Trials, params: str | None = None) -> float:
    """Actual TWV at the run's YES decisions (``decisions=given``) or at score >= ln β (``bayes``)."""
    p = parameters(ACT_TWV_KEYS, params)
    if p.decisions == "given" and not t.decided:
        raise ParameterError(
            "The 'actTWV' measure takes the run's YES/NO decisions, and this run has none (TREC "
            "lines carry none; STD list runs do). Got decisions=given instead; expected "
            "actTWV.decisions=bayes (YES when the score, an LLR, is >= ln β)."
        )
    beta = p.beta
    yes = t.yes if p.decisions == "given" else t.scores(p) >= math.log(beta)
    miss, fa = _weights(t, beta)
    return 1 - float(miss[~yes].sum() + fa[yes].sum())


def _max_twv(t: Trials, p: QbeParameters) -> tuple[float, float]:
    """The best TWV over global thresholds (every distinct score, then +inf) and its threshold; the first best kept."""
    scores = t.scores(p)
    miss, fa = _weights(t, p.beta)
    grid = np.unique(scores)
    missed = np.zeros(len(grid) + 1)
    np.add.at(missed, np.searchsorted(grid, scores, side="right"), miss)  # a target is missed above its score
    accepted = np.zeros(len(grid) + 1)
    np.add.at(accepted, np.searchsorted(grid, scores, side="left"), fa)  # a non-target accepted up to its score
    values = 1 - (np.cumsum(missed) + np.cumsum(accepted[::-1])[::-1])
    best = int(np.argmax(values))
    return float(values[best]), float([*grid.tolist(), math.inf][best])


def max_twv(t: Trials, params: str | None = None, threshold: bool = False) -> float:
    """Maximum TWV: the TWV at the best global score threshold, or that threshold (+inf: rejecting every trial)."""
    return _max_twv(t, parameters(TWV_KEYS, params))[1 if threshold else 0]


max_twv_threshold = partial(max_twv, threshold=True)


def counts(t: Trials) -> tuple[int, int, int]:
    """(trials, targets, reported trials)."""
    return len(t), int(t.target.sum()), int(t.reported.sum())
