"""Query by example (MediaEval SWS 2013, QUESST 2014-2015): every (query, utterance) pair is a trial, the
system's score a log-likelihood ratio. The task's scorer is a closed jar; the figures follow the task
papers' definitions, with each convention the papers leave open a named parameter (docs/speech.md, "Query
by example"):

- Cnxe: the cross-entropy of the scores taken as LLRs at the prior ``prior`` (default: the effective prior of
  P_target, C_miss, C_fa), divided by the cross-entropy of the prior alone; min Cnxe: the same after the
  best monotone recalibration (PAV on the pooled trials);
- TWV: 1 − mean over queries with a target of (P_miss + β · P_FA), β = (C_fa/C_miss)(1 − P_target)/P_target,
  P_FA over the query's non-target utterances; actual TWV at the system's YES decisions (or at the Bayes
  threshold ln β with ``decisions="bayes"``), max TWV at the best global score threshold (a trial is YES when
  its score is at least the threshold; rejecting everything is a candidate too);
- a trial the system does not report gets ``default_score`` (default: the lowest reported score) and NO."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from segeval.errors import InputError, ParameterError
from segeval.io.files import read_utf8
from segeval.speech.xmlfile import attribute, expect_root, number, read_xml


@dataclass(frozen=True)
class QbeParameters:
    p_target: float = 0.0008
    cost_miss: float = 100.0
    cost_fa: float = 1.0
    prior: float | None = None  # Cnxe prior; None: the effective prior
    default_score: float | None = None  # None: the lowest reported score
    decisions: str = "given"  # given | bayes

    @property
    def beta(self) -> float:
        return (self.cost_fa / self.cost_miss) * (1 - self.p_target) / self.p_target

    @property
    def effective_prior(self) -> float:
        if self.prior is not None:
            return self.prior
        weighted = self.cost_miss * self.p_target
        return weighted / (weighted + self.cost_fa * (1 - self.p_target))


@dataclass(frozen=True)
class Trial:
    query: str
    utterance: str
    target: bool
    score: float
    yes: bool
    reported: bool


def read_key(path: str) -> dict[tuple[str, str], bool]:
    """The trial list: lines ``QUERY UTTERANCE 1|0`` (1: the query occurs in the utterance)."""
    key: dict[tuple[str, str], bool] = {}
    text = read_utf8(path, "the trial key", "a trial key")
    for line_number, raw in enumerate(text.split("\n"), 1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 3 or fields[2] not in ("0", "1"):
            raise InputError(path, "expected QUERY UTTERANCE 1|0", line=line_number, text=raw)
        pair = (fields[0], fields[1])
        if pair in key:
            raise InputError(path, f"trial {fields[0]} {fields[1]} is listed twice; expected each trial once",
                             line=line_number, text=raw)
        key[pair] = fields[2] == "1"
    if not key:
        raise InputError(path, "no trial; expected lines QUERY UTTERANCE 1|0")
    return key


def read_stdlist(path: str) -> dict[tuple[str, str], tuple[float, bool, int]]:
    """The system's scores in STD list form (``<stdlist>`` holding ``<detected_termlist termid>`` holding
    ``<term file score decision>``): per (query, utterance) the highest-scoring detection's score and
    decision, with its line."""
    root = read_xml(path, "stdlist")
    expect_root(path, root, "stdlist", "STD list")
    found: dict[tuple[str, str], tuple[float, bool, int]] = {}
    for group in root.children:
        if group.name != "detected_termlist":
            raise InputError(path, f"unexpected <{group.name}> in <stdlist>; expected <detected_termlist>",
                             line=group.line)
        query = attribute(path, group, "termid")
        for term in group.children:
            if term.name != "term":
                raise InputError(path, f"unexpected <{term.name}>; expected <term>", line=term.line)
            score = number(path, term, "score")
            decision = attribute(path, term, "decision")
            if decision not in ("YES", "NO"):
                raise InputError(path, f"query {query}: decision=\"{decision}\"; expected YES or NO", line=term.line)
            pair = (query, attribute(path, term, "file").rsplit("/", 1)[-1].removesuffix(".wav"))
            if pair not in found or score > found[pair][0]:
                found[pair] = (score, decision == "YES", term.line)
    return found


def trials(key: dict[tuple[str, str], bool], system: dict[tuple[str, str], tuple[float, bool, int]],
           params: QbeParameters, system_path: str) -> list[Trial]:
    """Every trial of the key with its score; a reported pair outside the key is an :class:`InputError`."""
    for pair, (_, _, line) in system.items():
        if pair not in key:
            raise InputError(system_path, f"query {pair[0]} in utterance {pair[1]} is not a trial of the key",
                             line=line)
    default = params.default_score
    if default is None:
        default = min((s for s, _, _ in system.values()), default=0.0)
    out = []
    for pair, target in key.items():
        score, yes, _ = system.get(pair, (default, False, 0))
        out.append(Trial(pair[0], pair[1], target, score, yes, pair in system))
    return out


def cross_entropy(llr: np.ndarray, target: np.ndarray, prior: float) -> float:
    """Cxe in bits: prior/N_tar · Σ_tar log2(1 + e^(−llr − logit prior)) + (1−prior)/N_non · Σ_non
    log2(1 + e^(llr + logit prior))."""
    logit = math.log(prior / (1 - prior))
    tar, non = llr[target], llr[~target]
    cost = 0.0
    if len(tar):
        cost += prior * float(np.mean(np.logaddexp(0, -(tar + logit))))
    if len(non):
        cost += (1 - prior) * float(np.mean(np.logaddexp(0, non + logit)))
    return cost / math.log(2)


def pav(scores: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The pool-adjacent-violators fit: the non-decreasing function of the score closest (least squares)
    to the 0/1 labels; trials with equal scores are pooled first."""
    order = np.argsort(scores, kind="stable")
    s, y = scores[order], target[order].astype(float)
    blocks: list[list[float]] = []  # [sum of labels, count, first index]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        blocks.append([float(y[i:j + 1].sum()), float(j + 1 - i), float(i)])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            last = blocks.pop()
            blocks[-1][0] += last[0]
            blocks[-1][1] += last[1]
        i = j + 1
    fitted = np.empty(len(s))
    for total, count, first in blocks:
        fitted[int(first):int(first + count)] = total / count
    result = np.empty(len(s))
    result[order] = fitted
    return result


def min_cnxe(scores: np.ndarray, target: np.ndarray, prior: float) -> float:
    """Cnxe after the best monotone recalibration: PAV posteriors turned into LLRs by removing the
    empirical prior (log-odds of the share of targets)."""
    posterior = pav(scores, target)
    empirical = float(target.mean())
    with np.errstate(divide="ignore"):
        llr = np.log(posterior) - np.log1p(-posterior) - math.log(empirical / (1 - empirical))
    return cross_entropy(llr, target, prior) / prior_entropy(prior)


def prior_entropy(prior: float) -> float:
    return -(prior * math.log2(prior) + (1 - prior) * math.log2(1 - prior))


def _weights(trial_list: list[Trial], beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Per trial, what it costs when missed (a target: 1/(N_tar of its query · queries)) and when accepted (a
    non-target: β/(N_non of its query · queries)); 0 for the trials of queries without a target."""
    n_tar: dict[str, int] = {}
    n_all: dict[str, int] = {}
    for trial in trial_list:
        n_all[trial.query] = n_all.get(trial.query, 0) + 1
        n_tar[trial.query] = n_tar.get(trial.query, 0) + trial.target
    queries = sum(1 for q in n_tar if n_tar[q] > 0)
    if queries == 0:
        raise ParameterError("no query has a target trial: TWV is undefined")
    miss = np.zeros(len(trial_list))
    fa = np.zeros(len(trial_list))
    for i, trial in enumerate(trial_list):
        tar = n_tar[trial.query]
        if tar == 0:
            continue
        if trial.target:
            miss[i] = 1 / (tar * queries)
        elif n_all[trial.query] > tar:
            fa[i] = beta / ((n_all[trial.query] - tar) * queries)
    return miss, fa


@dataclass(frozen=True)
class QbeResult:
    act_cnxe: float
    min_cnxe: float
    act_twv: float
    max_twv: float
    max_twv_threshold: float
    n_trials: int
    n_targets: int
    n_reported: int
    prior: float
    beta: float


def score(trial_list: list[Trial], params: QbeParameters) -> QbeResult:
    if params.decisions not in ("given", "bayes"):
        raise ParameterError(f"--decisions {params.decisions}: expected given or bayes")
    scores = np.asarray([t.score for t in trial_list], dtype=float)
    target = np.asarray([t.target for t in trial_list], dtype=bool)
    if target.all() or not target.any():
        raise ParameterError("the key needs both target and non-target trials for Cnxe")
    prior = params.effective_prior
    act = cross_entropy(scores, target, prior) / prior_entropy(prior)
    minimum = min_cnxe(scores, target, prior)
    beta = params.beta
    if params.decisions == "given":
        yes = np.asarray([t.yes for t in trial_list], dtype=bool)
    else:
        yes = scores >= math.log(beta)
    miss, fa = _weights(trial_list, beta)
    act_twv = 1 - float(miss[~yes].sum() + fa[yes].sum())
    # thresholds: every distinct score, then +inf (reject all); the first best is kept
    grid = np.unique(scores)
    missed = np.zeros(len(grid) + 1)
    np.add.at(missed, np.searchsorted(grid, scores, side="right"), miss)  # a target is missed above its score
    accepted = np.zeros(len(grid) + 1)
    np.add.at(accepted, np.searchsorted(grid, scores, side="left"), fa)  # a non-target accepted up to its score
    values = 1 - (np.cumsum(missed) + np.cumsum(accepted[::-1])[::-1])
    best = int(np.argmax(values))
    thresholds = [*grid.tolist(), math.inf]
    return QbeResult(act, minimum, act_twv, float(values[best]), float(thresholds[best]), len(trial_list),
                     int(target.sum()),
                     sum(1 for t in trial_list if t.reported), prior, beta)
