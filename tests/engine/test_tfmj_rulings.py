"""One scenario per ruling of the tfmj options (RULES.md: Settlement and Rulings where the
documents are silent): call transfer, the passed-win lock that allows a higher win, added kongs
only from the drawn tile, a replacement win paid by the kong's feeder, the self_draw and
kong_discard fans, and tfmj's flower pig. As ``tests/engine/test_rulings.py``: fixed walls, scripted
decisions, ``passive`` play elsewhere; every hand sums to zero."""

import pytest

import simcore.contract.records as rec

from tests.support.scenarios import NOBODY_READY, READY, end_of, evs, konger_at, pays, play, rest_of_wall, wins

TRANSFER = {"kong_discard_liability": "transfer"}


def paid(hand, i):
    """The wins table's ``paid`` of the hand's win i (its win payments, transfers not counted)."""
    return int(hand.win[0, i, rec.W_PAID])

# seat 0 declares a concealed kong of 9p (2 from each seat) and discards 5m, which seat 1 (and
# seat 2) win on
LIABLE = {0: "9999p5m123m678m234p", 1: "46m999m111m234m55m", 2: "46m111s234s567s99s", 3: "13579s2468s5688p"}
# the same with a second kong (7m) in the turn; replacements leave seat 0 not ready at the end
CHAIN = {0: "9999p7777m5m123p45p", 1: "46m999m111m234m55m", 2: "46m111s234s567s99s", 3: "13579s2468s5688p"}
# seat 1 pungs the dealer's 5p, later declares a concealed kong of 9p, draws the last 5p as its
# replacement and adds it to the pung: seat 3 (46p) robs it
ROB = {0: "5p123m456m789m11m23m", 1: "9999p55p1234p67p8p", 2: "123456789m2468s", 3: "46p123s456s789s11s"}


def _liable(sets, two=False):
    return play("battle", LIABLE, voids="sppm", replacements="7p", sets=sets,
                scripts={0: ["kong 9p", "discard 5m"], 1: ["ron 5m"], 2: ["ron 5m" if two else "pass 5m"]})


def test_transfer_with_one_winner():
    """RULES.md: Settlement, transfer: the kong seat hands the winner the income T of its kongs of the turn, reason kong_transfer, right after the win payment; a win's paid counts its win payments only."""
    hand = _liable(TRANSFER)
    w = wins(hand)[0]
    assert pays(hand)[:5] == [(1, 0, 2, "kong"), (2, 0, 2, "kong"), (3, 0, 2, "kong"), (0, 1, w["base"], "win"),
                              (0, 1, 6, "kong_transfer")]
    assert paid(hand, 0) == w["base"]
    assert hand.seat[0, 0, rec.S_NET_TRANSFER] == -6


def test_transfer_with_two_winners_rounds_each_share_up():
    """RULES.md: Settlement, transfer: with n winners each gets ceil(T / n), after all the win payments, in turn order from the discarder (T = 3: 2 each)."""
    hand = _liable(dict(TRANSFER, kong_pay_concealed=1), two=True)
    p = pays(hand)
    assert p[:3] == [(1, 0, 1, "kong"), (2, 0, 1, "kong"), (3, 0, 1, "kong")]
    assert [x[3] for x in p[3:7]] == ["win", "win", "kong_transfer", "kong_transfer"]
    assert p[5:7] == [(0, 1, 2, "kong_transfer"), (0, 2, 2, "kong_transfer")]


def _chain(sets):
    return play("battle", CHAIN, voids="sppm", replacements="8p 9m", sets=sets,
                scripts={0: ["kong 9p", "kong 7m", "discard 5m"], 1: ["ron 5m"]})


def test_transfer_after_a_chain_of_two_kongs_and_the_refund():
    """RULES.md: Settlement, transfer: "one kong, or a chain of them" (T = 12); the transferred kongs leave the refund ledger, so the not-ready kong seat refunds nothing at the exhausted wall, where without transfer it refunds all 12."""
    hand = _chain(TRANSFER)
    assert pays(hand, "kong_transfer") == [(0, 1, 12, "kong_transfer")]
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert end_of(hand)["reason"] == "wall_exhausted" and not checks[0]["ready"]
    assert not pays(hand, "kong_refund")
    plain = _chain({})
    assert not pays(plain, "kong_transfer")
    assert sorted(pays(plain, "kong_refund")) == [(0, 1, 4, "kong_refund"), (0, 2, 4, "kong_refund"),
                                                  (0, 3, 4, "kong_refund")]


def test_transfer_when_a_later_added_kong_of_the_turn_is_robbed():
    """RULES.md: Settlement, transfer: when an added kong declared after an earlier kong of the same turn is robbed, the robbers share the earlier kongs' income (robbing_kong, not kong_discard)."""
    hand = play("battle", ROB, voids="smpm", replacements="5p", draws="2s 3s 7s 6p", sets=TRANSFER,
                scripts={0: ["discard 5p"], 1: ["pung 5p", "discard 8p", "kong 9p", "kong 5p"], 3: ["rob 5p"]})
    w = wins(hand)[0]
    assert (w["seat"], w["kind"], w["from"]) == (3, "robbing_kong", 1) and "kong_discard" not in w["patterns"]
    assert pays(hand)[3:5] == [(1, 3, w["base"], "win"), (1, 3, 6, "kong_transfer")]
    assert not pays(hand, "kong_refund")


def test_no_transfer_without_the_option_or_a_kong():
    """RULES.md: Settlement, transfer is an alternative to pays_for_all and needs a kong in the discarder's turn."""
    assert not pays(_liable({}), "kong_transfer")
    hand = play("battle", LIABLE, voids="sppm", sets=TRANSFER, scripts={0: ["discard 5m"], 1: ["ron 5m"]})
    assert not pays(hand, "kong_transfer") and not pays(hand, "kong")


# == passed_win_higher ========================================================================

# The dealer (seat 0) waits on 1p (111p + 123p: a root, 1 fan) and 4p (0 fan; 1 fan as the
# discard that ends a kong seat's turn, tfmj's kong_discard); seat 1 and seat 2 hold a 4p, seat 2
# four 6p, seat 3 the last 1p.
HIGHER = {0: "5m111p23p456s789s99s", 1: "4p123m456m789m223m", 2: "6666p4p12345678m", 3: "1223355778899p"}


def _higher(scripts, kong=True, sets=None):
    s2 = ["kong 6p", "discard 4p"] if kong else ["discard 4p"]
    s3 = ["discard 1p"] if scripts[-1:] == ["pass 1p"] or sets else []
    return play("tfmj", HIGHER, voids="mssm", draws="5p 7p 8p", replacements="9p", sets=sets,
                scripts={0: ["discard 5m"] + scripts, 1: ["discard 4p"], 2: s2, 3: s3})


def _dealer_before_its_draw(hand, event: str) -> list[dict]:
    """The dealer's ``event`` events before its first draw (the passed-win lock's life)."""
    out = []
    for e in hand.events:
        if e["event"] == "draw" and e["seat"] == 0:
            break
        if e["event"] == event and e["seat"] == 0:
            out.append(e)
    return out


def _locked_passes(hand):
    """(from, fan) of the dealer's pass_win events before its first draw."""
    return [(e["from"], e["fan"]) for e in _dealer_before_its_draw(hand, "pass_win")]


def _dealer_wins_before_its_draw(hand):
    return _dealer_before_its_draw(hand, "win")


def test_passed_win_higher_allows_a_strictly_higher_win():
    """RULES.md: Rulings where the documents are silent, passed_win_higher: under the lock a seat "may still win on a discard ... whose fan is strictly higher" (0 fan passed, then 1 fan: 4p after a kong)."""
    hand = _higher(["pass 4p", "ron 4p"])
    assert _locked_passes(hand) == [(1, 0)]
    w = wins(hand)[0]
    assert (w["seat"], w["from"], w["tile"], w["patterns"]) == (0, 2, "4p", {"kong_discard": 1})


def test_passed_win_higher_refuses_an_equal_win():
    """RULES.md: Rulings where the documents are silent, passed_win_higher: a win of the same fan stays locked (0 fan passed, then 4p at 0 fan: not offered)."""
    hand = _higher(["pass 4p"], kong=False)
    assert _locked_passes(hand) == [(1, 0)] and not _dealer_wins_before_its_draw(hand)


def test_passed_win_higher_remembers_the_highest_fan_passed():
    """RULES.md: Rulings where the documents are silent, passed_win_higher: "Passing that higher win raises the remembered fan": after passing 0 fan, then 1 fan, the 1p (1 fan, a root) is not offered, though it is higher than the first."""
    hand = _higher(["pass 4p", "pass 4p", "pass 1p"])
    assert [(e["seat"], e["tile"]) for e in evs(hand, "discard")][:4] == [(0, "5m"), (1, "4p"), (2, "4p"), (3, "1p")]
    assert _locked_passes(hand) == [(1, 0), (2, 1)] and not _dealer_wins_before_its_draw(hand)


def test_without_higher_the_lock_refuses_every_win():
    """RULES.md: Rulings where the documents are silent, passed-win lock: without passed_win_higher a passed win blocks every discard win until the next draw."""
    hand = _higher(["pass 4p", "pass 1p"], sets={"passed_win_higher": False})
    assert _locked_passes(hand) == [(1, 0)] and not _dealer_wins_before_its_draw(hand)


# == added_kong_drawn_only ====================================================================

# seat 1 holds 555p and pungs the dealer's 5p, keeping the fourth: a kong_when_offered seat adds
# it at once (in its pung turn) unless added kongs need the drawn tile
OLD_FOURTH = {0: "5p123m456m789m11m23m", 1: "555p12334p67p8p99p", 2: "123456789m2468s", 3: "46p123s456s789s11s"}


@pytest.mark.parametrize("drawn_only", [False, True])
def test_added_kong_drawn_only_refuses_a_pung_turn_and_an_old_fourth_tile(drawn_only):
    """RULES.md: Rulings where the documents are silent, added_kong_drawn_only: "a fourth tile held since before that draw cannot be added. In a turn that began with a pung ... no added kong"."""
    hand = play("battle", OLD_FOURTH, voids="smpm", sets={"added_kong_drawn_only": drawn_only},
                scripts={0: ["discard 5p"], 1: ["pung 5p"]}, fns=konger_at(1))
    added = [k for k in evs(hand, "kong", seat=1) if k["kind"] == "added"]
    assert [k["tile"] for k in added] == ([] if drawn_only else ["5p"])


def test_added_kong_with_the_drawn_tile_is_allowed():
    """RULES.md: Rulings where the documents are silent, added_kong_drawn_only: the fourth tile "must be the tile of the seat's latest draw in this turn (... or its latest replacement draw after a kong)"."""
    hand = play("battle", ROB, voids="smpm", replacements="5p", draws="2s 3s 7s 6p",
                sets={"added_kong_drawn_only": True},
                scripts={0: ["discard 5p"], 1: ["pung 5p", "discard 8p", "kong 9p", "kong 5p"], 3: ["no-rob 5p"]})
    assert [(k["tile"], k["kind"]) for k in evs(hand, "kong", seat=1)] == [("9p", "concealed"), ("5p", "added")]


# == exposed_kong_bloom and the self_draw fan =================================================

# seat 1 (555m, ready on 1p/4p) claims a kong on the dealer's 5m; its replacement 4p wins
BLOOM = {0: "5m123p456p789p1199m", 1: "555m23p456p789p99p", 2: "123456789s2468m", 3: "2468p123456789s"}


def _bloom(sets):
    return play("battle", BLOOM, voids="sspm", replacements="4p", sets=sets,
                scripts={0: ["discard 5m"], 1: ["claim-kong 5m", "win"]})


def test_exposed_kong_bloom_feeder_pays():
    """RULES.md: Settlement, exposed_kong_bloom = feeder_pays: the replacement win after an exposed kong on a discard is paid by that discarder alone: base (kong_replacement counts; no self-draw bonus, no self_draw fan); kind kong_replacement, from the feeder."""
    hand = _bloom({"exposed_kong_bloom": "feeder_pays", "fan_self_draw": 1})
    w = wins(hand)[0]
    assert (w["seat"], w["kind"], w["from"]) == (1, "kong_replacement", 0)
    assert "self_draw" not in w["patterns"] and w["patterns"]["kong_replacement"] == 1
    assert pays(hand, "win") == [(0, 1, w["base"], "win")] and paid(hand, 0) == w["base"]
    assert end_of(hand)["next_dealer"] == 1


def test_exposed_kong_bloom_self_draw_and_the_self_draw_fan():
    """RULES.md: Settlement, exposed_kong_bloom = self_draw (every seed): a self-draw like any replacement win; fan_self_draw adds its fan to it (RULES.md: Fan patterns, self_draw)."""
    hand = _bloom({"fan_self_draw": 1})
    w = wins(hand)[0]
    assert (w["kind"], w["from"]) == ("kong_replacement", None)
    assert w["patterns"].get("self_draw") == 1
    assert pays(hand, "win") == [(q, 1, w["base"] + 1, "win") for q in (0, 2, 3)]
    plain = _bloom({})
    assert "self_draw" not in wins(plain)[0]["patterns"] and wins(plain)[0]["fan"] == w["fan"] - 1


def test_self_draw_fan_not_on_a_discard_win():
    """RULES.md: Fan patterns, self_draw: self-draw wins only."""
    hand = _liable({"fan_self_draw": 1})
    assert "self_draw" not in wins(hand)[0]["patterns"]


def test_kong_discard_fan():
    """RULES.md: Fan patterns, kong_discard: a win on the discard that ends a kong seat's turn (tfmj: 1 fan)."""
    plain, shot = _liable({}), _liable({"fan_kong_discard": 1})
    assert shot.events and wins(shot)[0]["patterns"].get("kong_discard") == 1
    assert wins(shot)[0]["fan"] == wins(plain)[0]["fan"] + 1


# == tfmj's flower pig ========================================================================

def test_tfmj_pig_pays_the_ready_check_and_no_penalty():
    """RULES.md: Rulings where the documents are silent, tfmj: a seat still holding its void suit at an exhausted wall "pays no pig penalty but counts as not ready (it pays the ready check ...; it is still recorded as a flower pig)"."""
    draws = rest_of_wall(READY, pigs={2: "s"})
    hand = play("tfmj", READY, voids="sssp", draws=draws)
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert checks[2]["pig"] and checks[3]["ready"]
    assert not pays(hand, "flower_pig")
    assert pays(hand, "not_ready") == [(p, 3, 8, "not_ready") for p in (0, 1, 2)]


def test_tfmj_pig_refunds_its_kong_income():
    """RULES.md: Rulings where the documents are silent, tfmj: the pig "refunds its kong income" (kong_refund, as a not-ready seat)."""
    hands = {**NOBODY_READY, 1: "9999p13579s2468s"}
    draws = rest_of_wall(hands, replacements="1p", pigs={1: "s"})
    hand = play("tfmj", hands, voids="ssmm", draws=draws, replacements="1p", sets={"kong_while_void": True},
                scripts={1: ["kong 9p"]})
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert [k["tile"] for k in evs(hand, "kong", seat=1)] == ["9p"]
    assert checks[1]["pig"] and not checks[1]["ready"]
    assert not pays(hand, "flower_pig")
    assert sorted(pays(hand, "kong_refund")) == [(1, q, 2, "kong_refund") for q in (0, 2, 3)]
