"""The table's small helpers, shared by every part of the hand: reading the rules and the suit
tables from the header, moving tiles (``_add`` keeps each seat's suit codes, seven-pairs slots,
void count, four-of-a-kind mask and readiness hint current, and its view with them), the wall's
draw positions, the event log, errors, and what a seat's tiles can do (win, shanten, readiness).

Every helper takes ``S`` as a raw pointer to the state (``simcore.contract.nrt``): one register per
call instead of the seven words of an array, and ``S[i]`` a plain load with no negative-index
check. Helpers are compiled with ``_nrt=False`` (they allocate nothing, so numba emits no
reference counting) and constants passed to them are ``np.int64`` (one compiled copy, not one per
literal). The layout is ``simcore.engine.state``; RULES.md is the specification.
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.evaluate import (
    moved_slots, N_PATTERNS, POW5, regular_shanten_codes, score_patterns, seven_pairs_from_slots, shift_code,
    slots2,
)
from simcore.contract.nrt import uint8_ptr, view_of
from simcore.contract.records import ERR_NONE, LOG_WIDTH, LW_EVENT, LW_FIELDS
from simcore.contract.rules import (
    N_RULE_FIELDS, R_CLAIM_WHILE_VOID, R_FLOW, R_KONG_WHILE_VOID, R_PASSED_WIN_HIGHER,
)
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS
from simcore.contract.view import M_KONG_CONCEALED, M_PUNG, VIEW_LEN
from simcore.engine.state import (
    DEAL_END, I64, N_DRAWABLE, O_BACK, O_CODES, O_DRAW_ORDER, O_ERR, O_FRONT, O_HAND, O_LEFT, O_LOG_CAP,
    O_LOG_SPARE, O_MELD_CNT, O_MELD_KIND, O_MELD_TILE, O_N1, O_N2, O_N_EV, O_N_KONGS, O_N_MELDS, O_OFF_LOG,
    O_OUT, O_OWN, O_PASSLOCK, O_PATS, O_QUADS, O_RDY, O_RULES, O_SH_LOW, O_TAB, O_TAB_LEN, O_TOP, O_USED,
    O_VIEWS, O_VOID, O_VOIDCNT, O_WINNERS, ONE, ORDER_SEAT, SH_UNKNOWN, ZERO,
)

@nb.njit(cache=True, inline="always")
def _r(S, i):
    return S[O_RULES + i]


@nb.njit(cache=True, inline="always")
def _v(seat):
    """Offset of a seat's view in S."""
    return O_VIEWS + seat * VIEW_LEN


@nb.njit(cache=True, inline="always")
def _tab_ptr(S):
    """The suit tables as a pointer (table loads without index checks)."""
    return uint8_ptr(S[O_TAB])


@nb.njit(cache=True, inline="always")
def _tab(S):
    """The suit tables as an array (for the evaluator and the strategies)."""
    return view_of(uint8_ptr(S[O_TAB]), ZERO, S[O_TAB_LEN])


@nb.njit(cache=True, inline="always")
def tiles_left(S):
    return S[O_LEFT]


@nb.njit(cache=True, inline="always")
def undrawn(S, i):
    """Is wall position i (DEAL_END..WALL_LAST) still to be drawn?"""
    if S[O_DRAW_ORDER] == ORDER_SEAT:
        return (S[O_USED] >> (i - DEAL_END)) & 1 == 0
    return S[O_FRONT] <= i <= S[O_BACK]


@nb.njit(cache=True, _nrt=False)
def _wall_position(S, seat, replacement):
    """The wall position the seat's draw takes, marked drawn (RULES.md: Rulings where the documents are silent, draw order). Table
    order: the front, a replacement the back. Seat order: the seat's lowest undrawn own position
    (position DEAL_END + k belongs to seat dealer + 1 + k mod 4), else the highest undrawn one."""
    S[O_LEFT] -= 1
    if S[O_DRAW_ORDER] != ORDER_SEAT:
        if replacement:
            S[O_BACK] -= 1
            return S[O_BACK] + 1
        S[O_FRONT] += 1
        return S[O_FRONT] - 1
    used = S[O_USED]
    k = S[O_OWN + seat]
    while k < N_DRAWABLE and (used >> k) & 1:
        k += 4
    if k < N_DRAWABLE:
        S[O_OWN + seat] = k + 4
    else:
        k = S[O_TOP]
        while (used >> k) & 1:
            k -= 1
        S[O_TOP] = k - 1
    S[O_USED] = used | (ONE << k)
    return DEAL_END + k


@nb.njit(cache=True, inline="always")
def _tracing(S):
    return S[O_LOG_CAP] > 0


@nb.njit(cache=True, _nrt=False)
def _log(S, ev, a, b, c, d, e):
    """Append an event row (``EV_*`` and its five fields, ``records.EVENT_FIELDS``); returns its
    row index."""
    n = S[O_N_EV]
    if n < S[O_LOG_CAP]:
        o = S[O_OFF_LOG] + n * LOG_WIDTH
        S[o + LW_EVENT] = ev
        S[o + LW_FIELDS] = a
        S[o + LW_FIELDS + 1] = b
        S[o + LW_FIELDS + 2] = c
        S[o + LW_FIELDS + 3] = d
        S[o + LW_FIELDS + 4] = e
    S[O_N_EV] = n + 1
    return n


@nb.njit(cache=True, inline="always")
def _log_at(S, row, col):
    """Offset of a log cell (rows beyond the capacity land in a spare cell that is ignored)."""
    if row < S[O_LOG_CAP]:
        return S[O_OFF_LOG] + row * LOG_WIDTH + col
    return O_LOG_SPARE


@nb.njit(cache=True, inline="always")
def _add(S, seat, t, n):
    """Add n (may be negative) copies of t to a seat's concealed tiles, mirrored in its view;
    keeps the seat's suit codes, pair slots, void-tile count and four-of-a-kind mask current,
    clears its readiness hint and keeps its shanten bound (a tile added lowers the shanten
    by at most one, a tile taken out never lowers it)."""
    h = O_HAND + seat * N_KINDS + t
    old = S[h]
    new = old + n
    S[h] = new
    s = t // N_RANKS
    d = n * POW5[t - N_RANKS * s]
    S[O_CODES + seat * N_SUITS + s] += d
    # void-suit tiles count apart from the pair slots; arithmetic, not a branch: whether a
    # tile is of the void suit is as good as random
    in_void = I64(s == S[O_VOID + seat])
    S[O_VOIDCNT + seat] += n * in_void
    S[O_N2 + seat] += (slots2(new) - slots2(old)) * (1 - in_void)
    S[O_N1 + seat] += ((new & 1) - (old & 1)) * (1 - in_void)
    if new == 4:
        S[O_QUADS + seat] |= I64(1) << t
    elif old == 4:
        S[O_QUADS + seat] &= ~(I64(1) << t)
    S[O_RDY + seat] = -1
    if n > 0:
        S[O_SH_LOW + seat] -= n
    v = _v(seat)
    S[v + vw.V_HAND + t] = new
    S[v + vw.V_VISIBLE + t] += n
    S[v + vw.V_CODES + s] += d
    S[v + vw.V_N2] = S[O_N2 + seat]
    S[v + vw.V_N1] = S[O_N1 + seat]


@nb.njit(cache=True, inline="always")
def _show(S, t, n, except_seat):
    """n more copies of t become visible to every seat but one."""
    for s in range(4):
        if s != except_seat:
            S[_v(s) + vw.V_VISIBLE + t] += n


@nb.njit(cache=True, inline="always")
def _set_all(S, slot, value):
    for s in range(4):
        S[_v(s) + slot] = value


@nb.njit(cache=True, _nrt=False)
def next_active(S, seat):
    """The first seat after ``seat`` in turn order that is still playing (RULES.md: Tiles,
    seats, notation, turn order)."""
    for i in range(1, 4):
        s = (seat + i) % 4
        if S[O_OUT + s] == 0:
            return s
    return -1


@nb.njit(cache=True, _nrt=False)
def _active_count(S):
    return 4 - S[O_OUT] - S[O_OUT + 1] - S[O_OUT + 2] - S[O_OUT + 3]


@nb.njit(cache=True, inline="always")
def _must_void(S, seat):
    return S[O_VOIDCNT + seat] > 0


@nb.njit(cache=True, inline="always")
def _codes_without_void(S, seat):
    void = S[O_VOID + seat]
    c0 = S[O_CODES + seat * N_SUITS] if void != 0 else 0
    c1 = S[O_CODES + seat * N_SUITS + 1] if void != 1 else 0
    c2 = S[O_CODES + seat * N_SUITS + 2] if void != 2 else 0
    return c0, c1, c2


@nb.njit(cache=True, inline="always")
def _seat_wins(S, seat, extra):
    """Does the seat's concealed hand (plus tile ``extra`` if >= 0) win? Uses the incremental
    suit codes and pair slots; the engine keeps 14 - 3k tiles in such a hand."""
    void = S[O_VOID + seat]
    if (extra >= 0 and extra // N_RANKS == void) or S[O_VOIDCNT + seat] > 0:
        return False
    c0, c1, c2 = _codes_without_void(S, seat)
    n2 = S[O_N2 + seat]
    if extra >= 0:
        c0, c1, c2 = shift_code(c0, c1, c2, extra, ONE)
        n2, _ = moved_slots(n2, ZERO, S[O_HAND + seat * N_KINDS + extra], ONE)
    k = S[O_N_MELDS + seat]
    if regular_shanten_codes(_tab_ptr(S), c0, c1, c2, k) == -1:
        return True
    return k == 0 and n2 == 7


@nb.njit(cache=True, inline="always")
def _fast_shanten(S, seat):
    """The shanten (regular, and seven pairs without declared sets) of the seat's non-void
    tiles, from its suit codes and pair slots."""
    c0, c1, c2 = _codes_without_void(S, seat)
    k = S[O_N_MELDS + seat]
    sh = regular_shanten_codes(_tab_ptr(S), c0, c1, c2, k)
    if k == 0:
        sh = min(sh, seven_pairs_from_slots(S[O_N2 + seat], S[O_N1 + seat]))
    return sh


@nb.njit(cache=True, inline="always")
def _ready_hint(S, seat):
    """1 if the seat's 13 - 3k concealed tiles may be ready (fast shanten <= 0, no void tile),
    else 0; cached until its tiles change. Every hand that can win with one more tile passes,
    so unready seats skip the win tests on each discard and draw. A seat whose shanten bound
    is still 1 or more is not ready without looking: a draw and a discard lower the shanten
    by at most one, so a hand two from ready needs no table lookups on its next turn."""
    r = S[O_RDY + seat]
    if r < 0:
        r = 0
        if S[O_VOIDCNT + seat] == 0 and S[O_SH_LOW + seat] <= 0:
            sh = _fast_shanten(S, seat)
            S[O_SH_LOW + seat] = sh
            r = 1 if sh <= 0 else 0
        S[O_RDY + seat] = r
    return r


@nb.njit(cache=True, _nrt=False)
def _error(S, kind, seat, q, answer):
    if S[O_ERR] == ERR_NONE:
        S[O_ERR] = kind
        S[O_ERR + 1] = seat
        S[O_ERR + 2] = q
        S[O_ERR + 3] = answer


@nb.njit(cache=True, inline="always")
def _can_win_on(S, seat, t, ctx):
    """Could ``seat`` win with another seat's tile t (discard or robbed kong, win context
    ``ctx``)? Not under the passed-win lock, unless ``passed_win_higher`` and the win's fan is
    higher than every win it passed since its last draw (RULES.md: Rulings where the documents are silent)."""
    lock = S[O_PASSLOCK + seat]
    if lock and not _r(S, R_PASSED_WIN_HIGHER):
        return False
    if not (_ready_hint(S, seat) == 1 and _seat_wins(S, seat, t)):
        return False
    return lock == 0 or _fan_on(S, seat, t, ctx) > lock - 1


@nb.njit(cache=True, _nrt=False)
def _fan_on(S, seat, t, ctx):
    """The fan (before the cap; a limit hand: the cap) of ``seat`` winning on another seat's tile t."""
    o_h = O_HAND + seat * N_KINDS
    S[o_h + t] += 1
    fan = score_patterns(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + seat], S[O_N_MELDS + seat],
                         view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS), S[O_N_KONGS + seat], ctx,
                         view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
    S[o_h + t] -= 1
    return fan


@nb.njit(cache=True, _nrt=False)
def _recount(S, seat):
    """After changing a seat's concealed counts directly: what ``_add`` keeps (suit codes,
    seven-pairs slots over non-void kinds, void-tile count, four-of-a-kind mask, readiness
    hint) recomputed, and the seat's view brought along (its tiles, and visible by the change)."""
    v = _v(seat)
    h = O_HAND + seat * N_KINDS
    void = S[O_VOID + seat]
    n2 = 0
    n1 = 0
    nv = 0
    quads = I64(0)
    for s in range(N_SUITS):
        code = 0
        tiles = 0
        s2 = 0
        s1 = 0
        for t in range(N_RANKS * s + N_RANKS - 1, N_RANKS * s - 1, -1):
            c = S[h + t]
            code = code * 5 + c
            tiles += c
            s2 += slots2(c)
            s1 += c & 1
            quads |= I64(c == 4) << t
        if s == void:
            nv = tiles
        else:
            n2 += s2
            n1 += s1
        S[O_CODES + seat * N_SUITS + s] = code
        S[v + vw.V_CODES + s] = code
    for t in range(N_KINDS):
        c = S[h + t]
        S[v + vw.V_VISIBLE + t] += c - S[v + vw.V_HAND + t]
        S[v + vw.V_HAND + t] = c
    S[O_N2 + seat] = n2
    S[O_N1 + seat] = n1
    S[O_VOIDCNT + seat] = nv
    S[O_QUADS + seat] = quads
    S[O_RDY + seat] = -1
    S[O_SH_LOW + seat] = SH_UNKNOWN
    S[v + vw.V_N2] = n2
    S[v + vw.V_N1] = n1


@nb.njit(cache=True, inline="always")
def _find_pung(S, seat, t):
    for i in range(S[O_N_MELDS + seat]):
        if S[O_MELD_KIND + seat * 4 + i] == M_PUNG and S[O_MELD_TILE + seat * 4 + i] == t:
            return i
    return -1


@nb.njit(cache=True, inline="always")
def _no_void_shown(S, seat, allowed_rule):
    """A claim or kong that the rules allow only without void tiles (``allowed_rule`` off) shows
    every seat that ``seat`` holds none (view.py: V_VOID_CAP)."""
    if not _r(S, allowed_rule):
        _set_all(S, vw.V_VOID_CAP + seat, ZERO)


@nb.njit(cache=True, _nrt=False)
def _add_meld(S, seat, kind, t):
    i = S[O_N_MELDS + seat]
    S[O_MELD_KIND + seat * 4 + i] = kind
    S[O_MELD_TILE + seat * 4 + i] = t
    S[O_N_MELDS + seat] = i + 1
    S[O_SH_LOW + seat] = SH_UNKNOWN  # one more declared set
    S[O_MELD_CNT + seat * N_KINDS + t] += 3 if kind == M_PUNG else 4
    if kind != M_PUNG:
        S[O_N_KONGS + seat] += 1
    _no_void_shown(S, seat, R_KONG_WHILE_VOID if kind == M_KONG_CONCEALED else R_CLAIM_WHILE_VOID)
    for s in range(4):
        v = _v(s)
        S[v + vw.V_N_MELDS + seat] = i + 1
        S[v + vw.V_MELD_KIND + seat * 4 + i] = kind
        S[v + vw.V_MELD_TILE + seat * 4 + i] = t if (kind != M_KONG_CONCEALED or s == seat) else -1


@nb.njit(cache=True, inline="always")
def _three_won(S):
    if _r(S, R_FLOW):
        return False
    return S[O_OUT] + S[O_OUT + 1] + S[O_OUT + 2] + S[O_OUT + 3] >= 3


@nb.njit(cache=True, inline="always")
def _clear_winners(S):
    for i in range(4):
        S[O_WINNERS + i] = -1
