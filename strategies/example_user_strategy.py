"""A worked example of a user strategy: copy this file, change it, and name it on the command line:

    sichuan simulate --seats strategies/example_user_strategy.py:cautious --hands 100000 --out runs/mine
    sichuan trace --seats strategies/example_user_strategy.py:cautious,greedy,greedy,greedy --hand 3 --format text
    sichuan strategies --check strategies/example_user_strategy.py:cautious

The contract (simcore/contract/view.py has every slot):

* A strategy is one jitted function ``f(question, view, tab) -> int`` compiled with
  ``STRATEGY_SIG``. The engine calls it from its parallel kernel through a function pointer,
  so it runs at full speed and the engine is not recompiled for it; ``cache=True`` keeps its
  own compilation on disk.
* ``view`` is this seat's int64 array: only what the seat may see (its tiles, every discard,
  exposed sets, voids, winners' revealed hands, wall tiles left, scores, what it passed and
  received). Read it; write only the scratch slots ``V_SCRATCH .. V_SCRATCH + N_SCRATCH``.
* ``tab`` is the suit table for the evaluation helpers of ``strategies.api``.
* Answers: Q_TURN -> ``A_WIN``, ``A_KONG + t`` or a tile ``t`` to discard; Q_CLAIM ->
  ``C_PASS``/``C_WIN``/``C_PUNG``/``C_KONG``; Q_ROB -> ``C_PASS``/``C_WIN``; Q_EXCHANGE ->
  ``pack3(a, b, c)``; Q_VOID -> a suit 0..2. The legal options are in the view
  (``V_CAN_WIN``, ``V_KONG_MASK``, ``V_MUST_VOID``, ``V_LOCKED``, ...). An illegal answer stops
  the run with a message naming the strategy, seat, question and hand.
* Randomness: ``rand_below(view, n)`` draws from this seat's own stream, reproducible from
  (seed, hand, seat): the same run always gives the same answers.
* A play strategy answers Q_TURN, Q_CLAIM and Q_ROB; exchange and void are separate policies
  (``+exchange=...`` and ``+void=...`` in the seat spec), and may also be user functions. Where a
  seat spec names none, a user file's play gets ``exchange=expert`` and ``void=expert`` (the
  default field's policies): ``cautious`` is ``cautious+exchange=expert+void=expert``.
* Parameters: ``@parameters(Param.int(...), Param.float(...), ...)`` above the jitted function
  declares them (``strategies.params``; at most ``N_PARAMS``, 32), read with
  ``param_int(view, i)``/``param_float(view, i)``; a seat spec sets them,
  ``example_user_strategy.py:mine[margin=3]``, and names print those not at their defaults.
* A strategy that calls a built-in declares ``@wraps(builtin, *its_own_params)`` instead:
  strategies/example_wrapper.py is the worked example.
"""

import numba as nb

from strategies.api import (
    A_WIN, C_PASS, C_WIN, INF, N_KINDS, N_RANKS, NO_TILE, Q_CLAIM, Q_ROB, Q_TURN, STRATEGY_SIG, V_CAN_WIN, V_HAND,
    V_LOCKED, V_MUST_VOID, V_TILE, V_WALL_LEFT, my_void, prepare, rand_below, shanten_moved,
)


@nb.njit(STRATEGY_SIG, cache=True)
def cautious(question, view, tab):
    """Wins whenever it can, never claims a pung or kong, and discards a tile that keeps
    shanten lowest, chosen at random among equals with its own random stream."""
    if question == Q_TURN:
        if view[V_CAN_WIN]:
            return A_WIN
        if view[V_LOCKED]:                      # blood flow after a win: only the drawn tile
            return view[V_TILE]
        void = my_void(view)
        st = prepare(tab, view, 0)              # suit codes and table classes, once per turn
        best = INF
        n_best = 0
        for t in range(N_KINDS):                # pass 1: the lowest shanten after a discard
            if view[V_HAND + t] == 0 or (view[V_MUST_VOID] and t // N_RANKS != void):
                continue
            sh = shanten_moved(tab, view, st, t, NO_TILE)
            if sh < best:
                best, n_best = sh, 1
            elif sh == best:
                n_best += 1
        pick = rand_below(view, n_best)         # pass 2: a random one of those (our own stream)
        for t in range(N_KINDS):
            if view[V_HAND + t] == 0 or (view[V_MUST_VOID] and t // N_RANKS != void):
                continue
            if shanten_moved(tab, view, st, t, NO_TILE) == best:
                if pick == 0:
                    return t
                pick -= 1
        return -1                               # unreachable: a seat always holds a legal discard
    if question == Q_CLAIM or question == Q_ROB:
        return C_WIN if view[V_CAN_WIN] else C_PASS
    return 0


@nb.njit(STRATEGY_SIG, cache=True)
def late_passer(question, view, tab):
    """Like ``cautious``, but passes on a discarded winning tile while more than 20 wall tiles
    are left (waiting for a self-draw, which every liable seat pays)."""
    if question == Q_CLAIM and view[V_CAN_WIN] and view[V_WALL_LEFT] > 20:
        return C_PASS
    return cautious(question, view, tab)
