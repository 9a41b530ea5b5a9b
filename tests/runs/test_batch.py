"""``simcore.runs.batch``: one engine batch from Python. Its results depend on the seed and the
hand index only (not the thread count or where a batch starts), every hand sums to zero, hands
that outgrow their slots are replayed whole, and an illegal answer is one line naming the
command that replays it."""

from __future__ import annotations

import pytest

from simcore.contract import records as rec
from simcore.contract.rules import preset
from simcore.runs import batch as B
from strategies.registry import parse_seats, seat_functions


def _players(spec="greedy,efficient,random,defensive"):
    return seat_functions(parse_seats(spec))


def test_results_depend_on_seed_and_hand_only():
    rules, players = preset("battle"), _players()
    whole = B.run_batch(rules, players, 9, 0, 600, threads=2)
    keep = (whole.hands.copy(), whole.hand.copy(), whole.seat.copy())
    del whole
    one = B.run_batch(rules, players, 9, 0, 600, threads=1)
    assert (one.hand == keep[1]).all() and (one.seat == keep[2]).all()
    part = B.run_batch(rules, players, 9, 250, 100)
    assert (part.hands == keep[0][250:350]).all() and (part.seat == keep[2][250:350]).all()


@pytest.mark.parametrize("rules", ["battle", "flow", "tfmj"])
def test_every_hand_sums_to_zero_and_checks_clean(rules):
    res = B.run_batch(preset(rules), _players(), 4, 0, 300, check=True)
    assert (res.seat[:, :, rec.S_NET].sum(axis=1) == 0).all()
    assert (res.hand[:, rec.H_ERROR] == rec.ERR_NONE).all()


def test_hands_that_outgrow_their_slots_are_replayed_whole(monkeypatch):
    """With room for one win and one payment, every hand with more is replayed with wider slots
    and comes out as with the default room."""
    rules, players = preset("flow"), _players("greedy")
    want = B.run_batch(rules, players, 5, 0, 200)
    w_hand, w_win = want.hand.copy(), want.win.copy()
    del want
    monkeypatch.setitem(B.WIN_CAP, "flow", 1)
    monkeypatch.setitem(B.PAY_CAP, "flow", 1)
    got = B.run_batch(rules, players, 5, 0, 200)
    assert (got.hand == w_hand).all()
    for i in range(200):
        n = got.hand[i, rec.H_N_WINS]
        assert (got.win[i, :n] == w_win[i, :n]).all()


def test_an_illegal_answer_is_one_line_with_a_trace_command():
    import numba as nb

    from simcore.contract.view import Q_TURN, STRATEGY_SIG
    from strategies.play import greedy

    @nb.njit(STRATEGY_SIG)
    def throws_nine_sou(q, view, tab):
        return 26 if q == Q_TURN else greedy(q, view, tab)

    fns = list(_players("greedy").fns)
    fns[0] = throws_nine_sou
    with pytest.raises(B.StrategyAnswerError) as info:
        B.run_batch(preset("battle").replace(fan_cap=5), tuple(fns), 1, 0, 50, seat_names=["mine", "g", "g", "g"])
    msg = str(info.value)
    assert "\n" not in msg and "mine" in msg and "sichuan trace --set fan_cap=5" in msg


def test_the_trace_command_names_user_files_by_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from strategies.registry import parse_seat

    own = parse_seat("expert").canonical.split("+", 1)[1]   # a user play's own policies are expert's
    cmd = B.trace_command(preset("flow"), 3, 17, [f"bots/mine.py:lowest+{own}"] * 4)
    assert cmd == f"sichuan trace --rules flow --seats {tmp_path}/bots/mine.py:lowest --seed 3 --hand 17"
    assert B.trace_command(preset("battle"), 0, 5, run_dir=tmp_path / "run") == f"sichuan trace {tmp_path}/run --hand 5"
