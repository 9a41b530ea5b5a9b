"""A hand that resumes anywhere: stopped at any resume point, copied and played on, it plays as
if uninterrupted (ARCHITECTURE.md: A hand that resumes)."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.contract.rules import PRESETS, preset
from simcore.inspection.trace import run_traced
from tests.support.stopped_hands import players_of, stopped_points

MIXED = "random,greedy,efficient+exchange=random+void=random,defensive+exchange=keep-pairs+void=weakest"


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("spec", ["expert", MIXED])
def test_a_hand_resumed_from_any_point_plays_as_if_uninterrupted(name, spec):
    """Stopping a hand at a resume point, copying its state and playing the copy on gives the
    same log and rows as playing it through (every point of one hand, every 7th of two more)."""
    rules, players = preset(name), players_of(spec)
    for g in range(3):
        whole = run_traced(rules, players, 5, g, g % 4)
        n = 0
        for p, S in stopped_points(rules, players, 5, g):
            if g and p % 7:
                continue
            n += 1
            go_on = run_traced(rules, players, 5, g, g % 4, state=S.copy())
            assert np.array_equal(go_on[1], whole[1]), (name, spec, g, p)
            for a, b in zip(go_on[2:], whole[2:]):
                assert np.array_equal(a, b), (name, spec, g, p)
        assert n >= 5


