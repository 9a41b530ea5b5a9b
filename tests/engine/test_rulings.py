"""One scenario per ruling and rule of RULES.md that a random hand rarely exercises.

Each test plays a hand with a fixed wall and scripted decisions through the real engine
(``simcore.inspection.scenario``) and checks the TRACE.md events of interest against RULES.md, quoted in
the docstring. Everything else is ``passive`` play (discard the drawn tile, claim nothing), so
hands without void tiles stay as dealt. Every test also checks that the hand sums to zero.
"""


import pytest

from tests.support import engine_internals as E
import simcore.contract.records as rec
from simcore.contract.tiles import parse_tiles, tile_text
from simcore.contract.view import M_PUNG
from tests.support.scenarios import (NOBODY_READY, READY, after, drawn_by, end_of, evs, konger_at, pays, play, rest_of_wall, script_used, wins)

# == 1. several winners on one discard ========================================================

ONE_DISCARD_TWO = {0: "5m13579p2468s1357s", 1: "46m123p456p789p99p", 2: "2358m22446688p6p",
                   3: "123m46m789m111m99m"}


def test_several_winners_two_on_one_discard():
    """RULES.md: Settlement, "Several winners on one discard: the discarder pays each"; rulings: win lines from discarder+1, play continues after the furthest winner."""
    hand = play("battle", ONE_DISCARD_TWO, voids="mssp",
                scripts={0: ["discard 5m"], 1: ["ron 5m"], 3: ["ron 5m"]})
    w = wins(hand)
    assert [(x["seat"], x["from"], x["kind"], x["tile"]) for x in w] == [
        (1, 0, "discard", "5m"), (3, 0, "discard", "5m")]
    assert [x["base"] for x in w] == [1, 8]  # seat 3: full flush 2 + root 1
    assert pays(hand, "win") == [(0, 1, 1, "win"), (0, 3, 8, "win")]
    nxt = [e for e in after(hand, w[-1]) if e["event"] != "payment"][0]
    assert (nxt["event"], nxt["seat"], nxt["replacement"]) == ("draw", 0, False)  # after seat 3, not seat 1
    assert end_of(hand)["next_dealer"] == 0


def test_several_winners_three_on_one_discard():
    """RULES.md: Settlement, three winners on one discard are each paid by the discarder, in turn order from it; the third win ends the battle hand."""
    hands = {2: "5m13579p2468s1357s", 3: "46m123p456p789p99p", 0: "123m46m789m111m99m",
             1: "46m222s345s678s88s"}
    hand = play("battle", hands, dealer=2, voids="ppms",
                scripts={2: ["discard 5m"], 3: ["ron 5m"], 0: ["ron 5m"], 1: ["ron 5m"]})
    assert [(x["seat"], x["from"]) for x in wins(hand)] == [(3, 2), (0, 2), (1, 2)]
    assert pays(hand) == [(2, 3, 1, "win"), (2, 0, 8, "win"), (2, 1, 1, "win")]
    end = end_of(hand)
    assert end["reason"] == "three_won" and end["next_dealer"] == 2
    assert not evs(hand, "check")


# == 2. robbing a kong ========================================================================


def rob_scenario(scripts, variant="battle", seat2="46m111s234s567s9s1p", draws="9s 8s 3s 7m"):
    """Seat 1 pungs the dealer's 5m, then adds its held fourth 5m as a kong after a draw.
    Seats 2 and 3 first discard their void tile, then wait on 5m (so they cannot win on the
    dealer's 5m); the dealer waits on 5m after its discard."""
    hands = {0: "456m123p456p789p99p", 1: "555m234m9m123p789p", 2: seat2, 3: "46m222s345s678s8s2p"}
    base = {0: ["discard 5m"], 1: ["pung 5m", "discard 9m", "kong 5m"]}
    for seat, entries in scripts.items():
        base[seat] = base.get(seat, []) + entries
    return play(variant, hands, voids="sspp", draws=draws, scripts=base)


def assert_kong_cancelled(hand, kong_seat):
    """No kong payment, the pung stays a pung, no replacement draw for the kong seat."""
    assert not pays(hand, "kong")
    assert hand.seat[0, kong_seat, rec.S_KONGS] == 0
    assert hand.state[E.O_MELD_KIND + kong_seat * 4] == M_PUNG
    assert hand.state[E.O_MELD_CNT + kong_seat * 27 + parse_tiles("5m")[0]] == 3
    assert not evs(hand, "draw", seat=kong_seat, replacement=True)


def test_robbing_kong_by_one_seat():
    """RULES.md: Rulings where the documents are silent, added kong: the kong seat "pays each robber base; the pung stays a pung; play continues after the robber furthest ...; no replacement"."""
    hand = rob_scenario({2: ["no-rob 5m"], 3: ["rob 5m"]})
    kong = evs(hand, "kong")
    assert [(k["seat"], k["tile"], k["kind"]) for k in kong] == [(1, "5m", "added")]
    nxt = after(hand, kong[0])
    assert [(e["event"], e.get("seat"), e.get("chose")) for e in nxt[:3]] == [
        ("pass_win", 2, "pass"), ("pass_win", 0, "pass"), ("win", 3, None)]
    w = nxt[2]
    assert (w["kind"], w["from"], w["patterns"], w["base"]) == ("robbing_kong", 1, {"robbing_kong": 1}, 2)
    assert (nxt[3]["event"], nxt[3]["payer"], nxt[3]["payee"], nxt[3]["amount"]) == ("payment", 1, 3, 2)
    assert (nxt[4]["event"], nxt[4]["seat"], nxt[4]["replacement"]) == ("draw", 0, False)
    assert pays(hand, "win") == [(1, 3, 2, "win")]
    assert_kong_cancelled(hand, 1)
    assert end_of(hand)["next_dealer"] == 3


def test_robbing_kong_by_two_seats():
    """RULES.md: Rulings where the documents are silent, added kong: "any number of seats may rob"; each robber paid base; play continues after the robber furthest from the kong seat."""
    hand = rob_scenario({2: ["rob 5m"], 3: ["no-rob 5m"], 0: ["rob 5m"]})
    kong = evs(hand, "kong")[0]
    nxt = after(hand, kong)
    assert [(e["event"], e.get("seat")) for e in nxt[:6]] == [
        ("pass_win", 3), ("win", 2), ("payment", None), ("win", 0), ("payment", None), ("draw", 1)]
    assert all(e["kind"] == "robbing_kong" and e["from"] == 1 for e in (nxt[1], nxt[3]))
    assert pays(hand, "win") == [(1, 2, 2, "win"), (1, 0, 2, "win")]
    assert nxt[5]["replacement"] is False
    assert_kong_cancelled(hand, 1)
    assert end_of(hand)["next_dealer"] == 1


def test_flow_play_continues_after_single_winner_after_double_rob():
    """RULES.md: Rulings where the documents are silent, "After a win on a discard, play continues with the first seat still playing after the winner" (flow, after a kong robbed by two)."""
    hand = rob_scenario({2: ["rob 5m", "ron 8m"], 3: ["no-rob 5m"], 0: ["rob 5m"]}, variant="flow",
                        seat2="67m111s234s567s9s1p", draws="9s 8s 3s 7m 8m")
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["from"]) for x in w[:3]] == [
        (2, "robbing_kong", 1), (0, "robbing_kong", 1), (2, "discard", 1)]
    nxt = [e for e in after(hand, w[2]) if e["event"] != "payment"][0]
    assert (nxt["event"], nxt["seat"]) == ("draw", 3)


# == 3. kong refunds ==========================================================================


@pytest.mark.parametrize("rules,refund", [("battle", True), ("flow", True), ("chengdu", False), ("kawu", False)])
def test_kong_refund_by_not_ready_seat(rules, refund):
    """RULES.md: Settlement, wall exhausted, step 3: "Kong refunds (if kong_refund): each seat that is not ready ... returns every kong payment it received"."""
    hand = play(rules, NOBODY_READY, voids="smpm", draws="2s", replacements="1m", scripts={1: ["kong 9p"]})
    assert [(k["seat"], k["kind"]) for k in evs(hand, "kong")] == [(1, "concealed")]
    assert pays(hand, "kong") == [(0, 1, 2, "kong"), (2, 1, 2, "kong"), (3, 1, 2, "kong")]
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert set(checks) == {0, 1, 2, 3}
    assert not any(c["ready"] or c["pig"] for c in checks.values())
    end = end_of(hand)
    assert end["reason"] == "wall_exhausted"
    if refund:
        assert pays(hand, "kong_refund") == [(1, 0, 2, "kong_refund"), (1, 2, 2, "kong_refund"),
                                             (1, 3, 2, "kong_refund")]
        assert end["net"] == [0, 0, 0, 0]
    else:
        assert not pays(hand, "kong_refund")
        assert end["net"] == [-2, 6, -2, -2]


# == 4. flower pigs ===========================================================================

ONE_PIG = {0: "123456789m13579p", 1: "46m222p444p666p88p", 2: "1s112233m77m1357p", 3: "234s567s888s99s77p"}
TWO_PIGS = {0: "5m1m123456789p135p", 1: "46m123m789m222m88m", 2: "1s666p777p888p99p4p", 3: "123s456s789s22p34p"}


def pig_hand(rules, hands, voids, pigs, sets=None):
    """The dealer discards 5m, seat 1 wins on it and leaves; then seats 2, 3, 0 draw in turn."""
    draws = rest_of_wall(hands, cycle=(2, 3, 0), pigs=pigs)
    return play(rules, hands, voids=voids, draws=draws, sets=sets,
                scripts={0: ["discard 5m"], 1: ["ron 5m"]})


@pytest.mark.parametrize("rules,sets,payees,penalty", [
    ("battle", {"pig_pays": "non_pigs"}, [0, 1, 3], 16),
    ("battle", {"pig_pays": "remaining"}, [0, 3], 16),
    ("battle", {"pig_pays": "winners_and_ready"}, [1, 3], 16),
    ("chengdu", {}, [1, 3], 64),
])
def test_flower_pig_pays_by_pig_pays(rules, sets, payees, penalty):
    """RULES.md: Settlement, wall exhausted, step 1: a flower pig "Pays pig_penalty to each seat that pig_pays names"; chengdu pig_penalty "cap" = 2^fan_cap."""
    hand = pig_hand(rules, ONE_PIG, "sssm", {2: "s"}, sets)
    assert [(x["seat"], x["from"]) for x in wins(hand)] == [(1, 0)]
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert set(checks) == {0, 2, 3}
    assert checks[2]["pig"] and not checks[0]["pig"] and not checks[3]["pig"]
    assert checks[3]["ready"] and not checks[0]["ready"]
    assert pays(hand, "flower_pig") == [(2, q, penalty, "flower_pig") for q in payees]
    assert pays(hand, "not_ready") == [(0, 3, checks[3]["best_base"], "not_ready")]


def test_flower_pigs_do_not_pay_each_other():
    """RULES.md: Rulings where the documents are silent, "A pig pays the penalty once to each non-pig; pigs do not pay each other"."""
    hand = pig_hand("battle", TWO_PIGS, "mssm", {0: "m", 2: "s"})
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert checks[0]["pig"] and checks[2]["pig"] and checks[3]["ready"]
    assert pays(hand, "flower_pig") == [(0, 1, 16, "flower_pig"), (0, 3, 16, "flower_pig"),
                                        (2, 1, 16, "flower_pig"), (2, 3, 16, "flower_pig")]
    assert not pays(hand, "not_ready")


# == 5. blood flow ============================================================================

FLOW_AGAIN = {0: "4m168m1147p258p369p", 1: "56m123p456p789p99p", 2: "12345789m13579s", 3: "23m111s222s333s99s"}


def assert_flow_lock(hand, seat):
    """After its first win, every draw of ``seat`` is followed by its win or by the discard of
    exactly that tile."""
    first = evs(hand, "win", seat=seat)[0]
    n = 0
    evts = after(hand, first)
    for i, e in enumerate(evts):
        if e["event"] == "draw" and e["seat"] == seat:
            nxt = evts[i + 1]
            assert (nxt["event"] == "win" and nxt["seat"] == seat) or (
                nxt["event"], nxt["seat"], nxt["tile"]) == ("discard", seat, e["tile"]), (e, nxt)
            n += 1
    assert n > 5


def test_flow_lock_and_winning_again():
    """RULES.md: Rulings where the documents are silent, flow lock: "On its draw it wins or discards the drawn tile ... It may win again on a discard, a self-draw"; flow liable = all three others."""
    hand = play("flow", FLOW_AGAIN, voids="sspp", draws="9m 2s 7m 8s 6s 7s 4m",
                scripts={0: ["discard 4m"], 1: ["ron 4m", "ron 7m", "win"], 3: ["ron 4m"]})
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["from"], x["tile"]) for x in w[:4]] == [
        (1, "discard", 0, "4m"), (3, "discard", 0, "4m"), (1, "discard", 2, "7m"), (1, "self_draw", None, "4m")]
    assert pays(hand, "win")[:6] == [
        (0, 1, 1, "win"), (0, 3, 1, "win"), (2, 1, 1, "win"), (0, 1, 2, "win"), (2, 1, 2, "win"), (3, 1, 2, "win")]
    # the first discard win: play continues after seat 3 (the furthest winner)
    nxt = [e for e in after(hand, w[1]) if e["event"] != "payment"][0]
    assert (nxt["event"], nxt["seat"]) == ("draw", 0)
    assert hand.seat[0, 1, rec.S_WINS] >= 3
    assert_flow_lock(hand, 1)
    assert_flow_lock(hand, 3)
    assert end_of(hand)["reason"] == "wall_exhausted"


FLOW_ROB = {0: "4m168m1147p258p369p", 1: "56m123p456p789p99p", 2: "77m1m123s456s888s9s", 3: "2468p2468s13579s"}


def test_flow_robbing_while_locked():
    """RULES.md: Rulings where the documents are silent, flow lock: a locked seat "may win again ... by robbing a kong"."""
    hand = play("flow", FLOW_ROB, voids="sspm", draws="3p 7m 2m 3s 9m 7m",
                scripts={0: ["discard 4m"], 1: ["ron 4m", "pass 7m", "rob 7m"],
                         2: ["pung 7m", "discard 1m", "kong 7m"]})
    assert [(e["seat"], e["chose"], e["tile"]) for e in evs(hand, "pass_win", seat=1)][:1] == [(1, "pass", "7m")]
    assert [(k["seat"], k["kind"]) for k in evs(hand, "kong")] == [(2, "added")]
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["from"], x["tile"]) for x in w[:2]] == [
        (1, "discard", 0, "4m"), (1, "robbing_kong", 2, "7m")]
    assert w[1]["patterns"] == {"robbing_kong": 1} and w[1]["base"] == 2
    assert pays(hand)[:2] == [(0, 1, 1, "win"), (2, 1, 2, "win")]
    assert not pays(hand, "kong")
    nxt = [e for e in after(hand, w[1]) if e["event"] != "payment"][0]
    assert (nxt["event"], nxt["seat"], nxt["replacement"]) == ("draw", 2, False)
    assert_flow_lock(hand, 1)


# == 6. kawu's passed-win lock ================================================================

LOCK_PASS = {0: "5m13789m1135579p9p", 1: "2468p2468s13579s", 2: "46m111s234s567s99s", 3: "12345678p2468p9p"}


@pytest.mark.parametrize("rules,ron_from", [("kawu", 3), ("battle", 1)])
def test_passed_win_lock_blocks_next_discard(rules, ron_from):
    """RULES.md: Rulings where the documents are silent, passed-win lock: a seat that passes a win "may not win on a discard or by robbing until its next draw" (kawu only)."""
    hand = play(rules, LOCK_PASS, voids="smpm", draws="5m 9m 5m",
                scripts={0: ["discard 5m"], 2: ["pass 5m", "ron 5m"]})
    assert [(e["from"], e["chose"]) for e in evs(hand, "pass_win", seat=2)] == [(0, "pass")]
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["from"]) for x in w] == [(2, "discard", ron_from)]
    assert [(e["seat"], e["tile"]) for e in evs(hand, "discard")][:2] == [(0, "5m"), (1, "5m")]
    if rules == "kawu":  # seat 2 was not asked about seat 1's 5m: it draws and discards
        assert [(e["seat"], e["tile"]) for e in evs(hand, "discard")][2:4] == [(2, "9m"), (3, "5m")]


LOCK_PUNG = {0: "5m13789m1135579p9p", 1: "2468p2468s13579s", 2: "55m66m123p456p789p", 3: "2468s13579s258p9s"}


@pytest.mark.parametrize("rules,ron", [("kawu", "ron 1p"), ("battle", "ron 4p")])
def test_passed_win_lock_after_choosing_pung(rules, ron):
    """RULES.md: Rulings where the documents are silent, passed-win lock: "(passing, or choosing pung/kong instead)" also locks; pass_win chose "pung"."""
    hand = play(rules, LOCK_PUNG, voids="smsm", draws="4p 9m 8m 9s 1p",
                scripts={0: ["discard 5m"], 2: ["pung 5m", "discard 1p", ron]})
    assert [(e["seat"], e["from"], e["chose"]) for e in evs(hand, "pass_win")][:1] == [(2, 0, "pung")]
    assert [(p["seat"], p["tile"]) for p in evs(hand, "pung")] == [(2, "5m")]
    w = wins(hand)
    assert [(x["seat"], x["tile"], x["from"]) for x in w] == [(2, ron[-2:], 3)]


LOCK_KONG = {0: "1m2389m11355799p6p", 1: "2468m3579m2468p8m", 2: "1m456m789m123s555s", 3: "2468p12468s679s9s"}


def test_passed_win_lock_lifted_by_kong_replacement():
    """RULES.md: Rulings where the documents are silent, passed-win lock: "any draw, a kong replacement included, lifts the lock"."""
    hand = play("kawu", LOCK_KONG, voids="sspm", draws="5s 1m", replacements="9p",
                scripts={0: ["discard 1m"], 2: ["pass 1m", "claim-kong 5s", "ron 1m"]})
    assert [(e["seat"], e["from"], e["chose"]) for e in evs(hand, "pass_win")][:1] == [(2, 0, "pass")]
    kong = evs(hand, "kong")[0]
    assert (kong["seat"], kong["tile"], kong["kind"], kong["from"]) == (2, "5s", "exposed", 1)
    assert evs(hand, "draw", seat=2)[0]["replacement"] is True
    w = wins(hand)
    assert [(x["seat"], x["tile"], x["from"], x["kind"]) for x in w] == [(2, "1m", 3, "discard")]


def test_passed_win_lock_allows_self_draw():
    """RULES.md: Rulings where the documents are silent, passed-win lock: "Self-draw stays allowed"."""
    hand = play("kawu", LOCK_KONG, voids="sspm", draws="3s 1m",
                scripts={0: ["discard 1m"], 2: ["pass 1m", "win"]})
    w = wins(hand)
    assert [(x["seat"], x["tile"], x["kind"]) for x in w] == [(2, "1m", "self_draw")]


# == 7. last tile =============================================================================

LAST_SELF = {0: "123456789m13578p", 1: "123456789m11s9s4s", 2: "12345678p24568s", 3: "123p456p234s11s99s"}
LAST_RON = {0: "123456789m13578p", 1: "123456789m11s99s", 2: "12345678p24568s", 3: "123p456p1234579s"}
LAST_KONG = {0: "123456789m13578p", 1: "123456789m2457s", 2: "999p123s456s789s5s", 3: "12345678p2468s9s"}


@pytest.mark.parametrize("rules,pats,base", [("battle", {"last_tile": 1}, 2), ("chengdu", {}, 1)])
def test_last_tile_self_draw(rules, pats, base):
    """RULES.md: Fan patterns, last_tile, "any win after the final wall tile was drawn" (battle 1, chengdu 0), on a self-draw of the last tile."""
    draws = rest_of_wall(LAST_SELF, tail="9s")
    mine = drawn_by(draws, 3)
    assert len(mine) == 14 and mine[-1] == "9s"
    hand = play(rules, LAST_SELF, voids="spmm", draws=draws,
                scripts={3: [f"discard {t}" for t in mine[:-1]] + ["win"]})
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["tile"], x["tiles_left"]) for x in w] == [(3, "self_draw", "9s", 0)]
    assert (w[0]["patterns"], w[0]["base"]) == (pats, base)
    assert pays(hand, "win") == [(s, 3, base + 1, "win") for s in (0, 1, 2)]
    assert end_of(hand)["reason"] == "wall_exhausted"


@pytest.mark.parametrize("rules,pats,base", [("battle", {"last_tile": 1}, 2), ("chengdu", {}, 1)])
def test_last_tile_win_on_final_discard(rules, pats, base):
    """RULES.md: Fan patterns, last_tile on a win on the discard after the final wall tile (battle 1, chengdu 0)."""
    draws = rest_of_wall(LAST_RON, tail="9s")
    hand = play(rules, LAST_RON, voids="spmm", draws=draws, scripts={1: ["ron 9s"]})
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["from"], x["tile"], x["tiles_left"]) for x in w] == [(1, "discard", 3, "9s", 0)]
    assert (w[0]["patterns"], w[0]["base"]) == (pats, base)
    assert pays(hand, "win") == [(3, 1, base, "win")]
    assert end_of(hand)["reason"] == "wall_exhausted"


def test_kong_with_one_tile_left_replacement_is_last_tile():
    """RULES.md: Rulings where the documents are silent, a kong "with one tile left ... is allowed (the replacement is the last tile: kong_replacement and last_tile stack)"."""
    draws = rest_of_wall(LAST_KONG, tail="9p", replacements="5s")
    mine = drawn_by(draws, 2)
    assert len(mine) == 14 and mine[-1] == "9p"
    hand = play("battle", LAST_KONG, voids="spmm", draws=draws, replacements="5s",
                scripts={2: [f"discard {t}" for t in mine[:-1]] + ["kong 9p", "win"]})
    kong = evs(hand, "kong")
    assert [(k["seat"], k["tile"], k["kind"]) for k in kong] == [(2, "9p", "concealed")]
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["tile"], x["tiles_left"]) for x in w] == [(2, "kong_replacement", "5s", 0)]
    assert w[0]["patterns"] == {"kong_replacement": 1, "last_tile": 1, "root": 1}
    assert (w[0]["fan"], w[0]["base"]) == (3, 8)
    assert pays(hand)[:6] == [(s, 2, 2, "kong") for s in (0, 1, 3)] + [(s, 2, 9, "win") for s in (0, 1, 3)]


LAST_CLAIM = {0: "123456789m13578p", 1: "999p123456789m1p", 2: "12345678p24568s", 3: "123p456p1234579s"}


@pytest.mark.parametrize("entry", ["pung 9p", "claim-kong 9p"])
@pytest.mark.parametrize("last", [True, False])
def test_no_pung_or_kong_claim_after_last_tile(entry, last):
    """RULES.md: Rulings where the documents are silent, "After the last tile is drawn, the only claim on a discard is a win" (control: earlier it is offered)."""
    draws = rest_of_wall(LAST_CLAIM, tail="9p") if last else rest_of_wall(LAST_CLAIM, head="1s 9p")
    hand = play("battle", LAST_CLAIM, voids="ssmm", draws=draws, scripts={1: [entry]}, strict=False)
    disc = evs(hand, "discard", tile="9p")
    assert [d["seat"] for d in disc] == [3 if last else 2]
    claimed = evs(hand, "pung") + evs(hand, "kong", kind="exposed")
    if last:
        assert script_used(hand, 1) == 1  # only its void choice: the claim was never asked
        assert not claimed
        assert end_of(hand)["tiles_left"] == 0
    else:
        assert script_used(hand, 1) == 2
        assert [(c["seat"], c["tile"]) for c in claimed] == [(1, "9p")]


# == 8. the third win ends a battle hand ======================================================

THREE_WON = {0: "9999p5m123m678m234p", 1: "46m111s234s567s99s", 2: "46m222s345s678s88s", 3: "123m345p678p11p55p"}


def test_third_win_ends_battle_hand_at_once():
    """RULES.md: Settlement, "Blood battle: when the third seat wins, the hand ends at once: no checks, no refunds"."""
    hand = play("battle", THREE_WON, voids="spps", draws="5p", replacements="7p",
                scripts={0: ["kong 9p", "discard 5m"], 1: ["ron 5m"], 2: ["ron 5m"], 3: ["win"]})
    assert [(x["seat"], x["kind"]) for x in wins(hand)] == [(1, "discard"), (2, "discard"), (3, "self_draw")]
    assert wins(hand)[2]["patterns"] == {"root": 1}  # 345p + 555p: base 2, paid by the dealer alone
    assert pays(hand) == [(1, 0, 2, "kong"), (2, 0, 2, "kong"), (3, 0, 2, "kong"),
                          (0, 1, 1, "win"), (0, 2, 1, "win"), (0, 3, 3, "win")]
    end = end_of(hand)
    assert end["reason"] == "three_won" and end["tiles_left"] == 53
    assert not evs(hand, "check")
    assert end["net"] == [1, -1, -1, 1]


# == 9. no kong without a wall tile ===========================================================

NO_KONG = {0: "123456789m13578p", 1: "123456789m2457s", 2: "12345678p24568s", 3: "999p113679s99s36p"}


@pytest.mark.parametrize("last", [True, False])
def test_no_kong_without_a_wall_tile(last):
    """RULES.md: Rulings where the documents are silent, "A kong needs a tile left in the wall for its replacement" (control: the same kong earlier is offered)."""
    draws = rest_of_wall(NO_KONG, tail="9p") if last else rest_of_wall(NO_KONG, head="1s 2s 9p")
    hand = play("battle", NO_KONG, voids="spmm", draws=draws, fns=konger_at(3))
    got = evs(hand, "draw", seat=3, tile="9p")
    assert len(got) == 1
    nxt = after(hand, got[0])[0]
    if last:
        assert got[0]["replacement"] is False and end_of(hand)["tiles_left"] == 0
        assert (nxt["event"], nxt["seat"], nxt["tile"]) == ("discard", 3, "9p")
        assert not evs(hand, "kong")
    else:
        assert (nxt["event"], nxt["seat"], nxt["tile"], nxt["kind"]) == ("kong", 3, "9p", "concealed")


# == 10. kong_discard_liability = pays_for_all ================================================

LIABLE = {0: "9999p5m123m678m234p", 1: "46m999m111m234m55m", 2: "46m111s234s567s99s", 3: "13579s2468s5688p"}


@pytest.mark.parametrize("rules,sets,b1,b2", [("chengdu", {}, 2, 1),
                                              ("battle", {"kong_discard_liability": "pays_for_all"}, 4, 1)])
@pytest.mark.parametrize("two", [False, True])
def test_kong_discard_liability_pays_for_all(rules, sets, b1, b2, two):
    """RULES.md: Settlement, and its Rulings: pays_for_all: per winner, base x (seats in the hand before the discard - 1), reason kong_discard_liability; kong income kept."""
    hand = play(rules, LIABLE, voids="sppm", replacements="7p", sets=sets,
                scripts={0: ["kong 9p", "discard 5m"], 1: ["ron 5m"], 2: ["ron 5m" if two else "pass 5m"]})
    w = wins(hand)
    assert [(x["seat"], x["from"], x["base"]) for x in w[:2 if two else 1]] == [(1, 0, b1), (2, 0, b2)][:2 if two else 1]
    expected = [(0, 1, 3 * b1, "kong_discard_liability")] + ([(0, 2, 3 * b2, "kong_discard_liability")] if two else [])
    assert pays(hand)[:3] == [(1, 0, 2, "kong"), (2, 0, 2, "kong"), (3, 0, 2, "kong")]
    assert pays(hand)[3:3 + len(expected)] == expected
    assert not [p for p in pays(hand, "win") if p[0] == 0 and p[1] in (1, 2)]  # no second, ordinary payment
    if rules == "chengdu":
        assert not pays(hand, "kong_refund")
        assert hand.seat[0, 0, rec.S_NET_KONG] == 6


LIABLE_AFTER_WIN = {0: "9999p5m123m678m23p1s", 1: "46m999m111m234m55m", 2: "1347p13p5688s9s2s6s",
                    3: "23s456s789s55p678p"}


def test_kong_discard_liability_counts_seats_still_in_hand():
    """RULES.md: Settlement, pays_for_all pays base "once for every seat that would be liable on a self-draw" (one seat already out: base x 2)."""
    hand = play("chengdu", LIABLE_AFTER_WIN, voids="spmm", draws="4p", replacements="7p",
                scripts={0: ["discard 1s", "kong 9p", "discard 5m"], 3: ["ron 1s"], 1: ["ron 5m"]})
    w = wins(hand)
    assert [(x["seat"], x["from"], x["tile"]) for x in w] == [(3, 0, "1s"), (1, 0, "5m")]
    assert pays(hand, "kong") == [(1, 0, 2, "kong"), (2, 0, 2, "kong")]
    assert pays(hand, "kong_discard_liability") == [(0, 1, 2 * w[1]["base"], "kong_discard_liability")]


# == 11. limit hands ==========================================================================

HEAVENLY = {0: "123m456m789m111m99m", 1: "2468p2468s13579s", 2: "13579p2468p1357s", 3: "23456789p23468s"}


@pytest.mark.parametrize("rules,pats,fan,base", [("chengdu", {"heavenly": 6}, 6, 64),
                                                 ("battle", {"full_flush": 2, "root": 1}, 3, 8)])
def test_heavenly_hand(rules, pats, fan, base):
    """RULES.md: Fan patterns, heavenly (dealer wins on its initial 14 tiles) is a chengdu limit hand: "fan = fan_cap and only its limit pattern"; none in battle."""
    hand = play(rules, HEAVENLY, voids="smmm", scripts={0: ["win"]})
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["tiles_left"]) for x in w] == [(0, "self_draw", 55)]
    assert (w[0]["patterns"], w[0]["fan"], w[0]["base"]) == (pats, fan, base)
    assert pays(hand, "win") == [(s, 0, base + 1, "win") for s in (1, 2, 3)]


EARTHLY = {0: "1s2468p2468s13579s", 1: "23m456m789m111p99p", 2: "3579p357s99s88s6s4s", 3: "123456789p2368s"}


@pytest.mark.parametrize("rules,pats,fan,base", [("chengdu", {"earthly": 6}, 6, 64), ("battle", {}, 0, 1)])
def test_earthly_hand(rules, pats, fan, base):
    """RULES.md: Rulings where the documents are silent, earthly is "a non-dealer's self-draw on its first normal draw, in the first go-around" (chengdu limit; none in battle)."""
    hand = play(rules, EARTHLY, voids="msmm", draws="1m", scripts={1: ["win"]})
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["tile"]) for x in w] == [(1, "self_draw", "1m")]
    assert (w[0]["patterns"], w[0]["fan"], w[0]["base"]) == (pats, fan, base)
    assert pays(hand, "win") == [(s, 1, base + 1, "win") for s in (0, 2, 3)]


def test_no_earthly_hand_after_a_pung():
    """RULES.md: Rulings where the documents are silent, earthly needs "no pung, kong or win by anyone before it"."""
    hands = {0: "1s2468p2468s13579s", 1: "123456789p2368s", 2: "22p357p357s99s88s6s", 3: "23m456m789m111p99p"}
    hand = play("chengdu", hands, voids="mmms", draws="1m", scripts={2: ["pung 2p", "discard 6s"], 3: ["win"]})
    assert [(p["seat"], p["tile"], p["from"]) for p in evs(hand, "pung")] == [(2, "2p", 0)]
    assert [(d["seat"], d["tile"]) for d in evs(hand, "draw")][:1] == [(3, "1m")]
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["patterns"], x["base"]) for x in w] == [(3, "self_draw", {}, 1)]


ARHATS = {0: "2468p2468s13579s1s", 1: "1111m2222m3333m7p", 2: "1359p1357s99s24s6s", 3: "12345689p2368s8s"}


@pytest.mark.parametrize("rules,pats,fan,base", [
    ("chengdu", {"eighteen_arhats": 6}, 6, 64),
    ("battle", {"all_triplets": 1, "four_declared": 1, "root": 4, "kong_replacement": 1}, 7, 16)])
def test_eighteen_arhats(rules, pats, fan, base):
    """RULES.md: Fan patterns, eighteen_arhats (four kongs) is a chengdu limit hand (fan = fan_cap, only that pattern); battle values its patterns."""
    hand = play(rules, ARHATS, voids="msmm", draws="7p", replacements="7p 7p 5p 5p",
                scripts={1: ["kong 1m", "kong 2m", "kong 3m", "kong 7p", "win"]})
    assert [k["tile"] for k in evs(hand, "kong", seat=1)] == ["1m", "2m", "3m", "7p"]
    w = wins(hand)
    assert [(x["seat"], x["kind"], x["tile"]) for x in w] == [(1, "kong_replacement", "5p")]
    assert (w[0]["patterns"], w[0]["fan"], w[0]["base"]) == (pats, fan, base)
    assert pays(hand, "win") == [(s, 1, base + 1, "win") for s in (0, 2, 3)]
    assert len(pays(hand, "kong")) == 12


# == 12. the dealer's kong before its first discard ===========================================

DEALER_KONG = {0: "1111m234m567m789m9m", 1: "2468p2468s13579s", 2: "13579p2468p1357s", 3: "23456789p23468s"}


@pytest.mark.parametrize("rules,pats,fan", [
    ("chengdu", {"full_flush": 1, "root": 1, "kong_replacement": 1}, 3),
    ("battle", {"full_flush": 2, "root": 1, "kong_replacement": 1}, 4)])
def test_dealer_kong_before_first_discard_is_not_heavenly(rules, pats, fan):
    """RULES.md: Rulings where the documents are silent, "The dealer may declare a concealed kong before its first discard; a win on that replacement is kong_replacement, not heavenly"."""
    hand = play(rules, DEALER_KONG, voids="smmm", replacements="9m", scripts={0: ["kong 1m", "win"]})
    assert [(k["seat"], k["tile"], k["kind"]) for k in evs(hand, "kong")] == [(0, "1m", "concealed")]
    d = evs(hand, "draw")[0]
    assert (d["seat"], d["tile"], d["replacement"]) == (0, "9m", True)
    w = wins(hand)
    assert [(x["seat"], x["kind"]) for x in w] == [(0, "kong_replacement")]
    assert (w[0]["patterns"], w[0]["fan"]) == (pats, fan)
    assert "heavenly" not in w[0]["patterns"]


# == 13. the next dealer ======================================================================


def test_next_dealer_single_first_win():
    """RULES.md: One hand, step by step, step 8: "The first winner of a hand deals the next"."""
    hand = play("battle", ONE_DISCARD_TWO, voids="mssp", scripts={0: ["discard 5m"], 3: ["ron 5m"]})
    assert [x["seat"] for x in wins(hand)][:1] == [3]
    assert end_of(hand)["next_dealer"] == 3


def test_next_dealer_multi_winner_first_win():
    """RULES.md: One hand, step by step, step 8: "if the first win was several seats on one discard, the discarder deals"."""
    hands = {3: "123m46m789m111m99m9s", 0: "5m13579p2468s135s", 1: "46m123p456p789p99p", 2: "2358m22446688p6p"}
    hand = play("battle", hands, dealer=3, voids="msss", draws="7s",
                scripts={0: ["discard 5m"], 1: ["ron 5m"], 3: ["ron 5m"]})
    assert [(x["seat"], x["from"]) for x in wins(hand)] == [(1, 0), (3, 0)]
    assert end_of(hand)["next_dealer"] == 0


def test_next_dealer_multi_robber_first_win():
    """RULES.md: Rulings where the documents are silent, a robbed kong "is settled as a discard by the kong seat": several robbers first, the kong seat deals next."""
    hand = rob_scenario({2: ["rob 5m"], 3: ["no-rob 5m"], 0: ["rob 5m"]})
    assert [x["from"] for x in wins(hand)][:2] == [1, 1]
    assert end_of(hand)["next_dealer"] == 1


def test_next_dealer_no_win_dealer_stays():
    """RULES.md: One hand, step by step, step 8: "if nobody won, the dealer stays"."""
    hands = {2: "123456789m13578p", 3: "9999p2468p1357s9s", 0: "123456789m2468s", 1: "12345678p24568s"}
    hand = play("battle", hands, dealer=2, voids="pmsm")
    assert not wins(hand)
    assert end_of(hand)["next_dealer"] == 2


# == 14. exposed kong on a discard ============================================================


def test_exposed_kong_discarder_pays_and_claimant_draws_replacement():
    """RULES.md: Rulings where the documents are silent, "Exposed kong on a discard: the discarder pays 2"; step 4: "after a kong it draws a replacement"."""
    hands = {0: "7p13579m2468s1357s", 1: "2468m2468s13579s", 2: "777p2468m123p456p", 3: "12345689p123s99s"}
    hand = play("battle", hands, voids="pssm", replacements="9p", scripts={0: ["discard 7p"], 2: ["claim-kong 7p"]})
    kong = evs(hand, "kong")
    assert [(k["seat"], k["tile"], k["kind"], k["from"]) for k in kong] == [(2, "7p", "exposed", 0)]
    nxt = after(hand, kong[0])
    assert (nxt[0]["event"], nxt[0]["payer"], nxt[0]["payee"], nxt[0]["amount"], nxt[0]["reason"]) == (
        "payment", 0, 2, 2, "kong")
    assert (nxt[1]["event"], nxt[1]["seat"], nxt[1]["tile"], nxt[1]["replacement"]) == ("draw", 2, "9p", True)
    assert pays(hand, "kong") == [(0, 2, 2, "kong")]


# == 15. void discipline ======================================================================

VOID_HANDS = {0: "5m1357p8p2468s1357s", 1: "1s9999p2468p234m6m", 2: "555m1s1357p16789m", 3: "2468m2468s13579s"}


def test_void_discipline_non_void_discard_is_illegal():
    """RULES.md: One hand, step by step, step 4: "While a seat holds any tile of its void suit it must discard a void tile"."""
    with pytest.raises(AssertionError, match=r"seat 1 .*illegal"):
        play("battle", VOID_HANDS, voids="mssp", draws="2m", scripts={1: ["discard 2m"]})


@pytest.mark.parametrize("entry,kind", [("pung 5m", "pung"), ("claim-kong 5m", "kong")])
@pytest.mark.parametrize("rules,offered", [("battle", False), ("kawu", True)])
def test_claim_while_void(entry, kind, rules, offered):
    """RULES.md: Options and presets, claim_while_void "may pung/kong a discard while holding void tiles" (battle false: not offered; kawu: offered)."""
    hand = play(rules, VOID_HANDS, voids="mssp", scripts={0: ["discard 5m"], 2: [entry]}, strict=False)
    claims = [e for e in evs(hand, kind) if e["seat"] == 2]
    if offered:
        assert script_used(hand, 2) == 2
        assert [(c["tile"], c.get("from")) for c in claims] == [("5m", 0)]
    else:
        assert script_used(hand, 2) == 1  # its void choice only: the claim was never asked
        assert not claims


@pytest.mark.parametrize("rules,offered", [("battle", False), ("kawu", True)])
def test_kong_while_void(rules, offered):
    """RULES.md: Options and presets, kong_while_void "may declare concealed/added kongs while holding void tiles" (battle false; kawu true)."""
    hand = play(rules, VOID_HANDS, voids="mssp", draws="2m", replacements="3p", fns=konger_at(1))
    first = evs(hand, "draw", seat=1)[0]
    nxt = after(hand, first)[0]
    if offered:
        assert (nxt["event"], nxt["seat"], nxt["tile"], nxt["kind"]) == ("kong", 1, "9p", "concealed")
    else:
        assert (nxt["event"], nxt["seat"], nxt["tile"]) == ("discard", 1, "1s")
        kongs = evs(hand, "kong", seat=1)
        assert kongs and hand.events.index(kongs[0]) > hand.events.index(nxt)


# == 16. the exchange =========================================================================

PASSED = {0: "123m", 1: "123p", 2: "123s", 3: "789m"}


def exchange_hands():
    """Each seat holds its three passed tiles, kinds no other seat holds, and fillers; the
    first draws are fillers too."""
    filler = [t for t in parse_tiles("456m456789p456789s") for _ in range(4)]
    filler.sort(key=lambda t: (t % 9, t // 9))
    hands = {}
    for seat in range(4):
        n = (14 if seat == 0 else 13) - 3
        hands[seat] = PASSED[seat] + " " + " ".join(tile_text(t) for t in filler[:n])
        filler = filler[n:]
    return hands, " ".join(tile_text(t) for t in filler[:3])


@pytest.mark.parametrize("direction", [1, -1, 2])
def test_exchange_passes_to_seat_plus_direction(direction):
    """RULES.md: One hand, step by step, step 2: three tiles of one suit, "All pass at once"; TRACE.md exchange: "receiver = seat + direction mod 4"."""
    hands, draws = exchange_hands()
    scripts = {}
    for seat in range(4):
        giver = (seat - direction) % 4
        got = parse_tiles(PASSED[giver])
        scripts[seat] = [f"exchange {PASSED[seat]}", f"void {'mps'[got[0] // 9]}", f"discard {tile_text(got[2])}"]
    hand = play("battle", hands, sets={"exchange": True}, direction=direction, draws=draws, scripts=scripts)
    ex = evs(hand, "exchange")[0]
    assert ex["direction"] == direction
    assert ex["passed"] == [[tile_text(t) for t in parse_tiles(PASSED[s])] for s in range(4)]
    first = {}
    for e in evs(hand, "discard"):
        first.setdefault(e["seat"], e["tile"])
    for seat in range(4):  # each seat's first discard is a tile only its giver held
        giver = (seat - direction) % 4
        assert first[seat] == tile_text(parse_tiles(PASSED[giver])[2])


# == 17. the ready check ======================================================================


@pytest.mark.parametrize("rules,penalty,pig_pays_ready", [("battle", 16, False), ("kawu", 32, True)])
def test_ready_check(rules, penalty, pig_pays_ready):
    """RULES.md: Settlement, wall exhausted, step 2: not-ready non-pigs pay each ready seat its best "discard win" base; pigs too only with pig_pays_ready_check (kawu)."""
    draws = rest_of_wall(READY, pigs={2: "s"})
    hand = play(rules, READY, voids="sssp", draws=draws)
    assert not wins(hand)
    checks = {e["seat"]: e for e in evs(hand, "check")}
    assert [checks[s]["pig"] for s in range(4)] == [False, False, True, False]
    assert [checks[s]["ready"] for s in range(4)] == [False, False, False, True]
    assert "9m" in checks[3]["waits"] and checks[3]["best_base"] == 8  # 9m: full flush + root, not 9 or 16
    assert pays(hand, "flower_pig") == [(2, q, penalty, "flower_pig") for q in (0, 1, 3)]
    payers = (0, 1, 2) if pig_pays_ready else (0, 1)
    assert pays(hand, "not_ready") == [(p, 3, 8, "not_ready") for p in payers]
