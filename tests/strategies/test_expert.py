"""The expert player and its exchange and void policies, on hands built by hand: the wait it
keeps is the one the evaluator values most, it plays for a flush where a flush pays, it passes a
discard win only where the rules make that pay, and its policies keep a long suit."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.inspection import hand as H
from simcore.contract.rules import N_RULE_FIELDS, R_SELF_DRAW_BONUS, preset
from simcore.contract.tiles import N_KINDS, SUITS, parse, tile_text
from simcore.contract.view import C_PASS, C_WIN, N_PARAMS, WRAPPED_PARAMS, Q_CLAIM, Q_EXCHANGE, Q_TURN, Q_VOID, V_CAN_WIN, V_PARAMS, V_QUESTION, V_RULES, V_TILE, V_DISC_SEQ, V_N_DISCARDS, V_VISIBLE, V_VOID, V_VOID_CAP, V_WALL_LEFT, pack_discard, unpack3
from strategies import exchange, expert as X, void
from strategies.core import suit_weight
from strategies.params import declared, resolve_values, slots
from tests.support.views import TAB, view_of


def expert_view(text: str, void_suit: int, rules: str = "battle", wall_left: int = 40, seen: str = "",
                question=Q_TURN, play: dict | None = None, voids=(0, 1, 2)) -> np.ndarray:
    """The seat's view; ``play`` overrides the expert's parameters, ``voids`` are the three
    opponents' void suits (none has shown that it holds no void tile)."""
    v = view_of(text, void_suit)
    v[V_RULES:V_RULES + N_RULE_FIELDS] = preset(rules).to_array()
    v[V_WALL_LEFT] = wall_left
    v[V_QUESTION] = question
    v[V_VISIBLE:V_VISIBLE + N_KINDS] += parse(seen) if seen else 0
    v[V_VOID + 1:V_VOID + 4] = voids
    v[V_VOID_CAP + 1:V_VOID_CAP + 4] = -1
    for group, fn in enumerate((X.expert, exchange.plans, void.plans)):
        params = declared(fn)
        given = (play or {}) if group == 0 else {}
        v[V_PARAMS + group * N_PARAMS:V_PARAMS + (group + 1) * N_PARAMS] = slots(
            params, resolve_values(params, given, fn.__name__))
    return v


def _worth(text, void_suit, rules, discard, wall_left, voids):
    """Oracle: what the waits after ``discard`` are worth, from simcore.inspection.hand alone: each live
    copy is self-drawn (every seat pays) or drawn by an opponent, who discards it surely if it is
    of its void suit and else half the time (``LETS_GO``), up to the factor of the seats playing."""
    rest = parse(text)
    rest[discard] -= 1
    rest_text = "".join(f"{tile_text(t)[0] * int(rest[t])}{tile_text(t)[1]}" for t in range(N_KINDS) if rest[t])
    void = SUITS[void_suit]
    r = preset(rules)
    liable = 3
    worth = 0.0
    for w in H.waits(rest_text, void):
        t = parse(w).argmax()
        live = max(4 - int(parse(text)[t]), 0)
        on_discard = H.score(rest_text + w, void, rules=rules, last_tile=wall_left == 0).base
        self_draw = H.score(rest_text + w, void, rules=rules, self_draw=True).base
        lets_go = sum(1.0 if v == t // 9 else X.LETS_GO for v in voids)
        worth += live * (lets_go * on_discard + liable * (self_draw + r.to_array()[R_SELF_DRAW_BONUS]))
    return worth


@pytest.mark.parametrize("rules", ["battle", "flow"])
def test_a_ready_hand_keeps_the_wait_worth_most(rules):
    """When the expert plays its plain plan and its discard leaves the hand ready, it is the one
    of those discards whose waits the evaluator values most (live copies times base, self-draws
    paid by every seat, discards likelier in a suit opponents void), every live tile as likely in
    the wall (``suit_odds=0``). (It may instead follow a flush worth more; those hands are
    counted apart.)"""
    rng = np.random.default_rng(5)
    checked = other = 0
    while checked < 40:
        assert other < 200, "the plain plan is almost never kept with a ready discard"
        void_suit = int(rng.integers(3))
        voids = tuple(int(x) for x in rng.integers(3, size=3))
        kinds = [t for t in range(N_KINDS) if t // 9 != void_suit]
        pool = [t for t in kinds for _ in range(4)]
        counts = np.bincount(rng.choice(pool, 14, replace=False), minlength=N_KINDS)
        text = "".join(f"{tile_text(t)[0] * int(counts[t])}{tile_text(t)[1]}" for t in range(N_KINDS) if counts[t])
        worths = {}
        for t in range(N_KINDS):
            if counts[t]:
                rest = counts.copy()
                rest[t] -= 1
                rest_text = "".join(f"{tile_text(u)[0] * int(rest[u])}{tile_text(u)[1]}" for u in range(N_KINDS) if rest[u])
                if H.waits(rest_text, SUITS[void_suit]):
                    worths[t] = _worth(text, void_suit, rules, t, 40, voids)
        if not worths:
            continue
        v = expert_view(text, void_suit, rules, play={"suit_odds": "0"}, voids=voids)
        got = int(X.expert(Q_TURN, v, TAB))
        if got not in worths or v[X.SCR_PLAN] != X.PLAN_PLAIN:
            other += 1
            continue
        checked += 1
        assert worths[got] >= max(worths.values()) - 0.05, (text, tile_text(got), worths)


def test_in_blood_flow_a_long_suit_is_played_for_a_flush():
    """Ten tiles of one suit and four scattered others: in blood flow (wins that repeat at a
    flush's value) the expert throws an off-suit tile, not one of its suit."""
    for text in ("1m2m3m4m5m7m7m8m9m9m1p5p9p3p", "2m3m3m4m5m6m6m7m8m9m2p6p9p1p"):
        v = expert_view(text, 2, "flow")
        t = int(X.expert(Q_TURN, v, TAB))
        assert t // 9 == 1, f"{text}: threw {tile_text(t)}"


def _claim_view(text, tile, rules, wall_left, seen=""):
    v = expert_view(text, 2, rules, wall_left, seen, question=Q_CLAIM)
    v[V_TILE] = parse(tile).argmax()
    v[V_CAN_WIN] = 1
    return v


def test_a_discard_win_is_passed_only_where_a_self_draw_pays_more():
    """A cheap discard win with many live waits early in a blood-battle hand is passed for the
    self-draw every seat pays; the same win is taken with the wall nearly empty, and always in
    blood flow (where a win locks the hand and the waits keep winning)."""
    text = "2m3m4m5m6m7m2p3p4p6p7p9p9p"   # waits 5p 8p
    assert int(X.expert(Q_CLAIM, _claim_view(text, "5p", "battle", 50), TAB)) == C_PASS
    assert int(X.expert(Q_CLAIM, _claim_view(text, "5p", "battle", 2), TAB)) == C_WIN
    assert int(X.expert(Q_CLAIM, _claim_view(text, "5p", "flow", 50), TAB)) == C_WIN


def test_exchange_and_void_keep_a_long_suit():
    """With eight tiles of one suit, the exchange passes three of another suit and the void is
    not the long suit, even when the long suit is loose."""
    for text in ("1m3m5m7m9m2m4m8m3p4p5p2s7s", "1p1p4p6p8p9p2p5p2m3m4m7s8s"):
        counts = parse(text)
        long_suit = int(np.argmax([counts[s * 9:s * 9 + 9].sum() for s in range(3)]))
        v = expert_view(text, 0, question=Q_EXCHANGE)
        picked = unpack3(int(exchange.plans(Q_EXCHANGE, v, TAB)))
        assert all(t // 9 != long_suit for t in picked), (text, [tile_text(t) for t in picked])
        v = expert_view(text, 0, question=Q_VOID)
        assert int(void.plans(Q_VOID, v, TAB)) != long_suit


def test_parameter_indices_name_the_declared_parameters():
    """The expert reads its parameters by index: each P_<NAME> is its parameter's place in the
    declaration, so adding one cannot shift another's meaning."""
    names = [p.name for p in declared(X.expert)]
    assert len(names) <= WRAPPED_PARAMS   # a wrapper has its own slots after them
    for i, name in enumerate(names):
        assert int(getattr(X, f"P_{name.upper()}")) == i, name


def test_a_fourth_tile_on_a_discard_is_punged_and_added_where_that_pays_more():
    """Holding three 7m, offered the fourth: an exposed kong is paid 2 by the discarder, a pung
    with the fourth tile added at once 1 by each of three seats (RULES.md: Rulings where the
    documents are silent: a seat that has just punged may declare an added kong before its
    discard). So the expert pungs, and its next turn adds the kong. Where an added kong needs the
    tile just drawn (tfmj), it takes the exposed kong."""
    from simcore.contract.view import A_KONG, C_KONG, C_PUNG, M_PUNG, V_AFTER_PUNG, V_CAN_KONG, V_CAN_PUNG, V_KONG_MASK, V_MELD_KIND, V_MELD_TILE, V_N_MELDS
    text = "7m7m7m2m3m4m5p6p7p2p3p9p9p"
    seven = parse("7m").argmax()
    for rules, want in (("battle", C_PUNG), ("flow", C_PUNG), ("tfmj", C_KONG)):
        v = _claim_view(text, "7m", rules, 40)
        v[V_CAN_WIN] = 0
        v[V_CAN_PUNG] = v[V_CAN_KONG] = 1
        assert int(X.expert(Q_CLAIM, v, TAB)) == want, rules
        if want != C_PUNG:
            continue
        # the turn right after the pung: the 7m pung declared, the fourth 7m in hand, the same scratch
        turn = expert_view("7m2m3m4m5p6p7p2p3p9p9p", 2, rules, 40)
        turn[X.V_SCRATCH:X.V_SCRATCH + X.ZEROED] = v[X.V_SCRATCH:X.V_SCRATCH + X.ZEROED]
        turn[V_N_MELDS] = 1
        turn[V_MELD_KIND], turn[V_MELD_TILE] = M_PUNG, seven
        turn[V_AFTER_PUNG] = 1
        turn[V_TILE] = -1
        turn[V_KONG_MASK] = 1 << seven
        assert int(X.expert(Q_TURN, turn, TAB)) == A_KONG + seven, rules


def test_the_exchange_does_not_give_away_three_of_a_kind():
    """Where the shortest suit is three of a kind (a pung for the receiver, a set for the
    passer), the three tiles go from a longer suit (13 tiles always leave one of five or more)."""
    for text in ("9m9m9m3p4p9p5p6p2s6s7s8s8s", "3m3m3m4p6p8p2p2p4s6s9s5s5s"):
        counts = parse(text)
        triplet = int(np.argmax(counts == 3))
        v = expert_view(text, 0, question=Q_EXCHANGE)
        picked = unpack3(int(exchange.plans(Q_EXCHANGE, v, TAB)))
        assert len({t // 9 for t in picked}) == 1
        assert list(picked) != [triplet] * 3, (text, [tile_text(t) for t in picked])


def _weights(v, odds=1.0, pung_odds=0.0):
    w, wp = X._suit_weights(v, odds, pung_odds)
    return [int(suit_weight(w, s)) for s in range(3)], [int(suit_weight(wp, s)) for s in range(3)]


def test_a_live_tile_counts_by_the_odds_that_it_is_in_the_wall():
    """Opponents that have shown they hold none of their void suit keep all their concealed tiles
    in their other two: a suit every opponent voids has all its live copies in the wall (more
    than the average live tile, ``WEIGHT_UNIT``), a suit every opponent keeps fewer; with
    ``suit_odds`` 0 every live tile counts the same."""
    v = expert_view("1m2m3m4m5m6m7m8m9m1p2p3p4p", 2, voids=(2, 2, 2))
    v[V_VOID_CAP + 1:V_VOID_CAP + 4] = 0
    (wm, wpin, ws), _ = _weights(v)
    assert ws > X.WEIGHT_UNIT > wm and ws > X.WEIGHT_UNIT > wpin
    # the live tiles of the three suits: 27, 32 and 36 copies; each opponent holds 13, split
    # evenly between man and pin (no discards yet tell otherwise)
    live = np.array([27, 32, 36])
    held = np.array([3 * 6.5, 3 * 6.5, 0])
    wall = live - held
    expected = wall / live / (wall.sum() / live.sum()) * X.WEIGHT_UNIT
    assert np.allclose([wm, wpin, ws], expected, atol=0.51)
    assert _weights(v, odds=0.0)[0] == [X.WEIGHT_UNIT] * 3


def test_an_opponent_discarding_one_suit_is_taken_to_keep_the_other():
    """An opponent (void s) that has thrown only pin tiles keeps man: man's live copies are
    likelier in its hand than pin's. A tile the seat holds a pair of counts more by the chance
    that an opponent discards it (``pung_odds``), most in a suit the opponents void."""
    v = expert_view("1m2m3m4m5m6m7m8m9m1p2p3p4p", 2, voids=(2, 2, 2))
    v[V_VOID_CAP + 1:V_VOID_CAP + 4] = 0
    even, _ = _weights(v)
    thrown = [parse(t).argmax() for t in ("9p", "8p", "7p", "9p", "8p", "6p")]
    for i, t in enumerate(thrown):
        v[V_DISC_SEQ + i] = pack_discard(1, t)
        v[V_VISIBLE + t] += 1
    v[V_N_DISCARDS] = len(thrown)
    told, pair = _weights(v, pung_odds=0.5)
    assert told[0] < even[0] and told[0] / told[1] < even[0] / even[1]
    assert all(pair[s] > told[s] for s in range(3)) and pair[2] / told[2] > pair[0] / told[0]
