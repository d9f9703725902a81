"""Term-weighted value over the terms' trials as F4DE computes it (TrialsTWV, MetricTWV, DETCurve): ATWV, MTWV,
OTWV and STWV (docs/speech.md)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import numpy as np

from segeval.core.errors import ParameterError, SegevalError
from segeval.protocols.speech.alignment import TermTrials


@dataclass(frozen=True)
class TwvParameters:
    """KWSEval's scoring constants: β = (C/V)(1/P_target − 1) unless overridden; trials = total duration /
    ``trials_per_second``, rounded."""

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
    actual: Operating = Operating(None, None, None, None)
    optimum: Operating = Operating(None, None, None, None)
    supremum: Operating = Operating(None, None, None, None)


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


def _rates(params: TwvParameters, n_target: int, misses: int, fas: int) -> tuple[float | None, float]:
    p_miss = misses / n_target if n_target > 0 else None
    return p_miss, fas / (params.trials - n_target)


def _comb(params: TwvParameters, p_miss: float | None, p_fa: float | None) -> float | None:
    if p_miss is None or p_fa is None:
        return None
    return 1 - (p_miss + params.beta * p_fa)


def _set(
    params: TwvParameters, points: list[tuple[float | None, float]]
) -> tuple[float | None, float | None, float | None]:
    """(mean P_miss over the terms where it is defined, mean P_FA, TWV of the two means)."""
    misses = [pm for pm, _ in points if pm is not None]
    p_miss = sum(misses) / len(misses) if misses else None
    p_fa = sum(pf for _, pf in points) / len(points) if points else None
    return p_miss, p_fa, _comb(params, p_miss, p_fa)


def _check_decisions(trials: dict[str, TermTrials]) -> float | None:
    """KWSEval's actual decision threshold (midway between the lowest YES and the highest NO score); a
    :class:`DecisionError` for a NO scoring above a YES."""
    low_yes: tuple[float, str] | None = None
    high_no: tuple[float, str] | None = None
    for kwid, block in trials.items():
        scores = block.targets + block.nontargets
        yes = [s for s, y in scores if y]
        no = [s for s, y in scores if not y]
        if yes and no and max(no) > min(yes):
            raise DecisionError(
                f"term {kwid}: a NO detection scores {max(no)!r}, above a YES one scoring "
                f"{min(yes)!r}; KWSEval refuses decisions that are not a score threshold"
            )
        if yes and (low_yes is None or min(yes) < low_yes[0]):
            low_yes = (min(yes), kwid)
        if no and (high_no is None or max(no) > high_no[0]):
            high_no = (max(no), kwid)
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
        pm, pf = _rates(params, block.n_target, result.misses, result.false_alarms)
        result.actual = Operating(pf, pm, _comb(params, pm, pf), None)
    actual_points = [
        _rates(params, b.n_target, results[b.kwid].misses, results[b.kwid].false_alarms) for b in evaluated
    ]
    pm_a, pf_a, twv_a = _set(params, actual_points)
    actual = Operating(pf_a, pm_a, twv_a, threshold)
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
    totals["#Sys"] = (
        totals["#Corr"]
        + totals["#Cor!Det"]
        + totals["#FA"]
        + sum(sum(1 for _, y in b.targets if not y) for b in evaluated)
    )
    means: dict[str, float | None] = {k: (v / len(ev) if ev else None) for k, v in totals.items()}
    return TwvResult(
        params, [results[k] for k in sorted(results)], actual, maximum, optimum, supremum, det, totals, means
    )


def _sweep(
    evaluated: list[TermTrials], params: TwvParameters, results: dict[str, TermResult]
) -> tuple[list[Operating], Operating, Operating, Operating]:
    """The DET curve over the distinct scores as thresholds (YES when score >= t), MTWV its first best point, each
    term's optimum over the same thresholds, and the supremum."""
    beta, trials = params.beta, params.trials
    all_scores = sorted({s for b in evaluated for s, _ in b.targets + b.nontargets})
    n_blocks = len(evaluated)
    n_miss_blocks = sum(1 for b in evaluated if b.n_target > 0)
    if not all_scores:
        # KWSEval's DETCurve stops here: no threshold, no optimum, no supremum
        points = [_rates(params, b.n_target, b.omitted, 0) for b in evaluated]
        pm_n, pf_n, twv_n = _set(params, points)
        only = Operating(pf_n, pm_n, twv_n, "NaN")
        return [only], only, Operating(None, None, None, None), Operating(None, None, None, None)
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
    optimum_points = []
    for block in evaluated:
        point = _term_optimum(block, all_scores, params)
        if point is not None:
            results[block.kwid].optimum = point[0]
            optimum_points.append(point[1])
    pm_o, pf_o, twv_o = _set(params, optimum_points)
    supremum_points = []
    for block in evaluated:
        pm, pf = _rates(params, block.n_target, block.omitted, 0)
        supremum_points.append((pm, pf))
        results[block.kwid].supremum = Operating(pf, pm, _comb(params, pm, pf), 0.5)
    pm_s, pf_s, twv_s = _set(params, supremum_points)
    return det, maximum, Operating(pf_o, pm_o, twv_o, None), Operating(pf_s, pm_s, twv_s, None)


def _term_optimum(
    block: TermTrials, grid: list[float], params: TwvParameters
) -> tuple[Operating, tuple[float | None, float]] | None:
    """The term's best TWV over the global thresholds (the first best in threshold order), with the decision
    threshold KWSEval reports for it (DETCurve/MetricFuncs: from the scores at the count indexes)."""
    if block.n_target == 0:
        return None  # its TWV is undefined at every threshold
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
        pm, pf = _rates(params, block.n_target, misses, fas)
        value = _comb(params, pm, pf)
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
    pm, pf = _rates(params, block.n_target, misses, fas)
    return Operating(pf, pm, value, shown), (pm, pf)
