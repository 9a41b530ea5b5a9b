"""Hands stopped at their resume points (ARCHITECTURE.md: A hand that resumes), and a seat's view
in a stopped state, for the tests of the resume, the sampler and the search."""

from __future__ import annotations

import simcore.contract.view as vw
from tests.support import engine_internals as E
from simcore.inspection.trace import run_traced
from strategies.registry import parse_seats, seat_functions


def players_of(spec):
    """The engine's functions for a seat spec."""
    return seat_functions(parse_seats(spec))


def stopped_points(rules, players, seed, g, every=1):
    """The states of hand g stopped at each of its resume points (or every ``every``-th), in order."""
    p = every
    while True:
        S = run_traced(rules, players, seed, g, g % 4, pause=p)[0]
        if S[E.O_AT] == E.AT_END:
            return
        yield p, S
        p += every


def view_in(S, s):
    """Seat s's view in the state S."""
    return S[E.O_VIEWS + s * vw.VIEW_LEN:E.O_VIEWS + (s + 1) * vw.VIEW_LEN]
