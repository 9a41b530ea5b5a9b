"""The worked example of RULES.md: Worked example (seed 000), replayed exactly through the engine by a scenario."""

from collections import Counter

from simcore.inspection.scenario import Scenario
from simcore.contract.tiles import parse_tiles, tile_text

A, B, C, D = range(4)


def worked_example() -> Scenario:
    hands = {A: "223344m3466p1578s", B: "23468999p13579s", C: "1112345678999m", D: "115577p226699s4s"}
    used = Counter(t for h in hands.values() for t in parse_tiles(h))
    used.update(parse_tiles("9p5m2s"))
    pool = [t for t in range(27) for _ in range(4 - used[t])]
    bamboo = [t for t in pool if t // 9 == 2]
    other = [t for t in pool if t // 9 != 2]
    draws = ["9p", "5m"]  # B draws the fourth 9p, C draws 5m
    for i in range(52):   # then D, A, B in turn; A draws only bamboo so it keeps 5s 7s 8s
        seat = (D, A, B)[i % 3]
        draws.append(tile_text(bamboo.pop(0) if seat == A or not other else other.pop(0)))
    return Scenario("battle", dealer=A, hands=hands, draws=" ".join(draws), replacements="2s",
                    voids="smpm", scripts={B: ["kong 9p"], C: ["win"]}, scores=(100, 100, 100, 100),
                    sets={"exchange": False})


def test_worked_example_nets():
    """A -53, B +7, C +31, D +15, summing to zero (RULES.md: Worked example)."""
    hand = worked_example().run()
    end = hand.events[-1]
    assert end["net"] == [-53, 7, 31, 15]
    assert end["scores"] == [47, 107, 131, 115]
    assert end["reason"] == "wall_exhausted"


def test_worked_example_payments_in_order():
    hand = worked_example().run()
    pays = [(e["payer"], e["payee"], e["amount"], e["reason"]) for e in hand.events if e["event"] == "payment"]
    assert pays == [
        (A, B, 2, "kong"), (C, B, 2, "kong"), (D, B, 2, "kong"),
        (A, C, 5, "win"), (B, C, 5, "win"), (D, C, 5, "win"),
        (A, B, 16, "flower_pig"), (A, C, 16, "flower_pig"), (A, D, 16, "flower_pig"),
        (B, D, 4, "not_ready"),
        (B, A, 2, "kong_refund"), (B, C, 2, "kong_refund"), (B, D, 2, "kong_refund"),
    ]


def test_worked_example_win_and_checks():
    hand = worked_example().run()
    win = next(e for e in hand.events if e["event"] == "win")
    assert (win["seat"], win["tile"], win["kind"], win["patterns"], win["fan"], win["base"]) == (
        C, "5m", "self_draw", {"full_flush": 2}, 2, 4)
    checks = {e["seat"]: e for e in hand.events if e["event"] == "check"}
    assert set(checks) == {A, B, D}
    assert checks[A]["pig"] and not checks[A]["ready"]
    assert not checks[B]["pig"] and not checks[B]["ready"]
    assert checks[D]["ready"] and checks[D]["waits"] == ["4s"] and checks[D]["best_base"] == 4
