"""Shadowing an arm (README: Play only where the arms differ; ARCHITECTURE.md: Draw order,
shadowing and luck).

A duplicate arm that differs from the field in some policy plays the field's hand wherever its
answers are the field's. While the field's hand is played, every question a seat is asked is also
put to the arm's strategies on the same view, with the arm's parameters, scratch and random
counter (as if the arm sat there); the first answer that differs marks the seat's rotation as
differed and notes how many resume points the hand had passed (``kernel.play_shadowed`` then
replays the field's hand to that point, seats the arm with ``_seat_arm``, and plays on).
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.nrt import call_strategy, strategy_addresses, view_of
from simcore.contract.rules import R_EXCHANGE
from simcore.contract.view import Q_EXCHANGE, Q_VOID, VIEW_LEN
from simcore.engine.state import (
    O_FNS, O_SCRATCH_USE, O_SH_ASKED, O_SH_DONE, O_SH_FNS, O_SH_K, O_SH_RNG, O_SH_RP, O_SH_SAME, O_SH_SCR,
    O_SH_SETUP, O_SH_VIEW, ONE, SH_DIFFERED, SH_SAME,
)
from simcore.engine.table import _r, _tab, _v

@nb.njit(cache=True, _nrt=False)
def _shadow(S, seat, q, ans):
    """Put question q, just answered ``ans`` by the seat, to the arm's strategy."""
    v = _v(seat)
    sv = O_SH_VIEW
    for i in range(VIEW_LEN):   # the seat's strategy wrote only its scratch and counter: reset below
        S[sv + i] = S[v + i]
    for i in range(3 * vw.N_PARAMS):
        S[sv + vw.V_PARAMS + i] = S[O_SH_SETUP + seat * 3 * vw.N_PARAMS + i]
    o = O_SH_SCR + seat * vw.N_SCRATCH
    for i in range(vw.N_SCRATCH):
        S[sv + vw.V_SCRATCH + i] = S[o + i]
    S[sv + vw.V_RNG_COUNT] = S[O_SH_RNG + seat]
    group = 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)
    f = O_SH_FNS + 2 * (group * 4 + seat)
    a = call_strategy(S[f], S[f + 1], q, view_of(S, sv, VIEW_LEN), _tab(S))
    if a != ans:
        S[O_SH_DONE + seat] = SH_DIFFERED   # its scratch and counter stay as before the question
        S[O_SH_K + seat] = S[O_SH_RP]
        return
    for i in range(vw.N_SCRATCH):
        S[o + i] = S[sv + vw.V_SCRATCH + i]
    S[O_SH_RNG + seat] = S[sv + vw.V_RNG_COUNT]
    S[O_SH_ASKED + seat] |= ONE << group
    # the same from here on: every strategy still to be asked is the seat's own, in the same state
    left = ONE | ((0b110 & ~S[O_SH_ASKED + seat]) if _r(S, R_EXCHANGE) else (0b100 & ~S[O_SH_ASKED + seat]))
    if left & ~S[O_SH_SAME] != 0 or S[O_SH_RNG + seat] != S[v + vw.V_RNG_COUNT]:
        return
    use = max(S[O_SCRATCH_USE + seat], S[O_SH_SETUP + vw.SETUP_SCRATCH + seat])
    for i in range(min(use, vw.N_SCRATCH)):
        if S[o + i] != S[v + vw.V_SCRATCH + i]:
            return
    S[O_SH_DONE + seat] = SH_SAME


@nb.njit(cache=True)
def _seat_arm(S, r, arm_fns, arm_setup, scratch, rng):
    """Seat the arm at seat r of a hand stopped at a resume point: its strategies, parameters,
    scratch use, and the scratch and random counter its shadow had there."""
    for g in range(3):
        jit, c = strategy_addresses(arm_fns[g * 4 + r])
        S[O_FNS + 2 * (g * 4 + r)] = jit
        S[O_FNS + 2 * (g * 4 + r) + 1] = c
    v = _v(r)
    for i in range(3 * vw.N_PARAMS):
        S[v + vw.V_PARAMS + i] = arm_setup[r * 3 * vw.N_PARAMS + i]
    S[O_SCRATCH_USE + r] = min(max(arm_setup[vw.SETUP_SCRATCH + r], 0), vw.N_SCRATCH)
    for i in range(vw.N_SCRATCH):
        S[v + vw.V_SCRATCH + i] = scratch[i]
    S[v + vw.V_RNG_COUNT] = rng
