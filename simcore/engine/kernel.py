"""The jitted engine: one hand from (rules, four seats' strategies, seed, hand index), and a
batch of hands or matches over ``prange``.

RULES.md is the specification; comments cite its sections.

Everything a hand needs lives in one flat int64 array ``S``: a header (offsets of the
variable regions, the rules, the hand's seed and index, the addresses of the suit tables and
of the twelve strategies), the hand's state (``O_*``), the four seats' views
(``simcore.contract.view``), buffers for its wins and payments, a scenario script and, when tracing,
the event log. Helpers take ``(S, ...)`` where ``S`` is a raw pointer to that array
(``simcore.contract.nrt``): one register per call instead of the seven words of an array (we measured
the engine spending most of its time passing six to nine arrays per call), and ``S[i]`` is a
plain load with no negative-index check. Stretches of it become arrays again only where an
array is needed (``view_of``: a seat's view for its strategy, a hand for the evaluator).
``S`` is allocated once per block of hands, so playing a hand allocates nothing. Constants
passed to helpers are ``np.int64`` so numba does not compile one copy of a helper per
literal value. Helpers are compiled with ``_nrt=False``: they allocate nothing, so numba
emits no reference counting (an incref and a decref call per array argument per call cost a
fifth of a hand's instructions).

docs/ARCHITECTURE.md walks through the state, the view, a hand's path and where each rule
lives; the outputs and the log are described in ``simcore.contract.records``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract import view as vw
from simcore.contract.arena import AR_FNS, AR_HEADER, AR_LEN
from simcore.contract.evaluate import CTX_EARTHLY, CTX_HEAVENLY, CTX_KONG_DISCARD, CTX_KONG_REPLACEMENT, CTX_LAST_TILE, CTX_ROBBING_KONG, CTX_SELF_DRAW, N_PATTERNS, POW5, base_of, moved_slots, ready_value, regular_shanten_codes, score_patterns, seven_pairs_from_slots, shift_code, slots2, suit_code, waits_mask
from simcore.contract.nrt import address_of, as_float64, call_strategy, data_ptr, float64_ptr, float_bits, strategy_addresses, uint8_ptr, unowned, view_of
from simcore.engine.luck import F13_LIVE, F13_VALUE, F14_WIN, F_DANGER, F_GIFT, F_PAY, N_FEATURES, index13, index14, tl_bucket
from simcore.contract.records import CHOSE_KONG, CHOSE_PASS, CHOSE_PUNG, END_THREE_WON, END_WALL_EXHAUSTED, ERR_ILLEGAL, ERR_INVARIANT, ERR_NONE, ERR_VIEW_WRITE, EV_CHECK, EV_DISCARD, EV_DRAW, EV_END, EV_EXCHANGE, EV_KONG, EV_PASS_WIN, EV_PAYMENT, EV_PUNG, EV_VOID, EV_WIN, H_DEALER, H_END_REASON, H_ERR_ANSWER, H_ERR_QUESTION, H_ERR_SEAT, H_ERROR, H_EXCHANGE_DIR, H_N_EVENTS, H_N_PAYMENTS, H_N_WINS, H_NEXT_DEALER, H_TILES_LEFT, H_TURNS, H_WINNERS, INV_PAYMENTS, INV_READY_HINT, INV_VISIBLE, INV_TILES, INV_VOID_DISCARD, INV_VOID_WIN, INV_ZERO_SUM, KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, LOG_WIDTH, LW_EVENT, LW_FIELDS, LW_HAND, LW_MELD_KINDS, LW_MELD_TILES, LW_PASSED, LW_PATS, LW_WIN_BASE, LW_WIN_FAN, LW_WIN_N_MELDS, LW_WIN_TILES_LEFT, N_PAY_FIELDS, N_QUESTIONS, N_REASONS, N_SITUATIONS, N_WIN_FIELDS, P_AMOUNT, P_PAYEE, P_PAYER, P_REASON, REASON_KONG, REASON_LIABILITY, REASON_NOT_READY, REASON_PIG, REASON_REFUND, REASON_TRANSFER, REASON_WIN, S_ASKED, S_BASE, S_FAN, S_KONGS, S_LUCK_HI, S_LUCK_LO, S_NET, S_NET_REASON, S_PIG, S_READY, S_SCORE_BEFORE, S_SITUATION, S_VOID, S_WIN_KIND, S_WIN_ORDER, S_WINS, SIT_CLAIM_PUNG, SIT_CLAIM_PUNG_KONG, SIT_CLAIM_WIN, SIT_CLAIM_WIN_PUNG, SIT_CLAIM_WIN_PUNG_KONG, SIT_EXCHANGE, SIT_LOCKED_TURN, SIT_ROB, SIT_TURN_DISCARD, SIT_TURN_KONG, SIT_TURN_WIN, SIT_VOID, W_BASE, W_FAN, W_FROM, W_KIND, W_ORDER, W_PAID, W_PATTERNS, W_SEAT, W_TILE, W_TURN, WIN_DISCARD, WIN_KONG_REPLACEMENT, WIN_ROBBING_KONG, WIN_SELF_DRAW
from simcore.contract.rng import STREAM_DIRECTION, STREAM_SEAT, STREAM_WALL, below, stream_key, stream_value
from simcore.contract.rules import DRAW_ORDERS, check_draw_order
from simcore.contract.rules import BLOOM_FEEDER_PAYS, KONG_LIABILITY_PAYS_FOR_ALL, KONG_LIABILITY_TRANSFER, N_RULE_FIELDS, PIG_PAYS_NON_PIGS, PIG_PAYS_REMAINING, R_ADDED_KONG_DRAWN_ONLY, R_CLAIM_WHILE_VOID, R_EXCHANGE, R_EXPOSED_KONG_BLOOM, R_FLOW, R_PASSED_WIN_HIGHER, R_HANDS_PER_MATCH, R_KONG_DISCARD_LIABILITY, R_KONG_PAY_ADDED, R_KONG_PAY_CONCEALED, R_KONG_PAY_EXPOSED, R_KONG_REFUND, R_KONG_WHILE_VOID, R_PASSED_WIN_LOCK, R_PIG_PAYS, R_PIG_PAYS_READY_CHECK, R_PIG_PENALTY, R_READY_CHECK, R_SELF_DRAW_BONUS, R_START_POINTS
from simcore.contract.tiles import COPIES, DEALER_TILES, HAND_TILES, N_KINDS, N_RANKS, N_SUITS, N_TILES, NO_VOID, SUIT_BITS
from simcore.contract.actions import ACT_DISCARD, ACT_KONG, ACT_PASS, ACT_PUNG, ACT_VOID, ACT_WIN, answer_of
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, M_KONG_ADDED, M_KONG_CONCEALED, M_KONG_EXPOSED, M_PUNG, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, VIEW_LEN

I64 = np.int64
ZERO, ONE, MINUS_ONE = I64(0), I64(1), I64(-1)
NO = np.bool_(False)
ALL_SEATS = 0b1111          # a bit set of seats: every seat
DEAL_END = DEALER_TILES + 3 * HAND_TILES  # the deal takes wall[0:DEAL_END]; draws go on from there
WALL_LAST = N_TILES - 1     # kong replacements are drawn from here backwards
N_DRAWABLE = N_TILES - DEAL_END  # positions DEAL_END..WALL_LAST, each drawn once
assert N_DRAWABLE < 63       # their drawn set is one int64's bits (O_USED)
# How draws take wall positions (RULES.md: Rulings where the documents are silent, draw order; not a rule, so the views do not
# see it): ORDER_TABLE from the front, replacements from the back; ORDER_SEAT each seat its own
# positions. The engine's rule array carries it in the slot after the rules (``engine_rules``).
ORDER_TABLE, ORDER_SEAT = I64(DRAW_ORDERS.index("table")), I64(DRAW_ORDERS.index("seat"))
R_DRAW_ORDER = N_RULE_FIELDS
SH_UNKNOWN = I64(-99)       # a seat's shanten lower bound when nothing is known
N_RULE_SLOTS = 48           # header room for the rule array
N_PAT_SLOTS = 16            # header room for a win's patterns
assert N_RULE_FIELDS + 1 <= N_RULE_SLOTS and N_PATTERNS <= N_PAT_SLOTS

# -- header (kept across hands) ---------------------------------------------------------------
O_OFF_WBUF, O_OFF_PBUF, O_OFF_SCRIPT, O_OFF_LOG = 0, 1, 2, 3   # offsets of the variable regions
O_WCAP, O_PCAP, O_SCRIPT_LEN, O_LOG_CAP = 4, 5, 6, 7          # their capacities
O_CHECK = 8           # 1: check invariants after every step
O_SEED = 9
O_G = 10              # global hand index
O_REVEALED_ROWS = 11  # bit s: seat s's revealed row in every view must be cleared next hand
O_TAB = 12            # address of the suit tables (``nrt.address_of``)
O_TAB_LEN = 13
O_FIXED_WALL_N = 14   # N_TILES when the next hand's wall is the one at O_FIXED_WALL (scenarios), else 0
O_LOG_SPARE = 15      # where log cells beyond the log's capacity land (never read)
O_RULES = 16          # the rule set (``RuleSet.to_array``), N_RULE_FIELDS slots, then the draw order
O_PATS = O_RULES + N_RULE_SLOTS  # scratch: a win's patterns
O_WINNERS = O_PATS + N_PAT_SLOTS  # scratch: the seats winning on one tile
O_FNS = O_WINNERS + 8    # [2 * (group*4 + seat)]: a strategy's ``nrt.strategy_addresses``; group 0
                         # play, 1 exchange, 2 void
O_SCORES_IN = O_FNS + 24  # [seat] scores before the next hand
O_SCRATCH_USE = O_SCORES_IN + 4  # [seat] scratch slots its strategies use (zeroed each hand)
assert vw.V_SCRATCH == vw.V_ZEROED  # one memset zeroes a view's per-hand slots and its scratch
O_PAUSE = O_SCRATCH_USE + 4  # > 0: ``play_on`` stops at that resume point (counting from 1); 0: never;
                             # AGENTS_PAUSE: where a seat of O_AGENTS has a choice (``_agent_stop``)
O_ARENA = O_PAUSE + 1    # [seat] address of the seat's search arena (``simcore.contract.arena``), 0: none
O_FIXED_WALL = O_ARENA + 4  # N_TILES tiles
O_SWAPS = O_FIXED_WALL + N_TILES  # scratch: the shuffle's swap partners [i], i = 1..WALL_LAST
O_LUCK_ON = O_SWAPS + N_TILES  # 1: the hands measure each seat's luck (the luck section)
O_VALUE = O_LUCK_ON + 1   # the value model's weights (``luck``), N_FEATURES float64 bits
O_FIT = O_VALUE + N_FEATURES  # address of the value-model fit sums (float64), 0: not fitting
O_SH_ON = O_FIT + 1       # 1: every seat's questions are also put to an arm's strategies (the shadow section)
O_SH_FNS = O_SH_ON + 1    # the arm's strategies' addresses, laid out as O_FNS
O_SH_SETUP = O_SH_FNS + 24  # the arm's setup (``view.SETUP_LEN`` slots: parameters, scratch use)
O_SH_SAME = O_SH_SETUP + vw.SETUP_LEN  # bit g: the arm's group-g strategy and parameters are the seat's own
# agents outside the engine (``simcore.engine.agents``; ARCHITECTURE.md: Agents outside the engine)
O_AGENTS = O_SH_SAME + 1  # bit s: seat s is answered from outside (with O_PAUSE = AGENTS_PAUSE, ``play_on`` stops where it has a choice)
O_AGENT_ANS = O_AGENTS + 1  # [seat] the answer given from outside to its next question (-1: none yet)
O_AGENT_SKIP = O_AGENT_ANS + 4  # 1: the resume point play goes on from is not a stop again
O_STATE = O_AGENT_SKIP + 1

# -- per-hand state (zeroed at the start of every hand) ---------------------------------------
O_WALL = O_STATE          # N_TILES tiles in shuffled order
O_HAND = O_WALL + N_TILES  # [seat*N_KINDS + t] concealed counts
O_CODES = O_HAND + 4 * N_KINDS  # [seat*N_SUITS + suit] base-5 suit codes of the concealed tiles
O_MELD_KIND = O_CODES + 4 * N_SUITS  # [seat*4 + i]
O_MELD_TILE = O_MELD_KIND + 16  # [seat*4 + i]
O_N_MELDS = O_MELD_TILE + 16   # [seat]
O_MELD_CNT = O_N_MELDS + 4     # [seat*N_KINDS + t] tiles in declared sets
O_N_KONGS = O_MELD_CNT + 4 * N_KINDS  # [seat] kongs among the declared sets
O_PILE = O_N_KONGS + 4         # [t] tiles lying in discard piles
O_ASIDE = O_PILE + N_KINDS     # [t] winning tiles set aside
O_VOID = O_ASIDE + N_KINDS     # [seat] void suit, NO_VOID until declared
O_WINS = O_VOID + 4            # [seat] wins this hand
O_OUT = O_WINS + 4             # [seat] left the hand (battle)
O_LOCKED = O_OUT + 4           # [seat] blood-flow lock
O_PASSLOCK = O_LOCKED + 4      # [seat] passed-win lock (until the seat's next draw)
O_DRAWS = O_PASSLOCK + 4       # [seat] draws this hand
O_KONG_RECV = O_DRAWS + 4      # [payee*4 + payer] kong income, for refunds
O_NET = O_KONG_RECV + 16       # [seat]
O_NET_REASON = O_NET + 4       # [seat*N_REASONS + reason]
O_SCORE0 = O_NET_REASON + 4 * N_REASONS  # [seat] scores before the hand
O_PIG = O_SCORE0 + 4           # [seat] -1 not checked, 0/1
O_READY = O_PIG + 4            # [seat] -1 not checked, 0/1
O_BEST = O_READY + 4           # [seat] ready value at the check
O_FIRST_WIN = O_BEST + 4       # [seat] index of the seat's first win, -1
O_SCRIPT_POS = O_FIRST_WIN + 4  # [seat]
O_PASSED = O_SCRIPT_POS + 4    # [seat*3 + i] tiles passed in the exchange
O_SEAT_KONGS = O_PASSED + 12   # [seat] kongs declared (and not robbed)
O_WAITS = O_SEAT_KONGS + 4     # [seat] waits mask at the check
O_N2 = O_WAITS + 4             # [seat] seven-pairs slots worth two tiles, over non-void kinds
O_N1 = O_N2 + 4                # [seat] seven-pairs slots worth one tile, over non-void kinds
O_VOIDCNT = O_N1 + 4           # [seat] void-suit tiles held (0 until the void is declared)
O_QUADS = O_VOIDCNT + 4        # [seat] bit t set while the seat holds four of t concealed
O_RDY = O_QUADS + 4            # [seat] readiness hint: -1 unknown, 0 not ready, 1 maybe
O_DRAW_RDY = O_RDY + 4         # [seat] readiness hint of the tiles before the seat's latest draw
O_SH_LOW = O_DRAW_RDY + 4      # [seat] a lower bound on the shanten of the seat's non-void tiles (or SH_UNKNOWN)
O_FRONT = O_SH_LOW + 4         # table order: next wall index to draw from the front
O_BACK = O_FRONT + 1           # table order: next wall index to draw from the back (replacements)
O_LEFT = O_BACK + 1            # wall positions not yet drawn
O_USED = O_LEFT + 1            # seat order: bit i set once position DEAL_END + i is drawn
O_TOP = O_USED + 1             # seat order: no position above DEAL_END + O_TOP is undrawn
O_OWN = O_TOP + 1              # seat order: [seat] the seat's next own position, less DEAL_END
O_N_WINS = O_OWN + 4
O_N_PAY = O_N_WINS + 1
O_N_EV = O_N_PAY + 1
O_TURNS = O_N_EV + 1
O_CLEAN = O_TURNS + 1          # no pung, kong or win yet (earthly hand)
O_ERR = O_CLEAN + 1            # error kind, seat, question, answer
O_EXDIR = O_ERR + 4
O_NEXT_DEALER = O_EXDIR + 1
O_DEALER = O_NEXT_DEALER + 1
O_END_REASON = O_DEALER + 1
O_ASKED = O_END_REASON + 1      # [seat*N_QUESTIONS + q] questions put to the seat's strategies (scripts excluded)
O_SITUATIONS = O_ASKED + 4 * N_QUESTIONS  # [seat*N_SITUATIONS + k] check mode: questions in situation k
O_TURN_KONG = O_SITUATIONS + 4 * N_SITUATIONS  # [payer] kong income of the kongs declared in the current turn
O_TURN_KONG_SEAT = O_TURN_KONG + 4  # 1 + the seat those kongs belong to (0: none)
O_KONG_FEEDER = O_TURN_KONG_SEAT + 1  # 1 + the seat whose discard began this turn's exposed kong (0: none)
# where ``play_on`` goes on from (ARCHITECTURE.md: A hand that resumes): the resume point and what
# the loop of ``play_on`` otherwise keeps in locals
O_AT = O_KONG_FEEDER + 1  # AT_*
O_CUR = O_AT + 1          # AT_ASK, AT_CLAIMS: the seat whose turn it is
O_PHASE = O_CUR + 1       # how its turn began (PHASE_*)
O_DRAWN = O_PHASE + 1     # AT_ASK: the tile it drew (NO_TILE: none)
O_KONGED = O_DRAWN + 1    # 1 when the turn has had a kong (its discard is a kong discard)
O_DISCARDED = O_KONGED + 1  # AT_CLAIMS: the tile it discarded
# luck (measured only with O_LUCK_ON)
O_UNDRAWN = O_DISCARDED + 1   # [t] copies of t in the positions not yet drawn
O_LUCK = O_UNDRAWN + N_KINDS  # [seat] the seat's luck so far (float64 bits)
O_LK_KEY = O_LUCK + 4         # [seat] 1 + the suit codes and sets O_LK_WAITS was computed for (0: none)
O_LK_WAITS = O_LK_KEY + 4     # [seat] its waits mask then
O_LK_AMT = O_LK_WAITS + 4     # [seat*N_KINDS + t] then: the base of its discard win on each wait t
O_LK_CUR = O_LK_AMT + 4 * N_KINDS  # [seat] during one draw's luck: its waits mask, -1 if not ready
O_LK_TMP = O_LK_CUR + 4       # a hand's counts, for a hand the exchange would give a seat
O_PHI = O_LK_TMP + N_KINDS    # fitting: [seat*N_FEATURES + i] the seat's luck in feature i so far (bits)
# shadowing an arm (only with O_SH_ON)
O_SH_RP = O_PHI + 4 * N_FEATURES  # resume points passed so far
O_SH_DONE = O_SH_RP + 1       # [seat] SH_ASKING, SH_SAME (the arm plays as the seat from here on) or SH_DIFFERED
O_SH_K = O_SH_DONE + 4        # [seat] differed: the resume points passed before the question
O_SH_ASKED = O_SH_K + 4       # [seat] bit g: the arm's group-g strategy has been asked
O_SH_RNG = O_SH_ASKED + 4     # [seat] the arm's random stream counter
O_SH_SCR = O_SH_RNG + 4       # [seat*N_SCRATCH + i] the arm's scratch
O_STATE_END = O_SH_SCR + 4 * vw.N_SCRATCH

# -- the four views, then the variable regions ------------------------------------------------
O_VIEWS = O_STATE_END          # seat s's view is S[O_VIEWS + s*VIEW_LEN : ...+VIEW_LEN]
O_VIEW_COPY = O_VIEWS + 4 * VIEW_LEN  # check mode: the asked seat's view before its strategy answers
O_SH_VIEW = O_VIEW_COPY + VIEW_LEN    # shadowing: the view the arm answers on
O_FIXED_END = O_SH_VIEW + VIEW_LEN

# A turn starts with the dealer's initial tiles, a draw, a kong replacement, or a pung (no draw).
PHASE_FIRST, PHASE_DRAW, PHASE_REPLACEMENT, PHASE_AFTER_PUNG = (I64(i) for i in range(4))
# resume points: before the exchange, before the void choice, at the start of a turn (its draw),
# at the seat's question after the draw, at the claims on its discard, at the robbing of the kong
# it adds (O_DISCARDED: the kong's tile); AT_END: no hand in play
AT_END, AT_EXCHANGE, AT_VOID, AT_TURN, AT_ASK, AT_CLAIMS, AT_ROB = (I64(i) for i in range(7))
PAUSED = I64(-2)  # ``play_on``'s result when it stopped at O_PAUSE
AGENTS_PAUSE = I64(-1)  # O_PAUSE's value while agents outside the engine play (O_AGENTS)
# What the claims on a discard came to (``_claims``).
CLAIM_ILLEGAL, CLAIM_NONE, CLAIM_WINS, CLAIM_PUNG, CLAIM_KONG = (I64(i) for i in range(-1, 4))
NO_END = I64(-1)      # the hand goes on (else an END_* reason)
NO_TILE = I64(-1)


def layout(win_cap: int, pay_cap: int, script_len: int, log_rows: int) -> tuple[int, list[int]]:
    """Length of S and its header offsets for the given buffer capacities."""
    o_w = O_FIXED_END
    o_p = o_w + win_cap * N_WIN_FIELDS
    o_s = o_p + pay_cap * N_PAY_FIELDS
    o_l = o_s + 4 * script_len * 3
    return o_l + log_rows * LOG_WIDTH, [o_w, o_p, o_s, o_l]


def new_state(R, seed: int, g: int, win_cap: int, pay_cap: int, script=None, log_rows: int = 0,
              check: bool = True) -> np.ndarray:
    """S for one traced or scripted hand: header filled, script copied in, room for the log."""
    script = np.zeros((4, 0, 3), np.int64) if script is None else np.ascontiguousarray(script, np.int64)
    length, offs = layout(win_cap, pay_cap, script.shape[1], log_rows)
    S = np.zeros(length, np.int64)
    S[O_OFF_WBUF], S[O_OFF_PBUF], S[O_OFF_SCRIPT], S[O_OFF_LOG] = offs
    S[O_WCAP], S[O_PCAP], S[O_SCRIPT_LEN], S[O_LOG_CAP] = win_cap, pay_cap, script.shape[1], log_rows
    S[O_CHECK] = int(check)
    S[O_SEED] = seed
    S[O_G] = g
    S[O_REVEALED_ROWS] = ALL_SEATS
    _header_from_rules(S, R)
    S[offs[2]:offs[2] + script.size] = script.ravel()
    return S


ROLLOUT_STATE_LEN = layout(0, 0, 1, 0)[0]  # a rollout state: no buffers, one forced answer per seat


def engine_rules(rules, draw_order: str = "table", value_weights=None) -> np.ndarray:
    """The engine's rule array: the rule set's (``RuleSet.to_array``), the draw order, then with
    ``value_weights`` (the value model's N_FEATURES weights) a 1 and the weights' float64 bits:
    the hands measure each seat's luck."""
    head = np.append(rules.to_array(), np.int64(DRAW_ORDERS.index(check_draw_order(draw_order))))
    if value_weights is None:
        return head
    w = np.ascontiguousarray(value_weights, np.float64)
    if w.shape != (N_FEATURES,):
        raise ValueError(f"a value model has {N_FEATURES} weights, not {w.shape}")
    return np.concatenate([head, [1], w.view(np.int64)])


def _header_from_rules(S, R) -> None:
    """The rule array (``engine_rules``) into a header: rules and draw order, luck and weights."""
    n = min(len(R), N_RULE_FIELDS + 1)
    S[O_RULES:O_RULES + n] = R[:n]
    if len(R) > N_RULE_FIELDS + 1:
        S[O_LUCK_ON] = R[N_RULE_FIELDS + 1]
        S[O_VALUE:O_VALUE + N_FEATURES] = R[N_RULE_FIELDS + 2:N_RULE_FIELDS + 2 + N_FEATURES]


def log_rows(S) -> np.ndarray:
    """The trace log's rows of a hand played with a log."""
    n = int(min(S[O_N_EV], S[O_LOG_CAP]))
    o = int(S[O_OFF_LOG])
    return S[o:o + n * LOG_WIDTH].reshape(n, LOG_WIDTH)


# == small helpers ============================================================================


@nb.njit(cache=True, inline="always")
def _r(S, i):
    return S[O_RULES + i]


@nb.njit(cache=True, inline="always")
def _v(seat):
    """Offset of a seat's view in S."""
    return O_VIEWS + seat * VIEW_LEN


@nb.njit(cache=True, inline="always")
def _tab_ptr(S):
    """The suit tables as a pointer (table loads without index checks)."""
    return uint8_ptr(S[O_TAB])


@nb.njit(cache=True, inline="always")
def _tab(S):
    """The suit tables as an array (for the evaluator and the strategies)."""
    return view_of(uint8_ptr(S[O_TAB]), ZERO, S[O_TAB_LEN])


@nb.njit(cache=True, inline="always")
def tiles_left(S):
    return S[O_LEFT]


@nb.njit(cache=True, inline="always")
def undrawn(S, i):
    """Is wall position i (DEAL_END..WALL_LAST) still to be drawn?"""
    if _r(S, R_DRAW_ORDER) == ORDER_SEAT:
        return (S[O_USED] >> (i - DEAL_END)) & 1 == 0
    return S[O_FRONT] <= i <= S[O_BACK]


@nb.njit(cache=True, _nrt=False)
def _wall_position(S, seat, replacement):
    """The wall position the seat's draw takes, marked drawn (RULES.md: Rulings where the documents are silent, draw order). Table
    order: the front, a replacement the back. Seat order: the seat's lowest undrawn own position
    (position DEAL_END + k belongs to seat dealer + 1 + k mod 4), else the highest undrawn one."""
    S[O_LEFT] -= 1
    if _r(S, R_DRAW_ORDER) != ORDER_SEAT:
        if replacement:
            S[O_BACK] -= 1
            return S[O_BACK] + 1
        S[O_FRONT] += 1
        return S[O_FRONT] - 1
    used = S[O_USED]
    k = S[O_OWN + seat]
    while k < N_DRAWABLE and (used >> k) & 1:
        k += 4
    if k < N_DRAWABLE:
        S[O_OWN + seat] = k + 4
    else:
        k = S[O_TOP]
        while (used >> k) & 1:
            k -= 1
        S[O_TOP] = k - 1
    S[O_USED] = used | (ONE << k)
    return DEAL_END + k


@nb.njit(cache=True, inline="always")
def _tracing(S):
    return S[O_LOG_CAP] > 0


@nb.njit(cache=True, _nrt=False)
def _log(S, ev, a, b, c, d, e):
    """Append an event row (``EV_*`` and its five fields, ``records.EVENT_FIELDS``); returns its
    row index."""
    n = S[O_N_EV]
    if n < S[O_LOG_CAP]:
        o = S[O_OFF_LOG] + n * LOG_WIDTH
        S[o + LW_EVENT] = ev
        S[o + LW_FIELDS] = a
        S[o + LW_FIELDS + 1] = b
        S[o + LW_FIELDS + 2] = c
        S[o + LW_FIELDS + 3] = d
        S[o + LW_FIELDS + 4] = e
    S[O_N_EV] = n + 1
    return n


@nb.njit(cache=True, inline="always")
def _log_at(S, row, col):
    """Offset of a log cell (rows beyond the capacity land in a spare cell that is ignored)."""
    if row < S[O_LOG_CAP]:
        return S[O_OFF_LOG] + row * LOG_WIDTH + col
    return O_LOG_SPARE


@nb.njit(cache=True, inline="always")
def _add(S, seat, t, n):
    """Add n (may be negative) copies of t to a seat's concealed tiles, mirrored in its view;
    keeps the seat's suit codes, pair slots, void-tile count and four-of-a-kind mask current,
    clears its readiness hint and keeps its shanten bound (a tile added lowers the shanten
    by at most one, a tile taken out never lowers it)."""
    h = O_HAND + seat * N_KINDS + t
    old = S[h]
    new = old + n
    S[h] = new
    s = t // N_RANKS
    d = n * POW5[t - N_RANKS * s]
    S[O_CODES + seat * N_SUITS + s] += d
    # void-suit tiles count apart from the pair slots; arithmetic, not a branch: whether a
    # tile is of the void suit is as good as random
    in_void = I64(s == S[O_VOID + seat])
    S[O_VOIDCNT + seat] += n * in_void
    S[O_N2 + seat] += (slots2(new) - slots2(old)) * (1 - in_void)
    S[O_N1 + seat] += ((new & 1) - (old & 1)) * (1 - in_void)
    if new == 4:
        S[O_QUADS + seat] |= I64(1) << t
    elif old == 4:
        S[O_QUADS + seat] &= ~(I64(1) << t)
    S[O_RDY + seat] = -1
    if n > 0:
        S[O_SH_LOW + seat] -= n
    v = _v(seat)
    S[v + vw.V_HAND + t] = new
    S[v + vw.V_VISIBLE + t] += n
    S[v + vw.V_CODES + s] += d
    S[v + vw.V_N2] = S[O_N2 + seat]
    S[v + vw.V_N1] = S[O_N1 + seat]


@nb.njit(cache=True, inline="always")
def _show(S, t, n, except_seat):
    """n more copies of t become visible to every seat but one."""
    for s in range(4):
        if s != except_seat:
            S[_v(s) + vw.V_VISIBLE + t] += n


@nb.njit(cache=True, inline="always")
def _set_all(S, slot, value):
    for s in range(4):
        S[_v(s) + slot] = value


@nb.njit(cache=True, _nrt=False)
def next_active(S, seat):
    """The first seat after ``seat`` in turn order that is still playing (RULES.md: Tiles,
    seats, notation, turn order)."""
    for i in range(1, 4):
        s = (seat + i) % 4
        if S[O_OUT + s] == 0:
            return s
    return -1


@nb.njit(cache=True, _nrt=False)
def _active_count(S):
    return 4 - S[O_OUT] - S[O_OUT + 1] - S[O_OUT + 2] - S[O_OUT + 3]


@nb.njit(cache=True, inline="always")
def _must_void(S, seat):
    return S[O_VOIDCNT + seat] > 0


@nb.njit(cache=True, inline="always")
def _codes_without_void(S, seat):
    void = S[O_VOID + seat]
    c0 = S[O_CODES + seat * N_SUITS] if void != 0 else 0
    c1 = S[O_CODES + seat * N_SUITS + 1] if void != 1 else 0
    c2 = S[O_CODES + seat * N_SUITS + 2] if void != 2 else 0
    return c0, c1, c2


@nb.njit(cache=True, inline="always")
def _seat_wins(S, seat, extra):
    """Does the seat's concealed hand (plus tile ``extra`` if >= 0) win? Uses the incremental
    suit codes and pair slots; the engine keeps 14 - 3k tiles in such a hand."""
    void = S[O_VOID + seat]
    if (extra >= 0 and extra // N_RANKS == void) or S[O_VOIDCNT + seat] > 0:
        return False
    c0, c1, c2 = _codes_without_void(S, seat)
    n2 = S[O_N2 + seat]
    if extra >= 0:
        c0, c1, c2 = shift_code(c0, c1, c2, extra, ONE)
        n2, _ = moved_slots(n2, ZERO, S[O_HAND + seat * N_KINDS + extra], ONE)
    k = S[O_N_MELDS + seat]
    if regular_shanten_codes(_tab_ptr(S), c0, c1, c2, k) == -1:
        return True
    return k == 0 and n2 == 7


@nb.njit(cache=True, inline="always")
def _fast_shanten(S, seat):
    """The shanten (regular, and seven pairs without declared sets) of the seat's non-void
    tiles, from its suit codes and pair slots."""
    c0, c1, c2 = _codes_without_void(S, seat)
    k = S[O_N_MELDS + seat]
    sh = regular_shanten_codes(_tab_ptr(S), c0, c1, c2, k)
    if k == 0:
        sh = min(sh, seven_pairs_from_slots(S[O_N2 + seat], S[O_N1 + seat]))
    return sh


@nb.njit(cache=True, inline="always")
def _ready_hint(S, seat):
    """1 if the seat's 13 - 3k concealed tiles may be ready (fast shanten <= 0, no void tile),
    else 0; cached until its tiles change. Every hand that can win with one more tile passes,
    so unready seats skip the win tests on each discard and draw. A seat whose shanten bound
    is still 1 or more is not ready without looking: a draw and a discard lower the shanten
    by at most one, so a hand two from ready needs no table lookups on its next turn."""
    r = S[O_RDY + seat]
    if r < 0:
        r = 0
        if S[O_VOIDCNT + seat] == 0 and S[O_SH_LOW + seat] <= 0:
            sh = _fast_shanten(S, seat)
            S[O_SH_LOW + seat] = sh
            r = 1 if sh <= 0 else 0
        S[O_RDY + seat] = r
    return r


@nb.njit(cache=True, _nrt=False)
def _error(S, kind, seat, q, answer):
    if S[O_ERR] == ERR_NONE:
        S[O_ERR] = kind
        S[O_ERR + 1] = seat
        S[O_ERR + 2] = q
        S[O_ERR + 3] = answer


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


# == payments and wins ========================================================================


@nb.njit(cache=True, _nrt=False)
def _pay(S, payer, payee, amount, reason):
    """One payment: nets, the refund ledger, every view's scores, the record and the log."""
    if amount <= 0:
        return
    S[O_NET + payer] -= amount
    S[O_NET + payee] += amount
    S[O_NET_REASON + payer * N_REASONS + reason] -= amount
    S[O_NET_REASON + payee * N_REASONS + reason] += amount
    if reason == REASON_KONG:
        S[O_KONG_RECV + payee * 4 + payer] += amount
        if S[O_TURN_KONG_SEAT] != payee + 1:  # the first kong of a seat's turn
            for q in range(4):
                S[O_TURN_KONG + q] = 0
                _set_all(S, vw.V_TURN_KONG + q, ZERO)
            S[O_TURN_KONG_SEAT] = payee + 1
            _set_all(S, vw.V_TURN_KONG_SEAT, payee + 1)
        S[O_TURN_KONG + payer] += amount
        _set_all(S, vw.V_TURN_KONG + payer, S[O_TURN_KONG + payer])
        _set_all(S, vw.V_KONG_INCOME + payee * 4 + payer, S[O_KONG_RECV + payee * 4 + payer])
    for s in range(4):
        S[_v(s) + vw.V_SCORE + payer] -= amount
        S[_v(s) + vw.V_SCORE + payee] += amount
    n = S[O_N_PAY]
    if n < S[O_PCAP]:
        o = S[O_OFF_PBUF] + n * N_PAY_FIELDS
        S[o + P_PAYER] = payer
        S[o + P_PAYEE] = payee
        S[o + P_AMOUNT] = amount
        S[o + P_REASON] = reason
    S[O_N_PAY] = n + 1
    if _tracing(S):
        _log(S, EV_PAYMENT, payer, payee, amount, reason, ZERO)


@nb.njit(cache=True, inline="always")
def _liable(S, seat, other):
    """Is ``other`` liable for ``seat``'s self-draw or kong? Battle: seats still in the hand;
    flow: all three others (RULES.md: Options and presets, "Liable")."""
    if other == seat:
        return False
    return _r(S, R_FLOW) == 1 or S[O_OUT + other] == 0


@nb.njit(cache=True, _nrt=False)
def _reveal(S, seat):
    """A winner's tiles are shown to all, concealed kongs included (RULES.md: Rulings where the documents are silent,
    seed 004)."""
    S[O_REVEALED_ROWS] |= I64(1) << seat
    for t in range(N_KINDS):
        c = S[O_HAND + seat * N_KINDS + t]
        if c > 0:
            for s in range(4):
                S[_v(s) + vw.V_REVEALED + seat * N_KINDS + t] = c
            _show(S, t, c, seat)
    for i in range(S[O_N_MELDS + seat]):
        if S[O_MELD_KIND + seat * 4 + i] == M_KONG_CONCEALED:
            t = S[O_MELD_TILE + seat * 4 + i]
            _set_all(S, vw.V_MELD_TILE + seat * 4 + i, t)
            _show(S, t, I64(4), seat)


@nb.njit(cache=True, _nrt=False)
def _record_win(S, seat, tile, frm, kind, ctx):
    """Value the winner's hand (its concealed tiles hold the winning tile) and record the win.
    Returns (win index, base)."""
    o_h = O_HAND + seat * N_KINDS
    o_m = O_MELD_CNT + seat * N_KINDS
    fan = score_patterns(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + seat], S[O_N_MELDS + seat], view_of(S, o_m, N_KINDS),
                         S[O_N_KONGS + seat], ctx, view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
    if fan < 0:  # the engine only offers wins that score; a failure here is a bug
        _error(S, ERR_INVARIANT, seat, MINUS_ONE, INV_VOID_WIN)
        fan = 0
    base = base_of(fan, view_of(S, O_RULES, N_RULE_FIELDS))
    w = S[O_N_WINS]
    S[O_N_WINS] = w + 1
    if w < S[O_WCAP]:
        o = S[O_OFF_WBUF] + w * N_WIN_FIELDS
        S[o + W_SEAT] = seat
        S[o + W_ORDER] = w + 1
        S[o + W_TURN] = S[O_TURNS]
        S[o + W_KIND] = kind
        S[o + W_TILE] = tile
        S[o + W_FROM] = frm
        S[o + W_FAN] = fan
        S[o + W_BASE] = base
        S[o + W_PAID] = 0
        for i in range(N_PATTERNS):
            S[o + W_PATTERNS + i] = S[O_PATS + i]
    if S[O_FIRST_WIN + seat] < 0:
        S[O_FIRST_WIN + seat] = w
    S[O_WINS + seat] += 1
    _set_all(S, vw.V_WINS + seat, S[O_WINS + seat])
    _set_all(S, vw.V_VOID_CAP + seat, ZERO)  # a winning hand holds no void tile
    S[O_CLEAN] = 0
    if _tracing(S):
        e = _log(S, EV_WIN, seat, tile, frm, kind, w)
        S[_log_at(S, e, LW_WIN_FAN)] = fan
        for i in range(N_PATTERNS):
            S[_log_at(S, e, LW_PATS + i)] = S[O_PATS + i]
        nm = S[O_N_MELDS + seat]
        for i in range(4):
            S[_log_at(S, e, LW_MELD_KINDS + i)] = S[O_MELD_KIND + seat * 4 + i] if i < nm else 0
            S[_log_at(S, e, LW_MELD_TILES + i)] = S[O_MELD_TILE + seat * 4 + i] if i < nm else -1
        for t in range(N_KINDS):
            S[_log_at(S, e, LW_HAND + t)] = S[o_h + t]
        S[_log_at(S, e, LW_WIN_BASE)] = base
        S[_log_at(S, e, LW_WIN_TILES_LEFT)] = tiles_left(S)
        S[_log_at(S, e, LW_WIN_N_MELDS)] = nm
    return w, base


@nb.njit(cache=True, inline="always")
def _win_paid(S, w, amount):
    if w < S[O_WCAP]:
        S[S[O_OFF_WBUF] + w * N_WIN_FIELDS + W_PAID] += amount


@nb.njit(cache=True, _nrt=False)
def _after_first_win(S, seat):
    """Battle: the winner leaves. Flow: the winner stays, locked (RULES.md: One hand, step by step, step 5)."""
    if _r(S, R_FLOW):
        if S[O_LOCKED + seat] == 0:
            S[O_LOCKED + seat] = 1
            S[_v(seat) + vw.V_LOCKED] = 1
            _reveal(S, seat)
    else:
        S[O_OUT + seat] = 1
        _set_all(S, vw.V_OUT + seat, ONE)
        _reveal(S, seat)


@nb.njit(cache=True, _nrt=False)
def _set_aside_from_hand(S, seat, t):
    _add(S, seat, t, MINUS_ONE)
    S[_v(seat) + vw.V_VISIBLE + t] += 1  # still visible to its owner, now set aside
    S[O_ASIDE + t] += 1
    _show(S, t, ONE, seat)


@nb.njit(cache=True, _nrt=False)
def _first_hand_tile_to_set_aside(S, seat):
    """After a win on the dealer's initial 14 tiles: the tile whose removal leaves the highest
    ready value, then the most wait kinds, then the lowest index (RULES.md: Rulings where the documents are silent,
    flow lock)."""
    o_h = O_HAND + seat * N_KINDS
    o_m = O_MELD_CNT + seat * N_KINDS
    hand = view_of(S, o_h, N_KINDS)
    best_t = -1
    best_v = -1
    best_n = -1
    for t in range(N_KINDS):
        if hand[t] == 0:
            continue
        hand[t] -= 1
        value = ready_value(_tab(S), hand, S[O_VOID + seat], S[O_N_MELDS + seat], view_of(S, o_m, N_KINDS),
                            S[O_N_KONGS + seat], view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
        mask = waits_mask(_tab(S), hand, S[O_VOID + seat], S[O_N_MELDS + seat], view_of(S, o_m, N_KINDS))
        hand[t] += 1
        n = 0
        while mask:
            n += 1
            mask &= mask - 1
        if value > best_v or (value == best_v and n > best_n):
            best_t, best_v, best_n = t, value, n
    return best_t


# == asking the strategies ====================================================================


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
    """Ask a seat's strategy (or the scenario script, when it has an entry for this question).
    The wall count in the view is brought up to date here, the only time a strategy reads it."""
    v = _v(seat)
    S[v + vw.V_QUESTION] = q
    S[v + vw.V_WALL_LEFT] = tiles_left(S)
    pos = S[O_SCRIPT_POS + seat]
    if pos < S[O_SCRIPT_LEN]:
        o = S[O_OFF_SCRIPT] + (seat * S[O_SCRIPT_LEN] + pos) * 3
        if S[o] == q and (S[o + 1] < 0 or S[o + 1] == S[v + vw.V_TILE]):
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



# == shadowing an arm (README: Play only where the arms differ) ================================
#
# A duplicate arm that differs from the field in some policy plays the field's hand wherever its
# answers are the field's. While the field's hand is played, every question a seat is asked is
# also put to the arm's strategies on the same view, with the arm's parameters, scratch and
# random counter (as if the arm sat there); the first answer that differs marks the seat's
# rotation as differed and notes how many resume points the hand had passed
# (``play_shadowed`` then replays the field's hand to that point, seats the arm, and plays on).

SH_ASKING, SH_SAME, SH_DIFFERED = I64(0), I64(1), I64(2)


@nb.njit(cache=True, _nrt=False)
def _shadow(S, seat, q, ans):
    """Put question q, just answered ``ans`` by the seat, to the arm's strategy."""
    v = _v(seat)
    sv = O_SH_VIEW
    for i in range(VIEW_LEN):   # the seat's strategy wrote only its scratch and counter: reset below
        S[sv + i] = S[v + i]
    for i in range(3 * vw.N_PARAMS):
        S[sv + vw.V_PARAMS + i] = S[O_SH_SETUP + seat * 3 * vw.N_PARAMS + i]
    o = O_SH_SCR + seat * vw.N_SCRATCH
    for i in range(vw.N_SCRATCH):
        S[sv + vw.V_SCRATCH + i] = S[o + i]
    S[sv + vw.V_RNG_COUNT] = S[O_SH_RNG + seat]
    group = 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)
    f = O_SH_FNS + 2 * (group * 4 + seat)
    a = call_strategy(S[f], S[f + 1], q, view_of(S, sv, VIEW_LEN), _tab(S))
    if a != ans:
        S[O_SH_DONE + seat] = SH_DIFFERED   # its scratch and counter stay as before the question
        S[O_SH_K + seat] = S[O_SH_RP]
        return
    for i in range(vw.N_SCRATCH):
        S[o + i] = S[sv + vw.V_SCRATCH + i]
    S[O_SH_RNG + seat] = S[sv + vw.V_RNG_COUNT]
    S[O_SH_ASKED + seat] |= ONE << group
    # the same from here on: every strategy still to be asked is the seat's own, in the same state
    left = ONE | ((0b110 & ~S[O_SH_ASKED + seat]) if _r(S, R_EXCHANGE) else (0b100 & ~S[O_SH_ASKED + seat]))
    if left & ~S[O_SH_SAME] != 0 or S[O_SH_RNG + seat] != S[v + vw.V_RNG_COUNT]:
        return
    use = max(S[O_SCRATCH_USE + seat], S[O_SH_SETUP + vw.SETUP_SCRATCH + seat])
    for i in range(min(use, vw.N_SCRATCH)):
        if S[o + i] != S[v + vw.V_SCRATCH + i]:
            return
    S[O_SH_DONE + seat] = SH_SAME


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


@nb.njit(cache=True, inline="always")
def _can_win_on(S, seat, t, ctx):
    """Could ``seat`` win with another seat's tile t (discard or robbed kong, win context
    ``ctx``)? Not under the passed-win lock, unless ``passed_win_higher`` and the win's fan is
    higher than every win it passed since its last draw (RULES.md: Rulings where the documents are silent)."""
    lock = S[O_PASSLOCK + seat]
    if lock and not _r(S, R_PASSED_WIN_HIGHER):
        return False
    if not (_ready_hint(S, seat) == 1 and _seat_wins(S, seat, t)):
        return False
    return lock == 0 or _fan_on(S, seat, t, ctx) > lock - 1


@nb.njit(cache=True, _nrt=False)
def _fan_on(S, seat, t, ctx):
    """The fan (before the cap; a limit hand: the cap) of ``seat`` winning on another seat's tile t."""
    o_h = O_HAND + seat * N_KINDS
    S[o_h + t] += 1
    fan = score_patterns(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + seat], S[O_N_MELDS + seat],
                         view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS), S[O_N_KONGS + seat], ctx,
                         view_of(S, O_RULES, N_RULE_FIELDS), view_of(S, O_PATS, N_PATTERNS))
    S[o_h + t] -= 1
    return fan


@nb.njit(cache=True, inline="always")
def _offer(S, seat, t, frm, can_win, can_pung, can_kong, kong_discard):
    v = _v(seat)
    S[v + vw.V_KONG_DISCARD] = kong_discard
    S[v + vw.V_TILE] = t
    S[v + vw.V_FROM] = frm
    S[v + vw.V_CAN_WIN] = can_win
    S[v + vw.V_CAN_PUNG] = can_pung
    S[v + vw.V_CAN_KONG] = can_kong


# == the phases of a hand =====================================================================


@nb.njit(cache=True, _nrt=False)
def _reset(S, dealer):
    """Clear the hand's state and views, keep the header (RULES.md: One hand, step by step, step 1). The wall
    is left alone: the shuffle rewrites all of it."""
    view_of(S, O_HAND, O_STATE_END - O_HAND)[:] = 0
    for s in range(4):
        view_of(S, _v(s), vw.V_ZEROED + S[O_SCRATCH_USE + s])[:] = 0  # the scratch follows V_ZEROED
        rows = S[O_REVEALED_ROWS]
        for w in range(4):
            if (rows >> w) & 1:
                view_of(S, _v(s) + vw.V_REVEALED + w * N_KINDS, N_KINDS)[:] = 0
    S[O_REVEALED_ROWS] = 0
    S[O_FRONT] = DEAL_END
    S[O_BACK] = WALL_LAST
    S[O_LEFT] = N_DRAWABLE
    S[O_TOP] = N_DRAWABLE - 1
    for s in range(4):
        S[O_OWN + s] = (s - dealer - 1) % 4
    S[O_DEALER] = dealer
    S[O_NEXT_DEALER] = dealer
    S[O_CLEAN] = 1
    seed = S[O_SEED]
    g = S[O_G]
    flow = _r(S, R_FLOW)
    for s in range(4):
        S[O_VOID + s] = NO_VOID
        S[O_PIG + s] = -1
        S[O_READY + s] = -1
        S[O_FIRST_WIN + s] = -1
        S[O_RDY + s] = -1
        S[O_SH_LOW + s] = SH_UNKNOWN
        S[O_SCORE0 + s] = S[O_SCORES_IN + s]
        v = _v(s)
        S[v + vw.V_ME] = s
        S[v + vw.V_DEALER] = dealer
        S[v + vw.V_HAND_INDEX] = g
        S[v + vw.V_FLOW] = flow
        S[v + vw.V_TILE] = -1
        S[v + vw.V_FROM] = -1
        S[v + vw.V_RNG_KEY] = I64(stream_key(seed, g, STREAM_SEAT + s))
        S[v + vw.V_ARENA] = S[O_ARENA + s]
        for i in range(4):
            S[v + vw.V_VOID + i] = NO_VOID
            S[v + vw.V_SCORE + i] = S[O_SCORES_IN + i]
        for i in range(3):
            S[v + vw.V_PASSED + i] = -1
            S[v + vw.V_RECEIVED + i] = -1
        view_of(S, v + vw.V_PUBLIC, VIEW_LEN - vw.V_PUBLIC)[:] = 0
        for i in range(4):
            S[v + vw.V_VOID_CAP + i] = -1


@nb.njit(cache=True, _nrt=False)
def _shuffle(S):
    """The wall of hand g depends only on (seed, g) (ARCHITECTURE.md: Randomness); Fisher-Yates with
    a 32-bit multiply-shift bound (bias below 3e-8 per draw). A scenario's fixed wall instead."""
    if S[O_FIXED_WALL_N] == N_TILES:
        for i in range(N_TILES):
            S[O_WALL + i] = S[O_FIXED_WALL + i]
        return
    for i in range(N_TILES):
        S[O_WALL + i] = i // COPIES
    key = stream_key(S[O_SEED], S[O_G], STREAM_WALL)
    # the partners first, in a loop of their own: it has no dependences, so it vectorizes
    for i in range(1, N_TILES):
        S[O_SWAPS + i] = I64(((stream_value(key, i) >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
    for i in range(WALL_LAST, 0, -1):
        j = S[O_SWAPS + i]
        tmp = S[O_WALL + i]
        S[O_WALL + i] = S[O_WALL + j]
        S[O_WALL + j] = tmp


@nb.njit(cache=True, _nrt=False)
def _deal(S, dealer):
    """The dealer takes wall[0:14], then each next seat 13 (TRACE.md's deal event). Counts first, then
    what ``_add`` keeps for each seat (no void yet: every kind counts for seven pairs)."""
    pos = 0
    for i in range(4):
        seat = (dealer + i) % 4
        n = 14 if i == 0 else 13
        for _ in range(n):
            S[O_HAND + seat * N_KINDS + S[O_WALL + pos]] += 1
            pos += 1
    for seat in range(4):
        _recount(S, I64(seat))
    if S[O_LUCK_ON]:
        _count_undrawn(S)


@nb.njit(cache=True, _nrt=False)
def _recount(S, seat):
    """After changing a seat's concealed counts directly: what ``_add`` keeps (suit codes,
    seven-pairs slots over non-void kinds, void-tile count, four-of-a-kind mask, readiness
    hint) recomputed, and the seat's view brought along (its tiles, and visible by the change)."""
    v = _v(seat)
    h = O_HAND + seat * N_KINDS
    void = S[O_VOID + seat]
    n2 = 0
    n1 = 0
    nv = 0
    quads = I64(0)
    for s in range(N_SUITS):
        code = 0
        tiles = 0
        s2 = 0
        s1 = 0
        for t in range(N_RANKS * s + N_RANKS - 1, N_RANKS * s - 1, -1):
            c = S[h + t]
            code = code * 5 + c
            tiles += c
            s2 += slots2(c)
            s1 += c & 1
            quads |= I64(c == 4) << t
        if s == void:
            nv = tiles
        else:
            n2 += s2
            n1 += s1
        S[O_CODES + seat * N_SUITS + s] = code
        S[v + vw.V_CODES + s] = code
    for t in range(N_KINDS):
        c = S[h + t]
        S[v + vw.V_VISIBLE + t] += c - S[v + vw.V_HAND + t]
        S[v + vw.V_HAND + t] = c
    S[O_N2 + seat] = n2
    S[O_N1 + seat] = n1
    S[O_VOIDCNT + seat] = nv
    S[O_QUADS + seat] = quads
    S[O_RDY + seat] = -1
    S[O_SH_LOW + seat] = SH_UNKNOWN
    S[v + vw.V_N2] = n2
    S[v + vw.V_N1] = n1


@nb.njit(cache=True, _nrt=False)
def _exchange(S, fixed_dir):
    """Exchange three (RULES.md: One hand, step by step, step 2): each seat picks three tiles of one suit,
    then the direction is drawn and all pass at once. Returns False on an illegal answer."""
    for seat in range(4):
        ans = _ask(S, seat, Q_EXCHANGE)
        a, b, c = vw.unpack3(ans)
        o = O_HAND + seat * N_KINDS
        ok = (0 <= ans < vw.PACK3_END and a < N_KINDS and b < N_KINDS and c < N_KINDS
              and a // N_RANKS == b // N_RANKS and b // N_RANKS == c // N_RANKS)
        if ok:
            need_a = 1 + (b == a) + (c == a)
            need_b = 1 + (a == b) + (c == b)
            need_c = 1 + (a == c) + (b == c)
            ok = S[o + a] >= need_a and S[o + b] >= need_b and S[o + c] >= need_c
        if not ok:
            _error(S, ERR_ILLEGAL, I64(seat), Q_EXCHANGE, ans)
            return False
        S[O_PASSED + seat * 3] = a
        S[O_PASSED + seat * 3 + 1] = b
        S[O_PASSED + seat * 3 + 2] = c
    if fixed_dir != 0:
        d = fixed_dir
    else:
        r = below(stream_value(stream_key(S[O_SEED], S[O_G], STREAM_DIRECTION), 0), 3)
        d = 1 if r == 0 else (-1 if r == 1 else 2)
        if S[O_LUCK_ON]:
            _luck_exchange(S, I64(d))
    S[O_EXDIR] = d
    for seat in range(4):
        for i in range(3):
            t = S[O_PASSED + seat * 3 + i]
            _add(S, seat, t, MINUS_ONE)
            S[_v(seat) + vw.V_PASSED + i] = t
    for seat in range(4):
        to = (seat + d + 4) % 4
        for i in range(3):
            t = S[O_PASSED + seat * 3 + i]
            _add(S, to, t, ONE)
            S[_v(to) + vw.V_RECEIVED + i] = t
    _set_all(S, vw.V_EXCHANGE_DIR, d)
    if _tracing(S):
        e = _log(S, EV_EXCHANGE, d, ZERO, ZERO, ZERO, ZERO)
        for i in range(12):
            S[_log_at(S, e, LW_PASSED + i)] = S[O_PASSED + i]
    return True


@nb.njit(cache=True, _nrt=False)
def _choose_voids(S):
    """Every seat names a suit at once; then all are shown (RULES.md: One hand, step by step, step 3)."""
    for seat in range(4):
        ans = _ask(S, seat, Q_VOID)
        if ans < 0 or ans > 2:
            _error(S, ERR_ILLEGAL, I64(seat), Q_VOID, ans)
            return False
        S[O_VOID + seat] = ans
    for seat in range(4):
        void = S[O_VOID + seat]
        _set_all(S, vw.V_VOID + seat, void)
        # the slots counted every kind until now: take the void suit's out
        n = 0
        n2 = S[O_N2 + seat]
        n1 = S[O_N1 + seat]
        for t in range(void * N_RANKS, void * N_RANKS + N_RANKS):
            c = S[O_HAND + seat * N_KINDS + t]
            n += c
            n2 -= slots2(c)
            n1 -= c & 1
        S[O_VOIDCNT + seat] = n
        S[O_N2 + seat] = n2
        S[O_N1 + seat] = n1
        S[O_RDY + seat] = -1
        S[O_SH_LOW + seat] = SH_UNKNOWN  # the void suit's tiles stop counting
        v = _v(seat)
        S[v + vw.V_N2] = n2
        S[v + vw.V_N1] = n1
        S[v + vw.V_MUST_VOID] = 1 if n > 0 else 0
    if _tracing(S):
        _log(S, EV_VOID, S[O_VOID], S[O_VOID + 1], S[O_VOID + 2], S[O_VOID + 3], ZERO)
    return True



# == luck (README: Cheaper duplicate answers; ``simcore.engine.luck`` holds the model) =========


@nb.njit(cache=True, inline="always")
def _fit_term(S, seat, i, x):
    """Fitting: the seat's luck in feature i gains x (``fit_hand``)."""
    if S[O_FIT] != 0:
        o = O_PHI + seat * N_FEATURES + i
        S[o] = float_bits(as_float64(S[o]) + x)


@nb.njit(cache=True, _nrt=False)
def _term(S, seat, i, x):
    """The seat's luck gains x in feature i (x: the feature's value after the event less its mean
    over the event's outcomes), weighted by the model; a fit keeps the feature's own sum."""
    S[O_LUCK + seat] = float_bits(as_float64(S[O_LUCK + seat]) + as_float64(S[O_VALUE + i]) * x)
    _fit_term(S, seat, i, x)


@nb.njit(cache=True, _nrt=False)
def fit_hand(S):
    """Fitting, at a hand's end: each seat's luck per feature (its vector L) and its net go into
    the fit sums: X'X += L L', X'y += L net, then the count, sum and sum of squares of the nets.
    Least squares on these gives the weights that leave the least variance in net - w.L."""
    F = float64_ptr(S[O_FIT])
    off = N_FEATURES * N_FEATURES
    for s in range(4):
        net = float(S[O_NET + s])
        o = O_PHI + s * N_FEATURES
        for i in range(N_FEATURES):
            li = as_float64(S[o + i])
            if li == 0.0:
                continue
            F[off + i] += li * net
            for j in range(N_FEATURES):
                F[i * N_FEATURES + j] += li * as_float64(S[o + j])
        F[off + N_FEATURES] += 1.0
        F[off + N_FEATURES + 1] += net
        F[off + N_FEATURES + 2] += net * net


@nb.njit(cache=True, _nrt=False)
def _count_undrawn(S):
    for t in range(N_KINDS):
        S[O_UNDRAWN + t] = 0
    for i in range(DEAL_END, N_TILES):
        if undrawn(S, i):
            S[O_UNDRAWN + S[O_WALL + i]] += 1


@nb.njit(cache=True, _nrt=False)
def _shanten_of(S, c0, c1, c2, k, n2, n1):
    sh = regular_shanten_codes(_tab_ptr(S), c0, c1, c2, k)
    if k == 0:
        sh = min(sh, seven_pairs_from_slots(n2, n1))
    return sh


@nb.njit(cache=True, _nrt=False)
def _sh14(S, seat, t):
    """The shanten of the seat's non-void tiles with t added (3n+2 tiles: -1, it can win)."""
    c0, c1, c2 = _codes_without_void(S, seat)
    n2 = S[O_N2 + seat]
    n1 = S[O_N1 + seat]
    if t // N_RANKS != S[O_VOID + seat]:
        c0, c1, c2 = shift_code(c0, c1, c2, t, ONE)
        n2, n1 = moved_slots(n2, n1, S[O_HAND + seat * N_KINDS + t], ONE)
    return _shanten_of(S, c0, c1, c2, S[O_N_MELDS + seat], n2, n1)


@nb.njit(cache=True, _nrt=False)
def _refresh_waits(S, seat, key):
    """The seat's waits mask and the base of a discard win on each wait, for its tiles now."""
    mask = waits_mask(_tab(S), view_of(S, O_HAND + seat * N_KINDS, N_KINDS), S[O_VOID + seat],
                      S[O_N_MELDS + seat], view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS))
    S[O_LK_WAITS + seat] = mask
    S[O_LK_KEY + seat] = key
    for t in range(N_KINDS):
        if (mask >> t) & 1:
            S[O_LK_AMT + seat * N_KINDS + t] = base_of(_fan_on(S, seat, I64(t), ZERO), view_of(S, O_RULES, N_RULE_FIELDS))


@nb.njit(cache=True, inline="always")
def _waits_if_ready(S, seat):
    """The seat's waits mask when its tiles (3n+1) are ready, else -1; kept, with the base of a
    discard win on each wait (``O_LK_AMT``), while its tiles and sets stay the same."""
    if _ready_hint(S, seat) != 1:   # cached by the engine; a seat holding its void suit is not ready
        return MINUS_ONE
    o = O_CODES + seat * N_SUITS
    key = 1 + (S[o] | (S[o + 1] << 21) | (S[o + 2] << 42)) ^ (S[O_N_MELDS + seat] << 61)
    if S[O_LK_KEY + seat] != key:
        _refresh_waits(S, seat, key)
    return S[O_LK_WAITS + seat] if S[O_LK_WAITS + seat] != 0 else MINUS_ONE


@nb.njit(cache=True, inline="always")
def _amt(S, seat, t):
    """The base of the seat's discard win on t, if t is one of its waits (``O_LK_CUR``), else 0."""
    mask = S[O_LK_CUR + seat]
    return float(S[O_LK_AMT + seat * N_KINDS + t]) if mask >= 0 and (mask >> t) & 1 else 0.0


@nb.njit(cache=True, _nrt=False)
def _live(S, mask):
    n = 0
    for t in range(N_KINDS):
        if (mask >> t) & 1:
            n += S[O_UNDRAWN + t]
    return n


@nb.njit(cache=True, _nrt=False)
def _self_draw_amount(S, seat, t, sh):
    """What each payer would pay ``seat`` for a self-draw on t (0 unless ``sh`` says it wins)."""
    if sh >= 0:
        return 0.0
    fan = _fan_on(S, seat, t, CTX_SELF_DRAW)
    return float(base_of(fan, view_of(S, O_RULES, N_RULE_FIELDS)) + _r(S, R_SELF_DRAW_BONUS))


@nb.njit(cache=True, inline="always")
def _w(S, i):
    return as_float64(S[O_VALUE + i])


@nb.njit(cache=True, inline="always")
def _gain(S, seat, x):
    S[O_LUCK + seat] = float_bits(as_float64(S[O_LUCK + seat]) + x)


@nb.njit(cache=True, _nrt=False)
def _luck_draw(S, seat, t):
    """The luck of the draw of t by ``seat`` (before it holds it; tiles left already counts the
    draw), each feature's value with t less its mean over the undrawn tiles: what a self-draw
    would pay the drawer and what the tile would pay ready others on a discard (by what the
    drawer likely does with it); for each other seat what the drawer's self-draw would make it
    pay and, when it is ready, the copies of its waits the draw took or left, plain and times what
    each would pay it. Only the waits of ready seats enter, so a draw costs a few lookups (this is
    estimation, not a rule: README, Cheaper duplicate answers)."""
    left = tiles_left(S)
    total = float(left + 1)
    payers = float(_active_count(S) - 1)
    waits = 0   # the kinds some ready other wins on
    for s in range(4):
        S[O_LK_CUR + s] = MINUS_ONE if s == seat or S[O_OUT + s] else _waits_if_ready(S, I64(s))
        if S[O_LK_CUR + s] >= 0:
            waits |= S[O_LK_CUR + s]
    own = _waits_if_ready(S, seat)   # the drawer's own waits: a draw of one is a self-draw
    mean_amount = 0.0
    got_amount = 0.0
    if own > 0:
        for x in range(N_KINDS):
            u = S[O_UNDRAWN + x]
            if (own >> x) & 1 and u:
                amount = _self_draw_amount(S, seat, I64(x), MINUS_ONE)
                mean_amount += u * amount
                if x == t:
                    got_amount = amount
        mean_amount /= total
        _term(S, seat, F14_WIN, (got_amount - mean_amount) * payers)
    if waits:
        sh13 = _fast_shanten(S, seat)
        gain = 0.0
        for x in range(N_KINDS):
            u = S[O_UNDRAWN + x]
            if not (waits >> x) & 1 or u == 0:
                continue
            keep = ZERO if x // N_RANKS == S[O_VOID + seat] else (ONE if _sh14(S, seat, I64(x)) < sh13 else I64(2))
            S[O_LK_TMP + x] = keep
            danger = 0.0
            for s in range(4):
                danger += _amt(S, I64(s), I64(x))
            hit = (1.0 if x == t else 0.0) - u / total
            gain += _w(S, F_DANGER + keep) * danger * hit
            _fit_term(S, seat, F_DANGER + keep, danger * hit)
        _gain(S, seat, gain)
    tl = tl_bucket(left)
    for s in range(4):
        if s == seat or S[O_OUT + s]:
            continue
        if own > 0:
            _term(S, I64(s), F_PAY, got_amount - mean_amount)
        mask = S[O_LK_CUR + s]
        if mask < 0:
            continue
        live = 0.0
        value = 0.0
        for x in range(N_KINDS):
            u = S[O_UNDRAWN + x]
            if not (mask >> x) & 1 or u == 0:
                continue
            a = _amt(S, I64(s), I64(x))
            live += u
            value += u * a
            _term(S, I64(s), F_GIFT + S[O_LK_TMP + x], a * ((1.0 if x == t else 0.0) - u / total))   # keep: above
        took = float((mask >> t) & 1)
        _term(S, I64(s), F13_LIVE + tl, live / total - took)
        _term(S, I64(s), F13_VALUE + tl, value / total - _amt(S, I64(s), t))
    S[O_UNDRAWN + t] -= 1


@nb.njit(cache=True, _nrt=False)
def _hand_after_exchange(S, seat, d):
    """The seat's features once the exchange in direction d has passed (its tiles less the three
    it passes, plus the three it receives): its one-hot index, and a second feature with its
    value (-1 when none)."""
    h = O_HAND + seat * N_KINDS
    frm = (seat - d + 4) % 4
    for t in range(N_KINDS):
        S[O_LK_TMP + t] = S[h + t]
    for i in range(3):
        S[O_LK_TMP + S[O_PASSED + seat * 3 + i]] -= 1
        S[O_LK_TMP + S[O_PASSED + frm * 3 + i]] += 1
    hand = view_of(S, O_LK_TMP, N_KINDS)
    c0 = suit_code(hand, 0)
    c1 = suit_code(hand, 1)
    c2 = suit_code(hand, 2)
    n2 = 0
    n1 = 0
    n = 0
    for t in range(N_KINDS):
        c = S[O_LK_TMP + t]
        n2 += slots2(c)
        n1 += c & 1
        n += c
    sh = _shanten_of(S, c0, c1, c2, ZERO, n2, n1)
    left = tiles_left(S)
    if n % 3 == 2:   # the dealer
        return index14(sh, left), F14_WIN, 3.0 if sh < 0 else 0.0
    if sh != 0:
        return index13(sh, left), MINUS_ONE, 0.0
    mask = waits_mask(_tab(S), hand, NO_VOID, ZERO, view_of(S, O_MELD_CNT + seat * N_KINDS, N_KINDS))
    return index13(sh, left), F13_LIVE + tl_bucket(left), float(_live(S, mask))


@nb.njit(cache=True, _nrt=False)
def _luck_exchange(S, d):
    """The luck of the exchange's direction d (each of +1, -1, +2 a third): each seat's features
    once the tiles have passed, less their mean over the three directions (the passes are chosen
    first)."""
    for s in range(4):
        for dd in (ONE, MINUS_ONE, I64(2)):
            i1, i2, x2 = _hand_after_exchange(S, I64(s), dd)
            _term(S, I64(s), i1, (1.0 if dd == d else 0.0) - 1.0 / 3.0)
            if i2 >= 0:
                _term(S, I64(s), i2, x2 * ((1.0 if dd == d else 0.0) - 1.0 / 3.0))


@nb.njit(cache=True, _nrt=False)
def _draw(S, seat, replacement):
    """A draw from the front, or a kong replacement from the back (RULES.md: Tiles, seats, notation)."""
    S[O_DRAW_RDY + seat] = _ready_hint(S, seat)
    pos = _wall_position(S, seat, replacement)
    t = S[O_WALL + pos]
    if S[O_LUCK_ON]:
        _luck_draw(S, seat, t)
    _add(S, seat, t, ONE)
    S[O_TURNS] += 1
    S[O_DRAWS + seat] += 1
    S[_v(seat) + vw.V_N_DRAWS] += 1
    # public facts, the same in every view: computed once, written four times
    drawn = S[_v(seat) + vw.V_DRAWS + seat] + 1
    cap = S[_v(seat) + vw.V_VOID_CAP + seat]
    cap += cap >= 0
    for s in range(4):
        v = _v(s)
        S[v + vw.V_DRAWS + seat] = drawn
        S[v + vw.V_VOID_CAP + seat] = cap
    S[O_PASSLOCK + seat] = 0  # any draw lifts it (RULES.md: Rulings where the documents are silent, passed-win lock)
    if _tracing(S):
        _log(S, EV_DRAW, seat, t, replacement, pos, ZERO)
    return t


@nb.njit(cache=True, inline="always")
def _find_pung(S, seat, t):
    for i in range(S[O_N_MELDS + seat]):
        if S[O_MELD_KIND + seat * 4 + i] == M_PUNG and S[O_MELD_TILE + seat * 4 + i] == t:
            return i
    return -1


@nb.njit(cache=True, inline="always")
def _no_void_shown(S, seat, allowed_rule):
    """A claim or kong that the rules allow only without void tiles (``allowed_rule`` off) shows
    every seat that ``seat`` holds none (view.py: V_VOID_CAP)."""
    if not _r(S, allowed_rule):
        _set_all(S, vw.V_VOID_CAP + seat, ZERO)


@nb.njit(cache=True, _nrt=False)
def _add_meld(S, seat, kind, t):
    i = S[O_N_MELDS + seat]
    S[O_MELD_KIND + seat * 4 + i] = kind
    S[O_MELD_TILE + seat * 4 + i] = t
    S[O_N_MELDS + seat] = i + 1
    S[O_SH_LOW + seat] = SH_UNKNOWN  # one more declared set
    S[O_MELD_CNT + seat * N_KINDS + t] += 3 if kind == M_PUNG else 4
    if kind != M_PUNG:
        S[O_N_KONGS + seat] += 1
    _no_void_shown(S, seat, R_KONG_WHILE_VOID if kind == M_KONG_CONCEALED else R_CLAIM_WHILE_VOID)
    for s in range(4):
        v = _v(s)
        S[v + vw.V_N_MELDS + seat] = i + 1
        S[v + vw.V_MELD_KIND + seat * 4 + i] = kind
        S[v + vw.V_MELD_TILE + seat * 4 + i] = t if (kind != M_KONG_CONCEALED or s == seat) else -1


@nb.njit(cache=True, _nrt=False)
def _locked_kong_keeps_waits(S, seat, t):
    """Flow lock: a concealed kong of the drawn tile only if the waits stay the same."""
    o_h = O_HAND + seat * N_KINDS
    o_m = O_MELD_CNT + seat * N_KINDS
    hand = view_of(S, o_h, N_KINDS)
    mc = view_of(S, o_m, N_KINDS)
    void = S[O_VOID + seat]
    k = S[O_N_MELDS + seat]
    hand[t] -= 1
    before = waits_mask(_tab(S), hand, void, k, mc)
    hand[t] -= 3
    mc[t] += 4
    after = waits_mask(_tab(S), hand, void, k + 1, mc)
    mc[t] -= 4
    hand[t] += 4
    return before == after


@nb.njit(cache=True, inline="always")
def _kong_mask(S, seat, drawn):
    """Kongs the seat may declare on its turn: a tile left for the replacement; not while
    holding void tiles unless ``kong_while_void``; never of the void suit; an added kong only with
    the latest drawn tile under ``added_kong_drawn_only``; a locked flow seat
    only a concealed kong of its drawn tile keeping its waits (RULES.md: Rulings where the
    documents are silent)."""
    if tiles_left(S) < 1:
        return I64(0)
    if not _r(S, R_KONG_WHILE_VOID) and _must_void(S, seat):
        return I64(0)
    void = S[O_VOID + seat]
    quads = S[O_QUADS + seat]
    if S[O_LOCKED + seat]:
        if drawn >= 0 and (quads >> drawn) & 1 and _locked_kong_keeps_waits(S, seat, drawn):
            return I64(1) << drawn
        return I64(0)
    mask = quads & ~(I64(SUIT_BITS) << (N_RANKS * void))  # never of the void suit
    for i in range(S[O_N_MELDS + seat]):
        t = S[O_MELD_TILE + seat * 4 + i]
        if S[O_MELD_KIND + seat * 4 + i] == M_PUNG and S[O_HAND + seat * N_KINDS + t] >= 1 and (
                not _r(S, R_ADDED_KONG_DRAWN_ONLY) or t == drawn):
            mask |= I64(1) << t
    return mask


@nb.njit(cache=True, _nrt=False)
def _settle_self_draw(S, seat, tile, kind, ctx, feeder):
    """Self-draw (or kong replacement): each liable seat pays base + self_draw_bonus. With a
    ``feeder`` (>= 0: a replacement win after an exposed kong on its discard, under
    ``exposed_kong_bloom = feeder_pays``) that seat alone pays base, and the win scores no
    self_draw fan (RULES.md: Settlement). The winning tile is set aside before the winner's
    hand is revealed, so the revealed hand is the one it keeps."""
    if S[O_N_WINS] == 0:
        S[O_NEXT_DEALER] = seat
    if feeder >= 0:
        w, base = _record_win(S, seat, tile, feeder, kind, ctx & ~CTX_SELF_DRAW)
        _pay(S, feeder, seat, base, REASON_WIN)
        _win_paid(S, w, base)
    else:
        w, base = _record_win(S, seat, tile, MINUS_ONE, kind, ctx)
        amount = base + _r(S, R_SELF_DRAW_BONUS)
        for other in range(4):
            if _liable(S, seat, other):
                _pay(S, I64(other), seat, amount, REASON_WIN)
                _win_paid(S, w, amount)
    _set_aside_from_hand(S, seat, tile)
    _after_first_win(S, seat)


@nb.njit(cache=True, _nrt=False)
def _settle_on_tile(S, n_win, tile, frm, kind, ctx, liability):
    """Wins on one discard or one robbed kong (context ``ctx``) by the seats in the winners
    scratch, in turn order from the discarder (RULES.md: Settlement). ``liability``: the discard
    right after the discarder's kong under ``kong_discard_liability = pays_for_all``; under
    ``transfer`` the kong income of the kongs ``frm`` declared in this turn goes to the winners."""
    if S[O_N_WINS] == 0:
        S[O_NEXT_DEALER] = S[O_WINNERS] if n_win == 1 else frm
    in_hand = 4 if _r(S, R_FLOW) else _active_count(S)
    for i in range(n_win):
        seat = S[O_WINNERS + i]
        _add(S, seat, tile, ONE)
        if i == 0:
            if kind == WIN_ROBBING_KONG:
                _add(S, frm, tile, MINUS_ONE)
                S[_v(frm) + vw.V_VISIBLE + tile] += 1
                _show(S, tile, ONE, frm)
            else:
                S[O_PILE + tile] -= 1
            S[O_ASIDE + tile] += 1
        w, base = _record_win(S, seat, tile, frm, kind, I64(ctx))
        _add(S, seat, tile, MINUS_ONE)
        if liability:
            amount = base * (in_hand - 1)
            _pay(S, frm, seat, amount, REASON_LIABILITY)
        else:
            amount = base
            _pay(S, frm, seat, amount, REASON_WIN)
        _win_paid(S, w, amount)
    if _r(S, R_KONG_DISCARD_LIABILITY) == KONG_LIABILITY_TRANSFER and S[O_TURN_KONG_SEAT] == frm + 1:
        _transfer(S, n_win, frm)
    for i in range(n_win):
        seat = S[O_WINNERS + i]
        if S[O_WINS + seat] == 1:
            _after_first_win(S, seat)


@nb.njit(cache=True, _nrt=False)
def _transfer(S, n_win, frm):
    """Call transfer (RULES.md: Settlement, ``kong_discard_liability = transfer``): ``frm`` hands
    the income T of the kongs it declared in this turn to the n winners, ceil(T / n) each, and
    those kongs leave its refund ledger."""
    total = 0
    for q in range(4):
        total += S[O_TURN_KONG + q]
    if total <= 0:
        return
    share = (total + n_win - 1) // n_win
    for i in range(n_win):
        _pay(S, frm, S[O_WINNERS + i], I64(share), REASON_TRANSFER)
    for q in range(4):
        S[O_KONG_RECV + frm * 4 + q] -= S[O_TURN_KONG + q]
        S[O_TURN_KONG + q] = 0
        _set_all(S, vw.V_KONG_INCOME + frm * 4 + q, S[O_KONG_RECV + frm * 4 + q])
        _set_all(S, vw.V_TURN_KONG + q, ZERO)


@nb.njit(cache=True, inline="always")
def _three_won(S):
    if _r(S, R_FLOW):
        return False
    return S[O_OUT] + S[O_OUT + 1] + S[O_OUT + 2] + S[O_OUT + 3] >= 3


@nb.njit(cache=True, inline="always")
def _clear_winners(S):
    for i in range(4):
        S[O_WINNERS + i] = -1


@nb.njit(cache=True, _nrt=False)
def _pass_win(S, seat, t, frm, chose, ctx):
    """A seat that could win on t from ``frm`` (context ``ctx``) did something else
    (``CHOSE_*``): the passed-win lock, which with ``passed_win_higher`` remembers 1 + the
    highest fan passed (RULES.md: Rulings where the documents are silent, passed-win lock), and
    the trace's pass_win event with the passed win's fan."""
    higher = _r(S, R_PASSED_WIN_HIGHER) != 0
    fan = _fan_on(S, seat, t, ctx) if higher or _tracing(S) else ZERO
    if _r(S, R_PASSED_WIN_LOCK):
        S[O_PASSLOCK + seat] = max(S[O_PASSLOCK + seat], fan + 1) if higher else 1
    if _tracing(S):
        _log(S, EV_PASS_WIN, seat, t, frm, chose, fan)


@nb.njit(cache=True, _nrt=False)
def _rob_window(S, kong_seat, t):
    """Seats that can win on an added kong's tile may rob it (RULES.md: Rulings where the documents are silent,
    added kong).
    Returns the number of robbers, or -1 on an illegal answer."""
    _clear_winners(S)
    n_win = 0
    ctx = CTX_ROBBING_KONG | (CTX_LAST_TILE if tiles_left(S) == 0 else 0)
    for i in range(1, 4):
        seat = (kong_seat + i) % 4
        if S[O_OUT + seat] or not _can_win_on(S, seat, t, ctx):
            continue
        _offer(S, seat, t, kong_seat, ONE, ZERO, ZERO, ZERO)
        ans = _ask(S, seat, Q_ROB)
        if ans == C_WIN:
            S[O_WINNERS + n_win] = seat
            n_win += 1
        elif ans == C_PASS:
            _pass_win(S, I64(seat), t, kong_seat, CHOSE_PASS, ctx)
        else:
            _error(S, ERR_ILLEGAL, I64(seat), Q_ROB, ans)
            return -1
    if n_win > 0:
        _settle_on_tile(S, I64(n_win), t, kong_seat, WIN_ROBBING_KONG, I64(ctx), NO)
    return n_win


@nb.njit(cache=True, _nrt=False)
def _declare_kong(S, seat, t, kind, frm):
    """Make a kong and collect its payment (RULES.md: Settlement, kongs pay on declaration)."""
    S[O_CLEAN] = 0
    S[O_SEAT_KONGS + seat] += 1
    if kind == KONG_ADDED:
        i = _find_pung(S, seat, t)
        S[O_MELD_KIND + seat * 4 + i] = M_KONG_ADDED
        S[O_MELD_CNT + seat * N_KINDS + t] += 1
        S[O_N_KONGS + seat] += 1
        _add(S, seat, t, MINUS_ONE)
        S[_v(seat) + vw.V_VISIBLE + t] += 1
        _show(S, t, ONE, seat)
        _set_all(S, vw.V_MELD_KIND + seat * 4 + i, M_KONG_ADDED)
        _no_void_shown(S, seat, R_KONG_WHILE_VOID)
        for other in range(4):
            if _liable(S, seat, other):
                _pay(S, I64(other), seat, _r(S, R_KONG_PAY_ADDED), REASON_KONG)
    elif kind == KONG_CONCEALED:
        _add(S, seat, t, I64(-4))
        S[_v(seat) + vw.V_VISIBLE + t] += 4
        _add_meld(S, seat, M_KONG_CONCEALED, t)
        if _tracing(S):
            _log(S, EV_KONG, seat, t, KONG_CONCEALED, MINUS_ONE, ZERO)
        for other in range(4):
            if _liable(S, seat, other):
                _pay(S, I64(other), seat, _r(S, R_KONG_PAY_CONCEALED), REASON_KONG)
    else:
        _add(S, seat, t, I64(-3))
        S[_v(seat) + vw.V_VISIBLE + t] += 3  # its three tiles, now in the set
        S[O_PILE + t] -= 1
        _show(S, t, I64(3), seat)
        _add_meld(S, seat, M_KONG_EXPOSED, t)
        if _tracing(S):
            _log(S, EV_KONG, seat, t, KONG_EXPOSED, frm, ZERO)
        _pay(S, frm, seat, _r(S, R_KONG_PAY_EXPOSED), REASON_KONG)


@nb.njit(cache=True, inline="always")
def _claim_options(S, seat, t, last, ctx):
    """(can win, can pung, can kong) for ``seat`` on another seat's discard t."""
    held = S[O_HAND + seat * N_KINDS + t]
    # & rather than "and": one branch on the outcome instead of one per (random) condition
    can_pung = ((held >= 2) & (not last) & (S[O_LOCKED + seat] == 0) & (t // N_RANKS != S[O_VOID + seat])
                & ((_r(S, R_CLAIM_WHILE_VOID) != 0) | (not _must_void(S, seat))))
    can_win = _can_win_on(S, seat, t, ctx)
    return can_win, can_pung, can_pung and held >= 3


@nb.njit(cache=True, _nrt=False)
def pose(S, seat):
    """In a hand stopped at a resume point (O_PAUSE): put the question that point asks
    ``seat`` into its view as the engine would ask it, without asking (``simcore.inspection.review``,
    tests). Returns the question, or -1 when the point asks that seat nothing."""
    at = S[O_AT]
    v = _v(seat)
    cur = S[O_CUR]
    if at == AT_EXCHANGE or at == AT_VOID:
        q = Q_EXCHANGE if at == AT_EXCHANGE else Q_VOID
        if q == Q_EXCHANGE and not _r(S, R_EXCHANGE):
            return MINUS_ONE
    elif at == AT_ASK:
        if seat != cur:
            return MINUS_ONE
        can_win, mask = _turn_options(S, cur, S[O_DRAWN], S[O_PHASE])
        if S[O_LOCKED + cur] and not can_win and mask == 0:
            return MINUS_ONE
        q = Q_TURN
    elif at == AT_ROB:
        t = S[O_DISCARDED]
        ctx = CTX_ROBBING_KONG | (CTX_LAST_TILE if tiles_left(S) == 0 else 0)
        if seat == cur or S[O_OUT + seat] or not _can_win_on(S, seat, t, ctx):
            return MINUS_ONE
        _offer(S, seat, t, cur, ONE, ZERO, ZERO, ZERO)
        q = Q_ROB
    elif at == AT_CLAIMS:
        t = S[O_DISCARDED]
        if seat == cur or S[O_OUT + seat]:
            return MINUS_ONE
        last = tiles_left(S) == 0
        ctx = (CTX_LAST_TILE if last else 0) | (CTX_KONG_DISCARD if S[O_KONGED] else 0)
        can_win, can_pung, can_kong = _claim_options(S, seat, t, last, ctx)
        if not (can_win or can_pung):
            return MINUS_ONE
        _offer(S, seat, t, cur, I64(can_win), I64(can_pung), I64(can_kong), S[O_KONGED])
        q = Q_CLAIM
    else:
        return MINUS_ONE
    S[v + vw.V_QUESTION] = q
    S[v + vw.V_WALL_LEFT] = tiles_left(S)
    return q


# == agents outside the engine (ARCHITECTURE.md: Agents outside the engine) ===================
#
# Seats in O_AGENTS are answered from outside (``simcore.engine.agents``, ``simcore.env``):
# ``play_on`` stops at a resume point where one of them has a question with two or more legal
# answers (``_agent_stop``), its caller puts the answer in O_AGENT_ANS and plays on; a question
# with one legal answer is answered here. Masks are over ``simcore.contract.actions``.


@nb.njit(cache=True, _nrt=False)
def exchange_picks(S, seat, a, b):
    """Bit set of the tiles that may be the seat's next exchange pick after the picks a and b
    (-1: not made), picks in non-decreasing order: a tile of the first pick's suit, not below
    the latest, with enough of the tiles left from it up to complete three (RULES.md: One hand,
    step by step, step 2)."""
    out = ZERO
    n = (a >= 0) + (b >= 0)
    last = b if b >= 0 else a
    o = O_HAND + seat * N_KINDS
    for suit in range(N_SUITS):
        if n > 0 and suit != a // N_RANKS:
            continue
        room = ZERO   # tiles left from rank r up to the suit's end
        for r in range(N_RANKS - 1, -1, -1):
            t = suit * N_RANKS + r
            c = S[o + t] - (t == a) - (t == b)
            room += c
            if c > 0 and room >= 3 - n and t >= last:
                out |= ONE << (ACT_DISCARD + t)
    return out


@nb.njit(cache=True, _nrt=False)
def exchange_choices(S, seat, limit):
    """How many different three tiles the seat may pass, counted up to ``limit``."""
    n = ZERO
    m0 = exchange_picks(S, seat, MINUS_ONE, MINUS_ONE)
    for a in range(N_KINDS):
        if not (m0 >> a) & 1:
            continue
        m1 = exchange_picks(S, seat, I64(a), MINUS_ONE)
        for b in range(a, N_KINDS):
            if (m1 >> b) & 1:
                n += _popcount(exchange_picks(S, seat, I64(a), I64(b)))
                if n >= limit:
                    return n
    return n


@nb.njit(cache=True, inline="always")
def _popcount(x):
    n = ZERO
    while x != 0:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True, _nrt=False)
def legal_actions(S, seat, q):
    """Bit set of the legal actions (``simcore.contract.actions``) for question q, posed to the
    seat (its view holds the offer: ``pose``), from the checks the engine makes of an answer
    (``_legal_discard``, ``_kong_mask``, ``_claim_options``, ``_rob_window``, ``_choose_voids``).
    The exchange's first pick: ``exchange_picks``."""
    v = _v(seat)
    if q == Q_VOID:
        return I64(7) << ACT_VOID
    if q == Q_EXCHANGE:
        return exchange_picks(S, seat, MINUS_ONE, MINUS_ONE)
    m = ONE << ACT_PASS
    if S[v + vw.V_CAN_WIN]:
        m |= ONE << ACT_WIN
    if q == Q_ROB:
        return m
    if q == Q_CLAIM:
        if S[v + vw.V_CAN_PUNG]:
            m |= ONE << ACT_PUNG
        if S[v + vw.V_CAN_KONG]:
            m |= ONE << (ACT_KONG + S[v + vw.V_TILE])
        return m
    m = (S[v + vw.V_KONG_MASK] << ACT_KONG) | (m & (ONE << ACT_WIN))
    drawn = S[v + vw.V_TILE]
    for t in range(N_KINDS):
        if _legal_discard(S, seat, I64(t), drawn):
            m |= ONE << (ACT_DISCARD + t)
    return m


@nb.njit(cache=True, _nrt=False)
def has_choice(S, seat, q):
    """Question q, posed to the seat, has two or more legal answers."""
    if q == Q_EXCHANGE:
        return exchange_choices(S, seat, I64(2)) >= 2
    return _popcount(legal_actions(S, seat, q)) >= 2


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
def _lowest_bit(m):
    i = ZERO
    while i < 63 and not (m >> i) & 1:
        i += 1
    return i


@nb.njit(cache=True, _nrt=False)
def _claims(S, frm, t, kong_turn):
    """Claims on a discard, answered by all at once (RULES.md: One hand, step by step, step 4;
    RULES.md: Rulings where the documents are silent, claims): wins first and cancel any
    pung/kong; after the last tile only a win. Returns (``CLAIM_*``, seat): the winners are in
    the winners scratch; the seat is the pung's or kong's claimant. ``kong_turn``: ``frm``
    declared a kong in this turn (the kong_discard fan, ``kong_discard_liability``)."""
    last = tiles_left(S) == 0
    ctx = (CTX_LAST_TILE if last else 0) | (CTX_KONG_DISCARD if kong_turn else 0)
    _clear_winners(S)
    n_win = 0
    claim_seat = -1
    claim_kind = 0
    for i in range(1, 4):
        seat = (frm + i) % 4
        if S[O_OUT + seat]:
            continue
        can_win, can_pung, can_kong = _claim_options(S, seat, t, last, ctx)
        if not (can_win or can_pung):
            continue
        _offer(S, seat, t, frm, I64(can_win), I64(can_pung), I64(can_kong), I64(kong_turn))
        ans = _ask(S, seat, Q_CLAIM)
        if ans == C_WIN and can_win:
            S[O_WINNERS + n_win] = seat
            n_win += 1
            continue
        if ans == C_PASS or (ans == C_PUNG and can_pung) or (ans == C_KONG and can_kong):
            if can_win:
                _pass_win(S, I64(seat), t, frm,
                          CHOSE_PASS if ans == C_PASS else (CHOSE_PUNG if ans == C_PUNG else CHOSE_KONG), I64(ctx))
            if ans != C_PASS:
                claim_seat = seat
                claim_kind = ans
            continue
        _error(S, ERR_ILLEGAL, I64(seat), Q_CLAIM, ans)
        return CLAIM_ILLEGAL, MINUS_ONE
    if n_win > 0:
        liability = kong_turn and _r(S, R_KONG_DISCARD_LIABILITY) == KONG_LIABILITY_PAYS_FOR_ALL
        _settle_on_tile(S, I64(n_win), t, frm, WIN_DISCARD, I64(ctx), liability)
        return CLAIM_WINS, MINUS_ONE
    if claim_seat < 0:
        return CLAIM_NONE, MINUS_ONE
    S[O_CLEAN] = 0
    if claim_kind == C_PUNG:
        _add(S, claim_seat, t, I64(-2))
        S[_v(claim_seat) + vw.V_VISIBLE + t] += 2  # its two tiles, now in the set
        S[O_PILE + t] -= 1
        _show(S, t, I64(2), claim_seat)
        _add_meld(S, I64(claim_seat), M_PUNG, t)
        if _tracing(S):
            _log(S, EV_PUNG, I64(claim_seat), t, frm, ZERO, ZERO)
        return CLAIM_PUNG, I64(claim_seat)
    _declare_kong(S, I64(claim_seat), t, KONG_EXPOSED, frm)
    S[O_KONG_FEEDER] = frm + 1
    _set_all(S, vw.V_KONG_FEEDER, frm + 1)
    return CLAIM_KONG, I64(claim_seat)


@nb.njit(cache=True, _nrt=False)
def _wall_checks(S):
    """Drawn-hand checks at an exhausted wall (RULES.md: Settlement, wall exhausted, steps 1-3)."""
    rules = view_of(S, O_RULES, N_RULE_FIELDS)
    pats = view_of(S, O_PATS, N_PATTERNS)
    for s in range(4):
        if S[O_WINS + s] > 0:
            continue
        o_h = O_HAND + s * N_KINDS
        o_m = O_MELD_CNT + s * N_KINDS
        pig = _must_void(S, s)
        S[O_PIG + s] = 1 if pig else 0
        if pig:
            S[O_READY + s] = 0
            S[O_BEST + s] = 0
            S[O_WAITS + s] = 0
        else:
            k = S[O_N_MELDS + s]
            mask = waits_mask(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + s], k, view_of(S, o_m, N_KINDS))
            S[O_WAITS + s] = mask
            S[O_READY + s] = 1 if mask != 0 else 0
            S[O_BEST + s] = 0
            if mask != 0:
                S[O_BEST + s] = ready_value(_tab(S), view_of(S, o_h, N_KINDS), S[O_VOID + s], k, view_of(S, o_m, N_KINDS),
                                            S[O_N_KONGS + s], rules, pats)
        if _tracing(S):
            _log(S, EV_CHECK, I64(s), S[O_PIG + s], S[O_READY + s], S[O_WAITS + s], S[O_BEST + s])
    # 1. flower pigs
    for p in range(4):
        if S[O_PIG + p] != 1:
            continue
        for q in range(4):
            if q == p or S[O_PIG + q] == 1:
                continue
            won = S[O_WINS + q] > 0
            who = _r(S, R_PIG_PAYS)
            if who == PIG_PAYS_NON_PIGS:
                ok = True
            elif who == PIG_PAYS_REMAINING:
                ok = not won
            else:
                ok = won or S[O_READY + q] == 1
            if ok:
                _pay(S, I64(p), I64(q), _r(S, R_PIG_PENALTY), REASON_PIG)
    # 2. ready check
    if _r(S, R_READY_CHECK):
        for p in range(4):
            if S[O_READY + p] != 0:
                continue
            if S[O_PIG + p] == 1 and not _r(S, R_PIG_PAYS_READY_CHECK):
                continue
            for q in range(4):
                if S[O_READY + q] == 1:
                    _pay(S, I64(p), I64(q), S[O_BEST + q], REASON_NOT_READY)
    # 3. kong refunds
    if _r(S, R_KONG_REFUND):
        for p in range(4):
            if S[O_READY + p] != 0:
                continue
            for q in range(4):
                _pay(S, I64(p), I64(q), S[O_KONG_RECV + p * 4 + q], REASON_REFUND)


@nb.njit(cache=True, inline="always")
def _turn_options(S, seat, drawn, phase):
    if phase == PHASE_FIRST:
        can_win = _seat_wins(S, seat, MINUS_ONE)
    elif phase == PHASE_AFTER_PUNG:
        can_win = False
    else:
        can_win = S[O_DRAW_RDY + seat] == 1 and _seat_wins(S, seat, MINUS_ONE)
    mask = _kong_mask(S, seat, drawn)
    v = _v(seat)
    S[v + vw.V_QUESTION] = Q_TURN
    S[v + vw.V_TILE] = drawn
    S[v + vw.V_FROM] = -1
    S[v + vw.V_CAN_WIN] = 1 if can_win else 0
    S[v + vw.V_CAN_PUNG] = 0
    S[v + vw.V_CAN_KONG] = 0
    S[v + vw.V_KONG_MASK] = mask
    S[v + vw.V_MUST_VOID] = 1 if _must_void(S, seat) else 0
    S[v + vw.V_AFTER_PUNG] = 1 if phase == PHASE_AFTER_PUNG else 0
    S[v + vw.V_REPLACEMENT] = 1 if phase == PHASE_REPLACEMENT else 0
    return can_win, mask


@nb.njit(cache=True, inline="always")
def _legal_discard(S, seat, t, drawn):
    if t < 0 or t >= N_KINDS or S[O_HAND + seat * N_KINDS + t] <= 0:
        return False
    if S[O_LOCKED + seat] and t != drawn:
        return False
    if _must_void(S, seat) and t // N_RANKS != S[O_VOID + seat]:
        return False
    return True


@nb.njit(cache=True, _nrt=False)
def _discard(S, seat, t):
    """Move t from the seat's hand to its pile; every seat sees it."""
    if S[O_CHECK] and _must_void(S, seat) and t // N_RANKS != S[O_VOID + seat]:
        _error(S, ERR_INVARIANT, seat, Q_TURN, INV_VOID_DISCARD)
    _add(S, seat, t, MINUS_ONE)
    S[O_PILE + t] += 1
    cap = S[_v(seat) + vw.V_VOID_CAP + seat]  # the same in every view
    if t // N_RANKS != S[O_VOID + seat]:  # it held no void tile, or it would have had to discard one
        cap = 0
    elif cap > 0:
        cap -= 1
    for s in range(4):
        v = _v(s)
        S[v + vw.V_VISIBLE + t] += 1  # the discarder's own copy moved from hand to pile
        S[v + vw.V_VOID_CAP + seat] = cap
        if s == seat:
            S[v + vw.V_MUST_VOID] = 1 if _must_void(S, seat) else 0
        nd = S[v + vw.V_N_DISCARDS]
        if nd < vw.N_DISC_SEQ:
            S[v + vw.V_DISC_SEQ + nd] = vw.pack_discard(seat, t)
        S[v + vw.V_N_DISCARDS] = nd + 1
    if _tracing(S):
        _log(S, EV_DISCARD, seat, t, ZERO, ZERO, ZERO)


@nb.njit(cache=True, _nrt=False)
def _finish(S, reason):
    """End of hand: checks at an exhausted wall, and the zero-sum and payment invariants."""
    S[O_END_REASON] = reason
    if reason == END_WALL_EXHAUSTED:
        _wall_checks(S)
    if S[O_CHECK]:
        if S[O_NET] + S[O_NET + 1] + S[O_NET + 2] + S[O_NET + 3] != 0:
            _error(S, ERR_INVARIANT, MINUS_ONE, MINUS_ONE, INV_ZERO_SUM)
        if S[O_N_PAY] <= S[O_PCAP]:
            for s in range(4):
                acc = 0
                for i in range(S[O_N_PAY]):
                    o = S[O_OFF_PBUF] + i * N_PAY_FIELDS
                    if S[o + P_PAYER] == s:
                        acc -= S[o + P_AMOUNT]
                    if S[o + P_PAYEE] == s:
                        acc += S[o + P_AMOUNT]
                if acc != S[O_NET + s]:
                    _error(S, ERR_INVARIANT, I64(s), MINUS_ONE, INV_PAYMENTS)
    if _tracing(S):
        _log(S, EV_END, reason, tiles_left(S), S[O_NEXT_DEALER], ZERO, ZERO)


@nb.njit(cache=True, _nrt=False)
def _write_rows(S, row, hand_out, seat_out, win_out, pay_out):
    """Copy the hand's results into its output rows (buffers beyond the capacity are counted
    but not written; the caller re-runs with room)."""
    hand_out[row, H_DEALER] = S[O_DEALER]
    hand_out[row, H_EXCHANGE_DIR] = S[O_EXDIR]
    hand_out[row, H_END_REASON] = S[O_END_REASON]
    hand_out[row, H_TILES_LEFT] = tiles_left(S)
    n = 0
    for s in range(4):
        if S[O_WINS + s] > 0:
            n += 1
    hand_out[row, H_WINNERS] = n
    hand_out[row, H_TURNS] = S[O_TURNS]
    hand_out[row, H_NEXT_DEALER] = S[O_NEXT_DEALER]
    hand_out[row, H_N_WINS] = S[O_N_WINS]
    hand_out[row, H_N_PAYMENTS] = S[O_N_PAY]
    hand_out[row, H_ERROR] = S[O_ERR]
    hand_out[row, H_ERR_SEAT] = S[O_ERR + 1]
    hand_out[row, H_ERR_QUESTION] = S[O_ERR + 2]
    hand_out[row, H_ERR_ANSWER] = S[O_ERR + 3]
    hand_out[row, H_N_EVENTS] = S[O_N_EV]
    n_w = min(S[O_N_WINS], S[O_WCAP], win_out.shape[1])
    for w in range(n_w):
        o = S[O_OFF_WBUF] + w * N_WIN_FIELDS
        for f in range(N_WIN_FIELDS):
            win_out[row, w, f] = S[o + f]
    n_p = min(S[O_N_PAY], S[O_PCAP], pay_out.shape[1])
    for i in range(n_p):
        o = S[O_OFF_PBUF] + i * N_PAY_FIELDS
        for f in range(N_PAY_FIELDS):
            pay_out[row, i, f] = S[o + f]
    for s in range(4):
        seat_out[row, s, S_VOID] = S[O_VOID + s]
        seat_out[row, s, S_NET] = S[O_NET + s]
        seat_out[row, s, S_WINS] = S[O_WINS + s]
        w = S[O_FIRST_WIN + s]
        if 0 <= w < n_w:
            o = S[O_OFF_WBUF] + w * N_WIN_FIELDS
            seat_out[row, s, S_WIN_ORDER] = w + 1
            seat_out[row, s, S_WIN_KIND] = S[o + W_KIND]
            seat_out[row, s, S_FAN] = S[o + W_FAN]
            seat_out[row, s, S_BASE] = S[o + W_BASE]
        else:
            seat_out[row, s, S_WIN_ORDER] = -1 if w < 0 else w + 1
            seat_out[row, s, S_WIN_KIND] = -1
            seat_out[row, s, S_FAN] = -1
            seat_out[row, s, S_BASE] = -1
        seat_out[row, s, S_PIG] = S[O_PIG + s]
        seat_out[row, s, S_READY] = S[O_READY + s]
        seat_out[row, s, S_KONGS] = S[O_SEAT_KONGS + s]
        for i in range(N_REASONS):
            seat_out[row, s, S_NET_REASON + i] = S[O_NET_REASON + s * N_REASONS + i]
        seat_out[row, s, S_SCORE_BEFORE] = S[O_SCORE0 + s]
        seat_out[row, s, S_LUCK_LO] = S[O_LUCK + s] & 0xFFFFFFFF   # the luck's float64 bits, in two halves
        seat_out[row, s, S_LUCK_HI] = S[O_LUCK + s] >> 32
        for q in range(N_QUESTIONS):
            seat_out[row, s, S_ASKED + q] = S[O_ASKED + s * N_QUESTIONS + q]
        for k in range(N_SITUATIONS):
            seat_out[row, s, S_SITUATION + k] = S[O_SITUATIONS + s * N_SITUATIONS + k]


@nb.njit(cache=True, _nrt=False)
def _self_draw(S, cur, drawn, phase, dealer):
    """The seat wins on its own tiles: context, the set-aside tile, settlement."""
    ctx = CTX_SELF_DRAW
    kind = WIN_SELF_DRAW
    if phase == PHASE_REPLACEMENT:
        ctx |= CTX_KONG_REPLACEMENT
        kind = WIN_KONG_REPLACEMENT
    if tiles_left(S) == 0:
        ctx |= CTX_LAST_TILE
    if S[O_CLEAN]:
        if phase == PHASE_FIRST:
            ctx |= CTX_HEAVENLY
        elif phase == PHASE_DRAW and cur != dealer and S[O_DRAWS + cur] == 1:
            ctx |= CTX_EARTHLY
    if S[O_CHECK] and _must_void(S, cur):
        _error(S, ERR_INVARIANT, cur, Q_TURN, INV_VOID_WIN)
    tile = drawn if drawn >= 0 else _first_hand_tile_to_set_aside(S, cur)
    feeder = MINUS_ONE
    if phase == PHASE_REPLACEMENT and _r(S, R_EXPOSED_KONG_BLOOM) == BLOOM_FEEDER_PAYS:
        feeder = S[O_KONG_FEEDER] - 1   # -1 unless the turn began with an exposed kong
    _settle_self_draw(S, cur, I64(tile), kind, I64(ctx), I64(feeder))


@nb.njit(cache=True, _nrt=False)
def _after_wins(S, cur):
    """Where play goes after wins on a tile from ``cur``: (end reason or -1, next seat). After
    the winner furthest from ``cur`` in turn order (RULES.md: Rulings where the documents are silent, play after
    a win)."""
    if _three_won(S):
        return END_THREE_WON, cur
    if tiles_left(S) == 0:
        return END_WALL_EXHAUSTED, cur
    furthest = S[O_WINNERS]
    for i in range(4):
        w = S[O_WINNERS + i]
        if w >= 0 and (w - cur) % 4 > (furthest - cur) % 4:
            furthest = w
    return NO_END, next_active(S, furthest)


@nb.njit(cache=True, inline="always")
def _after_self_draw(S, cur):
    """Where play goes after ``cur``'s self-draw win: (end reason or NO_END, next seat)."""
    if _three_won(S):
        return END_THREE_WON, cur
    if tiles_left(S) == 0:
        return END_WALL_EXHAUSTED, cur
    return NO_END, next_active(S, cur)


@nb.njit(cache=True, inline="always")
def _turn_answer(S, cur, drawn, can_win, mask):
    """The seat's answer on its own turn: asked, unless it is a locked flow winner with no
    choice (it discards its drawn tile)."""
    if S[O_LOCKED + cur] and not can_win and mask == 0:
        _script_forced(S, cur, Q_TURN, drawn)
        return drawn
    return _ask(S, cur, Q_TURN)


@nb.njit(cache=True, inline="always")
def _added_kong(S, cur, t):
    """``cur`` adds t to its pung (RULES.md: Rulings where the documents are silent, added kong):
    the seats that can win on t may rob it first. Returns (robbed, end, next seat): robbed -1
    when an illegal answer stopped the hand; 1 when robbed (play goes on after the robber
    furthest from ``cur``, unless three have won); 0 when the kong stands, declared and paid."""
    if _tracing(S):
        _log(S, EV_KONG, cur, t, KONG_ADDED, MINUS_ONE, ZERO)
    n_rob = _rob_window(S, cur, t)
    if n_rob < 0:
        return MINUS_ONE, NO_END, cur
    if n_rob > 0:
        _check(S)
        if _three_won(S):
            return ONE, END_THREE_WON, cur
        return ONE, NO_END, next_active(S, S[O_WINNERS + n_rob - 1])
    _declare_kong(S, cur, t, KONG_ADDED, MINUS_ONE)
    return ZERO, NO_END, cur


@nb.njit(cache=True, inline="always")
def _after_discard(S, cur, t, kong_turn):
    """The claims on ``cur``'s discard t, then where play goes: (end reason or NO_END, next
    seat, how its turn starts)."""
    kind, seat = _claims(S, cur, t, kong_turn)
    _check(S)
    if kind == CLAIM_WINS:
        end, nxt = _after_wins(S, cur)
        return end, nxt, PHASE_DRAW
    if kind == CLAIM_PUNG:
        return NO_END, seat, PHASE_AFTER_PUNG
    if kind == CLAIM_KONG:
        return NO_END, seat, PHASE_REPLACEMENT
    if kind == CLAIM_ILLEGAL or tiles_left(S) > 0:  # an illegal answer: the error stops the hand
        return NO_END, next_active(S, cur), PHASE_DRAW
    return END_WALL_EXHAUSTED, cur, PHASE_DRAW


@nb.njit(cache=True, _nrt=False)
def play_hand(S, dealer, fixed_dir):
    """Play the hand whose seed, index, scores before it (and, for scenarios, wall) are in S's
    header (RULES.md: One hand, step by step); returns the next dealer (RULES.md: One hand,
    step by step, step 8), or PAUSED when O_PAUSE stopped it. The results stay in S until
    ``_write_rows``."""
    _reset(S, dealer)
    _shuffle(S)
    _deal(S, dealer)
    _check(S)
    S[O_AT] = AT_EXCHANGE
    return play_on(S, fixed_dir)


@nb.njit(cache=True, inline="always")
def _pause(S, at, cur, phase, drawn, konged, t):
    """At a resume point: count it down when a pause is set; at zero keep where play stands in
    S (O_AT ...) and tell ``play_on`` to return. With agents outside the engine, stop where one
    has a choice. Shadowing, count it."""
    S[O_SH_RP] += 1
    p = S[O_PAUSE]
    if p == 0:
        return False
    if p < 0:   # agents outside the engine
        _keep_point(S, at, cur, phase, drawn, konged, t)
        return _agent_stop(S)
    S[O_PAUSE] = p - 1
    if p > 1:
        return False
    _keep_point(S, at, cur, phase, drawn, konged, t)
    return True


@nb.njit(cache=True, inline="always")
def _keep_point(S, at, cur, phase, drawn, konged, t):
    """Where play stands, into S (O_AT ...), for ``play_on`` to go on from."""
    S[O_AT] = at
    S[O_CUR] = cur
    S[O_PHASE] = phase
    S[O_DRAWN] = drawn
    S[O_KONGED] = 1 if konged else 0
    S[O_DISCARDED] = t


@nb.njit(cache=True, _nrt=False)
def play_on(S, fixed_dir):
    """Play the hand in S on from its resume point (O_AT and the slots after it) to its end:
    the whole hand after ``_deal`` (AT_EXCHANGE), or a copied or sampled state stopped at any
    question (ARCHITECTURE.md: A hand that resumes). Returns as ``play_hand``."""
    dealer = S[O_DEALER]
    at = S[O_AT]
    cur = S[O_CUR]
    phase = S[O_PHASE]
    drawn = S[O_DRAWN]
    kong_turn = S[O_KONGED] != 0
    t = S[O_DISCARDED]
    if at == AT_EXCHANGE:
        if _pause(S, AT_EXCHANGE, cur, phase, drawn, kong_turn, t):
            return PAUSED
        if _r(S, R_EXCHANGE):
            if not _exchange(S, fixed_dir):
                S[O_AT] = AT_END
                return dealer
            _check(S)
        at = AT_VOID
    if at == AT_VOID:
        if _pause(S, AT_VOID, cur, phase, drawn, kong_turn, t):
            return PAUSED
        if not _choose_voids(S):
            S[O_AT] = AT_END
            return dealer
        cur = dealer
        phase = PHASE_FIRST
        at = AT_TURN
    end = NO_END
    while end < 0 and S[O_ERR] == ERR_NONE:
        # a turn: a draw (none on the dealer's first turn or after a pung), then win, kong
        # (a replacement, and again), or discard
        if at == AT_TURN:
            kong_turn = phase == PHASE_REPLACEMENT  # the turn began with an exposed kong
            if not kong_turn and (S[O_TURN_KONG_SEAT] != 0 or S[O_KONG_FEEDER] != 0):
                S[O_TURN_KONG_SEAT] = 0  # no kong of this turn yet, and no feeder
                S[O_KONG_FEEDER] = 0
                _set_all(S, vw.V_TURN_KONG_SEAT, ZERO)
                _set_all(S, vw.V_KONG_FEEDER, ZERO)
            drawn = _draw(S, cur, I64(kong_turn)) if phase == PHASE_DRAW or kong_turn else NO_TILE
            _check(S)
            at = AT_ASK
        discarded = at == AT_CLAIMS
        while not discarded and S[O_ERR] == ERR_NONE:
            if at == AT_ROB:   # going on at the robbing of the kong of t
                k = t
                added = True
                mask = ZERO
                ans = MINUS_ONE
                at = AT_ASK
            else:
                if _pause(S, AT_ASK, cur, phase, drawn, kong_turn, t):
                    return PAUSED
                can_win, mask = _turn_options(S, cur, drawn, phase)
                ans = _turn_answer(S, cur, drawn, can_win, mask)
                if ans == A_WIN and can_win:
                    _self_draw(S, cur, drawn, phase, dealer)
                    _check(S)
                    end, cur = _after_self_draw(S, cur)
                    phase = PHASE_DRAW
                    break
                k = ans - A_KONG
                added = False
                if 0 <= k < N_KINDS and (mask >> k) & 1:
                    added = _find_pung(S, cur, k) >= 0 and S[O_LOCKED + cur] == 0
                    if added and _pause(S, AT_ROB, cur, phase, drawn, kong_turn, k):
                        return PAUSED
            if added or (0 <= k < N_KINDS and (mask >> k) & 1):
                if added:
                    robbed, end, nxt = _added_kong(S, cur, k)
                    if robbed != 0:
                        cur = nxt
                        phase = PHASE_DRAW
                        break
                else:
                    _declare_kong(S, cur, k, KONG_CONCEALED, MINUS_ONE)
                kong_turn = True
                phase = PHASE_REPLACEMENT
                drawn = _draw(S, cur, ONE)
                _check(S)
                continue
            if not _legal_discard(S, cur, ans, drawn):
                _error(S, ERR_ILLEGAL, cur, Q_TURN, ans)
                break
            _discard(S, cur, ans)
            _check(S)
            t = ans
            discarded = True
        at = AT_TURN
        if discarded:
            if _pause(S, AT_CLAIMS, cur, phase, drawn, kong_turn, t):
                return PAUSED
            end, cur, phase = _after_discard(S, cur, t, kong_turn)
    S[O_AT] = AT_END
    if (S[O_ERR] == ERR_NONE or S[O_ERR] == ERR_INVARIANT) and end >= 0:
        _finish(S, end)
    return S[O_NEXT_DEALER]


# == batches ==================================================================================

BLOCK = 64
FIT_LEN = N_FEATURES * N_FEATURES + N_FEATURES + 3   # play_fit's sums of a block


@nb.njit(cache=True, _nrt=False)
def _init_header(S, R, seed, win_cap, pay_cap, check):
    """The header of a batch block's S: buffers right after the views, no script, no log."""
    S[O_OFF_WBUF] = O_FIXED_END
    S[O_OFF_PBUF] = O_FIXED_END + win_cap * N_WIN_FIELDS
    S[O_OFF_SCRIPT] = S[O_OFF_PBUF] + pay_cap * N_PAY_FIELDS
    S[O_OFF_LOG] = S[O_OFF_SCRIPT]
    S[O_WCAP] = win_cap
    S[O_PCAP] = pay_cap
    S[O_SCRIPT_LEN] = 0
    S[O_LOG_CAP] = 0
    S[O_CHECK] = 1 if check else 0
    S[O_SEED] = seed
    S[O_REVEALED_ROWS] = ALL_SEATS
    S[O_FIXED_WALL_N] = 0
    for i in range(min(R.shape[0], N_RULE_FIELDS + 1)):
        S[O_RULES + i] = R[i]
    if R.shape[0] > N_RULE_FIELDS + 1:
        S[O_LUCK_ON] = R[N_RULE_FIELDS + 1]
        for i in range(N_FEATURES):
            S[O_VALUE + i] = R[N_RULE_FIELDS + 2 + i]


@nb.njit(cache=True)
def _store_strategies(S, at, fns):
    """The twelve strategies' addresses (``nrt.strategy_addresses``) at S[at:at + 24], laid out as O_FNS."""
    for i in range(12):
        jit, c = strategy_addresses(fns[i])
        S[at + 2 * i] = jit
        S[at + 2 * i + 1] = c


@nb.njit(cache=True)
def _start_block(S, A, R, seed, win_cap, pay_cap, check, tab, fns, setup, rfns, arena):
    """A batch block's S (and its arena A, ``_arena_len(arena)`` slots): header, players, arenas."""
    _init_header(S, R, seed, win_cap, pay_cap, check)
    _set_players(S, tab, fns, setup)
    _set_arenas(S, A, rfns, arena)


@nb.njit(cache=True)
def _set_players(S, tab, fns, setup):
    """The table's and the twelve strategies' addresses into the header (``nrt``), and what every
    view holds for the whole block: the rules, and each seat's strategies' parameters and scratch
    use (``setup``: ``view.SETUP_LEN`` slots, ``strategies.registry.setup_of``). The caller keeps ``tab``
    and ``fns`` alive while S is used."""
    S[O_TAB] = address_of(data_ptr(tab))
    S[O_TAB_LEN] = tab.shape[0]
    _store_strategies(S, O_FNS, fns)
    for s in range(4):
        v = _v(s)
        for i in range(N_RULE_FIELDS):
            S[v + vw.V_RULES + i] = S[O_RULES + i]
        for i in range(3 * vw.N_PARAMS):
            S[v + vw.V_PARAMS + i] = setup[s * 3 * vw.N_PARAMS + i]
        S[O_SCRATCH_USE + s] = min(max(setup[vw.SETUP_SCRATCH + s], 0), vw.N_SCRATCH)


@nb.njit(cache=True)
def _arena_len(arena):
    n = 0
    for s in range(4):
        n += max(arena[s * AR_HEADER + AR_LEN], 0)
    return max(n, 1)


@nb.njit(cache=True)
def _set_arenas(S, A, rfns, arena):
    """Each searching seat's arena (``simcore.contract.arena``) in A: its template from ``arena``
    (``strategies.registry.Players.arena``), its rollout players' addresses from ``rfns``
    ([group*4 + seat]: the seat's rollout policy), its address in the header for the views."""
    off = 0
    base = address_of(A)
    for s in range(4):
        n = arena[s * AR_HEADER + AR_LEN]
        S[O_ARENA + s] = 0
        if n <= 0:
            continue
        for i in range(AR_HEADER):
            A[off + i] = arena[s * AR_HEADER + i]
        for g in range(3):
            jit, c = strategy_addresses(rfns[g * 4 + s])
            for x in range(4):
                A[off + AR_FNS + 2 * (g * 4 + x)] = jit
                A[off + AR_FNS + 2 * (g * 4 + x) + 1] = c
        S[O_ARENA + s] = base + 8 * off
        off += n
    for s in range(4):
        S[_v(s) + vw.V_ARENA] = S[O_ARENA + s]


_I64T = nb.types.int64
_FNS = nb.types.UniTuple(vw.STRATEGY_TYPE, 12)
_OUT2 = nb.types.int32[:, ::1]
_OUT3 = nb.types.int32[:, :, ::1]
SIG_BATCH = nb.types.void(nb.types.uint8[::1], _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _I64T, _I64T, _I64T,
                          nb.types.boolean, nb.types.boolean, _OUT2, _OUT3, _OUT3, _OUT3)
SIG_SHADOWED = nb.types.void(nb.types.uint8[::1], _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1],
                             _I64T, _I64T, _I64T, _I64T, nb.types.boolean, _OUT2, _OUT3, _OUT3, _OUT3, _OUT2, _OUT3,
                             _OUT3, _OUT3, nb.types.boolean[:, ::1])
SIG_FIT = nb.types.void(nb.types.uint8[::1], _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _I64T, _I64T, _I64T,
                        nb.types.float64[:, ::1])
SIG_TRACED = nb.types.void(nb.types.uint8[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _I64T, _I64T[::1], _I64T[::1],
                           _I64T, _I64T[::1], _OUT2, _OUT3, _OUT3, _OUT3)


@nb.njit(cache=True, parallel=True, nogil=True)
def play_batch(tab, R, fns, setup, rfns, arena, seed, first, n_items, match_mode, check, hand_out, seat_out, win_out,
               pay_out):
    """Play ``n_items`` independent hands (global indices first..) or matches (first..) into the
    output rows. Independent hand g is dealt by seat g mod 4. A match plays
    ``hands_per_match`` hands from ``start_points``, seat 0 dealing first, the next dealer by
    RULES.md; its hand j has global index match * hands_per_match + j. Results do not depend
    on thread count or block size: every hand is reset and seeded by its global index. It
    releases the GIL, so a writer thread can encode the previous chunk meanwhile. ``rfns`` and
    ``arena``: the searching seats' rollout players and arenas (``strategies.registry.Players``)."""
    hpm = R[R_HANDS_PER_MATCH] if match_mode else 1
    n_blocks = (n_items + BLOCK - 1) // BLOCK
    win_cap = win_out.shape[1]
    pay_cap = pay_out.shape[1]
    s_len = O_FIXED_END + win_cap * N_WIN_FIELDS + pay_cap * N_PAY_FIELDS
    tab = unowned(tab)
    hand_out = unowned(hand_out)
    seat_out = unowned(seat_out)
    win_out = unowned(win_out)
    pay_out = unowned(pay_out)
    no_dir = I64(0)
    for b in nb.prange(n_blocks):
        S_own = np.zeros(s_len, np.int64)
        S = data_ptr(S_own)
        A_own = np.zeros(_arena_len(arena), np.int64)
        _start_block(S, data_ptr(A_own), R, seed, I64(win_cap), I64(pay_cap), check, tab, fns, setup, rfns, arena)
        lo = b * BLOCK
        hi = min(lo + BLOCK, n_items)
        for item in range(lo, hi):
            if match_mode:
                m = first + item
                dealer = I64(0)
                for s in range(4):
                    S[O_SCORES_IN + s] = R[R_START_POINTS]
                for j in range(hpm):
                    S[O_G] = m * hpm + j
                    dealer = play_hand(S, dealer, no_dir)
                    _write_rows(S, item * hpm + j, hand_out, seat_out, win_out, pay_out)
                    for s in range(4):
                        S[O_SCORES_IN + s] += S[O_NET + s]
                    if S[O_ERR] != ERR_NONE:
                        break
            else:
                g = first + item
                S[O_G] = g
                play_hand(S, g % 4, no_dir)
                _write_rows(S, item, hand_out, seat_out, win_out, pay_out)
        S_own[0] += 0  # keep the owners alive past the last use of their pointers
        A_own[0] += 0


@nb.njit(cache=True)
def _seat_arm(S, r, arm_fns, arm_setup, scratch, rng):
    """Seat the arm at seat r of a hand stopped at a resume point: its strategies, parameters,
    scratch use, and the scratch and random counter its shadow had there."""
    for g in range(3):
        jit, c = strategy_addresses(arm_fns[g * 4 + r])
        S[O_FNS + 2 * (g * 4 + r)] = jit
        S[O_FNS + 2 * (g * 4 + r) + 1] = c
    v = _v(r)
    for i in range(3 * vw.N_PARAMS):
        S[v + vw.V_PARAMS + i] = arm_setup[r * 3 * vw.N_PARAMS + i]
    S[O_SCRATCH_USE + r] = min(max(arm_setup[vw.SETUP_SCRATCH + r], 0), vw.N_SCRATCH)
    for i in range(vw.N_SCRATCH):
        S[v + vw.V_SCRATCH + i] = scratch[i]
    S[v + vw.V_RNG_COUNT] = rng


@nb.njit(cache=True, parallel=True, nogil=True)
def play_shadowed(tab, R, fns, setup, rfns, arena, arm_fns, arm_setup, same, seed, first, n_items, check, hand_out,
                  seat_out, win_out, pay_out, arm_hand, arm_seat, arm_win, arm_pay, differed):
    """Independent hands first.. of the field (``fns``) into the output rows, and of the arm
    (``arm_fns``, ``arm_setup``: its strategies as if it sat at every seat) at each seat r in turn
    (rotation r, the field at the other seats) into rows r * n_items + item of the arm's outputs,
    written only where the rotation differed (``differed[item, r]``; elsewhere the arm's hand is
    the field's, hand for hand). ``same``: bit g set where the arm's group-g strategy and
    parameters are the field's. The seats may not search (their arenas are not shadowed)."""
    n_blocks = (n_items + BLOCK - 1) // BLOCK
    win_cap = win_out.shape[1]
    pay_cap = pay_out.shape[1]
    s_len = O_FIXED_END + win_cap * N_WIN_FIELDS + pay_cap * N_PAY_FIELDS
    tab = unowned(tab)
    hand_out = unowned(hand_out)
    seat_out = unowned(seat_out)
    win_out = unowned(win_out)
    pay_out = unowned(pay_out)
    arm_hand = unowned(arm_hand)
    arm_seat = unowned(arm_seat)
    arm_win = unowned(arm_win)
    arm_pay = unowned(arm_pay)
    for b in nb.prange(n_blocks):
        S_own = np.zeros(s_len, np.int64)
        S = data_ptr(S_own)
        A_own = np.zeros(_arena_len(arena), np.int64)
        _start_block(S, data_ptr(A_own), R, seed, I64(win_cap), I64(pay_cap), check, tab, fns, setup, rfns, arena)
        _store_strategies(S, O_SH_FNS, arm_fns)
        for i in range(vw.SETUP_LEN):
            S[O_SH_SETUP + i] = arm_setup[i]
        S[O_SH_SAME] = same
        saved = np.zeros((4, 3 + vw.N_SCRATCH), np.int64)   # per seat: done, resume points, counter, scratch
        for item in range(b * BLOCK, min(b * BLOCK + BLOCK, n_items)):
            g = first + item
            S[O_G] = g
            S[O_SH_ON] = 1
            play_hand(S, g % 4, I64(0))
            S[O_SH_ON] = 0
            _write_rows(S, item, hand_out, seat_out, win_out, pay_out)
            for r in range(4):
                saved[r, 0] = S[O_SH_DONE + r]
                saved[r, 1] = S[O_SH_K + r]
                saved[r, 2] = S[O_SH_RNG + r]
                for i in range(vw.N_SCRATCH):
                    saved[r, 3 + i] = S[O_SH_SCR + r * vw.N_SCRATCH + i]
            for r in range(4):
                differed[item, r] = saved[r, 0] == SH_DIFFERED
                if saved[r, 0] != SH_DIFFERED:
                    continue
                S[O_PAUSE] = saved[r, 1]
                play_hand(S, g % 4, I64(0))     # the field's hand again, up to the resume point
                S[O_PAUSE] = 0
                _seat_arm(S, r, arm_fns, arm_setup, saved[r, 3:], saved[r, 2])
                play_on(S, I64(0))
                _write_rows(S, r * n_items + item, arm_hand, arm_seat, arm_win, arm_pay)
                _set_players(S, tab, fns, setup)
        S_own[0] += 0
        A_own[0] += 0


@nb.njit(cache=True, parallel=True, nogil=True)
def play_fit(tab, R, fns, setup, rfns, arena, seed, first, n_items, sums):
    """Play independent hands first.. with each seat's luck per feature recorded (``R`` must
    measure luck: ``engine_rules`` with weights): block b adds its hands' sums to ``sums[b]``
    (``FIT_LEN`` floats: X'X, X'y, then the nets' count, sum and sum of squares;
    ``simcore.runs.value_model`` sums the blocks and solves). Results do not depend on thread
    count: each block sums its own hands."""
    n_blocks = (n_items + BLOCK - 1) // BLOCK
    s_len = O_FIXED_END
    tab = unowned(tab)
    for b in nb.prange(n_blocks):
        S_own = np.zeros(s_len, np.int64)
        S = data_ptr(S_own)
        A_own = np.zeros(_arena_len(arena), np.int64)
        _start_block(S, data_ptr(A_own), R, seed, ZERO, ZERO, False, tab, fns, setup, rfns, arena)
        S[O_FIT] = address_of(data_ptr(sums[b]))
        for item in range(b * BLOCK, min(b * BLOCK + BLOCK, n_items)):
            S[O_G] = first + item
            play_hand(S, (first + item) % 4, I64(0))
            fit_hand(S)
        S_own[0] += 0
        A_own[0] += 0


@nb.njit(cache=True)
def play_traced(tab, fns, setup, rfns, arena, dealer, scores0, fixed_wall, fixed_dir, S, hand_out, seat_out, win_out,
                pay_out):
    """One hand with its event log on (traces, scenarios): the same ``play_hand`` as the batch.
    S must be laid out by ``layout`` with its header filled (see ``simcore.inspection.trace``). Compiled
    for ``SIG_TRACED`` by ``traced()`` when first needed, so a simulation never compiles it."""
    P = data_ptr(S)
    _set_players(P, tab, fns, setup)
    A_own = np.zeros(_arena_len(arena), np.int64)
    _set_arenas(P, data_ptr(A_own), rfns, arena)
    for s in range(4):
        P[O_SCORES_IN + s] = scores0[s]
    P[O_FIXED_WALL_N] = fixed_wall.shape[0] if fixed_wall.shape[0] == N_TILES else 0
    for i in range(P[O_FIXED_WALL_N]):
        P[O_FIXED_WALL + i] = fixed_wall[i]
    if P[O_AT] == AT_END:  # a new hand (O_PAUSE may stop it at a resume point)
        play_hand(P, dealer, fixed_dir)
    else:  # a hand stopped at a resume point goes on
        play_on(P, fixed_dir)
    _write_rows(P, I64(0), hand_out, seat_out, win_out, pay_out)
    A_own[0] += 0


def _compiled_for(kernel, sig):
    """``kernel`` compiled for ``sig`` (from numba's cache when it can) and closed to other
    signatures, as an eagerly compiled kernel is, but only when first needed."""
    if sig.args not in kernel.overloads:
        kernel.compile(sig)
        kernel.disable_compile()
    return kernel


def batch_kernel():
    """``play_batch`` for ``SIG_BATCH``. Compiled when first needed, not on import: a process
    that only compiles strategies (``simcore.runs.warmup``'s child, which imports the engine through
    the search player) leaves it alone."""
    return _compiled_for(play_batch, SIG_BATCH)


def shadowed_kernel():
    """``play_shadowed`` for ``SIG_SHADOWED``, compiled when a duplicate first shadows an arm."""
    return _compiled_for(play_shadowed, SIG_SHADOWED)


def fit_kernel():
    """``play_fit`` for ``SIG_FIT``, compiled when a value model is first fitted."""
    return _compiled_for(play_fit, SIG_FIT)


def traced():
    """``play_traced`` for ``SIG_TRACED``, so a simulation never compiles it."""
    return _compiled_for(play_traced, SIG_TRACED)
