"""The expert player: it weighs speed against value with the rules in its view.

Each own turn it values the plans its hand can follow (plain, a full flush in its longest suit,
seven pairs, and all triplets when ``triplets_weight`` is set), each by an estimate of what it is
worth: the chance of winning in time (``_p_win``: the plan's shanten, its useful live tiles and
the draws left, Poisson), times what a win of that plan pays (``_payoff``: its fan with the
roots it holds, capped, from one discarder or, on a self-draw, from every liable seat with the
bonus), times the plan's weight (the flush weight is its own in blood flow, where wins repeat).
A useful live tile counts by the odds that it is in the wall rather than in an opponent's hand
(from the opponents' void suits and discards), and one it holds a pair of counts more for the
chance that an opponent discards it (``_suit_weights``). It follows the best plan: that plan's
most efficient discard (ties to the tile least likely to let an opponent win); kongs and pungs
only where they keep the plan's shanten (the fourth tile on a discard punged and added at once
where every liable seat's added-kong payment beats the discarder's exposed-kong payment,
``_add_later_pays``); a ready hand keeps the discard whose waits are worth most
(``_best_wait``: a wait of a suit the opponents void comes out on their discards); a discard win
is passed where a later self-draw pays more (``_pass_pays``; never in blood flow). Forced
void-suit discards go safest first. It folds (safest tile) only when it cannot get ready in
time, or, with ``deal_in_cost`` set, when the discard risks more than the plan is worth:
measured, folding earlier loses against every field (BENCHMARKS.md, the ladder), so
``deal_in_cost`` is 0 by default.
Every weight is a parameter (``sichuan strategies`` lists them); the defaults are the best of
duplicate sweeps against the efficient and flush fields (`sichuan ladder`, `sichuan compare`),
except ``flush_weight``: 7 rather than 4 (flat against those fields in battle and kawu) lifts it
above ``flush`` in kawu's mixed field, at about -0.03 against strong fields in chengdu and tfmj.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from simcore.contract.evaluate import moved_slots, seven_pairs_from_slots
from simcore.contract.nrt import nonneg
from simcore.contract.rules import R_ADDED_KONG_DRAWN_ONLY, R_FAN_ALL_TRIPLETS, R_FAN_CAP, R_FAN_FULL_FLUSH, R_FAN_ROOT, R_FAN_SEVEN_PAIRS, R_FLOW, R_KONG_PAY_ADDED, R_KONG_PAY_EXPOSED, R_KONG_WHILE_VOID, R_SELF_DRAW_BONUS
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, M_PUNG, Q_CLAIM, Q_ROB, Q_TURN, V_CAN_WIN, V_HAND, V_KONG_MASK, V_LOCKED, V_ME, V_MELD_KIND, V_MELD_TILE, V_MUST_VOID, V_N_MELDS, V_N_DISCARDS, V_DISC_SEQ, N_DISC_SEQ, V_AFTER_PUNG, V_CAN_PUNG, V_OUT, V_RULES, V_SCRATCH, V_TILE, V_VISIBLE, V_VOID, V_VOID_CAP, V_WALL_LEFT, V_WINS, discard_seat, discard_tile, param_float, param_int

from strategies.core import INF, NO_TILE, discard_shantens, isolation, live, live_draws, my_void, near_mask, plus_classes, prepare, shanten_minus, shanten_moved, suit_weight, ukeire_fast_weighted, ukeire_weighted
from strategies.params import Param, parameters
from strategies.value import VALUE_SCRATCH, WAIT_VALUES, wait_values, win_context, win_value
from strategies.play import DANGER_UNIT, _hopeless, claim_set, danger, seats_playing, suit_counts, threats, void_discard

# scratch: 0..53 the discard search's work (as choose_discard's), 54..62 the threat tracking of
# strategies.play (must start at zero), 63 the plan of the seat's latest turn, 64 one plus the
# tile of a pung claimed to add its fourth tile at once (0: none), 65 the discards read into
# 66..77, each seat's discards per suit [seat * N_SUITS + suit]
SCR_SHANTEN = np.int64(V_SCRATCH)
SCR_PLUS = np.int64(V_SCRATCH + N_KINDS)
SCR_PLAN = np.int64(V_SCRATCH + 63)
SCR_ADD = np.int64(V_SCRATCH + 64)
SCR_SUIT_READ = np.int64(V_SCRATCH + 65)
SCR_SUIT_DISC = np.int64(V_SCRATCH + 66)
ZEROED = 78
SCR_VALUE = np.int64(V_SCRATCH + ZEROED)               # the value helpers' work area
SCR_WAITS = np.int64(V_SCRATCH + ZEROED + VALUE_SCRATCH)  # wait_values' output
SCRATCH_USED = ZEROED + VALUE_SCRATCH + WAIT_VALUES   # the scratch slots it uses: a wrapper's own go after them

PLAN_PLAIN, PLAN_FLUSH, PLAN_PAIRS, PLAN_TRIPLETS = np.int64(0), np.int64(1), np.int64(2), np.int64(3)

PARAMS = (
    Param.float("pace", 1.5, 0.5, 4.0, "how much claims and others' discards speed a hand up over its own draws"),
    Param.float("flush_weight", 7.0, 0.0, 50.0, "weight of the full-flush plan's value against the plain plan's"),
    Param.float("pairs_weight", 1.0, 0.0, 4.0, "weight of the seven-pairs plan's value"),
    Param.float("decay", 0.1, 0.05, 1.0, "how much of a hand's useful tiles stay useful on its way to ready"),
    Param.float("stay_cost", 1.0, 0.0, 10.0, "what staying in the hand after passing a win costs, in points"),
    Param.float("pass_margin", 1.0, 0.0, 10.0, "a passed win's expected gain over winning now, in multiples of its value"),
    Param.int("kong_slack", 1, 0, 3, "how much a kong may raise the plan's shanten"),
    Param.int("pung_slack", 0, -2, 2, "pung when it leaves the plan's shanten at most this much higher (-2: never)"),
    Param.int("flush_min", 7, 5, 12, "the fewest tiles of one suit (hand and sets) that make a full flush a plan"),
    Param.float("flow_flush_weight", 10.0, 0.0, 50.0, "flush_weight in blood flow, where a ready hand wins again and again"),
    Param.int("flow_kong_slack", 0, 0, 3, "kong_slack in blood flow"),
    Param.float("flow_decay", 0.2, 0.05, 1.0, "decay in blood flow"),
    Param.float("triplets_weight", 0.0, 0.0, 50.0, "weight of the all-triplets plan's value (0: not a plan)"),
    Param.float("deal_in_cost", 0.0, 0.0, 50.0, "what letting an opponent win on a discard costs, in points (0: never fold)"),
    Param.float("suit_odds", 0.5, 0.0, 2.0, "how much a live tile counts by the odds that it is in the wall, not an opponent's hand (0: every live tile the same)"),
    Param.float("pung_odds", 0.75, 0.0, 2.0, "how much more a tile the seat holds a pair of counts, short of ready, for the chance an opponent discards it (0: no more)"),
)
(P_PACE, P_FLUSH_WEIGHT, P_PAIRS_WEIGHT, P_DECAY, P_STAY_COST, P_PASS_MARGIN, P_KONG_SLACK,
 P_PUNG_SLACK, P_FLUSH_MIN, P_FLOW_FLUSH_WEIGHT, P_FLOW_KONG_SLACK, P_FLOW_DECAY, P_TRIPLETS_WEIGHT, P_DEAL_IN_COST,
 P_SUIT_ODDS, P_PUNG_ODDS) = (np.int64(i) for i in range(len(PARAMS)))

SUIT_SPREAD = 2.0   # _suit_weights: an opponent's kept suits start even at this many discards
LETS_GO = 0.5   # _wait_worth: the chance an opponent discards a drawn tile of a suit it keeps (0 to 1: flat)
SELF_DRAW_SHARE = 0.33   # about a third of wins are self-drawn (the ladder's per-play statistics)
NO_IGNORE = np.int64(0)
WEIGHT_UNIT = 16   # a live tile as likely in the wall as the average one (_suit_weights)
ONE = np.int64(1)
THREE = np.int64(3)
FOUR = np.int64(4)


@nb.njit(cache=True, inline="always")
def _rule(view, r):
    return view[V_RULES + r]


@nb.njit(cache=True, _nrt=False)
def _roots(view):
    """Kinds the seat holds all four of, in hand and declared sets (a root each)."""
    me = nonneg(view[V_ME])
    n = 0
    for t in range(N_KINDS):
        c = view[V_HAND + t]
        for i in range(view[V_N_MELDS + me]):
            if view[V_MELD_TILE + me * 4 + i] == t:
                c += 3 if view[V_MELD_KIND + me * 4 + i] == M_PUNG else 4
        n += c == 4
    return n


@nb.njit(cache=True, _nrt=False)
def _win_worth(view, base, self_draw_base):
    """What a win pays on average: ``base`` from the discarder or, about a third of the time, a
    self-draw's base plus the bonus from every liable seat."""
    sd = SELF_DRAW_SHARE
    return (1.0 - sd) * base + sd * _liable(view) * (self_draw_base + _rule(view, R_SELF_DRAW_BONUS))


@nb.njit(cache=True, _nrt=False)
def _payoff(view, fan):
    """What a win of ``fan`` pays on average (``_win_worth``, the same base either way)."""
    base = 1 << min(fan, _rule(view, R_FAN_CAP))
    return _win_worth(view, base, base)


@nb.njit(cache=True, _nrt=False)
def _unseen(view):
    """Tiles this seat cannot see (in others' hands and the wall)."""
    n = 0
    for t in range(N_KINDS):
        n += 4 - view[V_VISIBLE + t]
    return n


@nb.njit(cache=True, inline="always")
def _sets_in(view, o, s):
    n = 0
    for i in range(view[V_N_MELDS + o]):
        t = view[V_MELD_TILE + o * 4 + i]
        n += t >= 0 and t // N_RANKS == s
    return n


@nb.njit(cache=True, _nrt=False)
def _suit_weights(view, odds, pung_odds):
    """Per-suit weights (``strategies.core.suit_weight``; ``WEIGHT_UNIT`` the average) of a live
    tile: how much likelier than the average live tile its copies are in the wall, where this
    seat may draw them, rather than in an opponent's concealed hand. An opponent still playing
    holds 13 - 3 x its sets concealed, at most ``V_VOID_CAP`` of them (2 while unknown) of its
    void suit, and splits the rest between its other two suits a and b as ``spread`` plus its
    discards of b plus three per set it declared in a against the same for b (``spread`` large:
    evenly); winners' hands are visible.
    ``odds`` scales the departure from the average (0: every live tile the same)."""
    me = view[V_ME]
    n_disc = min(view[V_N_DISCARDS], N_DISC_SEQ)
    for i in range(view[SCR_SUIT_READ], n_disc):
        x = view[V_DISC_SEQ + i]
        view[SCR_SUIT_DISC + discard_seat(x) * N_SUITS + discard_tile(x) // N_RANKS] += 1
    view[SCR_SUIT_READ] = n_disc
    u0 = u1 = u2 = 36
    for r in range(N_RANKS):
        u0 -= view[V_VISIBLE + r]
        u1 -= view[V_VISIBLE + N_RANKS + r]
        u2 -= view[V_VISIBLE + 2 * N_RANKS + r]
    h0 = h1 = h2 = 0.0
    flow = _rule(view, R_FLOW) != 0
    for o in range(4):
        if o == me or view[V_OUT + o] or (flow and view[V_WINS + o] > 0):
            continue
        n = 13.0 - 3.0 * view[V_N_MELDS + o]
        v = view[V_VOID + o]
        if v > 2:
            h0 += n / 3.0
            h1 += n / 3.0
            h2 += n / 3.0
            continue
        cap = view[V_VOID_CAP + o]
        in_void = min(float(cap), n) if cap >= 0 else min(2.0, n)
        # its kept suits a < b: the one it discards less of and declares sets in is the one it keeps
        a = 1 if v == 0 else 0
        b = 1 if v == 2 else 2
        ka = SUIT_SPREAD + view[SCR_SUIT_DISC + o * N_SUITS + b] + 3 * _sets_in(view, o, a)
        kb = SUIT_SPREAD + view[SCR_SUIT_DISC + o * N_SUITS + a] + 3 * _sets_in(view, o, b)
        ha = (n - in_void) * ka / (ka + kb)
        hb = (n - in_void) - ha
        h0 += in_void if v == 0 else ha  # suit 0 is a unless it is the void
        h1 += in_void if v == 1 else (ha if a == 1 else hb)
        h2 += in_void if v == 2 else hb  # suit 2 is b unless it is the void
    f0 = max(u0 - h0, 0.0)
    f1 = max(u1 - h1, 0.0)
    f2 = max(u2 - h2, 0.0)
    total = f0 + f1 + f2
    scale = (u0 + u1 + u2) / total if total > 0.0 else 1.0
    odds = odds if total > 0.0 else 0.0
    g0, g1, g2 = _lets_go(view)
    w0 = _weight(f0, u0, scale, odds)
    w1 = _weight(f1, u1, scale, odds)
    w2 = _weight(f2, u2, scale, odds)
    p0 = np.int64(w0 * (1.0 + pung_odds * g0) + 0.5)
    p1 = np.int64(w1 * (1.0 + pung_odds * g1) + 0.5)
    p2 = np.int64(w2 * (1.0 + pung_odds * g2) + 0.5)
    return w0 | (w1 << 16) | (w2 << 32), p0 | (p1 << 16) | (p2 << 32)


@nb.njit(cache=True, inline="always")
def _lets_go(view):
    """Per suit, the opponents still playing that would discard a tile of it they draw: one for
    each whose void suit it is, ``LETS_GO`` for each that keeps it."""
    me = view[V_ME]
    g0 = g1 = g2 = 0.0
    for o in range(4):
        if o != me and not view[V_OUT + o]:
            v = view[V_VOID + o]
            g0 += 1.0 if v == 0 else LETS_GO
            g1 += 1.0 if v == 1 else LETS_GO
            g2 += 1.0 if v == 2 else LETS_GO
    return g0, g1, g2


@nb.njit(cache=True, inline="always")
def _weight(f, u, scale, odds):
    """A suit's weight: its share of live copies in the wall, ``f / u``, against the average."""
    r = f * scale / u if u > 0 else 1.0
    return np.int64(min(max(1.0 + odds * (r - 1.0), 0.0), 4.0) * WEIGHT_UNIT + 0.5)


@nb.njit(cache=True, _nrt=False)
def _p_win(view, sh, acc, pace, decay):
    """The chance of winning in time from shanten ``sh`` with ``acc`` useful live tiles (in
    ``WEIGHT_UNIT``s: ``_suit_weights``): sh + 1
    steps are needed, and the seat's remaining draws (times ``pace`` for claims and wins on
    others' discards) each make one with the chance acc / unseen times ``decay`` (a hand
    nearer ready has fewer useful tiles): the chance of sh + 1 successes or more, Poisson."""
    if sh >= INF:
        return 0.0
    unseen = _unseen(view)
    playing = seats_playing(view)
    draws = (view[V_WALL_LEFT] + playing - 1) / playing
    if unseen <= 0 or draws <= 0:
        return 0.0
    lam = draws * pace * decay * acc / (unseen * WEIGHT_UNIT)
    term = math.exp(-lam)
    below = term
    for i in range(1, sh + 1):
        term *= lam / i
        below += term
    return max(0.0, 1.0 - below)


@nb.njit(cache=True, _nrt=False)
def _plan_discard(tab, view, st, deadly, ready, defend, worth, need, pace, decay, w, wp):
    """(tile, shanten after it, its useful live tiles weighted by ``w``, the bit set of discards
    reaching that shanten): the lowest shanten, then the most useful live tiles (a tile of an ignored suit
    keeps all of them), then the most isolated tile plus, when ``defend``, its danger; as
    ``strategies.play.choose_discard``. Tile -1 when even every live tile near the hand being
    useful would leave the plan worth (``worth`` times its chance) no more than ``need``."""
    ignore = st.ignore
    best_sh = discard_shantens(tab, view, st, SCR_SHANTEN)
    near = near_mask(view, st)
    draws = live_draws(view, near)
    if need >= 0.0:
        bound = 0
        for u in range(N_KINDS):
            bound += live(view, u) * suit_weight(wp, u // N_RANKS) if (draws >> u) & 1 and not (ignore >> (u // N_RANKS)) & 1 else 0
        if worth * _p_win(view, best_sh, bound, pace, decay) <= need:
            return np.int64(-1), best_sh, 0, np.int64(0)
    plus_classes(tab, view, st, draws, SCR_PLUS)
    junk_acc = -1
    best_t = -1
    best_acc = 0
    at_best = np.int64(0)
    best_hi = np.int64(1) << 62
    best_lo = np.int64(0)
    for t in range(N_KINDS):
        sh = view[SCR_SHANTEN + t]
        if sh != best_sh:
            continue
        at_best |= np.int64(1) << t
        if not (ignore >> (t // N_RANKS)) & 1:
            acc = ukeire_fast_weighted(tab, view, st, t, sh, draws, SCR_PLUS, w, wp if sh > 0 else w)
        else:
            if junk_acc < 0:
                junk_acc = ukeire_weighted(tab, view, st, np.int64(t), sh, near, w, wp if sh > 0 else w)
            acc = junk_acc
        hi = 4095 - min(acc, 4095)
        if hi <= best_hi:
            iso = isolation(view, t)
            if defend:
                iso += danger(view, t, deadly, ready) // DANGER_UNIT
            lo = iso * 32 + t
            if hi < best_hi or lo < best_lo:
                best_hi, best_lo, best_t, best_acc = hi, lo, t, acc
    return best_t, best_sh, best_acc, at_best


@nb.njit(cache=True, _nrt=False)
def _pairs_discard(view, void, worth, need, decay):
    """(tile, seven-pairs shanten after it, useful live tiles) for the seven-pairs plan: keep
    pairs, throw the single that has the fewest live copies to pair with (the void suit first).
    Useful: a live copy of each single kept. Tile -1 when the plan cannot be worth (``worth``
    times its chance) more than ``need``: no discard lowers the hand's seven-pairs shanten or
    adds more than one kind's live copies."""
    n2 = 0
    n1 = 0
    odd_live = 0   # live copies of the kinds held an odd number of times (each would pair)
    for t in range(N_KINDS):
        if t // N_RANKS != void:
            c = view[V_HAND + t]
            n2 += (c >= 2) + (c == 4)
            n1 += c & 1
            odd_live += live(view, t) if c & 1 else 0
    if worth * _p_win(view, seven_pairs_from_slots(n2, n1), (odd_live + 4) * WEIGHT_UNIT, 1.0, decay) <= need:
        return -1, INF, 0
    best_t = -1
    best_key = np.int64(1) << 62
    best_sh = INF
    best_acc = 0
    for t in range(N_KINDS):
        c = view[V_HAND + t]
        if c == 0:
            continue
        if t // N_RANKS == void:
            sh = seven_pairs_from_slots(n2, n1)
            acc = odd_live
        else:
            a, b = moved_slots(n2, n1, c, -1)
            sh = seven_pairs_from_slots(a, b)
            acc = odd_live + (live(view, t) if c & 1 == 0 else -live(view, t))
        key = (sh * 256 + 255 - min(acc, 255)) * 32 + (live(view, t) if c == 1 else 8)
        if key < best_key:
            best_key, best_t, best_sh, best_acc = key, t, sh, acc
    return best_t, best_sh, best_acc


@nb.njit(cache=True, _nrt=False)
def _triplets_discard(view, void):
    """(tile, all-triplets shanten after it, useful live tiles) for the all-triplets plan (every
    declared set is a pung or kong): 8 - 2 x triplets - pairs, at most 4 triplets and 5 blocks
    in all; it keeps pairs and triplets and throws the single with the fewest live copies (the
    void suit first), a pair's tile only when it has no single. Useful: a pair's third tile
    while triplets are missing (counted three times: any seat's discard brings it), a single's
    second while pairs are."""
    k = view[V_N_MELDS + nonneg(view[V_ME])]
    best_t = -1
    best_key = np.int64(1) << 62
    best_sh = INF
    best_acc = 0
    for t in range(N_KINDS):
        c = view[V_HAND + t]
        if c == 0:
            continue
        n3 = 0
        n2 = 0
        for u in range(N_KINDS):
            cu = view[V_HAND + u] - (u == t)
            if u // N_RANKS != void:
                n3 += cu >= 3
                n2 += cu == 2
        trip = min(n3, 4 - k)
        pairs = min(n2, 5 - k - trip)
        sh = 8 - 2 * (k + trip) - pairs
        acc = 0
        for u in range(N_KINDS):
            cu = view[V_HAND + u] - (u == t)
            if u // N_RANKS != void:
                if cu == 2 and trip < 4 - k:
                    acc += 3 * live(view, u)  # a pair's third comes on anyone's discard: three times as fast
                elif cu == 1 and trip + pairs < 5 - k:
                    acc += live(view, u)      # a single's second only on its own draw
        keep = 0 if t // N_RANKS == void else (c if c < 3 else 4)
        key = ((sh * 256 + 255 - min(acc, 255)) * 8 + keep) * 8 + (live(view, t) if c == 1 else 7)
        if key < best_key:
            best_key, best_t, best_sh, best_acc = key, t, sh, acc
    return best_t, best_sh, best_acc


@nb.njit(cache=True, _nrt=False)
def _flush_suit(view, void):
    """The suit of a possible full flush (the longest non-void suit holding every declared set)
    as an ignore mask for the others, or 0 when no flush is worth trying."""
    c0, c1, c2, sets = suit_counts(view)
    best = -1
    best_n = -1
    for s in range(N_SUITS):
        n = c0 if s == 0 else (c1 if s == 1 else c2)
        if s != void and n > best_n:
            best, best_n = s, n
    if best < 0 or sets & ~(1 << best) or best_n < param_int(view, P_FLUSH_MIN):
        return NO_IGNORE
    return np.int64(7 & ~(1 << best))


@nb.njit(cache=True, _nrt=False)
def _turn(tab, view):
    if view[V_CAN_WIN]:
        return A_WIN
    void = my_void(view)
    mask = view[V_KONG_MASK]
    if view[V_LOCKED]:
        return A_KONG + view[V_TILE] if mask else view[V_TILE]
    deadly, ready = threats(tab, view)
    add = view[SCR_ADD] - 1
    view[SCR_ADD] = 0
    if add >= 0 and view[V_AFTER_PUNG] and (mask >> add) & 1:
        return A_KONG + add  # the pung claimed instead of an exposed kong (_add_later_pays)
    if view[V_MUST_VOID] and not mask:
        return _safest_void(view, void, deadly, ready)
    pace = param_float(view, P_PACE)
    flow = _rule(view, R_FLOW) != 0
    flush_weight = param_float(view, P_FLOW_FLUSH_WEIGHT if flow else P_FLUSH_WEIGHT)
    pairs_weight = param_float(view, P_PAIRS_WEIGHT)
    decay = param_float(view, P_FLOW_DECAY if flow else P_DECAY)
    roots = _roots(view) * _rule(view, R_FAN_ROOT)
    w, wp = _suit_weights(view, param_float(view, P_SUIT_ODDS), param_float(view, P_PUNG_ODDS))
    # the plain plan
    st = prepare(tab, view, NO_IGNORE)
    defend = True
    t, sh, acc, ready_after = _plan_discard(tab, view, st, deadly, ready, defend, 1.0, -1.0, pace, decay, w, wp)
    best_ev = _p_win(view, sh, acc, pace, decay) * _payoff(view, roots)
    plan, best_t, best_sh, best_st = PLAN_PLAIN, t, sh, st
    # a full flush in the longest suit
    ignore = _flush_suit(view, void)
    if ignore:
        fst = prepare(tab, view, ignore)
        worth = flush_weight * _payoff(view, roots + _rule(view, R_FAN_FULL_FLUSH))
        ft, fsh, facc, fready = _plan_discard(tab, view, fst, deadly, ready, defend, worth, best_ev, pace, decay, w, wp)
        ev = worth * _p_win(view, fsh, facc, pace, decay)
        if ft >= 0 and ev > best_ev:
            plan, best_t, best_sh, best_st, best_ev = PLAN_FLUSH, ft, fsh, fst, ev
            ready_after = fready
    # seven pairs (closed hands only)
    if view[V_N_MELDS + nonneg(view[V_ME])] == 0 and pairs_weight > 0.0:
        worth = pairs_weight * _payoff(view, roots + _rule(view, R_FAN_SEVEN_PAIRS))
        pt, psh, pacc = _pairs_discard(view, void, worth, best_ev, decay)
        ev = worth * _p_win(view, psh, pacc * WEIGHT_UNIT, 1.0, decay)
        if pt >= 0 and ev > best_ev:
            plan, best_t, best_sh, best_st, best_ev = PLAN_PAIRS, pt, psh, st, ev
    # all triplets (its useful tiles weigh a pair's third three times: it comes on anyone's discard)
    triplets_weight = param_float(view, P_TRIPLETS_WEIGHT)
    if triplets_weight > 0.0:
        tt, tsh, tacc = _triplets_discard(view, void)
        ev = triplets_weight * _p_win(view, tsh, tacc * WEIGHT_UNIT, pace, decay) * _payoff(
            view, roots + _rule(view, R_FAN_ALL_TRIPLETS))
        if ev > best_ev:
            plan, best_t, best_sh, best_st, best_ev = PLAN_TRIPLETS, tt, tsh, st, ev
    view[SCR_PLAN] = plan
    if best_sh == 0 and not view[V_MUST_VOID]:
        # the discards leaving the hand ready: the plan's at shanten 0 (a seven-pairs or
        # triplets plan at 0 is ready too, but its other discards are not known: all are tried)
        cand = ready_after if plan == PLAN_PLAIN or plan == PLAN_FLUSH else np.int64((1 << N_KINDS) - 1)
        if cand & (cand - 1):  # two or more to choose from
            best_t = _best_wait(tab, view, best_t, deadly, ready, cand, w)
    if view[V_MUST_VOID]:
        best_t = _safest_void(view, void, deadly, ready)
    elif ready or deadly:
        # fold: when the plan's discard risks more than the plan is worth, or it cannot get ready
        risk = danger(view, best_t, deadly, ready) * 1e-6 * param_float(view, P_DEAL_IN_COST)
        if risk > best_ev or _hopeless(view, best_sh):
            best_t = _safest(view, void, deadly, ready)
    if mask and plan != PLAN_PAIRS:
        k = _kong_keeping(tab, view, best_st, best_sh + param_int(view, P_FLOW_KONG_SLACK if flow else P_KONG_SLACK), mask)
        if k >= 0:
            return A_KONG + k
    return best_t


@nb.njit(cache=True, _nrt=False)
def _wait_worth(view, mask, w):
    """What the waits wait_values left in SCR_WAITS are worth. A live copy is as likely in the
    wall as its suit's weight ``w`` says; from there this seat draws it (a self-draw every liable
    seat pays) or an opponent does and discards it (its base): surely if it is of the opponent's
    void suit, else with the chance ``LETS_GO``."""
    g0, g1, g2 = _lets_go(view)
    liable = _liable(view)
    bonus = _rule(view, R_SELF_DRAW_BONUS)
    worth = 0.0
    for u in range(N_KINDS):
        if (mask >> u) & 1:
            s = u // N_RANKS
            g = g0 if s == 0 else (g1 if s == 1 else g2)
            per_copy = liable * (view[SCR_WAITS + N_KINDS + u] + bonus) + g * view[SCR_WAITS + u]
            worth += view[SCR_WAITS + 2 * N_KINDS + u] * suit_weight(w, s) * per_copy
    return worth / (seats_playing(view) * WEIGHT_UNIT)


@nb.njit(cache=True, _nrt=False)
def _best_wait(tab, view, fallback, deadly, ready, cand, w):
    """Of the discards in ``cand`` that leave the hand ready, the one whose waits are worth most
    (ties: the safer tile); ``fallback`` when none does."""
    best_t = fallback
    best = -1.0
    for t in range(N_KINDS):
        if view[V_HAND + t] == 0 or not (cand >> t) & 1:
            continue
        mask, _ = wait_values(tab, view, np.int64(t), SCR_VALUE, SCR_WAITS)
        if mask == 0:
            continue
        worth = _wait_worth(view, mask, w) - 0.01 * danger(view, t, deadly, ready) / DANGER_UNIT
        if worth > best:
            best, best_t = worth, t
    return best_t


@nb.njit(cache=True, _nrt=False)
def _safest_void(view, void, deadly, ready):
    """The void-suit tile least likely to let an opponent win (ties: the most isolated)."""
    best_t = void_discard(view)
    best = np.int64(1) << 62
    for r in range(N_RANKS):
        t = void * N_RANKS + r
        if view[V_HAND + t] > 0:
            key = danger(view, t, deadly, ready) * 64 + isolation(view, t)
            if key < best:
                best, best_t = key, t
    return best_t


@nb.njit(cache=True, _nrt=False)
def _safest(view, void, deadly, ready):
    """The held tile least likely to let an opponent win (folding)."""
    best_t = -1
    best = np.int64(1) << 62
    for t in range(N_KINDS):
        if view[V_HAND + t] > 0:
            key = danger(view, t, deadly, ready) * 64 + isolation(view, t)
            if key < best:
                best, best_t = key, t
    return best_t


@nb.njit(cache=True, _nrt=False)
def _kong_keeping(tab, view, st, best_sh, mask):
    """A kong from the mask that keeps the plan's shanten (in the plan's suits), or -1."""
    me = nonneg(view[V_ME])
    for t in range(N_KINDS):
        if not (mask >> t) & 1 or (st.ignore >> (t // N_RANKS)) & 1:
            continue
        added = False
        for i in range(view[V_N_MELDS + me]):
            added = added or (view[V_MELD_KIND + me * 4 + i] == M_PUNG and view[V_MELD_TILE + me * 4 + i] == t)
        sh = shanten_moved(tab, view, st, np.int64(t), NO_TILE) if added else shanten_minus(tab, view, st,
                                                                                            np.int64(t), FOUR, ONE)
        if sh <= best_sh:
            return t
    return -1


@nb.njit(cache=True, _nrt=False)
def _liable(view):
    """The seats that would pay this seat's self-draw."""
    if _rule(view, R_FLOW):
        return 3
    return seats_playing(view) - (view[V_OUT + view[V_ME]] == 0)


@nb.njit(cache=True, _nrt=False)
def _pass_pays(tab, view):
    """Does passing a win on this discard pay? Winning now takes the discard's base. Passing
    keeps the hand: some later tile (any seat's draw or discard, each a wait with the chance
    live waits / unseen) wins it, a self-draw (its own draw: one in ``playing``) paid with the
    bonus by every liable seat, otherwise a discard worth about today's; staying costs
    ``stay_cost`` points (what the others' wins take meanwhile). It passes when that beats
    winning now by ``pass_margin`` times the win's value. Never in blood flow, where a locked
    winner keeps winning on the same waits."""
    if _rule(view, R_FLOW):
        return False
    t = nonneg(view[V_TILE])
    _, now = win_value(tab, view, t, win_context(view, False), SCR_VALUE)
    mask, waits_live = wait_values(tab, view, NO_TILE, SCR_VALUE, SCR_WAITS)
    if mask == 0 or waits_live == 0:
        return False
    unseen = _unseen(view)
    playing = seats_playing(view)
    sd_value = 0.0
    for u in range(N_KINDS):
        if (mask >> u) & 1:
            sd_value += view[SCR_WAITS + 2 * N_KINDS + u] * view[SCR_WAITS + N_KINDS + u]
    sd_value /= waits_live  # the mean self-draw base over the live waits
    # every wall tile is drawn by someone and, unless it wins, discarded
    p_win = 1.0 - math.pow(max(0.0, 1.0 - waits_live / max(unseen, 1)), view[V_WALL_LEFT])
    share_self = 1.0 / playing
    later = share_self * _liable(view) * (sd_value + _rule(view, R_SELF_DRAW_BONUS)) + (1.0 - share_self) * now
    gain = p_win * later - param_float(view, P_STAY_COST)
    return gain > now * param_float(view, P_PASS_MARGIN)


@nb.njit(cache=True, _nrt=False)
def _claim(tab, view):
    if view[V_CAN_WIN]:
        return C_PASS if _pass_pays(tab, view) else C_WIN
    plan = view[SCR_PLAN]
    if plan == PLAN_PAIRS:
        return C_PASS
    ignore = _flush_suit(view, my_void(view)) if plan == PLAN_FLUSH else NO_IGNORE
    c = claim_set(tab, view, ignore, param_int(view, P_PUNG_SLACK))
    if c == C_KONG and _add_later_pays(view):
        view[SCR_ADD] = 1 + view[V_TILE]
        return C_PUNG
    return c


@nb.njit(cache=True, _nrt=False)
def _add_later_pays(view):
    """Does a pung with the fourth tile added at once (RULES.md: Rulings where the documents are
    silent: a seat that has just punged may declare an added kong before its discard) pay more
    than the exposed kong on the discard? The added kong is paid by every liable seat, the
    exposed one by the discarder alone; the same replacement draw follows either way."""
    if not view[V_CAN_PUNG] or _rule(view, R_ADDED_KONG_DRAWN_ONLY):
        return False
    if view[V_MUST_VOID] and not _rule(view, R_KONG_WHILE_VOID):
        return False  # a pung may be claimed holding void tiles (claim_while_void), an added kong not
    return _liable(view) * _rule(view, R_KONG_PAY_ADDED) > _rule(view, R_KONG_PAY_EXPOSED)


@parameters(*PARAMS, scratch=ZEROED)
@nb.njit(cache=True, _nrt=False)
def expert(q, view, tab):
    """Weighs speed against value with the rules in its view: plans (plain, full flush, seven pairs) by what each is worth, keeps the waits worth most, claims what serves its plan, passes a discard win where a self-draw pays more."""
    if q == Q_TURN:
        return _turn(tab, view)
    if q == Q_CLAIM:
        return _claim(tab, view)
    return C_WIN if q == Q_ROB else 0
