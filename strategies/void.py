"""Void policies: which suit to name as the missing suit (Q_VOID; RULES.md: One hand, step by step, step 3)."""

from __future__ import annotations

import numba as nb

from simcore.evaluate import regular_shanten_codes
from simcore.view import STRATEGY_SIG, V_HAND, rand_below

from .exchange import suit_count
from .params import parameters


@parameters(scratch=0)
@nb.njit(STRATEGY_SIG, cache=True, _nrt=False)
def fewest(q, view, tab):
    """The suit with the fewest tiles (ties: the lowest suit index m, p, s)."""
    best = 0
    for s in range(1, 3):
        if suit_count(view, s) < suit_count(view, best):
            best = s
    return best


@parameters(scratch=0)
@nb.njit(STRATEGY_SIG, cache=True, _nrt=False)
def weakest(q, view, tab):
    """The suit whose removal leaves the lowest shanten (ties: the fewest tiles)."""
    m = 0
    p = 0
    t = 0
    for r in range(8, -1, -1):
        m = m * 5 + view[V_HAND + r]
        p = p * 5 + view[V_HAND + 9 + r]
        t = t * 5 + view[V_HAND + 18 + r]
    best = 0
    best_key = 1 << 30
    for s in range(3):
        c0 = 0 if s == 0 else m
        c1 = 0 if s == 1 else p
        c2 = 0 if s == 2 else t
        key = regular_shanten_codes(tab, c0, c1, c2, 0) * 64 + suit_count(view, s)
        if key < best_key:
            best_key = key
            best = s
    return best


@parameters(scratch=0)
@nb.njit(STRATEGY_SIG, cache=True, _nrt=False)
def random_void(q, view, tab):
    """A uniformly random suit."""
    return rand_below(view, 3)
