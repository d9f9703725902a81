"""Measures whose declared parameter is converted before the computation (percent to a fraction,
trec_eval's comma-separated numbers to a tuple); declared in :mod:`segeval.measures.definitions`."""

from __future__ import annotations

from typing import Any

from segeval.errors import ParameterError
from segeval.measures import segments as S
from segeval.measures import trec as T
from segeval.measures import trec_more as TM


def iprec(a: Any, p: int) -> float:
    """Interpolated precision at recall level ``p`` percent."""
    return T.iprec_at_recall(a, p / 100)


def iprec_9(a: Any, p: int) -> float:
    """Interpolated precision at recall level ``p`` percent, as trec_eval 9."""
    return T.iprec_at_recall_9(a, p / 100)


def _numbers(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x)
    except ValueError:
        raise ParameterError(f"The measure parameters must be numbers separated by commas. Got {text!r} "
                             f"instead.") from None


def utility(a: Any, params: str | None = None) -> float:
    """Utility, with trec_eval's four comma-separated coefficients when given."""
    if params is None:
        return TM.utility(a)
    values = _numbers(params)
    if len(values) != 4:
        raise ParameterError(f"The 'utility' parameters must be 4 numbers (p1,p2,p3,p4). Got {params!r} instead.")
    return TM.utility(a, (values[0], values[1], values[2], values[3]))


def ndcg(a: Any, params: str | None = None) -> float:
    """nDCG, with a ``level=gain`` table when given."""
    if params is None:
        return T.ndcg(a)
    try:
        table = TM.gain_table(params)
    except ValueError:
        raise ParameterError(f"The 'ndcg' parameters must be level=gain pairs such as 1=3,2=9. Got {params!r} "
                             f"instead.") from None
    return TM.ndcg_gains(a, table)


def eleven_pt(a: Any, params: str | None = None) -> float:
    """11-point average, at the given comma-separated recall levels when given."""
    return TM.eleven_pt_avg(a) if params is None else TM.eleven_pt_avg(a, _numbers(params))


def maisp(q: S.QuerySegments, position: int | None = None) -> float:
    """MAiSP, or the interpolated segment precision at recall-point position ``position``."""
    return S.maisp(q) if position is None else S.maisp_at(q, position)


def rprec_mult(a: Any, p: int) -> float:
    """Precision at rank int(x * R + 0.9) for x = ``p`` hundredths."""
    return TM.rprec_mult(a, p / 100)
