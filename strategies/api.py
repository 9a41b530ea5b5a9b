"""What a strategy author imports: the contract (``simcore.contract.view``) plus fast helpers.

A strategy is ``@numba.njit(STRATEGY_SIG, cache=True)`` on ``f(question, view, tab) -> int``;
``simcore.contract.view`` documents the questions, answers and view slots, and
``strategies/example_user_strategy.py`` is a worked example. The evaluation helpers come from
``strategies.core`` (fast, allocation-free, table based) and ``simcore.contract.evaluate`` (exact).
"""

from __future__ import annotations

import numba as nb

from simcore.contract.evaluate import is_win, regular_shanten_codes, shanten, shanten_exact, waits_mask  # noqa: F401
from simcore.contract.view import *  # noqa: F401,F403  (the contract is part of this API)
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS  # noqa: F401  (tile t is rank t % N_RANKS of suit t // N_RANKS)
from simcore.contract.view import CONTRACT_VERSION, V_HAND  # noqa: F401  (the view's layout version)

from strategies.core import INF, NO_TILE, isolation, live, my_melds, my_void, near_mask, prepare, shanten_minus, shanten_moved, shanten_of, ukeire
from strategies.params import Param, parameters, wraps  # noqa: F401
from strategies.value import VALUE_SCRATCH, WAIT_VALUES, rules_of, wait_values, win_context, win_value  # noqa: F401


@nb.njit(cache=True, inline="always")
def hand_of(view):
    """The seat's concealed counts (a view into ``view``; do not write)."""
    return view[V_HAND:V_HAND + N_KINDS]


@nb.njit(cache=True)
def hand_shanten(tab, view):
    """Shanten of the seat's concealed tiles (fast path: declared sets do not cap targets)."""
    return shanten_of(tab, prepare(tab, view, 0))
