"""The hand's driver (ARCHITECTURE.md: A hand that resumes): ``play_hand`` deals and ``play_on``
plays from wherever the state's resume point ``O_AT`` says to the hand's end, stopping at the
``O_PAUSE``-th resume point or, with agents outside the engine, where one has a choice;
``_write_rows`` copies a finished hand into its rows of the outputs (``simcore.contract.records``).
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.records import (
    ERR_ILLEGAL, ERR_INVARIANT, ERR_NONE, H_DEALER, H_END_REASON, H_ERR_ANSWER, H_ERR_QUESTION, H_ERR_SEAT,
    H_ERROR, H_EXCHANGE_DIR, H_N_EVENTS, H_N_PAYMENTS, H_N_WINS, H_NEXT_DEALER, H_TILES_LEFT, H_TURNS,
    H_WINNERS, KONG_CONCEALED, N_PAY_FIELDS, N_QUESTIONS, N_REASONS, N_SITUATIONS, N_WIN_FIELDS, S_ASKED,
    S_BASE, S_FAN, S_KONGS, S_LUCK_HI, S_LUCK_LO, S_NET, S_NET_REASON, S_PIG, S_READY, S_SCORE_BEFORE,
    S_SITUATION, S_VOID, S_WIN_KIND, S_WIN_ORDER, S_WINS, W_BASE, W_FAN, W_KIND,
)
from simcore.contract.rules import R_EXCHANGE
from simcore.contract.tiles import N_KINDS
from simcore.contract.view import A_KONG, A_WIN, Q_TURN
from simcore.engine.ask import _agent_stop, _turn_answer
from simcore.engine.checks import _check
from simcore.engine.legal import _legal_discard, _turn_options
from simcore.engine.opening import _choose_voids, _deal, _exchange, _reset, _shuffle
from simcore.engine.state import (
    AT_ASK, AT_CLAIMS, AT_END, AT_EXCHANGE, AT_ROB, AT_TURN, AT_VOID, I64, MINUS_ONE, NO_END, NO_TILE,
    O_ASKED, O_AT, O_CUR, O_DEALER, O_DISCARDED, O_DRAWN, O_END_REASON, O_ERR, O_EXDIR, O_FIRST_WIN,
    O_KONG_FEEDER, O_KONGED, O_LOCKED, O_LUCK, O_N_EV, O_N_PAY, O_N_WINS, O_NET, O_NET_REASON, O_NEXT_DEALER,
    O_OFF_PBUF, O_OFF_WBUF, O_PAUSE, O_PCAP, O_PHASE, O_PIG, O_READY, O_SCORE0, O_SEAT_KONGS, O_SH_RP,
    O_SITUATIONS, O_TURN_KONG_SEAT, O_TURNS, O_VOID, O_WCAP, O_WINS, ONE, PAUSED, PHASE_DRAW, PHASE_FIRST,
    PHASE_REPLACEMENT, ZERO,
)
from simcore.engine.table import _error, _find_pung, _r, _set_all, tiles_left
from simcore.engine.turns import (
    _added_kong, _after_discard, _after_self_draw, _declare_kong, _discard, _draw, _finish, _self_draw,
)

@nb.njit(cache=True, _nrt=False)
def _write_rows(S, row, hand_out, seat_out, win_out, pay_out):
    """Copy the hand's results into its output rows (buffers beyond the capacity are counted
    but not written; the caller re-runs with room)."""
    hand_out[row, H_DEALER] = S[O_DEALER]
    hand_out[row, H_EXCHANGE_DIR] = S[O_EXDIR]
    hand_out[row, H_END_REASON] = S[O_END_REASON]
    hand_out[row, H_TILES_LEFT] = tiles_left(S)
    n = 0
    for s in range(4):
        if S[O_WINS + s] > 0:
            n += 1
    hand_out[row, H_WINNERS] = n
    hand_out[row, H_TURNS] = S[O_TURNS]
    hand_out[row, H_NEXT_DEALER] = S[O_NEXT_DEALER]
    hand_out[row, H_N_WINS] = S[O_N_WINS]
    hand_out[row, H_N_PAYMENTS] = S[O_N_PAY]
    hand_out[row, H_ERROR] = S[O_ERR]
    hand_out[row, H_ERR_SEAT] = S[O_ERR + 1]
    hand_out[row, H_ERR_QUESTION] = S[O_ERR + 2]
    hand_out[row, H_ERR_ANSWER] = S[O_ERR + 3]
    hand_out[row, H_N_EVENTS] = S[O_N_EV]
    n_w = min(S[O_N_WINS], S[O_WCAP], win_out.shape[1])
    for w in range(n_w):
        o = S[O_OFF_WBUF] + w * N_WIN_FIELDS
        for f in range(N_WIN_FIELDS):
            win_out[row, w, f] = S[o + f]
    n_p = min(S[O_N_PAY], S[O_PCAP], pay_out.shape[1])
    for i in range(n_p):
        o = S[O_OFF_PBUF] + i * N_PAY_FIELDS
        for f in range(N_PAY_FIELDS):
            pay_out[row, i, f] = S[o + f]
    for s in range(4):
        seat_out[row, s, S_VOID] = S[O_VOID + s]
        seat_out[row, s, S_NET] = S[O_NET + s]
        seat_out[row, s, S_WINS] = S[O_WINS + s]
        w = S[O_FIRST_WIN + s]
        if 0 <= w < n_w:
            o = S[O_OFF_WBUF] + w * N_WIN_FIELDS
            seat_out[row, s, S_WIN_ORDER] = w + 1
            seat_out[row, s, S_WIN_KIND] = S[o + W_KIND]
            seat_out[row, s, S_FAN] = S[o + W_FAN]
            seat_out[row, s, S_BASE] = S[o + W_BASE]
        else:
            seat_out[row, s, S_WIN_ORDER] = -1 if w < 0 else w + 1
            seat_out[row, s, S_WIN_KIND] = -1
            seat_out[row, s, S_FAN] = -1
            seat_out[row, s, S_BASE] = -1
        seat_out[row, s, S_PIG] = S[O_PIG + s]
        seat_out[row, s, S_READY] = S[O_READY + s]
        seat_out[row, s, S_KONGS] = S[O_SEAT_KONGS + s]
        for i in range(N_REASONS):
            seat_out[row, s, S_NET_REASON + i] = S[O_NET_REASON + s * N_REASONS + i]
        seat_out[row, s, S_SCORE_BEFORE] = S[O_SCORE0 + s]
        seat_out[row, s, S_LUCK_LO] = S[O_LUCK + s] & 0xFFFFFFFF   # the luck's float64 bits, in two halves
        seat_out[row, s, S_LUCK_HI] = S[O_LUCK + s] >> 32
        for q in range(N_QUESTIONS):
            seat_out[row, s, S_ASKED + q] = S[O_ASKED + s * N_QUESTIONS + q]
        for k in range(N_SITUATIONS):
            seat_out[row, s, S_SITUATION + k] = S[O_SITUATIONS + s * N_SITUATIONS + k]


@nb.njit(cache=True, _nrt=False)
def play_hand(S, dealer, fixed_dir):
    """Play the hand whose seed, index, scores before it (and, for scenarios, wall) are in S's
    header (RULES.md: One hand, step by step); returns the next dealer (RULES.md: One hand,
    step by step, step 8), or PAUSED when O_PAUSE stopped it. The results stay in S until
    ``_write_rows``."""
    _reset(S, dealer)
    _shuffle(S)
    _deal(S, dealer)
    _check(S)
    S[O_AT] = AT_EXCHANGE
    return play_on(S, fixed_dir)


@nb.njit(cache=True, inline="always")
def _pause(S, at, cur, phase, drawn, konged, t):
    """At a resume point: count it down when a pause is set; at zero keep where play stands in
    S (O_AT ...) and tell ``play_on`` to return. With agents outside the engine, stop where one
    has a choice. Shadowing, count it."""
    S[O_SH_RP] += 1
    p = S[O_PAUSE]
    if p == 0:
        return False
    if p < 0:   # agents outside the engine
        _keep_point(S, at, cur, phase, drawn, konged, t)
        return _agent_stop(S)
    S[O_PAUSE] = p - 1
    if p > 1:
        return False
    _keep_point(S, at, cur, phase, drawn, konged, t)
    return True


@nb.njit(cache=True, inline="always")
def _keep_point(S, at, cur, phase, drawn, konged, t):
    """Where play stands, into S (O_AT ...), for ``play_on`` to go on from."""
    S[O_AT] = at
    S[O_CUR] = cur
    S[O_PHASE] = phase
    S[O_DRAWN] = drawn
    S[O_KONGED] = 1 if konged else 0
    S[O_DISCARDED] = t


@nb.njit(cache=True, _nrt=False)
def play_on(S, fixed_dir):
    """Play the hand in S on from its resume point (O_AT and the slots after it) to its end:
    the whole hand after ``_deal`` (AT_EXCHANGE), or a copied or sampled state stopped at any
    question (ARCHITECTURE.md: A hand that resumes). Returns as ``play_hand``."""
    dealer = S[O_DEALER]
    at = S[O_AT]
    cur = S[O_CUR]
    phase = S[O_PHASE]
    drawn = S[O_DRAWN]
    kong_turn = S[O_KONGED] != 0
    t = S[O_DISCARDED]
    if at == AT_EXCHANGE:
        if _pause(S, AT_EXCHANGE, cur, phase, drawn, kong_turn, t):
            return PAUSED
        if _r(S, R_EXCHANGE):
            if not _exchange(S, fixed_dir):
                S[O_AT] = AT_END
                return dealer
            _check(S)
        at = AT_VOID
    if at == AT_VOID:
        if _pause(S, AT_VOID, cur, phase, drawn, kong_turn, t):
            return PAUSED
        if not _choose_voids(S):
            S[O_AT] = AT_END
            return dealer
        cur = dealer
        phase = PHASE_FIRST
        at = AT_TURN
    end = NO_END
    while end < 0 and S[O_ERR] == ERR_NONE:
        # a turn: a draw (none on the dealer's first turn or after a pung), then win, kong
        # (a replacement, and again), or discard
        if at == AT_TURN:
            kong_turn = phase == PHASE_REPLACEMENT  # the turn began with an exposed kong
            if not kong_turn and (S[O_TURN_KONG_SEAT] != 0 or S[O_KONG_FEEDER] != 0):
                S[O_TURN_KONG_SEAT] = 0  # no kong of this turn yet, and no feeder
                S[O_KONG_FEEDER] = 0
                _set_all(S, vw.V_TURN_KONG_SEAT, ZERO)
                _set_all(S, vw.V_KONG_FEEDER, ZERO)
            drawn = _draw(S, cur, I64(kong_turn)) if phase == PHASE_DRAW or kong_turn else NO_TILE
            _check(S)
            at = AT_ASK
        discarded = at == AT_CLAIMS
        while not discarded and S[O_ERR] == ERR_NONE:
            if at == AT_ROB:   # going on at the robbing of the kong of t
                k = t
                added = True
                mask = ZERO
                ans = MINUS_ONE
                at = AT_ASK
            else:
                if _pause(S, AT_ASK, cur, phase, drawn, kong_turn, t):
                    return PAUSED
                can_win, mask = _turn_options(S, cur, drawn, phase)
                ans = _turn_answer(S, cur, drawn, can_win, mask)
                if ans == A_WIN and can_win:
                    _self_draw(S, cur, drawn, phase, dealer)
                    _check(S)
                    end, cur = _after_self_draw(S, cur)
                    phase = PHASE_DRAW
                    break
                k = ans - A_KONG
                added = False
                if 0 <= k < N_KINDS and (mask >> k) & 1:
                    added = _find_pung(S, cur, k) >= 0 and S[O_LOCKED + cur] == 0
                    if added and _pause(S, AT_ROB, cur, phase, drawn, kong_turn, k):
                        return PAUSED
            if added or (0 <= k < N_KINDS and (mask >> k) & 1):
                if added:
                    robbed, end, nxt = _added_kong(S, cur, k)
                    if robbed != 0:
                        cur = nxt
                        phase = PHASE_DRAW
                        break
                else:
                    _declare_kong(S, cur, k, KONG_CONCEALED, MINUS_ONE)
                kong_turn = True
                phase = PHASE_REPLACEMENT
                drawn = _draw(S, cur, ONE)
                _check(S)
                continue
            if not _legal_discard(S, cur, ans, drawn):
                _error(S, ERR_ILLEGAL, cur, Q_TURN, ans)
                break
            _discard(S, cur, ans)
            _check(S)
            t = ans
            discarded = True
        at = AT_TURN
        if discarded:
            if _pause(S, AT_CLAIMS, cur, phase, drawn, kong_turn, t):
                return PAUSED
            end, cur, phase = _after_discard(S, cur, t, kong_turn)
    S[O_AT] = AT_END
    if (S[O_ERR] == ERR_NONE or S[O_ERR] == ERR_INVARIANT) and end >= 0:
        _finish(S, end)
    return S[O_NEXT_DEALER]
