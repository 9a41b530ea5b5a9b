"""An agent that answers every question with ``builtin_action("expert")`` plays every hand of a
seed exactly as ``sichuan simulate --seats expert`` does: the same rows, every column."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.contract.rules import PRESETS, resolve
from simcore.engine import agents as AG
from simcore.env import Tables
from simcore.runs.batch import run_batch
from simcore.runs.shards import batch_tables
from strategies.models import shipped_path
from strategies.registry import parse_seats, seat_functions

HANDS = 2000
SEED = 17


def _play_env(rules: str, seat: int, n_tables: int, spec: str = "expert") -> dict:
    """Every hand 0..HANDS-1 of SEED through ``n_tables`` tables, the agent at ``seat`` answered by
    ``builtin_action(spec)``: {hand: HandResult}."""
    T = Tables(n_tables, rules, spec, agents=(seat,))
    T.reset(SEED, first=0, stride=n_tables, last=HANDS - 1)
    got = {}
    while (T.status != AG.OVER).any():
        T.step(np.where(T.status == AG.OVER, 0, T.builtin(spec)))
        for i in np.flatnonzero(T.ended):
            r = T.result(i)
            assert r.g not in got
            got[r.g] = r
    return got


@pytest.mark.parametrize("preset", PRESETS)
def test_builtin_expert_in_the_env_plays_every_hand_as_simulate(preset):
    seat = PRESETS.index(preset) % 4
    got = _play_env(preset, seat, 256)
    ref = run_batch(resolve(preset), seat_functions(parse_seats("expert")), SEED, 0, HANDS)
    assert sorted(got) == list(range(HANDS))
    for g in range(HANDS):
        r = got[g]
        nw, npay = len(r.win), len(r.pay)
        assert np.array_equal(r.hand, ref.hand[g]), f"hand {g}: the hands row differs"
        assert np.array_equal(r.seat, ref.seat[g]), f"hand {g}: a seats row differs"
        assert np.array_equal(r.win, ref.win[g, :nw]) and nw == ref.hand[g][7], f"hand {g}: a wins row differs"
        assert np.array_equal(r.pay, ref.pay[g, :npay]), f"hand {g}: a payments row differs"
    # the four tables as `sichuan simulate` writes them, column by column (the seats' strategy
    # columns say "agent" at the agent's seat)
    names = [s.canonical for s in parse_seats("expert")]
    expected = batch_tables(ref, names)
    for g in (0, 1, HANDS - 1):
        tables = got[g].tables()
        for name, table in tables.items():
            want = expected[name].filter(np.asarray(expected[name].column("hand")) == g)
            for col in table.column_names:
                if col in ("strategy", "play", "exchange_policy", "void_policy"):
                    continue
                assert table.column(col).to_pylist() == want.column(col).to_pylist(), (name, col, g)


# not ``random`` play: it draws from its stream at questions with one legal answer too, which the
# env answers itself, so a copy of it drifts from the seated one (docs/AGENTS.md)
@pytest.mark.parametrize("spec", ["search[rollouts=2,max_rollouts=4]", "expert+exchange=random+void=random"])
def test_the_fidelity_holds_for_searching_and_random_specs_and_any_number_of_tables(spec):
    a = _play_env_small("battle", 1, 5, spec)
    b = _play_env_small("battle", 1, 2, spec)
    ref = run_batch(resolve("battle"), seat_functions(parse_seats(spec)), SEED, 0, 12)
    for g in range(12):
        assert np.array_equal(a[g].seat, ref.seat[g]) and np.array_equal(b[g].seat, ref.seat[g])


def _eager_model(tmp_path, preset):
    """The shipped model with a margin far below zero: it leaves expert's answer wherever it is
    consulted, so a seat that lost it is seen at once."""
    import json

    from strategies import models as M

    with np.load(shipped_path(preset)) as z:
        header, arrays = json.loads(z["header"].tobytes()), {k: z[k] for k in M.ARRAYS}
    return M.save(tmp_path / f"eager-{preset}.npz", dict(header, margin=-50.0), arrays)


@pytest.mark.parametrize("spec, base", [
    ("learned", "expert"), ("learned[model=EAGER]", "expert"),
    pytest.param("search[rollouts=2,max_rollouts=4,policy=learned]", "search[rollouts=2,max_rollouts=4]",
                 marks=pytest.mark.slow)])
def test_the_fidelity_holds_for_learned_with_any_model(spec, base, tmp_path):
    """``builtin_action("learned")`` (with a model file, and as a search's rollout policy) plays as
    the seat does, and the agent's seat matters: with ``base`` (expert in learned's place) there
    instead, the hands differ, so an env whose copy of the view lost the model would be caught
    (checked where the model surely acts: the eager model, and the search's rollouts)."""
    spec = spec.replace("EAGER", str(_eager_model(tmp_path, "battle")))
    got = _play_env_small("battle", 1, 3, spec)
    ref = run_batch(resolve("battle"), seat_functions(parse_seats(spec)), SEED, 0, 12)
    for g in range(12):
        assert np.array_equal(got[g].seat, ref.seat[g]), g
    if spec != "learned":
        other = run_batch(resolve("battle"), seat_functions(parse_seats(f"{spec},{base},{spec},{spec}")), SEED, 0, 12)
        assert not np.array_equal(ref.seat, other.seat)


def _play_env_small(rules, seat, n_tables, spec):
    T = Tables(n_tables, rules, spec, agents=(seat,))
    T.reset(SEED, first=0, stride=n_tables, last=11)
    got = {}
    while (T.status != AG.OVER).any():
        T.step(np.where(T.status == AG.OVER, 0, T.builtin(spec)))
        for i in np.flatnonzero(T.ended):
            got[T.result(i).g] = T.result(i)
    return got
