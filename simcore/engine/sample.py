"""Sampled tables: full engine states consistent with everything one seat has seen, built from its
view alone, never from the hidden state (ARCHITECTURE.md: Search).

What is exact:
- the unseen tiles: 108 minus what the view shows (own tiles and sets, every discard pile, exposed
  sets, winners' revealed hands, set-aside winning tiles);
- each opponent's concealed tile count and the wall's count (public);
- the tiles the seat passed in the exchange are in the receiver's hand, except as many of each
  kind as the receiver has since discarded or could have put into its declared sets;
- the void caps (``simcore.contract.view.V_VOID_CAP``): an opponent that discarded outside its void suit,
  claimed a pung or declared a kong (unless the rules allow that while holding void tiles) held no
  void tile then; since, it holds at most one more per draw, one fewer per void tile discarded;
- at an added kong (a robbing question), the kong's tile is in the adder's hand;
- another seat's concealed kong is four of one unseen kind outside that seat's void suit (the
  tiles this seat passed to it count as unseen for its kongs, and a blood-flow winner's kong
  declared after its win may take the copies of its revealed hand);
- public facts the engine keeps in every view: draws, kong payments, the current turn's kong
  income and feeder, a claim's kong-discard context.

What is approximated:
- "uniformly among the arrangements": the unseen tiles are shuffled uniformly; when a hand is
  over its void cap, the fewest tiles the counts allow are dealt again (``_repair``), and then a
  chain of random swaps between holders, each kept only when every cap still holds, mixes the
  arrangement towards uniform over those that respect the caps (a Metropolis chain with a symmetric
  proposal: its stationary law is uniform on the allowed arrangements);
- with a shape weight (``WK_SHAPE``, the search's ``shape`` parameter; 0 in the tests of the
  uniform law) the chain targets arrangements weighted by exp(-shape * the opponents' summed
  shanten) instead, once play has begun (at the exchange and the void choice the hands are as
  dealt, and uniform): the opponents' hands were built by play, not dealt, and uniform deals make
  them far weaker than real ones (measured in battle at the same points of expert play: real
  opponents 1.9, 0.9, 0.4 shanten with 0-3, 4-7, 8-11 draws; uniform samples 3.5, 2.0, 1.5;
  shape 2: 1.7, 0.9, 0.6). It is a heuristic, not the law of the opponents' hands given their
  play;
- a concealed kong's kind is uniform among the kinds that fit and leave the caps satisfiable
  (drawn again, up to KONG_TRIES times, when they do not), not weighted by how many
  arrangements of the rest each leaves;
- what is private to an opponent is neutral: no passed-win lock, empty scratch (the seat's own
  scratch is kept: a searching seat asks its rollout policy on its own view, so that scratch is
  the policy's), and its exchange (the tiles it passed other than to this seat) unknown in its
  view (-1); the seat's own passed-win lock is not in its view either and is taken as none;
- discards and set-aside winning tiles are all counted as piled (the engine needs only their
  sum, and a claimed discard in the pile).

A sampled state resumes at the question being asked (``simcore.engine.hand.play_on``), with the seat's
answer given by a one-entry script (``set_answer``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.engine.hand import play_on
from simcore.engine.kernel import _FNS, _set_arenas
from simcore.engine.legal import pose as pose_state
from simcore.engine.state import (
    AT_ASK, AT_CLAIMS, AT_EXCHANGE, AT_VOID, O_AT, O_BACK, O_CHECK, O_CLEAN, O_CUR, O_DEALER, O_DISCARDED,
    O_DRAW_RDY, O_DRAWN, O_DRAWS, O_EXDIR, O_FIRST_WIN, O_FIXED_END, O_FNS, O_FRONT, O_G, O_HAND,
    O_KONG_FEEDER, O_KONG_RECV, O_KONGED, O_LEFT, O_LOCKED, O_MELD_CNT, O_MELD_KIND, O_MELD_TILE, O_N_KONGS,
    O_N_MELDS, O_N_WINS, O_NEXT_DEALER, O_OFF_LOG, O_OFF_PBUF, O_OFF_SCRIPT, O_OFF_WBUF, O_OUT, O_PASSED,
    O_PHASE, O_PIG, O_PILE, O_READY, O_RULES, O_SCORE0, O_SCORES_IN, O_SCRATCH_USE, O_SCRIPT_LEN,
    O_SEAT_KONGS, O_SEED, O_TAB, O_TAB_LEN, O_TURN_KONG, O_TURN_KONG_SEAT, O_TURNS, O_VIEWS, O_VOID,
    O_VOIDCNT, O_WALL, O_WINS, PHASE_AFTER_PUNG, PHASE_DRAW, PHASE_FIRST, PHASE_REPLACEMENT, WALL_LAST,
)
from simcore.engine.table import _recount
from simcore.contract import view as vw
from simcore.contract.arena import AR_FNS, AR_SETUP, AR_STATE_LEN, AR_STATES, AR_WORK, N_STATES
from simcore.contract.evaluate import shanten
from simcore.contract.nrt import address_of, data_ptr, int64_ptr, strategy_addresses, view_of
from simcore.contract.rng import STREAM_SEAT, STREAM_WALL, stream_key, stream_value
from simcore.contract.rules import N_RULE_FIELDS
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS, N_TILES, NO_VOID

I64 = np.int64
WALL = I64(4)      # the holder index of the wall
MIX_SWAPS = 256    # swaps of the mixing chain per sample
SHAPE_SWAPS = 768  # and of the chain weighted by the opponents' shanten (``set_shape``)
KONG_TRIES = 16    # kinds drawn again for unknown concealed kongs when the caps cannot be met
# why ``sample_state`` found no table (in the work slot WK_FAIL; never in play: each is a bug)
SAMPLE_OK, SAMPLE_NO_KONG_KIND, SAMPLE_KNOWN_EXCESS, SAMPLE_COUNT_MISMATCH, SAMPLE_CAPS = (I64(i) for i in range(5))

# the sampler's work space (``simcore.contract.arena``: AR_WORK slots after the states)
KIND_ROW = 32    # N_KINDS rounded up: WK_UNSEEN's length and WK_HIDDEN's stride per holder
POOL_ROW = 112   # N_TILES rounded up: the length of the per-tile areas (WK_POOL, WK_OWNER, ...)
assert KIND_ROW >= N_KINDS and POOL_ROW >= N_TILES
WK_UNSEEN = 0                  # N_KINDS: unseen tiles not yet placed
WK_HIDDEN = WK_UNSEEN + KIND_ROW  # [holder*KIND_ROW + t]: each seat's hidden tiles (hand and concealed kongs)
WK_POOL = WK_HIDDEN + 4 * KIND_ROW  # up to N_TILES tiles to place
WK_OWNER = WK_POOL + POOL_ROW  # [i]: the holder of pool position i (0..3 a seat, WALL)
WK_NEED = WK_OWNER + POOL_ROW  # [seat]: concealed tiles to sample
WK_CAP = WK_NEED + 4           # [seat]: void cap of the sampled tiles (-1: none)
WK_VOIDS = WK_CAP + 4          # [seat]: void-suit tiles among the sampled ones
WK_KNOWN = WK_VOIDS + 4        # [seat*N_KINDS + t]: tiles known to be in the seat's hand
WK_KONGS = WK_KNOWN + 4 * N_KINDS  # [seat*4 + i]: the kind picked for an unknown concealed kong
WK_X = WK_KONGS + 16           # [suit*5 + holder]: tile counts while repairing (``_repair``)
WK_FREE = WK_X + 16            # [suit]: tiles not yet dealt by the repair
WK_SHORT = WK_FREE + 4         # [holder]: tiles a holder still lacks
WK_PAR = WK_SHORT + 8          # the repair's search: 8 parents, then a queue of 8
WK_KEEP = WK_PAR + 16          # [i]: pool position i keeps its shuffled tile
WK_SPARE = WK_KEEP + POOL_ROW  # tiles the repair deals again
WK_FAIL = WK_SPARE + POOL_ROW  # why the last sample failed (SAMPLE_*)
WK_N_POOL = WK_FAIL + 1        # tiles dealt
WK_SHAPE = WK_N_POOL + 1       # the chain's weight on the opponents' shanten, in thousandths (0: uniform)
WK_HC = WK_SHAPE + 1           # [seat*N_KINDS + t]: the seat's concealed tiles during the chain (known and dealt)
WK_SH = WK_HC + 4 * N_KINDS    # [seat]: their shanten
WK_END = WK_SH + 4
assert WK_END <= AR_WORK


@nb.njit(cache=True, _nrt=False)
def _below(key, counter, n):
    return I64((stream_value(key, counter) >> np.uint64(11)) % np.uint64(n))


@nb.njit(cache=True, _nrt=False)
def _void_of(view, seat, t):
    return t // N_RANKS == view[vw.V_VOID + seat]


@nb.njit(cache=True, _nrt=False)
def _fits(W, view, holder, t, delta):
    """Would ``holder`` stay within its void cap with ``delta`` more of tile t's suit?"""
    if holder == WALL:
        return True
    cap = W[WK_CAP + holder]
    if cap < 0 or not _void_of(view, holder, t):
        return True
    return W[WK_VOIDS + holder] + delta <= cap


@nb.njit(cache=True, _nrt=False)
def _concealed_count(view, seat):
    """Concealed tiles ``seat`` holds now (public): 13 less 3 per declared set, one more for the
    seat that has drawn and not yet discarded (the adder at a robbing question, the dealer before
    its first discard)."""
    n = 13 - 3 * view[vw.V_N_MELDS + seat]
    q = view[vw.V_QUESTION]
    if q == vw.Q_ROB and seat == view[vw.V_FROM]:
        n += 1
    elif (q == vw.Q_EXCHANGE or q == vw.Q_VOID) and seat == view[vw.V_DEALER]:
        n += 1
    return n


@nb.njit(cache=True, _nrt=False)
def _passed_to(view, me):
    """The seat that received this seat's three passed tiles (-1 without an exchange)."""
    d = view[vw.V_EXCHANGE_DIR]
    if d == 0 or view[vw.V_PASSED] < 0:
        return -1
    return (me + d + 4) % 4


@nb.njit(cache=True, _nrt=False)
def _own_use(view, seat, t):
    """Copies of t that ``seat`` took from its own hand into its declared sets (an upper bound
    on how many of the tiles passed to it it could have used there)."""
    n = 0
    for i in range(view[vw.V_N_MELDS + seat]):
        if view[vw.V_MELD_TILE + seat * 4 + i] != t:
            continue
        k = view[vw.V_MELD_KIND + seat * 4 + i]
        n += 2 if k == vw.M_PUNG else (4 if k == vw.M_KONG_CONCEALED else 3)
    return n


@nb.njit(cache=True, _nrt=False)
def _suit_fits(view, W, s, h):
    """May holder h take one more tile of suit s under the count matrix WK_X?"""
    if h == WALL or W[WK_CAP + h] < 0 or s != view[vw.V_VOID + h]:
        return True
    return W[WK_X + s * 5 + h] < W[WK_CAP + h]


@nb.njit(cache=True, _nrt=False)
def _repair(view, W, n_pool):
    """Rearrange the shuffled pool so that every void cap holds, moving as few tiles as the
    counts allow: clip each capped holder's void-suit count to its cap, then refill the holders
    left short by augmenting paths over (suit, holder) counts (a small max flow: it finds an
    arrangement whenever one exists). Returns False when none does."""
    P = WK_POOL
    O = WK_OWNER
    X = WK_X
    for i in range(20):
        W[X + i] = 0
    for i in range(n_pool):
        W[X + (W[P + i] // N_RANKS) * 5 + W[O + i]] += 1
    for s in range(N_SUITS):
        W[WK_FREE + s] = 0
    for h in range(4):
        cap = W[WK_CAP + h]
        v = view[vw.V_VOID + h]
        if cap >= 0 and 0 <= v < N_SUITS and W[X + v * 5 + h] > cap:
            W[WK_FREE + v] += W[X + v * 5 + h] - cap
            W[X + v * 5 + h] = cap
    for h in range(5):
        W[WK_SHORT + h] = 0
    for i in range(n_pool):
        W[WK_SHORT + W[O + i]] += 1
    for h in range(5):
        for s in range(N_SUITS):
            W[WK_SHORT + h] -= W[X + s * 5 + h]
    PAR = WK_PAR          # [node]: suit s is node s, holder h node N_SUITS + h; -2 unseen, -1 a root
    Q = WK_PAR + 8
    while W[WK_FREE + 0] + W[WK_FREE + 1] + W[WK_FREE + 2] > 0:
        for n in range(8):
            W[PAR + n] = -2
        head = 0
        tail = 0
        for s in range(N_SUITS):
            if W[WK_FREE + s] > 0:
                W[PAR + s] = -1
                W[Q + tail] = s
                tail += 1
        end = -1
        while head < tail and end < 0:
            n = W[Q + head]
            head += 1
            if n < N_SUITS:
                for h in range(5):
                    if W[PAR + N_SUITS + h] == -2 and _suit_fits(view, W, n, I64(h)):
                        W[PAR + N_SUITS + h] = n
                        if W[WK_SHORT + h] > 0:
                            end = h
                            break
                        W[Q + tail] = N_SUITS + h
                        tail += 1
            else:
                h = n - N_SUITS
                for s in range(N_SUITS):
                    if W[PAR + s] == -2 and W[X + s * 5 + h] > 0:
                        W[PAR + s] = n
                        W[Q + tail] = s
                        tail += 1
        if end < 0:
            return False
        W[WK_SHORT + end] -= 1
        h = end
        while True:     # walk back: each holder on the path takes one of s and gives one of the next
            s = W[PAR + N_SUITS + h]
            W[X + s * 5 + h] += 1
            if W[PAR + s] == -1:
                W[WK_FREE + s] -= 1
                break
            h = W[PAR + s] - N_SUITS
            W[X + s * 5 + h] -= 1
    # realise the counts: keep every tile its holder may keep, deal the rest where counts ask
    n_spare = 0
    for i in range(n_pool):
        cell = X + (W[P + i] // N_RANKS) * 5 + W[O + i]
        if W[cell] > 0:
            W[cell] -= 1
            W[WK_KEEP + i] = 1
        else:
            W[WK_KEEP + i] = 0
            W[WK_SPARE + n_spare] = W[P + i]
            n_spare += 1
    for i in range(n_pool):
        if W[WK_KEEP + i] == 1:
            continue
        h = W[O + i]
        for j in range(n_spare):
            t = W[WK_SPARE + j]
            if t >= 0 and W[X + (t // N_RANKS) * 5 + h] > 0:
                W[X + (t // N_RANKS) * 5 + h] -= 1
                W[P + i] = t
                W[WK_SPARE + j] = -1
                break
    return True


@nb.njit(cache=True, _nrt=False)
def _count_voids(view, W, n_pool):
    for o in range(4):
        W[WK_VOIDS + o] = 0
    for i in range(n_pool):
        h = W[WK_OWNER + i]
        if h != WALL and _void_of(view, h, W[WK_POOL + i]):
            W[WK_VOIDS + h] += 1


@nb.njit(cache=True, _nrt=False)
def _hand_shanten(view, tab, W, h):
    return shanten(tab, view_of(data_ptr(W), WK_HC + h * N_KINDS, I64(N_KINDS)), view[vw.V_VOID + h], view[vw.V_N_MELDS + h])


@nb.njit(cache=True, _nrt=False)
def _start_shapes(view, tab, W, n_pool):
    for h in range(4):
        for t in range(N_KINDS):
            W[WK_HC + h * N_KINDS + t] = W[WK_KNOWN + h * N_KINDS + t]
    for i in range(n_pool):
        h = W[WK_OWNER + i]
        if h != WALL:
            W[WK_HC + h * N_KINDS + W[WK_POOL + i]] += 1
    for h in range(4):
        W[WK_SH + h] = _hand_shanten(view, tab, W, I64(h)) if W[WK_NEED + h] > 0 else 0


@nb.njit(cache=True, _nrt=False)
def _shape_move(view, tab, W, hi, hj, a, b, beta, key, c):
    """The weighted chain's test of a swap (hi gives a and takes b, hj the reverse): kept with
    probability min(1, exp(-beta * the rise of the two hands' shanten)); the hands' counts and
    shanten are updated when it is kept."""
    old = I64(0)
    new = I64(0)
    for h, give, take in ((hi, a, b), (hj, b, a)):
        if h != WALL:
            W[WK_HC + h * N_KINDS + give] -= 1
            W[WK_HC + h * N_KINDS + take] += 1
            old += W[WK_SH + h]
            new += _hand_shanten(view, tab, W, h)
    rise = new - old
    if rise > 0:
        u = (stream_value(key, (I64(1) << 50) + c) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        if u >= np.exp(-beta * rise):
            for h, give, take in ((hi, a, b), (hj, b, a)):
                if h != WALL:
                    W[WK_HC + h * N_KINDS + give] += 1
                    W[WK_HC + h * N_KINDS + take] -= 1
            return False
    for h in (hi, hj):
        if h != WALL:
            W[WK_SH + h] = _hand_shanten(view, tab, W, h)
    return True


@nb.njit(cache=True, _nrt=False)
def _place(view, tab, W, key, n_pool):
    """Deal the pool to the holders (WK_OWNER): a uniform shuffle, repaired where a void cap
    fails (``_repair``), then the mixing chain. Returns False when the caps cannot be met."""
    P = WK_POOL
    O = WK_OWNER
    for i in range(n_pool - 1, 0, -1):
        j = _below(key, i, i + 1)
        tmp = W[P + i]
        W[P + i] = W[P + j]
        W[P + j] = tmp
    _count_voids(view, W, n_pool)
    for o in range(4):
        if W[WK_CAP + o] >= 0 and W[WK_VOIDS + o] > W[WK_CAP + o]:
            if not _repair(view, W, n_pool):
                return False
            _count_voids(view, W, n_pool)
            break
    c = I64(n_pool)
    q = view[vw.V_QUESTION]
    beta = 0.0 if q == vw.Q_EXCHANGE or q == vw.Q_VOID else W[WK_SHAPE] / 1000.0  # dealt hands are uniform
    if beta > 0:
        _start_shapes(view, tab, W, n_pool)
    for _ in range(MIX_SWAPS if beta == 0 else SHAPE_SWAPS):
        i = _below(key, c, n_pool)
        j = _below(key, c + 1, n_pool)
        c += 2
        hi = W[O + i]
        hj = W[O + j]
        if hi == hj:
            continue
        a = W[P + i]
        b = W[P + j]
        # holder hi gives a, takes b; hj gives b, takes a
        di = (0 if hi == WALL else (1 if _void_of(view, hi, b) else 0) - (1 if _void_of(view, hi, a) else 0))
        dj = (0 if hj == WALL else (1 if _void_of(view, hj, a) else 0) - (1 if _void_of(view, hj, b) else 0))
        if hi != WALL and W[WK_CAP + hi] >= 0 and W[WK_VOIDS + hi] + di > W[WK_CAP + hi]:
            continue
        if hj != WALL and W[WK_CAP + hj] >= 0 and W[WK_VOIDS + hj] + dj > W[WK_CAP + hj]:
            continue
        if beta > 0 and not _shape_move(view, tab, W, hi, hj, a, b, beta, key, c):
            continue
        W[P + i] = b
        W[P + j] = a
        if hi != WALL:
            W[WK_VOIDS + hi] += di
        if hj != WALL:
            W[WK_VOIDS + hj] += dj
    return True


@nb.njit(cache=True, _nrt=False)
def _has_unknown_kong(view):
    me = view[vw.V_ME]
    for o in range(4):
        for i in range(view[vw.V_N_MELDS + o]):
            if o != me and view[vw.V_MELD_KIND + o * 4 + i] == vw.M_KONG_CONCEALED and view[vw.V_MELD_TILE + o * 4 + i] < 0:
                return True
    return False


@nb.njit(cache=True, _nrt=False)
def _kong_fits(view, W, o, t):
    """Could seat o's unknown concealed kong be of kind t? Its four tiles are unseen, or tiles
    this seat passed to o, or, for a blood-flow winner that declared it after winning, the three
    or four copies in its revealed hand (which the engine leaves as it was at the win) and the
    rest unseen."""
    if _void_of(view, o, t):
        return False
    shown = view[vw.V_REVEALED + o * N_KINDS + t] if view[vw.V_WINS + o] > 0 else 0
    if shown == 1 or shown == 2:
        return False
    return W[WK_UNSEEN + t] + W[WK_KNOWN + o * N_KINDS + t] + shown == 4


@nb.njit(cache=True, _nrt=False)
def _deal_unseen(view, tab, W, key):
    """Steps 1-3 of ``sample_state``: the unseen tiles, the kinds of unknown concealed kongs and
    the pool dealt to its holders (WK_OWNER, WK_POOL). Returns SAMPLE_OK or why it failed."""
    me = view[vw.V_ME]
    q = view[vw.V_QUESTION]
    frm = view[vw.V_FROM]
    # -- 1. what is unseen, and what each seat is known to hold ----------------------------
    for t in range(N_KINDS):
        W[WK_UNSEEN + t] = 4 - view[vw.V_VISIBLE + t]
    for i in range(4 * N_KINDS):
        W[WK_KNOWN + i] = 0
        W[WK_HIDDEN + (i // N_KINDS) * KIND_ROW + i % N_KINDS] = 0
    r = _passed_to(view, me)
    if r >= 0 and view[vw.V_WINS + r] == 0:
        for i in range(3):
            t = view[vw.V_PASSED + i]
            if W[WK_KNOWN + r * N_KINDS + t] == 0:
                n = 0
                for j in range(3):
                    n += 1 if view[vw.V_PASSED + j] == t else 0
                left = n - vw.discarded_by(view, r, t) - _own_use(view, r, t)
                W[WK_KNOWN + r * N_KINDS + t] = max(left, 0)
    if q == vw.Q_ROB:
        W[WK_KNOWN + frm * N_KINDS + view[vw.V_TILE]] = max(W[WK_KNOWN + frm * N_KINDS + view[vw.V_TILE]], 1)
    for o in range(4):
        if o == me:
            continue
        for t in range(N_KINDS):
            n = min(W[WK_KNOWN + o * N_KINDS + t], W[WK_UNSEEN + t])
            W[WK_KNOWN + o * N_KINDS + t] = n
            W[WK_UNSEEN + t] -= n
    # -- 2. concealed kongs of unknown tiles -------------------------------------------------
    for o in range(4):
        if o == me:
            continue
        for i in range(view[vw.V_N_MELDS + o]):
            if view[vw.V_MELD_KIND + o * 4 + i] != vw.M_KONG_CONCEALED or view[vw.V_MELD_TILE + o * 4 + i] >= 0:
                continue
            n_fit = 0
            for t in range(N_KINDS):
                if _kong_fits(view, W, I64(o), I64(t)):
                    n_fit += 1
            if n_fit == 0:
                return SAMPLE_NO_KONG_KIND
            pick = _below(key, I64(1000 + o * 4 + i), n_fit)
            for t in range(N_KINDS):
                if _kong_fits(view, W, I64(o), I64(t)):
                    if pick == 0:
                        W[WK_UNSEEN + t] = 0
                        W[WK_KNOWN + o * N_KINDS + t] = 0
                        W[WK_KONGS + o * 4 + i] = t
                        break
                    pick -= 1
    # -- 3. the pool and its holders ---------------------------------------------------------
    n_pool = 0
    for t in range(N_KINDS):
        for _ in range(W[WK_UNSEEN + t]):
            W[WK_POOL + n_pool] = t
            n_pool += 1
    pos = 0
    for o in range(4):
        W[WK_NEED + o] = 0
        W[WK_CAP + o] = -1
        if o == me or view[vw.V_WINS + o] > 0:
            continue
        known = 0
        known_void = 0
        for t in range(N_KINDS):
            known += W[WK_KNOWN + o * N_KINDS + t]
            if _void_of(view, o, t):
                known_void += W[WK_KNOWN + o * N_KINDS + t]
        need = _concealed_count(view, I64(o)) - known
        if need < 0:
            return SAMPLE_KNOWN_EXCESS
        W[WK_NEED + o] = need
        cap = view[vw.V_VOID_CAP + o]
        if cap >= 0 and view[vw.V_VOID + o] != NO_VOID:
            W[WK_CAP + o] = max(cap - known_void, 0)
        for _ in range(need):
            W[WK_OWNER + pos] = o
            pos += 1
    wall_left = view[vw.V_WALL_LEFT]
    if pos + wall_left != n_pool:
        return SAMPLE_COUNT_MISMATCH
    for i in range(pos, n_pool):
        W[WK_OWNER + i] = WALL
    W[WK_N_POOL] = n_pool
    if n_pool > 0 and not _place(view, tab, W, key, I64(n_pool)):
        return SAMPLE_CAPS
    return SAMPLE_OK


@nb.njit(cache=True, _nrt=False)
def sample_state(view, tab, A, S, seed, k, check):
    """Fill the rollout state S (``simcore.engine.state.ROLLOUT_STATE_LEN`` slots) with a table
    consistent with ``view``, resuming at the view's question; the rollout players, their setup
    and the work space come from the arena A. Its randomness is (seed, k): the same (seed, k)
    gives the same table. Returns False when the view admits no table (never in play: a bug)."""
    W = view_of(A, AR_STATES + N_STATES * A[AR_STATE_LEN], I64(AR_WORK))
    for attempt in range(KONG_TRIES):
        key = stream_key(seed, k + (attempt << 40), STREAM_WALL)
        W[WK_FAIL] = _deal_unseen(view, tab, W, key)
        if W[WK_FAIL] != SAMPLE_CAPS or not _has_unknown_kong(view):
            break
    if W[WK_FAIL] != SAMPLE_OK:
        return False
    # -- 4. the state ------------------------------------------------------------------------
    _fill_state(view, tab, A, S, W, seed, k, W[WK_N_POOL], view[vw.V_WALL_LEFT], check)
    return True


@nb.njit(cache=True, _nrt=False)
def _fill_state(view, tab, A, S, W, seed, k, n_pool, wall_left, check):
    me = view[vw.V_ME]
    q = view[vw.V_QUESTION]
    view_of(S, I64(0), A[AR_STATE_LEN])[:] = 0
    S[O_OFF_WBUF] = O_FIXED_END
    S[O_OFF_PBUF] = O_FIXED_END
    S[O_OFF_SCRIPT] = O_FIXED_END
    S[O_OFF_LOG] = O_FIXED_END + 12
    S[O_SCRIPT_LEN] = 1
    S[O_CHECK] = 1 if check else 0
    S[O_SEED] = seed
    S[O_G] = k
    S[O_TAB] = address_of(data_ptr(tab))
    S[O_TAB_LEN] = tab.shape[0]
    for i in range(N_RULE_FIELDS):
        S[O_RULES + i] = view[vw.V_RULES + i]
    for i in range(24):
        S[O_FNS + i] = A[AR_FNS + i]
    for s in range(4):
        S[O_SCORES_IN + s] = view[vw.V_SCORE + s]
        S[O_SCRATCH_USE + s] = A[AR_SETUP + vw.SETUP_SCRATCH + s]
        S[O_FIXED_END + s * 3] = -1       # no forced answer yet (``set_answer``)
    # -- the wall: kong replacements came from the back -------------------------------------
    n_kongs = 0
    for o in range(4):
        for i in range(view[vw.V_N_MELDS + o]):
            if view[vw.V_MELD_KIND + o * 4 + i] != vw.M_PUNG:
                n_kongs += 1
    S[O_BACK] = WALL_LAST - n_kongs    # the rollout draws in table order: the same game (RULES.md: Rulings where the documents are silent, draw order)
    S[O_FRONT] = S[O_BACK] - wall_left + 1
    S[O_LEFT] = wall_left
    w = S[O_FRONT]
    for i in range(n_pool):
        h = W[WK_OWNER + i]
        t = W[WK_POOL + i]
        if h == WALL:
            S[O_WALL + w] = t
            w += 1
        else:
            W[WK_HIDDEN + h * KIND_ROW + t] += 1
    # -- hands, sets and the public record ---------------------------------------------------
    flow = view[vw.V_FLOW]
    for o in range(4):
        revealed = o != me and view[vw.V_WINS + o] > 0
        for t in range(N_KINDS):
            if o == me:
                c = view[vw.V_HAND + t]
            elif revealed:
                c = view[vw.V_REVEALED + o * N_KINDS + t]
            else:
                c = W[WK_HIDDEN + o * KIND_ROW + t] + W[WK_KNOWN + o * N_KINDS + t]
            S[O_HAND + o * N_KINDS + t] = c
        nm = view[vw.V_N_MELDS + o]
        S[O_N_MELDS + o] = nm
        kongs = 0
        for i in range(nm):
            kind = view[vw.V_MELD_KIND + o * 4 + i]
            t = view[vw.V_MELD_TILE + o * 4 + i]
            if t < 0:
                t = W[WK_KONGS + o * 4 + i]
                if revealed:  # a kong declared after the win took the revealed copies (``_kong_fits``)
                    S[O_HAND + o * N_KINDS + t] = 0
            S[O_MELD_KIND + o * 4 + i] = kind
            S[O_MELD_TILE + o * 4 + i] = t
            S[O_MELD_CNT + o * N_KINDS + t] += 3 if kind == vw.M_PUNG else 4
            if kind != vw.M_PUNG:
                kongs += 1
        S[O_N_KONGS + o] = kongs
        S[O_SEAT_KONGS + o] = kongs
        S[O_VOID + o] = view[vw.V_VOID + o]
        S[O_WINS + o] = view[vw.V_WINS + o]
        S[O_OUT + o] = view[vw.V_OUT + o]
        S[O_LOCKED + o] = 1 if flow and view[vw.V_WINS + o] > 0 else 0
        S[O_DRAWS + o] = view[vw.V_DRAWS + o]
        S[O_SCORE0 + o] = view[vw.V_SCORE + o]
        S[O_PIG + o] = -1
        S[O_READY + o] = -1
        S[O_FIRST_WIN + o] = 0 if view[vw.V_WINS + o] > 0 else -1
        for p in range(4):
            S[O_KONG_RECV + o * 4 + p] = view[vw.V_KONG_INCOME + o * 4 + p]
        S[O_TURN_KONG + o] = view[vw.V_TURN_KONG + o]
        S[O_N_WINS] += view[vw.V_WINS + o]
        S[O_TURNS] += view[vw.V_DRAWS + o]
    for i in range(3):
        S[O_PASSED + me * 3 + i] = view[vw.V_PASSED + i]
    S[O_TURN_KONG_SEAT] = view[vw.V_TURN_KONG_SEAT]
    S[O_KONG_FEEDER] = view[vw.V_KONG_FEEDER]
    clean = 1
    for o in range(4):
        if view[vw.V_N_MELDS + o] > 0 or view[vw.V_WINS + o] > 0:
            clean = 0
    S[O_CLEAN] = clean
    S[O_EXDIR] = view[vw.V_EXCHANGE_DIR]
    S[O_DEALER] = view[vw.V_DEALER]
    S[O_NEXT_DEALER] = view[vw.V_DEALER]
    # tiles not in the wall, a hand or a set lie in the discard piles or were set aside as
    # winning tiles: all counted as piled (the engine only ever needs their sum, and a claimed
    # discard in the pile)
    for t in range(N_KINDS):
        n = 0
        for o in range(4):
            n += S[O_HAND + o * N_KINDS + t] + S[O_MELD_CNT + o * N_KINDS + t]
        S[O_PILE + t] = n
    for i in range(S[O_FRONT], S[O_BACK] + 1):
        S[O_PILE + S[O_WALL + i]] += 1
    for t in range(N_KINDS):
        S[O_PILE + t] = 4 - S[O_PILE + t]
    _fill_views(view, A, S, W, seed, k)
    # -- where play resumes --------------------------------------------------------------------
    frm = view[vw.V_FROM]
    if q == vw.Q_EXCHANGE:
        S[O_AT] = AT_EXCHANGE
    elif q == vw.Q_VOID:
        S[O_AT] = AT_VOID
    elif q == vw.Q_TURN:
        S[O_AT] = AT_ASK
        S[O_CUR] = me
        if view[vw.V_AFTER_PUNG]:
            phase = PHASE_AFTER_PUNG
        elif view[vw.V_REPLACEMENT]:
            phase = PHASE_REPLACEMENT
        elif view[vw.V_TILE] < 0:
            phase = PHASE_FIRST
        else:
            phase = PHASE_DRAW
        S[O_PHASE] = phase
        S[O_DRAWN] = view[vw.V_TILE]
        S[O_KONGED] = 1 if phase == PHASE_REPLACEMENT else 0
        S[O_DRAW_RDY + me] = 1  # "maybe": the exact check decides, as the engine's offer did
    elif q == vw.Q_CLAIM:
        S[O_AT] = AT_CLAIMS
        S[O_CUR] = frm
        S[O_DISCARDED] = view[vw.V_TILE]
        S[O_KONGED] = view[vw.V_KONG_DISCARD]
        S[O_PHASE] = PHASE_DRAW
    else:  # Q_ROB: the adder's turn again, its answer the added kong
        S[O_AT] = AT_ASK
        S[O_CUR] = frm
        S[O_PHASE] = PHASE_DRAW
        S[O_DRAWN] = view[vw.V_TILE]
        S[O_KONGED] = 1 if view[vw.V_TURN_KONG_SEAT] == frm + 1 else 0
        S[O_DRAW_RDY + frm] = 1
        o = O_FIXED_END + frm * 3
        S[o] = vw.Q_TURN
        S[o + 1] = -1
        S[o + 2] = vw.kong(view[vw.V_TILE])


@nb.njit(cache=True, _nrt=False)
def _fill_views(view, A, S, W, seed, k):
    """Every seat's view of the sampled table: the public part as this seat's view shows it,
    each seat's own tiles, the rollout players' parameters, fresh random streams."""
    me = view[vw.V_ME]
    r = _passed_to(view, me)
    d = view[vw.V_EXCHANGE_DIR]
    giver = (me - d + 4) % 4 if r >= 0 else -1
    for s in range(4):
        v = O_VIEWS + s * vw.VIEW_LEN
        for i in range(vw.V_HAND):
            S[v + i] = 0
        S[v + vw.V_ME] = s
        S[v + vw.V_DEALER] = view[vw.V_DEALER]
        S[v + vw.V_TILE] = -1
        S[v + vw.V_FROM] = -1
        S[v + vw.V_LOCKED] = S[O_LOCKED + s]
        S[v + vw.V_EXCHANGE_DIR] = d
        S[v + vw.V_N_DISCARDS] = view[vw.V_N_DISCARDS]
        S[v + vw.V_HAND_INDEX] = view[vw.V_HAND_INDEX]
        S[v + vw.V_RNG_KEY] = I64(stream_key(seed, k, STREAM_SEAT + s))
        S[v + vw.V_N_DRAWS] = view[vw.V_DRAWS + s]
        S[v + vw.V_FLOW] = view[vw.V_FLOW]
        for i in range(vw.V_VOID, vw.V_PASSED):  # voids, wins, out, scores, sets
            S[v + i] = view[i]
        for i in range(4):
            for j in range(4):
                t = S[O_MELD_TILE + i * 4 + j]
                if j < S[O_N_MELDS + i] and S[O_MELD_KIND + i * 4 + j] == vw.M_KONG_CONCEALED:
                    shown = view[vw.V_MELD_TILE + i * 4 + j] >= 0 and (i != me or view[vw.V_WINS + me] > 0)
                    S[v + vw.V_MELD_TILE + i * 4 + j] = t if (i == s or shown) else -1
        for i in range(3):
            S[v + vw.V_PASSED + i] = view[vw.V_PASSED + i] if s == me else (
                view[vw.V_RECEIVED + i] if s == giver else -1)
            S[v + vw.V_RECEIVED + i] = view[vw.V_RECEIVED + i] if s == me else (
                view[vw.V_PASSED + i] if s == r else -1)
        # visible: what every seat sees (this seat's hand as the others see it: its revealed
        # hand once it has won, which lacks a drawn tile), less the seat's own revealed hand
        # (``_recount`` adds its hand), and less this seat's concealed kongs the others do not see
        me_open = view[vw.V_WINS + me] > 0
        for t in range(N_KINDS):
            pub = view[vw.V_VISIBLE + t] - view[vw.V_HAND + t]
            if me_open:
                pub += view[vw.V_REVEALED + me * N_KINDS + t]
            if S[O_WINS + s] > 0:
                pub -= view[vw.V_REVEALED + s * N_KINDS + t]
            S[v + vw.V_VISIBLE + t] = pub
        for i in range(view[vw.V_N_MELDS + me]):
            if view[vw.V_MELD_KIND + me * 4 + i] == vw.M_KONG_CONCEALED and not me_open:
                S[v + vw.V_VISIBLE + view[vw.V_MELD_TILE + me * 4 + i]] -= 4
        for i in range(S[O_N_MELDS + s]):
            hidden = view[vw.V_MELD_TILE + s * 4 + i] < 0 or (s == me and not me_open)
            if S[O_MELD_KIND + s * 4 + i] == vw.M_KONG_CONCEALED and hidden:
                S[v + vw.V_VISIBLE + S[O_MELD_TILE + s * 4 + i]] += 4
        for i in range(vw.V_REVEALED, vw.V_REVEALED + 4 * N_KINDS):
            S[v + i] = view[i]
        for i in range(min(view[vw.V_N_DISCARDS], vw.N_DISC_SEQ)):
            S[v + vw.V_DISC_SEQ + i] = view[vw.V_DISC_SEQ + i]
        for i in range(vw.N_RULE_SLOTS):
            S[v + vw.V_RULES + i] = view[vw.V_RULES + i]
        for i in range(3 * vw.N_PARAMS):
            S[v + vw.V_PARAMS + i] = A[AR_SETUP + s * 3 * vw.N_PARAMS + i]
        for i in range(vw.V_PUBLIC, vw.VIEW_LEN):
            S[v + i] = view[i]
        for i in range(vw.V_SCRATCH, vw.V_SCRATCH + vw.N_SCRATCH):  # the seat's own is its own
            S[v + i] = view[i] if s == me else 0
        _recount(S, I64(s))
        S[v + vw.V_MUST_VOID] = 1 if S[O_VOIDCNT + s] > 0 and S[O_VOID + s] != NO_VOID else 0


@nb.njit(cache=True, _nrt=False)
def set_answer(S, seat, q, answer):
    """The answer ``seat`` gives to its next question ``q`` in the rollout (a one-entry script)."""
    o = O_FIXED_END + seat * 3
    S[o] = q
    S[o + 1] = -1
    S[o + 2] = answer


# -- from Python (tests, ``simcore.inspection.review``) -----------------------------------------------------


@nb.njit(cache=True)
def _fill_arena(A, rfns, arena, seat):
    """Seat ``seat``'s arena in A, as the engine's batches lay it out."""
    S = np.zeros(O_FIXED_END, np.int64)
    one = np.zeros(arena.shape[0], np.int64)
    n = arena.shape[0] // 4
    for i in range(n):
        one[seat * n + i] = arena[seat * n + i]
    _set_arenas(data_ptr(S), data_ptr(A), rfns, one)


@nb.njit(cache=True)
def _fn_addresses(fns, out):
    for i in range(12):
        jit, c = strategy_addresses(fns[i])
        out[2 * i] = jit
        out[2 * i + 1] = c


def arena_with(players, seat: int, rollout) -> np.ndarray:
    """``arena_for(players, seat)`` with every seat of a rollout played by ``rollout``
    (``strategies.registry.Players`` of four seats that do not search), seat by seat, with their
    own parameters: a reviewer's rollouts at the table's own seats."""
    from simcore.contract.arena import AR_FNS, AR_SETUP

    A = arena_for(players, seat)
    addresses = np.zeros(24, np.int64)
    sig = nb.types.void(_FNS, nb.types.int64[::1])
    if sig.args not in _fn_addresses.overloads:
        _fn_addresses.compile(sig)
        _fn_addresses.disable_compile()
    _fn_addresses(rollout.fns, addresses)
    A[AR_FNS:AR_FNS + 24] = addresses
    A[AR_SETUP:AR_SETUP + len(rollout.setup)] = rollout.setup
    return A


def arena_for(players, seat: int) -> np.ndarray:
    """A search arena for ``seat`` of ``players`` (``strategies.registry.Players``; the seat must
    search), outside any batch."""
    from simcore.contract.arena import AR_HEADER, AR_LEN

    n = int(players.arena[seat * AR_HEADER + AR_LEN])
    if n <= 0:
        raise ValueError(f"seat {seat} does not search: it has no arena")
    A = np.zeros(n, np.int64)
    sig = nb.types.void(nb.types.int64[::1], _FNS, nb.types.int64[::1], nb.types.int64)
    if sig.args not in _fill_arena.overloads:  # compiled on first use, not at import
        _fill_arena.compile(sig)
        _fill_arena.disable_compile()
    _fill_arena(A, players.rfns, players.arena, np.int64(seat))
    return A


@nb.njit(cache=True)
def _sample_py(S, seat, tab, A, seed, k, check):
    view = view_of(data_ptr(S), O_VIEWS + seat * vw.VIEW_LEN, vw.VIEW_LEN)
    P = data_ptr(A)
    return sample_state(view, tab, P, int64_ptr(address_of(P) + 8 * AR_STATES), seed, k, check)


@nb.njit(cache=True)
def _play_py(T):
    play_on(data_ptr(T), I64(0))


def sample_failure(A) -> int:
    """Why the last ``sample_table`` with arena A found no table (SAMPLE_*; SAMPLE_OK when it did)."""
    return int(A[AR_STATES + N_STATES * A[AR_STATE_LEN] + WK_FAIL])


def sample_table(S, seat: int, A, seed: int, k: int, check: bool = True, shape: float = 0.0):
    """A table sampled for ``seat`` from its view in the real state S (stopped at a resume
    point and posed, ``simcore.engine.legal.pose``), as a new array; None when the sampler failed.
    ``shape``: the weight on the opponents' shanten (``set_shape``; 0, uniform)."""
    from simcore.contract.tables import load_tables

    A[AR_STATES + N_STATES * A[AR_STATE_LEN] + WK_SHAPE] = int(round(shape * 1000))
    ok = _sample_py(S, np.int64(seat), load_tables(), A, np.int64(seed), np.int64(k), bool(check))
    if not ok:
        return None
    n = int(A[AR_STATE_LEN])
    return A[AR_STATES:AR_STATES + n].copy()


def play_table(T) -> None:
    """Play a sampled table (``sample_table``, its answer set with ``set_answer``) to its end."""
    _play_py(T)


@nb.njit(cache=True)
def _pose_py(S, seat):
    return pose_state(data_ptr(S), seat)


def pose(S, seat: int) -> int:
    """``simcore.engine.legal.pose`` on a state array: the question the stopped hand puts to ``seat``
    (its view then shows it), or -1."""
    return int(_pose_py(S, np.int64(seat)))
