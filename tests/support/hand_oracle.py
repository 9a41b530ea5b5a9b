"""A slow, obviously-correct oracle for hand evaluation, written from RULES.md alone.

It shares no code with ``simcore`` except ``simcore.contract.tiles`` (text parsing). Everything here
is enumeration or direct recursion, no tables, no DP:

* ``targets``: every legal winning multiset (RULES.md: Winning hands, four sets + a pair,
  or seven pairs when nothing is declared) over the non-void suits, never more than four
  copies of a tile counting the declared sets.
* ``shanten``: ``min over targets T of |T \\ H| - 1`` (RULES.md: Winning hands, the definition of shanten).
* ``is_win``: direct recursive decomposition of the concealed tiles, or seven pairs.
* ``waits``: every tile that makes ``is_win`` true, excluding tiles the seat holds all four of.
* ``fan_value``: all decompositions, every pattern of RULES.md: Fan patterns, best one wins.

Hands are 27-length count arrays (index ``suit*9 + rank-1``, suits m, p, s); ``void`` is
None, a suit letter or a suit index; declared sets are text (``"555m"``, ``"9999p"``) or
``(tile, size)`` pairs.

Why the per-suit split is exact
-------------------------------
Enumerating every 14-tile regular target over 27 kinds and measuring each against the hand is
~10^6 multisets per hand. Instead we enumerate, per suit, every *partial* target (a multiset
of m sets and p pairs inside that suit, or j pair slots for seven pairs) and combine suits:

1. A target ``T`` is a union of its three per-suit parts ``T_s`` (sets and pairs lie within a
   suit: a run never crosses suits), and conversely any choice of per-suit parts whose set
   counts add up to ``4 - k`` and whose pair counts add up to one (seven pairs: whose pair
   slots add up to seven) is a target.
2. The copy cap (``T_t + declared_t <= 4``) is a condition on single tiles, so it holds for
   ``T`` iff it holds for every ``T_s``.
3. ``|T \\ H| = sum_t max(0, T_t - H_t)`` is a sum over tiles, so it is the sum over suits of
   ``|T_s \\ H_s|``.

Hence ``min_T |T \\ H| = min over allocations (m_s, p_s) of sum_s min_{T_s} |T_s \\ H_s|``: the
same minimum as the full enumeration, computed by brute force inside each suit and a tiny
brute force over allocations. ``Targets.iter_regular`` / ``iter_seven`` still enumerate full
targets (feasible when k >= 2 or for seven pairs) and the tests check both agree.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from simcore.contract.tiles import SUITS, parse, parse_tiles

N_KINDS = 27
INF = 10**9

# The 16 sets of a suit: 9 pungs then 7 runs, as 9-tuples of counts.
_PUNGS = [tuple(3 if i == r else 0 for i in range(9)) for r in range(9)]
_RUNS = [tuple(1 if r <= i <= r + 2 else 0 for i in range(9)) for r in range(7)]
SUIT_SETS = _PUNGS + _RUNS


# -- small helpers -------------------------------------------------------------------------


def void_index(void) -> int | None:
    """None, a suit letter or a suit index -> suit index or None."""
    if void is None:
        return None
    if isinstance(void, str):
        return SUITS.index(void)
    return int(void)


def as_counts(hand) -> np.ndarray:
    if isinstance(hand, str):
        return parse(hand)
    return np.asarray(hand, dtype=np.int64).copy()


def meld_list(melds) -> list[tuple[int, int]]:
    """Text sets or (tile, size) pairs -> [(tile, size)]."""
    out = []
    for m in melds:
        if isinstance(m, str):
            tiles = parse_tiles(m)
            assert len(tiles) in (3, 4) and len(set(tiles)) == 1, m
            out.append((tiles[0], len(tiles)))
        else:
            out.append((int(m[0]), int(m[1])))
    return out


def meld_counts(melds) -> np.ndarray:
    cnt = np.zeros(N_KINDS, np.int64)
    for t, size in meld_list(melds):
        cnt[t] += size
    return cnt


# -- targets ---------------------------------------------------------------------------------


def _enumerate_suit_regular():
    """Every per-suit multiset of m sets (0..4) and p pairs (0..1), at most 4 copies of a rank.

    Plain enumeration: all multisets of m sets from the 16, then every pair rank. Returns
    (rows (N, 9) int16, m (N,), p (N,)), deduplicated per (m, p)."""
    seen = set()
    rows, ms, ps = [], [], []
    for m in range(5):
        for combo in itertools.combinations_with_replacement(range(16), m):
            base = [0] * 9
            for s in combo:
                for i in range(9):
                    base[i] += SUIT_SETS[s][i]
            if max(base) > 4:
                continue
            for p, pair in [(0, None)] + [(1, r) for r in range(9)]:
                c = list(base)
                if pair is not None:
                    c[pair] += 2
                    if c[pair] > 4:
                        continue
                key = (m, p, tuple(c))
                if key in seen:
                    continue
                seen.add(key)
                rows.append(c)
                ms.append(m)
                ps.append(p)
    return np.array(rows, np.int16), np.array(ms, np.int64), np.array(ps, np.int64)


def _enumerate_suit_seven():
    """Every per-suit multiset of j pair slots (0..7), a rank giving at most 2 slots (4 tiles)."""
    rows, js = [], []
    for c in itertools.product((0, 2, 4), repeat=9):
        j = sum(c) // 2
        if j <= 7:
            rows.append(c)
            js.append(j)
    return np.array(rows, np.int16), np.array(js, np.int64)


_SUIT_REGULAR = None
_SUIT_SEVEN = None


def _suit_tables():
    global _SUIT_REGULAR, _SUIT_SEVEN
    if _SUIT_REGULAR is None:
        _SUIT_REGULAR = _enumerate_suit_regular()
        _SUIT_SEVEN = _enumerate_suit_seven()
    return _SUIT_REGULAR, _SUIT_SEVEN


@dataclass
class SuitPart:
    """The partial targets of one suit: rows (N, 9) and their group (m*2+p, or j)."""

    rows: np.ndarray
    group: np.ndarray
    n_groups: int

    def min_dist(self, h9: np.ndarray) -> np.ndarray:
        """min |T_s \\ H_s| per group, by direct counting over every row (INF if none)."""
        out = np.full(self.n_groups, INF, np.int64)
        if len(self.rows):
            d = np.maximum(self.rows - h9[None, :], 0).sum(axis=1)
            np.minimum.at(out, self.group, d)
        return out


@dataclass
class Targets:
    """Every legal winning target for (void, k, caps), held per suit (see module docstring)."""

    void: int | None
    k: int
    caps: tuple
    suits: list
    regular: dict = field(default_factory=dict)  # suit -> SuitPart, group m*2+p
    seven: dict = field(default_factory=dict)  # suit -> SuitPart, group j (k == 0 only)

    def regular_allocations(self):
        """(m per suit, pair suit): every way to spread 4-k sets and one pair over the suits."""
        n = 4 - self.k
        for ms in itertools.product(range(n + 1), repeat=len(self.suits)):
            if sum(ms) != n:
                continue
            for ps in self.suits:
                yield dict(zip(self.suits, ms)), ps

    def seven_allocations(self):
        for js in itertools.product(range(8), repeat=len(self.suits)):
            if sum(js) == 7:
                yield dict(zip(self.suits, js))

    def iter_regular(self):
        """Every full regular target as a 27-array (large for k <= 1: prefer ``shanten``)."""
        seen = set()
        for ms, ps in self.regular_allocations():
            choices = []
            for s in self.suits:
                part = self.regular[s]
                g = ms[s] * 2 + (1 if s == ps else 0)
                choices.append((s, part.rows[part.group == g]))
            for pick in itertools.product(*[range(len(rows)) for _, rows in choices]):
                t = np.zeros(N_KINDS, np.int64)
                for (s, rows), i in zip(choices, pick):
                    t[s * 9:s * 9 + 9] = rows[i]
                key = t.tobytes()
                if key not in seen:
                    seen.add(key)
                    yield t

    def iter_seven(self):
        """Every full seven-pairs target as a 27-array (k == 0 only)."""
        if self.k != 0:
            return
        for js in self.seven_allocations():
            choices = []
            for s in self.suits:
                part = self.seven[s]
                choices.append((s, part.rows[part.group == js[s]]))
            for pick in itertools.product(*[range(len(rows)) for _, rows in choices]):
                t = np.zeros(N_KINDS, np.int64)
                for (s, rows), i in zip(choices, pick):
                    t[s * 9:s * 9 + 9] = rows[i]
                yield t


_TARGETS: dict = {}


def targets(void, k: int, meld_cnt=None) -> Targets:
    """Every legal winning target over the non-void suits with k declared sets.

    Regular: 4-k sets (pungs or runs) and one pair; seven pairs when k == 0 (seven pair slots,
    a kind giving at most two). Always ``T_t + meld_cnt[t] <= 4``. Cached per
    (void, k, per-tile caps)."""
    v = void_index(void)
    if meld_cnt is None:
        meld_cnt = np.zeros(N_KINDS, np.int64)
    caps = tuple(int(4 - meld_cnt[t]) for t in range(N_KINDS))
    key = (v, k, caps)
    if key in _TARGETS:
        return _TARGETS[key]
    (rrows, rm, rp), (srows, sj) = _suit_tables()
    suits = [s for s in range(3) if s != v]
    tg = Targets(v, k, caps, suits)
    for s in suits:
        cap9 = np.array(caps[s * 9:s * 9 + 9], np.int16)
        ok = (rrows <= cap9).all(axis=1) & (rm <= 4 - k)
        tg.regular[s] = SuitPart(rrows[ok], (rm * 2 + rp)[ok], 10)
        if k == 0:
            ok7 = (srows <= cap9).all(axis=1)
            tg.seven[s] = SuitPart(srows[ok7], sj[ok7], 8)
    _TARGETS[key] = tg
    return tg


# -- shanten -------------------------------------------------------------------------------


def distance(target, hand) -> int:
    """|T \\ H|: tiles of the target the hand lacks."""
    return int(np.maximum(np.asarray(target) - np.asarray(hand), 0).sum())


def regular_distance(hand, void, k, meld_cnt=None) -> int:
    hand = as_counts(hand)
    tg = targets(void, k, meld_cnt)
    mins = {s: tg.regular[s].min_dist(hand[s * 9:s * 9 + 9]) for s in tg.suits}
    best = INF
    for ms, ps in tg.regular_allocations():
        v = sum(mins[s][ms[s] * 2 + (1 if s == ps else 0)] for s in tg.suits)
        best = min(best, v)
    return best


def seven_distance(hand, void, meld_cnt=None) -> int:
    hand = as_counts(hand)
    tg = targets(void, 0, meld_cnt)
    mins = {s: tg.seven[s].min_dist(hand[s * 9:s * 9 + 9]) for s in tg.suits}
    best = INF
    for js in tg.seven_allocations():
        best = min(best, sum(mins[s][js[s]] for s in tg.suits))
    return best


def regular_shanten(hand, void=None, k=0, meld_cnt=None) -> int:
    return regular_distance(hand, void, k, meld_cnt) - 1


def seven_pairs_shanten(hand, void=None) -> int:
    return seven_distance(hand, void) - 1


def shanten(hand, void=None, k=0, meld_cnt=None) -> int:
    """min over every target T of |T \\ H| - 1 (regular, and seven pairs when k == 0)."""
    d = regular_distance(hand, void, k, meld_cnt)
    if k == 0:
        d = min(d, seven_distance(hand, void, meld_cnt))
    return d - 1


def shanten_by_full_enumeration(hand, void=None, k=0, meld_cnt=None) -> int:
    """The same minimum over explicitly built full targets (slow: use for k >= 2 or checks)."""
    hand = as_counts(hand)
    tg = targets(void, k, meld_cnt)
    best = min(distance(t, hand) for t in tg.iter_regular())
    if k == 0:
        best = min(best, min(distance(t, hand) for t in tg.iter_seven()))
    return best - 1


# -- win test, decompositions --------------------------------------------------------------


def _sets(h: list, n: int):
    """Yield every split of h (a mutable count list) into n pungs/runs, as lists of sets.

    The lowest remaining tile must be in a pung of itself or in a run starting at it."""
    t = next((i for i in range(N_KINDS) if h[i]), None)
    if t is None:
        if n == 0:
            yield []
        return
    if n == 0:
        return
    if h[t] >= 3:
        h[t] -= 3
        for rest in _sets(h, n - 1):
            yield [("pung", t)] + rest
        h[t] += 3
    if t % 9 <= 6 and h[t + 1] and h[t + 2]:
        h[t] -= 1
        h[t + 1] -= 1
        h[t + 2] -= 1
        for rest in _sets(h, n - 1):
            yield [("run", t)] + rest
        h[t] += 1
        h[t + 1] += 1
        h[t + 2] += 1


def regular_decompositions(hand, k: int):
    """Every (pair tile, [concealed sets]) of the concealed tiles with 4-k sets."""
    h = [int(x) for x in as_counts(hand)]
    if sum(h) != 14 - 3 * k:
        return
    for p in range(N_KINDS):
        if h[p] >= 2:
            h[p] -= 2
            for sets in _sets(h, 4 - k):
                yield p, sets
            h[p] += 2


def is_seven_pairs(hand, k: int) -> bool:
    """Seven pairs: nothing declared, 14 tiles, every count even (4 identical = two pairs)."""
    h = as_counts(hand)
    return k == 0 and int(h.sum()) == 14 and all(int(c) % 2 == 0 for c in h)


def holds_void(hand, void) -> bool:
    v = void_index(void)
    h = as_counts(hand)
    return v is not None and int(h[v * 9:v * 9 + 9].sum()) > 0


def is_win(hand, void=None, k=0) -> bool:
    """14-3k concealed tiles forming 4-k sets + a pair (or seven pairs), no void tile."""
    h = as_counts(hand)
    if int(h.sum()) != 14 - 3 * k or holds_void(h, void):
        return False
    if is_seven_pairs(h, k):
        return True
    return next(regular_decompositions(h, k), None) is not None


def waits(hand, void=None, k=0, meld_cnt=None) -> list[int]:
    """Tiles (indices) that complete the hand; never a void tile nor one held four times
    counting declared sets."""
    h = as_counts(hand)
    v = void_index(void)
    if meld_cnt is None:
        meld_cnt = np.zeros(N_KINDS, np.int64)
    out = []
    for t in range(N_KINDS):
        if t // 9 == v or h[t] + meld_cnt[t] >= 4:
            continue
        h[t] += 1
        if is_win(h, v, k):
            out.append(t)
        h[t] -= 1
    return out


# -- fan -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    fan: int
    base: int
    patterns: list  # every pattern dict (name -> fan, nonzero) achieving the best fan


def fan_value(hand, void, melds, options: dict, *, self_draw=False, kong_replacement=False,
              robbing_kong=False, last_tile=False, heavenly=False, earthly=False,
              kong_discard=False) -> Value | None:
    """Best fan over all decompositions (RULES.md: Fan patterns); None if the hand does not win.

    ``options`` is ``RuleSet.options()`` (an option an older rule set lacks counts 0). A
    ``self_draw`` win scores the self_draw pattern (0 fan in the four seed presets);
    ``kong_discard``: the win is on the discard that ends a kong seat's turn."""
    h = as_counts(hand)
    ml = meld_list(melds)
    k = len(ml)
    v = void_index(void)
    if any(t // 9 == v for t, _ in ml):
        return None
    if not is_win(h, v, k):
        return None
    cap = options["fan_cap"]
    if options["limit_hands"]:
        n_kongs = sum(1 for _, size in ml if size == 4)
        for name, on in (("heavenly", heavenly), ("earthly", earthly), ("eighteen_arhats", k == 4 and n_kongs == 4)):
            if on:
                return Value(cap, 2**cap, [{name: cap}])
    total = h + meld_counts(ml)
    common = {}
    roots = int((total == 4).sum())
    common["root"] = roots * options["fan_root"]
    suits_held = {t // 9 for t in range(N_KINDS) if total[t]}
    if len(suits_held) == 1:
        common["full_flush"] = options["fan_full_flush"]
    if kong_replacement:
        common["kong_replacement"] = options["fan_kong_replacement"]
    if robbing_kong:
        common["robbing_kong"] = options["fan_robbing_kong"]
    if last_tile:
        common["last_tile"] = options["fan_last_tile"]
    if kong_discard:
        common["kong_discard"] = options.get("fan_kong_discard", 0)
    if self_draw:
        common["self_draw"] = options.get("fan_self_draw", 0)
    candidates = []
    for _pair, sets in regular_decompositions(h, k):
        pats = dict(common)
        if all(kind == "pung" for kind, _ in sets):  # declared sets are always pungs/kongs
            pats["all_triplets"] = options["fan_all_triplets"]
        if k == 4:
            pats["four_declared"] = options["fan_four_declared"]
        candidates.append(pats)
    if is_seven_pairs(h, k):
        pats = dict(common)
        pats["seven_pairs"] = options["fan_seven_pairs"]
        candidates.append(pats)
    cleaned = []
    for pats in candidates:
        pats = {name: val for name, val in pats.items() if val}
        if pats not in cleaned:
            cleaned.append(pats)
    best = max(sum(p.values()) for p in cleaned)
    return Value(best, 2 ** min(best, cap), [p for p in cleaned if sum(p.values()) == best])


def ready_value(hand, void, melds, options: dict) -> int:
    """The ready check: best base over the waits valued as a plain discard win; 0 if none."""
    h = as_counts(hand)
    ml = meld_list(melds)
    best = 0
    for t in waits(h, void, len(ml), meld_counts(ml)):
        h[t] += 1
        val = fan_value(h, void, ml, options)
        h[t] -= 1
        best = max(best, val.base)
    return best
