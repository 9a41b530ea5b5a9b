"""Void policies: which suit to name as the missing suit (Q_VOID; RULES.md: One hand, step by step, step 3)."""

from __future__ import annotations

import numba as nb

from simcore.contract.tiles import N_SUITS
from simcore.contract.view import V_CODES, param_int, rand_below

from strategies.core import prepare, shanten_of
from strategies.exchange import kept_sets, plan_cost_params, shanten_voiding, suit_count
from strategies.params import parameters


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
    for s in range(N_SUITS):
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


@parameters(*plan_cost_params(pair_bonus=5).values(), scratch=0)
@nb.njit(cache=True, _nrt=False)
def plans(q, view, tab):
    """The suit whose voiding leaves the best plan (the rest's shanten, a cost per tile to discard, the pairs, triplets and long suit kept).

    As ``exchange.plan_cost`` for each choice, with seven pairs in the shanten (ties: the fewest
    tiles, then the lowest suit)."""
    best = 0
    best_key = 1 << 40
    for s in range(N_SUITS):
        cost, _, _, _ = void_plan(tab, view, s, param_int(view, 0), param_int(view, 1), param_int(view, 2),
                                  param_int(view, 3))
        key = cost * 64 + suit_count(view, s)
        if key < best_key:
            best_key, best = key, s
    return best


@nb.njit(cache=True, _nrt=False)
def void_plan(tab, view, s, void_cost, flush_bonus, pair_bonus, triplet_bonus):
    """(what voiding suit s leaves, lower is better: the rest's shanten with seven pairs in sixteenths,
    ``void_cost`` a tile of s, less the other suits' pairs and triplets kept and ``flush_bonus`` a
    tile by which the longest other suit passes six; that shanten; the sets kept; that length)."""
    sh = shanten_of(tab, prepare(tab, view, 1 << s))
    kept = 0
    longest = 0
    for o in range(N_SUITS):
        if o != s:
            kept += kept_sets(view[V_CODES + o], pair_bonus, triplet_bonus)
            longest = max(longest, suit_count(view, o))
    return sh * 16 + suit_count(view, s) * void_cost - kept - max(longest - 6, 0) * flush_bonus, sh, kept, longest
