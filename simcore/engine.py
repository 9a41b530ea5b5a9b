"""The jitted engine: one hand from (rules, four seats' strategies, seed, hand index), and a
batch of hands or matches over ``prange``.

RULES.md is the specification; comments cite its sections. All state of a hand lives in one
flat int64 array ``S`` (offsets ``O_*``) plus the four seats' views ``V`` (``simcore.view``),
allocated once per block of hands, so playing a hand allocates nothing. Results go to
fixed-width output arrays (per hand, per seat, per win, per payment); a trace log ``L`` is
filled only when it has rows (``sichuan trace`` and scenario tests), so traces come from the
very code that plays the batch.

Rulings we chose where RULES.md leaves room (also in the issue notes):
- a seat that just punged may declare a kong (concealed or added) before its discard, as the
  shared example trace does; it may not win without drawing;
- a blood-flow locked seat's concealed kong must use its drawn tile (and keep its waits).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from . import view as vw
from .evaluate import (
    CTX_EARTHLY, CTX_HEAVENLY, CTX_KONG_REPLACEMENT, CTX_LAST_TILE, CTX_ROBBING_KONG, CTX_SELF_DRAW,
    N_PATTERNS, base_of, ready_value, regular_shanten_codes, score_patterns, waits_mask,
)
from .nrt import unowned
from .rng import STREAM_DIRECTION, STREAM_SEAT, STREAM_WALL, below, stream_key, stream_value
from .rules import (
    PIG_PAYS_NON_PIGS, PIG_PAYS_REMAINING, R_CLAIM_WHILE_VOID, R_EXCHANGE, R_FLOW, R_KONG_DISCARD_LIABILITY,
    R_KONG_PAY_ADDED, R_KONG_PAY_CONCEALED, R_KONG_PAY_EXPOSED, R_KONG_REFUND, R_KONG_WHILE_VOID,
    R_PASSED_WIN_LOCK, R_PIG_PAYS, R_PIG_PAYS_READY_CHECK, R_PIG_PENALTY, R_READY_CHECK,
    R_SELF_DRAW_BONUS,
)
from .view import (
    A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, M_KONG_ADDED, M_KONG_CONCEALED, M_KONG_EXPOSED,
    M_PUNG, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID,
)

# -- state offsets ----------------------------------------------------------------------------
O_WALL = 0            # 108 tiles in shuffled order
O_HAND = 108          # [seat*27 + t] concealed counts
O_CODES = 216         # [seat*3 + suit] base-5 suit codes of the concealed tiles
O_MELD_KIND = 228     # [seat*4 + i]
O_MELD_TILE = 244     # [seat*4 + i]
O_N_MELDS = 260       # [seat]
O_MELD_CNT = 264      # [seat*27 + t] tiles in declared sets
O_N_KONGS = 372       # [seat] kongs among the declared sets
O_PILE = 376          # [t] tiles lying in discard piles
O_ASIDE = 403         # [t] winning tiles set aside
O_VOID = 430          # [seat]
O_WINS = 434          # [seat] wins this hand
O_OUT = 438           # [seat] left the hand (battle)
O_LOCKED = 442        # [seat] blood-flow lock
O_PASSLOCK = 446      # [seat] passed-win lock (until the seat's next draw)
O_DRAWS = 450         # [seat] draws this hand
O_KONG_RECV = 454     # [payee*4 + payer] kong income, for refunds
O_NET = 470           # [seat]
O_NET_REASON = 474    # [seat*6 + reason]
O_SCORE0 = 498        # [seat] scores before the hand
O_PIG = 502           # [seat] -1 not checked, 0/1
O_READY = 506         # [seat] -1 not checked, 0/1
O_BEST = 510          # [seat] ready value at the check
O_FIRST_WIN = 514     # [seat] index of the seat's first win, -1
O_SCRIPT_POS = 518    # [seat]
O_FRONT = 522         # next wall index to draw from the front
O_BACK = 523          # next wall index to draw from the back (replacements)
O_N_WINS = 524
O_N_PAY = 525
O_N_EV = 526
O_TURNS = 527
O_CLEAN = 528         # no pung, kong or win yet (earthly hand)
O_ERR = 529           # error kind, seat, question, answer
O_PASSED = 533        # [seat*3 + i] tiles passed in the exchange
O_EXDIR = 545
O_NEXT_DEALER = 546
O_DEALER = 547
O_SEAT_KONGS = 548    # [seat] kongs declared (and not robbed)
O_END_REASON = 552
O_WAITS = 553         # [seat] waits mask at the check
O_ROW = 557           # output row of this hand
O_N2 = 560            # [seat] seven-pairs slots worth two tiles, over non-void kinds
O_VOIDCNT = 564       # [seat] void-suit tiles held (0 until the void is declared)
O_N1 = 568            # [seat] seven-pairs slots worth one tile, over non-void kinds
O_QUADS = 572         # [seat] bit t set while the seat holds four of t concealed
O_RDY = 576           # [seat] readiness hint of the concealed tiles: -1 unknown, 0 not ready, 1 maybe
O_DRAW_RDY = 580      # [seat] readiness hint of the tiles before the seat's latest draw
S_LEN = 584

# -- outputs ----------------------------------------------------------------------------------
(H_DEALER, H_EXCHANGE_DIR, H_END_REASON, H_TILES_LEFT, H_WINNERS, H_TURNS, H_NEXT_DEALER,
 H_N_WINS, H_N_PAYMENTS, H_ERROR, H_ERR_SEAT, H_ERR_QUESTION, H_ERR_ANSWER, H_N_EVENTS) = range(14)
N_HAND_FIELDS = 14
(S_VOID, S_NET, S_WINS, S_WIN_ORDER, S_WIN_KIND, S_FAN, S_BASE, S_PIG, S_READY, S_KONGS,
 S_NET_WIN, S_NET_KONG, S_NET_PIG, S_NET_NOT_READY, S_NET_REFUND, S_NET_LIABILITY, S_SCORE_BEFORE) = range(17)
N_SEAT_FIELDS = 17
(W_SEAT, W_ORDER, W_TURN, W_KIND, W_TILE, W_FROM, W_FAN, W_BASE, W_PAID) = range(9)
W_PATTERNS = 9
N_WIN_FIELDS = W_PATTERNS + N_PATTERNS
(P_PAYER, P_PAYEE, P_AMOUNT, P_REASON) = range(4)
N_PAY_FIELDS = 4

REASON_WIN, REASON_KONG, REASON_PIG, REASON_NOT_READY, REASON_REFUND, REASON_LIABILITY = range(6)
REASONS = ("win", "kong", "flower_pig", "not_ready", "kong_refund", "kong_discard_liability")
WIN_SELF_DRAW, WIN_DISCARD, WIN_KONG_REPLACEMENT, WIN_ROBBING_KONG = range(4)
WIN_KINDS = ("self_draw", "discard", "kong_replacement", "robbing_kong")
END_THREE_WON, END_WALL_EXHAUSTED = range(2)
END_REASONS = ("three_won", "wall_exhausted")
KONG_CONCEALED, KONG_EXPOSED, KONG_ADDED = range(3)
KONG_KINDS = ("concealed", "exposed", "added")
CHOSE_PASS, CHOSE_PUNG, CHOSE_KONG = range(3)
CHOSE = ("pass", "pung", "kong")

ERR_NONE, ERR_ILLEGAL, ERR_INVARIANT, ERR_SCRIPT = range(4)
# invariant codes (H_ERR_ANSWER when H_ERROR == ERR_INVARIANT)
INV_TILES, INV_VOID_DISCARD, INV_VOID_WIN, INV_PAYMENTS, INV_ZERO_SUM = range(1, 6)
INVARIANTS = {INV_TILES: "108 tiles accounted for", INV_VOID_DISCARD: "no discard outside the void suit while holding it",
              INV_VOID_WIN: "no win while holding the void suit", INV_PAYMENTS: "payments add up to net",
              INV_ZERO_SUM: "every hand sums to zero"}

# -- trace log --------------------------------------------------------------------------------
(EV_DRAW, EV_DISCARD, EV_PUNG, EV_KONG, EV_PASS_WIN, EV_WIN, EV_PAYMENT, EV_CHECK, EV_END,
 EV_EXCHANGE, EV_VOID) = range(1, 12)
LOG_WIDTH = 64
LW_HAND = 30          # win rows: the winner's concealed tiles (27 counts) from this column
LW_MELDS = 18         # win rows: meld kinds 18..21, meld tiles 22..25
LW_PATS = 7           # win rows: patterns 7..17

PHASE_FIRST, PHASE_DRAW, PHASE_REPLACEMENT, PHASE_AFTER_PUNG = range(4)


# == small helpers ============================================================================


@nb.njit(cache=True, inline="always")
def _hand(S, seat):
    return S[O_HAND + seat * 27:O_HAND + seat * 27 + 27]


@nb.njit(cache=True, inline="always")
def _meld_cnt(S, seat):
    return S[O_MELD_CNT + seat * 27:O_MELD_CNT + seat * 27 + 27]


@nb.njit(cache=True, inline="always")
def tiles_left(S):
    return S[O_BACK] - S[O_FRONT] + 1


@nb.njit(cache=True)
def _log(S, L, ev, a, b, c, d, e):
    n = S[O_N_EV]
    if n < L.shape[0]:
        L[n, 0] = ev
        L[n, 1] = a
        L[n, 2] = b
        L[n, 3] = c
        L[n, 4] = d
        L[n, 5] = e
    S[O_N_EV] = n + 1
    return n


POW5 = (1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)


@nb.njit(cache=True, inline="always")
def _slots2(c):
    """Seven-pairs slots worth two tiles that c copies of a kind offer (DESIGN.md)."""
    return (c >= 2) + (c == 4)


@nb.njit(cache=True, inline="always")
def _add(S, V, seat, t, n):
    """Add n (may be negative) copies of t to a seat's concealed tiles, mirrored in its view;
    keeps the seat's suit codes, pair slots, void-tile count and four-of-a-kind mask current
    and clears its readiness hint."""
    h = O_HAND + seat * 27 + t
    old = S[h]
    new = old + n
    S[h] = new
    s = t // 9
    d = n * POW5[t % 9]
    S[O_CODES + seat * 3 + s] += d
    if s == S[O_VOID + seat]:
        S[O_VOIDCNT + seat] += n
    else:
        S[O_N2 + seat] += _slots2(new) - _slots2(old)
        S[O_N1 + seat] += (new & 1) - (old & 1)
    if new == 4:
        S[O_QUADS + seat] |= np.int64(1) << t
    elif old == 4:
        S[O_QUADS + seat] &= ~(np.int64(1) << t)
    S[O_RDY + seat] = -1
    V[seat, vw.V_HAND + t] += n
    V[seat, vw.V_VISIBLE + t] += n
    V[seat, vw.V_CODES + s] += d
    V[seat, vw.V_N2] = S[O_N2 + seat]
    V[seat, vw.V_N1] = S[O_N1 + seat]


@nb.njit(cache=True, inline="always")
def _show(V, t, n, except_seat):
    """n more copies of t become visible to every seat but one."""
    for v in range(4):
        if v != except_seat:
            V[v, vw.V_VISIBLE + t] += n


@nb.njit(cache=True, inline="always")
def _set_all(V, slot, value):
    for v in range(4):
        V[v, slot] = value


@nb.njit(cache=True, inline="always")
def _wall_left_to_views(S, V):
    left = tiles_left(S)
    for v in range(4):
        V[v, vw.V_WALL_LEFT] = left


@nb.njit(cache=True, inline="always")
def next_active(S, seat):
    """The first seat after ``seat`` in turn order that is still playing (RULES.md: turn order)."""
    for i in range(1, 4):
        s = (seat + i) % 4
        if S[O_OUT + s] == 0:
            return s
    return -1


@nb.njit(cache=True)
def _active_count(S):
    n = 0
    for s in range(4):
        if S[O_OUT + s] == 0:
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def _must_void(S, seat):
    return S[O_VOIDCNT + seat] > 0


@nb.njit(cache=True, inline="always")
def _codes_without_void(S, seat):
    void = S[O_VOID + seat]
    c0 = S[O_CODES + seat * 3] if void != 0 else 0
    c1 = S[O_CODES + seat * 3 + 1] if void != 1 else 0
    c2 = S[O_CODES + seat * 3 + 2] if void != 2 else 0
    return c0, c1, c2


@nb.njit(cache=True, inline="always")
def _seat_wins(S, tab, seat, extra):
    """Does the seat's concealed hand (plus tile ``extra`` if >= 0) win? Uses the incremental
    suit codes and pair slots; the engine keeps 14 - 3k tiles in such a hand."""
    void = S[O_VOID + seat]
    if (extra >= 0 and extra // 9 == void) or S[O_VOIDCNT + seat] > 0:
        return False
    c0, c1, c2 = _codes_without_void(S, seat)
    n2 = S[O_N2 + seat]
    if extra >= 0:
        s = extra // 9
        d = POW5[extra % 9]
        if s == 0:
            c0 += d
        elif s == 1:
            c1 += d
        else:
            c2 += d
        c = S[O_HAND + seat * 27 + extra]
        n2 += _slots2(c + 1) - _slots2(c)
    k = S[O_N_MELDS + seat]
    if regular_shanten_codes(tab, c0, c1, c2, k) == -1:
        return True
    return k == 0 and n2 == 7


@nb.njit(cache=True, inline="always")
def _ready_hint(S, tab, seat):
    """1 if the seat's 13 - 3k concealed tiles may be ready (fast shanten <= 0, no void tile),
    else 0; cached until its tiles change. Every hand that can win with one more tile passes,
    so unready seats skip the win tests on each discard and draw."""
    r = S[O_RDY + seat]
    if r >= 0:
        return r
    r = 0
    if S[O_VOIDCNT + seat] == 0:
        c0, c1, c2 = _codes_without_void(S, seat)
        k = S[O_N_MELDS + seat]
        if regular_shanten_codes(tab, c0, c1, c2, k) <= 0:
            r = 1
        elif k == 0:
            a = min(S[O_N2 + seat], 7)
            if 13 - 2 * a - min(S[O_N1 + seat], 7 - a) <= 0:
                r = 1
    S[O_RDY + seat] = r
    return r


@nb.njit(cache=True, inline="always")
def _error(S, kind, seat, q, answer):
    if S[O_ERR] == ERR_NONE:
        S[O_ERR] = kind
        S[O_ERR + 1] = seat
        S[O_ERR + 2] = q
        S[O_ERR + 3] = answer


@nb.njit(cache=True)
def check_tiles(S):
    """Invariant: all 108 tiles accounted for, four of each kind, in wall, hands, sets, piles
    or set aside (TRACE.md: tile conservation). Returns True when it holds."""
    for t in range(27):
        n = S[O_PILE + t] + S[O_ASIDE + t]
        for s in range(4):
            n += S[O_HAND + s * 27 + t] + S[O_MELD_CNT + s * 27 + t]
            if S[O_HAND + s * 27 + t] < 0:
                return False
        for i in range(S[O_FRONT], S[O_BACK] + 1):
            if S[O_WALL + i] == t:
                n += 1
        if n != 4:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _check(S, check):
    if check and not check_tiles(S):
        _error(S, ERR_INVARIANT, -1, -1, INV_TILES)


# == payments and wins ========================================================================


@nb.njit(cache=True)
def _pay(S, V, L, pay_out, payer, payee, amount, reason):
    """One payment: nets, the refund ledger, every view's scores, the record and the log."""
    if amount <= 0:
        return
    S[O_NET + payer] -= amount
    S[O_NET + payee] += amount
    S[O_NET_REASON + payer * 6 + reason] -= amount
    S[O_NET_REASON + payee * 6 + reason] += amount
    if reason == REASON_KONG:
        S[O_KONG_RECV + payee * 4 + payer] += amount
    for v in range(4):
        V[v, vw.V_SCORE + payer] -= amount
        V[v, vw.V_SCORE + payee] += amount
    n = S[O_N_PAY]
    if n < pay_out.shape[1]:
        r = S[O_ROW]
        pay_out[r, n, P_PAYER] = payer
        pay_out[r, n, P_PAYEE] = payee
        pay_out[r, n, P_AMOUNT] = amount
        pay_out[r, n, P_REASON] = reason
    S[O_N_PAY] = n + 1
    if L.shape[0] > 0:
        _log(S, L, EV_PAYMENT, payer, payee, amount, reason, 0)


@nb.njit(cache=True, inline="always")
def _liable(S, R, seat, other):
    """Is ``other`` liable for ``seat``'s self-draw or kong? Battle: seats still in the hand;
    flow: all three others (RULES.md: options, "Liable")."""
    if other == seat:
        return False
    return R[R_FLOW] == 1 or S[O_OUT + other] == 0


@nb.njit(cache=True)
def _reveal(S, V, seat):
    """A winner's tiles are shown to all (RULES.md rulings: seed 004), concealed kongs included."""
    for t in range(27):
        c = S[O_HAND + seat * 27 + t]
        if c > 0:
            for v in range(4):
                V[v, vw.V_REVEALED + seat * 27 + t] = c
            _show(V, t, c, seat)
    for i in range(S[O_N_MELDS + seat]):
        if S[O_MELD_KIND + seat * 4 + i] == M_KONG_CONCEALED:
            t = S[O_MELD_TILE + seat * 4 + i]
            for v in range(4):
                V[v, vw.V_MELD_TILE + seat * 4 + i] = t
            _show(V, t, 4, seat)


@nb.njit(cache=True)
def _record_win(S, V, L, tab, R, win_out, seat, tile, frm, kind, ctx, pats):
    """Value the winner's hand (its concealed tiles hold the winning tile) and record the win.
    Returns (win index, base)."""
    hand = _hand(S, seat)
    fan = score_patterns(tab, hand, S[O_VOID + seat], S[O_N_MELDS + seat], _meld_cnt(S, seat),
                         S[O_N_KONGS + seat], ctx, R, pats)
    if fan < 0:  # the engine only offers wins that score; a failure here is a bug
        _error(S, ERR_INVARIANT, seat, -1, INV_VOID_WIN)
        fan = 0
    base = base_of(fan, R)
    w = S[O_N_WINS]
    S[O_N_WINS] = w + 1
    if w < win_out.shape[1]:
        r = S[O_ROW]
        win_out[r, w, W_SEAT] = seat
        win_out[r, w, W_ORDER] = w + 1
        win_out[r, w, W_TURN] = S[O_TURNS]
        win_out[r, w, W_KIND] = kind
        win_out[r, w, W_TILE] = tile
        win_out[r, w, W_FROM] = frm
        win_out[r, w, W_FAN] = fan
        win_out[r, w, W_BASE] = base
        win_out[r, w, W_PAID] = 0
        for i in range(N_PATTERNS):
            win_out[r, w, W_PATTERNS + i] = pats[i]
    if S[O_FIRST_WIN + seat] < 0:
        S[O_FIRST_WIN + seat] = w
    S[O_WINS + seat] += 1
    for v in range(4):
        V[v, vw.V_WINS + seat] += 1
    S[O_CLEAN] = 0
    if L.shape[0] > 0:
        e = _log(S, L, EV_WIN, seat, tile, frm, kind, w)
        if e < L.shape[0]:
            L[e, 6] = fan
            for i in range(N_PATTERNS):
                L[e, LW_PATS + i] = pats[i]
            nm = S[O_N_MELDS + seat]
            for i in range(4):
                L[e, LW_MELDS + i] = S[O_MELD_KIND + seat * 4 + i] if i < nm else 0
                L[e, LW_MELDS + 4 + i] = S[O_MELD_TILE + seat * 4 + i] if i < nm else -1
            for t in range(27):
                L[e, LW_HAND + t] = hand[t]
            L[e, LW_HAND + 27] = base
            L[e, LW_HAND + 28] = tiles_left(S)
            L[e, LW_HAND + 29] = S[O_N_MELDS + seat]
    return w, base


@nb.njit(cache=True)
def _win_paid(S, win_out, w, amount):
    if w < win_out.shape[1]:
        win_out[S[O_ROW], w, W_PAID] += amount


@nb.njit(cache=True)
def _after_first_win(S, V, R, seat):
    """Battle: the winner leaves. Flow: the winner stays, locked (RULES.md: one hand, step 5)."""
    if R[R_FLOW]:
        if S[O_LOCKED + seat] == 0:
            S[O_LOCKED + seat] = 1
            V[seat, vw.V_LOCKED] = 1
            _reveal(S, V, seat)
    else:
        S[O_OUT + seat] = 1
        _set_all(V, vw.V_OUT + seat, 1)
        _reveal(S, V, seat)


@nb.njit(cache=True)
def _set_aside_from_hand(S, V, seat, t):
    _add(S, V, seat, t, -1)
    V[seat, vw.V_VISIBLE + t] += 1  # still visible to its owner, now set aside
    S[O_ASIDE + t] += 1
    _show(V, t, 1, seat)


@nb.njit(cache=True)
def _first_hand_tile_to_set_aside(S, tab, R, seat, pats):
    """After a win on the dealer's initial 14 tiles: the tile whose removal leaves the highest
    ready value, then the most wait kinds, then the lowest index (RULES.md: flow lock)."""
    hand = _hand(S, seat)
    best_t = -1
    best_v = -1
    best_n = -1
    for t in range(27):
        if hand[t] == 0:
            continue
        hand[t] -= 1
        value = ready_value(tab, hand, S[O_VOID + seat], S[O_N_MELDS + seat], _meld_cnt(S, seat),
                            S[O_N_KONGS + seat], R, pats)
        mask = waits_mask(tab, hand, S[O_VOID + seat], S[O_N_MELDS + seat], _meld_cnt(S, seat))
        hand[t] += 1
        n = 0
        while mask:
            n += 1
            mask &= mask - 1
        if value > best_v or (value == best_v and n > best_n):
            best_t, best_v, best_n = t, value, n
    return best_t


# == asking the strategies ====================================================================


@nb.njit(cache=True, inline="always")
def _ask(S, V, tab, fns, script, seat, q):
    """Ask a seat's strategy (or the scenario script, when it has an entry for this question)."""
    V[seat, vw.V_QUESTION] = q
    pos = S[O_SCRIPT_POS + seat]
    if pos < script.shape[1]:
        if script[seat, pos, 0] == q and (script[seat, pos, 1] < 0 or script[seat, pos, 1] == V[seat, vw.V_TILE]):
            S[O_SCRIPT_POS + seat] = pos + 1
            return script[seat, pos, 2]
    group = 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)
    f = fns[group * 4 + seat]
    return f(q, V[seat], tab)


@nb.njit(cache=True, inline="always")
def _script_forced(S, script, seat, q, ans):
    """A move the engine makes without asking (a locked seat's only discard) consumes a
    scenario script entry that scripts exactly that move."""
    pos = S[O_SCRIPT_POS + seat]
    if pos < script.shape[1] and script[seat, pos, 0] == q and script[seat, pos, 2] == ans:
        S[O_SCRIPT_POS + seat] = pos + 1


@nb.njit(cache=True, inline="always")
def _can_win_on(S, tab, R, seat, t):
    """Could ``seat`` win with another seat's tile t (discard or robbed kong)?"""
    if S[O_PASSLOCK + seat]:
        return False
    return _ready_hint(S, tab, seat) == 1 and _seat_wins(S, tab, seat, t)


# == the phases of a hand =====================================================================


@nb.njit(cache=True)
def _reset(S, V, seed, g, dealer, scores0, flow):
    S[:] = 0
    V[:, :vw.V_DISC_SEQ] = 0  # the discard sequence is read only up to V_N_DISCARDS
    V[:, vw.V_SCRATCH:] = 0
    S[O_FRONT] = 53
    S[O_BACK] = 107
    S[O_DEALER] = dealer
    S[O_NEXT_DEALER] = dealer
    S[O_CLEAN] = 1
    for s in range(4):
        S[O_VOID + s] = -1
        S[O_PIG + s] = -1
        S[O_READY + s] = -1
        S[O_FIRST_WIN + s] = -1
        S[O_SCORE0 + s] = scores0[s]
        V[s, vw.V_ME] = s
        V[s, vw.V_DEALER] = dealer
        V[s, vw.V_HAND_INDEX] = g
        V[s, vw.V_FLOW] = flow
        V[s, vw.V_TILE] = -1
        V[s, vw.V_FROM] = -1
        key = stream_key(seed, g, STREAM_SEAT + s)
        V[s, vw.V_RNG_KEY] = np.int64(key)
        for i in range(4):
            V[s, vw.V_VOID + i] = -1
            V[s, vw.V_SCORE + i] = scores0[i]
        for i in range(3):
            V[s, vw.V_PASSED + i] = -1
            V[s, vw.V_RECEIVED + i] = -1


@nb.njit(cache=True)
def _shuffle(S, seed, g, fixed_wall):
    """The wall of hand g depends only on (seed, g) (DESIGN.md: randomness); Fisher-Yates."""
    if fixed_wall.shape[0] == 108:
        for i in range(108):
            S[O_WALL + i] = fixed_wall[i]
        return
    for i in range(108):
        S[O_WALL + i] = i // 4
    key = stream_key(seed, g, STREAM_WALL)
    for i in range(107, 0, -1):
        j = np.int64(((stream_value(key, i) >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        tmp = S[O_WALL + i]
        S[O_WALL + i] = S[O_WALL + j]
        S[O_WALL + j] = tmp


@nb.njit(cache=True)
def _deal(S, V, dealer):
    """The dealer takes wall[0:14], then each next seat 13 (TRACE.md: deal)."""
    pos = 0
    for i in range(4):
        seat = (dealer + i) % 4
        n = 14 if i == 0 else 13
        for _ in range(n):
            _add(S, V, seat, S[O_WALL + pos], 1)
            pos += 1
    _wall_left_to_views(S, V)


@nb.njit(cache=True)
def _exchange(S, V, L, tab, R, fns, script, seed, g, fixed_dir):
    """Exchange three (RULES.md: one hand, step 2): each seat picks three tiles of one suit,
    then the direction is drawn and all pass at once. Returns False on an illegal answer."""
    for seat in range(4):
        ans = _ask(S, V, tab, fns, script, seat, Q_EXCHANGE)
        a = ans & 31
        b = (ans >> 5) & 31
        c = (ans >> 10) & 31
        hand = _hand(S, seat)
        ok = ans >= 0 and ans < 32768 and a < 27 and b < 27 and c < 27 and a // 9 == b // 9 and b // 9 == c // 9
        if ok:
            hand[a] -= 1
            hand[b] -= 1
            hand[c] -= 1
            ok = hand[a] >= 0 and hand[b] >= 0 and hand[c] >= 0
            hand[a] += 1
            hand[b] += 1
            hand[c] += 1
        if not ok:
            _error(S, ERR_ILLEGAL, seat, Q_EXCHANGE, ans)
            return False
        S[O_PASSED + seat * 3] = a
        S[O_PASSED + seat * 3 + 1] = b
        S[O_PASSED + seat * 3 + 2] = c
    if fixed_dir != 0:
        d = fixed_dir
    else:
        r = below(stream_value(stream_key(seed, g, STREAM_DIRECTION), 0), 3)
        d = 1 if r == 0 else (-1 if r == 1 else 2)
    S[O_EXDIR] = d
    for seat in range(4):
        for i in range(3):
            t = S[O_PASSED + seat * 3 + i]
            _add(S, V, seat, t, -1)
            V[seat, vw.V_PASSED + i] = t
    for seat in range(4):
        to = (seat + d + 4) % 4
        for i in range(3):
            t = S[O_PASSED + seat * 3 + i]
            _add(S, V, to, t, 1)
            V[to, vw.V_RECEIVED + i] = t
    _set_all(V, vw.V_EXCHANGE_DIR, d)
    if L.shape[0] > 0:
        e = _log(S, L, EV_EXCHANGE, d, 0, 0, 0, 0)
        if e < L.shape[0]:
            for i in range(12):
                L[e, 2 + i] = S[O_PASSED + i]
    return True


@nb.njit(cache=True)
def _choose_voids(S, V, L, tab, fns, script):
    """Every seat names a suit at once; then all are shown (RULES.md: one hand, step 3)."""
    for seat in range(4):
        ans = _ask(S, V, tab, fns, script, seat, Q_VOID)
        if ans < 0 or ans > 2:
            _error(S, ERR_ILLEGAL, seat, Q_VOID, ans)
            return False
        S[O_VOID + seat] = ans
    for seat in range(4):
        _set_all(V, vw.V_VOID + seat, S[O_VOID + seat])
        v = S[O_VOID + seat]
        n = 0
        n2 = 0
        n1 = 0
        for t in range(27):
            c = S[O_HAND + seat * 27 + t]
            if t // 9 == v:
                n += c
            else:
                n2 += _slots2(c)
                n1 += c & 1
        S[O_VOIDCNT + seat] = n
        S[O_N2 + seat] = n2
        S[O_N1 + seat] = n1
        S[O_RDY + seat] = -1
        V[seat, vw.V_N2] = n2
        V[seat, vw.V_N1] = n1
        V[seat, vw.V_MUST_VOID] = 1 if n > 0 else 0
    if L.shape[0] > 0:
        _log(S, L, EV_VOID, S[O_VOID], S[O_VOID + 1], S[O_VOID + 2], S[O_VOID + 3], 0)
    return True


@nb.njit(cache=True, inline="always")
def _draw(S, V, L, tab, seat, replacement):
    """A draw from the front, or a kong replacement from the back (RULES.md: tiles)."""
    S[O_DRAW_RDY + seat] = _ready_hint(S, tab, seat)
    if replacement:
        t = S[O_WALL + S[O_BACK]]
        S[O_BACK] -= 1
    else:
        t = S[O_WALL + S[O_FRONT]]
        S[O_FRONT] += 1
    _add(S, V, seat, t, 1)
    S[O_TURNS] += 1
    S[O_DRAWS + seat] += 1
    V[seat, vw.V_N_DRAWS] += 1
    S[O_PASSLOCK + seat] = 0  # any draw lifts the passed-win lock (RULES.md: rulings)
    _wall_left_to_views(S, V)
    if L.shape[0] > 0:
        _log(S, L, EV_DRAW, seat, t, 1 if replacement else 0, 0, 0)
    return t


@nb.njit(cache=True, inline="always")
def _find_pung(S, seat, t):
    for i in range(S[O_N_MELDS + seat]):
        if S[O_MELD_KIND + seat * 4 + i] == M_PUNG and S[O_MELD_TILE + seat * 4 + i] == t:
            return i
    return -1


@nb.njit(cache=True)
def _add_meld(S, V, seat, kind, t):
    i = S[O_N_MELDS + seat]
    S[O_MELD_KIND + seat * 4 + i] = kind
    S[O_MELD_TILE + seat * 4 + i] = t
    S[O_N_MELDS + seat] = i + 1
    S[O_MELD_CNT + seat * 27 + t] += 3 if kind == M_PUNG else 4
    if kind != M_PUNG:
        S[O_N_KONGS + seat] += 1
    for v in range(4):
        V[v, vw.V_N_MELDS + seat] = i + 1
        V[v, vw.V_MELD_KIND + seat * 4 + i] = kind
        V[v, vw.V_MELD_TILE + seat * 4 + i] = t if (kind != M_KONG_CONCEALED or v == seat) else -1


@nb.njit(cache=True)
def _locked_kong_keeps_waits(S, tab, seat, t):
    """Flow lock: a concealed kong of the drawn tile only if the waits stay the same."""
    hand = _hand(S, seat)
    mc = _meld_cnt(S, seat)
    void = S[O_VOID + seat]
    k = S[O_N_MELDS + seat]
    hand[t] -= 1
    before = waits_mask(tab, hand, void, k, mc)
    hand[t] -= 3
    mc[t] += 4
    after = waits_mask(tab, hand, void, k + 1, mc)
    mc[t] -= 4
    hand[t] += 4
    return before == after


@nb.njit(cache=True, inline="always")
def _kong_mask(S, tab, R, seat, drawn):
    """Kongs the seat may declare on its turn (RULES.md: rulings, kongs): a tile left for the
    replacement; not while holding void tiles unless ``kong_while_void``; never of the void
    suit; a locked flow seat only a concealed kong of its drawn tile keeping its waits."""
    if tiles_left(S) < 1:
        return np.int64(0)
    if not R[R_KONG_WHILE_VOID] and _must_void(S, seat):
        return np.int64(0)
    void = S[O_VOID + seat]
    quads = S[O_QUADS + seat]
    if S[O_LOCKED + seat]:
        if drawn >= 0 and (quads >> drawn) & 1 and _locked_kong_keeps_waits(S, tab, seat, drawn):
            return np.int64(1) << drawn
        return np.int64(0)
    mask = quads
    if 0 <= void <= 2:
        mask &= ~(np.int64(0x1FF) << (9 * void))
    for i in range(S[O_N_MELDS + seat]):
        t = S[O_MELD_TILE + seat * 4 + i]
        if S[O_MELD_KIND + seat * 4 + i] == M_PUNG and S[O_HAND + seat * 27 + t] >= 1:
            mask |= np.int64(1) << t
    return mask


@nb.njit(cache=True)
def _settle_self_draw(S, V, L, tab, R, win_out, pay_out, seat, tile, kind, ctx, pats):
    """Self-draw (or kong replacement): each liable seat pays base + self_draw_bonus."""
    if S[O_N_WINS] == 0:
        S[O_NEXT_DEALER] = seat
    w, base = _record_win(S, V, L, tab, R, win_out, seat, tile, -1, kind, ctx, pats)
    for other in range(4):
        if _liable(S, R, seat, other):
            amount = base + R[R_SELF_DRAW_BONUS]
            _pay(S, V, L, pay_out, other, seat, amount, REASON_WIN)
            _win_paid(S, win_out, w, amount)
    _after_first_win(S, V, R, seat)


@nb.njit(cache=True)
def _settle_on_tile(S, V, L, tab, R, win_out, pay_out, winners, n_win, tile, frm, kind, liability, pats):
    """Wins on one discard or one robbed kong, in turn order from the discarder (RULES.md:
    settlement). ``liability``: the discard right after the discarder's kong under
    ``kong_discard_liability = pays_for_all``."""
    if S[O_N_WINS] == 0:
        S[O_NEXT_DEALER] = winners[0] if n_win == 1 else frm
    in_hand = 4 if R[R_FLOW] else _active_count(S)
    ctx = CTX_ROBBING_KONG if kind == WIN_ROBBING_KONG else 0
    if tiles_left(S) == 0:
        ctx |= CTX_LAST_TILE
    for i in range(n_win):
        seat = winners[i]
        _add(S, V, seat, tile, 1)
        if i == 0:
            if kind == WIN_ROBBING_KONG:
                _add(S, V, frm, tile, -1)
                V[frm, vw.V_VISIBLE + tile] += 1
                _show(V, tile, 1, frm)
            else:
                S[O_PILE + tile] -= 1
            S[O_ASIDE + tile] += 1
        w, base = _record_win(S, V, L, tab, R, win_out, seat, tile, frm, kind, ctx, pats)
        _add(S, V, seat, tile, -1)
        if liability:
            amount = base * (in_hand - 1)
            _pay(S, V, L, pay_out, frm, seat, amount, REASON_LIABILITY)
        else:
            amount = base
            _pay(S, V, L, pay_out, frm, seat, amount, REASON_WIN)
        _win_paid(S, win_out, w, amount)
    for i in range(n_win):
        if S[O_WINS + winners[i]] == 1:
            _after_first_win(S, V, R, winners[i])


@nb.njit(cache=True)
def _three_won(S, R):
    if R[R_FLOW]:
        return False
    n = 0
    for s in range(4):
        if S[O_OUT + s]:
            n += 1
    return n >= 3


@nb.njit(cache=True)
def _rob_window(S, V, L, tab, R, fns, script, win_out, pay_out, kong_seat, t, pats, winners):
    """Seats that can win on an added kong's tile may rob it (RULES.md: rulings, added kong).
    Returns the number of robbers, or -1 on an illegal answer."""
    for i in range(4):
        winners[i] = -1
    n_win = 0
    for i in range(1, 4):
        seat = (kong_seat + i) % 4
        if S[O_OUT + seat] or not _can_win_on(S, tab, R, seat, t):
            continue
        V[seat, vw.V_TILE] = t
        V[seat, vw.V_FROM] = kong_seat
        V[seat, vw.V_CAN_WIN] = 1
        V[seat, vw.V_CAN_PUNG] = 0
        V[seat, vw.V_CAN_KONG] = 0
        ans = _ask(S, V, tab, fns, script, seat, Q_ROB)
        if ans == C_WIN:
            winners[n_win] = seat
            n_win += 1
        elif ans == C_PASS:
            if R[R_PASSED_WIN_LOCK]:
                S[O_PASSLOCK + seat] = 1
            if L.shape[0] > 0:
                _log(S, L, EV_PASS_WIN, seat, t, kong_seat, CHOSE_PASS, 0)
        else:
            _error(S, ERR_ILLEGAL, seat, Q_ROB, ans)
            return -1
    if n_win > 0:
        _settle_on_tile(S, V, L, tab, R, win_out, pay_out, winners, n_win, t, kong_seat,
                        WIN_ROBBING_KONG, False, pats)
    return n_win


@nb.njit(cache=True)
def _declare_kong(S, V, L, R, pay_out, seat, t, kind, frm):
    """Make a kong and collect its payment (RULES.md: settlement, kongs pay on declaration)."""
    S[O_CLEAN] = 0
    S[O_SEAT_KONGS + seat] += 1
    if kind == KONG_ADDED:
        i = _find_pung(S, seat, t)
        S[O_MELD_KIND + seat * 4 + i] = M_KONG_ADDED
        S[O_MELD_CNT + seat * 27 + t] += 1
        S[O_N_KONGS + seat] += 1
        _add(S, V, seat, t, -1)
        V[seat, vw.V_VISIBLE + t] += 1
        _show(V, t, 1, seat)
        for v in range(4):
            V[v, vw.V_MELD_KIND + seat * 4 + i] = M_KONG_ADDED
        for other in range(4):
            if _liable(S, R, seat, other):
                _pay(S, V, L, pay_out, other, seat, R[R_KONG_PAY_ADDED], REASON_KONG)
    elif kind == KONG_CONCEALED:
        _add(S, V, seat, t, -4)
        V[seat, vw.V_VISIBLE + t] += 4
        _add_meld(S, V, seat, M_KONG_CONCEALED, t)
        if L.shape[0] > 0:
            _log(S, L, EV_KONG, seat, t, KONG_CONCEALED, -1, 0)
        for other in range(4):
            if _liable(S, R, seat, other):
                _pay(S, V, L, pay_out, other, seat, R[R_KONG_PAY_CONCEALED], REASON_KONG)
    else:
        _add(S, V, seat, t, -3)
        V[seat, vw.V_VISIBLE + t] += 4
        S[O_PILE + t] -= 1
        _show(V, t, 3, seat)
        _add_meld(S, V, seat, M_KONG_EXPOSED, t)
        if L.shape[0] > 0:
            _log(S, L, EV_KONG, seat, t, KONG_EXPOSED, frm, 0)
        _pay(S, V, L, pay_out, frm, seat, R[R_KONG_PAY_EXPOSED], REASON_KONG)


@nb.njit(cache=True)
def _claims(S, V, L, tab, R, fns, script, win_out, pay_out, frm, t, liability, pats, winners):
    """Claims on a discard, answered by all at once (RULES.md: step 4 and rulings): wins first
    and cancel any pung/kong; after the last tile only a win. Returns (kind, seat): kind 0 none,
    1 wins, 2 pung, 3 kong; (-1, -1) on an illegal answer."""
    last = tiles_left(S) == 0
    for i in range(4):
        winners[i] = -1
    n_win = 0
    claim_seat = -1
    claim_kind = 0
    for i in range(1, 4):
        seat = (frm + i) % 4
        if S[O_OUT + seat]:
            continue
        void = S[O_VOID + seat]
        can_win = _can_win_on(S, tab, R, seat, t)
        can_pung = False
        can_kong = False
        if (not last and S[O_LOCKED + seat] == 0 and t // 9 != void and S[O_HAND + seat * 27 + t] >= 2
                and (R[R_CLAIM_WHILE_VOID] or not _must_void(S, seat))):
            can_pung = True
            can_kong = S[O_HAND + seat * 27 + t] >= 3
        if not (can_win or can_pung):
            continue
        V[seat, vw.V_TILE] = t
        V[seat, vw.V_FROM] = frm
        V[seat, vw.V_CAN_WIN] = 1 if can_win else 0
        V[seat, vw.V_CAN_PUNG] = 1 if can_pung else 0
        V[seat, vw.V_CAN_KONG] = 1 if can_kong else 0
        ans = _ask(S, V, tab, fns, script, seat, Q_CLAIM)
        if ans == C_WIN and can_win:
            winners[n_win] = seat
            n_win += 1
            continue
        if ans == C_PASS or (ans == C_PUNG and can_pung) or (ans == C_KONG and can_kong):
            if can_win:
                if R[R_PASSED_WIN_LOCK]:
                    S[O_PASSLOCK + seat] = 1
                if L.shape[0] > 0:
                    chose = CHOSE_PASS if ans == C_PASS else (CHOSE_PUNG if ans == C_PUNG else CHOSE_KONG)
                    _log(S, L, EV_PASS_WIN, seat, t, frm, chose, 0)
            if ans != C_PASS:
                claim_seat = seat
                claim_kind = ans
            continue
        _error(S, ERR_ILLEGAL, seat, Q_CLAIM, ans)
        return -1, -1
    if n_win > 0:
        _settle_on_tile(S, V, L, tab, R, win_out, pay_out, winners, n_win, t, frm, WIN_DISCARD, liability, pats)
        return 1, -1
    if claim_seat < 0:
        return 0, -1
    S[O_CLEAN] = 0
    if claim_kind == C_PUNG:
        _add(S, V, claim_seat, t, -2)
        V[claim_seat, vw.V_VISIBLE + t] += 3
        S[O_PILE + t] -= 1
        _show(V, t, 2, claim_seat)
        _add_meld(S, V, claim_seat, M_PUNG, t)
        if L.shape[0] > 0:
            _log(S, L, EV_PUNG, claim_seat, t, frm, 0, 0)
        return 2, claim_seat
    _declare_kong(S, V, L, R, pay_out, claim_seat, t, KONG_EXPOSED, frm)
    return 3, claim_seat


@nb.njit(cache=True)
def _wall_checks(S, V, L, tab, R, pay_out, pats):
    """Drawn-hand checks at an exhausted wall (RULES.md: settlement, steps 1-3)."""
    for s in range(4):
        if S[O_WINS + s] > 0:
            continue
        hand = _hand(S, s)
        pig = _must_void(S, s)
        S[O_PIG + s] = 1 if pig else 0
        if pig:
            S[O_READY + s] = 0
            S[O_BEST + s] = 0
            S[O_WAITS + s] = 0
        else:
            k = S[O_N_MELDS + s]
            mask = waits_mask(tab, hand, S[O_VOID + s], k, _meld_cnt(S, s))
            S[O_WAITS + s] = mask
            S[O_READY + s] = 1 if mask != 0 else 0
            S[O_BEST + s] = ready_value(tab, hand, S[O_VOID + s], k, _meld_cnt(S, s), S[O_N_KONGS + s], R, pats) if mask != 0 else 0
        if L.shape[0] > 0:
            _log(S, L, EV_CHECK, s, S[O_PIG + s], S[O_READY + s], S[O_WAITS + s], S[O_BEST + s])
    # 1. flower pigs
    for p in range(4):
        if S[O_PIG + p] != 1:
            continue
        for q in range(4):
            if q == p or S[O_PIG + q] == 1:
                continue
            won = S[O_WINS + q] > 0
            who = R[R_PIG_PAYS]
            if who == PIG_PAYS_NON_PIGS:
                ok = True
            elif who == PIG_PAYS_REMAINING:
                ok = not won
            else:
                ok = won or S[O_READY + q] == 1
            if ok:
                _pay(S, V, L, pay_out, p, q, R[R_PIG_PENALTY], REASON_PIG)
    # 2. ready check
    if R[R_READY_CHECK]:
        for p in range(4):
            if S[O_READY + p] != 0:
                continue
            if S[O_PIG + p] == 1 and not R[R_PIG_PAYS_READY_CHECK]:
                continue
            for q in range(4):
                if S[O_READY + q] == 1:
                    _pay(S, V, L, pay_out, p, q, S[O_BEST + q], REASON_NOT_READY)
    # 3. kong refunds
    if R[R_KONG_REFUND]:
        for p in range(4):
            if S[O_READY + p] != 0:
                continue
            for q in range(4):
                _pay(S, V, L, pay_out, p, q, S[O_KONG_RECV + p * 4 + q], REASON_REFUND)


@nb.njit(cache=True, inline="always")
def _turn_options(S, V, tab, R, seat, drawn, phase):
    if phase == PHASE_FIRST:
        can_win = _seat_wins(S, tab, seat, -1)
    elif phase == PHASE_AFTER_PUNG:
        can_win = False
    else:
        can_win = S[O_DRAW_RDY + seat] == 1 and _seat_wins(S, tab, seat, -1)
    mask = _kong_mask(S, tab, R, seat, drawn)
    V[seat, vw.V_QUESTION] = Q_TURN
    V[seat, vw.V_TILE] = drawn
    V[seat, vw.V_FROM] = -1
    V[seat, vw.V_CAN_WIN] = 1 if can_win else 0
    V[seat, vw.V_CAN_PUNG] = 0
    V[seat, vw.V_CAN_KONG] = 0
    V[seat, vw.V_KONG_MASK] = mask
    V[seat, vw.V_MUST_VOID] = 1 if _must_void(S, seat) else 0
    V[seat, vw.V_AFTER_PUNG] = 1 if phase == PHASE_AFTER_PUNG else 0
    return can_win, mask


@nb.njit(cache=True, inline="always")
def _legal_discard(S, V, seat, t, drawn):
    if t < 0 or t >= 27 or S[O_HAND + seat * 27 + t] <= 0:
        return False
    if S[O_LOCKED + seat] and t != drawn:
        return False
    if V[seat, vw.V_MUST_VOID] and t // 9 != S[O_VOID + seat]:
        return False
    return True


@nb.njit(cache=True)
def _finish(S, V, L, tab, R, hand_out, seat_out, pay_out, reason, pats, check):
    """End of hand: checks at an exhausted wall, invariants, and the per-hand and per-seat rows."""
    S[O_END_REASON] = reason
    if reason == END_WALL_EXHAUSTED:
        _wall_checks(S, V, L, tab, R, pay_out, pats)
    r = S[O_ROW]
    if check:
        total = 0
        for s in range(4):
            total += S[O_NET + s]
        if total != 0:
            _error(S, ERR_INVARIANT, -1, -1, INV_ZERO_SUM)
        if S[O_N_PAY] <= pay_out.shape[1]:
            for s in range(4):
                acc = 0
                for i in range(S[O_N_PAY]):
                    if pay_out[r, i, P_PAYER] == s:
                        acc -= pay_out[r, i, P_AMOUNT]
                    if pay_out[r, i, P_PAYEE] == s:
                        acc += pay_out[r, i, P_AMOUNT]
                if acc != S[O_NET + s]:
                    _error(S, ERR_INVARIANT, s, -1, INV_PAYMENTS)
    if L.shape[0] > 0:
        _log(S, L, EV_END, reason, tiles_left(S), S[O_NEXT_DEALER], 0, 0)


@nb.njit(cache=True)
def _write_rows(S, hand_out, seat_out, win_out):
    r = S[O_ROW]
    hand_out[r, H_DEALER] = S[O_DEALER]
    hand_out[r, H_EXCHANGE_DIR] = S[O_EXDIR]
    hand_out[r, H_END_REASON] = S[O_END_REASON]
    hand_out[r, H_TILES_LEFT] = tiles_left(S)
    n = 0
    for s in range(4):
        if S[O_WINS + s] > 0:
            n += 1
    hand_out[r, H_WINNERS] = n
    hand_out[r, H_TURNS] = S[O_TURNS]
    hand_out[r, H_NEXT_DEALER] = S[O_NEXT_DEALER]
    hand_out[r, H_N_WINS] = S[O_N_WINS]
    hand_out[r, H_N_PAYMENTS] = S[O_N_PAY]
    hand_out[r, H_ERROR] = S[O_ERR]
    hand_out[r, H_ERR_SEAT] = S[O_ERR + 1]
    hand_out[r, H_ERR_QUESTION] = S[O_ERR + 2]
    hand_out[r, H_ERR_ANSWER] = S[O_ERR + 3]
    hand_out[r, H_N_EVENTS] = S[O_N_EV]
    for s in range(4):
        seat_out[r, s, S_VOID] = S[O_VOID + s]
        seat_out[r, s, S_NET] = S[O_NET + s]
        seat_out[r, s, S_WINS] = S[O_WINS + s]
        w = S[O_FIRST_WIN + s]
        if w >= 0 and w < win_out.shape[1]:
            seat_out[r, s, S_WIN_ORDER] = w + 1
            seat_out[r, s, S_WIN_KIND] = win_out[r, w, W_KIND]
            seat_out[r, s, S_FAN] = win_out[r, w, W_FAN]
            seat_out[r, s, S_BASE] = win_out[r, w, W_BASE]
        else:
            seat_out[r, s, S_WIN_ORDER] = -1 if w < 0 else w + 1
            seat_out[r, s, S_WIN_KIND] = -1
            seat_out[r, s, S_FAN] = -1
            seat_out[r, s, S_BASE] = -1
        seat_out[r, s, S_PIG] = S[O_PIG + s]
        seat_out[r, s, S_READY] = S[O_READY + s]
        seat_out[r, s, S_KONGS] = S[O_SEAT_KONGS + s]
        for i in range(6):
            seat_out[r, s, S_NET_WIN + i] = S[O_NET_REASON + s * 6 + i]
        seat_out[r, s, S_SCORE_BEFORE] = S[O_SCORE0 + s]


@nb.njit(cache=True)
def play_hand(S, V, L, tab, R, fns, script, seed, g, dealer, scores0, fixed_wall, fixed_dir, row,
              hand_out, seat_out, win_out, pay_out, pats, winners, check):
    """Play hand ``g`` into output row ``row``; returns the next dealer (RULES.md: match)."""
    flow = R[R_FLOW]
    _reset(S, V, seed, g, dealer, scores0, flow)
    S[O_ROW] = row
    _shuffle(S, seed, g, fixed_wall)
    _deal(S, V, dealer)
    _check(S, check)
    if R[R_EXCHANGE]:
        if not _exchange(S, V, L, tab, R, fns, script, seed, g, fixed_dir):
            _write_rows(S, hand_out, seat_out, win_out)
            return dealer
        _check(S, check)
    if not _choose_voids(S, V, L, tab, fns, script):
        _write_rows(S, hand_out, seat_out, win_out)
        return dealer
    cur = dealer
    phase = PHASE_FIRST
    kong_turn = False
    end = -1
    while end < 0 and S[O_ERR] == ERR_NONE:
        drawn = -1
        if phase == PHASE_DRAW:
            drawn = _draw(S, V, L, tab, cur, False)
            kong_turn = False
        elif phase == PHASE_REPLACEMENT:
            drawn = _draw(S, V, L, tab, cur, True)
        else:
            kong_turn = False
        _check(S, check)
        # the seat's turn: win, kong (then a replacement, and again), or discard
        while S[O_ERR] == ERR_NONE:
            can_win, mask = _turn_options(S, V, tab, R, cur, drawn, phase)
            if S[O_LOCKED + cur] and not can_win and mask == 0:
                ans = drawn
                _script_forced(S, script, cur, Q_TURN, ans)
            else:
                ans = _ask(S, V, tab, fns, script, cur, Q_TURN)
            if ans == A_WIN and can_win:
                ctx = CTX_SELF_DRAW
                kind = WIN_SELF_DRAW
                if phase == PHASE_REPLACEMENT:
                    ctx |= CTX_KONG_REPLACEMENT
                    kind = WIN_KONG_REPLACEMENT
                if tiles_left(S) == 0:
                    ctx |= CTX_LAST_TILE
                if S[O_CLEAN]:
                    if phase == PHASE_FIRST:
                        ctx |= CTX_HEAVENLY
                    elif phase == PHASE_DRAW and cur != dealer and S[O_DRAWS + cur] == 1:
                        ctx |= CTX_EARTHLY
                if check and _must_void(S, cur):
                    _error(S, ERR_INVARIANT, cur, Q_TURN, INV_VOID_WIN)
                tile = drawn if drawn >= 0 else _first_hand_tile_to_set_aside(S, tab, R, cur, pats)
                _settle_self_draw(S, V, L, tab, R, win_out, pay_out, cur, tile, kind, ctx, pats)
                _set_aside_from_hand(S, V, cur, tile)
                _check(S, check)
                if _three_won(S, R):
                    end = END_THREE_WON
                elif tiles_left(S) == 0:
                    end = END_WALL_EXHAUSTED
                else:
                    cur = next_active(S, cur)
                    phase = PHASE_DRAW
                break
            if ans >= A_KONG and ans < A_KONG + 27 and (mask >> (ans - A_KONG)) & 1:
                t = ans - A_KONG
                if _find_pung(S, cur, t) >= 0 and S[O_LOCKED + cur] == 0:
                    if L.shape[0] > 0:
                        _log(S, L, EV_KONG, cur, t, KONG_ADDED, -1, 0)
                    n_rob = _rob_window(S, V, L, tab, R, fns, script, win_out, pay_out, cur, t, pats, winners)
                    if n_rob < 0:
                        break
                    if n_rob > 0:
                        _check(S, check)
                        if _three_won(S, R):
                            end = END_THREE_WON
                        else:
                            cur = next_active(S, winners[n_rob - 1])
                            phase = PHASE_DRAW
                        break
                    _declare_kong(S, V, L, R, pay_out, cur, t, KONG_ADDED, -1)
                else:
                    _declare_kong(S, V, L, R, pay_out, cur, t, KONG_CONCEALED, -1)
                kong_turn = True
                phase = PHASE_REPLACEMENT
                drawn = _draw(S, V, L, tab, cur, True)
                _check(S, check)
                continue
            if not _legal_discard(S, V, cur, ans, drawn):
                _error(S, ERR_ILLEGAL, cur, Q_TURN, ans)
                break
            t = ans
            if check and V[cur, vw.V_MUST_VOID] and t // 9 != S[O_VOID + cur]:
                _error(S, ERR_INVARIANT, cur, Q_TURN, INV_VOID_DISCARD)
            _add(S, V, cur, t, -1)
            V[cur, vw.V_VISIBLE + t] += 1
            _show(V, t, 1, cur)
            S[O_PILE + t] += 1
            V[cur, vw.V_MUST_VOID] = 1 if _must_void(S, cur) else 0
            for v in range(4):
                V[v, vw.V_DISCARDED + cur * 27 + t] += 1
                nd = V[v, vw.V_N_DISCARDS]
                if nd < vw.N_DISC_SEQ:
                    V[v, vw.V_DISC_SEQ + nd] = cur * 32 + t
                V[v, vw.V_N_DISCARDS] = nd + 1
            if L.shape[0] > 0:
                _log(S, L, EV_DISCARD, cur, t, 0, 0, 0)
            _check(S, check)
            liability = kong_turn and R[R_KONG_DISCARD_LIABILITY] == 1
            kind, seat = _claims(S, V, L, tab, R, fns, script, win_out, pay_out, cur, t, liability, pats, winners)
            _check(S, check)
            if kind < 0:
                break
            if kind == 1:
                if _three_won(S, R):
                    end = END_THREE_WON
                elif tiles_left(S) == 0:
                    end = END_WALL_EXHAUSTED
                else:
                    furthest = winners[0]
                    for i in range(4):
                        if winners[i] >= 0 and (winners[i] - cur) % 4 > (furthest - cur) % 4:
                            furthest = winners[i]
                    cur = next_active(S, furthest)
                    phase = PHASE_DRAW
            elif kind == 2:
                cur = seat
                phase = PHASE_AFTER_PUNG
            elif kind == 3:
                cur = seat
                kong_turn = True
                phase = PHASE_REPLACEMENT
            elif tiles_left(S) == 0:
                end = END_WALL_EXHAUSTED
            else:
                cur = next_active(S, cur)
                phase = PHASE_DRAW
            break
    if S[O_ERR] == ERR_NONE or S[O_ERR] == ERR_INVARIANT:
        if end >= 0:
            _finish(S, V, L, tab, R, hand_out, seat_out, pay_out, end, pats, check)
    _write_rows(S, hand_out, seat_out, win_out)
    return S[O_NEXT_DEALER]


# == batches ==================================================================================

BLOCK = 64


@nb.njit(cache=True)
def _keep_alive(S, V, L, pats, winners):
    """A use of the scratch arrays after the loop, so their unowned views stay valid."""
    S[0] += V[0, 0] * 0 + L.shape[0] * 0 + pats[0] * 0 + winners[0] * 0


@nb.njit(cache=True)
def _alloc_scratch():
    S = np.zeros(S_LEN, np.int64)
    V = np.zeros((4, vw.VIEW_LEN), np.int64)
    L = np.zeros((0, LOG_WIDTH), np.int64)
    pats = np.zeros(N_PATTERNS, np.int64)
    winners = np.full(4, -1, np.int64)
    return S, V, L, pats, winners


_I64 = nb.types.int64
_FNS = nb.types.UniTuple(vw.STRATEGY_TYPE, 12)
_OUT2 = nb.types.int32[:, ::1]
_OUT3 = nb.types.int32[:, :, ::1]
SIG_BATCH = nb.types.void(nb.types.uint8[::1], _I64[::1], _FNS, _I64, _I64, _I64, nb.types.boolean,
                          nb.types.boolean, _OUT2, _OUT3, _OUT3, _OUT3)
SIG_TRACED = nb.types.void(nb.types.uint8[::1], _I64[::1], _FNS, _I64[:, :, ::1], _I64, _I64, _I64, _I64[::1],
                           _I64[::1], _I64, _I64[::1], _I64[:, ::1], _OUT2, _OUT3, _OUT3, _OUT3, nb.types.boolean)


@nb.njit(SIG_BATCH, cache=True, parallel=True)
def play_batch(tab, R, fns, seed, first, n_items, match_mode, check,
               hand_out, seat_out, win_out, pay_out):
    """Play ``n_items`` independent hands (global indices first..) or matches (first..) into the
    output rows. Independent hand g is dealt by seat g mod 4. A match plays
    ``hands_per_match`` hands from ``start_points``, seat 0 dealing first, the next dealer by
    RULES.md; its hand j has global index match * hands_per_match + j. Results do not depend
    on thread count or block size: every hand is reset and seeded by its global index."""
    hpm = R[17] if match_mode else 1  # R_HANDS_PER_MATCH
    n_blocks = (n_items + BLOCK - 1) // BLOCK
    script = np.zeros((4, 0, 3), np.int64)
    empty_wall = np.zeros(0, np.int64)
    tab = unowned(tab)
    R = unowned(R)
    hand_out = unowned(hand_out)
    seat_out = unowned(seat_out)
    win_out = unowned(win_out)
    pay_out = unowned(pay_out)
    for b in nb.prange(n_blocks):
        S0, V0, L0, pats0, winners0 = _alloc_scratch()
        S, V, L, pats, winners = unowned(S0), unowned(V0), unowned(L0), unowned(pats0), unowned(winners0)
        scores = np.zeros(4, np.int64)
        lo = b * BLOCK
        hi = min(lo + BLOCK, n_items)
        for item in range(lo, hi):
            if match_mode:
                m = first + item
                dealer = 0
                for s in range(4):
                    scores[s] = R[18]  # R_START_POINTS
                for j in range(hpm):
                    g = m * hpm + j
                    row = item * hpm + j
                    dealer = play_hand(S, V, L, tab, R, fns, script, seed, g, dealer, scores, empty_wall, 0,
                                       row, hand_out, seat_out, win_out, pay_out, pats, winners, check)
                    for s in range(4):
                        scores[s] += S[O_NET + s]
                    if S[O_ERR] != ERR_NONE:
                        break
            else:
                g = first + item
                play_hand(S, V, L, tab, R, fns, script, seed, g, g % 4, scores, empty_wall, 0,
                          item, hand_out, seat_out, win_out, pay_out, pats, winners, check)
        _keep_alive(S0, V0, L0, pats0, winners0)

@nb.njit(SIG_TRACED, cache=True)
def play_traced(tab, R, fns, script, seed, g, dealer, scores0, fixed_wall, fixed_dir, S, L,
                hand_out, seat_out, win_out, pay_out, check):
    """One hand with its event log (for traces and scenarios); same code path as the batch.
    Leaves the hand's final state in S (the wall is ``S[O_WALL:O_WALL+108]``)."""
    V0 = np.zeros((4, vw.VIEW_LEN), np.int64)
    pats0 = np.zeros(N_PATTERNS, np.int64)
    winners0 = np.full(4, -1, np.int64)
    play_hand(unowned(S), unowned(V0), unowned(L), unowned(tab), unowned(R), fns, unowned(script), seed, g,
              dealer, unowned(scores0), unowned(fixed_wall), fixed_dir, 0, unowned(hand_out), unowned(seat_out),
              unowned(win_out), unowned(pay_out), unowned(pats0), unowned(winners0), check)
    _keep_alive(S, V0, L, pats0, winners0)
