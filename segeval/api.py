"""``compare`` and ``correlate`` for Python users (``evaluate`` and ``Evaluator``: :mod:`segeval.core.pipeline`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from segeval.analyses.compare import Comparison, Statistics, compare_evaluations, compare_runs
from segeval.core.errors import ParameterError, shown
from segeval.core.pipeline import Evaluation, Evaluator, measure_names
from segeval.core.plan import adapters_of
from segeval.core.settings import Settings, settings_of


def compare(
    qrels: object,
    runs: Sequence[str | Path] | Mapping[str, object],
    measures: object = "map",
    *,
    adapter: object = None,
    adapters: object = None,
    settings: Settings | dict[str, Any] | None = None,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = None,
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 0,
    all_pairs: bool = False,
) -> Comparison:
    """Each run against the baseline (default: the first), or every pair of runs, as ``segeval compare``."""
    names = [str(m) for m in measure_names(measures)]
    options = (test, correction, alpha, permutations, seed, all_pairs)  # checked when made, after the runs
    made = adapters_of(adapters, adapter)  # checked before any file is read, as evaluate checks them
    if isinstance(runs, Mapping):
        chosen = settings_of(settings).but(missing_queries="zero")
        evaluator = Evaluator(qrels, names, chosen, adapters=adapters, adapter=adapter)
        evaluations = {
            str(name): run if isinstance(run, Evaluation) else evaluator.evaluate(run) for name, run in runs.items()
        }
        first = next(iter(evaluations), "")
        return compare_evaluations(
            evaluations, first if baseline is None else baseline, statistics=Statistics(*options)
        )
    if isinstance(runs, str | Path) or not isinstance(runs, Sequence):
        raise ParameterError(
            f"The 'runs' parameter must be a list of run files or a dict from names to runs. Got "
            f"{type(runs).__name__} {shown(runs)} instead."
        )
    if not isinstance(qrels, str | Path):
        raise ParameterError(
            f"The 'qrels' parameter must be a file when 'runs' are files (give a dict of runs to "
            f"compare tables). Got {type(qrels).__name__} instead."
        )
    if settings is not None:
        raise ParameterError(
            "The 'settings' parameter needs 'runs' as a dict (files are compared as segeval compare does)."
        )
    from segeval.core.plan import reads_subtopics
    from segeval.readers.frames import load_qrels
    from segeval.readers.validate import validate_qrels

    q = validate_qrels(load_qrels(qrels, subtopics=reads_subtopics(names)))
    specs = None if made is None else [a.spec for a in made]
    return compare_runs(q, list(runs), names, adapter=specs, baseline=baseline, statistics=Statistics(*options))


def correlate(x: Sequence[float] | Mapping[str, float], y: Sequence[float] | Mapping[str, float]) -> dict[str, Any]:
    """How two rankings of systems agree: tau-b, ties-agree tau, Spearman's rho, tau_AP, swapped pairs, RMS error."""
    from segeval.analyses.correlate import coefficients

    if isinstance(x, Mapping) or isinstance(y, Mapping):
        if not (isinstance(x, Mapping) and isinstance(y, Mapping)) or set(x) != set(y):
            raise ParameterError(
                "The 'x' and 'y' parameters must score the same systems: two dicts with the same "
                "keys, or two lists in the same order."
            )
        keys = list(x)
        a, b = [float(x[k]) for k in keys], [float(y[k]) for k in keys]
    else:
        a, b = [float(v) for v in x], [float(v) for v in y]
    return dict(coefficients(a, b))
