"""User strategy files for the tests: a plain legal player, one that answers illegally (to
check the messages and traces that reproduce it), one that claims kongs it is not offered, and an
exchange policy."""

import textwrap

BOTS = textwrap.dedent('''
    import numba as nb
    from strategies.api import (A_WIN, C_KONG, C_PASS, C_WIN, Q_CLAIM, Q_ROB, Q_TURN, STRATEGY_SIG, V_CAN_WIN, V_HAND,
                                V_LOCKED, V_MUST_VOID, V_N_DRAWS, V_TILE, my_void)

    @nb.njit(STRATEGY_SIG, cache=True)
    def lowest(q, view, tab):
        """Wins when it can; otherwise discards its lowest legal tile; never claims."""
        if q == Q_TURN:
            if view[V_CAN_WIN]:
                return A_WIN
            if view[V_LOCKED]:
                return view[V_TILE]
            void = my_void(view)
            for t in range(27):
                if view[V_HAND + t] > 0 and not (view[V_MUST_VOID] and t // 9 != void):
                    return t
        if q == Q_CLAIM or q == Q_ROB:
            return C_WIN if view[V_CAN_WIN] else C_PASS
        return 0

    @nb.njit(STRATEGY_SIG, cache=True)
    def cheater(q, view, tab):
        """Discards a tile it may not hold (26 = 9s) once it is past its fifth draw."""
        if q == Q_TURN and view[V_N_DRAWS] > 5 and view[V_HAND + 26] == 0 and not view[V_LOCKED]:
            return 26
        return lowest(q, view, tab)

    @nb.njit(STRATEGY_SIG, cache=True)
    def konger(q, view, tab):
        """Answers every claim with a kong, offered or not."""
        if q == Q_CLAIM:
            return C_KONG
        return lowest(q, view, tab)
    @nb.njit(STRATEGY_SIG, cache=True)
    def pass_suit_zero(q, view, tab):
        """An exchange policy: three tiles of the first suit (m, p, s) holding three or more."""
        picked = 0
        code = 0
        for s in (0, 1, 2):
            n = 0
            for t in range(s * 9, s * 9 + 9):
                n += view[V_HAND + t]
            if n >= 3:
                for t in range(s * 9, s * 9 + 9):
                    for _ in range(view[V_HAND + t]):
                        if picked < 3:
                            code |= t << (5 * picked)
                            picked += 1
                return code
        return 0
''')


def write_bots(folder, name: str = "bots", text: str = BOTS):
    """Strategy file ``folder/name.py`` (the bots above unless ``text``); a name is compiled and
    cached once per process: give each test its own."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text)
    return path
