"""Invariants checked after every step in check mode (``O_CHECK``): 108 tiles accounted for, the
readiness hints and shanten bounds true, each view's visible counts what the seat can see.
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.records import ERR_INVARIANT, INV_READY_HINT, INV_TILES, INV_VISIBLE
from simcore.contract.tiles import N_KINDS, N_TILES
from simcore.contract.view import M_PUNG
from simcore.engine.state import (
    DEAL_END, I64, MINUS_ONE, O_ASIDE, O_CHECK, O_HAND, O_MELD_CNT, O_MELD_KIND, O_N_MELDS, O_OUT, O_PILE,
    O_RDY, O_SH_LOW, O_VOIDCNT, O_WALL,
)
from simcore.engine.table import _error, _fast_shanten, undrawn, _v

@nb.njit(cache=True, _nrt=False)
def check_tiles(S):
    """Invariant: all N_TILES tiles accounted for, four of each kind, in wall, hands, sets, piles
    or set aside (TRACE.md's tile conservation). Returns True when it holds."""
    for t in range(N_KINDS):
        n = S[O_PILE + t] + S[O_ASIDE + t]
        for s in range(4):
            c = S[O_HAND + s * N_KINDS + t]
            if c < 0:
                return False
            n += c + S[O_MELD_CNT + s * N_KINDS + t]
        for i in range(DEAL_END, N_TILES):
            if undrawn(S, i) and S[O_WALL + i] == t:
                n += 1
        if n != 4:
            return False
    return True


@nb.njit(cache=True, _nrt=False)
def check_hints(S):
    """Invariant: each seat's shanten bound is a lower bound, and a cached readiness hint
    agrees with its tiles. Returns the first seat where either fails, else -1."""
    for s in range(4):
        sh = _fast_shanten(S, I64(s))
        if sh < S[O_SH_LOW + s]:
            return s
        r = S[O_RDY + s]
        if r >= 0 and r != (1 if S[O_VOIDCNT + s] == 0 and sh <= 0 else 0):
            return s
    return -1


@nb.njit(cache=True, _nrt=False)
def check_visible(S):
    """Invariant: each seat's visible counts (view.py: V_VISIBLE) equal a recount of what it can
    see: its own tiles and sets, the discard piles, the set-aside winning tiles, the others'
    sets (a concealed kong once its tile is shown) and the winners' revealed hands (a blood-battle
    winner's, its hand itself). Returns the first seat where they differ, else -1."""
    for s in range(4):
        v = _v(s)
        for t in range(N_KINDS):
            n = S[O_PILE + t] + S[O_ASIDE + t] + S[O_HAND + s * N_KINDS + t] + S[O_MELD_CNT + s * N_KINDS + t]
            for o in range(4):
                if o == s:
                    continue
                n += S[v + vw.V_REVEALED + o * N_KINDS + t]
                if S[O_OUT + o] and S[v + vw.V_REVEALED + o * N_KINDS + t] != S[O_HAND + o * N_KINDS + t]:
                    return s  # a winner out of the hand keeps the tiles it showed
                for i in range(S[O_N_MELDS + o]):
                    if S[v + vw.V_MELD_TILE + o * 4 + i] == t:
                        kind = S[O_MELD_KIND + o * 4 + i]
                        n += 3 if kind == M_PUNG else 4
            if n != S[v + vw.V_VISIBLE + t]:
                return s
    return -1


@nb.njit(cache=True, inline="always")
def _check(S):
    if S[O_CHECK]:
        if not check_tiles(S):
            _error(S, ERR_INVARIANT, MINUS_ONE, MINUS_ONE, INV_TILES)
        bad = check_visible(S)
        if bad >= 0:
            _error(S, ERR_INVARIANT, bad, MINUS_ONE, INV_VISIBLE)
        bad = check_hints(S)
        if bad >= 0:
            _error(S, ERR_INVARIANT, bad, MINUS_ONE, INV_READY_HINT)
