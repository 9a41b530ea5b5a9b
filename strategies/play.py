"""Play strategies: answers to Q_TURN, Q_CLAIM and Q_ROB.

The ladder, from weakest: ``random`` (a uniformly random legal answer), ``greedy`` (lowest
shanten), ``efficient`` (lowest shanten, then the most live tiles that lower it), ``flush``
(efficient, but with one long suit it plays for a full flush), ``defensive`` (efficient, but
among discards as good for its hand it throws the one least likely to let an opponent who
looks ready win, and folds once its hand cannot get ready). All always win when they can.

They share one discard chooser, ``choose_discard``, whose ``mode`` selects the tie-breaks; the
hand evaluation itself is ``strategies.core``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.evaluate import waits_mask
from simcore.contract.nrt import nonneg
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, M_KONG_CONCEALED, M_PUNG, N_DISC_SEQ, Q_CLAIM, Q_ROB, Q_TURN, V_CAN_KONG, V_CAN_PUNG, V_CAN_WIN, V_DISC_SEQ, V_FLOW, V_HAND, V_KONG_MASK, V_LOCKED, V_MELD_KIND, V_MELD_TILE, V_ME, V_MUST_VOID, V_N_DISCARDS, V_N_MELDS, V_OUT, V_REVEALED, V_SCRATCH, V_TILE, V_VISIBLE, V_VOID, V_WALL_LEFT, V_WINS, discard_seat, discard_tile, rand_below

from strategies.core import INF, NO_KEY, NO_TILE, add_tiles, code_and_rest, discard_shantens, final_shanten, isolation, isolation_at, klass, live_draws, lowest_shanten_discard, my_void, near_mask, plus_classes, prepare, shanten_minus, shanten_moved, shanten_of, ukeire, ukeire_fast
from strategies.params import parameters

GREEDY, EFFICIENT, DEFENSIVE = np.int64(0), np.int64(1), np.int64(2)
SCR_SHANTEN = np.int64(V_SCRATCH)     # choose_discard: shanten after discarding t
SCR_PLUS = np.int64(V_SCRATCH + N_KINDS)   # choose_discard: a draw's suit class with the draw
NO_IGNORE = np.int64(0)
ZERO = np.int64(0)
ONE = np.int64(1)
THREE = np.int64(3)
FOUR = np.int64(4)


@nb.njit(cache=True, inline="always")
def _may_discard(view, t, void):
    if view[V_HAND + t] == 0:
        return False
    if view[V_MUST_VOID] and t // N_RANKS != void:
        return False
    return True


# -- danger (defensive) -----------------------------------------------------------------------
#
# How likely a discard is to let an opponent win: the sum over opponents still playing of
# P(it is ready) x P(the tile is one of its waits | ready), in millionths. Both tables were
# measured on play against greedy seats (battle, efficient at the fourth seat): ready
# probability by wall tiles left (in eights) and declared sets, lower while the opponent's
# latest discard was of its void suit (it may still hold void tiles); wait probability by how
# many copies this seat can see and the rank's distance from the edge (middle tiles and
# unseen ones are waited on most). A tile the opponent discarded itself is ten times less
# likely (1%); its void suit, and tiles let go by since its latest discard (its hand has not
# changed and players win when they can), are safe from it. A locked blood-flow winner's waits
# are known: those are deadly, the rest safe from it.

# P(ready) per mille, [wall_left // 8][declared sets 0..3]; four declared sets: 1000
READY_UNCLEARED = (683, 752, 813, 921, 518, 663, 756, 882, 370, 543, 710, 849, 200, 446, 606, 799,
                   89, 333, 519, 799, 30, 212, 421, 689, 8, 109, 217, 750)
READY_CLEARED = (731, 786, 874, 933, 619, 722, 823, 910, 504, 619, 752, 891, 389, 519, 688, 863,
                 298, 418, 608, 798, 211, 318, 516, 778, 120, 194, 405, 725)
# P(a wait | ready) per mille, [copies seen 1..4][distance from the edge 0..4]
WAIT_ODDS = (101, 124, 165, 142, 156, 63, 89, 135, 110, 130, 33, 52, 108, 81, 98, 35, 67, 109, 107, 111)
WAIT_ODDS_DISCARDED = 10
DEADLY = 1_000_000
DANGER_UNIT = 12_500   # one isolation unit of the tie-break per 1.25% chance of dealing in
# scratch kept across the hand's turns (V_SCRATCH + 54 .. + 62), updated from the discards
# not read yet: [seat] tiles the seat discarded (bits 0-26) and 1 + its latest discard (bits
# 32+); [seat] tiles others discarded since that latest discard
SCR_SEEN = np.int64(V_SCRATCH + 54)
SCR_DISC = np.int64(V_SCRATCH + 55)
SCR_SINCE = np.int64(V_SCRATCH + 59)
TILE_BITS = np.int64(0x7FFFFFF)


@nb.njit(cache=True, _nrt=False)
def _read_discards(view):
    """Brings the per-seat discard masks in the scratch area up to date."""
    n = min(view[V_N_DISCARDS], N_DISC_SEQ)
    for i in range(view[SCR_SEEN], n):
        x = view[V_DISC_SEQ + i]
        s = discard_seat(x)
        t = discard_tile(x)
        bit = np.int64(1) << t
        for o in range(4):
            view[SCR_SINCE + o] |= bit
        view[SCR_SINCE + s] = 0
        view[SCR_DISC + s] = (view[SCR_DISC + s] & TILE_BITS) | bit | (np.int64(t + 1) << 32)
    view[SCR_SEEN] = n


@nb.njit(cache=True, _nrt=False)
def _known_waits(tab, view, o):
    """Waits of a locked blood-flow winner, whose concealed tiles are revealed (RULES.md)."""
    base = V_SCRATCH
    for t in range(N_KINDS):
        view[base + t] = view[V_REVEALED + o * N_KINDS + t]
        view[base + N_KINDS + t] = 0
    k = view[V_N_MELDS + o]
    for i in range(k):
        t = view[V_MELD_TILE + o * 4 + i]
        if t >= 0:
            view[base + N_KINDS + t] += 3 if view[V_MELD_KIND + o * 4 + i] == M_PUNG else 4
    return waits_mask(tab, view[base:base + N_KINDS], view[V_VOID + o], k, view[base + N_KINDS:base + 2 * N_KINDS])


@nb.njit(cache=True, _nrt=False)
def threats(tab, view):
    """(deadly, ready): the known waits of locked blood-flow winners (a bit set) and each
    opponent's P(ready) per mille (16 bits a seat; 0 for itself, seats out and locked winners)."""
    _read_discards(view)
    me = view[V_ME]
    wb = min(view[V_WALL_LEFT] // 8, 6)
    deadly = np.int64(0)
    ready = np.int64(0)
    for o in range(4):
        if o == me or view[V_OUT + o]:
            continue
        if view[V_FLOW] == 1 and view[V_WINS + o] > 0:
            deadly |= _known_waits(tab, view, o)
            continue
        last = (view[SCR_DISC + o] >> 32) - 1
        k = view[V_N_MELDS + o]
        if k >= 4:
            pr = 1000
        elif last >= 0 and last // N_RANKS != view[V_VOID + o]:
            pr = READY_CLEARED[wb * 4 + k]
        else:
            pr = READY_UNCLEARED[wb * 4 + k]
        ready |= np.int64(pr) << (16 * o)
    return deadly, ready


@nb.njit(cache=True, _nrt=False)
def danger(view, t, deadly, ready):
    """Millionths: the chance that discarding t lets an opponent win (``DEADLY`` for a locked
    winner's known wait)."""
    if (deadly >> t) & 1:
        return DEADLY
    seen = min(max(view[V_VISIBLE + t], 1), 4)
    r = t % N_RANKS
    odds = WAIT_ODDS[(seen - 1) * 5 + min(r, N_RANKS - 1 - r)]
    total = 0
    for o in range(4):
        pr = (ready >> (16 * o)) & 0xFFFF
        if pr == 0 or view[V_VOID + o] == t // N_RANKS or (view[SCR_SINCE + o] >> t) & 1:
            continue
        total += pr * (WAIT_ODDS_DISCARDED if (view[SCR_DISC + o] >> t) & 1 else odds)
    return total


@nb.njit(cache=True, inline="always")
def seats_playing(view):
    """Seats still in the hand (a blood-battle winner has left it)."""
    n = 0
    for o in range(4):
        n += view[V_OUT + o] == 0
    return n


@nb.njit(cache=True, inline="always")
def _hopeless(view, best_sh):
    """Two or more from ready with fewer draws left than that (wall tiles shared by the seats
    still playing): the hand cannot get ready, so the seat only plays safe."""
    if best_sh < 2:
        return False
    playing = seats_playing(view)
    return best_sh > (view[V_WALL_LEFT] + playing - 1) // playing


# -- discards ---------------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def void_discard(view):
    """While holding void tiles (no part of any target): the most isolated one, then the
    lowest. Branch-free, as ``lowest_shanten_discard``."""
    void = my_void(view)
    best = NO_KEY
    for r in range(N_RANKS):
        t = void * N_RANKS + r
        key = (isolation_at(view, t, r) << 5) | r
        best = min(best, key if view[V_HAND + t] > 0 else NO_KEY)
    return void * N_RANKS + (best & 31) if best != NO_KEY else NO_TILE


@nb.njit(cache=True, _nrt=False)
def choose_discard(tab, view, st, mode):
    """(tile, shanten after discarding it). Lowest shanten first; ``EFFICIENT`` and ``DEFENSIVE``
    then prefer the most live tiles that lower it (a tile of an ignored suit, the flush player's
    junk, keeps all of them); last, the most isolated tile and the lowest index. ``DEFENSIVE`` never throws a locked winner's known wait when a tile as good avoids
    it, adds each tile's ``danger`` to its isolation (so among discards equally good for its
    hand it throws the one least likely to let an opponent win), and once its hand is
    ``_hopeless`` puts the safest tiles first."""
    if view[V_LOCKED]:
        return view[V_TILE], INF
    if view[V_MUST_VOID]:
        return void_discard(view), shanten_of(tab, st)
    if mode == GREEDY:
        return lowest_shanten_discard(tab, view, st)  # the order below, in one pass
    deadly = np.int64(0)
    ready = np.int64(0)
    if mode == DEFENSIVE:
        deadly, ready = threats(tab, view)  # before the scratch slots below are written
    ignore = st.ignore
    # pass 1: shanten per candidate (kept in the scratch area); off-target tiles cost nothing
    best_sh = discard_shantens(tab, view, st, SCR_SHANTEN)
    fold = mode == DEFENSIVE and _hopeless(view, best_sh)
    # the draws that count for ukeire, and their suits' classes with the draw added
    near = near_mask(view, st)
    draws = live_draws(view, near)
    plus_classes(tab, view, st, draws, SCR_PLUS)
    junk_acc = -1  # the ukeire of discarding a tile of an ignored suit (the same for all of them)
    # the lowest key (head, 255 - min(acc, 255), isolation [+ danger], t), its last two parts
    # only computed for a tie on the first two
    best_t = -1
    best_hi = np.int64(1) << 62
    best_lo = np.int64(0)
    for t in range(N_KINDS):
        sh = view[SCR_SHANTEN + t]
        if sh == INF:
            continue
        if fold:
            head = danger(view, t, deadly, ready) * 16 + sh
        else:
            if sh > best_sh:
                continue
            head = sh + (16 if (deadly >> t) & 1 else 0)
        acc = 0
        if sh == best_sh:
            if not (ignore >> (t // N_RANKS)) & 1:
                acc = ukeire_fast(tab, view, st, t, sh, draws, SCR_PLUS)
            else:  # an ignored suit's tile: without it the target suits keep every useful draw
                if junk_acc < 0:
                    junk_acc = ukeire(tab, view, st, np.int64(t), sh, near)
                acc = junk_acc
        hi = head * 256 + (255 - min(acc, 255))
        if hi <= best_hi:
            iso = isolation(view, t)
            if mode == DEFENSIVE and not fold:
                iso += danger(view, t, deadly, ready) // DANGER_UNIT
            lo = iso * 32 + t
            if hi < best_hi or lo < best_lo:
                best_hi = hi
                best_lo = lo
                best_t = t
    return best_t, view[SCR_SHANTEN + best_t]


@nb.njit(cache=True, _nrt=False)
def _has_pung(view, t):
    seat = view[V_ME]
    for i in range(view[V_N_MELDS + seat]):
        if view[V_MELD_KIND + seat * 4 + i] == M_PUNG and view[V_MELD_TILE + seat * 4 + i] == t:
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def choose_kong(tab, view, st, best_sh):
    """A kong from the mask that does not raise shanten above ``best_sh`` (a locked seat's
    allowed kong always), or -1."""
    mask = view[V_KONG_MASK]
    if mask == 0:
        return -1
    ignore = st.ignore
    for t in range(N_KINDS):
        if not (mask >> t) & 1:
            continue
        if view[V_LOCKED]:
            return t
        if (ignore >> (t // N_RANKS)) & 1:
            continue
        if _has_pung(view, t):
            sh = shanten_moved(tab, view, st, np.int64(t), NO_TILE)
        else:
            sh = shanten_minus(tab, view, st, np.int64(t), FOUR, ONE)
        if sh <= best_sh:
            return t
    return -1


@nb.njit(cache=True, inline="always")
def turn(tab, view, mode, ignore):
    """Win; else the discard of ``choose_discard``, or a kong that keeps its shanten. Inlined
    into each player, so the greedy one evaluates its whole turn in one function."""
    if view[V_CAN_WIN]:
        return A_WIN
    forced = view[V_LOCKED] or view[V_MUST_VOID]
    if forced and not view[V_KONG_MASK]:
        # choose_discard's forced discards, without evaluating the hand (no kong to weigh)
        return view[V_TILE] if view[V_LOCKED] else void_discard(view)
    st = prepare(tab, view, ignore)
    if mode == GREEDY and not forced:
        t, sh = lowest_shanten_discard(tab, view, st)
    else:
        t, sh = choose_discard(tab, view, st, mode)
    if view[V_KONG_MASK]:
        k = choose_kong(tab, view, st, sh)
        if k >= 0:
            return A_KONG + k
    return t


@nb.njit(cache=True, _nrt=False)
def shanten_after_pung(tab, view, st, t, enough):
    """Best shanten after punging t and discarding one tile (void tiles first); stops at the
    first discard reaching ``enough`` or lower (the caller asks only whether one does)."""
    void = my_void(view)
    k, ignore = st.k, st.ignore
    c0, c1, c2, a0, a1, a2 = add_tiles(tab, st, t, -2)
    # per suit, as shanten_minus(tab, view, after, x, ONE, ZERO) over the legal discards x
    best = INF
    must_void = view[V_MUST_VOID]
    for sx in range(N_SUITS):
        if must_void and sx != void:
            continue
        code, pc = code_and_rest(tab, c0, c1, c2, a0, a1, a2, sx)
        off_target = (ignore >> sx) & 1
        own = a0 if sx == 0 else (a1 if sx == 1 else a2)
        d = 1
        for x in range(N_RANKS * sx, N_RANKS * sx + N_RANKS):
            left = view[V_HAND + x] - (2 if x == t else 0)
            if left > 0:
                cls = own if off_target else klass(tab, code - d)
                sh = final_shanten(tab, pc, cls, k + 1)
                if sh < best:
                    best = sh
                    if best <= enough:
                        return best
            d *= 5
    return best


@nb.njit(cache=True, _nrt=False)
def claim(tab, view, ignore):
    """Win; else kong or pung when it does not raise shanten (only in the target suits); else pass."""
    if view[V_CAN_WIN]:
        return C_WIN
    return claim_set(tab, view, ignore, ZERO)


@nb.njit(cache=True, _nrt=False)
def claim_set(tab, view, ignore, slack):
    """Kong when it does not raise shanten, pung when it leaves shanten at most ``slack``
    higher (only in the target suits; slack -2: never pung); else pass."""
    t = nonneg(view[V_TILE])
    st = prepare(tab, view, ignore)
    if (st.ignore >> (t // N_RANKS)) & 1:
        return C_PASS
    now = shanten_of(tab, st)
    if view[V_CAN_KONG] and shanten_minus(tab, view, st, t, THREE, ONE) <= now:
        return C_KONG
    if view[V_CAN_PUNG] and slack > -2 and shanten_after_pung(tab, view, st, t, now + slack) <= now + slack:
        return C_PUNG
    return C_PASS


@nb.njit(cache=True, _nrt=False)
def suit_counts(view):
    """Tiles of each suit in the seat's hand and declared sets, and the bit set of suits its
    declared sets are in."""
    me = nonneg(view[V_ME])
    c0 = c1 = c2 = 0
    for t in range(N_KINDS):
        c = view[V_HAND + t]
        if t < N_RANKS:
            c0 += c
        elif t < 2 * N_RANKS:
            c1 += c
        else:
            c2 += c
    sets = 0
    for i in range(view[V_N_MELDS + me]):
        s = nonneg(view[V_MELD_TILE + me * 4 + i]) // N_RANKS
        sets |= 1 << s
        if s == 0:
            c0 += 3
        elif s == 1:
            c1 += 3
        else:
            c2 += 3
    return c0, c1, c2, sets


@nb.njit(cache=True, _nrt=False)
def flush_suits_to_ignore(view):
    """With one long suit (8+ tiles counting declared sets, all sets in it, the other
    non-void suit at most 4 tiles), the other suits are ignored: play for a full flush."""
    void = my_void(view)
    cnt0, cnt1, cnt2, meld_suits = suit_counts(view)
    counts = (cnt0, cnt1, cnt2)
    best = -1
    for s in range(N_SUITS):
        if s != void and (best < 0 or counts[s] > counts[best]):
            best = s
    other = 0
    for s in range(N_SUITS):
        if s != void and s != best:
            other += counts[s]
    if counts[best] >= 8 and other <= 4 and meld_suits & ~(1 << best) == 0:
        return np.int64(7 & ~(1 << best))
    return NO_IGNORE


@nb.njit(cache=True, _nrt=False, inline="always")
def answer(q, view, tab, mode, ignore):
    """The shanten players' answer: the turn by ``mode`` (GREEDY, EFFICIENT, DEFENSIVE), claims by
    shanten, always rob; ``ignore`` (a mask of suits) for a flush. Inlined where it is called, so
    each player's ``mode`` is a constant there again (measured: called, greedy lost 5-13%)."""
    if q == Q_TURN:
        return turn(tab, view, mode, ignore)
    if q == Q_CLAIM:
        return claim(tab, view, ignore)
    return C_WIN if q == Q_ROB else 0


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def greedy(q, view, tab):
    """Lowest shanten, deterministic ties, always wins when it can."""
    return answer(q, view, tab, GREEDY, NO_IGNORE)


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def efficient(q, view, tab):
    """Lowest shanten, then the most live tiles that lower it (counting what is visible)."""
    return answer(q, view, tab, EFFICIENT, NO_IGNORE)


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def flush(q, view, tab):
    """Efficient, but with one long suit it keeps only that suit: goes for a full flush."""
    return answer(q, view, tab, EFFICIENT, flush_suits_to_ignore(view) if q != Q_ROB else NO_IGNORE)


@parameters(scratch=63)
@nb.njit(cache=True, _nrt=False)
def defensive(q, view, tab):
    """Efficient, but among discards as good for its hand the one least likely to let an opponent who looks ready win; folds when its hand cannot get ready."""
    return answer(q, view, tab, DEFENSIVE, NO_IGNORE)


@parameters(scratch=0)
@nb.njit(cache=True, _nrt=False)
def random_play(q, view, tab):
    """A uniformly random legal answer."""
    if q == Q_TURN:
        void = my_void(view)
        n = 0
        if view[V_CAN_WIN]:
            n += 1
        mask = view[V_KONG_MASK]
        for t in range(N_KINDS):
            if (mask >> t) & 1:
                n += 1
        if view[V_LOCKED]:
            n += 1
        else:
            for t in range(N_KINDS):
                if _may_discard(view, t, void):
                    n += 1
        pick = rand_below(view, n)
        if view[V_CAN_WIN]:
            if pick == 0:
                return A_WIN
            pick -= 1
        for t in range(N_KINDS):
            if (mask >> t) & 1:
                if pick == 0:
                    return A_KONG + t
                pick -= 1
        if view[V_LOCKED]:
            return view[V_TILE]
        for t in range(N_KINDS):
            if _may_discard(view, t, void):
                if pick == 0:
                    return t
                pick -= 1
        return -1
    if q == Q_CLAIM or q == Q_ROB:
        n = 1 + view[V_CAN_WIN] + view[V_CAN_PUNG] + view[V_CAN_KONG]
        pick = rand_below(view, n)
        if pick == 0:
            return C_PASS
        pick -= 1
        if view[V_CAN_WIN]:
            if pick == 0:
                return C_WIN
            pick -= 1
        if view[V_CAN_PUNG]:
            if pick == 0:
                return C_PUNG
            pick -= 1
        return C_KONG
    return 0
