"""Views built by hand from tile text, for asking strategies a question outside a hand."""

from __future__ import annotations

import numpy as np

from simcore.contract.tables import load_tables
from simcore.contract.tiles import N_KINDS, parse
from simcore.contract.view import V_CODES, V_HAND, V_ME, V_N1, V_N2, V_VISIBLE, V_VOID, VIEW_LEN

TAB = load_tables()


def view_of(text: str, void: int) -> np.ndarray:
    v = np.zeros(VIEW_LEN, np.int64)
    h = parse(text)
    v[V_ME] = 0
    v[V_VOID] = void
    v[V_HAND:V_HAND + N_KINDS] = h
    for s in range(3):
        v[V_CODES + s] = sum(int(h[s * 9 + r]) * 5 ** r for r in range(9))
    kinds = [t for t in range(N_KINDS) if t // 9 != void]
    v[V_N2] = sum((h[t] >= 2) + (h[t] == 4) for t in kinds)
    v[V_N1] = sum(h[t] & 1 for t in kinds)
    v[V_VISIBLE:V_VISIBLE + N_KINDS] = h
    return v
