"""Play only where the arms differ (issue 36, item 2): the field's table with the arm shadowed at
every seat, each rotation forked where the arm's answer differs, equals playing the field's
table and the arm's four rotation tables in full, hand for hand, on every preset and for arms
that differ in play, exchange and void."""

import numpy as np
import pytest

from simcore.contract import records as rec
from simcore.contract.rules import PRESETS, preset
from simcore.runs.batch import run_batch, run_shadowed
from strategies.registry import parse_seat, seat_functions

ARMS = [("expert+void=fewest", "expert"), ("expert+exchange=shortest", "expert"), ("greedy", "efficient"),
        ("efficient+exchange=expert", "efficient"), ("expert[flush_weight=3]", "expert")]
WALLS = 120


def _rows(res, i):
    nw, npay = res.hand[i, rec.H_N_WINS], res.hand[i, rec.H_N_PAYMENTS]
    return (res.hand[i].tolist(), res.seat[i].tolist(), res.win[i, :nw].tolist(), res.pay[i, :npay].tolist())


def _full(rules, field, arm, order):
    F, A = parse_seat(field), parse_seat(arm)
    tables = [run_batch(rules, seat_functions([F] * 4), 3, 0, WALLS, draw_order=order)]
    for r in range(4):
        seats = [F] * 4
        seats[r] = A
        tables.append(run_batch(rules, seat_functions(seats), 3, 0, WALLS, draw_order=order))
    return tables


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("arm,field", ARMS)
def test_forking_where_the_arm_differs_equals_every_table_in_full(name, arm, field):
    rules = preset(name)
    order = "seat" if name != "kawu" else "table"
    shadow_field, arms, differed = run_shadowed(rules, parse_seat(field), parse_seat(arm), 3, 0, WALLS,
                                                draw_order=order)
    full = _full(rules, field, arm, order)
    for got, want in zip([shadow_field] + arms, full):
        for i in range(WALLS):
            assert _rows(got, i) == _rows(want, i), i
    # where a rotation did not differ, its hand is the field's; somewhere some rotation did
    for r in range(4):
        same = ~differed[:, r]
        assert (full[r + 1].seat[same][:, :, rec.S_NET] == full[0].seat[same][:, :, rec.S_NET]).all()
    # an arm that differs only in its exchange never differs where there is no exchange; flush_weight
    # is not read in blood flow (flow_flush_weight is), so that arm may never differ
    if "flush_weight" not in arm:
        assert differed.any() == (rules.exchange or "exchange=" not in arm)


def test_an_arm_equal_to_the_field_never_differs():
    _, arms, differed = run_shadowed(preset("flow"), parse_seat("efficient"), parse_seat("efficient"), 1, 0, 200)
    assert not differed.any()


def test_a_searching_seat_is_refused():
    with pytest.raises(ValueError, match="full-tables"):
        run_shadowed(preset("battle"), parse_seat("expert"), parse_seat("search"), 1, 0, 10)


def test_an_illegal_answer_of_the_arm_names_its_table(tmp_path):
    from simcore.runs.batch import StrategyAnswerError
    from tests.support.bots import write_bots

    bots = write_bots(tmp_path, "shadow_bots")
    with pytest.raises(StrategyAnswerError, match=r"illegal answer .* reproduce with: sichuan trace --seats "):
        run_shadowed(preset("battle"), parse_seat("greedy"), parse_seat(f"{bots}:cheater"), 1, 0, 50)
