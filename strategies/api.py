"""What a strategy author imports: the contract (``simcore.view``) plus fast helpers.

A strategy is ``@numba.njit(STRATEGY_SIG, cache=True)`` on ``f(question, view, tab) -> int``;
see ``simcore.view`` for the questions, answers and view slots, and
``strategies/example_user_strategy.py`` for a worked example. The helpers below evaluate the
seat's own hand from its view without allocating: suit codes are computed once and adjusted
per candidate tile (DESIGN.md: hot path).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.evaluate import regular_shanten_codes, shanten, waits_mask  # noqa: F401  (re-exported)
from simcore.view import *  # noqa: F401,F403  (the contract is part of this API)
from simcore.view import V_CODES, V_HAND, V_ME, V_N1, V_N2, V_N_MELDS, V_VISIBLE, V_VOID

POW5 = (1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)


@nb.njit(cache=True, inline="always")
def me(view):
    return view[V_ME]


@nb.njit(cache=True, inline="always")
def my_void(view):
    """This seat's void suit (0, 1, 2), or 3 before it is declared (matches no tile)."""
    v = view[V_VOID + view[V_ME]]
    return 3 if v < 0 else v


@nb.njit(cache=True, inline="always")
def my_melds(view):
    return view[V_N_MELDS + view[V_ME]]


@nb.njit(cache=True, inline="always")
def hand_of(view):
    """The seat's concealed counts (a view into ``view``; do not write)."""
    return view[V_HAND:V_HAND + 27]


@nb.njit(cache=True)
def suit_codes(view):
    """Base-5 codes of the seat's three suits, the void suit's set to 0 (DESIGN.md)."""
    void = my_void(view)
    c0 = view[V_CODES] if void != 0 else 0
    c1 = view[V_CODES + 1] if void != 1 else 0
    c2 = view[V_CODES + 2] if void != 2 else 0
    return c0, c1, c2


@nb.njit(cache=True, inline="always")
def _pair_slots(c):
    """Seven-pairs slot contributions of a kind held c times: (slots worth 2, slots worth 1)."""
    if c == 1:
        return 0, 1
    if c == 2:
        return 1, 0
    if c == 3:
        return 1, 1
    if c == 4:
        return 2, 0
    return 0, 0


@nb.njit(cache=True, inline="always")
def pair_slots(view):
    """(n2, n1) over non-void kinds, for seven-pairs shanten ``13 - 2a - b``."""
    return view[V_N2], view[V_N1]


@nb.njit(cache=True, inline="always")
def seven_pairs_from_slots(n2, n1):
    a = min(n2, 7)
    return 13 - 2 * a - min(n1, 7 - a)


@nb.njit(cache=True)
def shanten_with(tab, view, c0, c1, c2, n2, n1, t, delta):
    """Shanten of the seat's hand with ``delta`` (+1/-1) copies of tile t, from precomputed
    suit codes and pair slots of the current hand. Fast path: declared sets count as k sets
    without capping targets (``simcore.evaluate.shanten_exact`` caps them)."""
    void = my_void(view)
    k = my_melds(view)
    s = t // 9
    if s != void:
        d = delta * POW5[t % 9]
        if s == 0:
            c0 += d
        elif s == 1:
            c1 += d
        else:
            c2 += d
    sh = regular_shanten_codes(tab, c0, c1, c2, k)
    if k == 0:
        if s != void:
            c = view[V_HAND + t]
            a0, b0 = _pair_slots(c)
            a1, b1 = _pair_slots(c + delta)
            n2 += a1 - a0
            n1 += b1 - b0
        s7 = seven_pairs_from_slots(n2, n1)
        if s7 < sh:
            sh = s7
    return sh


@nb.njit(cache=True)
def hand_shanten(tab, view):
    """Shanten of the seat's current concealed tiles (fast path, see ``shanten_with``)."""
    c0, c1, c2 = suit_codes(view)
    sh = regular_shanten_codes(tab, c0, c1, c2, my_melds(view))
    if my_melds(view) == 0:
        n2, n1 = pair_slots(view)
        s7 = seven_pairs_from_slots(n2, n1)
        if s7 < sh:
            sh = s7
    return sh


@nb.njit(cache=True, inline="always")
def live(view, t):
    """Copies of t this seat cannot see (in the wall or in other seats' hidden tiles)."""
    return 4 - view[V_VISIBLE + t]
