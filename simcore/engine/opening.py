"""The hand's opening (RULES.md: One hand, step by step, steps 1 to 3): the state reset for a new
hand, the wall shuffled from (seed, hand) alone, the deal, the exchange of three and the void
choice.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract import view as vw

from simcore.contract.evaluate import slots2
from simcore.contract.nrt import view_of
from simcore.contract.records import ERR_ILLEGAL, EV_EXCHANGE, EV_VOID, LW_PASSED
from simcore.contract.rng import below, STREAM_DIRECTION, stream_key, STREAM_SEAT, stream_value, STREAM_WALL
from simcore.contract.rules import R_FLOW
from simcore.contract.tiles import COPIES, N_KINDS, N_RANKS, N_TILES, NO_VOID
from simcore.contract.view import Q_EXCHANGE, Q_VOID, VIEW_LEN
from simcore.engine.ask import _ask
from simcore.engine.luck_terms import _count_undrawn, _luck_exchange
from simcore.engine.state import (
    DEAL_END, HAND_END, HAND_START, I64, MINUS_ONE, N_DRAWABLE, O_ARENA, O_BACK, O_CLEAN, O_DEALER, O_EXDIR,
    O_FIRST_WIN, O_FIXED_WALL, O_FIXED_WALL_N, O_FRONT, O_G, O_HAND, O_LEFT, O_LUCK_ON, O_N1, O_N2,
    O_NEXT_DEALER, O_OWN, O_PASSED, O_PIG, O_RDY, O_READY, O_REVEALED_ROWS, O_SCORE0, O_SCORES_IN,
    O_SCRATCH_USE, O_SEED, O_SH_LOW, O_SWAPS, O_TOP, O_VOID, O_VOIDCNT, O_WALL, ONE, SH_UNKNOWN, WALL_LAST,
    ZERO,
)
from simcore.engine.table import _add, _error, _log, _log_at, _r, _recount, _set_all, _tracing, _v

@nb.njit(cache=True, _nrt=False)
def _reset(S, dealer):
    """Clear the hand's state and views, keep the header (RULES.md: One hand, step by step, step 1). The wall
    is left alone: the shuffle rewrites all of it."""
    view_of(S, HAND_START, HAND_END - HAND_START)[:] = 0  # the state's HAND region
    for s in range(4):
        view_of(S, _v(s), vw.V_ZEROED + S[O_SCRATCH_USE + s])[:] = 0  # the scratch follows V_ZEROED
        rows = S[O_REVEALED_ROWS]
        for w in range(4):
            if (rows >> w) & 1:
                view_of(S, _v(s) + vw.V_REVEALED + w * N_KINDS, N_KINDS)[:] = 0
    S[O_REVEALED_ROWS] = 0
    S[O_FRONT] = DEAL_END
    S[O_BACK] = WALL_LAST
    S[O_LEFT] = N_DRAWABLE
    S[O_TOP] = N_DRAWABLE - 1
    for s in range(4):
        S[O_OWN + s] = (s - dealer - 1) % 4
    S[O_DEALER] = dealer
    S[O_NEXT_DEALER] = dealer
    S[O_CLEAN] = 1
    seed = S[O_SEED]
    g = S[O_G]
    flow = _r(S, R_FLOW)
    for s in range(4):
        S[O_VOID + s] = NO_VOID
        S[O_PIG + s] = -1
        S[O_READY + s] = -1
        S[O_FIRST_WIN + s] = -1
        S[O_RDY + s] = -1
        S[O_SH_LOW + s] = SH_UNKNOWN
        S[O_SCORE0 + s] = S[O_SCORES_IN + s]
        v = _v(s)
        S[v + vw.V_ME] = s
        S[v + vw.V_DEALER] = dealer
        S[v + vw.V_HAND_INDEX] = g
        S[v + vw.V_FLOW] = flow
        S[v + vw.V_TILE] = -1
        S[v + vw.V_FROM] = -1
        S[v + vw.V_RNG_KEY] = I64(stream_key(seed, g, STREAM_SEAT + s))
        S[v + vw.V_ARENA] = S[O_ARENA + s]
        for i in range(4):
            S[v + vw.V_VOID + i] = NO_VOID
            S[v + vw.V_SCORE + i] = S[O_SCORES_IN + i]
        for i in range(3):
            S[v + vw.V_PASSED + i] = -1
            S[v + vw.V_RECEIVED + i] = -1
        view_of(S, v + vw.V_PUBLIC, VIEW_LEN - vw.V_PUBLIC)[:] = 0
        for i in range(4):
            S[v + vw.V_VOID_CAP + i] = -1


@nb.njit(cache=True, _nrt=False)
def _shuffle(S):
    """The wall of hand g depends only on (seed, g) (ARCHITECTURE.md: Randomness); Fisher-Yates with
    a 32-bit multiply-shift bound (bias below 3e-8 per draw). A scenario's fixed wall instead."""
    if S[O_FIXED_WALL_N] == N_TILES:
        for i in range(N_TILES):
            S[O_WALL + i] = S[O_FIXED_WALL + i]
        return
    for i in range(N_TILES):
        S[O_WALL + i] = i // COPIES
    key = stream_key(S[O_SEED], S[O_G], STREAM_WALL)
    # the partners first, in a loop of their own: it has no dependences, so it vectorizes
    for i in range(1, N_TILES):
        S[O_SWAPS + i] = I64(((stream_value(key, i) >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
    for i in range(WALL_LAST, 0, -1):
        j = S[O_SWAPS + i]
        tmp = S[O_WALL + i]
        S[O_WALL + i] = S[O_WALL + j]
        S[O_WALL + j] = tmp


@nb.njit(cache=True, _nrt=False)
def _deal(S, dealer):
    """The dealer takes wall[0:14], then each next seat 13 (TRACE.md's deal event). Counts first, then
    what ``_add`` keeps for each seat (no void yet: every kind counts for seven pairs)."""
    pos = 0
    for i in range(4):
        seat = (dealer + i) % 4
        n = 14 if i == 0 else 13
        for _ in range(n):
            S[O_HAND + seat * N_KINDS + S[O_WALL + pos]] += 1
            pos += 1
    for seat in range(4):
        _recount(S, I64(seat))
    if S[O_LUCK_ON]:
        _count_undrawn(S)


@nb.njit(cache=True, _nrt=False)
def _exchange(S, fixed_dir):
    """Exchange three (RULES.md: One hand, step by step, step 2): each seat picks three tiles of one suit,
    then the direction is drawn and all pass at once. Returns False on an illegal answer."""
    for seat in range(4):
        ans = _ask(S, seat, Q_EXCHANGE)
        a, b, c = vw.unpack3(ans)
        o = O_HAND + seat * N_KINDS
        ok = (0 <= ans < vw.PACK3_END and a < N_KINDS and b < N_KINDS and c < N_KINDS
              and a // N_RANKS == b // N_RANKS and b // N_RANKS == c // N_RANKS)
        if ok:
            need_a = 1 + (b == a) + (c == a)
            need_b = 1 + (a == b) + (c == b)
            need_c = 1 + (a == c) + (b == c)
            ok = S[o + a] >= need_a and S[o + b] >= need_b and S[o + c] >= need_c
        if not ok:
            _error(S, ERR_ILLEGAL, I64(seat), Q_EXCHANGE, ans)
            return False
        S[O_PASSED + seat * 3] = a
        S[O_PASSED + seat * 3 + 1] = b
        S[O_PASSED + seat * 3 + 2] = c
    if fixed_dir != 0:
        d = fixed_dir
    else:
        r = below(stream_value(stream_key(S[O_SEED], S[O_G], STREAM_DIRECTION), 0), 3)
        d = 1 if r == 0 else (-1 if r == 1 else 2)
        if S[O_LUCK_ON]:
            _luck_exchange(S, I64(d))
    S[O_EXDIR] = d
    for seat in range(4):
        for i in range(3):
            t = S[O_PASSED + seat * 3 + i]
            _add(S, seat, t, MINUS_ONE)
            S[_v(seat) + vw.V_PASSED + i] = t
    for seat in range(4):
        to = (seat + d + 4) % 4
        for i in range(3):
            t = S[O_PASSED + seat * 3 + i]
            _add(S, to, t, ONE)
            S[_v(to) + vw.V_RECEIVED + i] = t
    _set_all(S, vw.V_EXCHANGE_DIR, d)
    if _tracing(S):
        e = _log(S, EV_EXCHANGE, d, ZERO, ZERO, ZERO, ZERO)
        for i in range(12):
            S[_log_at(S, e, LW_PASSED + i)] = S[O_PASSED + i]
    return True


@nb.njit(cache=True, _nrt=False)
def _choose_voids(S):
    """Every seat names a suit at once; then all are shown (RULES.md: One hand, step by step, step 3)."""
    for seat in range(4):
        ans = _ask(S, seat, Q_VOID)
        if ans < 0 or ans > 2:
            _error(S, ERR_ILLEGAL, I64(seat), Q_VOID, ans)
            return False
        S[O_VOID + seat] = ans
    for seat in range(4):
        void = S[O_VOID + seat]
        _set_all(S, vw.V_VOID + seat, void)
        # the slots counted every kind until now: take the void suit's out
        n = 0
        n2 = S[O_N2 + seat]
        n1 = S[O_N1 + seat]
        for t in range(void * N_RANKS, void * N_RANKS + N_RANKS):
            c = S[O_HAND + seat * N_KINDS + t]
            n += c
            n2 -= slots2(c)
            n1 -= c & 1
        S[O_VOIDCNT + seat] = n
        S[O_N2 + seat] = n2
        S[O_N1 + seat] = n1
        S[O_RDY + seat] = -1
        S[O_SH_LOW + seat] = SH_UNKNOWN  # the void suit's tiles stop counting
        v = _v(seat)
        S[v + vw.V_N2] = n2
        S[v + vw.V_N1] = n1
        S[v + vw.V_MUST_VOID] = 1 if n > 0 else 0
    if _tracing(S):
        _log(S, EV_VOID, S[O_VOID], S[O_VOID + 1], S[O_VOID + 2], S[O_VOID + 3], ZERO)
    return True
