"""Jitted accessors of a state for jitted code outside the engine (``strategies/search.py``, the
ladder's replay): what they read or set, by name, never by offset. ``S`` is a state array or a raw
pointer to one (``simcore.contract.nrt.data_ptr``); ``simcore.engine.state`` has the Python ones.
"""

from __future__ import annotations

import numba as nb

from simcore.contract.nrt import call_strategy, view_of
from simcore.contract.view import VIEW_LEN
from simcore.engine.state import I64, O_FNS, O_G, O_N_EV, O_NET, O_OFF_LOG, O_VIEWS


@nb.njit(cache=True, inline="always")
def view_at(P, seat):
    """Seat ``seat``'s view in the state P (a raw pointer), as an array."""
    return view_of(P, O_VIEWS + seat * VIEW_LEN, I64(VIEW_LEN))


@nb.njit(cache=True, inline="always")
def net_at(S, seat):
    """The seat's net so far this hand."""
    return S[O_NET + seat]


@nb.njit(cache=True, inline="always")
def answer_at(S, group, seat, q, view, tab):
    """The answer of the seat's own strategy of ``group`` (0 play, 1 exchange, 2 void) to question q
    on ``view``."""
    f = O_FNS + 2 * (group * 4 + seat)
    return call_strategy(S[f], S[f + 1], q, view, tab)


@nb.njit(cache=True, inline="always")
def set_hand_at(S, g):
    """Make the state's next hand global hand g."""
    S[O_G] = g


@nb.njit(cache=True, inline="always")
def events_at(S):
    """Events the hand has logged so far."""
    return S[O_N_EV]


@nb.njit(cache=True, inline="always")
def log_at(S):
    """Where the state's event log starts (``records.LOG_WIDTH`` slots a row)."""
    return S[O_OFF_LOG]
