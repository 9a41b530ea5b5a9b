"""Play strategies: answers to Q_TURN, Q_CLAIM and Q_ROB (and any question, for safety).

Each is a jitted ``STRATEGY_SIG`` function; the registry names them. Shared decision pieces
(best discard by shanten, kong and pung tests) are plain jitted helpers so stronger players
reuse them.
"""

from __future__ import annotations

import numba as nb

from simcore.evaluate import regular_shanten_codes
from simcore.view import (
    A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, M_PUNG, Q_CLAIM, Q_ROB, Q_TURN, STRATEGY_SIG, V_CAN_KONG,
    V_CAN_PUNG, V_CAN_WIN, V_HAND, V_KONG_MASK, V_LOCKED, V_MELD_KIND, V_MELD_TILE, V_ME, V_MUST_VOID,
    V_N_MELDS, V_TILE, rand_below,
)

from .api import POW5, hand_shanten, my_melds, my_void, pair_slots, shanten_with, suit_codes

INF = 99


@nb.njit(cache=True, inline="always")
def _neighbours(view, t):
    """Same-suit tiles within two ranks of t (t's other copies count): low means isolated."""
    r = t % 9
    n = view[V_HAND + t] - 1
    for d in (-2, -1, 1, 2):
        if 0 <= r + d <= 8:
            n += view[V_HAND + t + d]
    return n


@nb.njit(cache=True, inline="always")
def _may_discard(view, t, void):
    if view[V_HAND + t] == 0:
        return False
    if view[V_MUST_VOID] and t // 9 != void:
        return False
    return True


@nb.njit(cache=True)
def greedy_discard(tab, view):
    """(tile, shanten after it): the lowest shanten; ties to the most isolated, then the lowest index."""
    if view[V_LOCKED]:
        return view[V_TILE], INF
    void = my_void(view)
    c0, c1, c2 = suit_codes(view)
    n2, n1 = pair_slots(view)
    best_t = -1
    best_key = 1 << 30
    best_sh = INF
    for t in range(27):
        if not _may_discard(view, t, void):
            continue
        sh = shanten_with(tab, view, c0, c1, c2, n2, n1, t, -1)
        key = sh * 64 + _neighbours(view, t)
        if key < best_key:
            best_key = key
            best_t = t
            best_sh = sh
    return best_t, best_sh


@nb.njit(cache=True)
def _has_pung(view, t):
    seat = view[V_ME]
    for i in range(view[V_N_MELDS + seat]):
        if view[V_MELD_KIND + seat * 4 + i] == M_PUNG and view[V_MELD_TILE + seat * 4 + i] == t:
            return True
    return False


@nb.njit(cache=True)
def _codes_minus(c0, c1, c2, t, n, void):
    s = t // 9
    if s == void:
        return c0, c1, c2
    d = n * POW5[t % 9]
    if s == 0:
        return c0 - d, c1, c2
    if s == 1:
        return c0, c1 - d, c2
    return c0, c1, c2 - d


@nb.njit(cache=True)
def shanten_after_kong(tab, view, t):
    """Shanten once a kong of t is declared from the hand (concealed: four, added: one)."""
    void = my_void(view)
    c0, c1, c2 = suit_codes(view)
    k = my_melds(view)
    if _has_pung(view, t):
        c0, c1, c2 = _codes_minus(c0, c1, c2, t, 1, void)
        return regular_shanten_codes(tab, c0, c1, c2, k)
    c0, c1, c2 = _codes_minus(c0, c1, c2, t, 4, void)
    return regular_shanten_codes(tab, c0, c1, c2, k + 1)


@nb.njit(cache=True)
def shanten_after_pung(tab, view, t):
    """Best shanten after punging t and discarding one tile (void tiles first)."""
    void = my_void(view)
    c0, c1, c2 = suit_codes(view)
    c0, c1, c2 = _codes_minus(c0, c1, c2, t, 2, void)
    k = my_melds(view) + 1
    best = INF
    holds_void = False
    if void < 3:
        for x in range(void * 9, void * 9 + 9):
            if view[V_HAND + x] > 0:
                holds_void = True
    for x in range(27):
        left = view[V_HAND + x] - (2 if x == t else 0)
        if left <= 0 or (holds_void and x // 9 != void):
            continue
        d0, d1, d2 = _codes_minus(c0, c1, c2, x, 1, void)
        sh = regular_shanten_codes(tab, d0, d1, d2, k)
        if sh < best:
            best = sh
    return best


@nb.njit(cache=True)
def shanten_after_exposed_kong(tab, view, t):
    void = my_void(view)
    c0, c1, c2 = suit_codes(view)
    c0, c1, c2 = _codes_minus(c0, c1, c2, t, 3, void)
    return regular_shanten_codes(tab, c0, c1, c2, my_melds(view) + 1)


@nb.njit(cache=True)
def greedy_kong(tab, view, best_sh):
    """A kong from the mask that does not raise shanten above ``best_sh``, or -1."""
    mask = view[V_KONG_MASK]
    t = 0
    while mask:
        if mask & 1:
            if view[V_LOCKED] or shanten_after_kong(tab, view, t) <= best_sh:
                return t
        mask >>= 1
        t += 1
    return -1


@nb.njit(cache=True)
def greedy_claim(tab, view):
    """Win; else kong or pung when it does not raise shanten; else pass."""
    if view[V_CAN_WIN]:
        return C_WIN
    t = view[V_TILE]
    now = hand_shanten(tab, view)
    if view[V_CAN_KONG] and shanten_after_exposed_kong(tab, view, t) <= now:
        return C_KONG
    if view[V_CAN_PUNG] and shanten_after_pung(tab, view, t) <= now:
        return C_PUNG
    return C_PASS


@nb.njit(STRATEGY_SIG, cache=True)
def greedy(q, view, tab):
    """Lowest shanten, deterministic ties, always wins when it can."""
    if q == Q_TURN:
        if view[V_CAN_WIN]:
            return A_WIN
        t, sh = greedy_discard(tab, view)
        k = greedy_kong(tab, view, sh)
        if k >= 0:
            return A_KONG + k
        return t
    if q == Q_CLAIM:
        return greedy_claim(tab, view)
    if q == Q_ROB:
        return C_WIN
    return 0


@nb.njit(STRATEGY_SIG, cache=True)
def random_play(q, view, tab):
    """A uniformly random legal answer."""
    if q == Q_TURN:
        void = my_void(view)
        n = 0
        if view[V_CAN_WIN]:
            n += 1
        mask = view[V_KONG_MASK]
        for t in range(27):
            if (mask >> t) & 1:
                n += 1
        if view[V_LOCKED]:
            n += 1
        else:
            for t in range(27):
                if _may_discard(view, t, void):
                    n += 1
        pick = rand_below(view, n)
        if view[V_CAN_WIN]:
            if pick == 0:
                return A_WIN
            pick -= 1
        for t in range(27):
            if (mask >> t) & 1:
                if pick == 0:
                    return A_KONG + t
                pick -= 1
        if view[V_LOCKED]:
            return view[V_TILE]
        for t in range(27):
            if _may_discard(view, t, void):
                if pick == 0:
                    return t
                pick -= 1
        return -1
    if q == Q_CLAIM or q == Q_ROB:
        n = 1 + view[V_CAN_WIN] + view[V_CAN_PUNG] + view[V_CAN_KONG]
        pick = rand_below(view, n)
        if pick == 0:
            return C_PASS
        pick -= 1
        if view[V_CAN_WIN]:
            if pick == 0:
                return C_WIN
            pick -= 1
        if view[V_CAN_PUNG]:
            if pick == 0:
                return C_PUNG
            pick -= 1
        return C_KONG
    return 0
