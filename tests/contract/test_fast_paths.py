"""The hot-path shortcuts agree with the plain definitions they replace.

The built-in players evaluate a whole turn with shared table loads (``strategies.core``:
``discard_shantens``, ``lowest_shanten_discard``, ``ukeire_fast``; ``strategies.play``:
``shanten_after_pung``). They rely on the regular shanten being symmetric in the three suits,
and must give exactly the answers of ``shanten_moved`` / ``ukeire`` on every hand.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from simcore.contract.tables import N_CODES, PAIR_OFF, STRIDE, final_at, load_tables
from simcore.contract.view import V_CODES, V_HAND, V_ME, V_MUST_VOID, V_N1, V_N2, V_N_MELDS, V_SCRATCH, V_VISIBLE, V_VOID, VIEW_LEN
from simcore.contract.tiles import NO_VOID
from strategies import core
from strategies.play import shanten_after_pung

INF = core.INF


@nb.njit(cache=False)  # always against the current code
def _asymmetries(tab, n):
    bad = 0
    for a in range(n):
        for b in range(n):
            pc = np.int64(tab[PAIR_OFF + a * STRIDE + b])
            if pc != tab[PAIR_OFF + b * STRIDE + a]:
                bad += 1
            for c in range(n):
                for k in range(5):
                    x = np.int64(tab[final_at(pc, c, k)])
                    pc2 = np.int64(tab[PAIR_OFF + b * STRIDE + c])
                    if x != tab[final_at(pc2, a, k)]:
                        bad += 1
    return bad


def test_regular_shanten_is_symmetric_in_the_suits():
    tab = load_tables()
    assert _asymmetries(tab, int(tab[:N_CODES].max()) + 1) == 0


def _random_view(rng):
    """A seat's view with 13 - 3k or 14 - 3k concealed tiles, maybe a void, some tiles seen."""
    view = np.zeros(VIEW_LEN, np.int64)
    k = int(rng.choice([0, 0, 0, 1, 2, 3]))
    n = 14 - 3 * k - int(rng.integers(0, 2))
    void = int(rng.choice([NO_VOID, 0, 1, 2]))
    wall = np.repeat(np.arange(27), 4)
    hand = np.bincount(rng.choice(wall, n, replace=False), minlength=27)
    if void < NO_VOID and rng.random() < 0.7:  # mostly without void tiles, as at most turns
        hand[void * 9:void * 9 + 9] = 0
    view[V_ME] = 0
    view[V_VOID] = void
    view[V_N_MELDS] = k
    view[V_HAND:V_HAND + 27] = hand
    for s in range(3):
        view[V_CODES + s] = sum(int(hand[s * 9 + r]) * 5 ** r for r in range(9))
    kinds = [t for t in range(27) if t // 9 != void]
    view[V_N2] = sum((hand[t] >= 2) + (hand[t] == 4) for t in kinds)
    view[V_N1] = sum(hand[t] & 1 for t in kinds)
    view[V_MUST_VOID] = int(void < NO_VOID and hand[void * 9:void * 9 + 9].sum() > 0)
    view[V_VISIBLE:V_VISIBLE + 27] = hand + rng.integers(0, 5 - hand)
    return view


@nb.njit(cache=False)  # always against the current code
def _check_view(tab, view, ignore):
    """0 if every fast path agrees with the definitions on this view, else a failure code."""
    st = core.prepare(tab, view, ignore)
    if not view[V_MUST_VOID]:  # discards are chosen this way only without void tiles
        r = _check_discards(tab, view, st)
        if r:
            return r
    return _check_pungs(tab, view, st)


@nb.njit(cache=False)  # always against the current code
def _check_discards(tab, view, st):
    best = core.discard_shantens(tab, view, st, np.int64(V_SCRATCH))
    ref_best = INF
    ref_t = -1
    ref_iso = 0
    for t in range(27):
        if view[V_HAND + t] == 0:
            if view[V_SCRATCH + t] != INF:
                return 1
            continue
        sh = core.shanten_moved(tab, view, st, np.int64(t), core.NO_TILE)
        if view[V_SCRATCH + t] != sh:
            return 2
        iso = core.isolation(view, t)
        if sh < ref_best or (sh == ref_best and iso < ref_iso):
            ref_best, ref_t, ref_iso = sh, t, iso
    if best != ref_best:
        return 3
    t, sh = core.lowest_shanten_discard(tab, view, st)
    if t != ref_t or sh != ref_best:
        return 4
    near = core.near_mask(view, st)
    draws = core.live_draws(view, near)
    core.plus_classes(tab, view, st, draws, np.int64(V_SCRATCH + 27))
    for t in range(27):
        if view[V_HAND + t] == 0 or (st.ignore >> (t // 9)) & 1:
            continue
        for target in range(-1, 8):
            a = core.ukeire(tab, view, st, np.int64(t), np.int64(target), near)
            b = core.ukeire_fast(tab, view, st, np.int64(t), np.int64(target), draws, np.int64(V_SCRATCH + 27))
            if a != b:
                return 5
    return 0


@nb.njit(cache=False)  # always against the current code
def _check_pungs(tab, view, st):
    """A pung of any target-suit pair: the best shanten after it and one legal discard."""
    for t in range(27):
        if view[V_HAND + t] < 2 or (st.ignore >> (t // 9)) & 1 or st.k >= 4:
            continue
        c0, c1, c2, a0, a1, a2, n2, n1, k, ign = st
        s = t // 9
        d = 2 * core.POW5[t - 9 * s]
        if s == 0:
            c0 -= d
        elif s == 1:
            c1 -= d
        else:
            c2 -= d
        after = (c0, c1, c2, core.klass(tab, c0), core.klass(tab, c1), core.klass(tab, c2), n2, n1, k + 1, ign)
        void = core.my_void(view)
        ref = INF
        for x in range(27):
            left = view[V_HAND + x] - (2 if x == t else 0)
            if left <= 0 or (view[V_MUST_VOID] and x // 9 != void):
                continue
            v = core.shanten_minus(tab, view, after, np.int64(x), np.int64(1), np.int64(0))
            if v < ref:
                ref = v
        if shanten_after_pung(tab, view, st, np.int64(t), np.int64(-INF)) != ref:
            return 6
        now = core.shanten_of(tab, st)  # with a bar to reach it may stop early: same verdict
        if (shanten_after_pung(tab, view, st, np.int64(t), now) <= now) != (ref <= now):
            return 7
    return 0


@pytest.mark.parametrize("ignore", [0, 1, 2, 4, 3, 5, 6])
def test_turn_fast_paths_match_the_definitions(ignore):
    tab = load_tables()
    rng = np.random.default_rng(1000 + ignore)
    for _ in range(3000):
        view = _random_view(rng)
        assert _check_view(tab, view, np.int64(ignore)) == 0, view[V_HAND:V_HAND + 27]
