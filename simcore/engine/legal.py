"""What a seat may answer: the legal kongs, discards and claims (RULES.md: One hand, step by step,
step 4, and the rulings on locks and kongs), the question posed into a seat's view (``pose``: the
engine's own offer, and a stopped hand's question for ``sichuan analyze``), and the legal actions
as a bit set over ``simcore.contract.actions`` for agents outside the engine.
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.actions import ACT_DISCARD, ACT_KONG, ACT_PASS, ACT_PUNG, ACT_VOID, ACT_WIN
from simcore.contract.evaluate import CTX_KONG_DISCARD, CTX_LAST_TILE, CTX_ROBBING_KONG, waits_mask
from simcore.contract.nrt import view_of
from simcore.contract.rules import R_ADDED_KONG_DRAWN_ONLY, R_CLAIM_WHILE_VOID, R_EXCHANGE, R_KONG_WHILE_VOID
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS, SUIT_BITS
from simcore.contract.view import M_PUNG, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID
from simcore.engine.state import (
    AT_ASK, AT_CLAIMS, AT_EXCHANGE, AT_ROB, AT_VOID, I64, MINUS_ONE, O_AT, O_CUR, O_DISCARDED, O_DRAW_RDY,
    O_DRAWN, O_HAND, O_KONGED, O_LOCKED, O_MELD_CNT, O_MELD_KIND, O_MELD_TILE, O_N_MELDS, O_OUT, O_PHASE,
    O_QUADS, O_VOID, ONE, PHASE_AFTER_PUNG, PHASE_FIRST, PHASE_REPLACEMENT, ZERO,
)
from simcore.engine.table import _can_win_on, _must_void, _r, _seat_wins, _tab, tiles_left, _v

@nb.njit(cache=True, inline="always")
def _offer(S, seat, t, frm, can_win, can_pung, can_kong, kong_discard):
    v = _v(seat)
    S[v + vw.V_KONG_DISCARD] = kong_discard
    S[v + vw.V_TILE] = t
    S[v + vw.V_FROM] = frm
    S[v + vw.V_CAN_WIN] = can_win
    S[v + vw.V_CAN_PUNG] = can_pung
    S[v + vw.V_CAN_KONG] = can_kong


@nb.njit(cache=True, _nrt=False)
def _locked_kong_keeps_waits(S, seat, t):
    """Flow lock: a concealed kong of the drawn tile only if the waits stay the same."""
    o_h = O_HAND + seat * N_KINDS
    o_m = O_MELD_CNT + seat * N_KINDS
    hand = view_of(S, o_h, N_KINDS)
    mc = view_of(S, o_m, N_KINDS)
    void = S[O_VOID + seat]
    k = S[O_N_MELDS + seat]
    hand[t] -= 1
    before = waits_mask(_tab(S), hand, void, k, mc)
    hand[t] -= 3
    mc[t] += 4
    after = waits_mask(_tab(S), hand, void, k + 1, mc)
    mc[t] -= 4
    hand[t] += 4
    return before == after


@nb.njit(cache=True, inline="always")
def _kong_mask(S, seat, drawn):
    """Kongs the seat may declare on its turn: a tile left for the replacement; not while
    holding void tiles unless ``kong_while_void``; never of the void suit; an added kong only with
    the latest drawn tile under ``added_kong_drawn_only``; a locked flow seat
    only a concealed kong of its drawn tile keeping its waits (RULES.md: Rulings where the
    documents are silent)."""
    if tiles_left(S) < 1:
        return I64(0)
    if not _r(S, R_KONG_WHILE_VOID) and _must_void(S, seat):
        return I64(0)
    void = S[O_VOID + seat]
    quads = S[O_QUADS + seat]
    if S[O_LOCKED + seat]:
        if drawn >= 0 and (quads >> drawn) & 1 and _locked_kong_keeps_waits(S, seat, drawn):
            return I64(1) << drawn
        return I64(0)
    mask = quads & ~(I64(SUIT_BITS) << (N_RANKS * void))  # never of the void suit
    for i in range(S[O_N_MELDS + seat]):
        t = S[O_MELD_TILE + seat * 4 + i]
        if S[O_MELD_KIND + seat * 4 + i] == M_PUNG and S[O_HAND + seat * N_KINDS + t] >= 1 and (
                not _r(S, R_ADDED_KONG_DRAWN_ONLY) or t == drawn):
            mask |= I64(1) << t
    return mask


@nb.njit(cache=True, inline="always")
def _claim_options(S, seat, t, last, ctx):
    """(can win, can pung, can kong) for ``seat`` on another seat's discard t."""
    held = S[O_HAND + seat * N_KINDS + t]
    # & rather than "and": one branch on the outcome instead of one per (random) condition
    can_pung = ((held >= 2) & (not last) & (S[O_LOCKED + seat] == 0) & (t // N_RANKS != S[O_VOID + seat])
                & ((_r(S, R_CLAIM_WHILE_VOID) != 0) | (not _must_void(S, seat))))
    can_win = _can_win_on(S, seat, t, ctx)
    return can_win, can_pung, can_pung and held >= 3


@nb.njit(cache=True, _nrt=False)
def pose(S, seat):
    """In a hand stopped at a resume point (O_PAUSE): put the question that point asks
    ``seat`` into its view as the engine would ask it, without asking (``simcore.inspection.review``,
    tests). Returns the question, or -1 when the point asks that seat nothing."""
    at = S[O_AT]
    v = _v(seat)
    cur = S[O_CUR]
    if at == AT_EXCHANGE or at == AT_VOID:
        q = Q_EXCHANGE if at == AT_EXCHANGE else Q_VOID
        if q == Q_EXCHANGE and not _r(S, R_EXCHANGE):
            return MINUS_ONE
    elif at == AT_ASK:
        if seat != cur:
            return MINUS_ONE
        can_win, mask = _turn_options(S, cur, S[O_DRAWN], S[O_PHASE])
        if S[O_LOCKED + cur] and not can_win and mask == 0:
            return MINUS_ONE
        q = Q_TURN
    elif at == AT_ROB:
        t = S[O_DISCARDED]
        ctx = CTX_ROBBING_KONG | (CTX_LAST_TILE if tiles_left(S) == 0 else 0)
        if seat == cur or S[O_OUT + seat] or not _can_win_on(S, seat, t, ctx):
            return MINUS_ONE
        _offer(S, seat, t, cur, ONE, ZERO, ZERO, ZERO)
        q = Q_ROB
    elif at == AT_CLAIMS:
        t = S[O_DISCARDED]
        if seat == cur or S[O_OUT + seat]:
            return MINUS_ONE
        last = tiles_left(S) == 0
        ctx = (CTX_LAST_TILE if last else 0) | (CTX_KONG_DISCARD if S[O_KONGED] else 0)
        can_win, can_pung, can_kong = _claim_options(S, seat, t, last, ctx)
        if not (can_win or can_pung):
            return MINUS_ONE
        _offer(S, seat, t, cur, I64(can_win), I64(can_pung), I64(can_kong), S[O_KONGED])
        q = Q_CLAIM
    else:
        return MINUS_ONE
    S[v + vw.V_QUESTION] = q
    S[v + vw.V_WALL_LEFT] = tiles_left(S)
    return q


@nb.njit(cache=True, _nrt=False)
def exchange_picks(S, seat, a, b):
    """Bit set of the tiles that may be the seat's next exchange pick after the picks a and b
    (-1: not made), picks in non-decreasing order: a tile of the first pick's suit, not below
    the latest, with enough of the tiles left from it up to complete three (RULES.md: One hand,
    step by step, step 2)."""
    out = ZERO
    n = (a >= 0) + (b >= 0)
    last = b if b >= 0 else a
    o = O_HAND + seat * N_KINDS
    for suit in range(N_SUITS):
        if n > 0 and suit != a // N_RANKS:
            continue
        room = ZERO   # tiles left from rank r up to the suit's end
        for r in range(N_RANKS - 1, -1, -1):
            t = suit * N_RANKS + r
            c = S[o + t] - (t == a) - (t == b)
            room += c
            if c > 0 and room >= 3 - n and t >= last:
                out |= ONE << (ACT_DISCARD + t)
    return out


@nb.njit(cache=True, _nrt=False)
def exchange_choices(S, seat, limit):
    """How many different three tiles the seat may pass, counted up to ``limit``."""
    n = ZERO
    m0 = exchange_picks(S, seat, MINUS_ONE, MINUS_ONE)
    for a in range(N_KINDS):
        if not (m0 >> a) & 1:
            continue
        m1 = exchange_picks(S, seat, I64(a), MINUS_ONE)
        for b in range(a, N_KINDS):
            if (m1 >> b) & 1:
                n += _popcount(exchange_picks(S, seat, I64(a), I64(b)))
                if n >= limit:
                    return n
    return n


@nb.njit(cache=True, inline="always")
def _popcount(x):
    n = ZERO
    while x != 0:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True, _nrt=False)
def legal_actions(S, seat, q):
    """Bit set of the legal actions (``simcore.contract.actions``) for question q, posed to the
    seat (its view holds the offer: ``pose``), from the checks the engine makes of an answer
    (``_legal_discard``, ``_kong_mask``, ``_claim_options``, ``_rob_window``, ``_choose_voids``).
    The exchange's first pick: ``exchange_picks``."""
    v = _v(seat)
    if q == Q_VOID:
        return I64(7) << ACT_VOID
    if q == Q_EXCHANGE:
        return exchange_picks(S, seat, MINUS_ONE, MINUS_ONE)
    m = ONE << ACT_PASS
    if S[v + vw.V_CAN_WIN]:
        m |= ONE << ACT_WIN
    if q == Q_ROB:
        return m
    if q == Q_CLAIM:
        if S[v + vw.V_CAN_PUNG]:
            m |= ONE << ACT_PUNG
        if S[v + vw.V_CAN_KONG]:
            m |= ONE << (ACT_KONG + S[v + vw.V_TILE])
        return m
    m = (S[v + vw.V_KONG_MASK] << ACT_KONG) | (m & (ONE << ACT_WIN))
    drawn = S[v + vw.V_TILE]
    for t in range(N_KINDS):
        if _legal_discard(S, seat, I64(t), drawn):
            m |= ONE << (ACT_DISCARD + t)
    return m


@nb.njit(cache=True, _nrt=False)
def has_choice(S, seat, q):
    """Question q, posed to the seat, has two or more legal answers."""
    if q == Q_EXCHANGE:
        return exchange_choices(S, seat, I64(2)) >= 2
    return _popcount(legal_actions(S, seat, q)) >= 2


@nb.njit(cache=True, inline="always")
def _lowest_bit(m):
    i = ZERO
    while i < 63 and not (m >> i) & 1:
        i += 1
    return i


@nb.njit(cache=True, inline="always")
def _turn_options(S, seat, drawn, phase):
    if phase == PHASE_FIRST:
        can_win = _seat_wins(S, seat, MINUS_ONE)
    elif phase == PHASE_AFTER_PUNG:
        can_win = False
    else:
        can_win = S[O_DRAW_RDY + seat] == 1 and _seat_wins(S, seat, MINUS_ONE)
    mask = _kong_mask(S, seat, drawn)
    v = _v(seat)
    S[v + vw.V_QUESTION] = Q_TURN
    S[v + vw.V_TILE] = drawn
    S[v + vw.V_FROM] = -1
    S[v + vw.V_CAN_WIN] = 1 if can_win else 0
    S[v + vw.V_CAN_PUNG] = 0
    S[v + vw.V_CAN_KONG] = 0
    S[v + vw.V_KONG_MASK] = mask
    S[v + vw.V_MUST_VOID] = 1 if _must_void(S, seat) else 0
    S[v + vw.V_AFTER_PUNG] = 1 if phase == PHASE_AFTER_PUNG else 0
    S[v + vw.V_REPLACEMENT] = 1 if phase == PHASE_REPLACEMENT else 0
    return can_win, mask


@nb.njit(cache=True, inline="always")
def _legal_discard(S, seat, t, drawn):
    if t < 0 or t >= N_KINDS or S[O_HAND + seat * N_KINDS + t] <= 0:
        return False
    if S[O_LOCKED + seat] and t != drawn:
        return False
    if _must_void(S, seat) and t // N_RANKS != S[O_VOID + seat]:
        return False
    return True
