"""Exchange policies: which three tiles of one suit to pass (Q_EXCHANGE; RULES.md: One hand, step by step, step 2).

A suit is eligible when the seat holds three or more of it (always one: 13 tiles in three
suits leave a suit of five or more).
"""

from __future__ import annotations

import numba as nb

from simcore.nrt import nonneg
from simcore.view import Q_EXCHANGE, STRATEGY_SIG, V_HAND, pack3, rand_below

from .params import parameters


@nb.njit(cache=True, _nrt=False)
def suit_count(view, s):
    n = 0
    s = nonneg(s)
    for t in range(s * 9, s * 9 + 9):
        n += view[V_HAND + t]
    return n


@nb.njit(cache=True, _nrt=False)
def neighbour_count(view, t):
    """How many same-suit tiles lie within two ranks of t, its other copies included, each
    counting once (times 8, plus a small bonus for middle ranks so ties go to edge tiles); lower
    is lonelier. Unlike ``strategies.core.isolation``, which weighs close neighbours double for
    play, this flat count is what the exchange policies rank their three tiles by."""
    t = nonneg(t)
    r = t % 9
    n = view[V_HAND + t] - 1
    if r >= 2:
        n += view[V_HAND + t - 2]
    if r >= 1:
        n += view[V_HAND + t - 1]
    if r <= 7:
        n += view[V_HAND + t + 1]
    if r <= 6:
        n += view[V_HAND + t + 2]
    return n * 8 + (4 - abs(r - 4)) // 2


@nb.njit(cache=True, _nrt=False)
def pass_three_of(view, s):
    """Three tiles of suit s, the loneliest first (``neighbour_count``; ties: the lowest rank); a
    tile held more than once may go more than once: the three smallest (count, tile) over the
    suit's copies, each tile's count computed once."""
    p0 = p1 = p2 = -1
    k0 = k1 = k2 = 1 << 30
    s = nonneg(s)
    for t in range(s * 9, s * 9 + 9):
        c = view[V_HAND + t]
        if c <= 0:
            continue
        key = neighbour_count(view, t)
        for _ in range(min(c, 3)):  # copies of t after any earlier tile of equal key
            if key < k0:
                p2, k2, p1, k1, p0, k0 = p1, k1, p0, k0, t, key
            elif key < k1:
                p2, k2, p1, k1 = p1, k1, t, key
            elif key < k2:
                p2, k2 = t, key
            else:
                break
    return pack3(p0, p1, p2)


@parameters(scratch=0)
@nb.njit(STRATEGY_SIG, cache=True, _nrt=False)
def shortest(q, view, tab):
    """Three of the shortest suit holding three or more, isolated tiles first."""
    best = -1
    for s in range(3):
        n = suit_count(view, s)
        if n >= 3 and (best < 0 or n < suit_count(view, best)):
            best = s
    return pass_three_of(view, best)


@parameters(scratch=0)
@nb.njit(STRATEGY_SIG, cache=True, _nrt=False)
def random_suit(q, view, tab):
    """Three tiles of a random eligible suit, isolated tiles first."""
    n = 0
    for s in range(3):
        if suit_count(view, s) >= 3:
            n += 1
    pick = rand_below(view, n)
    for s in range(3):
        if suit_count(view, s) >= 3:
            if pick == 0:
                return pass_three_of(view, s)
            pick -= 1
    return -1


@nb.njit(cache=True, _nrt=False)
def _structure(view, s):
    """Pairs and two-tile run shapes in suit s: what passing it would break."""
    n = 0
    for t in range(s * 9, s * 9 + 9):
        c = view[V_HAND + t]
        if c >= 2:
            n += 1
        r = t % 9
        if c > 0 and r <= 7 and view[V_HAND + t + 1] > 0:
            n += 1
        if c > 0 and r <= 6 and view[V_HAND + t + 2] > 0:
            n += 1
    return n


@parameters(scratch=0)
@nb.njit(STRATEGY_SIG, cache=True, _nrt=False)
def keep_pairs(q, view, tab):
    """The eligible suit whose loss breaks the fewest pairs and runs (ties: the shorter)."""
    best = -1
    best_key = 1 << 30
    for s in range(3):
        n = suit_count(view, s)
        if n < 3:
            continue
        key = _structure(view, s) * 64 + n
        if key < best_key:
            best_key = key
            best = s
    return pass_three_of(view, best)
