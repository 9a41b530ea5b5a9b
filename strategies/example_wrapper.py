"""A worked example of a user strategy that wraps a built-in: copy this file, change it, and name it:

    sichuan strategies strategies/example_wrapper.py
    sichuan compare "strategies/example_wrapper.py:patient[wait_tiles=30]" expert --hands 2000
    sichuan simulate --seats "strategies/example_wrapper.py:patient[wait_tiles=30,flush_weight=3]" --out runs/p

``@wraps(expert, ...)`` is the one declaration a wrapper needs: the wrapper takes every parameter
of ``expert`` with its default (a seat spec may set them, ``patient[flush_weight=3]``) and adds its
own after them. In the view a strategy's parameters sit in its group's ``N_PARAMS`` (32) slots: the
built-in's in the first ``WRAPPED_PARAMS`` (16), where ``expert`` reads them with ``param_int`` and
``param_float`` as when it plays alone, and the wrapper's own from slot 16 on, which it reads with
``own_param_int(view, i)`` and ``own_param_float(view, i)``, ``i`` in their declaration order.
A wrapper of an exchange or void policy (``strategies.exchange.plans``, ``strategies.void.plans``)
is declared the same way: each question reads its own part's group. The built-in's scratch slots
are its own (``expert`` uses the first ``strategies.expert.SCRATCH_USED``, 226): a wrapper that keeps
state across questions uses slots after them, and declares ``scratch=n`` to have its first n
zeroed each hand (``wraps`` zeroes at least the built-in's).

Names print the non-default parameters only, the built-in's and the wrapper's alike:
``example_wrapper.py:patient`` at its defaults (where it plays exactly as ``expert``),
``example_wrapper.py:patient[flush_weight=3.0,wait_tiles=30]`` otherwise. A user file's play,
this one included, gets ``exchange=expert`` and ``void=expert`` where its spec names none, the
default field's policies, so that against ``expert`` it differs in play only.
"""

import numba as nb

from strategies.api import C_PASS, C_WIN, Q_CLAIM, STRATEGY_SIG, V_WALL_LEFT, Param, own_param_int, wraps
from strategies.expert import expert


@wraps(expert, Param.int("wait_tiles", 0, 0, 55, "pass a discarded win while more than this many wall tiles "
                                                   "are left, for a self-draw (0: never, as expert)"))
@nb.njit(STRATEGY_SIG, cache=True)
def patient(question, view, tab):
    """Plays as expert, but passes a discarded win while more than wait_tiles wall tiles are left."""
    answer = expert(question, view, tab)      # expert reads its parameters as when it plays alone
    wait = own_param_int(view, 0)             # the wrapper's own first parameter
    if question == Q_CLAIM and answer == C_WIN and wait > 0 and view[V_WALL_LEFT] > wait:
        return C_PASS                          # always legal on a claim
    return answer
