"""The parameters of ndeval's diversity measures with ndeval's defaults, declared without NumPy for the registry."""

from __future__ import annotations

from segeval.core.domains import RANKS, UNIT, Key

#: ndeval's defaults: alpha, beta and its depth (``DEPTH``: the largest cut-off it computes)
ALPHA, BETA, DEPTH = 0.5, 0.5, 20
#: alpha_dcg and alpha_ndcg: ``k=20,alpha=0.5``
CUT_KEYS = (Key("k", DEPTH, RANKS), Key("alpha", ALPHA, UNIT))
#: nrbp and nnrbp: ``alpha=0.5,beta=0.5``
RBP_KEYS = (Key("alpha", ALPHA, UNIT), Key("beta", BETA, UNIT))
