"""Asking the strategies (ARCHITECTURE.md: How a strategy is called): a seat's question put to its
strategy through the addresses in the header (``_ask``), in check mode with its view copied and
compared (``_ask_checked``) and the question's situation tallied, a script's forced answers, and
the seats answered from outside the engine (ARCHITECTURE.md: Agents outside the engine):
``play_on`` stops at a resume point where one of them has two or more legal answers
(``_agent_stop``), its caller puts the answer in O_AGENT_ANS and plays on; a question with one
legal answer is answered here (``_agent_answer``).
"""

from __future__ import annotations

import numba as nb

from simcore.contract import view as vw

from simcore.contract.actions import answer_of
from simcore.contract.nrt import call_strategy, view_of
from simcore.contract.records import (
    ERR_VIEW_WRITE, N_QUESTIONS, N_SITUATIONS, SIT_CLAIM_PUNG, SIT_CLAIM_PUNG_KONG, SIT_CLAIM_WIN,
    SIT_CLAIM_WIN_PUNG, SIT_CLAIM_WIN_PUNG_KONG, SIT_EXCHANGE, SIT_LOCKED_TURN, SIT_ROB, SIT_TURN_DISCARD,
    SIT_TURN_KONG, SIT_TURN_WIN, SIT_VOID,
)
from simcore.contract.view import Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, VIEW_LEN
from simcore.engine.legal import exchange_picks, has_choice, legal_actions, _lowest_bit, pose
from simcore.engine.shadow import _shadow
from simcore.engine.state import (
    I64, MINUS_ONE, O_AGENT_ANS, O_AGENT_SKIP, O_AGENTS, O_ASKED, O_CHECK, O_FNS, O_LOCKED, O_OFF_SCRIPT,
    O_SCRIPT_LEN, O_SCRIPT_POS, O_SH_DONE, O_SH_ON, O_SITUATIONS, O_VIEW_COPY, SCRIPT_AT_CHOICE, SH_ASKING,
)
from simcore.engine.table import _error, _tab, tiles_left, _v

@nb.njit(cache=True, _nrt=False)
def _ask(S, seat, q):
    """Ask a seat's strategy (or the scenario script); shadowing, put the same question to the
    arm's strategy as well."""
    ans = _ask_seat(S, seat, q)
    if S[O_SH_ON] and S[O_SH_DONE + seat] == SH_ASKING:
        _shadow(S, seat, q, ans)
    return ans


@nb.njit(cache=True, _nrt=False)
def _ask_seat(S, seat, q):
    """Ask a seat's strategy (or the scenario script, when it has an entry for this question; an
    entry marked ``SCRIPT_AT_CHOICE`` only where the question has two or more legal answers, as
    an agent seat is asked, so an agent's answers replay as a script). The wall count in the view
    is brought up to date here, the only time a strategy reads it."""
    v = _v(seat)
    S[v + vw.V_QUESTION] = q
    S[v + vw.V_WALL_LEFT] = tiles_left(S)
    pos = S[O_SCRIPT_POS + seat]
    if pos < S[O_SCRIPT_LEN]:
        o = S[O_OFF_SCRIPT] + (seat * S[O_SCRIPT_LEN] + pos) * 3
        if (S[o] == q or (S[o] == q + SCRIPT_AT_CHOICE and has_choice(S, seat, q))) \
                and (S[o + 1] < 0 or S[o + 1] == S[v + vw.V_TILE]):
            S[O_SCRIPT_POS + seat] = pos + 1
            return S[o + 2]
    S[O_ASKED + seat * N_QUESTIONS + q] += 1
    if (S[O_AGENTS] >> seat) & 1:   # an agent outside the engine is the seat's strategy
        return _agent_answer(S, seat, q)
    group = 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)
    f = O_FNS + 2 * (group * 4 + seat)
    if S[O_CHECK]:
        return _ask_checked(S, seat, q, f)
    return call_strategy(S[f], S[f + 1], q, view_of(S, v, VIEW_LEN), _tab(S))


@nb.njit(cache=True, _nrt=False)
def _situation(view, q):
    """The situation (records.SITUATIONS) a question puts to a strategy, from what its view offers."""
    if q == Q_EXCHANGE:
        return SIT_EXCHANGE
    if q == Q_VOID:
        return SIT_VOID
    if q == Q_ROB:
        return SIT_ROB
    if q == Q_TURN:
        if view[vw.V_LOCKED]:
            return SIT_LOCKED_TURN
        if view[vw.V_CAN_WIN]:
            return SIT_TURN_WIN
        return SIT_TURN_KONG if view[vw.V_KONG_MASK] else SIT_TURN_DISCARD
    if view[vw.V_CAN_WIN]:
        if view[vw.V_CAN_KONG]:
            return SIT_CLAIM_WIN_PUNG_KONG
        return SIT_CLAIM_WIN_PUNG if view[vw.V_CAN_PUNG] else SIT_CLAIM_WIN
    return SIT_CLAIM_PUNG_KONG if view[vw.V_CAN_KONG] else SIT_CLAIM_PUNG


@nb.njit(cache=True, _nrt=False)
def _ask_checked(S, seat, q, f):
    """Check mode: the strategy may write only its scratch slots and its random stream's counter
    (view.py: V_SCRATCH, V_RNG_COUNT); any other slot it changed is reported as ERR_VIEW_WRITE
    with the first such slot."""
    view = view_of(S, _v(seat), VIEW_LEN)
    S[O_SITUATIONS + seat * N_SITUATIONS + _situation(view, q)] += 1
    before = view_of(S, O_VIEW_COPY, VIEW_LEN)
    for i in range(VIEW_LEN):
        before[i] = view[i]
    ans = call_strategy(S[f], S[f + 1], q, view, _tab(S))
    for i in range(VIEW_LEN):
        if view[i] != before[i] and i != vw.V_RNG_COUNT and not (vw.V_SCRATCH <= i < vw.V_SCRATCH + vw.N_SCRATCH):
            _error(S, ERR_VIEW_WRITE, seat, q, I64(i))
            break
    return ans


@nb.njit(cache=True, _nrt=False)
def _script_forced(S, seat, q, ans):
    """A move the engine makes without asking (a locked seat's only discard) consumes a
    scenario script entry that scripts exactly that move."""
    pos = S[O_SCRIPT_POS + seat]
    if pos < S[O_SCRIPT_LEN]:
        o = S[O_OFF_SCRIPT] + (seat * S[O_SCRIPT_LEN] + pos) * 3
        if S[o] == q and S[o + 2] == ans:
            S[O_SCRIPT_POS + seat] = pos + 1


@nb.njit(cache=True, _nrt=False)
def _agent_stop(S):
    """At a resume point (kept in S): does an agent seat have a choice here? Not at the point play
    goes on from (O_AGENT_SKIP)."""
    if S[O_AGENT_SKIP]:
        S[O_AGENT_SKIP] = 0
        return False
    for seat in range(4):
        if (S[O_AGENTS] >> seat) & 1:
            q = pose(S, I64(seat))
            if q >= 0 and has_choice(S, I64(seat), q):
                return True
    return False


@nb.njit(cache=True, _nrt=False)
def _agent_answer(S, seat, q):
    """An agent seat's answer: the one given from outside, or the only legal one."""
    ans = S[O_AGENT_ANS + seat]
    if ans >= 0:
        S[O_AGENT_ANS + seat] = MINUS_ONE
        return ans
    if q == Q_EXCHANGE:   # the only three tiles: the lowest picks
        a = _lowest_bit(exchange_picks(S, seat, MINUS_ONE, MINUS_ONE))
        b = _lowest_bit(exchange_picks(S, seat, a, MINUS_ONE))
        return vw.pack3(a, b, _lowest_bit(exchange_picks(S, seat, a, b)))
    return answer_of(q, _lowest_bit(legal_actions(S, seat, q)), S[_v(seat) + vw.V_TILE])


@nb.njit(cache=True, inline="always")
def _turn_answer(S, cur, drawn, can_win, mask):
    """The seat's answer on its own turn: asked, unless it is a locked flow winner with no
    choice (it discards its drawn tile)."""
    if S[O_LOCKED + cur] and not can_win and mask == 0:
        _script_forced(S, cur, Q_TURN, drawn)
        return drawn
    return _ask(S, cur, Q_TURN)
