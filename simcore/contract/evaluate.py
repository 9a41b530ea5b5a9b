"""Jitted hand evaluation on count arrays: shanten, win test, waits, fan patterns, ready value.

Hands are length-27 count arrays (concealed tiles only); declared sets are passed as their
number ``k`` and, where the tiles matter, as ``meld_cnt`` (tiles of each kind in declared
sets). Suit codes are base 5 (``tables``). The void suit is evaluated as if its code were 0,
so targets lie over the other suits (RULES.md: Winning hands); holding a void tile means no win.

Pattern indices (``P_*``) follow the table of RULES.md: Fan patterns, and are shared by the engine, traces
and output columns.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.rules import R_FAN_ALL_TRIPLETS, R_FAN_CAP, R_FAN_FOUR_DECLARED, R_FAN_FULL_FLUSH, R_FAN_KONG_DISCARD, R_FAN_KONG_REPLACEMENT, R_FAN_LAST_TILE, R_FAN_ROBBING_KONG, R_FAN_ROOT, R_FAN_SELF_DRAW, R_FAN_SEVEN_PAIRS, R_LIMIT_HANDS
from simcore.contract.tables import INF, PAIR_OFF, STRIDE, final_at
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS, NO_VOID  # noqa: F401  (NO_VOID: hand.py and tests read it here)

PATTERNS = (
    "all_triplets", "seven_pairs", "full_flush", "four_declared", "root", "kong_replacement",
    "robbing_kong", "last_tile", "kong_discard", "self_draw", "heavenly", "earthly", "eighteen_arhats",
)
(P_ALL_TRIPLETS, P_SEVEN_PAIRS, P_FULL_FLUSH, P_FOUR_DECLARED, P_ROOT, P_KONG_REPLACEMENT,
 P_ROBBING_KONG, P_LAST_TILE, P_KONG_DISCARD, P_SELF_DRAW, P_HEAVENLY, P_EARTHLY, P_EIGHTEEN_ARHATS) = range(13)
N_PATTERNS = 13

# Win context flags (a bit set), shared with the engine.
CTX_SELF_DRAW = 1
CTX_KONG_REPLACEMENT = 2
CTX_ROBBING_KONG = 4
CTX_LAST_TILE = 8
CTX_HEAVENLY = 16
CTX_EARTHLY = 32
CTX_KONG_DISCARD = 64   # a win on the discard that ends a kong seat's turn (RULES.md: Rulings where the documents are silent)

POW5 = (1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)


@nb.njit(cache=True, inline="always")
def slots2(c):
    """Seven-pairs slots worth two tiles that c copies of a kind offer: a pair is one, four of
    a kind two (a triplet is a pair and a slot worth one)."""
    return (c >= 2) + (c == 4)


@nb.njit(cache=True, inline="always")
def moved_slots(n2, n1, c, n):
    """Seven-pairs slots (worth two, worth one) once a kind held c times is held c + n times."""
    return n2 + slots2(c + n) - slots2(c), n1 + ((c + n) & 1) - (c & 1)


@nb.njit(cache=True, inline="always")
def shift_code(c0, c1, c2, t, n):
    """The three suit codes with n copies of tile t added (n < 0 takes them out)."""
    s = t // N_RANKS
    d = n * POW5[t - N_RANKS * s]
    if s == 0:
        return c0 + d, c1, c2
    if s == 1:
        return c0, c1 + d, c2
    return c0, c1, c2 + d


@nb.njit(cache=True, inline="always")
def suit_code(hand, s):
    c = 0
    for r in range(N_RANKS - 1, -1, -1):
        c = c * 5 + hand[s * N_RANKS + r]
    return c


@nb.njit(cache=True, inline="always")
def regular_shanten_codes(tab, c0, c1, c2, k):
    """Regular shanten of three suit codes (void suit's code already zeroed), k declared sets."""
    a = np.int64(tab[c0])
    b = np.int64(tab[c1])
    c = np.int64(tab[c2])
    pc = np.int64(tab[PAIR_OFF + a * STRIDE + b])
    return np.int64(tab[final_at(pc, c, k)]) - 1


@nb.njit(cache=True, _nrt=False)
def regular_shanten(tab, hand, void, k):
    c0 = suit_code(hand, 0) if void != 0 else 0
    c1 = suit_code(hand, 1) if void != 1 else 0
    c2 = suit_code(hand, 2) if void != 2 else 0
    return regular_shanten_codes(tab, c0, c1, c2, k)


@nb.njit(cache=True, inline="always")
def seven_pairs_from_slots(n2, n1):
    """Seven-pairs shanten from a hand's pair slots: n2 slots worth two tiles, n1 worth one
    (``slots2``); 13 minus the best seven (ARCHITECTURE.md: Hand evaluation, seven pairs)."""
    a = min(n2, 7)
    return 13 - 2 * a - min(n1, 7 - a)


@nb.njit(cache=True, _nrt=False)
def seven_pairs_shanten(hand, void):
    """Seven-pairs shanten over the non-void kinds of a count array."""
    n2 = 0
    n1 = 0
    for t in range(N_KINDS):
        if t // N_RANKS != void:
            n2 += slots2(hand[t])
            n1 += hand[t] & 1
    return seven_pairs_from_slots(n2, n1)


def _pair_slot_table() -> np.ndarray:
    """For every 5-digit base-5 code (five ranks of a suit): its seven-pairs slots worth two
    tiles plus 32 times its slots worth one (a four of a kind is two pairs, a triplet a pair
    plus one). A suit code's slots are the sum over its low five and high four ranks."""
    digits = (np.arange(5**5)[:, None] // 5 ** np.arange(5)) % 5
    two = ((digits >= 2).astype(np.int64) + (digits == 4)).sum(axis=1)
    one = (digits & 1).sum(axis=1)
    return (two + 32 * one).astype(np.int16)


PAIR_SLOTS = _pair_slot_table()


@nb.njit(cache=True, inline="always")
def _pair_slots(code):
    return np.int64(PAIR_SLOTS[code % 3125]) + np.int64(PAIR_SLOTS[code // 3125])


@nb.njit(cache=True, _nrt=False)
def shanten(tab, hand, void, k):
    """min(regular, seven pairs) shanten; seven pairs only for closed hands (k == 0), its slots
    read from the suit codes the regular shanten needs anyway (two small lookups a suit).

    Fast path: declared sets count as k sets but their tiles do not cap targets here
    (``shanten_exact`` applies the cap; they differ only in rare hands).
    """
    c0 = suit_code(hand, 0) if void != 0 else 0
    c1 = suit_code(hand, 1) if void != 1 else 0
    c2 = suit_code(hand, 2) if void != 2 else 0
    s = regular_shanten_codes(tab, c0, c1, c2, k)
    if k == 0:
        p = _pair_slots(c0) + _pair_slots(c1) + _pair_slots(c2)
        s = min(s, seven_pairs_from_slots(p & 31, p >> 5))
    return s


@nb.njit(cache=True, _nrt=False)
def holds_void(hand, void):
    if void < 0 or void > 2:
        return False
    for t in range(void * N_RANKS, void * N_RANKS + N_RANKS):
        if hand[t] > 0:
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def _multiplicities(hand):
    """How many kinds the hand holds once, twice, three and four times."""
    m1 = m2 = m3 = m4 = 0
    for t in range(N_KINDS):
        c = hand[t]
        m1 += c == 1
        m2 += c == 2
        m3 += c == 3
        m4 += c == 4
    return m1, m2, m3, m4


@nb.njit(cache=True, _nrt=False)
def is_seven_pairs(hand):
    """Fourteen tiles in pairs (four of a kind is two pairs)."""
    m1, m2, m3, m4 = _multiplicities(hand)
    return m1 == 0 and m3 == 0 and 2 * m2 + 4 * m4 == 14


@nb.njit(cache=True, _nrt=False)
def is_win(tab, hand, void, k):
    """A complete hand (14 - 3k concealed tiles) with no void tile."""
    if holds_void(hand, void):
        return False
    if regular_shanten(tab, hand, void, k) == -1:
        return True
    return k == 0 and is_seven_pairs(hand)


@nb.njit(cache=True, _nrt=False)
def waits_mask(tab, hand, void, k, meld_cnt):
    """Bit t set when hand + t wins; never a tile the seat holds all four of (hand and sets).

    Suit codes are computed once and one suit adjusted per candidate; a hand more than one
    tile from ready (one lookup) has no waits, so most calls end early."""
    if holds_void(hand, void):
        return np.int64(0)
    c0 = suit_code(hand, 0) if void != 0 else 0
    c1 = suit_code(hand, 1) if void != 1 else 0
    c2 = suit_code(hand, 2) if void != 2 else 0
    odd = 0
    if k == 0:
        for t in range(N_KINDS):
            odd += hand[t] & 1
    if regular_shanten_codes(tab, c0, c1, c2, k) > 0 and not (k == 0 and seven_pairs_shanten(hand, void) <= 0):
        return np.int64(0)
    mask = np.int64(0)
    for t in range(N_KINDS):
        s = t // N_RANKS
        if s == void or hand[t] + meld_cnt[t] >= 4:
            continue
        d = POW5[t % N_RANKS]
        if s == 0:
            sh = regular_shanten_codes(tab, c0 + d, c1, c2, k)
        elif s == 1:
            sh = regular_shanten_codes(tab, c0, c1 + d, c2, k)
        else:
            sh = regular_shanten_codes(tab, c0, c1, c2 + d, k)
        if sh == -1 or (k == 0 and odd == 1 and hand[t] & 1):
            mask |= np.int64(1) << t
    return mask


# -- exact shanten (declared sets cap the targets) ------------------------------------------


@nb.njit(cache=True)
def suit_rows_capped(h, caps, out):
    """out[m*2+p]: fewest tiles to add so the 9 counts h hold m sets and p pairs, tile i used
    at most caps[i] times. A DP over ranks tracking runs still open; the reference the tables
    agree with when every cap is 4."""
    # state index: ((m*2 + p)*5 + a)*5 + b ; a = runs started at rank-1, b = runs started at rank-2
    cur = np.full(250, INF, np.int64)
    nxt = np.full(250, INF, np.int64)
    cur[0] = 0
    for i in range(N_RANKS):
        nxt[:] = INF
        for st in range(250):
            cost = cur[st]
            if cost >= INF:
                continue
            b = st % 5
            a = (st // 5) % 5
            p = (st // 25) % 2
            m = st // 50
            for z in range(0, 5 - m if i <= 6 else 1):
                for x in range(2 if m + z < 4 else 1):
                    for y in range(2 if p == 0 else 1):
                        use = a + b + z + 3 * x + 2 * y
                        if use > caps[i]:
                            continue
                        extra = use - h[i]
                        if extra < 0:
                            extra = 0
                        m2 = m + z + x
                        ns = ((m2 * 2 + p + y) * 5 + z) * 5 + a
                        v = cost + extra
                        if v < nxt[ns]:
                            nxt[ns] = v
        cur, nxt = nxt, cur
    for j in range(10):
        out[j] = INF
    for st in range(250):
        if st % 25 == 0 and cur[st] < out[st // 25]:
            out[st // 25] = cur[st]


@nb.njit(cache=True)
def shanten_exact(tab, hand, void, k, meld_cnt):
    """Shanten with targets capped at four copies counting declared sets (RULES.md)."""
    capped = False
    for t in range(N_KINDS):
        if meld_cnt[t] > 0 and t // N_RANKS != void:
            capped = True
    if not capped:
        return shanten(tab, hand, void, k)
    rows = np.zeros((N_SUITS, 10), np.int64)
    h = np.zeros(N_RANKS, np.int64)
    caps = np.zeros(N_RANKS, np.int64)
    for s in range(N_SUITS):
        for r in range(N_RANKS):
            t = s * N_RANKS + r
            h[r] = 0 if s == void else hand[t]
            caps[r] = 4 - meld_cnt[t]
        suit_rows_capped(h, caps, rows[s])
    n = 4 - k
    best = INF
    for m0 in range(n + 1):
        for m1 in range(n + 1 - m0):
            m2 = n - m0 - m1
            for p in range(3):
                p0 = 1 if p == 0 else 0
                p1 = 1 if p == 1 else 0
                p2 = 1 if p == 2 else 0
                v = rows[0, m0 * 2 + p0] + rows[1, m1 * 2 + p1] + rows[2, m2 * 2 + p2]
                if v < best:
                    best = v
    s = best - 1
    if k == 0:
        s7 = seven_pairs_shanten(hand, void)
        if s7 < s:
            s = s7
    return s


# -- fan patterns ---------------------------------------------------------------------------


@nb.njit(cache=True, _nrt=False)
def _all_triplets_shape(hand):
    """Concealed tiles split into pungs and exactly one pair (declared sets are all pungs/kongs)."""
    m1, m2, m3, m4 = _multiplicities(hand)
    return m1 == 0 and m4 == 0 and m2 == 1


@nb.njit(cache=True, _nrt=False)
def score_patterns(tab, hand, void, k, meld_cnt, n_kongs, ctx, rules, pats):
    """Fan patterns of a complete hand with the win's context; returns the fan before the cap.

    ``hand`` holds the concealed tiles including the winning tile. The hand's value is the
    best over its decompositions (regular or seven pairs). A limit hand (``limit_hands``)
    reports ``fan_cap`` and only its limit pattern. Returns -1 if the hand does not win.
    """
    for i in range(N_PATTERNS):
        pats[i] = 0
    if holds_void(hand, void):
        return -1
    regular = regular_shanten(tab, hand, void, k) == -1
    seven = k == 0 and is_seven_pairs(hand)
    if not regular and not seven:
        return -1
    cap = rules[R_FAN_CAP]
    if rules[R_LIMIT_HANDS]:
        limit = -1
        if ctx & CTX_HEAVENLY:
            limit = P_HEAVENLY
        elif ctx & CTX_EARTHLY:
            limit = P_EARTHLY
        elif k == 4 and n_kongs == 4:
            limit = P_EIGHTEEN_ARHATS
        if limit >= 0:
            pats[limit] = cap
            return cap
    suits_seen = 0
    roots = 0
    for t in range(N_KINDS):
        total = hand[t] + meld_cnt[t]
        if total > 0:
            suits_seen |= 1 << (t // N_RANKS)
        if total == 4:
            roots += 1
    flush = suits_seen == 1 or suits_seen == 2 or suits_seen == 4
    common = roots * rules[R_FAN_ROOT]
    if flush:
        common += rules[R_FAN_FULL_FLUSH]
    if ctx & CTX_KONG_REPLACEMENT:
        common += rules[R_FAN_KONG_REPLACEMENT]
    if ctx & CTX_ROBBING_KONG:
        common += rules[R_FAN_ROBBING_KONG]
    if ctx & CTX_LAST_TILE:
        common += rules[R_FAN_LAST_TILE]
    if ctx & CTX_KONG_DISCARD:
        common += rules[R_FAN_KONG_DISCARD]
    if ctx & CTX_SELF_DRAW:
        common += rules[R_FAN_SELF_DRAW]
    reg_fan = -1
    triplets = False
    if regular:
        triplets = _all_triplets_shape(hand)
        reg_fan = common
        if triplets:
            reg_fan += rules[R_FAN_ALL_TRIPLETS]
        if k == 4:
            reg_fan += rules[R_FAN_FOUR_DECLARED]
    sev_fan = -1
    if seven:
        sev_fan = common + rules[R_FAN_SEVEN_PAIRS]
    pats[P_ROOT] = roots * rules[R_FAN_ROOT]
    if flush:
        pats[P_FULL_FLUSH] = rules[R_FAN_FULL_FLUSH]
    if ctx & CTX_KONG_REPLACEMENT:
        pats[P_KONG_REPLACEMENT] = rules[R_FAN_KONG_REPLACEMENT]
    if ctx & CTX_ROBBING_KONG:
        pats[P_ROBBING_KONG] = rules[R_FAN_ROBBING_KONG]
    if ctx & CTX_LAST_TILE:
        pats[P_LAST_TILE] = rules[R_FAN_LAST_TILE]
    if ctx & CTX_KONG_DISCARD:
        pats[P_KONG_DISCARD] = rules[R_FAN_KONG_DISCARD]
    if ctx & CTX_SELF_DRAW:
        pats[P_SELF_DRAW] = rules[R_FAN_SELF_DRAW]
    if sev_fan > reg_fan:
        pats[P_SEVEN_PAIRS] = rules[R_FAN_SEVEN_PAIRS]
        return sev_fan
    if triplets:
        pats[P_ALL_TRIPLETS] = rules[R_FAN_ALL_TRIPLETS]
    if k == 4:
        pats[P_FOUR_DECLARED] = rules[R_FAN_FOUR_DECLARED]
    return reg_fan


@nb.njit(cache=True, inline="always")
def base_of(fan, rules):
    cap = rules[R_FAN_CAP]
    return np.int64(1) << (fan if fan < cap else cap)


@nb.njit(cache=True, _nrt=False)
def ready_value(tab, hand, void, k, meld_cnt, n_kongs, rules, pats):
    """Best base over the waits, valued as a discard win (RULES.md: Settlement, wall exhausted,
    step 2); 0 if not ready."""
    mask = waits_mask(tab, hand, void, k, meld_cnt)
    best = 0
    for t in range(N_KINDS):
        if (mask >> t) & 1:
            hand[t] += 1
            fan = score_patterns(tab, hand, void, k, meld_cnt, n_kongs, 0, rules, pats)
            hand[t] -= 1
            b = base_of(fan, rules)
            if b > best:
                best = b
    return best
