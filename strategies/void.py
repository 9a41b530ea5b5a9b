"""Void policies: which suit to name as the missing suit (Q_VOID; RULES.md: One hand, step by step, step 3)."""

from __future__ import annotations

import numba as nb

from simcore.view import V_CODES, param_int, rand_below

from .exchange import shanten_voiding, suit_count
from .params import Param, parameters


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def fewest(q, view, tab):
    """The suit with the fewest tiles (ties: the lowest suit index m, p, s)."""
    best = 0
    for s in range(1, 3):
        if suit_count(view, s) < suit_count(view, best):
            best = s
    return best


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def weakest(q, view, tab):
    """The suit whose removal leaves the lowest shanten (ties: the fewest tiles)."""
    m, p, t = view[V_CODES], view[V_CODES + 1], view[V_CODES + 2]   # the suit codes, none zeroed yet
    best = 0
    best_key = 1 << 30
    for s in range(3):
        key = shanten_voiding(tab, m, p, t, s) * 64 + suit_count(view, s)
        if key < best_key:
            best_key = key
            best = s
    return best


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def random_void(q, view, tab):
    """A uniformly random suit."""
    return rand_below(view, 3)


@parameters(Param.int("void_cost", 6, 0, 32, "what each tile of the voided suit costs, in sixteenths of a shanten"),
            Param.int("flush_bonus", 4, 0, 32, "what each tile of the longest suit past six is worth, in sixteenths of a shanten"),
            scratch=0)
@nb.njit(cache=True, _nrt=False)
def plans(q, view, tab):
    """The suit whose voiding leaves the best plan (shanten of the rest plus a cost per tile to discard), never a flush's long suit.

    As ``exchange.plan_cost`` for each choice; a suit of seven or more that is the longest is
    kept for a full flush."""
    void_cost = param_int(view, 0)
    flush_bonus = param_int(view, 1)
    m, p, t = view[V_CODES], view[V_CODES + 1], view[V_CODES + 2]   # the suit codes, none zeroed yet
    n = (suit_count(view, 0), suit_count(view, 1), suit_count(view, 2))
    longest = max(n[0], max(n[1], n[2]))
    best = 0
    best_key = 1 << 40
    for s in range(3):
        if n[s] == longest and longest >= 7:
            continue
        sh = shanten_voiding(tab, m, p, t, s)
        key = (sh * 16 + n[s] * void_cost) * 64 + n[s]
        if key < best_key:
            best_key, best = key, s
    return best
