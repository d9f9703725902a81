"""Measures whose declared parameter is converted before the computation (trec_eval's parameters,
parsed by :mod:`segeval.measures.params`, to the arguments of the definitions); declared in
:mod:`segeval.measures.definitions`."""

from __future__ import annotations

import math
from typing import Any

from segeval.measures import segments as S
from segeval.measures import trec_gains as TG
from segeval.measures import trec_judged as TJ
from segeval.measures import trec_ranks as TR
from segeval.measures import trec_sets as TS
from segeval.measures.params import Params


def iprec(a: Any, level: float) -> float:
    """Interpolated precision at a recall level."""
    return TR.iprec_at_recall(a, level)


def iprec_9(a: Any, level: float) -> float:
    """Interpolated precision at a recall level, as trec_eval 9."""
    return TR.iprec_at_recall_9(a, level)


def iprec_empty(num_rel: int, level: float) -> float:
    """iprec_at_recall on a ranking trec_eval sees as empty (``-J`` dropped every result)."""
    return TR.iprec_on_empty([TR.iprec_cutoff(level, num_rel)])


def iprec_9_empty(num_rel: int, level: float) -> float:
    """iprec_at_recall on a ranking trec_eval 9.0.8 sees as empty."""
    return TR.iprec_on_empty([TR.iprec_cutoff(level, num_rel, "9")])


def utility(a: Any, params: Params | None = None) -> float:
    """Utility, with trec_eval's four coefficients when given."""
    if params is None:
        return TS.utility(a)
    p1, p2, p3, p4 = params.values
    return TS.utility(a, (p1, p2, p3, p4))


def eleven_pt(a: Any, params: Params | None = None) -> float:
    """11-point average, at the given recall levels when given (in their order)."""
    return TR.eleven_pt_avg(a) if params is None else TR.eleven_pt_avg(a, params.values)


def eleven_pt_9(a: Any, params: Params | None = None) -> float:
    """11-point average with trec_eval 9.0.8's cut-offs (``(long)(p R + 0.9)``)."""
    levels = TR.ELEVEN_LEVELS if params is None else params.values
    return TR.eleven_pt_avg(a, levels, version="9")


def eleven_pt_empty(num_rel: int, params: Params | None = None) -> float:
    """11pt_avg on a ranking trec_eval sees as empty (``-J`` dropped every result)."""
    levels = TR.ELEVEN_LEVELS if params is None else params.values
    return TR.iprec_on_empty([TR.iprec_cutoff(x, num_rel) for x in levels])


def eleven_pt_9_empty(num_rel: int, params: Params | None = None) -> float:
    """11pt_avg on a ranking trec_eval 9.0.8 sees as empty."""
    levels = TR.ELEVEN_LEVELS if params is None else params.values
    return TR.iprec_on_empty([TR.iprec_cutoff(x, num_rel, "9") for x in levels])


def relstring(a: Any, params: Params | None = None) -> str:
    """The relevance string, of the first ``int(x)`` results for ``relstring.x`` (C's truncation)."""
    if params is None:
        return TJ.trec_relstring(a)
    return TJ.trec_relstring(a, max(0, math.trunc(params.values[0])))


def set_f(a: Any, params: Params | None = None) -> float:
    """set_F, weighted by the first value of ``set_F.x`` when given."""
    return TS.set_f(a) if params is None else TS.set_f(a, params.values[0])


def _levels(params: Params | None) -> tuple[tuple[int, float], ...]:
    return () if params is None else params.gain_levels()


def ndcg(a: Any, params: Params | None = None) -> float:
    """nDCG, with a ``level=gain`` table when given."""
    return TG.ndcg(a) if params is None else TG.ndcg_gains(a, _levels(params))


def dcg(a: Any, params: Params | None = None) -> float:
    """DCG (not normalised), with a ``level=gain`` table when given."""
    return TG.dcg_gains(a, _levels(params))


def ideal_dcg(a: Any, params: Params | None = None) -> float:
    """The ideal ranking's DCG, with a ``level=gain`` table when given."""
    return TG.ideal_dcg_gains(a, _levels(params))


def g_measure(a: Any, params: Params | None = None) -> float:
    """G, with a ``level=gain`` table when given."""
    return TG.g_measure(a, _levels(params))


def ndcg_rel(a: Any, params: Params | None = None) -> float:
    """ndcg_rel, with a ``level=gain`` table when given."""
    return TG.ndcg_rel(a, _levels(params))


def rndcg(a: Any, params: Params | None = None) -> float:
    """Rndcg, with a ``level=gain`` table when given."""
    return TG.rndcg(a, _levels(params))


def rbp(a: Any, params: Params | None = None) -> float:
    """RBP, with ``p=`` and a ``level=gain`` table when given."""
    return TG.rbp(a, 0.9 if params is None else params.named("p", 0.9), _levels(params))


def rbp_resid(a: Any, params: Params | None = None) -> float:
    """The RBP residual, with ``p=`` when given."""
    return TG.rbp_resid(a, 0.9 if params is None else params.named("p", 0.9))


def maisp(q: S.QuerySegments, position: int | None = None) -> float:
    """MAiSP, or the interpolated segment precision at recall-point position ``position``."""
    return S.maisp(q) if position is None else S.maisp_at(q, position)


def rprec_mult(a: Any, x: float) -> float:
    """Precision at rank int(x * R + 0.9)."""
    return TR.rprec_mult(a, x)
