"""Term-weighted value as F4DE computes it (TrialsTWV, MetricTWV, DETCurve; docs/speech.md)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np

from segeval.core.errors import ParameterError, SegevalError
from segeval.protocols.speech.alignment import TermTrials


@dataclass(frozen=True)
class TwvParameters:
    """KWSEval's scoring constants: β = (C/V)(1/P_target − 1) unless overridden; trials rounded."""

    total_duration: float
    trials_per_second: float = 1.0
    cost: float = 0.1
    value: float = 1.0
    p_target: float = 0.0001
    beta_override: float | None = None
    include_no_targets: bool = False

    @property
    def beta(self) -> float:
        if self.beta_override is not None:
            return self.beta_override
        return (self.cost / self.value) * ((1 / self.p_target) - 1)

    @property
    def trials(self) -> float:
        return float(f"{self.total_duration / self.trials_per_second:.0f}")


@dataclass(frozen=True)
class Operating:
    """One operating point: mean P_miss, mean P_FA, TWV and its decision threshold (None when undefined)."""

    p_fa: float | None
    p_miss: float | None
    twv: float | None
    threshold: float | str | None


UNDEFINED = Operating(None, None, None, None)


@dataclass
class TermResult:
    kwid: str
    text: str
    evaluated: bool
    n_target: int = 0
    correct: int = 0  # YES targets
    correct_rejects: int = 0  # NO non-targets
    false_alarms: int = 0  # YES non-targets
    misses: int = 0  # NO targets + omitted
    n_nontarget: int = 0
    actual: Operating = UNDEFINED
    optimum: Operating = UNDEFINED
    supremum: Operating = UNDEFINED


@dataclass
class TwvResult:
    parameters: TwvParameters
    terms: list[TermResult]
    actual: Operating
    maximum: Operating
    optimum: Operating
    supremum: Operating
    #: the term-weighted DET curve: one point per distinct score as threshold, ascending (KWSEval's dat.1 rows)
    det: list[Operating] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    means: dict[str, float | None] = field(default_factory=dict)


class DecisionError(SegevalError):
    """A NO detection scoring above a YES one: KWSEval refuses the system output."""


def _comb(params: TwvParameters, p_miss: float | None, p_fa: float | None) -> float | None:
    if p_miss is None or p_fa is None:
        return None
    return 1 - (p_miss + params.beta * p_fa)


def _point(
    params: TwvParameters, n_target: int, misses: int, fas: int, threshold: float | str | None = None
) -> Operating:
    """One term's P_FA, P_miss (undefined without targets) and TWV."""
    p_miss = misses / n_target if n_target > 0 else None
    p_fa = fas / (params.trials - n_target)
    return Operating(p_fa, p_miss, _comb(params, p_miss, p_fa), threshold)


def _set(params: TwvParameters, points: list[Operating], threshold: float | str | None = None) -> Operating:
    """Mean P_miss over the terms where it is defined, mean P_FA, and the TWV of the two means."""
    misses = [p.p_miss for p in points if p.p_miss is not None]
    p_miss = sum(misses) / len(misses) if misses else None
    p_fa = sum(p.p_fa or 0.0 for p in points) / len(points) if points else None
    return Operating(p_fa, p_miss, _comb(params, p_miss, p_fa), threshold)


def _check_decisions(trials: dict[str, TermTrials]) -> float | None:
    """KWSEval's actual decision threshold; a :class:`DecisionError` for a NO scoring above a YES, of the same
    term or of another."""
    scored = [(s, yes, kwid) for kwid, block in trials.items() for s, yes in block.targets + block.nontargets]
    low_yes = min(((s, kwid) for s, yes, kwid in scored if yes), key=itemgetter(0), default=None)
    high_no = max(((s, kwid) for s, yes, kwid in scored if not yes), key=itemgetter(0), default=None)
    if low_yes is not None and high_no is not None and high_no[0] > low_yes[0]:
        raise DecisionError(
            f"term {high_no[1]} has a NO detection scoring {high_no[0]!r}, above a YES one of term "
            f"{low_yes[1]} scoring {low_yes[0]!r}; KWSEval refuses decisions that are not one "
            "score threshold across terms"
        )
    if low_yes is None:
        return high_no[0] if high_no is not None else None
    if high_no is None:
        return low_yes[0]
    return (low_yes[0] + high_no[0]) / 2


def score(trials: dict[str, TermTrials], params: TwvParameters) -> TwvResult:
    """Every figure of KWSEval's summary and per-term reports."""
    most = max((b.n_target for b in trials.values()), default=0)
    if not params.trials > most:
        raise ParameterError(
            f"The '--trials-per-second' parameter must leave more trials (the total duration over "
            f"it, rounded: {params.trials:g}) than a term has occurrences ({most}); KWSEval would "
            f"divide by zero. Got {params.trials_per_second!r} instead."
        )
    threshold = _check_decisions(trials)
    evaluated = [b for b in trials.values() if b.n_target > 0 or params.include_no_targets]
    results: dict[str, TermResult] = {}
    for kwid, block in trials.items():
        result = results[kwid] = TermResult(kwid, block.text, block.n_target > 0 or params.include_no_targets)
        result.n_target = block.n_target
        result.correct = sum(1 for _, y in block.targets if y)
        result.misses = block.n_target - result.correct
        result.false_alarms = sum(1 for _, y in block.nontargets if y)
        result.correct_rejects = len(block.nontargets) - result.false_alarms
        result.n_nontarget = len(block.nontargets)
        result.actual = _point(params, block.n_target, result.misses, result.false_alarms)
    actual = _set(params, [results[b.kwid].actual for b in evaluated], threshold)
    det, maximum, optimum, supremum = _sweep(evaluated, params, results)
    ev = [results[b.kwid] for b in evaluated]
    totals = {
        "#Targ": sum(r.n_target for r in ev),
        "#NTarg": sum(r.n_nontarget for r in ev),
        "#Corr": sum(r.correct for r in ev),
        "#Cor!Det": sum(r.correct_rejects for r in ev),
        "#FA": sum(r.false_alarms for r in ev),
        "#Miss": sum(r.misses for r in ev),
    }
    paired_no = sum(sum(1 for _, y in b.targets if not y) for b in evaluated)
    totals["#Sys"] = totals["#Corr"] + totals["#Cor!Det"] + totals["#FA"] + paired_no
    means: dict[str, float | None] = {k: (v / len(ev) if ev else None) for k, v in totals.items()}
    return TwvResult(
        params, [results[k] for k in sorted(results)], actual, maximum, optimum, supremum, det, totals, means
    )


def _sweep(
    evaluated: list[TermTrials], params: TwvParameters, results: dict[str, TermResult]
) -> tuple[list[Operating], Operating, Operating, Operating]:
    """The DET curve (threshold t: YES when score >= t), MTWV, each term's optimum and the supremum."""
    beta, trials = params.beta, params.trials
    all_scores = sorted({s for b in evaluated for s, _ in b.targets + b.nontargets})
    n_blocks = len(evaluated)
    n_miss_blocks = sum(1 for b in evaluated if b.n_target > 0)
    if not all_scores:
        # KWSEval's DETCurve stops here: no threshold, no optimum, no supremum
        only = _set(params, [_point(params, b.n_target, b.omitted, 0) for b in evaluated], "NaN")
        return [only], only, UNDEFINED, UNDEFINED
    grid = np.asarray(all_scores)
    # each score moves its term's rate once the threshold passes it: accumulate the moves, then sum them up
    # (a target scoring s is a miss for thresholds above s; a non-target a false alarm up to s, summed
    # from the highest threshold down)
    miss_moves = np.zeros(len(grid) + 1)
    fa_moves = np.zeros(len(grid))
    miss_base = 0.0
    for block in evaluated:
        nontargets = np.asarray([s for s, _ in block.nontargets], dtype=float)
        np.add.at(fa_moves, np.searchsorted(grid, nontargets, side="left"), 1 / (trials - block.n_target))
        if block.n_target > 0:
            targets = np.asarray([s for s, _ in block.targets], dtype=float)
            np.add.at(miss_moves, np.searchsorted(grid, targets, side="right"), 1 / block.n_target)
            miss_base += block.omitted / block.n_target
    miss_sum = miss_base + np.cumsum(miss_moves)[: len(grid)]
    fa_sum = np.cumsum(fa_moves[::-1])[::-1]  # from the top: no false alarm above the highest score
    p_miss = miss_sum / n_miss_blocks if n_miss_blocks else np.full(len(grid), np.nan)
    p_fa = fa_sum / n_blocks
    values = 1 - (p_miss + beta * p_fa)
    det = [
        Operating(
            float(p_fa[i]),
            float(p_miss[i]) if n_miss_blocks else None,
            float(values[i]) if n_miss_blocks else None,
            float(grid[i]),
        )
        for i in range(len(grid))
    ]
    maximum = det[int(np.nanargmax(values)) if n_miss_blocks else 0]
    for block in evaluated:
        if block.n_target > 0:  # else its TWV is undefined at every threshold
            results[block.kwid].optimum = _term_optimum(block, all_scores, params)
        results[block.kwid].supremum = _point(params, block.n_target, block.omitted, 0, 0.5)
    optimum = _set(params, [results[b.kwid].optimum for b in evaluated if b.n_target > 0])
    return det, maximum, optimum, _set(params, [results[b.kwid].supremum for b in evaluated])


def _term_optimum(block: TermTrials, grid: list[float], params: TwvParameters) -> Operating:
    """The term's first best TWV over the global thresholds, with the threshold KWSEval reports for it."""
    targets = sorted(s for s, _ in block.targets)
    nontargets = sorted(s for s, _ in block.nontargets)
    own = sorted(set(targets) | set(nontargets))
    best: tuple[float, int, int, float] | None = None
    # state j holds for thresholds in (own[j-1], own[j]]; it is first met at the first global threshold there
    for j in range(len(own) + 1):
        if j == 0:
            at = grid[0]
        else:
            k = bisect_right(grid, own[j - 1])
            if k == len(grid):
                break
            at = grid[k]
        misses = block.omitted + bisect_left(targets, at)
        fas = len(nontargets) - bisect_left(nontargets, at)
        value = _point(params, block.n_target, misses, fas).twv
        assert value is not None
        if best is None or value > best[0]:
            best = (value, misses, fas, at)
    assert best is not None
    value, misses, fas, at = best
    fa_t = nontargets[fas] if fas < len(nontargets) else None
    index = misses - block.omitted
    mi_t = targets[index] if index < len(targets) else None
    shown = at
    if fa_t is not None and mi_t is not None:
        shown = min(fa_t, mi_t) if fa_t > at and mi_t > at else max(fa_t, mi_t, at)
    elif fa_t is not None:
        shown = fa_t if fa_t > at else at
    elif mi_t is not None and mi_t > at:
        shown = mi_t
    return _point(params, block.n_target, misses, fas, shown)
