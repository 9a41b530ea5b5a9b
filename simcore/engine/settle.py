"""Payments and wins (RULES.md: Settlement): each payment with its reason and the refund ledger,
a win recorded and revealed, a self-draw's and a discard's settlement (several winners, liability,
call transfer), a passed win's lock, and the drawn-hand checks when the wall runs out.
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.evaluate import (
    base_of, CTX_SELF_DRAW, N_PATTERNS, ready_value, score_patterns, waits_mask,
)
from simcore.contract.nrt import view_of
from simcore.contract.records import (
    ERR_INVARIANT, EV_CHECK, EV_PASS_WIN, EV_PAYMENT, EV_WIN, INV_VOID_WIN, LW_HAND, LW_MELD_KINDS,
    LW_MELD_TILES, LW_PATS, LW_WIN_BASE, LW_WIN_FAN, LW_WIN_N_MELDS, LW_WIN_TILES_LEFT, N_PAY_FIELDS,
    N_REASONS, N_WIN_FIELDS, P_AMOUNT, P_PAYEE, P_PAYER, P_REASON, REASON_KONG, REASON_LIABILITY,
    REASON_NOT_READY, REASON_PIG, REASON_REFUND, REASON_TRANSFER, REASON_WIN, W_BASE, W_FAN, W_FROM, W_KIND,
    W_ORDER, W_PAID, W_PATTERNS, W_SEAT, W_TILE, W_TURN, WIN_ROBBING_KONG,
)
from simcore.contract.rules import (
    KONG_LIABILITY_TRANSFER, N_RULE_FIELDS, PIG_PAYS_NON_PIGS, PIG_PAYS_REMAINING, R_FLOW,
    R_KONG_DISCARD_LIABILITY, R_KONG_REFUND, R_PASSED_WIN_HIGHER, R_PASSED_WIN_LOCK, R_PIG_PAYS,
    R_PIG_PAYS_READY_CHECK, R_PIG_PENALTY, R_READY_CHECK, R_SELF_DRAW_BONUS,
)
from simcore.contract.tiles import N_KINDS
from simcore.contract.view import M_KONG_CONCEALED
from simcore.engine.state import (
    I64, MINUS_ONE, O_ASIDE, O_BEST, O_CLEAN, O_FIRST_WIN, O_HAND, O_KONG_RECV, O_LOCKED, O_MELD_CNT,
    O_MELD_KIND, O_MELD_TILE, O_N_KONGS, O_N_MELDS, O_N_PAY, O_N_WINS, O_NET, O_NET_REASON, O_NEXT_DEALER,
    O_OFF_PBUF, O_OFF_WBUF, O_OUT, O_PASSLOCK, O_PATS, O_PCAP, O_PIG, O_PILE, O_READY, O_REVEALED_ROWS,
    O_RULES, O_TURN_KONG, O_TURN_KONG_SEAT, O_TURNS, O_VOID, O_WAITS, O_WCAP, O_WINNERS, O_WINS, ONE, ZERO,
)
from simcore.engine.table import (
    _active_count, _add, _error, _fan_on, _log, _log_at, _must_void, _r, _set_all, _show, _tab, tiles_left,
    _tracing, _v,
)

@nb.njit(cache=True, _nrt=False)
def _pay(S, payer, payee, amount, reason):
    """One payment: nets, the refund ledger, every view's scores, the record and the log."""
    if amount <= 0:
        return
    S[O_NET + payer] -= amount
    S[O_NET + payee] += amount
    S[O_NET_REASON + payer * N_REASONS + reason] -= amount
    S[O_NET_REASON + payee * N_REASONS + reason] += amount
    if reason == REASON_KONG:
        S[O_KONG_RECV + payee * 4 + payer] += amount
        if S[O_TURN_KONG_SEAT] != payee + 1:  # the first kong of a seat's turn
            for q in range(4):
                S[O_TURN_KONG + q] = 0
                _set_all(S, vw.V_TURN_KONG + q, ZERO)
            S[O_TURN_KONG_SEAT] = payee + 1
            _set_all(S, vw.V_TURN_KONG_SEAT, payee + 1)
        S[O_TURN_KONG + payer] += amount
        _set_all(S, vw.V_TURN_KONG + payer, S[O_TURN_KONG + payer])
        _set_all(S, vw.V_KONG_INCOME + payee * 4 + payer, S[O_KONG_RECV + payee * 4 + payer])
    for s in range(4):
        S[_v(s) + vw.V_SCORE + payer] -= amount
        S[_v(s) + vw.V_SCORE + payee] += amount
    n = S[O_N_PAY]
    if n < S[O_PCAP]:
        o = S[O_OFF_PBUF] + n * N_PAY_FIELDS
        S[o + P_PAYER] = payer
        S[o + P_PAYEE] = payee
        S[o + P_AMOUNT] = amount
        S[o + P_REASON] = reason
    S[O_N_PAY] = n + 1
    if _tracing(S):
        _log(S, EV_PAYMENT, payer, payee, amount, reason, ZERO)


@nb.njit(cache=True, inline="always")
def _liable(S, seat, other):
    """Is ``other`` liable for ``seat``'s self-draw or kong? Battle: seats still in the hand;
    flow: all three others (RULES.md: Options and presets, "Liable")."""
    if other == seat:
        return False
    return _r(S, R_FLOW) == 1 or S[O_OUT + other] == 0


@nb.njit(cache=True, _nrt=False)
def _reveal(S, seat):
    """A winner's tiles are shown to all, concealed kongs included (RULES.md: Rulings where the documents are silent,
    seed 004)."""
    S[O_REVEALED_ROWS] |= I64(1) << seat
    for t in range(N_KINDS):
        c = S[O_HAND + seat * N_KINDS + t]
        if c > 0:
            for s in range(4):
                S[_v(s) + vw.V_REVEALED + seat * N_KINDS + t] = c
            _show(S, t, c, seat)
    for i in range(S[O_N_MELDS + seat]):
        if S[O_MELD_KIND + seat * 4 + i] == M_KONG_CONCEALED:
            t = S[O_MELD_TILE + seat * 4 + i]
            _set_all(S, vw.V_MELD_TILE + seat * 4 + i, t)
            _show(S, t, I64(4), seat)


@nb.njit(cache=True, _nrt=False)
def _record_win(S, seat, tile, frm, kind, ctx):
    """Value the winner's hand (its concealed tiles hold the winning tile) and record the win.
    Returns (win index, base)."""
    o_h = O_HAND + seat * N_KINDS
    o_m = O_MELD_CNT + seat * N_KINDS
    fan = score_patterns(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + seat], S[O_N_MELDS + seat], view_of(S, o_m, N_KINDS),
                         S[O_N_KONGS + seat], ctx, view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
    if fan < 0:  # the engine only offers wins that score; a failure here is a bug
        _error(S, ERR_INVARIANT, seat, MINUS_ONE, INV_VOID_WIN)
        fan = 0
    base = base_of(fan, view_of(S, O_RULES, N_RULE_FIELDS))
    w = S[O_N_WINS]
    S[O_N_WINS] = w + 1
    if w < S[O_WCAP]:
        o = S[O_OFF_WBUF] + w * N_WIN_FIELDS
        S[o + W_SEAT] = seat
        S[o + W_ORDER] = w + 1
        S[o + W_TURN] = S[O_TURNS]
        S[o + W_KIND] = kind
        S[o + W_TILE] = tile
        S[o + W_FROM] = frm
        S[o + W_FAN] = fan
        S[o + W_BASE] = base
        S[o + W_PAID] = 0
        for i in range(N_PATTERNS):
            S[o + W_PATTERNS + i] = S[O_PATS + i]
    if S[O_FIRST_WIN + seat] < 0:
        S[O_FIRST_WIN + seat] = w
    S[O_WINS + seat] += 1
    _set_all(S, vw.V_WINS + seat, S[O_WINS + seat])
    _set_all(S, vw.V_VOID_CAP + seat, ZERO)  # a winning hand holds no void tile
    S[O_CLEAN] = 0
    if _tracing(S):
        e = _log(S, EV_WIN, seat, tile, frm, kind, w)
        S[_log_at(S, e, LW_WIN_FAN)] = fan
        for i in range(N_PATTERNS):
            S[_log_at(S, e, LW_PATS + i)] = S[O_PATS + i]
        nm = S[O_N_MELDS + seat]
        for i in range(4):
            S[_log_at(S, e, LW_MELD_KINDS + i)] = S[O_MELD_KIND + seat * 4 + i] if i < nm else 0
            S[_log_at(S, e, LW_MELD_TILES + i)] = S[O_MELD_TILE + seat * 4 + i] if i < nm else -1
        for t in range(N_KINDS):
            S[_log_at(S, e, LW_HAND + t)] = S[o_h + t]
        S[_log_at(S, e, LW_WIN_BASE)] = base
        S[_log_at(S, e, LW_WIN_TILES_LEFT)] = tiles_left(S)
        S[_log_at(S, e, LW_WIN_N_MELDS)] = nm
    return w, base


@nb.njit(cache=True, inline="always")
def _win_paid(S, w, amount):
    if w < S[O_WCAP]:
        S[S[O_OFF_WBUF] + w * N_WIN_FIELDS + W_PAID] += amount


@nb.njit(cache=True, _nrt=False)
def _after_first_win(S, seat):
    """Battle: the winner leaves. Flow: the winner stays, locked (RULES.md: One hand, step by step, step 5)."""
    if _r(S, R_FLOW):
        if S[O_LOCKED + seat] == 0:
            S[O_LOCKED + seat] = 1
            S[_v(seat) + vw.V_LOCKED] = 1
            _reveal(S, seat)
    else:
        S[O_OUT + seat] = 1
        _set_all(S, vw.V_OUT + seat, ONE)
        _reveal(S, seat)


@nb.njit(cache=True, _nrt=False)
def _set_aside_from_hand(S, seat, t):
    _add(S, seat, t, MINUS_ONE)
    S[_v(seat) + vw.V_VISIBLE + t] += 1  # still visible to its owner, now set aside
    S[O_ASIDE + t] += 1
    _show(S, t, ONE, seat)


@nb.njit(cache=True, _nrt=False)
def _first_hand_tile_to_set_aside(S, seat):
    """After a win on the dealer's initial 14 tiles: the tile whose removal leaves the highest
    ready value, then the most wait kinds, then the lowest index (RULES.md: Rulings where the documents are silent,
    flow lock)."""
    o_h = O_HAND + seat * N_KINDS
    o_m = O_MELD_CNT + seat * N_KINDS
    hand = view_of(S, o_h, N_KINDS)
    best_t = -1
    best_v = -1
    best_n = -1
    for t in range(N_KINDS):
        if hand[t] == 0:
            continue
        hand[t] -= 1
        value = ready_value(_tab(S), hand, S[O_VOID + seat], S[O_N_MELDS + seat], view_of(S, o_m, N_KINDS),
                            S[O_N_KONGS + seat], view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
        mask = waits_mask(_tab(S), hand, S[O_VOID + seat], S[O_N_MELDS + seat], view_of(S, o_m, N_KINDS))
        hand[t] += 1
        n = 0
        while mask:
            n += 1
            mask &= mask - 1
        if value > best_v or (value == best_v and n > best_n):
            best_t, best_v, best_n = t, value, n
    return best_t


@nb.njit(cache=True, _nrt=False)
def _settle_self_draw(S, seat, tile, kind, ctx, feeder):
    """Self-draw (or kong replacement): each liable seat pays base + self_draw_bonus. With a
    ``feeder`` (>= 0: a replacement win after an exposed kong on its discard, under
    ``exposed_kong_bloom = feeder_pays``) that seat alone pays base, and the win scores no
    self_draw fan (RULES.md: Settlement). The winning tile is set aside before the winner's
    hand is revealed, so the revealed hand is the one it keeps."""
    if S[O_N_WINS] == 0:
        S[O_NEXT_DEALER] = seat
    if feeder >= 0:
        w, base = _record_win(S, seat, tile, feeder, kind, ctx & ~CTX_SELF_DRAW)
        _pay(S, feeder, seat, base, REASON_WIN)
        _win_paid(S, w, base)
    else:
        w, base = _record_win(S, seat, tile, MINUS_ONE, kind, ctx)
        amount = base + _r(S, R_SELF_DRAW_BONUS)
        for other in range(4):
            if _liable(S, seat, other):
                _pay(S, I64(other), seat, amount, REASON_WIN)
                _win_paid(S, w, amount)
    _set_aside_from_hand(S, seat, tile)
    _after_first_win(S, seat)


@nb.njit(cache=True, _nrt=False)
def _settle_on_tile(S, n_win, tile, frm, kind, ctx, liability):
    """Wins on one discard or one robbed kong (context ``ctx``) by the seats in the winners
    scratch, in turn order from the discarder (RULES.md: Settlement). ``liability``: the discard
    right after the discarder's kong under ``kong_discard_liability = pays_for_all``; under
    ``transfer`` the kong income of the kongs ``frm`` declared in this turn goes to the winners."""
    if S[O_N_WINS] == 0:
        S[O_NEXT_DEALER] = S[O_WINNERS] if n_win == 1 else frm
    in_hand = 4 if _r(S, R_FLOW) else _active_count(S)
    for i in range(n_win):
        seat = S[O_WINNERS + i]
        _add(S, seat, tile, ONE)
        if i == 0:
            if kind == WIN_ROBBING_KONG:
                _add(S, frm, tile, MINUS_ONE)
                S[_v(frm) + vw.V_VISIBLE + tile] += 1
                _show(S, tile, ONE, frm)
            else:
                S[O_PILE + tile] -= 1
            S[O_ASIDE + tile] += 1
        w, base = _record_win(S, seat, tile, frm, kind, I64(ctx))
        _add(S, seat, tile, MINUS_ONE)
        if liability:
            amount = base * (in_hand - 1)
            _pay(S, frm, seat, amount, REASON_LIABILITY)
        else:
            amount = base
            _pay(S, frm, seat, amount, REASON_WIN)
        _win_paid(S, w, amount)
    if _r(S, R_KONG_DISCARD_LIABILITY) == KONG_LIABILITY_TRANSFER and S[O_TURN_KONG_SEAT] == frm + 1:
        _transfer(S, n_win, frm)
    for i in range(n_win):
        seat = S[O_WINNERS + i]
        if S[O_WINS + seat] == 1:
            _after_first_win(S, seat)


@nb.njit(cache=True, _nrt=False)
def _transfer(S, n_win, frm):
    """Call transfer (RULES.md: Settlement, ``kong_discard_liability = transfer``): ``frm`` hands
    the income T of the kongs it declared in this turn to the n winners, ceil(T / n) each, and
    those kongs leave its refund ledger."""
    total = 0
    for q in range(4):
        total += S[O_TURN_KONG + q]
    if total <= 0:
        return
    share = (total + n_win - 1) // n_win
    for i in range(n_win):
        _pay(S, frm, S[O_WINNERS + i], I64(share), REASON_TRANSFER)
    for q in range(4):
        S[O_KONG_RECV + frm * 4 + q] -= S[O_TURN_KONG + q]
        S[O_TURN_KONG + q] = 0
        _set_all(S, vw.V_KONG_INCOME + frm * 4 + q, S[O_KONG_RECV + frm * 4 + q])
        _set_all(S, vw.V_TURN_KONG + q, ZERO)


@nb.njit(cache=True, _nrt=False)
def _pass_win(S, seat, t, frm, chose, ctx):
    """A seat that could win on t from ``frm`` (context ``ctx``) did something else
    (``CHOSE_*``): the passed-win lock, which with ``passed_win_higher`` remembers 1 + the
    highest fan passed (RULES.md: Rulings where the documents are silent, passed-win lock), and
    the trace's pass_win event with the passed win's fan."""
    higher = _r(S, R_PASSED_WIN_HIGHER) != 0
    fan = _fan_on(S, seat, t, ctx) if higher or _tracing(S) else ZERO
    if _r(S, R_PASSED_WIN_LOCK):
        S[O_PASSLOCK + seat] = max(S[O_PASSLOCK + seat], fan + 1) if higher else 1
    if _tracing(S):
        _log(S, EV_PASS_WIN, seat, t, frm, chose, fan)


@nb.njit(cache=True, _nrt=False)
def _wall_checks(S):
    """Drawn-hand checks at an exhausted wall (RULES.md: Settlement, wall exhausted, steps 1-3)."""
    rules = view_of(S, O_RULES, N_RULE_FIELDS)
    pats = view_of(S, O_PATS, N_PATTERNS)
    for s in range(4):
        if S[O_WINS + s] > 0:
            continue
        o_h = O_HAND + s * N_KINDS
        o_m = O_MELD_CNT + s * N_KINDS
        pig = _must_void(S, s)
        S[O_PIG + s] = 1 if pig else 0
        if pig:
            S[O_READY + s] = 0
            S[O_BEST + s] = 0
            S[O_WAITS + s] = 0
        else:
            k = S[O_N_MELDS + s]
            mask = waits_mask(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + s], k, view_of(S, o_m, N_KINDS))
            S[O_WAITS + s] = mask
            S[O_READY + s] = 1 if mask != 0 else 0
            S[O_BEST + s] = 0
            if mask != 0:
                S[O_BEST + s] = ready_value(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + s], k, view_of(S, o_m, N_KINDS),
                                            S[O_N_KONGS + s], rules, pats)
        if _tracing(S):
            _log(S, EV_CHECK, I64(s), S[O_PIG + s], S[O_READY + s], S[O_WAITS + s], S[O_BEST + s])
    # 1. flower pigs
    for p in range(4):
        if S[O_PIG + p] != 1:
            continue
        for q in range(4):
            if q == p or S[O_PIG + q] == 1:
                continue
            won = S[O_WINS + q] > 0
            who = _r(S, R_PIG_PAYS)
            if who == PIG_PAYS_NON_PIGS:
                ok = True
            elif who == PIG_PAYS_REMAINING:
                ok = not won
            else:
                ok = won or S[O_READY + q] == 1
            if ok:
                _pay(S, I64(p), I64(q), _r(S, R_PIG_PENALTY), REASON_PIG)
    # 2. ready check
    if _r(S, R_READY_CHECK):
        for p in range(4):
            if S[O_READY + p] != 0:
                continue
            if S[O_PIG + p] == 1 and not _r(S, R_PIG_PAYS_READY_CHECK):
                continue
            for q in range(4):
                if S[O_READY + q] == 1:
                    _pay(S, I64(p), I64(q), S[O_BEST + q], REASON_NOT_READY)
    # 3. kong refunds
    if _r(S, R_KONG_REFUND):
        for p in range(4):
            if S[O_READY + p] != 0:
                continue
            for q in range(4):
                _pay(S, I64(p), I64(q), S[O_KONG_RECV + p * 4 + q], REASON_REFUND)
