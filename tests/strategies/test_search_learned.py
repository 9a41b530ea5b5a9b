"""search[policy=learned]: the learned play as the search's rollout policy, at every rollout seat
and as the answer the search compares its candidates against (README: Learned players). Its
model reaches the rollout seats through their parameter slots (the arena's setup), untouched."""

from __future__ import annotations

import numpy as np
import pytest

import simcore.contract.records as rec
import simcore.contract.view as vw
from simcore.contract.arena import AR_HEADER, AR_SETUP
from simcore.contract.rules import preset
from simcore.contract.tables import load_tables
from simcore.engine import arena_for, pose
from simcore.runs.batch import run_batch
from strategies import expert as X
from strategies import learned as L
from strategies.models import model_set_address
from strategies.params import declared, declared_slots, resolve_values, slots
from strategies.registry import EXCHANGE, VOID
from strategies.search import MAX_CAND, ask_posed, judge_posed
from tests.support.stopped_hands import players_of, stopped_points, view_in

SEARCH = "search[rollouts=4,max_rollouts=8,policy=learned]"
MODEL_SLOT = vw.WRAPPED_PARAMS   # learned's own first parameter, the model's address


def _payments(r):
    return [r.pay[i, :r.hand[i, rec.H_N_PAYMENTS]].tolist() for i in range(r.n)]


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["battle", "flow"])
def test_search_with_the_learned_policy_plays_legally_and_reproducibly(rules):
    """As play, exchange and void policy, in check mode (an illegal answer or a written model
    raises); the same seed gives the same hands whatever the thread count."""
    small = "search[rollouts=2,max_rollouts=2,policy=learned]"
    spec = f"{SEARCH},expert+exchange={small}+void={small},learned,expert"
    players = players_of(spec)
    checked = run_batch(preset(rules), players, 5, 0, 12, check=True, threads=2)
    assert (checked.hand[:, rec.H_ERROR] == 0).all()
    one = run_batch(preset(rules), players, 5, 0, 12, threads=1)
    two = run_batch(preset(rules), players, 5, 0, 12, threads=2)
    assert np.array_equal(one.seat, two.seat) and _payments(one) == _payments(two)
    assert _payments(one) == _payments(checked)  # check mode only adds its counts


def test_the_rollout_seats_carry_the_learned_model():
    """The registry seats learned at the four rollout seats (with its own exchange and void,
    expert's), its model's address in each one's parameter slot (the shipped models: bare
    ``learned``)."""
    players = players_of(f"{SEARCH},expert,expert,expert")
    assert players.rfns[0] is L.learned   # [group*4 + seat]: seat 0's rollout policy, at every rollout seat
    assert players.rfns[4] is EXCHANGE["expert"] and players.rfns[8] is VOID["expert"]
    setup = players.arena[AR_SETUP:AR_HEADER]   # seat 0's arena: the rollout seats' setup
    for s in range(4):
        assert setup[s * 3 * vw.N_PARAMS + MODEL_SLOT] == model_set_address("") != 0


@pytest.mark.slow
def test_the_rollouts_play_learned_with_its_model():
    """The same decisions judged on the same sampled tables: with learned's rollouts the sums
    differ from expert's somewhere, and with the model's slot cleared in the arena (learned is then
    expert) they are expert's exactly: the difference is the model, reached through the slot."""
    tab = load_tables()
    by_expert = players_of("search[rollouts=4,max_rollouts=8],expert,expert,expert")
    by_learned = players_of(f"{SEARCH},expert,expert,expert")
    A_expert, A_learned = arena_for(by_expert, 0), arena_for(by_learned, 0)
    A_blind = A_learned.copy()
    for s in range(4):
        A_blind[AR_SETUP + s * 3 * vw.N_PARAMS + MODEL_SLOT] = 0
    out = {k: np.zeros(2 + 3 * MAX_CAND + MAX_CAND * MAX_CAND, np.int64) for k in ("e", "l", "b")}
    judged = differ = 0
    for g in range(4):
        for _, S in stopped_points(preset("flow"), by_expert, 5, g, every=3):
            if pose(S, 0) != vw.Q_TURN:
                continue
            for k, A in (("e", A_expert), ("l", A_learned), ("b", A_blind)):
                out[k][:] = 0
                judge_posed(S.copy(), np.int64(0), tab, A, np.int64(3), np.int64(16), np.int64(11 + g),
                            np.int64(-1), np.int64(3000), out[k])
            assert np.array_equal(out["b"], out["e"]), g
            judged += 1
            differ += not np.array_equal(out["l"], out["e"])
    assert judged >= 8 and differ > 0, (judged, differ)


@pytest.mark.slow
def test_where_it_keeps_its_policy_it_plays_as_learned():
    """A question the search does not search is answered by its policy on the seat's own view,
    with the policy's parameters swapped in: search[decisions=calls,policy=learned] plays every
    turn as learned (its model's address read from the swapped slots), which is not always
    expert's answer."""
    tab = load_tables()
    def params(fn):
        return slots(declared(fn), resolve_values(declared(fn), {}, ""), declared_slots(fn))

    as_learned, as_expert = params(L.learned), params(X.expert)
    players = players_of("search[decisions=calls,rollouts=2,max_rollouts=2,policy=learned],learned,learned,learned")
    arena = arena_for(players, 0)
    asked = telling = 0
    for g in range(60):   # until a turn shows the learned play apart from expert's (a few in a hundred)
        if asked > 100 and telling > 0:
            break
        for _, S in stopped_points(preset("flow"), players, 5, g):
            if pose(S, 0) != vw.Q_TURN:
                continue
            got = int(ask_posed(S.copy(), np.int64(0), tab, np.int64(0), arena))
            view = view_in(S.copy(), 0).copy()
            view[vw.V_PARAMS:vw.V_PARAMS + vw.N_PARAMS] = as_learned
            want = int(L.learned(view[vw.V_QUESTION], view.copy(), tab))
            view[vw.V_PARAMS:vw.V_PARAMS + vw.N_PARAMS] = as_expert
            assert got == want, g
            asked += 1
            telling += want != int(X.expert(view[vw.V_QUESTION], view, tab))
    assert asked > 100 and telling > 0, (asked, telling)
