"""Tables whose agent seats are answered from outside the engine (ARCHITECTURE.md: Agents outside
the engine): many tables stepped by one jitted call, each stopped at its agents' next decision,
with the observation and mask of that decision built here. ``simcore.env`` wraps them as
Gymnasium and PettingZoo environments; ``simcore.env.dataset`` records decisions with them.

Each table is a row of ``ST`` (an engine state, ``simcore.engine.state``) and a row of ``E`` (the ``E_*``
slots below: which hand it plays, the decisions pending at its stop, the exchange's picks).
Table i plays items ``first + i``, ``first + i + stride``, ...: an item is a hand, or a match of
``hands_per_match`` hands (its hand j is global hand ``item * hands_per_match + j``, as
``sichuan simulate --match`` numbers them).

A stop is a resume point where an agent seat has a question with two or more legal answers
(``ask._agent_stop``); its decisions are those seats' questions in the order the engine asks
them (the exchange and the void choice seat 0 to 3, claims and robbing in turn order from the
discarder). The exchange is three picks (``simcore.contract.actions``): a pick with one legal tile
is made here.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract import view as vw
from simcore.contract.actions import ACT_DISCARD, N_ACTIONS, action_of, answer_of
from simcore.contract.arena import AR_FNS, AR_HEADER, AR_LEN
from simcore.contract.nrt import address_of, call_strategy, data_ptr, strategy_addresses, view_of
from simcore.contract.records import ERR_NONE, N_PAY_FIELDS, N_WIN_FIELDS
from simcore.contract.evaluate import (CTX_KONG_DISCARD, CTX_LAST_TILE, CTX_ROBBING_KONG, CTX_SELF_DRAW, N_PATTERNS,
                                      base_of, score_patterns)
from simcore.contract.rules import N_RULE_FIELDS, R_HANDS_PER_MATCH, R_START_POINTS
from simcore.contract.tiles import N_KINDS, NO_VOID
from simcore.contract.view import M_PUNG, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, VIEW_LEN
from simcore.engine.checks import _check
from simcore.engine.hand import play_on, _write_rows
from simcore.engine.kernel import _compiled_for, _FNS, _set_arenas, _set_players, _start_block
from simcore.engine.legal import exchange_picks, has_choice, legal_actions, _lowest_bit, pose
from simcore.engine.opening import _deal, _reset, _shuffle
from simcore.engine.state import (
    AGENTS_PAUSE, AT_EXCHANGE, AT_VOID, O_AGENT_ANS, O_AGENT_SKIP, O_AGENTS, O_AT, O_CUR, O_DISCARDED, O_ERR,
    O_FIXED_END, O_G, O_HAND, O_KONGED, O_MELD_CNT, O_N_KONGS, O_N_MELDS, O_NET, O_NEXT_DEALER, O_PATS, O_PAUSE,
    O_PHASE, O_RULES, O_SCORES_IN, O_VOID, PAUSED,
)
from simcore.engine.table import _fan_on, _tab, _v, tiles_left
from simcore.engine.turns import self_draw_context

I64 = np.int64
ZERO, ONE, MINUS_ONE = I64(0), I64(1), I64(-1)

# -- a table's slots in E ----------------------------------------------------------------------
E_ITEM = 0          # the item (hand or match) in play
E_J = 1             # its hand within the match (0 for single hands)
E_HPM = 2           # hands an item plays: 1, or the rules' hands per match
E_STRIDE = 3        # the next item is E_ITEM + E_STRIDE
E_N_PEND = 4        # decisions pending at this stop
E_POS = 5           # the one being asked (index into E_PEND)
E_PEND = 6          # [i] their seats, in the order the engine asks
E_Q = E_PEND + 4    # [i] their questions
E_NPICK = E_Q + 4   # exchange: picks made by the seat being asked
E_PICKS = E_NPICK + 1  # [3] them
E_MASK = E_PICKS + 3   # the legal actions of the decision being asked (bits)
E_STEP = E_MASK + 1    # [seat] decisions the seat has been asked this hand
E_PAID = E_STEP + 4    # [seat] what ``step_tables`` has paid the seat of this hand so far
E_DECISION = E_PAID + 4  # decisions asked at this table so far (builtin answers are cached by it)
E_OVER = E_DECISION + 1  # 1: the table's items ran out (``last`` reached); it stands still
E_LAST = E_OVER + 1      # the last item it may play (-1: no end)
E_ENDED = E_LAST + 1     # the global index of the hand last written to the outputs
E_MATCH = E_ENDED + 1    # 1: items are matches (scores start at the rules' start points), 0: hands (at 0)
E_POSED = E_MATCH + 1    # E_DECISION when the question being asked was posed (the exchange's picks share it)
E_LEN = E_POSED + 1

# -- the observation: a float32 vector built from the asked seat's view only -------------------
# Seats are relative to the asked seat: 0 itself, 1 the next in turn order, 2 opposite, 3 the one before.
N_RECENT = 16
# The observation's layout version (OBS_FIELDS): a change that adds, moves or resizes a field bumps
# it; datasets record it in dataset.json (a manifest without it: version 1).
OBS_VERSION = 2   # 2: the rules' options, what kongs have paid, the win on offer (issue 46)
OBS_FIELDS = (
    ("question", 5, "one-hot: exchange, void, turn, claim, rob"),
    ("pick", 3, "exchange: one-hot, which of the three picks this is"),
    ("picked", N_KINDS, "exchange: the tiles picked so far (counts)"),
    ("hand", N_KINDS, "the seat's concealed tiles (counts 0-4; during the exchange before the picks leave)"),
    ("tile", N_KINDS, "one-hot: turn: the tile just drawn (none on the dealer's first turn or after a pung); "
                      "claim and rob: the tile offered"),
    ("from", 4, "claim and rob: one-hot, the relative seat that discarded it or adds the kong"),
    ("flags", 9, "1/0: can win, can pung, can kong, locked (blood flow winner), holds void tiles (must discard "
                 "one), right after its pung, the drawn tile is a kong's replacement, the offered discard "
                 "follows a kong, blood flow"),
    ("wall_left", 1, "wall tiles left"),
    ("dealer", 4, "one-hot: the relative seat dealing"),
    ("exchange_dir", 4, "one-hot: no exchange yet (or none in these rules), passed to the next seat (+1), "
                        "to the one before (-1), across (+2)"),
    ("passed", N_KINDS, "the tiles the seat passed in the exchange (counts)"),
    ("received", N_KINDS, "the tiles it received"),
    ("voids", 16, "[r*4 + s]: one-hot of relative seat r's void suit s (m, p, s; 3: not declared yet)"),
    ("wins", 4, "[r]: wins of relative seat r this hand"),
    ("out", 4, "[r]: 1 if relative seat r has left the hand (a blood battle winner)"),
    ("score", 4, "[r]: relative seat r's points won or lost so far this episode (a match: its score less the "
                 "rules' start points)"),
    ("melds", 4 * N_KINDS, "[r*27 + t]: tiles of kind t in relative seat r's declared sets (3 a pung, 4 a kong)"),
    ("hidden_kongs", 4, "[r]: relative seat r's concealed kongs whose tile the seat cannot see"),
    ("discards", 4 * N_KINDS, "[r*27 + t]: tiles of kind t relative seat r has discarded (claimed or not)"),
    ("recent", N_RECENT * (N_KINDS + 4), "the last 16 discards, newest first: [i*31 + t] one-hot tile, "
                                        "[i*31 + 27 + r] one-hot relative seat that discarded it"),
    ("revealed", 4 * N_KINDS, "[r*27 + t]: relative seat r's concealed tiles revealed by its win"),
    ("visible", N_KINDS, "[t]: copies of t the seat can see (its hand and sets, every discard, exposed sets, "
                         "revealed hands and set-aside winning tiles); 4 less it is what is unseen"),
    ("draws", 4, "[r]: draws of relative seat r this hand"),
    ("void_cap", 4, "[r]: at most this many void-suit tiles relative seat r holds (-1: unknown)"),
    ("rules", N_RULE_FIELDS, "the rule set's options as the engine holds them (``simcore.contract.rules``: "
                             "``RuleSet.to_array``): blood flow, exchange, locks, caps, fan values, kong payments, "
                             "the pig penalty, call transfer, ..."),
    ("kongs_paid", 16, "[r*4 + p]: kong points relative seat p has paid relative seat r this hand (less what call "
                       "transfer moved)"),
    ("win_offer", 2, "turn, claim, rob: the fan and base of the win on offer, as the engine would score it "
                     "(0, 0: none)"),
)


def _obs_layout():
    start, at = {}, 0
    for name, n, _ in OBS_FIELDS:
        start[name] = at
        at += n
    return start, at


OBS_START, OBS_LEN = _obs_layout()
OB_QUESTION = OBS_START["question"]
OB_PICK = OBS_START["pick"]
OB_PICKED = OBS_START["picked"]
OB_HAND = OBS_START["hand"]
OB_TILE = OBS_START["tile"]
OB_FROM = OBS_START["from"]
OB_FLAGS = OBS_START["flags"]
OB_WALL = OBS_START["wall_left"]
OB_DEALER = OBS_START["dealer"]
OB_EXDIR = OBS_START["exchange_dir"]
OB_PASSED = OBS_START["passed"]
OB_RECEIVED = OBS_START["received"]
OB_VOIDS = OBS_START["voids"]
OB_WINS = OBS_START["wins"]
OB_OUT = OBS_START["out"]
OB_SCORE = OBS_START["score"]
OB_MELDS = OBS_START["melds"]
OB_HIDDEN = OBS_START["hidden_kongs"]
OB_DISCARDS = OBS_START["discards"]
OB_RECENT = OBS_START["recent"]
OB_REVEALED = OBS_START["revealed"]
OB_VISIBLE = OBS_START["visible"]
OB_DRAWS = OBS_START["draws"]
OB_VOID_CAP = OBS_START["void_cap"]
OB_RULES = OBS_START["rules"]
OB_KONGS_PAID = OBS_START["kongs_paid"]
OB_WIN_OFFER = OBS_START["win_offer"]

# what a step came to at a table (``step_tables``' ``status``)
DECISION, HAND_END, EPISODE_END, ERROR, OVER = 0, 1, 2, 3, 4


@nb.njit(cache=True, _nrt=False)
def _fan_offered(S, seat, q):
    """The fan the engine would score the win the seat is offered (its turn: a self-draw on the
    hand it holds; a claim or a rob: on the tile offered), in the context settlement uses."""
    if q == Q_TURN:
        ctx, feeder = self_draw_context(S, seat, S[O_PHASE], S[_v(seat) + vw.V_DEALER])
        if feeder >= 0:
            ctx &= ~CTX_SELF_DRAW
        o_h = O_HAND + seat * N_KINDS
        return score_patterns(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + seat], S[O_N_MELDS + seat],
                              view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS), S[O_N_KONGS + seat], ctx,
                              view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
    last = CTX_LAST_TILE if tiles_left(S) == 0 else 0
    if q == Q_ROB:
        ctx = CTX_ROBBING_KONG | last
    else:
        ctx = last | (CTX_KONG_DISCARD if S[O_KONGED] else 0)
    return _fan_on(S, seat, S[O_DISCARDED], I64(ctx))


@nb.njit(cache=True, _nrt=False)
def observe(S, E, seat, out):
    """The observation (OBS_FIELDS) of the seat's decision pending at this stop, from its view."""
    for i in range(OBS_LEN):
        out[i] = 0.0
    v = _v(seat)
    q = S[v + vw.V_QUESTION]
    out[OB_QUESTION + q] = 1.0
    if q == Q_EXCHANGE:
        n = E[E_NPICK]
        out[OB_PICK + n] = 1.0
        for i in range(n):
            out[OB_PICKED + E[E_PICKS + i]] += 1.0
    for t in range(N_KINDS):
        out[OB_HAND + t] = S[v + vw.V_HAND + t]
        out[OB_VISIBLE + t] = S[v + vw.V_VISIBLE + t]
    if q == Q_TURN or q == Q_CLAIM or q == Q_ROB:
        t = S[v + vw.V_TILE]
        if t >= 0:
            out[OB_TILE + t] = 1.0
    if q == Q_CLAIM or q == Q_ROB:
        out[OB_FROM + (S[v + vw.V_FROM] - seat) % 4] = 1.0
    if q == Q_TURN or q == Q_CLAIM or q == Q_ROB:
        out[OB_FLAGS] = S[v + vw.V_CAN_WIN]
        out[OB_FLAGS + 1] = S[v + vw.V_CAN_PUNG]
        out[OB_FLAGS + 2] = S[v + vw.V_CAN_KONG]
    out[OB_FLAGS + 3] = S[v + vw.V_LOCKED]
    out[OB_FLAGS + 4] = S[v + vw.V_MUST_VOID]
    if q == Q_TURN:
        out[OB_FLAGS + 5] = S[v + vw.V_AFTER_PUNG]
        out[OB_FLAGS + 6] = S[v + vw.V_REPLACEMENT]
    if q == Q_CLAIM:
        out[OB_FLAGS + 7] = S[v + vw.V_KONG_DISCARD]
    out[OB_FLAGS + 8] = S[v + vw.V_FLOW]
    out[OB_WALL] = S[v + vw.V_WALL_LEFT]
    out[OB_DEALER + (S[v + vw.V_DEALER] - seat) % 4] = 1.0
    d = S[v + vw.V_EXCHANGE_DIR]
    out[OB_EXDIR + (0 if d == 0 else (1 if d == 1 else (2 if d == -1 else 3)))] = 1.0
    for i in range(3):
        if S[v + vw.V_PASSED + i] >= 0:
            out[OB_PASSED + S[v + vw.V_PASSED + i]] += 1.0
        if S[v + vw.V_RECEIVED + i] >= 0:
            out[OB_RECEIVED + S[v + vw.V_RECEIVED + i]] += 1.0
    start = S[v + vw.V_RULES + R_START_POINTS] if E[E_MATCH] else 0
    for r in range(4):
        s = (seat + r) % 4
        void = S[v + vw.V_VOID + s]
        out[OB_VOIDS + r * 4 + (3 if void == NO_VOID else void)] = 1.0
        out[OB_WINS + r] = S[v + vw.V_WINS + s]
        out[OB_OUT + r] = S[v + vw.V_OUT + s]
        out[OB_SCORE + r] = S[v + vw.V_SCORE + s] - start
        out[OB_DRAWS + r] = S[v + vw.V_DRAWS + s]
        out[OB_VOID_CAP + r] = S[v + vw.V_VOID_CAP + s]
        for i in range(S[v + vw.V_N_MELDS + s]):
            kind = S[v + vw.V_MELD_KIND + s * 4 + i]
            t = S[v + vw.V_MELD_TILE + s * 4 + i]
            if t < 0:
                out[OB_HIDDEN + r] += 1.0
            else:
                out[OB_MELDS + r * N_KINDS + t] += 3.0 if kind == M_PUNG else 4.0
        for t in range(N_KINDS):
            out[OB_REVEALED + r * N_KINDS + t] = S[v + vw.V_REVEALED + s * N_KINDS + t]
    for i in range(N_RULE_FIELDS):
        out[OB_RULES + i] = S[v + vw.V_RULES + i]
    for r in range(4):
        for p in range(4):
            out[OB_KONGS_PAID + r * 4 + p] = S[v + vw.V_KONG_INCOME + ((seat + r) % 4) * 4 + (seat + p) % 4]
    if S[v + vw.V_CAN_WIN] and (q == Q_TURN or q == Q_CLAIM or q == Q_ROB):
        fan = _fan_offered(S, seat, q)
        out[OB_WIN_OFFER] = fan
        out[OB_WIN_OFFER + 1] = base_of(fan, view_of(S, O_RULES, N_RULE_FIELDS))
    n = min(S[v + vw.V_N_DISCARDS], vw.N_DISC_SEQ)
    for i in range(n):
        x = S[v + vw.V_DISC_SEQ + i]
        s = vw.discard_seat(x)
        t = vw.discard_tile(x)
        r = (s - seat) % 4
        out[OB_DISCARDS + r * N_KINDS + t] += 1.0
        back = n - 1 - i
        if back < N_RECENT:
            o = OB_RECENT + back * (N_KINDS + 4)
            out[o + t] = 1.0
            out[o + N_KINDS + r] = 1.0


# -- a table's stops ---------------------------------------------------------------------------


@nb.njit(cache=True, _nrt=False)
def _start_item_hand(S, E, dealer):
    """Deal the hand E_J of item E_ITEM and stand it before the exchange."""
    S[O_G] = E[E_ITEM] * E[E_HPM] + E[E_J]
    _reset(S, dealer)
    _shuffle(S)
    _deal(S, dealer)
    _check(S)
    S[O_AT] = AT_EXCHANGE
    S[O_AGENT_SKIP] = 0
    for s in range(4):
        S[O_AGENT_ANS + s] = -1
        E[E_STEP + s] = 0
        E[E_PAID + s] = 0


@nb.njit(cache=True, _nrt=False)
def start_item(S, E):
    """Start item E_ITEM as ``kernel.play_batch`` does: a hand dealt by seat item mod 4, scores at
    0; a match's first hand dealt by seat 0, scores at the rules' start points."""
    for s in range(4):
        S[O_SCORES_IN + s] = S[O_RULES + R_START_POINTS] if E[E_MATCH] else 0
    E[E_J] = 0
    _start_item_hand(S, E, ZERO if E[E_MATCH] else I64(E[E_ITEM] % 4))


@nb.njit(cache=True, _nrt=False)
def _ask_next(S, E):
    """Pose the pending decision at E_POS: its question, its mask (the exchange's first pick)."""
    seat = E[E_PEND + E[E_POS]]
    q = pose(S, seat)
    E[E_Q + E[E_POS]] = q
    E[E_POSED] = E[E_DECISION]
    E[E_NPICK] = 0
    E[E_MASK] = legal_actions(S, seat, q)
    if q == Q_EXCHANGE:
        _auto_picks(S, E, seat)


@nb.njit(cache=True, _nrt=False)
def _pick_mask(S, E, seat):
    n = E[E_NPICK]
    return exchange_picks(S, seat, E[E_PICKS] if n > 0 else MINUS_ONE, E[E_PICKS + 1] if n > 1 else MINUS_ONE)


@nb.njit(cache=True, _nrt=False)
def _auto_picks(S, E, seat):
    """Make every pick that has one legal tile; E_MASK: the next pick's mask (0 when all three are made)."""
    while E[E_NPICK] < 3:
        m = _pick_mask(S, E, seat)
        if m & (m - 1) != 0:
            E[E_MASK] = m
            return
        E[E_PICKS + E[E_NPICK]] = _lowest_bit(m)
        E[E_NPICK] += 1
    E[E_MASK] = 0


@nb.njit(cache=True, _nrt=False)
def _collect(S, E):
    """At a stop: the agent seats with a choice, in the order the engine asks them."""
    at = S[O_AT]
    first = ZERO if at == AT_EXCHANGE or at == AT_VOID else S[O_CUR]
    n = 0
    for i in range(4):
        seat = (first + i) % 4
        if not (S[O_AGENTS] >> seat) & 1:
            continue
        q = pose(S, I64(seat))
        if q >= 0 and has_choice(S, I64(seat), q):
            E[E_PEND + n] = seat
            n += 1
    E[E_N_PEND] = n
    E[E_POS] = 0
    _ask_next(S, E)


@nb.njit(cache=True, _nrt=False)
def advance(S, E):
    """Play on to the table's next stop (DECISION) or the hand's end (HAND_END, or
    ERROR when the engine stopped it)."""
    r = play_on(S, ZERO)
    if S[O_ERR] != ERR_NONE:
        return ERROR
    if r == PAUSED:
        _collect(S, E)
        return DECISION
    return HAND_END


@nb.njit(cache=True, _nrt=False)
def apply(S, E, a):
    """The pending decision answered with action a: the next decision at the same stop
    (DECISION), else play on (``advance``). An action outside the mask: ERROR, nothing played."""
    if a < 0 or a >= N_ACTIONS or not (E[E_MASK] >> a) & 1:
        return ERROR
    pos = E[E_POS]
    seat = E[E_PEND + pos]
    q = E[E_Q + pos]
    E[E_STEP + seat] += 1
    E[E_DECISION] += 1
    if q == Q_EXCHANGE:
        E[E_PICKS + E[E_NPICK]] = a - ACT_DISCARD
        E[E_NPICK] += 1
        _auto_picks(S, E, seat)
        if E[E_NPICK] < 3:
            return DECISION
        ans = vw.pack3(E[E_PICKS], E[E_PICKS + 1], E[E_PICKS + 2])
    else:
        ans = answer_of(q, a, S[_v(seat) + vw.V_TILE])
    S[O_AGENT_ANS + seat] = ans
    E[E_POS] = pos + 1
    if pos + 1 < E[E_N_PEND]:
        _ask_next(S, E)
        return DECISION
    S[O_AGENT_SKIP] = 1
    return advance(S, E)


@nb.njit(cache=True, _nrt=False)
def next_hand(S, E):
    """After a hand's end: the item's next hand, or the next item (EPISODE_END), or nothing
    more (OVER: past E_LAST). The new hand is dealt, not yet played."""
    if E[E_J] + 1 < E[E_HPM]:
        for s in range(4):
            S[O_SCORES_IN + s] += S[O_NET + s]
        E[E_J] += 1
        _start_item_hand(S, E, S[O_NEXT_DEALER])
        return HAND_END
    nxt = E[E_ITEM] + E[E_STRIDE]
    if E[E_LAST] >= 0 and nxt > E[E_LAST]:
        E[E_OVER] = 1
        return OVER
    E[E_ITEM] = nxt
    start_item(S, E)
    return EPISODE_END


@nb.njit(cache=True, _nrt=False)
def settle(S, E, row, r, hand_out, seat_out, win_out, pay_out, reward, paid_now):
    """After ``advance`` or ``apply`` returned r: on to the table's next decision, through any
    hands that end on the way (each written to row ``row`` of the outputs, a later one over an
    earlier: with an agent seat every hand has its void choice, so at most one ends a step).
    ``reward[seat]`` gains the seat's net of each hand that ends (``paid_now``: the points paid
    since the last step, at every step). Returns DECISION, or the furthest of HAND_END /
    EPISODE_END the table passed (its next hand already at its first decision), OVER or ERROR."""
    status = DECISION
    while True:
        if r == DECISION:
            if paid_now:
                _pay_rewards(S, E, reward)
            return status
        _write_rows(S, row, hand_out, seat_out, win_out, pay_out)   # an error's too: it says which
        E[E_ENDED] = S[O_G]
        if r == ERROR:
            return ERROR
        _pay_rewards(S, E, reward)
        nh = next_hand(S, E)
        if nh == OVER:
            return OVER
        status = max(status, nh)
        r = advance(S, E)


@nb.njit(cache=True, _nrt=False)
def _pay_rewards(S, E, reward):
    for s in range(4):
        reward[s] += S[O_NET + s] - E[E_PAID + s]
        E[E_PAID + s] = S[O_NET + s]


# -- many tables, one call ---------------------------------------------------------------------


@nb.njit(cache=True)
def init_tables(ST, E, A, R, OPT, seed, agents, first, stride, last, match_mode, win_cap, pay_cap, tab, fns, setup, rfns,
                arena):
    """Every table's header, players and arena (``A[i]``); table i at item first + i, dealt, not played."""
    hpm = R[R_HANDS_PER_MATCH] if match_mode else 1
    for i in range(ST.shape[0]):
        S = data_ptr(ST[i])
        _start_block(S, data_ptr(A[i]), R, OPT, seed, win_cap, pay_cap, False, tab, fns, setup, rfns, arena)
        S[O_AGENTS] = agents
        S[O_PAUSE] = AGENTS_PAUSE
        for j in range(E_LEN):
            E[i, j] = 0
        E[i, E_ITEM] = first + i
        E[i, E_HPM] = hpm
        E[i, E_STRIDE] = stride
        E[i, E_LAST] = last
        E[i, E_MATCH] = 1 if match_mode else 0
        start_item(S, E[i])


@nb.njit(cache=True)
def rebind_tables(ST, A, tab, fns, setup, rfns, arena):
    """Every table's process addresses written again (the suit tables', the strategies', the
    arenas' and the models' in the views' parameters: ``_set_players``, ``_set_arenas``), the rest of
    its state as it is: a table pickled in one process plays on in another."""
    for i in range(ST.shape[0]):
        S = data_ptr(ST[i])
        _set_players(S, tab, fns, setup)
        _set_arenas(S, data_ptr(A[i]), rfns, arena)


@nb.njit(cache=True, nogil=True)
def first_decisions(ST, E, obs, masks, reward, status, hand_out, seat_out, win_out, pay_out, paid_now):
    """Play every table from its dealt hand to its first decision: its observation and mask."""
    for i in range(ST.shape[0]):
        S = data_ptr(ST[i])
        for s in range(4):
            reward[i, s] = 0
        status[i] = settle(S, E[i], I64(i), advance(S, E[i]), hand_out, seat_out, win_out, pay_out, reward[i],
                           paid_now)
        _emit(S, E[i], obs[i], masks[i], status[i])


@nb.njit(cache=True, nogil=True)
def step_tables(ST, E, actions, obs, masks, reward, status, hand_out, seat_out, win_out, pay_out, paid_now):
    """Answer each table's pending decision with ``actions[i]`` and play it on to its next
    decision (``settle``): ``status[i]``, ``reward[i, seat]`` paid by this step, a finished
    hand's rows in row i of the outputs, the next decision's observation and mask. A table past
    its last item (OVER) stays as it is. The caller checks the actions against the masks
    first; an action outside one is ERROR here, never played."""
    for i in range(ST.shape[0]):
        S = data_ptr(ST[i])
        for s in range(4):
            reward[i, s] = 0
        if E[i, E_OVER]:
            status[i] = OVER
        else:
            status[i] = settle(S, E[i], I64(i), apply(S, E[i], actions[i]), hand_out, seat_out, win_out, pay_out,
                               reward[i], paid_now)
        _emit(S, E[i], obs[i], masks[i], status[i])


@nb.njit(cache=True, _nrt=False)
def _emit(S, E, obs, mask, status):
    if status == ERROR or status == OVER:
        for i in range(obs.shape[0]):
            obs[i] = 0.0
        for a in range(N_ACTIONS):
            mask[a] = 0
        return
    observe(S, E, E[E_PEND + E[E_POS]], obs)
    m = E[E_MASK]
    for a in range(N_ACTIONS):
        mask[a] = (m >> a) & 1


# -- the action a seated strategy would take ---------------------------------------------------


@nb.njit(cache=True)
def addresses_of(fns, out):
    """The three strategies' ``nrt.strategy_addresses`` into ``out`` (6 slots), so kernels take
    them as numbers (a tuple of functions costs a third of a millisecond a call to pass)."""
    for g in range(3):
        jit, c = strategy_addresses(fns[g])
        out[2 * g] = jit
        out[2 * g + 1] = c


@nb.njit(cache=True, nogil=True)
def builtin_actions(ST, E, fns, setup, rfns, template, arena, copy_out, scratch, rng, hands, memo, seats, out):
    """For each table's pending decision of a seat in ``seats`` (a bit set; -1 at the others), the
    action the strategy ``fns`` (the addresses of its
    play, exchange and void functions, ``addresses_of``; ``setup``: their parameters, a seat's
    first ``3 * N_PARAMS`` setup slots) would
    take on a copy of the asked seat's view holding its parameters, its scratch and random counter
    at that table and seat (``scratch[i*4 + seat]``, ``rng[i*4 + seat]``), both zeroed when the
    hand there changes (``hands[i*4 + seat]``: the hand they belong to), as if it sat there.
    A searching strategy gets an arena of its own (``arena``, laid out from its seat template
    ``template`` with its rollout players ``rfns``): the arena's slots from ``copy_out[i, 0]`` on
    are zeroed before each call and copied into ``copy_out[i, 1:]`` after it (what it judged).
    ``memo[i]``: (decision, answer, hand) of the table's last call, so asking again at the same
    decision (or at the exchange's later picks) asks the strategy nothing new."""
    view = np.empty(VIEW_LEN, np.int64)
    a_addr = ZERO
    if template[AR_LEN] > 0:
        for j in range(AR_HEADER):
            arena[j] = template[j]
        for g in range(3):
            for x in range(4):
                arena[AR_FNS + 2 * (g * 4 + x)] = rfns[2 * g]
                arena[AR_FNS + 2 * (g * 4 + x) + 1] = rfns[2 * g + 1]
        a_addr = address_of(data_ptr(arena))
    for i in range(ST.shape[0]):
        out[i] = -1
        if E[i, E_OVER] or E[i, E_N_PEND] == 0:
            continue
        S = data_ptr(ST[i])
        pos = E[i, E_POS]
        seat = E[i, E_PEND + pos]
        if not (seats >> seat) & 1:
            continue
        q = E[i, E_Q + pos]
        k = i * 4 + seat
        key = E[i, E_POSED]   # the question's: the exchange's picks share it
        if memo[i, 0] != key or memo[i, 2] != S[O_G]:
            if hands[k] != S[O_G]:
                hands[k] = S[O_G]
                for j in range(vw.N_SCRATCH):
                    scratch[k, j] = 0
                rng[k] = 0
            v = _v(seat)
            for j in range(VIEW_LEN):
                view[j] = S[v + j]
            for j in range(3 * vw.N_PARAMS):
                view[vw.V_PARAMS + j] = setup[j]
            view[vw.V_ARENA] = a_addr
            at = copy_out[i, 0]
            for j in range(1, copy_out.shape[1]):   # a call that judges nothing leaves it zero
                arena[at + j - 1] = 0
            for j in range(vw.N_SCRATCH):
                view[vw.V_SCRATCH + j] = scratch[k, j]
            view[vw.V_RNG_COUNT] = rng[k]
            group = 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)
            ans = call_strategy(fns[2 * group], fns[2 * group + 1], q, view, _tab(S))
            for j in range(vw.N_SCRATCH):
                scratch[k, j] = view[vw.V_SCRATCH + j]
            rng[k] = view[vw.V_RNG_COUNT]
            for j in range(1, copy_out.shape[1]):
                copy_out[i, j] = arena[at + j - 1]
            memo[i, 0] = key
            memo[i, 1] = ans
            memo[i, 2] = S[O_G]
        ans = memo[i, 1]
        if q == Q_EXCHANGE:
            out[i] = ACT_DISCARD + _next_pick(ans, E[i])
        else:
            out[i] = action_of(q, ans, S[_v(seat) + vw.V_TILE])


@nb.njit(cache=True, _nrt=False)
def _next_pick(ans, E):
    """The exchange pick a strategy that answered ``ans`` (three tiles) makes next: the lowest of its
    tiles not picked yet that the mask allows (its next tile when the picks so far are its own);
    the lowest allowed pick when none is."""
    a, b, c = vw.unpack3(ans)
    for k in range(E[E_NPICK]):   # take the picks made out of its three tiles
        p = E[E_PICKS + k]
        if a == p:
            a = -1
        elif b == p:
            b = -1
        elif c == p:
            c = -1
    best = I64(N_KINDS)
    m = E[E_MASK]
    for t in (a, b, c):
        if 0 <= t < best and (m >> (ACT_DISCARD + t)) & 1:
            best = t
    return best if best < N_KINDS else _lowest_bit(E[E_MASK]) - ACT_DISCARD


@nb.njit(cache=True)
def observe_seat(ST, E, i, seat, out):
    """The observation of a seat at table i that is not being asked: its view as it stands, the
    question's fields (question, picks, tile, from, the offer's flags) zero."""
    observe(data_ptr(ST[i]), E[i], I64(seat), out)
    if E[i, E_N_PEND] > 0 and E[i, E_PEND + E[i, E_POS]] == seat:
        return
    for j in range(OB_QUESTION, OB_FROM + 4):
        out[j] = 0.0
    for j in (0, 1, 2, 5, 6, 7):
        out[OB_FLAGS + j] = 0.0


@nb.njit(cache=True)
def views_of(ST, E, out):
    """Each table's asked seat's raw view (``simcore.contract.view``) into ``out[i]``."""
    for i in range(ST.shape[0]):
        if E[i, E_N_PEND] == 0 or E[i, E_OVER]:
            continue
        S = data_ptr(ST[i])
        v = _v(E[i, E_PEND + E[i, E_POS]])
        for j in range(VIEW_LEN):
            out[i, j] = S[v + j]


def state_len(win_cap: int, pay_cap: int) -> int:
    """A table's row length in ST with room for ``win_cap`` wins and ``pay_cap`` payments."""
    return O_FIXED_END + win_cap * N_WIN_FIELDS + pay_cap * N_PAY_FIELDS


_I64T = nb.types.int64
_M2 = _I64T[:, ::1]
SIG_INIT = nb.types.void(_M2, _M2, _M2, _I64T[::1], _I64T[::1], _I64T, _I64T, _I64T, _I64T, _I64T, nb.types.boolean, _I64T, _I64T,
                         nb.types.uint8[::1], _FNS, _I64T[::1], _FNS, _I64T[::1])
SIG_REBIND = nb.types.void(_M2, _M2, nb.types.uint8[::1], _FNS, _I64T[::1], _FNS, _I64T[::1])
_FNS3 = nb.types.UniTuple(vw.STRATEGY_TYPE, 3)
SIG_ADDRESSES = nb.types.void(_FNS3, _I64T[::1])


def init_kernel():
    """``init_tables`` for ``SIG_INIT`` (the strategies as first-class functions, as the batch takes them)."""
    return _compiled_for(init_tables, SIG_INIT)


def rebind_kernel():
    """``rebind_tables`` for ``SIG_REBIND``."""
    return _compiled_for(rebind_tables, SIG_REBIND)


def addresses_kernel():
    """``addresses_of`` for ``SIG_ADDRESSES``."""
    return _compiled_for(addresses_of, SIG_ADDRESSES)
