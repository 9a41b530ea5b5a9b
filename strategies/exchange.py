"""Exchange policies: which three tiles of one suit to pass (Q_EXCHANGE; RULES.md: One hand, step by step, step 2).

A suit is eligible when the seat holds three or more of it (always one: 13 tiles in three
suits leave a suit of five or more).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.evaluate import regular_shanten_codes
from simcore.contract.nrt import nonneg
from simcore.contract.tiles import N_RANKS, N_SUITS
from simcore.contract.view import Q_EXCHANGE, V_HAND, pack3, param_int, rand_below, unpack3

from strategies.core import isolation
from strategies.params import Param, parameters


@nb.njit(cache=True, _nrt=False)
def suit_count(view, s):
    n = 0
    s = nonneg(s)
    for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
        n += view[V_HAND + t]
    return n


@nb.njit(cache=True, inline="always")
def shanten_voiding(tab, m, p, t, v):
    """The regular shanten of a hand of suit codes m, p, t once suit v is voided (its code dropped)."""
    return regular_shanten_codes(tab, 0 if v == 0 else m, 0 if v == 1 else p, 0 if v == 2 else t, 0)


@nb.njit(cache=True, _nrt=False)
def neighbour_count(view, t):
    """How many same-suit tiles lie within two ranks of t, its other copies included, each
    counting once (times 8, plus a small bonus for middle ranks so ties go to edge tiles); lower
    is lonelier. Unlike ``strategies.core.isolation``, which weighs close neighbours double for
    play, this flat count is what the exchange policies rank their three tiles by."""
    t = nonneg(t)
    r = t % N_RANKS
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
    for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
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
@nb.njit(cache=True, _nrt=False)
def shortest(q, view, tab):
    """Three of the shortest suit holding three or more, isolated tiles first."""
    best = -1
    for s in range(N_SUITS):
        n = suit_count(view, s)
        if n >= 3 and (best < 0 or n < suit_count(view, best)):
            best = s
    return pass_three_of(view, best)


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def random_suit(q, view, tab):
    """Three tiles of a random eligible suit, isolated tiles first."""
    n = 0
    for s in range(N_SUITS):
        if suit_count(view, s) >= 3:
            n += 1
    pick = rand_below(view, n)
    for s in range(N_SUITS):
        if suit_count(view, s) >= 3:
            if pick == 0:
                return pass_three_of(view, s)
            pick -= 1
    return -1


@nb.njit(cache=True, _nrt=False)
def _structure(view, s):
    """Pairs and two-tile run shapes in suit s: what passing it would break."""
    n = 0
    for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
        c = view[V_HAND + t]
        if c >= 2:
            n += 1
        r = t % N_RANKS
        if c > 0 and r <= 7 and view[V_HAND + t + 1] > 0:
            n += 1
        if c > 0 and r <= 6 and view[V_HAND + t + 2] > 0:
            n += 1
    return n


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def keep_pairs(q, view, tab):
    """The eligible suit whose loss breaks the fewest pairs and runs (ties: the shorter)."""
    best = -1
    best_key = 1 << 30
    for s in range(N_SUITS):
        n = suit_count(view, s)
        if n < 3:
            continue
        key = _structure(view, s) * 64 + n
        if key < best_key:
            best_key = key
            best = s
    return pass_three_of(view, best)


@nb.njit(cache=True, inline="always")
def _codes_less(view, s, a, b, c):
    """The three suit codes (rank 0 least significant, base 5) of the hand less tiles a, b, c."""
    m = 0
    p = 0
    t = 0
    for r in range(N_RANKS - 1, -1, -1):
        m = m * 5 + view[V_HAND + r] - (a == r) - (b == r) - (c == r) if s == 0 else m * 5 + view[V_HAND + r]
        p = p * 5 + view[V_HAND + N_RANKS + r] - (a == N_RANKS + r) - (b == N_RANKS + r) - (c == N_RANKS + r) if s == 1 \
            else p * 5 + view[V_HAND + N_RANKS + r]
        t = t * 5 + view[V_HAND + 2 * N_RANKS + r] - (a == 2 * N_RANKS + r) - (b == 2 * N_RANKS + r) - (c == 2 * N_RANKS + r) \
            if s == 2 else t * 5 + view[V_HAND + 2 * N_RANKS + r]
    return m, p, t


@nb.njit(cache=True, inline="always")
def kept_sets(code, pair_bonus, triplet_bonus):
    """What the pairs and triplets of a suit code (base 5) are worth keeping: the pungs, kongs
    and roots they may become, in sixteenths of a shanten."""
    w = 0
    while code > 0:
        c = code % 5
        w += pair_bonus if c == 2 else (triplet_bonus if c >= 3 else 0)
        code //= 5
    return w


@nb.njit(cache=True, _nrt=False)
def plan_cost(tab, m, p, t, n0, n1, n2, void_cost, flush_bonus, pair_bonus, triplet_bonus):
    """What a hand of suit codes m, p, t (n0, n1, n2 tiles) is worth keeping, lower is better:
    over the suit it would void, the regular shanten of the other two suits plus ``void_cost``
    per tile of the void suit still to discard, less what their pairs and triplets are worth
    (``kept_sets``), less ``flush_bonus`` per tile by which its longest suit passes six (a full
    flush to aim for)."""
    best = 1 << 30
    for v in range(N_SUITS):
        sh = shanten_voiding(tab, m, p, t, v)
        nv = n0 if v == 0 else (n1 if v == 1 else n2)
        kept = (kept_sets(m, pair_bonus, triplet_bonus) * (v != 0) + kept_sets(p, pair_bonus, triplet_bonus) * (v != 1)
                + kept_sets(t, pair_bonus, triplet_bonus) * (v != 2))
        best = min(best, sh * 16 + nv * void_cost - kept)
    longest = max(n0, max(n1, n2))
    return best - max(longest - 6, 0) * flush_bonus


def plan_cost_params(pair_bonus: int) -> dict[str, Param]:
    """The parameters of ``plan_cost`` that the exchange and void policies declare (each with
    its own default for ``pair_bonus``), by name."""
    return {p.name: p for p in (
        Param.int("void_cost", 6, 0, 32, "what each tile of the suit to void costs, in sixteenths of a shanten"),
        Param.int("flush_bonus", 4, 0, 32, "what each tile of the longest kept suit past six is worth, in sixteenths of a shanten"),
        Param.int("pair_bonus", pair_bonus, 0, 32, "what each pair kept is worth, in sixteenths of a shanten"),
        Param.int("triplet_bonus", 8, 0, 32, "what each triplet kept is worth, in sixteenths of a shanten"))}


_PLAN = plan_cost_params(pair_bonus=3)


@parameters(_PLAN["void_cost"], _PLAN["flush_bonus"],
            Param.int("suit_slack", 0, 0, 11, "how many tiles longer than the shortest eligible suit a suit passed from may be"),
            _PLAN["pair_bonus"], _PLAN["triplet_bonus"], scratch=0)
@nb.njit(cache=True, _nrt=False)
def plans(q, view, tab):
    """The three tiles whose passing leaves the best plan (a quick shanten once a suit is voided, pairs and triplets kept, a long suit kept for a flush).

    Of each eligible suit's five loneliest tiles, every three are tried (``plan_cost``); the
    three that arrive are one unknown suit, so they are not counted. Three of a kind is not
    passed while a longer suit can give three others (the search's review of expert hands found
    it costly: a pung given away and a set broken)."""
    void_cost = param_int(view, 0)
    flush_bonus = param_int(view, 1)
    pair_bonus = param_int(view, 3)
    triplet_bonus = param_int(view, 4)
    shortest_n = 14
    for s in range(N_SUITS):
        n = suit_count(view, s)
        if n >= 3:
            shortest_n = min(shortest_n, n)
    best_pick = _plans_within(tab, view, shortest_n + param_int(view, 2), void_cost, flush_bonus, pair_bonus, triplet_bonus,
                              False)
    a, b, c = unpack3(best_pick)
    if a == b and b == c:  # three of a kind: a pung given away; pass from a longer suit if one can
        other = _plans_within(tab, view, 14, void_cost, flush_bonus, pair_bonus, triplet_bonus, True)
        if other >= 0:
            return other
    return best_pick


@nb.njit(cache=True, _nrt=False)
def _plans_within(tab, view, longest, void_cost, flush_bonus, pair_bonus, triplet_bonus, no_triplet):
    """``plans``' choice among the suits of at most ``longest`` tiles (-1: none), without three
    of a kind when ``no_triplet``."""
    best = 1 << 40
    best_pick = -1
    for s in range(N_SUITS):
        n = suit_count(view, s)
        if n < 3 or n > longest:
            continue
        # the suit's five loneliest tiles (copies counted), loneliest first
        c0 = c1 = c2 = c3 = c4 = -1
        k0 = k1 = k2 = k3 = k4 = 1 << 30
        for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
            c = view[V_HAND + t]
            if c <= 0:
                continue
            key = neighbour_count(view, t) * 32 + t
            for _ in range(min(c, 3)):
                if key < k4:
                    c4, k4 = t, key
                    if k4 < k3:
                        c3, k3, c4, k4 = c4, k4, c3, k3
                    if k3 < k2:
                        c2, k2, c3, k3 = c3, k3, c2, k2
                    if k2 < k1:
                        c1, k1, c2, k2 = c2, k2, c1, k1
                    if k1 < k0:
                        c0, k0, c1, k1 = c1, k1, c0, k0
                key += 1  # a second copy sorts just after the first
        lonely = (c0, c1, c2, c3, c4)
        m = (c0 >= 0) + (c1 >= 0) + (c2 >= 0) + (c3 >= 0) + (c4 >= 0)
        n0 = suit_count(view, 0) - 3 * (s == 0)   # the suits' lengths once three of s are passed
        n1 = suit_count(view, 1) - 3 * (s == 1)
        n2 = suit_count(view, 2) - 3 * (s == 2)
        for i in range(m):
            for j in range(i + 1, m):
                for k in range(j + 1, m):
                    a, b, c = lonely[i], lonely[j], lonely[k]
                    if no_triplet and a == b and b == c:
                        continue
                    x, y, z = _codes_less(view, s, a, b, c)
                    cost = plan_cost(tab, x, y, z, n0, n1, n2, void_cost, flush_bonus, pair_bonus, triplet_bonus) * 1024 + (i + j + k)
                    if cost < best:
                        best, best_pick = cost, pack3(a, b, c)
    return best_pick


@nb.njit(cache=True, _nrt=False)
def isolated_three(view, s):
    """The three most isolated tiles of suit s (``core.isolation``; the seat holds at least three):
    what the search and the learned exchange judge of a suit other than the policy's own."""
    p0 = np.int64(-1)
    p1 = np.int64(-1)
    p2 = np.int64(-1)
    for i in range(3):
        best = np.int64(-1)
        best_iso = 1 << 30
        for t in range(N_RANKS * s, N_RANKS * s + N_RANKS):
            left = view[V_HAND + t] - (1 if p0 == t else 0) - (1 if p1 == t else 0)
            if left > 0 and isolation(view, np.int64(t)) < best_iso:
                best_iso = isolation(view, np.int64(t))
                best = np.int64(t)
        if i == 0:
            p0 = best
        elif i == 1:
            p1 = best
        else:
            p2 = best
    return pack3(p0, p1, p2)
