"""The action space of agents that answer from outside the engine (``simcore.env``): one
``Discrete(N_ACTIONS)`` for every question, and its translation to the engine's answers
(``simcore.contract.view``). Masks over it come from the engine's own legality checks
(``legal.legal_actions``).

    ACT_DISCARD + t   Q_TURN: discard t; Q_EXCHANGE: pick t as the next of the three tiles to pass
    ACT_KONG + t      Q_TURN: kong of t (concealed, or added to a pung); Q_CLAIM: kong the discard t
    ACT_WIN           Q_TURN: self-draw; Q_CLAIM: win on the discard; Q_ROB: rob the kong
    ACT_PUNG          Q_CLAIM: pung
    ACT_PASS          Q_CLAIM, Q_ROB: pass
    ACT_VOID + s      Q_VOID: void suit s (0 m, 1 p, 2 s)

The exchange's three tiles are three picks in non-decreasing tile order (each multiset of three
tiles of one suit has exactly one way to be picked); a pick whose mask has one tile is made for
the agent.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.tiles import N_KINDS, fmt_tiles
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, Q_CLAIM, Q_ROB, Q_TURN, Q_VOID

ACT_DISCARD = 0
ACT_KONG = ACT_DISCARD + N_KINDS
ACT_WIN = ACT_KONG + N_KINDS
ACT_PUNG = ACT_WIN + 1
ACT_PASS = ACT_PUNG + 1
ACT_VOID = ACT_PASS + 1
N_ACTIONS = ACT_VOID + 3
assert N_ACTIONS < 63  # a mask is one int64's bits

SUITS = "mps"


def action_name(a: int) -> str:
    """Readable text of an action: ``discard 5m``, ``kong 3p``, ``win``, ``pung``, ``pass``, ``void s``."""
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {a} is outside 0..{N_ACTIONS - 1}")
    if a < ACT_KONG:
        return f"discard/pick {fmt_tiles([a - ACT_DISCARD])}"
    if a < ACT_WIN:
        return f"kong {fmt_tiles([a - ACT_KONG])}"
    if a >= ACT_VOID:
        return f"void {SUITS[a - ACT_VOID]}"
    return ("win", "pung", "pass")[a - ACT_WIN]


@nb.njit(cache=True)
def answer_of(q, a, tile):
    """The engine's answer to question q for action a (not the exchange: its picks are packed by the
    caller; ``tile``: the tile a claim is on, the only one it may kong); -1 when a answers no such
    question."""
    if q == Q_TURN:
        if ACT_DISCARD <= a < ACT_KONG:
            return np.int64(a - ACT_DISCARD)
        if ACT_KONG <= a < ACT_WIN:
            return np.int64(A_KONG + a - ACT_KONG)
        return np.int64(A_WIN) if a == ACT_WIN else np.int64(-1)
    if q == Q_CLAIM or q == Q_ROB:
        if a == ACT_WIN:
            return np.int64(C_WIN)
        if a == ACT_PASS:
            return np.int64(C_PASS)
        if q == Q_CLAIM and a == ACT_PUNG:
            return np.int64(C_PUNG)
        return np.int64(C_KONG) if q == Q_CLAIM and a == ACT_KONG + tile else np.int64(-1)
    if q == Q_VOID and ACT_VOID <= a < N_ACTIONS:
        return np.int64(a - ACT_VOID)
    return np.int64(-1)


@nb.njit(cache=True)
def action_of(q, ans, tile):
    """The action for the engine's answer ``ans`` to question q (``tile``: the tile a claim is on);
    not the exchange. -1 for an answer no action gives."""
    if q == Q_TURN:
        if 0 <= ans < N_KINDS:
            return np.int64(ACT_DISCARD + ans)
        if A_KONG <= ans < A_KONG + N_KINDS:
            return np.int64(ACT_KONG + ans - A_KONG)
        return np.int64(ACT_WIN) if ans == A_WIN else np.int64(-1)
    if q == Q_CLAIM or q == Q_ROB:
        if ans == C_WIN:
            return np.int64(ACT_WIN)
        if ans == C_PASS:
            return np.int64(ACT_PASS)
        if q == Q_CLAIM and ans == C_PUNG:
            return np.int64(ACT_PUNG)
        return np.int64(ACT_KONG + tile) if q == Q_CLAIM and ans == C_KONG else np.int64(-1)
    if q == Q_VOID and 0 <= ans < 3:
        return np.int64(ACT_VOID + ans)
    return np.int64(-1)
