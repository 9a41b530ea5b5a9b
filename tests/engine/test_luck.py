"""Luck terms (issue 36, item 3; ``simcore.engine.luck``): measuring luck changes no hand, every
seat's luck has mean zero whatever the value model's weights (fitted, or deliberately bad), and
a fit explains part of what seats still win."""

import numpy as np
import pytest

from simcore.contract import records as rec
from simcore.contract.rules import PRESETS, preset
from simcore.engine import RunOptions
from tests.support import engine_internals as E
from simcore.engine.luck import N_FEATURES
from simcore.runs.batch import run_batch
from simcore.runs.value_model import fit
from strategies.registry import parse_seats, seat_functions

HANDS = 3000


@pytest.fixture(scope="module")
def fns():
    return seat_functions(parse_seats("expert"))


@pytest.mark.parametrize("name", PRESETS)
def test_luck_has_mean_zero_and_changes_no_hand(name, fns):
    rules = preset(name)
    plain = run_batch(rules, fns, 4, 0, HANDS, draw_order="seat")
    bad = np.random.default_rng(7).normal(0, 5, N_FEATURES)    # deliberately bad weights: still unbiased
    res = run_batch(rules, fns, 4, 0, HANDS, draw_order="seat", value_weights=bad, check=True)
    assert (res.seat[:, :, rec.S_NET] == plain.seat[:, :, rec.S_NET]).all()
    assert (res.hand == plain.hand).all()
    assert (plain.luck == 0).all() and (res.luck != 0).any()
    luck = res.luck
    se = luck.std(axis=0, ddof=1) / np.sqrt(len(luck))
    assert (np.abs(luck.mean(axis=0)) < 3.5 * se).all(), (luck.mean(axis=0), se)


def test_a_fit_explains_part_of_what_seats_still_win(fns):
    m = fit(preset("battle"), "expert", hands=400)
    w = np.array(m["weights"])
    assert w.shape == (N_FEATURES,) and np.isfinite(w).all()
    assert 0 < m["r2"] < 1 and m["seat_hands"] == 400 * 4
    # the same hands, the same sums, whatever the threads (each block sums its own hands)
    assert fit(preset("battle"), "expert", hands=400, threads=1)["weights"] == m["weights"]


def test_a_value_model_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match=f"a value model has {N_FEATURES} weights"):
        RunOptions("table", np.zeros(3))
