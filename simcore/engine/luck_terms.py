"""Luck inside the hand (README: Cheaper duplicate answers; ``simcore.engine.luck`` holds the value
model's features): with O_LUCK_ON, each draw (``_luck_draw``) and the exchange's direction
(``_luck_exchange``) add to each seat's luck the change the event made to the model's value of
its position, less that change's mean over the event's outcomes; only ready seats' waits enter a
draw's terms (cached while the seat's tiles stay). ``fit_hand`` adds a hand's feature sums to the
value model's least squares (``kernel.play_fit``).
"""

from __future__ import annotations

import numba as nb

from simcore.contract.evaluate import (
    base_of, CTX_SELF_DRAW, moved_slots, regular_shanten_codes, seven_pairs_from_slots, shift_code, slots2,
    suit_code, waits_mask,
)
from simcore.contract.nrt import as_float64, float64_ptr, float_bits, view_of
from simcore.contract.rules import N_RULE_FIELDS, R_SELF_DRAW_BONUS
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS, N_TILES, NO_VOID
from simcore.engine.luck import (
    F13_LIVE, F13_VALUE, F14_WIN, F_DANGER, F_GIFT, F_PAY, index13, index14, N_FEATURES, tl_bucket,
)
from simcore.engine.state import (
    DEAL_END, I64, MINUS_ONE, O_CODES, O_FIT, O_HAND, O_LK_AMT, O_LK_CUR, O_LK_KEY, O_LK_TMP, O_LK_WAITS,
    O_LUCK, O_MELD_CNT, O_N1, O_N2, O_N_MELDS, O_NET, O_OUT, O_PASSED, O_PHI, O_RULES, O_UNDRAWN, O_VALUE,
    O_VOID, O_WALL, ONE, ZERO,
)
from simcore.engine.table import (
    _active_count, _codes_without_void, _fan_on, _fast_shanten, _r, _ready_hint, _tab, _tab_ptr, tiles_left,
    undrawn,
)

@nb.njit(cache=True, inline="always")
def _fit_term(S, seat, i, x):
    """Fitting: the seat's luck in feature i gains x (``fit_hand``)."""
    if S[O_FIT] != 0:
        o = O_PHI + seat * N_FEATURES + i
        S[o] = float_bits(as_float64(S[o]) + x)


@nb.njit(cache=True, _nrt=False)
def _term(S, seat, i, x):
    """The seat's luck gains x in feature i (x: the feature's value after the event less its mean
    over the event's outcomes), weighted by the model; a fit keeps the feature's own sum."""
    S[O_LUCK + seat] = float_bits(as_float64(S[O_LUCK + seat]) + as_float64(S[O_VALUE + i]) * x)
    _fit_term(S, seat, i, x)


@nb.njit(cache=True, _nrt=False)
def fit_hand(S):
    """Fitting, at a hand's end: each seat's luck per feature (its vector L) and its net go into
    the fit sums: X'X += L L', X'y += L net, then the count, sum and sum of squares of the nets.
    Least squares on these gives the weights that leave the least variance in net - w.L."""
    F = float64_ptr(S[O_FIT])
    off = N_FEATURES * N_FEATURES
    for s in range(4):
        net = float(S[O_NET + s])
        o = O_PHI + s * N_FEATURES
        for i in range(N_FEATURES):
            li = as_float64(S[o + i])
            if li == 0.0:
                continue
            F[off + i] += li * net
            for j in range(N_FEATURES):
                F[i * N_FEATURES + j] += li * as_float64(S[o + j])
        F[off + N_FEATURES] += 1.0
        F[off + N_FEATURES + 1] += net
        F[off + N_FEATURES + 2] += net * net


@nb.njit(cache=True, _nrt=False)
def _count_undrawn(S):
    for t in range(N_KINDS):
        S[O_UNDRAWN + t] = 0
    for i in range(DEAL_END, N_TILES):
        if undrawn(S, i):
            S[O_UNDRAWN + S[O_WALL + i]] += 1


@nb.njit(cache=True, _nrt=False)
def _shanten_of(S, c0, c1, c2, k, n2, n1):
    sh = regular_shanten_codes(_tab_ptr(S), c0, c1, c2, k)
    if k == 0:
        sh = min(sh, seven_pairs_from_slots(n2, n1))
    return sh


@nb.njit(cache=True, _nrt=False)
def _sh14(S, seat, t):
    """The shanten of the seat's non-void tiles with t added (3n+2 tiles: -1, it can win)."""
    c0, c1, c2 = _codes_without_void(S, seat)
    n2 = S[O_N2 + seat]
    n1 = S[O_N1 + seat]
    if t // N_RANKS != S[O_VOID + seat]:
        c0, c1, c2 = shift_code(c0, c1, c2, t, ONE)
        n2, n1 = moved_slots(n2, n1, S[O_HAND + seat * N_KINDS + t], ONE)
    return _shanten_of(S, c0, c1, c2, S[O_N_MELDS + seat], n2, n1)


@nb.njit(cache=True, _nrt=False)
def _refresh_waits(S, seat, key):
    """The seat's waits mask and the base of a discard win on each wait, for its tiles now."""
    mask = waits_mask(_tab(S), view_of(S, O_HAND + seat * N_KINDS, N_KINDS), S[O_VOID + seat],
                      S[O_N_MELDS + seat], view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS))
    S[O_LK_WAITS + seat] = mask
    S[O_LK_KEY + seat] = key
    for t in range(N_KINDS):
        if (mask >> t) & 1:
            S[O_LK_AMT + seat * N_KINDS + t] = base_of(_fan_on(S, seat, I64(t), ZERO), view_of(S, O_RULES, N_RULE_FIELDS))


@nb.njit(cache=True, inline="always")
def _waits_if_ready(S, seat):
    """The seat's waits mask when its tiles (3n+1) are ready, else -1; kept, with the base of a
    discard win on each wait (``O_LK_AMT``), while its tiles and sets stay the same."""
    if _ready_hint(S, seat) != 1:   # cached by the engine; a seat holding its void suit is not ready
        return MINUS_ONE
    o = O_CODES + seat * N_SUITS
    key = 1 + (S[o] | (S[o + 1] << 21) | (S[o + 2] << 42)) ^ (S[O_N_MELDS + seat] << 61)
    if S[O_LK_KEY + seat] != key:
        _refresh_waits(S, seat, key)
    return S[O_LK_WAITS + seat] if S[O_LK_WAITS + seat] != 0 else MINUS_ONE


@nb.njit(cache=True, inline="always")
def _amt(S, seat, t):
    """The base of the seat's discard win on t, if t is one of its waits (``O_LK_CUR``), else 0."""
    mask = S[O_LK_CUR + seat]
    return float(S[O_LK_AMT + seat * N_KINDS + t]) if mask >= 0 and (mask >> t) & 1 else 0.0


@nb.njit(cache=True, _nrt=False)
def _live(S, mask):
    n = 0
    for t in range(N_KINDS):
        if (mask >> t) & 1:
            n += S[O_UNDRAWN + t]
    return n


@nb.njit(cache=True, _nrt=False)
def _self_draw_amount(S, seat, t, sh):
    """What each payer would pay ``seat`` for a self-draw on t (0 unless ``sh`` says it wins)."""
    if sh >= 0:
        return 0.0
    fan = _fan_on(S, seat, t, CTX_SELF_DRAW)
    return float(base_of(fan, view_of(S, O_RULES, N_RULE_FIELDS)) + _r(S, R_SELF_DRAW_BONUS))


@nb.njit(cache=True, inline="always")
def _w(S, i):
    return as_float64(S[O_VALUE + i])


@nb.njit(cache=True, inline="always")
def _gain(S, seat, x):
    S[O_LUCK + seat] = float_bits(as_float64(S[O_LUCK + seat]) + x)


@nb.njit(cache=True, _nrt=False)
def _luck_draw(S, seat, t):
    """The luck of the draw of t by ``seat`` (before it holds it; tiles left already counts the
    draw), each feature's value with t less its mean over the undrawn tiles: what a self-draw
    would pay the drawer and what the tile would pay ready others on a discard (by what the
    drawer likely does with it); for each other seat what the drawer's self-draw would make it
    pay and, when it is ready, the copies of its waits the draw took or left, plain and times what
    each would pay it. Only the waits of ready seats enter, so a draw costs a few lookups (this is
    estimation, not a rule: README, Cheaper duplicate answers)."""
    left = tiles_left(S)
    total = float(left + 1)
    payers = float(_active_count(S) - 1)
    waits = 0   # the kinds some ready other wins on
    for s in range(4):
        S[O_LK_CUR + s] = MINUS_ONE if s == seat or S[O_OUT + s] else _waits_if_ready(S, I64(s))
        if S[O_LK_CUR + s] >= 0:
            waits |= S[O_LK_CUR + s]
    own = _waits_if_ready(S, seat)   # the drawer's own waits: a draw of one is a self-draw
    mean_amount = 0.0
    got_amount = 0.0
    if own > 0:
        for x in range(N_KINDS):
            u = S[O_UNDRAWN + x]
            if (own >> x) & 1 and u:
                amount = _self_draw_amount(S, seat, I64(x), MINUS_ONE)
                mean_amount += u * amount
                if x == t:
                    got_amount = amount
        mean_amount /= total
        _term(S, seat, F14_WIN, (got_amount - mean_amount) * payers)
    if waits:
        sh13 = _fast_shanten(S, seat)
        gain = 0.0
        for x in range(N_KINDS):
            u = S[O_UNDRAWN + x]
            if not (waits >> x) & 1 or u == 0:
                continue
            keep = ZERO if x // N_RANKS == S[O_VOID + seat] else (ONE if _sh14(S, seat, I64(x)) < sh13 else I64(2))
            S[O_LK_TMP + x] = keep
            danger = 0.0
            for s in range(4):
                danger += _amt(S, I64(s), I64(x))
            hit = (1.0 if x == t else 0.0) - u / total
            gain += _w(S, F_DANGER + keep) * danger * hit
            _fit_term(S, seat, F_DANGER + keep, danger * hit)
        _gain(S, seat, gain)
    tl = tl_bucket(left)
    for s in range(4):
        if s == seat or S[O_OUT + s]:
            continue
        if own > 0:
            _term(S, I64(s), F_PAY, got_amount - mean_amount)
        mask = S[O_LK_CUR + s]
        if mask < 0:
            continue
        live = 0.0
        value = 0.0
        for x in range(N_KINDS):
            u = S[O_UNDRAWN + x]
            if not (mask >> x) & 1 or u == 0:
                continue
            a = _amt(S, I64(s), I64(x))
            live += u
            value += u * a
            _term(S, I64(s), F_GIFT + S[O_LK_TMP + x], a * ((1.0 if x == t else 0.0) - u / total))   # keep: above
        took = float((mask >> t) & 1)
        _term(S, I64(s), F13_LIVE + tl, live / total - took)
        _term(S, I64(s), F13_VALUE + tl, value / total - _amt(S, I64(s), t))
    S[O_UNDRAWN + t] -= 1


@nb.njit(cache=True, _nrt=False)
def _hand_after_exchange(S, seat, d):
    """The seat's features once the exchange in direction d has passed (its tiles less the three
    it passes, plus the three it receives): its one-hot index, and a second feature with its
    value (-1 when none)."""
    h = O_HAND + seat * N_KINDS
    frm = (seat - d + 4) % 4
    for t in range(N_KINDS):
        S[O_LK_TMP + t] = S[h + t]
    for i in range(3):
        S[O_LK_TMP + S[O_PASSED + seat * 3 + i]] -= 1
        S[O_LK_TMP + S[O_PASSED + frm * 3 + i]] += 1
    hand = view_of(S, O_LK_TMP, N_KINDS)
    c0 = suit_code(hand, 0)
    c1 = suit_code(hand, 1)
    c2 = suit_code(hand, 2)
    n2 = 0
    n1 = 0
    n = 0
    for t in range(N_KINDS):
        c = S[O_LK_TMP + t]
        n2 += slots2(c)
        n1 += c & 1
        n += c
    sh = _shanten_of(S, c0, c1, c2, ZERO, n2, n1)
    left = tiles_left(S)
    if n % 3 == 2:   # the dealer
        return index14(sh, left), F14_WIN, 3.0 if sh < 0 else 0.0
    if sh != 0:
        return index13(sh, left), MINUS_ONE, 0.0
    mask = waits_mask(_tab(S), hand, NO_VOID, ZERO, view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS))
    return index13(sh, left), F13_LIVE + tl_bucket(left), float(_live(S, mask))


@nb.njit(cache=True, _nrt=False)
def _luck_exchange(S, d):
    """The luck of the exchange's direction d (each of +1, -1, +2 a third): each seat's features
    once the tiles have passed, less their mean over the three directions (the passes are chosen
    first)."""
    for s in range(4):
        for dd in (ONE, MINUS_ONE, I64(2)):
            i1, i2, x2 = _hand_after_exchange(S, I64(s), dd)
            _term(S, I64(s), i1, (1.0 if dd == d else 0.0) - 1.0 / 3.0)
            if i2 >= 0:
                _term(S, I64(s), i2, x2 * ((1.0 if dd == d else 0.0) - 1.0 / 3.0))
