"""Turns and claims (RULES.md: One hand, step by step, steps 4 to 7): a draw from the wall, a kong
declared and paid, the robbing window of an added kong, the claims on a discard (wins in turn
order, pung, kong), a discard, a self-drawn win, what follows a win, and the hand's finish with
its drawn-hand checks.
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.evaluate import (
    CTX_EARTHLY, CTX_HEAVENLY, CTX_KONG_DISCARD, CTX_KONG_REPLACEMENT, CTX_LAST_TILE, CTX_ROBBING_KONG,
    CTX_SELF_DRAW,
)
from simcore.contract.records import (
    CHOSE_KONG, CHOSE_PASS, CHOSE_PUNG, END_THREE_WON, END_WALL_EXHAUSTED, ERR_ILLEGAL, ERR_INVARIANT,
    EV_DISCARD, EV_DRAW, EV_END, EV_KONG, EV_PUNG, INV_PAYMENTS, INV_VOID_DISCARD, INV_VOID_WIN, INV_ZERO_SUM,
    KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, N_PAY_FIELDS, P_AMOUNT, P_PAYEE, P_PAYER, REASON_KONG,
    WIN_DISCARD, WIN_KONG_REPLACEMENT, WIN_ROBBING_KONG, WIN_SELF_DRAW,
)
from simcore.contract.rules import (
    BLOOM_FEEDER_PAYS, KONG_LIABILITY_PAYS_FOR_ALL, R_EXPOSED_KONG_BLOOM, R_KONG_DISCARD_LIABILITY,
    R_KONG_PAY_ADDED, R_KONG_PAY_CONCEALED, R_KONG_PAY_EXPOSED, R_KONG_WHILE_VOID,
)
from simcore.contract.tiles import N_KINDS, N_RANKS
from simcore.contract.view import (
    C_KONG, C_PASS, C_PUNG, C_WIN, M_KONG_ADDED, M_KONG_CONCEALED, M_KONG_EXPOSED, M_PUNG, Q_CLAIM, Q_ROB,
    Q_TURN,
)
from simcore.engine.ask import _ask
from simcore.engine.checks import _check
from simcore.engine.legal import _claim_options, _offer
from simcore.engine.luck_terms import _luck_draw
from simcore.engine.settle import (
    _first_hand_tile_to_set_aside, _liable, _pass_win, _pay, _settle_on_tile, _settle_self_draw, _wall_checks,
)
from simcore.engine.state import (
    CLAIM_ILLEGAL, CLAIM_KONG, CLAIM_NONE, CLAIM_PUNG, CLAIM_WINS, I64, MINUS_ONE, NO, NO_END, O_CHECK,
    O_CLEAN, O_DRAW_RDY, O_DRAWS, O_END_REASON, O_KONG_FEEDER, O_LUCK_ON, O_MELD_CNT, O_MELD_KIND, O_N_KONGS,
    O_N_PAY, O_NET, O_NEXT_DEALER, O_OFF_PBUF, O_OUT, O_PASSLOCK, O_PCAP, O_PILE, O_SEAT_KONGS, O_TURNS,
    O_VOID, O_WALL, O_WINNERS, ONE, PHASE_AFTER_PUNG, PHASE_DRAW, PHASE_FIRST, PHASE_REPLACEMENT, ZERO,
)
from simcore.engine.table import (
    _add, _add_meld, _can_win_on, _clear_winners, _error, _find_pung, _log, _must_void, next_active,
    _no_void_shown, _r, _ready_hint, _set_all, _show, _three_won, tiles_left, _tracing, _v, _wall_position,
)

@nb.njit(cache=True, _nrt=False)
def _draw(S, seat, replacement):
    """A draw from the front, or a kong replacement from the back (RULES.md: Tiles, seats, notation)."""
    S[O_DRAW_RDY + seat] = _ready_hint(S, seat)
    pos = _wall_position(S, seat, replacement)
    t = S[O_WALL + pos]
    if S[O_LUCK_ON]:
        _luck_draw(S, seat, t)
    _add(S, seat, t, ONE)
    S[O_TURNS] += 1
    S[O_DRAWS + seat] += 1
    S[_v(seat) + vw.V_N_DRAWS] += 1
    # public facts, the same in every view: computed once, written four times
    drawn = S[_v(seat) + vw.V_DRAWS + seat] + 1
    cap = S[_v(seat) + vw.V_VOID_CAP + seat]
    cap += cap >= 0
    for s in range(4):
        v = _v(s)
        S[v + vw.V_DRAWS + seat] = drawn
        S[v + vw.V_VOID_CAP + seat] = cap
    S[O_PASSLOCK + seat] = 0  # any draw lifts it (RULES.md: Rulings where the documents are silent, passed-win lock)
    if _tracing(S):
        _log(S, EV_DRAW, seat, t, replacement, pos, ZERO)
    return t


@nb.njit(cache=True, _nrt=False)
def _rob_window(S, kong_seat, t):
    """Seats that can win on an added kong's tile may rob it (RULES.md: Rulings where the documents are silent,
    added kong).
    Returns the number of robbers, or -1 on an illegal answer."""
    _clear_winners(S)
    n_win = 0
    ctx = CTX_ROBBING_KONG | (CTX_LAST_TILE if tiles_left(S) == 0 else 0)
    for i in range(1, 4):
        seat = (kong_seat + i) % 4
        if S[O_OUT + seat] or not _can_win_on(S, seat, t, ctx):
            continue
        _offer(S, seat, t, kong_seat, ONE, ZERO, ZERO, ZERO)
        ans = _ask(S, seat, Q_ROB)
        if ans == C_WIN:
            S[O_WINNERS + n_win] = seat
            n_win += 1
        elif ans == C_PASS:
            _pass_win(S, I64(seat), t, kong_seat, CHOSE_PASS, ctx)
        else:
            _error(S, ERR_ILLEGAL, I64(seat), Q_ROB, ans)
            return -1
    if n_win > 0:
        _settle_on_tile(S, I64(n_win), t, kong_seat, WIN_ROBBING_KONG, I64(ctx), NO)
    return n_win


@nb.njit(cache=True, _nrt=False)
def _declare_kong(S, seat, t, kind, frm):
    """Make a kong and collect its payment (RULES.md: Settlement, kongs pay on declaration)."""
    S[O_CLEAN] = 0
    S[O_SEAT_KONGS + seat] += 1
    if kind == KONG_ADDED:
        i = _find_pung(S, seat, t)
        S[O_MELD_KIND + seat * 4 + i] = M_KONG_ADDED
        S[O_MELD_CNT + seat * N_KINDS + t] += 1
        S[O_N_KONGS + seat] += 1
        _add(S, seat, t, MINUS_ONE)
        S[_v(seat) + vw.V_VISIBLE + t] += 1
        _show(S, t, ONE, seat)
        _set_all(S, vw.V_MELD_KIND + seat * 4 + i, M_KONG_ADDED)
        _no_void_shown(S, seat, R_KONG_WHILE_VOID)
        for other in range(4):
            if _liable(S, seat, other):
                _pay(S, I64(other), seat, _r(S, R_KONG_PAY_ADDED), REASON_KONG)
    elif kind == KONG_CONCEALED:
        _add(S, seat, t, I64(-4))
        S[_v(seat) + vw.V_VISIBLE + t] += 4
        _add_meld(S, seat, M_KONG_CONCEALED, t)
        if _tracing(S):
            _log(S, EV_KONG, seat, t, KONG_CONCEALED, MINUS_ONE, ZERO)
        for other in range(4):
            if _liable(S, seat, other):
                _pay(S, I64(other), seat, _r(S, R_KONG_PAY_CONCEALED), REASON_KONG)
    else:
        _add(S, seat, t, I64(-3))
        S[_v(seat) + vw.V_VISIBLE + t] += 3  # its three tiles, now in the set
        S[O_PILE + t] -= 1
        _show(S, t, I64(3), seat)
        _add_meld(S, seat, M_KONG_EXPOSED, t)
        if _tracing(S):
            _log(S, EV_KONG, seat, t, KONG_EXPOSED, frm, ZERO)
        _pay(S, frm, seat, _r(S, R_KONG_PAY_EXPOSED), REASON_KONG)


@nb.njit(cache=True, _nrt=False)
def _claims(S, frm, t, kong_turn):
    """Claims on a discard, answered by all at once (RULES.md: One hand, step by step, step 4;
    RULES.md: Rulings where the documents are silent, claims): wins first and cancel any
    pung/kong; after the last tile only a win. Returns (``CLAIM_*``, seat): the winners are in
    the winners scratch; the seat is the pung's or kong's claimant. ``kong_turn``: ``frm``
    declared a kong in this turn (the kong_discard fan, ``kong_discard_liability``)."""
    last = tiles_left(S) == 0
    ctx = (CTX_LAST_TILE if last else 0) | (CTX_KONG_DISCARD if kong_turn else 0)
    _clear_winners(S)
    n_win = 0
    claim_seat = -1
    claim_kind = 0
    for i in range(1, 4):
        seat = (frm + i) % 4
        if S[O_OUT + seat]:
            continue
        can_win, can_pung, can_kong = _claim_options(S, seat, t, last, ctx)
        if not (can_win or can_pung):
            continue
        _offer(S, seat, t, frm, I64(can_win), I64(can_pung), I64(can_kong), I64(kong_turn))
        ans = _ask(S, seat, Q_CLAIM)
        if ans == C_WIN and can_win:
            S[O_WINNERS + n_win] = seat
            n_win += 1
            continue
        if ans == C_PASS or (ans == C_PUNG and can_pung) or (ans == C_KONG and can_kong):
            if can_win:
                _pass_win(S, I64(seat), t, frm,
                          CHOSE_PASS if ans == C_PASS else (CHOSE_PUNG if ans == C_PUNG else CHOSE_KONG), I64(ctx))
            if ans != C_PASS:
                claim_seat = seat
                claim_kind = ans
            continue
        _error(S, ERR_ILLEGAL, I64(seat), Q_CLAIM, ans)
        return CLAIM_ILLEGAL, MINUS_ONE
    if n_win > 0:
        liability = kong_turn and _r(S, R_KONG_DISCARD_LIABILITY) == KONG_LIABILITY_PAYS_FOR_ALL
        _settle_on_tile(S, I64(n_win), t, frm, WIN_DISCARD, I64(ctx), liability)
        return CLAIM_WINS, MINUS_ONE
    if claim_seat < 0:
        return CLAIM_NONE, MINUS_ONE
    S[O_CLEAN] = 0
    if claim_kind == C_PUNG:
        _add(S, claim_seat, t, I64(-2))
        S[_v(claim_seat) + vw.V_VISIBLE + t] += 2  # its two tiles, now in the set
        S[O_PILE + t] -= 1
        _show(S, t, I64(2), claim_seat)
        _add_meld(S, I64(claim_seat), M_PUNG, t)
        if _tracing(S):
            _log(S, EV_PUNG, I64(claim_seat), t, frm, ZERO, ZERO)
        return CLAIM_PUNG, I64(claim_seat)
    _declare_kong(S, I64(claim_seat), t, KONG_EXPOSED, frm)
    S[O_KONG_FEEDER] = frm + 1
    _set_all(S, vw.V_KONG_FEEDER, frm + 1)
    return CLAIM_KONG, I64(claim_seat)


@nb.njit(cache=True, _nrt=False)
def _discard(S, seat, t):
    """Move t from the seat's hand to its pile; every seat sees it."""
    if S[O_CHECK] and _must_void(S, seat) and t // N_RANKS != S[O_VOID + seat]:
        _error(S, ERR_INVARIANT, seat, Q_TURN, INV_VOID_DISCARD)
    _add(S, seat, t, MINUS_ONE)
    S[O_PILE + t] += 1
    cap = S[_v(seat) + vw.V_VOID_CAP + seat]  # the same in every view
    if t // N_RANKS != S[O_VOID + seat]:  # it held no void tile, or it would have had to discard one
        cap = 0
    elif cap > 0:
        cap -= 1
    for s in range(4):
        v = _v(s)
        S[v + vw.V_VISIBLE + t] += 1  # the discarder's own copy moved from hand to pile
        S[v + vw.V_VOID_CAP + seat] = cap
        if s == seat:
            S[v + vw.V_MUST_VOID] = 1 if _must_void(S, seat) else 0
        nd = S[v + vw.V_N_DISCARDS]
        if nd < vw.N_DISC_SEQ:
            S[v + vw.V_DISC_SEQ + nd] = vw.pack_discard(seat, t)
        S[v + vw.V_N_DISCARDS] = nd + 1
    if _tracing(S):
        _log(S, EV_DISCARD, seat, t, ZERO, ZERO, ZERO)


@nb.njit(cache=True, _nrt=False)
def _finish(S, reason):
    """End of hand: checks at an exhausted wall, and the zero-sum and payment invariants."""
    S[O_END_REASON] = reason
    if reason == END_WALL_EXHAUSTED:
        _wall_checks(S)
    if S[O_CHECK]:
        if S[O_NET] + S[O_NET + 1] + S[O_NET + 2] + S[O_NET + 3] != 0:
            _error(S, ERR_INVARIANT, MINUS_ONE, MINUS_ONE, INV_ZERO_SUM)
        if S[O_N_PAY] <= S[O_PCAP]:
            for s in range(4):
                acc = 0
                for i in range(S[O_N_PAY]):
                    o = S[O_OFF_PBUF] + i * N_PAY_FIELDS
                    if S[o + P_PAYER] == s:
                        acc -= S[o + P_AMOUNT]
                    if S[o + P_PAYEE] == s:
                        acc += S[o + P_AMOUNT]
                if acc != S[O_NET + s]:
                    _error(S, ERR_INVARIANT, I64(s), MINUS_ONE, INV_PAYMENTS)
    if _tracing(S):
        _log(S, EV_END, reason, tiles_left(S), S[O_NEXT_DEALER], ZERO, ZERO)


@nb.njit(cache=True, _nrt=False, inline="always")
def self_draw_context(S, cur, phase, dealer):
    """(the context a self-draw by ``cur`` now scores in, the seat whose exposed kong's discard
    pays alone or -1): a kong's replacement, the last tile, a heavenly or earthly hand."""
    ctx = CTX_SELF_DRAW
    if phase == PHASE_REPLACEMENT:
        ctx |= CTX_KONG_REPLACEMENT
    if tiles_left(S) == 0:
        ctx |= CTX_LAST_TILE
    if S[O_CLEAN]:
        if phase == PHASE_FIRST:
            ctx |= CTX_HEAVENLY
        elif phase == PHASE_DRAW and cur != dealer and S[O_DRAWS + cur] == 1:
            ctx |= CTX_EARTHLY
    feeder = MINUS_ONE
    if phase == PHASE_REPLACEMENT and _r(S, R_EXPOSED_KONG_BLOOM) == BLOOM_FEEDER_PAYS:
        feeder = S[O_KONG_FEEDER] - 1   # -1 unless the turn began with an exposed kong
    return I64(ctx), I64(feeder)


@nb.njit(cache=True, _nrt=False)
def _self_draw(S, cur, drawn, phase, dealer):
    """The seat wins on its own tiles: context, the set-aside tile, settlement."""
    ctx, feeder = self_draw_context(S, cur, phase, dealer)
    kind = WIN_KONG_REPLACEMENT if phase == PHASE_REPLACEMENT else WIN_SELF_DRAW
    if S[O_CHECK] and _must_void(S, cur):
        _error(S, ERR_INVARIANT, cur, Q_TURN, INV_VOID_WIN)
    tile = drawn if drawn >= 0 else _first_hand_tile_to_set_aside(S, cur)
    _settle_self_draw(S, cur, I64(tile), kind, ctx, feeder)


@nb.njit(cache=True, _nrt=False)
def _after_wins(S, cur):
    """Where play goes after wins on a tile from ``cur``: (end reason or -1, next seat). After
    the winner furthest from ``cur`` in turn order (RULES.md: Rulings where the documents are silent, play after
    a win)."""
    if _three_won(S):
        return END_THREE_WON, cur
    if tiles_left(S) == 0:
        return END_WALL_EXHAUSTED, cur
    furthest = S[O_WINNERS]
    for i in range(4):
        w = S[O_WINNERS + i]
        if w >= 0 and (w - cur) % 4 > (furthest - cur) % 4:
            furthest = w
    return NO_END, next_active(S, furthest)


@nb.njit(cache=True, inline="always")
def _after_self_draw(S, cur):
    """Where play goes after ``cur``'s self-draw win: (end reason or NO_END, next seat)."""
    if _three_won(S):
        return END_THREE_WON, cur
    if tiles_left(S) == 0:
        return END_WALL_EXHAUSTED, cur
    return NO_END, next_active(S, cur)


@nb.njit(cache=True, inline="always")
def _added_kong(S, cur, t):
    """``cur`` adds t to its pung (RULES.md: Rulings where the documents are silent, added kong):
    the seats that can win on t may rob it first. Returns (robbed, end, next seat): robbed -1
    when an illegal answer stopped the hand; 1 when robbed (play goes on after the robber
    furthest from ``cur``, unless three have won); 0 when the kong stands, declared and paid."""
    if _tracing(S):
        _log(S, EV_KONG, cur, t, KONG_ADDED, MINUS_ONE, ZERO)
    n_rob = _rob_window(S, cur, t)
    if n_rob < 0:
        return MINUS_ONE, NO_END, cur
    if n_rob > 0:
        _check(S)
        if _three_won(S):
            return ONE, END_THREE_WON, cur
        return ONE, NO_END, next_active(S, S[O_WINNERS + n_rob - 1])
    _declare_kong(S, cur, t, KONG_ADDED, MINUS_ONE)
    return ZERO, NO_END, cur


@nb.njit(cache=True, inline="always")
def _after_discard(S, cur, t, kong_turn):
    """The claims on ``cur``'s discard t, then where play goes: (end reason or NO_END, next
    seat, how its turn starts)."""
    kind, seat = _claims(S, cur, t, kong_turn)
    _check(S)
    if kind == CLAIM_WINS:
        end, nxt = _after_wins(S, cur)
        return end, nxt, PHASE_DRAW
    if kind == CLAIM_PUNG:
        return NO_END, seat, PHASE_AFTER_PUNG
    if kind == CLAIM_KONG:
        return NO_END, seat, PHASE_REPLACEMENT
    if kind == CLAIM_ILLEGAL or tiles_left(S) > 0:  # an illegal answer: the error stops the hand
        return NO_END, next_active(S, cur), PHASE_DRAW
    return END_WALL_EXHAUSTED, cur, PHASE_DRAW
