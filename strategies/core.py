"""Fast hand evaluation from a seat's view, shared by the built-in players.

A turn's evaluation starts from ``prepare``: the three suit codes (the void suit's and, for
the flush player, any ignored suit's set to 0), their table classes and the seven-pairs slot
counts. ``shanten_moved`` then evaluates the hand with one tile removed and/or one added by
re-classing only the suits that change: three table loads per evaluation (ARCHITECTURE.md: Hot
path). Everything here is the fast path: declared sets count as k sets without capping
targets (``simcore.contract.evaluate.shanten_exact`` caps them). Like the engine's helpers, these
allocate nothing and are compiled with ``_nrt=False`` (no reference counting on calls).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from simcore.contract.evaluate import POW5, moved_slots, seven_pairs_from_slots, shift_code, slots2
from simcore.contract.nrt import nonneg
from simcore.contract.tables import PAIR_OFF, STRIDE, final_at
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS, SUIT_BITS
from simcore.contract.view import V_CODES, V_HAND, V_ME, V_N1, V_N2, V_N_MELDS, V_VISIBLE, V_VOID

INF = 99
NO_TILE = np.int64(-1)

# A hand prepared for evaluation (``prepare``): the three suit codes with the void suit and the
# ignored suits set to 0, their table classes, the seven-pairs slots worth two and worth one,
# the declared sets and the bit set of ignored suits. A numba named tuple: its fields live in
# registers like a plain tuple's.
Prepared = namedtuple("Prepared", ["c0", "c1", "c2", "a0", "a1", "a2", "n2", "n1", "k", "ignore"])


@nb.njit(cache=True, inline="always")
def my_void(view):
    """This seat's void suit (0, 1, 2), or ``NO_VOID`` (3, a suit no tile has) before it is declared."""
    return nonneg(view[V_VOID + nonneg(view[V_ME])])


@nb.njit(cache=True, inline="always")
def my_melds(view):
    return view[V_N_MELDS + nonneg(view[V_ME])]


@nb.njit(cache=True, inline="always")
def live(view, t):
    """Copies of t this seat cannot see (in the wall or in other seats' hidden tiles)."""
    return 4 - view[V_VISIBLE + t]


@nb.njit(cache=True, inline="always")
def seven_pairs_moved(n2, n1, c, n):
    """Seven-pairs shanten once a kind held c times is held c + n times."""
    two, one = moved_slots(n2, n1, c, n)
    return seven_pairs_from_slots(two, one)


@nb.njit(cache=True, inline="always")
def klass(tab, code):
    return np.int64(tab[nonneg(code)])


@nb.njit(cache=True, inline="always")
def pair_class(tab, a, b):
    """Class of two suits combined; symmetric, as the shanten is symmetric in the three suits
    (tests/contract/test_fast_paths.py checks every class triple), so the fast paths below combine
    whichever two suits stay fixed."""
    return np.int64(tab[nonneg(PAIR_OFF + a * STRIDE + b)])


@nb.njit(cache=True, inline="always")
def final_shanten(tab, pc, c, k):
    """Regular shanten of a pair class and a third suit's class with k declared sets."""
    return np.int64(tab[nonneg(final_at(pc, c, k))]) - 1


@nb.njit(cache=True, inline="always")
def shanten3(tab, a, b, c, k):
    """Regular shanten of three suit classes with k declared sets."""
    return final_shanten(tab, pair_class(tab, a, b), c, k)


@nb.njit(cache=True, inline="always")
def code_and_rest(tab, c0, c1, c2, a0, a1, a2, s):
    """Suit s's code and the pair class of the other two suits."""
    if s == 0:
        return c0, pair_class(tab, a1, a2)
    if s == 1:
        return c1, pair_class(tab, a0, a2)
    return c2, pair_class(tab, a0, a1)


@nb.njit(cache=True, inline="always")
def prepare(tab, view, ignore):
    """The seat's hand as a ``Prepared``; suits in the bit set ``ignore`` (and the void suit)
    evaluate as empty, so their tiles are never part of a target."""
    void = my_void(view)
    if void < N_SUITS:
        ignore |= 1 << void
    c0 = view[V_CODES] if not ignore & 1 else 0
    c1 = view[V_CODES + 1] if not ignore & 2 else 0
    c2 = view[V_CODES + 2] if not ignore & 4 else 0
    n2 = view[V_N2]
    n1 = view[V_N1]
    if ignore & ~(1 << void) & 7:
        # slots were counted over every non-void kind: take the ignored suits out
        for s in range(N_SUITS):
            if (ignore >> s) & 1 and s != void:
                for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
                    c = view[V_HAND + t]
                    n2 -= slots2(c)
                    n1 -= c & 1
    return Prepared(c0, c1, c2, klass(tab, c0), klass(tab, c1), klass(tab, c2), n2, n1, my_melds(view), ignore)


@nb.njit(cache=True, inline="always")
def shanten_of_classes(tab, a0, a1, a2, k, n2, n1):
    """min(regular, seven pairs) of three suit classes and the pair slots; seven pairs only with
    no declared sets."""
    sh = shanten3(tab, a0, a1, a2, k)
    if k == 0:
        s7 = seven_pairs_from_slots(n2, n1)
        if s7 < sh:
            sh = s7
    return sh


@nb.njit(cache=True, inline="always")
def shanten_of(tab, st):
    return shanten_of_classes(tab, st.a0, st.a1, st.a2, st.k, st.n2, st.n1)


@nb.njit(cache=True, inline="always")
def add_tiles(tab, st, t, n):
    """``st``'s suit codes and classes with n copies of t added to its suit (n < 0 takes them
    out); only that suit's class is looked up again."""
    c0, c1, c2, a0, a1, a2 = st.c0, st.c1, st.c2, st.a0, st.a1, st.a2
    c0, c1, c2 = shift_code(c0, c1, c2, t, n)
    s = t // N_RANKS
    if s == 0:
        a0 = klass(tab, c0)
    elif s == 1:
        a1 = klass(tab, c1)
    else:
        a2 = klass(tab, c2)
    return c0, c1, c2, a0, a1, a2


@nb.njit(cache=True, inline="always")
def without_one(tab, view, st, t):
    """``st``'s codes, classes and seven-pairs slots (n2, n1) with one copy of t taken out."""
    c0, c1, c2, a0, a1, a2 = add_tiles(tab, st, t, -1)
    n2, n1 = st.n2, st.n1
    if st.k == 0:
        n2, n1 = moved_slots(n2, n1, view[V_HAND + t], -1)
    return c0, c1, c2, a0, a1, a2, n2, n1


@nb.njit(cache=True, inline="always")
def shanten_moved(tab, view, st, out_t, in_t):
    """Shanten with one copy of ``out_t`` removed and one of ``in_t`` added (-1: none)."""
    c0, c1, c2, a0, a1, a2, n2, n1, k, ignore = st
    if out_t >= 0 and not (ignore >> (out_t // N_RANKS)) & 1:
        c0, c1, c2 = shift_code(c0, c1, c2, out_t, -1)
        if k == 0:
            n2, n1 = moved_slots(n2, n1, view[V_HAND + out_t], -1)
    if in_t >= 0 and not (ignore >> (in_t // N_RANKS)) & 1:
        c0, c1, c2 = shift_code(c0, c1, c2, in_t, 1)
        if k == 0:
            n2, n1 = moved_slots(n2, n1, view[V_HAND + in_t] - (1 if in_t == out_t else 0), 1)
    if c0 != st.c0:
        a0 = klass(tab, c0)
    if c1 != st.c1:
        a1 = klass(tab, c1)
    if c2 != st.c2:
        a2 = klass(tab, c2)
    return shanten_of_classes(tab, a0, a1, a2, k, n2, n1)


@nb.njit(cache=True, inline="always")
def shanten_minus(tab, view, st, t, n, extra_melds):
    """Shanten with n copies of t taken out of the hand into ``extra_melds`` new declared sets
    (a pung or kong claim, a concealed kong). Regular hands only (declared sets exist)."""
    c0, c1, c2, a0, a1, a2, n2, n1, k, ignore = st
    s = t // N_RANKS
    if not (ignore >> s) & 1:
        d = n * POW5[t - N_RANKS * s]
        if s == 0:
            a0 = klass(tab, c0 - d)
        elif s == 1:
            a1 = klass(tab, c1 - d)
        else:
            a2 = klass(tab, c2 - d)
    return shanten3(tab, a0, a1, a2, k + extra_melds)


@nb.njit(cache=True, inline="always")
def isolation(view, t):
    """Same-suit tiles within two ranks of t, weighted by closeness: its other copies and the
    tiles one rank away count double, two ranks away once (times 4, plus a small bonus for
    middle ranks so ties go to terminals); lower is more isolated. The play strategies' tie-break."""
    return isolation_at(view, t, t % N_RANKS)


@nb.njit(cache=True, inline="always")
def isolation_at(view, t, r):
    """``isolation(view, t)`` for t of rank r."""
    t = nonneg(t)
    n = 2 * (view[V_HAND + t] - 1)
    if r >= 1:
        n += view[V_HAND + t - 1] * 2
    if r >= 2:
        n += view[V_HAND + t - 2]
    if r <= 7:
        n += view[V_HAND + t + 1] * 2
    if r <= 6:
        n += view[V_HAND + t + 2]
    return n * 4 + (4 - abs(r - 4)) // 2


@nb.njit(cache=True, _nrt=False)
def near_mask(view, st):
    """Tiles within two ranks of a held tile of the same target suit: the only draws that can
    lower a regular hand's shanten (a lone new tile joins nothing)."""
    ignore = st.ignore
    m = np.int64(0)
    for s in range(N_SUITS):
        if (ignore >> s) & 1:
            continue
        for r in range(N_RANKS):  # arithmetic, not a branch per (randomly) held kind
            t = N_RANKS * s + r
            lo = t - min(r, 2)
            hi = t + min(N_RANKS - 1 - r, 2)
            m |= (((np.int64(1) << (hi - lo + 1)) - 1) << lo) * (view[V_HAND + t] > 0)
    return m


# Per-suit weights of a live tile, three 16-bit fields (``suit_weight``): ``UNIT_WEIGHTS`` counts
# every live copy once, as the built-in players do; the expert weighs copies by where they likely
# are, and a kind it holds a pair of by the chance too that an opponent discards it (``w_pair``)
UNIT_WEIGHTS = np.int64(1 | (1 << 16) | (1 << 32))


@nb.njit(cache=True, inline="always")
def suit_weight(w, s):
    return (w >> (16 * s)) & 0xFFFF


@nb.njit(cache=True, _nrt=False)
def ukeire(tab, view, st, out_t, target, near):
    """Live tiles among ``near`` that bring the hand minus ``out_t`` below shanten ``target``."""
    return ukeire_weighted(tab, view, st, out_t, target, near, UNIT_WEIGHTS, UNIT_WEIGHTS)


@nb.njit(cache=True, _nrt=False)
def ukeire_weighted(tab, view, st, out_t, target, near, w, w_pair):
    """``ukeire`` with each live copy counted ``suit_weight(w, its suit)`` times, or
    ``suit_weight(w_pair, its suit)`` where the hand minus ``out_t`` holds two or more."""
    c0, c1, c2, a0, a1, a2, n2, n1, k, ignore = st
    if not (ignore >> (out_t // N_RANKS)) & 1:
        c0, c1, c2, a0, a1, a2, n2, n1 = without_one(tab, view, st, out_t)
    n = 0
    for u in range(N_KINDS):
        if not (near >> u) & 1:
            continue
        lv = live(view, u)
        if lv <= 0:
            continue
        s = u // N_RANKS
        d = POW5[u - N_RANKS * s]
        if s == 0:
            sh = shanten3(tab, klass(tab, c0 + d), a1, a2, k)
        elif s == 1:
            sh = shanten3(tab, a0, klass(tab, c1 + d), a2, k)
        else:
            sh = shanten3(tab, a0, a1, klass(tab, c2 + d), k)
        if k == 0 and sh >= target:
            c = view[V_HAND + u] - (1 if u == out_t else 0)
            s7 = seven_pairs_moved(n2, n1, c, 1)
            if s7 < sh:
                sh = s7
        if sh < target:
            held = view[V_HAND + u] - (1 if u == out_t else 0)
            n += lv * suit_weight(w_pair if held >= 2 else w, s)
    return n


# -- whole-turn fast paths (the built-in players; same results as the helpers above) ---------


@nb.njit(cache=True, inline="always")
def discard_shanten_at(tab, pc, code, d, c, k, n2, n1):
    """Shanten after discarding one copy of a kind held c times: d is its weight in its suit's
    ``code``, pc the pair class of the other two suits. No branch on c (whether a kind is held
    is as good as random, and a mispredicted branch per rank cost more than the work it
    saved): a kind not held evaluates the suit unchanged, and the caller masks that result."""
    sh = final_shanten(tab, pc, klass(tab, code - (d if c > 0 else 0)), k)
    if k == 0:  # a discard's seven-pairs shanten (only with no declared sets)
        sh = min(sh, seven_pairs_moved(n2, n1, c, -1))
    return sh


@nb.njit(cache=True, _nrt=False)
def discard_shantens(tab, view, st, o):
    """``view[o + t]`` = ``shanten_moved(tab, view, st, t, NO_TILE)`` for every held t (INF for
    the others); returns the lowest. A candidate costs one class and one final load: the
    pair class of the two suits it leaves alone is shared by its suit."""
    c0, c1, c2, a0, a1, a2, n2, n1, k, ignore = st
    base = shanten_of(tab, st)
    best = INF
    for s in range(N_SUITS):
        if view[V_CODES + s] == 0:  # no tile of this suit
            for t in range(N_RANKS * s, N_RANKS * s + N_RANKS):
                view[o + t] = INF
            continue
        code, pc = code_and_rest(tab, c0, c1, c2, a0, a1, a2, s)
        off_target = (ignore >> s) & 1
        d = 1
        for t in range(N_RANKS * s, N_RANKS * s + N_RANKS):
            c = view[V_HAND + t]
            # an ignored suit's tile changes nothing
            sh = base if off_target else discard_shanten_at(tab, pc, code, d, c, k, n2, n1)
            sh = sh if c > 0 else INF
            best = min(best, sh)
            view[o + t] = sh
            d *= 5
    return best


NO_KEY = np.int64(1) << 40


@nb.njit(cache=True, inline="always")
def lowest_shanten_discard(tab, view, st):
    """(t, shanten) of the discard with the lowest shanten, then the lowest ``isolation``, then
    the lowest index, in one pass (the greedy player; held tiles only, no void tile held).
    Branch-free: every rank of a suit in hand is evaluated (``discard_shanten_at``) and the
    smallest key (shanten, isolation, tile) kept."""
    c0, c1, c2, a0, a1, a2, n2, n1, k, ignore = st
    best = NO_KEY
    for s in range(N_SUITS):
        if view[V_CODES + s] == 0:
            continue  # no tile of this suit
        code, pc = code_and_rest(tab, c0, c1, c2, a0, a1, a2, s)
        off_target = (ignore >> s) & 1
        d = 1
        for r in range(N_RANKS):
            t = N_RANKS * s + r
            c = view[V_HAND + t]
            sh = discard_shanten_at(tab, pc, code, d, c, k, n2, n1)
            if off_target:
                sh = shanten_of(tab, st)  # an ignored suit's tile changes nothing
            key = ((sh + 2) << 13) | (isolation_at(view, t, r) << 5) | t
            best = min(best, key if c > 0 else NO_KEY)
            d *= 5
    if best == NO_KEY:
        return NO_TILE, np.int64(INF)
    return best & 31, (best >> 13) - 2


@nb.njit(cache=True, _nrt=False)
def live_draws(view, near):
    """The tiles of the bit set ``near`` with live copies."""
    m = np.int64(0)
    for u in range(N_KINDS):
        m |= np.int64(live(view, u) > 0) << u
    return m & near


@nb.njit(cache=True, _nrt=False)
def plus_classes(tab, view, st, draws, o):
    """``view[o + u]``: the class of u's suit with one more u, for every u in ``draws``."""
    for s in range(N_SUITS):
        code = st.c0 if s == 0 else (st.c1 if s == 1 else st.c2)
        d = 1
        for u in range(N_RANKS * s, N_RANKS * s + N_RANKS):  # every kind (a class that is never read is harmless)
            view[o + u] = klass(tab, code + (d if (draws >> u) & 1 else 0))
            d *= 5


@nb.njit(cache=True, inline="always")
def ukeire_fast(tab, view, st, out_t, target, draws, o):
    """``ukeire(tab, view, st, out_t, target, near)`` for ``out_t`` of a target suit, given
    ``draws = live_draws(view, near)`` and their ``plus_classes`` at ``o``: a draw of another
    suit costs one final load (its class is known, the pair class of the other two is shared),
    a draw of out_t's suit one class and one final load."""
    return ukeire_fast_weighted(tab, view, st, out_t, target, draws, o, UNIT_WEIGHTS, UNIT_WEIGHTS)


@nb.njit(cache=True, inline="always")
def ukeire_fast_weighted(tab, view, st, out_t, target, draws, o, w, w_pair):
    """``ukeire_fast`` weighted as ``ukeire_weighted``."""
    k = st.k
    so = out_t // N_RANKS
    c0, c1, c2, a0, a1, a2, n2, n1 = without_one(tab, view, st, out_t)
    # a draw lowers the seven-pairs shanten by at most one: whether it can reach the target
    pairs_may = k == 0 and seven_pairs_from_slots(n2, n1) - 1 < target
    n = 0
    for su in range(N_SUITS):
        if not (draws >> (N_RANKS * su)) & SUIT_BITS:
            continue
        ws = suit_weight(w, su)
        wp = suit_weight(w_pair, su) - ws
        code, pc = code_and_rest(tab, c0, c1, c2, a0, a1, a2, su)
        d = 1
        for u in range(N_RANKS * su, N_RANKS * su + N_RANKS):  # every kind, counted only if a draw: no branches
            draw = (draws >> u) & 1
            cls = klass(tab, code + d * draw) if su == so else view[o + u]
            sh = final_shanten(tab, pc, cls, k)
            if pairs_may:
                c = view[V_HAND + u] - (1 if u == out_t else 0)
                sh = min(sh, seven_pairs_moved(n2, n1, c, 1))
            held = view[V_HAND + u] - (1 if u == out_t else 0)
            n += live(view, u) * draw * (sh < target) * (ws + wp * (held >= 2))
            d *= 5
    return n
