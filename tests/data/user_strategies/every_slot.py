"""A user strategy whose play depends on every documented slot of its view (tests/support/fingerprints.py
plays it): a strategy written against an older view layout reads its slots by name, so recompiled it
must play the same hands the same way (its fingerprint was recorded at view contract version 1).

Each answer is legal and driven by a checksum of the whole view (its scratch and arena address aside,
the rule slots up to the rules' fields, each parameter group's first 16 slots, the group's size at
version 1): it wins when it can unless the checksum says pass, never
claims a set, and discards the k-th legal tile with k from the checksum."""

import numba as nb
import numpy as np

from simcore.contract.rules import N_RULE_FIELDS
from strategies.api import (A_WIN, C_PASS, C_WIN, N_KINDS, N_PARAMS, N_RANKS, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN,
                            STRATEGY_SIG, V_ARENA, V_CAN_WIN, V_HAND, V_LOCKED, V_MUST_VOID, V_PARAMS, V_RULES,
                            V_SCRATCH, V_TILE, V_VOID, V_ME, fields, pack3)

_SKIP = (V_SCRATCH, V_ARENA)


def _spans(start, n):
    if start == V_RULES:
        return [(start, N_RULE_FIELDS)]
    if start == V_PARAMS:   # each group's first 16 slots, play's, exchange's, void's
        return [(V_PARAMS + g * N_PARAMS, 16) for g in range(3)]
    return [(start, n)]


SPANS = np.array([span for start, n in fields().values() if start not in _SKIP for span in _spans(start, n)],
                 np.int64)


@nb.njit(cache=True)
def checksum(view):
    x = np.int64(1469598103934665603)
    for k in range(SPANS.shape[0]):
        for i in range(SPANS[k, 0], SPANS[k, 0] + SPANS[k, 1]):
            x = (x ^ view[i]) * np.int64(1099511628211)
    return x


@nb.njit(STRATEGY_SIG, cache=True)
def reader(question, view, tab):
    h = checksum(view)
    k = (h >> np.int64(7)) & np.int64(1023)
    if question == Q_CLAIM or question == Q_ROB:
        return C_WIN if view[V_CAN_WIN] and k % 5 != 0 else C_PASS
    if question == Q_TURN:
        if view[V_CAN_WIN] and k % 5 != 0:
            return A_WIN
        if view[V_LOCKED]:
            return view[V_TILE]
        void = view[V_VOID + view[V_ME]]
        n = 0
        for t in range(N_KINDS):
            if view[V_HAND + t] > 0 and (not view[V_MUST_VOID] or t // N_RANKS == void):
                n += 1
        pick = k % n
        for t in range(N_KINDS):
            if view[V_HAND + t] > 0 and (not view[V_MUST_VOID] or t // N_RANKS == void):
                if pick == 0:
                    return t
                pick -= 1
    if question == Q_EXCHANGE:   # three tiles of the suit the checksum names, among those with three
        for d in range(3):
            s = (k + d) % 3
            held = 0
            for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
                held += view[V_HAND + t]
            if held >= 3:
                picked = np.zeros(3, np.int64)
                c = 0
                for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
                    for _ in range(view[V_HAND + t]):
                        if c < 3:
                            picked[c] = t
                            c += 1
                return pack3(picked[0], picked[1], picked[2])
    return k % 3   # the void: a suit
