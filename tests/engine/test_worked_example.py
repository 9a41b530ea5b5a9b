"""The worked example of RULES.md: Worked example (seed 000), replayed exactly through the engine by a scenario."""


from tests.support.worked_example import A, B, C, D, worked_example


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
