"""The strategy contract: questions, answers, and the layout of a seat's view.

A strategy is a jitted function ``f(question, view, tab) -> answer`` with the signature
``STRATEGY_SIG``. ``view`` is an int64 array of ``VIEW_LEN`` that the engine keeps up to date
for one seat and that holds only what that seat may see (RULES.md); ``tab`` is the suit table
array for ``simcore.contract.evaluate``. A strategy must not write into the view except its scratch
area ``V_SCRATCH .. V_SCRATCH + N_SCRATCH`` (kept across the questions of one hand) and,
through ``rand_u64``, its stream counter ``V_RNG_COUNT``; nor into ``tab``. Check mode and
``sichuan strategies --check`` enforce this.

Questions and answers:

    Q_EXCHANGE  three tiles of one suit to pass: ``pack3(a, b, c)`` (tile indices)
    Q_VOID      the suit to void: 0 (m), 1 (p) or 2 (s)
    Q_TURN      on the seat's own turn: ``A_WIN``, ``kong(t)`` (concealed, or added to a pung)
                or ``discard(t)``. Legal options: ``V_CAN_WIN``, ``V_KONG_MASK`` (bit t),
                ``V_MUST_VOID`` (holding void tiles: discard one), ``V_LOCKED`` (blood-flow lock:
                discard only ``V_TILE``, the drawn tile).
    Q_CLAIM     on another seat's discard ``V_TILE`` from ``V_FROM``: ``C_PASS``, ``C_WIN``,
                ``C_PUNG`` or ``C_KONG``; legal per ``V_CAN_WIN``, ``V_CAN_PUNG``, ``V_CAN_KONG``.
    Q_ROB       an added kong of ``V_TILE`` by ``V_FROM`` that the seat can win on: ``C_PASS`` or ``C_WIN``.

The engine asks only when there is a choice: no Q_CLAIM without an option, no Q_TURN for a
locked seat that can only discard its drawn tile.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from simcore.contract.nrt import as_float64
from simcore.contract.rng import stream_value
from simcore.contract.tiles import N_KINDS, NO_VOID

STRATEGY_SIG = types.int64(types.int64, types.int64[::1], types.uint8[::1])
STRATEGY_TYPE = types.FunctionType(STRATEGY_SIG)

# -- questions and answers --------------------------------------------------------------------
# np.int64 so that passing them to jitted helpers never makes numba compile a copy per value.
Q_EXCHANGE, Q_VOID, Q_TURN, Q_CLAIM, Q_ROB = (np.int64(i) for i in range(5))
QUESTION_NAMES = ("exchange", "void", "turn", "claim", "rob")

A_DISCARD = 0  # discard(t) = t
A_KONG = 32    # kong(t) = 32 + t
A_WIN = 64
C_PASS, C_WIN, C_PUNG, C_KONG = range(4)

# -- view layout (int64 slots) ----------------------------------------------------------------
V_ME = 0            # this seat
V_DEALER = 1
V_QUESTION = 2      # the question being asked
V_TILE = 3          # Q_TURN: the tile just drawn (-1 after a pung or on the dealer's first turn);
                    # Q_CLAIM/Q_ROB: the tile offered
V_FROM = 4          # Q_CLAIM/Q_ROB: the seat that discarded it / added the kong
V_CAN_WIN = 5
V_CAN_PUNG = 6
V_CAN_KONG = 7
V_KONG_MASK = 8     # Q_TURN: bit t set if a kong of tile t may be declared
V_LOCKED = 9        # 1 once this seat has won in blood flow (its tiles are fixed)
V_MUST_VOID = 10    # 1 while this seat holds tiles of its void suit
V_WALL_LEFT = 11    # wall tiles left
V_EXCHANGE_DIR = 12 # +1, -1, +2 once the exchange happened; 0 before or without one
V_AFTER_PUNG = 13   # Q_TURN right after this seat's pung (no draw: no win)
V_N_DISCARDS = 14   # length of the discard sequence
V_HAND_INDEX = 15   # global hand index
V_RNG_KEY = 16      # this seat's random stream: key (uint64 bits) and counter
V_RNG_COUNT = 17
V_N_DRAWS = 18      # draws by this seat so far this hand
V_FLOW = 19         # 1 under blood flow
V_CODES = 20        # 3 base-5 codes of the seat's concealed suits (void suit not zeroed)
V_N2 = 23           # seven-pairs slots worth two tiles over non-void kinds (all kinds before the void)
V_N1 = 24           # seven-pairs slots worth one tile over non-void kinds
V_REPLACEMENT = 25  # Q_TURN: 1 when the drawn tile is a kong's replacement (a win is kong_replacement)
V_ARENA = 26        # address of this seat's search arena (``simcore.contract.arena``), 0 without one
V_KONG_DISCARD = 27 # Q_CLAIM: 1 when the discard follows a kong declared in the discarder's turn
V_HAND = 32         # 27 counts: own concealed tiles
V_VOID = 59         # 4 seats' void suits (NO_VOID = 3 until declared)
V_WINS = 63         # 4 seats' number of wins this hand
V_OUT = 67          # 4 seats: 1 if the seat has left the hand (blood battle winner)
V_SCORE = 71        # 4 seats' scores now (match start points + nets so far)
V_N_MELDS = 75      # 4 seats' number of declared sets
V_MELD_KIND = 79    # [seat*4 + i]: M_* kind of each declared set
V_MELD_TILE = 95    # [seat*4 + i]: its tile; -1 for another seat's concealed kong
V_PASSED = 111      # 3 tiles this seat passed in the exchange (-1 without one)
V_RECEIVED = 114    # 3 tiles it received
V_VISIBLE = 117     # 27 counts of tiles this seat can see: own hand and sets, every discard
                    # pile, exposed sets, winners' revealed hands and set-aside winning tiles
V_ZEROED = 144      # slots [0, V_ZEROED) start each hand at zero (before the engine fills them)
V_SCRATCH = 144     # free for the strategy; its first ``scratch`` slots (as declared, else all) are
N_SCRATCH = 256     # zero at the start of each hand, with the slots before them
V_REVEALED = 400    # [seat*27 + t]: winners' revealed concealed tiles
V_DISC_SEQ = 508    # the discard sequence: ``pack_discard(seat, tile)``, V_N_DISCARDS entries (at most 128)
N_DISC_SEQ = 128
V_RULES = 636       # the rule set: ``simcore.contract.rules.RuleSet.to_array``, read as view[V_RULES + R_*]
N_RULE_SLOTS = 32
V_PARAMS = 668      # [group*N_PARAMS + i]: parameter i of the seat's play (group 0), exchange (1) and
N_PARAMS = 16       # void (2) strategy (``strategies.params``; read with param_int/param_float)
# Public facts a searching seat needs to rebuild the table (``simcore.engine.sample``):
V_DRAWS = 716       # 4 seats' draws this hand
V_VOID_CAP = 720    # 4 seats: at most this many void-suit tiles held (-1: unknown). A seat that
                    # discards outside its void suit, claims a pung or declares a kong (unless the
                    # rules allow it while holding void tiles) proves it holds none; each draw
                    # adds one, each void tile it discards takes one
V_KONG_INCOME = 724 # [payee*4 + payer]: kong payments this hand (less what call transfer moved)
V_TURN_KONG = 740   # [payer]: kong income of the kongs declared in the current turn
V_TURN_KONG_SEAT = 744  # 1 + the seat those kongs belong to (0: none)
V_KONG_FEEDER = 745 # 1 + the seat whose discard began this turn's exposed kong (0: none)
V_PUBLIC = 716      # slots [V_PUBLIC, VIEW_LEN) are reset each hand by the engine
VIEW_LEN = 746

# A batch's seat setup (``strategies.registry.Players.setup``), what the engine copies into the views:
# [seat*3*N_PARAMS + group*N_PARAMS + i] parameters, then [SETUP_SCRATCH + seat] the scratch slots
# that seat's strategies use.
SETUP_SCRATCH = 4 * 3 * N_PARAMS
SETUP_LEN = SETUP_SCRATCH + 4

# Every field's length in slots (the others are one slot); tests check that no two fields overlap
# and that VIEW_LEN holds them all.
FIELD_LENGTHS = {
    "V_CODES": 3, "V_HAND": N_KINDS, "V_VOID": 4, "V_WINS": 4, "V_OUT": 4, "V_SCORE": 4, "V_N_MELDS": 4,
    "V_MELD_KIND": 16, "V_MELD_TILE": 16, "V_PASSED": 3, "V_RECEIVED": 3, "V_VISIBLE": N_KINDS,
    "V_SCRATCH": N_SCRATCH, "V_REVEALED": 4 * N_KINDS, "V_DISC_SEQ": N_DISC_SEQ, "V_RULES": N_RULE_SLOTS,
    "V_PARAMS": 3 * N_PARAMS, "V_DRAWS": 4, "V_VOID_CAP": 4, "V_KONG_INCOME": 16, "V_TURN_KONG": 4,
}


def fields() -> dict[str, tuple[int, int]]:
    """Every view field: name -> (first slot, length)."""
    return {k: (v, FIELD_LENGTHS.get(k, 1)) for k, v in globals().items()
            if k.startswith("V_") and k not in ("V_ZEROED", "V_PUBLIC") and isinstance(v, int)}



def slot_name(i: int) -> str:
    """The name of view slot i, for error messages: the field it falls in, with the offset
    inside that field (``V_HAND+5``); ``?`` for a slot between fields."""
    for name, (start, n) in fields().items():
        if start <= i < start + n:
            return name if i == start else f"{name}+{i - start}"
    return "?"


M_PUNG, M_KONG_EXPOSED, M_KONG_ADDED, M_KONG_CONCEALED = (np.int64(i) for i in range(1, 5))
MELD_NAMES = {1: "pung", 2: "kong_exposed", 3: "kong_added", 4: "kong_concealed"}


PACK3_END = 1 << 15  # every pack3 value is below this


@nb.njit(cache=True, inline="always")
def pack3(a, b, c):
    return a | (b << 5) | (c << 10)


@nb.njit(cache=True, inline="always")
def unpack3(x):
    return x & 31, (x >> 5) & 31, (x >> 10) & 31


@nb.njit(cache=True, inline="always")
def discard(t):
    return A_DISCARD + t


@nb.njit(cache=True, inline="always")
def kong(t):
    return A_KONG + t


@nb.njit(cache=True, _nrt=False)
def rand_u64(view):
    """The next value of this seat's own stream (reproducible from seed, hand and seat)."""
    c = view[V_RNG_COUNT]
    view[V_RNG_COUNT] = c + 1
    return stream_value(np.uint64(view[V_RNG_KEY]), c)


@nb.njit(cache=True, inline="always")
def pack_discard(seat, t):
    """A discard sequence entry (``V_DISC_SEQ``): who discarded which tile."""
    return seat * 32 + t


@nb.njit(cache=True, inline="always")
def discard_seat(x):
    return x // 32


@nb.njit(cache=True, inline="always")
def discard_tile(x):
    return x % 32


@nb.njit(cache=True, _nrt=False)
def discarded_by(view, seat, t):
    """How many t the seat has discarded this hand (claimed ones included)."""
    n = 0
    for i in range(min(view[V_N_DISCARDS], N_DISC_SEQ)):
        if view[V_DISC_SEQ + i] == pack_discard(seat, t):
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def param_group(view):
    """The group whose parameters the question being asked reads: 0 play, 1 exchange, 2 void."""
    q = view[V_QUESTION]
    return 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)


@nb.njit(cache=True, inline="always")
def param_int(view, i):
    """Parameter i (declaration order) of the strategy being asked, an int or a choice's index."""
    return view[V_PARAMS + param_group(view) * N_PARAMS + i]


@nb.njit(cache=True, inline="always")
def param_float(view, i):
    """Parameter i of the strategy being asked, a float (stored as its float64 bits)."""
    return as_float64(view[V_PARAMS + param_group(view) * N_PARAMS + i])


@nb.njit(cache=True, _nrt=False)
def rand_below(view, n):
    """A uniform integer in 0..n-1 from this seat's stream."""
    return np.int64(rand_u64(view) % np.uint64(n))
