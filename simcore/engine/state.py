"""The engine's state array ``S``, declared as data: every field's name, length, region and what a
rollout does with it, in slot order; the offsets ``O_*`` are generated from the table.

Everything a hand needs lives in one flat int64 array (ARCHITECTURE.md: The state array): a header
kept across the hands of a block, the hand's state, the four views, work copies of a view, then the
variable buffers (wins, payments, a scenario's script, the event log) whose offsets and capacities
the header holds (``layout``). A field added here moves the fields after it and nothing else; where
it goes says what clears it:

- ``IN_HEADER``: written when a block, a batch or a traced hand starts (``entry``), kept by ``_reset``;
- ``IN_WALL``: the shuffled wall, rewritten whole by each hand's shuffle, so ``_reset`` leaves it;
- ``IN_HAND``: the hand's state, zeroed by ``_reset`` at every hand (one stretch: ``HAND_START`` to
  ``HAND_END``, both derived from the table), then set where a hand starts otherwise;
- ``IN_VIEWS``: the four seats' views (``simcore.contract.view``; ``_reset`` clears what it says);
- ``IN_WORK``: copies of a view made before each use (check mode, shadowing).

The ``rollout`` column says what a searching seat's sampled table (``simcore.engine.sample``,
``_fill_state`` on a zeroed state) must do with the field: ``REBUILT`` fields it writes (from the
view, the sample or the arena, or through ``_recount``), ``LEFT_ZERO`` fields it leaves at zero, which
is right for a rollout (the field's text says why where it is not obvious).
``tests/engine/test_state.py`` checks both ways, and that the regions are contiguous.

This module holds constants only (no jitted code): ``simcore.numba_cache.CONSTANT_MODULES`` lists
it, so an edit here starts a fresh compiled cache.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore.contract import view as vw
from simcore.contract.records import LOG_WIDTH, N_PAY_FIELDS, N_QUESTIONS, N_REASONS, N_SITUATIONS, N_WIN_FIELDS
from simcore.contract.rules import DRAW_ORDERS, N_RULE_FIELDS
from simcore.contract.tiles import DEALER_TILES, HAND_TILES, N_KINDS, N_SUITS, N_TILES
from simcore.engine.luck import N_FEATURES
from simcore.engine.options import OPT_DRAW_ORDER, OPT_LUCK_ON, OPT_VALUE

I64 = np.int64
ZERO, ONE, MINUS_ONE = I64(0), I64(1), I64(-1)
NO = np.bool_(False)
IN_HEADER, IN_WALL, IN_HAND, IN_VIEWS, IN_WORK = "header", "wall", "hand", "views", "work"  # regions
REGIONS = (IN_HEADER, IN_WALL, IN_HAND, IN_VIEWS, IN_WORK)
REBUILT, LEFT_ZERO = "rebuilt", "zero"  # what a rollout does with a field

N_RULE_SLOTS = vw.N_RULE_SLOTS  # header room for the rule array, as the view's
N_PAT_SLOTS = 16            # header room for a win's patterns
VIEW_LEN = vw.VIEW_LEN


class Field(NamedTuple):
    name: str       # its offset's name, O_*
    length: int     # slots
    region: str     # one of REGIONS
    rollout: str    # REBUILT or LEFT_ZERO in a sampled table
    doc: str


# a scenario script entry's question plus this is used only where the question has a choice
# (``ask._ask_seat``): an agent's recorded answers (``simcore.env.Tables.trace``)
SCRIPT_AT_CHOICE = 16


def _f(name, length, region, rollout, doc=""):
    return Field(name, length, region, rollout, doc)


H, Z, R = IN_HEADER, LEFT_ZERO, REBUILT
STATE_FIELDS = (
    # -- header (kept across hands) -------------------------------------------------------------
    _f("O_OFF_WBUF", 1, H, R, "offset of the wins buffer"),
    _f("O_OFF_PBUF", 1, H, R, "offset of the payments buffer"),
    _f("O_OFF_SCRIPT", 1, H, R, "offset of the script: [seat][i] (question, -1, answer) triples"),
    _f("O_OFF_LOG", 1, H, R, "offset of the event log"),
    _f("O_WCAP", 1, H, Z, "wins buffer capacity (a rollout writes no rows)"),
    _f("O_PCAP", 1, H, Z, "payments buffer capacity"),
    _f("O_SCRIPT_LEN", 1, H, R, "script entries per seat (a rollout's one forced answer, ``set_answer``)"),
    _f("O_LOG_CAP", 1, H, Z, "event log rows (0: not tracing)"),
    _f("O_CHECK", 1, H, R, "1: check invariants after every step"),
    _f("O_SEED", 1, H, R, "the run's seed (a rollout's own)"),
    _f("O_G", 1, H, R, "global hand index (a rollout's k)"),
    _f("O_REVEALED_ROWS", 1, H, Z, "bit s: seat s's revealed row in every view must be cleared next hand "
                                   "(a rollout's views are written whole)"),
    _f("O_TAB", 1, H, R, "address of the suit tables (``nrt.address_of``)"),
    _f("O_TAB_LEN", 1, H, R, "their length"),
    _f("O_FIXED_WALL_N", 1, H, Z, "N_TILES when the next hand's wall is the one at O_FIXED_WALL (scenarios), else 0"),
    _f("O_LOG_SPARE", 1, H, Z, "where log cells beyond the log's capacity land (never read)"),
    _f("O_RULES", N_RULE_SLOTS, H, R, "the rule set (``RuleSet.to_array``), N_RULE_FIELDS slots"),
    _f("O_PATS", N_PAT_SLOTS, H, Z, "scratch: a win's patterns"),
    _f("O_WINNERS", 8, H, Z, "scratch: the seats winning on one tile"),
    _f("O_FNS", 24, H, R, "[2 * (group*4 + seat)]: a strategy's ``nrt.strategy_addresses``; group 0 play, "
                          "1 exchange, 2 void (a rollout's: the arena's players)"),
    _f("O_SCORES_IN", 4, H, R, "[seat] scores before the next hand"),
    _f("O_SCRATCH_USE", 4, H, R, "[seat] scratch slots its strategies use (zeroed each hand)"),
    _f("O_PAUSE", 1, H, Z, "> 0: ``play_on`` stops at that resume point (counting from 1); 0: never; "
                           "AGENTS_PAUSE: where a seat of O_AGENTS has a choice (``_agent_stop``)"),
    _f("O_ARENA", 4, H, Z, "[seat] address of the seat's search arena (``simcore.contract.arena``), 0: none "
                           "(rollout players do not search)"),
    _f("O_FIXED_WALL", N_TILES, H, Z, "a scenario's wall"),
    _f("O_SWAPS", N_TILES, H, Z, "scratch: the shuffle's swap partners [i], i = 1..WALL_LAST"),
    # the run's options (``simcore.engine.options``; not rules: the views never see them)
    _f("O_DRAW_ORDER", 1, H, Z, "how draws take wall positions: ORDER_TABLE or ORDER_SEAT (a rollout draws in "
                                "table order, 0)"),
    _f("O_LUCK_ON", 1, H, Z, "1: the hands measure each seat's luck (``simcore.engine.luck_terms``)"),
    _f("O_VALUE", N_FEATURES, H, Z, "the value model's weights (``luck``), N_FEATURES float64 bits"),
    _f("O_FIT", 1, H, Z, "address of the value-model fit sums (float64), 0: not fitting"),
    _f("O_SH_ON", 1, H, Z, "1: every seat's questions are also put to an arm's strategies (``shadow``)"),
    _f("O_SH_FNS", 24, H, Z, "the arm's strategies' addresses, laid out as O_FNS"),
    _f("O_SH_SETUP", vw.SETUP_LEN, H, Z, "the arm's setup (``view.SETUP_LEN`` slots: parameters, scratch use)"),
    _f("O_SH_SAME", 1, H, Z, "bit g: the arm's group-g strategy and parameters are the seat's own"),
    _f("O_AGENTS", 1, H, Z, "bit s: seat s is answered from outside (``simcore.engine.agents``; with O_PAUSE = "
                            "AGENTS_PAUSE, ``play_on`` stops where it has a choice)"),
    _f("O_AGENT_ANS", 4, H, Z, "[seat] the answer given from outside to its next question (-1: none yet)"),
    _f("O_AGENT_SKIP", 1, H, Z, "1: the resume point play goes on from is not a stop again"),
    # -- the wall (rewritten whole by each hand's shuffle) ---------------------------------------
    _f("O_WALL", N_TILES, IN_WALL, R, "N_TILES tiles in shuffled order (a rollout's: the unseen tiles it dealt "
                                   "to the wall, at the positions still to draw)"),
    # -- the hand's state (zeroed at the start of every hand) ------------------------------------
    _f("O_HAND", 4 * N_KINDS, IN_HAND, R, "[seat*N_KINDS + t] concealed counts"),
    _f("O_CODES", 4 * N_SUITS, IN_HAND, R, "[seat*N_SUITS + suit] base-5 suit codes of the concealed tiles"),
    _f("O_MELD_KIND", 16, IN_HAND, R, "[seat*4 + i] declared sets' kinds (view.M_*)"),
    _f("O_MELD_TILE", 16, IN_HAND, R, "[seat*4 + i] their tiles"),
    _f("O_N_MELDS", 4, IN_HAND, R, "[seat]"),
    _f("O_MELD_CNT", 4 * N_KINDS, IN_HAND, R, "[seat*N_KINDS + t] tiles in declared sets"),
    _f("O_N_KONGS", 4, IN_HAND, R, "[seat] kongs among the declared sets"),
    _f("O_PILE", N_KINDS, IN_HAND, R, "[t] tiles lying in discard piles (a rollout's: with the set-aside ones)"),
    _f("O_ASIDE", N_KINDS, IN_HAND, Z, "[t] winning tiles set aside (a rollout counts them as piled)"),
    _f("O_VOID", 4, IN_HAND, R, "[seat] void suit, NO_VOID until declared"),
    _f("O_WINS", 4, IN_HAND, R, "[seat] wins this hand"),
    _f("O_OUT", 4, IN_HAND, R, "[seat] left the hand (battle)"),
    _f("O_LOCKED", 4, IN_HAND, R, "[seat] blood-flow lock"),
    _f("O_PASSLOCK", 4, IN_HAND, Z, "[seat] passed-win lock (until the seat's next draw; private: taken as none)"),
    _f("O_DRAWS", 4, IN_HAND, R, "[seat] draws this hand"),
    _f("O_KONG_RECV", 16, IN_HAND, R, "[payee*4 + payer] kong income, for refunds"),
    _f("O_NET", 4, IN_HAND, Z, "[seat] (a rollout's: from its question on)"),
    _f("O_NET_REASON", 4 * N_REASONS, IN_HAND, Z, "[seat*N_REASONS + reason]"),
    _f("O_SCORE0", 4, IN_HAND, R, "[seat] scores before the hand"),
    _f("O_PIG", 4, IN_HAND, R, "[seat] -1 not checked, 0/1"),
    _f("O_READY", 4, IN_HAND, R, "[seat] -1 not checked, 0/1"),
    _f("O_BEST", 4, IN_HAND, Z, "[seat] ready value at the check"),
    _f("O_FIRST_WIN", 4, IN_HAND, R, "[seat] index of the seat's first win, -1"),
    _f("O_SCRIPT_POS", 4, IN_HAND, Z, "[seat] script entries used"),
    _f("O_PASSED", 12, IN_HAND, R, "[seat*3 + i] tiles passed in the exchange (a rollout's: its own seat's)"),
    _f("O_SEAT_KONGS", 4, IN_HAND, R, "[seat] kongs declared (and not robbed)"),
    _f("O_WAITS", 4, IN_HAND, Z, "[seat] waits mask at the check"),
    _f("O_N2", 4, IN_HAND, R, "[seat] seven-pairs slots worth two tiles, over non-void kinds"),
    _f("O_N1", 4, IN_HAND, R, "[seat] seven-pairs slots worth one tile, over non-void kinds"),
    _f("O_VOIDCNT", 4, IN_HAND, R, "[seat] void-suit tiles held (0 until the void is declared)"),
    _f("O_QUADS", 4, IN_HAND, R, "[seat] bit t set while the seat holds four of t concealed"),
    _f("O_RDY", 4, IN_HAND, R, "[seat] readiness hint: -1 unknown, 0 not ready, 1 maybe"),
    _f("O_DRAW_RDY", 4, IN_HAND, R, "[seat] readiness hint of the tiles before the seat's latest draw"),
    _f("O_SH_LOW", 4, IN_HAND, R, "[seat] a lower bound on the shanten of the seat's non-void tiles (or SH_UNKNOWN)"),
    _f("O_FRONT", 1, IN_HAND, R, "table order: next wall index to draw from the front"),
    _f("O_BACK", 1, IN_HAND, R, "table order: next wall index to draw from the back (replacements)"),
    _f("O_LEFT", 1, IN_HAND, R, "wall positions not yet drawn"),
    _f("O_USED", 1, IN_HAND, Z, "seat order: bit i set once position DEAL_END + i is drawn (a rollout draws in "
                             "table order)"),
    _f("O_TOP", 1, IN_HAND, Z, "seat order: no position above DEAL_END + O_TOP is undrawn"),
    _f("O_OWN", 4, IN_HAND, Z, "seat order: [seat] the seat's next own position, less DEAL_END"),
    _f("O_N_WINS", 1, IN_HAND, R, "wins so far"),
    _f("O_N_PAY", 1, IN_HAND, Z, "payments so far (a rollout's buffers are empty)"),
    _f("O_N_EV", 1, IN_HAND, Z, "events so far"),
    _f("O_TURNS", 1, IN_HAND, R, "draws so far"),
    _f("O_CLEAN", 1, IN_HAND, R, "no pung, kong or win yet (earthly hand)"),
    _f("O_ERR", 4, IN_HAND, Z, "error kind, seat, question, answer"),
    _f("O_EXDIR", 1, IN_HAND, R, "the exchange's direction"),
    _f("O_NEXT_DEALER", 1, IN_HAND, R, ""),
    _f("O_DEALER", 1, IN_HAND, R, ""),
    _f("O_END_REASON", 1, IN_HAND, Z, ""),
    _f("O_ASKED", 4 * N_QUESTIONS, IN_HAND, Z, "[seat*N_QUESTIONS + q] questions put to the seat's strategies "
                                            "(scripts excluded)"),
    _f("O_SITUATIONS", 4 * N_SITUATIONS, IN_HAND, Z, "[seat*N_SITUATIONS + k] check mode: questions in situation k"),
    _f("O_TURN_KONG", 4, IN_HAND, R, "[payer] kong income of the kongs declared in the current turn"),
    _f("O_TURN_KONG_SEAT", 1, IN_HAND, R, "1 + the seat those kongs belong to (0: none)"),
    _f("O_KONG_FEEDER", 1, IN_HAND, R, "1 + the seat whose discard began this turn's exposed kong (0: none)"),
    # where ``play_on`` goes on from (ARCHITECTURE.md: A hand that resumes): the resume point and
    # what the loop of ``play_on`` otherwise keeps in locals
    _f("O_AT", 1, IN_HAND, R, "the resume point, AT_*"),
    _f("O_CUR", 1, IN_HAND, R, "AT_ASK, AT_CLAIMS: the seat whose turn it is"),
    _f("O_PHASE", 1, IN_HAND, R, "how its turn began (PHASE_*)"),
    _f("O_DRAWN", 1, IN_HAND, R, "AT_ASK: the tile it drew (NO_TILE: none)"),
    _f("O_KONGED", 1, IN_HAND, R, "1 when the turn has had a kong (its discard is a kong discard)"),
    _f("O_DISCARDED", 1, IN_HAND, R, "AT_CLAIMS: the tile it discarded; AT_ROB: the kong's tile"),
    # luck (measured only with O_LUCK_ON; a rollout measures none)
    _f("O_UNDRAWN", N_KINDS, IN_HAND, Z, "[t] copies of t in the positions not yet drawn"),
    _f("O_LUCK", 4, IN_HAND, Z, "[seat] the seat's luck so far (float64 bits)"),
    _f("O_LK_KEY", 4, IN_HAND, Z, "[seat] 1 + the suit codes and sets O_LK_WAITS was computed for (0: none)"),
    _f("O_LK_WAITS", 4, IN_HAND, Z, "[seat] its waits mask then"),
    _f("O_LK_AMT", 4 * N_KINDS, IN_HAND, Z, "[seat*N_KINDS + t] then: the base of its discard win on each wait t"),
    _f("O_LK_CUR", 4, IN_HAND, Z, "[seat] during one draw's luck: its waits mask, -1 if not ready"),
    _f("O_LK_TMP", N_KINDS, IN_HAND, Z, "a hand's counts, for a hand the exchange would give a seat"),
    _f("O_PHI", 4 * N_FEATURES, IN_HAND, Z, "fitting: [seat*N_FEATURES + i] the seat's luck in feature i so far (bits)"),
    # shadowing an arm (only with O_SH_ON; never in a rollout)
    _f("O_SH_RP", 1, IN_HAND, Z, "resume points passed so far"),
    _f("O_SH_DONE", 4, IN_HAND, Z, "[seat] SH_ASKING, SH_SAME (the arm plays as the seat from here on) or SH_DIFFERED"),
    _f("O_SH_K", 4, IN_HAND, Z, "[seat] differed: the resume points passed before the question"),
    _f("O_SH_ASKED", 4, IN_HAND, Z, "[seat] bit g: the arm's group-g strategy has been asked"),
    _f("O_SH_RNG", 4, IN_HAND, Z, "[seat] the arm's random stream counter"),
    _f("O_SH_SCR", 4 * vw.N_SCRATCH, IN_HAND, Z, "[seat*N_SCRATCH + i] the arm's scratch"),
    # -- the four views, then work copies ---------------------------------------------------------
    _f("O_VIEWS", 4 * VIEW_LEN, IN_VIEWS, R, "seat s's view is S[O_VIEWS + s*VIEW_LEN : ...+VIEW_LEN]"),
    _f("O_VIEW_COPY", VIEW_LEN, IN_WORK, Z, "check mode: the asked seat's view before its strategy answers"),
    _f("O_SH_VIEW", VIEW_LEN, IN_WORK, Z, "shadowing: the view the arm answers on"),
)
del H, Z, R


def _offsets(fields) -> tuple[dict[str, int], int]:
    """Each field's first slot, and the slots they take in all."""
    at, start = 0, {}
    for f in fields:
        if f.name in start:
            raise ValueError(f"state field {f.name} declared twice")
        start[f.name] = at
        at += f.length
    return start, at


def region_span(region: str) -> tuple[int, int]:
    """The first slot of a region and the slot after its last (each region is one stretch)."""
    slots = [(OFFSETS[f.name], OFFSETS[f.name] + f.length) for f in STATE_FIELDS if f.region == region]
    return min(a for a, _ in slots), max(b for _, b in slots)


OFFSETS, O_FIXED_END = _offsets(STATE_FIELDS)
FIELDS = {f.name: f for f in STATE_FIELDS}
globals().update(OFFSETS)  # O_OFF_WBUF ... O_SH_VIEW, named as declared (listed for readers below)
O_OFF_WBUF: int; O_OFF_PBUF: int; O_OFF_SCRIPT: int; O_OFF_LOG: int; O_WCAP: int; O_PCAP: int
O_SCRIPT_LEN: int; O_LOG_CAP: int; O_CHECK: int; O_SEED: int; O_G: int; O_REVEALED_ROWS: int; O_TAB: int
O_TAB_LEN: int; O_FIXED_WALL_N: int; O_LOG_SPARE: int; O_RULES: int; O_PATS: int; O_WINNERS: int; O_FNS: int
O_SCORES_IN: int; O_SCRATCH_USE: int; O_PAUSE: int; O_ARENA: int; O_FIXED_WALL: int; O_SWAPS: int
O_DRAW_ORDER: int; O_LUCK_ON: int; O_VALUE: int; O_FIT: int; O_SH_ON: int; O_SH_FNS: int; O_SH_SETUP: int; O_SH_SAME: int
O_AGENTS: int; O_AGENT_ANS: int; O_AGENT_SKIP: int; O_WALL: int; O_HAND: int; O_CODES: int; O_MELD_KIND: int
O_MELD_TILE: int; O_N_MELDS: int; O_MELD_CNT: int; O_N_KONGS: int; O_PILE: int; O_ASIDE: int; O_VOID: int
O_WINS: int; O_OUT: int; O_LOCKED: int; O_PASSLOCK: int; O_DRAWS: int; O_KONG_RECV: int; O_NET: int
O_NET_REASON: int; O_SCORE0: int; O_PIG: int; O_READY: int; O_BEST: int; O_FIRST_WIN: int; O_SCRIPT_POS: int
O_PASSED: int; O_SEAT_KONGS: int; O_WAITS: int; O_N2: int; O_N1: int; O_VOIDCNT: int; O_QUADS: int; O_RDY: int
O_DRAW_RDY: int; O_SH_LOW: int; O_FRONT: int; O_BACK: int; O_LEFT: int; O_USED: int; O_TOP: int; O_OWN: int
O_N_WINS: int; O_N_PAY: int; O_N_EV: int; O_TURNS: int; O_CLEAN: int; O_ERR: int; O_EXDIR: int
O_NEXT_DEALER: int; O_DEALER: int; O_END_REASON: int; O_ASKED: int; O_SITUATIONS: int; O_TURN_KONG: int
O_TURN_KONG_SEAT: int; O_KONG_FEEDER: int; O_AT: int; O_CUR: int; O_PHASE: int; O_DRAWN: int; O_KONGED: int
O_DISCARDED: int; O_UNDRAWN: int; O_LUCK: int; O_LK_KEY: int; O_LK_WAITS: int; O_LK_AMT: int; O_LK_CUR: int
O_LK_TMP: int; O_PHI: int; O_SH_RP: int; O_SH_DONE: int; O_SH_K: int; O_SH_ASKED: int; O_SH_RNG: int
O_SH_SCR: int; O_VIEWS: int; O_VIEW_COPY: int; O_SH_VIEW: int

HAND_START, HAND_END = region_span(IN_HAND)  # what ``_reset`` zeroes
O_STATE = region_span(IN_WALL)[0]            # the first slot after the header

# -- constants of play ------------------------------------------------------------------------
ALL_SEATS = 0b1111          # a bit set of seats: every seat
DEAL_END = DEALER_TILES + 3 * HAND_TILES  # the deal takes wall[0:DEAL_END]; draws go on from there
WALL_LAST = N_TILES - 1     # kong replacements are drawn from here backwards
N_DRAWABLE = N_TILES - DEAL_END  # positions DEAL_END..WALL_LAST, each drawn once
assert N_DRAWABLE < 63       # their drawn set is one int64's bits (O_USED)
# How draws take wall positions (RULES.md: Rulings where the documents are silent, draw order; a run
# option, not a rule: O_DRAW_ORDER): ORDER_TABLE from the front, replacements from the back;
# ORDER_SEAT each seat its own positions.
ORDER_TABLE, ORDER_SEAT = I64(DRAW_ORDERS.index("table")), I64(DRAW_ORDERS.index("seat"))
SH_UNKNOWN = I64(-99)       # a seat's shanten lower bound when nothing is known
assert N_RULE_FIELDS <= N_RULE_SLOTS
assert vw.V_SCRATCH == vw.V_ZEROED  # one memset zeroes a view's per-hand slots and its scratch

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
SH_ASKING, SH_SAME, SH_DIFFERED = I64(0), I64(1), I64(2)  # O_SH_DONE


def layout(win_cap: int, pay_cap: int, script_len: int, log_rows: int) -> tuple[int, list[int]]:
    """Length of S and its header offsets for the given buffer capacities."""
    o_w = O_FIXED_END
    o_p = o_w + win_cap * N_WIN_FIELDS
    o_s = o_p + pay_cap * N_PAY_FIELDS
    o_l = o_s + 4 * script_len * 3
    return o_l + log_rows * LOG_WIDTH, [o_w, o_p, o_s, o_l]


ROLLOUT_STATE_LEN = layout(0, 0, 1, 0)[0]  # a rollout state: no buffers, one forced answer per seat


def new_state(R, OPT, seed: int, g: int, win_cap: int, pay_cap: int, script=None, log_rows: int = 0,
              check: bool = True) -> np.ndarray:
    """S for one traced or scripted hand: header filled (the rule array ``RuleSet.to_array`` and
    the options array ``options.RunOptions.to_array``), script copied in, room for the log."""
    script = np.zeros((4, 0, 3), np.int64) if script is None else np.ascontiguousarray(script, np.int64)
    length, offs = layout(win_cap, pay_cap, script.shape[1], log_rows)
    S = np.zeros(length, np.int64)
    S[O_OFF_WBUF], S[O_OFF_PBUF], S[O_OFF_SCRIPT], S[O_OFF_LOG] = offs
    S[O_WCAP], S[O_PCAP], S[O_SCRIPT_LEN], S[O_LOG_CAP] = win_cap, pay_cap, script.shape[1], log_rows
    S[O_CHECK] = int(check)
    S[O_SEED] = seed
    S[O_G] = g
    S[O_REVEALED_ROWS] = ALL_SEATS
    S[O_RULES:O_RULES + len(R)] = R
    S[O_DRAW_ORDER] = OPT[OPT_DRAW_ORDER]
    S[O_LUCK_ON] = OPT[OPT_LUCK_ON]
    S[O_VALUE:O_VALUE + N_FEATURES] = OPT[OPT_VALUE:OPT_VALUE + N_FEATURES]
    S[offs[2]:offs[2] + script.size] = script.ravel()
    return S


def log_rows(S) -> np.ndarray:
    """The trace log's rows of a hand played with a log."""
    n = int(min(S[O_N_EV], S[O_LOG_CAP]))
    o = int(S[O_OFF_LOG])
    return S[o:o + n * LOG_WIDTH].reshape(n, LOG_WIDTH)


def state_table() -> str:
    """The state's fields as a Markdown table (docs/ARCHITECTURE.md: The state array holds it)."""
    rows = ["| field | slots | offset | region | in a rollout | what it holds |", "|---|---|---|---|---|---|"]
    for f in STATE_FIELDS:
        rows.append(f"| `{f.name}` | {f.length} | {OFFSETS[f.name]} | {f.region} | {f.rollout} | {f.doc} |")
    return "\n".join(rows)


# -- reading a state from Python (the engine's surface: code outside ``simcore.engine`` reads a
# state through these, never by offset; ``simcore.engine.access`` has the jitted ones) -----------

def hand_index(S):
    """The global hand index of a state, or of each row of an array of states."""
    return S[..., O_G]


def seat_view(S, seat: int):
    """Seat ``seat``'s view in a state (a row of each state of an array), not a copy."""
    return S[..., O_VIEWS + seat * VIEW_LEN:O_VIEWS + (seat + 1) * VIEW_LEN]


def set_pause(S, n: int) -> None:
    """Make ``play_on`` stop at the n-th resume point from here (0: never)."""
    S[O_PAUSE] = n


def buffer_caps(S) -> tuple[int, int]:
    """A state's room for wins and payments."""
    return int(S[O_WCAP]), int(S[O_PCAP])


def events_logged(S) -> int:
    """Events the hand has logged so far (a traced hand's log holds them)."""
    return int(S[O_N_EV])


def hand_over(S) -> bool:
    """Whether a stopped hand has in fact ended."""
    return bool(S[O_AT] == AT_END)


def concealed(S, seat: int) -> np.ndarray:
    """A copy of the seat's concealed tile counts."""
    return np.array(S[O_HAND + seat * N_KINDS:O_HAND + (seat + 1) * N_KINDS], np.int64)


def meld_counts(S, seat: int) -> np.ndarray:
    """A copy of the counts of the tiles in the seat's declared sets."""
    return np.array(S[O_MELD_CNT + seat * N_KINDS:O_MELD_CNT + (seat + 1) * N_KINDS], np.int64)


def melds(S, seat: int) -> list[tuple[int, int]]:
    """The seat's declared sets, (view.M_* kind, tile) in the order declared."""
    return [(int(S[O_MELD_KIND + seat * 4 + i]), int(S[O_MELD_TILE + seat * 4 + i]))
            for i in range(int(S[O_N_MELDS + seat]))]


def passed_tiles(S, seat: int) -> list[int]:
    """The three tiles the seat passed in the exchange (as they left, once it was made)."""
    return [int(S[O_PASSED + seat * 3 + i]) for i in range(3)]


def kongs_declared(S, seat: int) -> int:
    """Kongs among the seat's declared sets."""
    return int(S[O_N_KONGS + seat])


def void_of(S, seat: int) -> int:
    """The seat's void suit (``tiles.NO_VOID`` before the choice)."""
    return int(S[O_VOID + seat])


def is_locked(S, seat: int) -> bool:
    """Whether the seat is a locked blood-flow winner."""
    return bool(S[O_LOCKED + seat])


def wall_tiles(S) -> np.ndarray:
    """A copy of the hand's wall in shuffled order (the deal takes its first DEAL_END tiles)."""
    return np.array(S[O_WALL:O_WALL + N_TILES], np.int64)


def script_used(S, seat: int) -> int:
    """How many of the seat's script entries the hand used."""
    return int(S[O_SCRIPT_POS + seat])
