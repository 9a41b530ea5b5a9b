"""Independent truth for the hand evaluator (simcore.inspection.hand, simcore.contract.evaluate, simcore.contract.tables).

Three references, none of them sharing code with the evaluator:
* the ``mahjong`` package's regular-hand shanten (riichi, suited tiles only: the same shape rule),
* ``tests/support/hand_oracle.py``: brute force over targets and decompositions, written from RULES.md,
* RULES.md: Fan patterns, its "Check against the documents" list, and RULES.md: Worked example.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mahjong.shanten import Shanten

from tests.support import hand_oracle as O
from simcore.contract import evaluate as ev
from simcore.inspection import hand as H
from simcore.contract import rules as R
from simcore.contract.rules import PRESETS, preset
from simcore.contract.tables import load_tables
from simcore.contract.tiles import fmt, parse, tile_text

SUITS = "mps"
TAB = load_tables()
OPTIONS = {name: preset(name).options() for name in PRESETS}
WALL = np.repeat(np.arange(27), 4)


def _void_letter(v):
    return None if v is None else SUITS[v]


def _meld_text(t, size):
    return str(t % 9 + 1) * size + SUITS[t // 9]


def _to34(h):
    return [int(x) for x in h] + [0] * 7


# -- biased random hands -------------------------------------------------------------------


class Case:
    """A random evaluator input: concealed counts, void (index or None), declared sets."""

    def __init__(self, hand, void, melds):
        self.hand = np.asarray(hand, np.int64)
        self.void = void
        self.melds = melds  # [(tile, size)]
        self.k = len(melds)
        self.meld_cnt = O.meld_counts(melds)
        self.meld_text = [_meld_text(t, s) for t, s in melds]
        self.void_text = _void_letter(void)

    def __repr__(self):
        return f"Case({fmt(self.hand)!r}, void={self.void_text!r}, melds={self.meld_text})"


def _room(hand, meld_cnt, t):
    return 4 - hand[t] - meld_cnt[t]


def random_case(rng, size="any", mode=None) -> Case:
    """Build a complete hand from random sets (or seven pairs), then perturb it.

    Biases: a third of hands use one suit (flushes, many repeats), some hold the fourth copy
    of a declared pung, some a concealed quad, some void tiles. ``size``: "win" (14-3k),
    "ready" (13-3k) or "any"."""
    void = [None, 0, 1, 2][rng.integers(4)]
    suits = [s for s in range(3) if s != void]
    if rng.random() < 0.35:
        suits = [suits[rng.integers(len(suits))]]
    kinds = [s * 9 + r for s in suits for r in range(9)]
    if mode is None:
        mode = ["sets", "sets", "seven", "random"][rng.integers(4)]
    k = 0 if mode == "seven" else int(rng.choice(5, p=[0.4, 0.15, 0.15, 0.15, 0.15]))
    meld_cnt = np.zeros(27, np.int64)
    melds = []
    for _ in range(k):
        free = [t for t in kinds if meld_cnt[t] == 0]
        t = int(free[rng.integers(len(free))])
        size_m = 4 if rng.random() < 0.35 else 3
        melds.append((t, size_m))
        meld_cnt[t] += size_m
    n = 14 - 3 * k
    hand = np.zeros(27, np.int64)
    if mode == "seven":
        slots = 0
        while slots < 7:
            t = kinds[rng.integers(len(kinds))]
            if hand[t] + 2 <= 4 and (hand[t] == 0 or rng.random() < 0.3):
                hand[t] += 2
                slots += 1
    elif mode == "sets":
        for attempt in range(200):
            hand[:] = 0
            ok = True
            for _ in range(4 - k):
                opts = [("pung", t) for t in kinds if _room(hand, meld_cnt, t) >= 3]
                opts += [("run", t) for t in kinds if t % 9 <= 6
                         and all(_room(hand, meld_cnt, t + i) >= 1 for i in range(3))]
                if not opts:
                    ok = False
                    break
                kind, t = opts[rng.integers(len(opts))]
                if kind == "pung":
                    hand[t] += 3
                else:
                    hand[t:t + 3] += 1
            pairs = [t for t in kinds if _room(hand, meld_cnt, t) >= 2]
            if ok and pairs:
                hand[pairs[rng.integers(len(pairs))]] += 2
                break
        else:  # pragma: no cover
            raise RuntimeError("could not build a hand")
    else:
        pool = [t for t in kinds for _ in range(4 - meld_cnt[t])]
        for i in rng.permutation(len(pool))[:n]:
            hand[pool[i]] += 1
        if hand.sum() < n:  # a one-suit pool can run short: top up from any non-void suit
            extra = [t for t in range(27) if t // 9 != void and _room(hand, meld_cnt, t) > 0]
            while hand.sum() < n:
                t = extra[rng.integers(len(extra))]
                if _room(hand, meld_cnt, t) > 0:
                    hand[t] += 1

    def swap_in(t):
        held = np.flatnonzero(hand)
        out = int(held[rng.integers(len(held))])
        if out == t:
            return
        hand[out] -= 1
        hand[t] += 1

    # perturb: a few random swaps (sometimes to a void tile)
    for _ in range(int(rng.choice(4, p=[0.35, 0.35, 0.2, 0.1]))):
        if void is not None and rng.random() < 0.12:
            pool = [void * 9 + r for r in range(9)]
        else:
            pool = kinds if rng.random() < 0.7 else [t for t in range(27) if t // 9 != void]
        cand = [t for t in pool if _room(hand, meld_cnt, t) > 0]
        if cand:
            swap_in(cand[rng.integers(len(cand))])
    # the fourth copy of a declared pung held in hand
    pungs = [t for t, s in melds if s == 3 and hand[t] == 0]
    if pungs and rng.random() < 0.3:
        swap_in(pungs[rng.integers(len(pungs))])
    # a concealed quad
    triples = [t for t in range(27) if hand[t] == 3 and meld_cnt[t] == 0]
    if triples and rng.random() < 0.4:
        swap_in(triples[rng.integers(len(triples))])
    if size == "any":
        size = "win" if rng.random() < 0.5 else "ready"
    if size == "ready":
        held = np.flatnonzero(hand)
        hand[held[rng.integers(len(held))]] -= 1
    assert hand.sum() == (n if size == "win" else n - 1)
    assert ((hand + meld_cnt) <= 4).all() and (hand >= 0).all()
    return Case(hand, void, melds)


def wall_hand(rng, n, one_suit=False):
    """n tiles off a shuffled 108-tile wall (or one suit's 36 tiles): never a fifth copy."""
    wall = WALL if not one_suit else WALL[WALL // 9 == rng.integers(3)]
    return np.bincount(rng.permutation(wall)[:n], minlength=27).astype(np.int64)


# -- regular shanten against the mahjong package --------------------------------------------

SIZES = (14, 13, 11, 8, 5, 2)


def test_regular_shanten_matches_mahjong_package():
    """Regular shanten (four sets + a pair, k sets declared) is the riichi definition on
    suited tiles, so the table kernel must equal the mahjong package's DFS everywhere."""
    rng = np.random.default_rng(20240601)
    mismatches = []
    for i in range(24_000):
        n = SIZES[i % len(SIZES)]
        h = wall_hand(rng, n, one_suit=(i % 4 == 0))
        k = (14 - n) // 3
        ours = int(ev.regular_shanten(TAB, h, ev.NO_VOID, k))
        ref = Shanten.calculate_shanten_for_regular_hand(_to34(h))
        if ours != ref:
            mismatches.append((fmt(h), k, ours, ref))
    assert not mismatches[:10], f"{len(mismatches)} mismatches, e.g. {mismatches[:10]}"


@pytest.mark.slow
def test_shanten_is_min_of_regular_and_seven_pairs():
    """hand.shanten = min(regular, seven pairs) with no void: regular from the mahjong
    package, seven pairs from mahjong where no kind has three or more copies (there the
    riichi rule agrees with ours) and from the oracle otherwise (a quad is two pairs here)."""
    rng = np.random.default_rng(7)
    mismatches = []
    n_oracle = 0
    for i in range(20_000):
        n = SIZES[i % len(SIZES)]
        h = wall_hand(rng, n, one_suit=(i % 3 == 0))
        k = (14 - n) // 3
        expected = Shanten.calculate_shanten_for_regular_hand(_to34(h))
        if k == 0:
            if h.max() <= 2:
                seven = Shanten.calculate_shanten_for_chiitoitsu_hand(_to34(h))
                assert seven == O.seven_pairs_shanten(h, None), fmt(h)
            else:
                seven = O.seven_pairs_shanten(h, None)
                n_oracle += 1
            expected = min(expected, seven)
        got = H.shanten(h, None, k)
        if got != expected:
            mismatches.append((fmt(h), k, got, expected))
    assert n_oracle > 1000
    assert not mismatches[:10], f"{len(mismatches)} mismatches, e.g. {mismatches[:10]}"


# -- the oracle itself -------------------------------------------------------------------------


def test_oracle_per_suit_split_equals_full_target_enumeration():
    """The oracle's per-suit min-plus must equal min |T \\ H| over explicitly built targets
    (checked where full enumeration is cheap: k >= 2 declared sets)."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        c = random_case(rng, mode="sets")
        while c.k < 2:
            c = random_case(rng, mode="sets")
        assert O.shanten(c.hand, c.void, c.k, c.meld_cnt) == O.shanten_by_full_enumeration(
            c.hand, c.void, c.k, c.meld_cnt), c


@pytest.mark.parametrize("text, void, melds, expected", [
    ("4444m123456789p", None, [], 1),  # RULES.md: Winning hands, four copies held cannot also be the pair
    ("123m456p789s1155m", "s", [], 3),  # simcore.inspection.hand docstring: the 789s must go
    ("112233445566m12s", "s", [], 1),  # ARCHITECTURE.md: Hand evaluation, seven pairs with void tiles is 1 away
    ("1112345678999m", "p", [], 0),
    ("11112233445566m", None, [], -1),  # a quad counts as two pairs
    ("5m", None, ["111p", "222p", "333p", "444p"], 0),
    ("55m", None, ["111p", "222p", "333p", "4444p"], -1),
])
def test_oracle_reproduces_documented_shanten(text, void, melds, expected):
    """The oracle agrees with the shanten values stated in RULES.md, ARCHITECTURE.md and docstrings."""
    mc = O.meld_counts(melds)
    assert O.shanten(parse(text), void, len(melds), mc) == expected
    assert H.shanten(text, void, melds) == expected


@pytest.mark.parametrize("text, void, melds, expected", [
    pytest.param("111m3355p227799s", None, [], ["1m"], id="seven_pairs_quad_is_two_pairs"),
    pytest.param("4444m123456789p", None, [], [], id="no_fifth_copy_as_pair"),
    pytest.param("4p", None, ["111p", "222p", "333p", "444p"], [], id="fourth_copy_of_declared_pung"),
    pytest.param("5m", None, ["111p", "222p", "333p", "444p"], ["5m"], id="golden_hook_single_wait"),
    pytest.param("1122m3355p4667s7m", "s", [], [], id="holding_a_void_tile"),
    pytest.param("11335577p2266s4s", "m", [], ["4s"], id="worked_example_D"),
])
def test_waits_never_include_a_fifth_copy_or_a_void_hand(text, void, melds, expected):
    """RULES.md: Settlement, step 2: a wait is never a tile the seat holds all four of (hand and declared sets),
    a quad serves as two pairs, and a hand holding a void tile waits on nothing."""
    assert H.waits(text, void, melds) == expected
    assert [tile_text(t) for t in O.waits(parse(text), void, len(melds), O.meld_counts(melds))] == expected
    assert (H.shanten(text, void, melds) == 0) == bool(expected)


# -- void suits, declared sets, win test, waits against the oracle --------------------------


def _check_case(c: Case, problems: list):
    exp = O.shanten(c.hand, c.void, c.k, c.meld_cnt)
    got = H.shanten(c.hand, c.void_text, c.meld_text)
    if got != exp:
        problems.append(("shanten", c, got, exp))
    if c.hand.sum() == 14 - 3 * c.k:
        exp_w = O.is_win(c.hand, c.void, c.k)
        got_w = H.is_win(c.hand, c.void_text, c.meld_text)
        if got_w != exp_w:
            problems.append(("is_win", c, got_w, exp_w))
        if (exp == -1) != exp_w:
            problems.append(("oracle win/shanten", c, exp, exp_w))
    else:
        exp_ws = [tile_text(t) for t in O.waits(c.hand, c.void, c.k, c.meld_cnt)]
        got_ws = H.waits(c.hand, c.void_text, c.meld_text)
        if got_ws != exp_ws:
            problems.append(("waits", c, got_ws, exp_ws))
        if (exp == 0) != bool(exp_ws):
            problems.append(("oracle waits/shanten", c, exp, exp_ws))


@pytest.mark.slow
def test_void_and_declared_sets_match_oracle():
    """Shanten over non-void suits with caps from declared sets, the win test and the waits
    equal the brute-force oracle on biased random hands (void tiles, quads, 4th copies of
    declared pungs, seven-pairs shapes, k = 0..4)."""
    rng = np.random.default_rng(11)
    problems = []
    stats = dict(win=0, ready=0, void_held=0, fourth_of_pung=0, quad=0, seven=0, k=[0] * 5)
    for i in range(2400):
        c = random_case(rng)
        _check_case(c, problems)
        n = c.hand.sum()
        stats["k"][c.k] += 1
        stats["win"] += n == 14 - 3 * c.k and O.is_win(c.hand, c.void, c.k)
        stats["ready"] += n == 13 - 3 * c.k and bool(O.waits(c.hand, c.void, c.k, c.meld_cnt))
        stats["void_held"] += O.holds_void(c.hand, c.void)
        stats["fourth_of_pung"] += any(s == 3 and c.hand[t] for t, s in c.melds)
        stats["quad"] += bool((c.hand == 4).any())
        stats["seven"] += c.k == 0 and (c.hand >= 2).sum() >= 5
    assert not problems[:10], f"{len(problems)} problems, e.g. {problems[:10]}"
    # the generator must actually reach the interesting regions
    assert stats["win"] > 200 and stats["ready"] > 200, stats
    assert stats["void_held"] > 100 and stats["fourth_of_pung"] > 50 and stats["quad"] > 100, stats
    assert stats["seven"] > 200 and min(stats["k"]) > 150, stats


def test_declared_sets_given_as_a_number_match_oracle_without_caps():
    """melds=k (tiles unknown) counts k sets but caps nothing: same as the oracle with no
    declared tiles."""
    rng = np.random.default_rng(12)
    for _ in range(300):
        c = random_case(rng)
        assert H.shanten(c.hand, c.void_text, c.k) == O.shanten(c.hand, c.void, c.k), c


def test_ready_value_matches_oracle():
    """The ready check's value (best discard-win base over the waits) equals the oracle's."""
    rng = np.random.default_rng(13)
    seen_ready = 0
    for i in range(600):
        c = random_case(rng, size="ready")
        name = PRESETS[i % 4]
        exp = O.ready_value(c.hand, c.void, c.melds, OPTIONS[name])
        seen_ready += exp > 0
        assert H.ready_value(c.hand, c.void_text, c.meld_text, rules=name) == exp, (c, name)
    assert seen_ready > 100


# -- fan patterns, one per pattern per preset ---------------------------------------------------

# The table of RULES.md: Fan patterns, by preset: (battle/flow/kawu, chengdu, tfmj) (kawu = battle
# table: RULES.md: Rulings where the documents are silent).
_TABLE = dict(all_triplets=(1, 1, 1), seven_pairs=(2, 1, 2), full_flush=(2, 1, 2), four_declared=(1, 1, 1),
              root=(1, 1, 1), kong_replacement=(1, 1, 1), robbing_kong=(1, 1, 1), last_tile=(1, 0, 1),
              kong_discard=(0, 0, 1), self_draw=(0, 0, 0))
_COLUMN = dict(chengdu=1, tfmj=2)
FAN = {p: {name: v[_COLUMN.get(p, 0)] for name, v in _TABLE.items()} for p in PRESETS}
CAP = dict(battle=4, flow=4, chengdu=6, kawu=5, tfmj=3)
LIMITS = dict(battle=False, flow=False, chengdu=True, kawu=False, tfmj=False)


def test_preset_fan_options_follow_rules_table():
    """The presets' fan options are the table of RULES.md: Fan patterns (the oracle reads them as data)."""
    for p in PRESETS:
        opts = OPTIONS[p]
        assert {n: opts[f"fan_{n}"] for n in _TABLE} == FAN[p]
        assert opts["fan_cap"] == CAP[p] and opts["limit_hands"] == LIMITS[p]


BASIC = "123m456m789p234p55p"  # two suits, runs, no root: nothing but a win
# name -> (hand, void, melds, context, patterns as counts (root may be several), limit)
PATTERN_CASES = {
    "basic": (BASIC, "s", [], {}, {}, None),
    "all_triplets": ("111m333m555p777p99p", "s", [], {}, {"all_triplets": 1}, None),
    "seven_pairs": ("1133m5577p2299s44s", None, [], {}, {"seven_pairs": 1}, None),
    "full_flush": ("123456789m23455m", "p", [], {}, {"full_flush": 1}, None),
    "four_declared": ("55p", "s", ["111m", "999m", "222p", "888p"], {},
                      {"all_triplets": 1, "four_declared": 1}, None),
    "root_concealed": ("1111m23m456p789p55p", "s", [], {}, {"root": 1}, None),
    "root_declared_kong": ("234m567p789p55p", "s", ["1111m"], {}, {"root": 1}, None),
    "root_fourth_of_pung": ("1m23m567p789p55p", "s", ["111m"], {}, {"root": 1}, None),
    "kong_replacement": ("234m567p789p55p", "s", ["1111m"],
                         dict(self_draw=True, kong_replacement=True),
                         {"root": 1, "kong_replacement": 1}, None),
    "robbing_kong": (BASIC, "s", [], dict(robbing_kong=True), {"robbing_kong": 1}, None),
    "last_tile": (BASIC, "s", [], dict(last_tile=True), {"last_tile": 1}, None),
    "self_draw": (BASIC, "s", [], dict(self_draw=True), {"self_draw": 1}, None),
    "kong_discard": (BASIC, "s", [], dict(kong_discard=True), {"kong_discard": 1}, None),
    "heavenly": (BASIC, "s", [], dict(self_draw=True, heavenly=True), {}, "heavenly"),
    "earthly": (BASIC, "s", [], dict(self_draw=True, earthly=True), {}, "earthly"),
    "eighteen_arhats": ("55p", "s", ["1111m", "9999m", "2222p", "8888p"], {},
                        {"all_triplets": 1, "four_declared": 1, "root": 4}, "eighteen_arhats"),
}


def _expected(p, patterns, limit):
    if limit and LIMITS[p]:
        return CAP[p], {limit: CAP[p]}
    pats = {n: c * FAN[p][n] for n, c in patterns.items() if c * FAN[p][n]}
    return sum(pats.values()), pats


@pytest.mark.parametrize("p", PRESETS)
@pytest.mark.parametrize("pattern", list(PATTERN_CASES))
def test_fan_pattern_per_preset(pattern, p):
    """Each pattern of RULES.md: Fan patterns, scores its table value in each preset; limit hands are worth
    the cap with only their pattern under chengdu and count nothing elsewhere."""
    text, void, melds, ctx, patterns, limit = PATTERN_CASES[pattern]
    fan, pats = _expected(p, patterns, limit)
    s = H.score(text, void, melds, rules=p, **ctx)
    assert (s.fan, s.patterns) == (fan, pats)
    assert s.base == 2 ** min(fan, CAP[p])
    v = O.fan_value(parse(text), void, melds, OPTIONS[p], **ctx)
    assert v.fan == fan and pats in v.patterns


@pytest.mark.parametrize("text, melds, fan, base", [
    pytest.param("111333555777m99m", [], 2, 4, id="pure_triplets"),
    pytest.param("1111m22m33p44p55s66s", [], 2, 4, id="dragon_seven_pairs"),
    pytest.param("11112233445566m", [], 3, 8, id="pure_dragon_seven_pairs"),
    pytest.param("55p", ["111m", "222p", "333s", "444s"], 2, 4, id="golden_hook"),
    pytest.param("99m", ["111m", "333m", "555m", "777m"], 3, 8, id="pure_golden_hook"),
])
def test_chengdu_check_against_the_documents(text, melds, fan, base):
    """RULES.md: Fan patterns, chengdu's pure triplets 4x, dragon seven pairs 4x, pure dragon seven pairs
    8x, golden hook 4x, pure golden hook 8x."""
    s = H.score(text, None, melds, rules="chengdu")
    assert (s.fan, s.base) == (fan, base)
    assert O.fan_value(parse(text), None, melds, OPTIONS["chengdu"]).base == base


@pytest.mark.parametrize("p", ["battle", "flow", "kawu"])
def test_pure_dragon_seven_pairs_is_capped(p):
    """5 fan (seven pairs 2 + flush 2 + root 1) reports fan 5 but pays 2**fan_cap."""
    s = H.score("11112233445566m", "p", rules=p)
    assert s.fan == 5 and s.base == 2 ** CAP[p]
    assert s.patterns == {"seven_pairs": 2, "full_flush": 2, "root": 1}


def test_cap_under_battle_pays_16():
    """A 6-fan hand (flush 2, all triplets 1, four declared 1, two roots) pays 16 in battle."""
    s = H.score("99m", "p", ["1111m", "3333m", "555m", "777m"], rules="battle")
    assert s.fan == 6 and s.base == 16


@pytest.mark.parametrize("limit, text, void, melds, ctx", [
    pytest.param("heavenly", "11112233445566m", "p", [], dict(self_draw=True, heavenly=True), id="heavenly"),
    pytest.param("earthly", BASIC, "s", [], dict(self_draw=True, earthly=True), id="earthly"),
    pytest.param("eighteen_arhats", "99m", "p", ["1111m", "3333m", "5555m", "7777m"], {}, id="eighteen_arhats"),
])
def test_chengdu_limit_hands_are_worth_the_cap_alone(limit, text, void, melds, ctx):
    """A limit hand reports fan = fan_cap (6) and only its limit pattern, whether its
    ordinary patterns are worth more (pure dragon seven pairs, 4 kongs) or nothing (basic)."""
    s = H.score(text, void, melds, rules="chengdu", **ctx)
    assert (s.fan, s.base, s.patterns) == (6, 64, {limit: 6})
    v = O.fan_value(parse(text), void, melds, OPTIONS["chengdu"], **ctx)
    assert (v.fan, v.base, v.patterns) == (6, 64, [{limit: 6}])


def test_worked_example_full_flush_self_draw_on_5m():
    """RULES.md: Worked example, C self-draws 5m for a full flush, 2 fan, base 4 (battle)."""
    hand = parse("123456789m234m5m")
    assert "5m" in H.waits(hand, "s")
    assert H.waits(hand, "s") == [tile_text(t) for t in O.waits(hand, "s")]
    hand[4] += 1
    s = H.score(hand, "s", rules="battle", self_draw=True)
    assert (s.fan, s.base, s.patterns) == (2, 4, {"full_flush": 2})


def test_worked_example_seven_pairs_ready_on_4s():
    """RULES.md: Worked example, D (void m) is ready on seven pairs waiting on 4s, base 4."""
    d = "11335577p2266s4s"
    assert H.waits(d, "m") == ["4s"]
    assert H.ready_value(d, "m", rules="battle") == 4
    assert O.ready_value(parse(d), "m", [], OPTIONS["battle"]) == 4


# -- random scores against the oracle -----------------------------------------------------------


def _random_context(rng, c: Case):
    ctx = {}
    has_kong = any(s == 4 for _, s in c.melds)
    r = rng.random()
    if r < 0.35:
        ctx["self_draw"] = True
        if has_kong and rng.random() < 0.5:
            ctx["kong_replacement"] = True
        elif c.k == 0 and rng.random() < 0.2:
            ctx["heavenly" if rng.random() < 0.5 else "earthly"] = True
    elif r < 0.5:
        ctx["robbing_kong"] = True
    elif r < 0.65:
        ctx["kong_discard"] = True
    if "robbing_kong" not in ctx and rng.random() < 0.2:
        ctx["last_tile"] = True
    return ctx


def test_score_matches_oracle_on_random_winning_hands():
    """Score (fan, base, patterns) equals the oracle's best decomposition on random winning
    hands with random win contexts, every preset."""
    rng = np.random.default_rng(17)
    checked = 0
    problems = []
    while checked < 800:
        mode = ["sets", "seven"][rng.integers(2)]
        c = random_case(rng, size="win", mode=mode)
        if not O.is_win(c.hand, c.void, c.k):
            continue
        ctx = _random_context(rng, c)
        p = PRESETS[checked % len(PRESETS)]
        # the new fans at random too, so each is checked in every context
        opts = dict(OPTIONS[p], fan_kong_discard=int(rng.integers(3)), fan_self_draw=int(rng.integers(3)))
        exp = O.fan_value(c.hand, c.void, c.melds, opts, **ctx)
        got = H.score(c.hand, c.void_text, c.meld_text,
                      rules=R.resolve(p, {k: opts[k] for k in ("fan_kong_discard", "fan_self_draw")}), **ctx)
        if got.fan != exp.fan or got.base != exp.base or got.patterns not in exp.patterns:
            problems.append((c, p, ctx, got, exp))
        checked += 1
    assert not problems[:5], f"{len(problems)} problems, e.g. {problems[:5]}"


# -- properties -------------------------------------------------------------------------------


@st.composite
def hand_cases(draw, size):
    """A hypothesis case: void, declared sets, then sets + pair (or seven pairs), perturbed
    by a few swaps that may bring in void tiles. size: "win" (14-3k) or "ready" (13-3k)."""
    void = draw(st.sampled_from([None, 0, 1, 2]))
    kinds = [t for t in range(27) if t // 9 != void]
    k = draw(st.integers(0, 4))
    meld_cnt = np.zeros(27, np.int64)
    melds = []
    for _ in range(k):
        t = draw(st.sampled_from([t for t in kinds if meld_cnt[t] == 0]))
        s = draw(st.sampled_from([3, 4]))
        melds.append((t, s))
        meld_cnt[t] += s
    hand = np.zeros(27, np.int64)
    if k == 0 and draw(st.booleans()):
        for _ in range(7):
            t = draw(st.sampled_from([t for t in kinds if hand[t] + 2 <= 4]))
            hand[t] += 2
    else:
        for _ in range(4 - k):
            opts = [(t, 0) for t in kinds if _room(hand, meld_cnt, t) >= 3]
            opts += [(t, 1) for t in kinds if t % 9 <= 6 and all(_room(hand, meld_cnt, t + i) >= 1 for i in range(3))]
            t, run = draw(st.sampled_from(opts))
            if run:
                hand[t:t + 3] += 1
            else:
                hand[t] += 3
        hand[draw(st.sampled_from([t for t in kinds if _room(hand, meld_cnt, t) >= 2]))] += 2
    for _ in range(draw(st.integers(0, 3))):
        held = [t for t in range(27) if hand[t]]
        out = draw(st.sampled_from(held))
        hand[out] -= 1
        t = draw(st.sampled_from([t for t in range(27) if _room(hand, meld_cnt, t) > 0]))
        hand[t] += 1
    if size == "ready":
        hand[draw(st.sampled_from([t for t in range(27) if hand[t]]))] -= 1
    return Case(hand, void, melds)


PROP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROP
@given(c=hand_cases("ready"), data=st.data())
def test_a_drawn_tile_lowers_shanten_by_at_most_one(c, data):
    """Adding a tile never raises the distance to a target and removes at most one missing tile."""
    t = data.draw(st.sampled_from([t for t in range(27) if c.hand[t] + c.meld_cnt[t] < 4]))
    before = H.shanten(c.hand, c.void_text, c.meld_text)
    h = c.hand.copy()
    h[t] += 1
    after = H.shanten(h, c.void_text, c.meld_text)
    event(f"lowered={after < before}")
    assert before - 1 <= after <= before


@PROP
@given(c=hand_cases("win"))
def test_a_hand_wins_exactly_when_its_shanten_is_minus_one(c):
    """RULES.md: Winning hands, shanten -1 means complete; void tiles held make both false."""
    win = H.is_win(c.hand, c.void_text, c.meld_text)
    event(f"win={win}")
    assert win == (H.shanten(c.hand, c.void_text, c.meld_text) == -1)


@PROP
@given(c=hand_cases("ready"))
def test_a_hand_is_ready_exactly_when_it_has_a_wait(c):
    """RULES.md: Winning hands, a 13-3k tile hand is ready (shanten 0) exactly when it has a wait, since
    targets never hold a fifth copy counting declared sets."""
    ready = bool(H.waits(c.hand, c.void_text, c.meld_text))
    event(f"ready={ready}")
    assert ready == (H.shanten(c.hand, c.void_text, c.meld_text) == 0)


# -- bad input ----------------------------------------------------------------------------------

GOOD13 = "123m456p789s1155m"  # 13 tiles


@pytest.mark.parametrize("call, match", [
    pytest.param(lambda: H.shanten("0m"), "rank 0", id="rank_zero"),
    pytest.param(lambda: H.shanten("5x"), "unknown character 'x'", id="unknown_suit_letter"),
    pytest.param(lambda: H.shanten("m"), "no ranks before it", id="suit_without_ranks"),
    pytest.param(lambda: H.shanten("123"), "no suit letter", id="ranks_without_suit"),
    pytest.param(lambda: H.shanten("11111m23456789p"), "5 copies of 1m", id="fifth_copy_text"),
    pytest.param(lambda: H.shanten(np.eye(27, dtype=np.int64)[0] * 5), "5 copies of 1m", id="fifth_copy_array"),
    pytest.param(lambda: H.shanten("1111m234567p", None, ["111m"]), "copies of 1m in hand and declared",
                 id="fifth_copy_with_meld"),
    pytest.param(lambda: H.shanten("123m"), "expected 13 or 14", id="too_few_tiles"),
    pytest.param(lambda: H.shanten("123m456p789s112233m"), "expected 13 or 14", id="too_many_tiles"),
    pytest.param(lambda: H.shanten("123m456p789s1155m", None, ["222p"]), "expected 10 or 11",
                 id="tile_count_ignores_melds"),
    pytest.param(lambda: H.shanten(np.r_[-1, np.ones(26, np.int64)]), "negative count", id="negative_count"),
    pytest.param(lambda: H.shanten(np.ones(26, np.int64)), r"shape \(27,\)", id="wrong_shape"),
    pytest.param(lambda: H.shanten("123p456p789s55s", "m", ["555m"]), "void suit", id="meld_in_void_suit"),
    pytest.param(lambda: H.shanten(GOOD13, "x"), "unknown suit 'x'", id="unknown_void_letter"),
    pytest.param(lambda: H.shanten(GOOD13, "mp"), "unknown suit", id="two_void_letters"),
    pytest.param(lambda: H.shanten("123p456p789s55s", None, ["55m"]), "not a pung", id="meld_not_a_set"),
    pytest.param(lambda: H.shanten("123p456p789s55s", None, ["556m"]), "not a pung", id="meld_mixed_tiles"),
    pytest.param(lambda: H.shanten("123p456p789s55s", None, "555m"), "list of sets", id="melds_as_string"),
    pytest.param(lambda: H.shanten("55s", None, 5), "0 to 4", id="five_declared"),
    pytest.param(lambda: H.score("123m456p789s11559m", "s"), "does not win", id="score_non_winning"),
    pytest.param(lambda: H.score("123m456m789m13579m", "s"), "does not win", id="score_non_winning_regular"),
    pytest.param(lambda: H.score(GOOD13), "winning hand has 14", id="score_wrong_size"),
    pytest.param(lambda: H.waits("1112345678999m5m"), "waits needs 13", id="waits_wrong_size"),
    pytest.param(lambda: H.ready_value("1112345678999m5m"), "ready_value needs 13", id="ready_value_wrong_size"),
    pytest.param(lambda: H.score("11223344556677m", "p", rules="nope"), "unknown preset", id="unknown_preset"),
])
def test_bad_input_raises_value_error_with_a_clear_message(call, match):
    """simcore.inspection.hand validates its input and says what is wrong, never a crash or a wrong answer."""
    with pytest.raises(ValueError, match=match):
        call()


def test_score_of_a_hand_holding_a_void_tile_is_refused():
    """A complete shape with a void tile held does not win (RULES.md: Winning hands, no void tile in hand)."""
    assert not H.is_win("123m456m789m123p55p", "p")
    with pytest.raises(ValueError, match="does not win"):
        H.score("123m456m789m123p55p", "p")


@pytest.mark.parametrize("call", [
    pytest.param(lambda: H.shanten(GOOD13, None, None), id="melds_none"),
    pytest.param(lambda: H.shanten(GOOD13, None, True), id="melds_bool"),
    pytest.param(lambda: H.score("11223344556677m", "p", rules=5), id="rules_not_a_name"),
])
def test_bad_argument_types_raise_value_error(call):
    """Arguments of the wrong type are bad input too: a ValueError that names the argument,
    not a TypeError/AttributeError from deep inside (melds=None mirrors void=None)."""
    with pytest.raises(ValueError, match="melds|rules|preset"):
        call()
