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
from simcore.contract.tiles import N_KINDS, N_SUITS, NO_VOID

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
# The fields in slot order, (name, slots, what it holds): each starts where the one before it
# ends, as ``simcore.engine.sample``'s WK_* layout. None marks slots no field uses (a field added
# there moves no other). tests/contract/test_view.py pins every slot: user strategies read them.
N_SCRATCH = 256     # V_SCRATCH's slots
N_DISC_SEQ = 128    # V_DISC_SEQ's entries
N_RULE_SLOTS = 48   # V_RULES' slots: the rule array (``RuleSet.to_array``) and room for 16 more options
# The view's layout version: a strategy reads slots by name, so recompiled it reads the same facts;
# a change that moves or resizes a slot bumps it (1: 32 rule slots and 16 parameter slots a group,
# 746 slots; 2: 48 rule slots, 762; 3: 32 parameter slots a group, 810). Runs record it in run.json
# and datasets in dataset.json (a manifest without it: version 1); ``upgrade_view`` reads an older one.
CONTRACT_VERSION = 3
# (rule slots, parameter slots a group) of each version, for ``upgrade_view``
LAYOUTS = {1: (32, 16), 2: (48, 16), 3: (48, 32)}
N_PARAMS = 32       # parameter slots per strategy group (V_PARAMS): a strategy declares at most this many
# A built-in declares at most WRAPPED_PARAMS parameters, in its group's first slots; a user strategy
# that wraps one (``strategies.params.wraps``) has the built-in's there and its own from this slot on
# (``own_param_int``/``own_param_float``), N_PARAMS - WRAPPED_PARAMS of them.
WRAPPED_PARAMS = 16

VIEW_FIELDS = (
    ("V_ME", 1, "this seat"),
    ("V_DEALER", 1, ""),
    ("V_QUESTION", 1, "the question being asked"),
    ("V_TILE", 1, "Q_TURN: the tile just drawn (-1 after a pung or on the dealer's first turn); "
                  "Q_CLAIM/Q_ROB: the tile offered"),
    ("V_FROM", 1, "Q_CLAIM/Q_ROB: the seat that discarded it / added the kong"),
    ("V_CAN_WIN", 1, ""),
    ("V_CAN_PUNG", 1, ""),
    ("V_CAN_KONG", 1, ""),
    ("V_KONG_MASK", 1, "Q_TURN: bit t set if a kong of tile t may be declared"),
    ("V_LOCKED", 1, "1 once this seat has won in blood flow (its tiles are fixed)"),
    ("V_MUST_VOID", 1, "1 while this seat holds tiles of its void suit"),
    ("V_WALL_LEFT", 1, "wall tiles left"),
    ("V_EXCHANGE_DIR", 1, "+1, -1, +2 once the exchange happened; 0 before or without one"),
    ("V_AFTER_PUNG", 1, "Q_TURN right after this seat's pung (no draw: no win)"),
    ("V_N_DISCARDS", 1, "length of the discard sequence"),
    ("V_HAND_INDEX", 1, "global hand index"),
    ("V_RNG_KEY", 1, "this seat's random stream: key (uint64 bits) and counter"),
    ("V_RNG_COUNT", 1, ""),
    ("V_N_DRAWS", 1, "draws by this seat so far this hand"),
    ("V_FLOW", 1, "1 under blood flow"),
    ("V_CODES", N_SUITS, "base-5 codes of the seat's concealed suits (void suit not zeroed)"),
    ("V_N2", 1, "seven-pairs slots worth two tiles over non-void kinds (all kinds before the void)"),
    ("V_N1", 1, "seven-pairs slots worth one tile over non-void kinds"),
    ("V_REPLACEMENT", 1, "Q_TURN: 1 when the drawn tile is a kong's replacement (a win is kong_replacement)"),
    ("V_ARENA", 1, "address of this seat's search arena (``simcore.contract.arena``), 0 without one"),
    ("V_KONG_DISCARD", 1, "Q_CLAIM: 1 when the discard follows a kong declared in the discarder's turn"),
    (None, 4, "unused"),
    ("V_HAND", N_KINDS, "counts: own concealed tiles"),
    ("V_VOID", 4, "4 seats' void suits (NO_VOID = 3 until declared)"),
    ("V_WINS", 4, "4 seats' number of wins this hand"),
    ("V_OUT", 4, "4 seats: 1 if the seat has left the hand (blood battle winner)"),
    ("V_SCORE", 4, "4 seats' scores now (match start points + nets so far)"),
    ("V_N_MELDS", 4, "4 seats' number of declared sets"),
    ("V_MELD_KIND", 16, "[seat*4 + i]: M_* kind of each declared set"),
    ("V_MELD_TILE", 16, "[seat*4 + i]: its tile; -1 for another seat's concealed kong"),
    ("V_PASSED", 3, "3 tiles this seat passed in the exchange (-1 without one)"),
    ("V_RECEIVED", 3, "3 tiles it received"),
    ("V_VISIBLE", N_KINDS, "counts of tiles this seat can see: own hand and sets, every discard pile, "
                           "exposed sets, winners' revealed hands and set-aside winning tiles"),
    ("V_SCRATCH", N_SCRATCH, "free for the strategy; its first ``scratch`` slots (as declared, else all) "
                             "are zero at the start of each hand, with the slots before them"),
    ("V_REVEALED", 4 * N_KINDS, "[seat*N_KINDS + t]: winners' revealed concealed tiles"),
    ("V_DISC_SEQ", N_DISC_SEQ, "the discard sequence: ``pack_discard(seat, tile)``, V_N_DISCARDS entries "
                               "(at most N_DISC_SEQ)"),
    ("V_RULES", N_RULE_SLOTS, "the rule set: ``simcore.contract.rules.RuleSet.to_array``, read as "
                              "view[V_RULES + R_*]"),
    ("V_PARAMS", 3 * N_PARAMS, "[group*N_PARAMS + i]: parameter slot i of the seat's play (group 0), exchange (1) "
                               "and void (2) strategy (``strategies.params``; read with param_int/param_float, "
                               "a wrapper's own with own_param_int/own_param_float)"),
    # public facts a searching seat needs to rebuild the table (``simcore.engine.sample``):
    ("V_DRAWS", 4, "4 seats' draws this hand"),
    ("V_VOID_CAP", 4, "4 seats: at most this many void-suit tiles held (-1: unknown). A seat that "
                      "discards outside its void suit, claims a pung or declares a kong (unless the "
                      "rules allow it while holding void tiles) proves it holds none; each draw "
                      "adds one, each void tile it discards takes one"),
    ("V_KONG_INCOME", 16, "[payee*4 + payer]: kong payments this hand (less what call transfer moved)"),
    ("V_TURN_KONG", 4, "[payer]: kong income of the kongs declared in the current turn"),
    ("V_TURN_KONG_SEAT", 1, "1 + the seat those kongs belong to (0: none)"),
    ("V_KONG_FEEDER", 1, "1 + the seat whose discard began this turn's exposed kong (0: none)"),
)


def _layout(layout) -> tuple[dict[str, int], int]:
    """Each named field's first slot, and the slots they take in all."""
    start, at = {}, 0
    for name, n, _ in layout:
        if name is not None:
            start[name] = at
        at += n
    return start, at


_START, VIEW_LEN = _layout(VIEW_FIELDS)
# Plain module ints: numba freezes them as constants, and strategies import them by name.
V_ME = _START["V_ME"]
V_DEALER = _START["V_DEALER"]
V_QUESTION = _START["V_QUESTION"]
V_TILE = _START["V_TILE"]
V_FROM = _START["V_FROM"]
V_CAN_WIN = _START["V_CAN_WIN"]
V_CAN_PUNG = _START["V_CAN_PUNG"]
V_CAN_KONG = _START["V_CAN_KONG"]
V_KONG_MASK = _START["V_KONG_MASK"]
V_LOCKED = _START["V_LOCKED"]
V_MUST_VOID = _START["V_MUST_VOID"]
V_WALL_LEFT = _START["V_WALL_LEFT"]
V_EXCHANGE_DIR = _START["V_EXCHANGE_DIR"]
V_AFTER_PUNG = _START["V_AFTER_PUNG"]
V_N_DISCARDS = _START["V_N_DISCARDS"]
V_HAND_INDEX = _START["V_HAND_INDEX"]
V_RNG_KEY = _START["V_RNG_KEY"]
V_RNG_COUNT = _START["V_RNG_COUNT"]
V_N_DRAWS = _START["V_N_DRAWS"]
V_FLOW = _START["V_FLOW"]
V_CODES = _START["V_CODES"]
V_N2 = _START["V_N2"]
V_N1 = _START["V_N1"]
V_REPLACEMENT = _START["V_REPLACEMENT"]
V_ARENA = _START["V_ARENA"]
V_KONG_DISCARD = _START["V_KONG_DISCARD"]
V_HAND = _START["V_HAND"]
V_VOID = _START["V_VOID"]
V_WINS = _START["V_WINS"]
V_OUT = _START["V_OUT"]
V_SCORE = _START["V_SCORE"]
V_N_MELDS = _START["V_N_MELDS"]
V_MELD_KIND = _START["V_MELD_KIND"]
V_MELD_TILE = _START["V_MELD_TILE"]
V_PASSED = _START["V_PASSED"]
V_RECEIVED = _START["V_RECEIVED"]
V_VISIBLE = _START["V_VISIBLE"]
V_SCRATCH = _START["V_SCRATCH"]
V_REVEALED = _START["V_REVEALED"]
V_DISC_SEQ = _START["V_DISC_SEQ"]
V_RULES = _START["V_RULES"]
V_PARAMS = _START["V_PARAMS"]
V_DRAWS = _START["V_DRAWS"]
V_VOID_CAP = _START["V_VOID_CAP"]
V_KONG_INCOME = _START["V_KONG_INCOME"]
V_TURN_KONG = _START["V_TURN_KONG"]
V_TURN_KONG_SEAT = _START["V_TURN_KONG_SEAT"]
V_KONG_FEEDER = _START["V_KONG_FEEDER"]
assert all(globals().get(name) == at for name, at in _START.items()), "a view field without its V_* name above"
V_ZEROED = V_SCRATCH  # slots [0, V_ZEROED) start each hand at zero (before the engine fills them)
V_PUBLIC = V_DRAWS    # slots [V_PUBLIC, VIEW_LEN) are reset each hand by the engine

# A batch's seat setup (``strategies.registry.Players.setup``), what the engine copies into the views:
# [seat*3*N_PARAMS + group*N_PARAMS + i] parameters, then [SETUP_SCRATCH + seat] the scratch slots
# that seat's strategies use.
SETUP_SCRATCH = 4 * 3 * N_PARAMS
SETUP_LEN = SETUP_SCRATCH + 4

# The length of every field longer than one slot (from VIEW_FIELDS).
FIELD_LENGTHS = {name: n for name, n, _ in VIEW_FIELDS if name is not None and n != 1}


def fields() -> dict[str, tuple[int, int]]:
    """Every view field in slot order: name -> (first slot, length); not the unused slots, nor
    the aliases V_ZEROED and V_PUBLIC."""
    return {name: (_START[name], n) for name, n, _ in VIEW_FIELDS if name is not None}


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
    """Parameter i (declaration order) of the strategy being asked, an int or a choice's index (a
    wrapper's i-th is the wrapped built-in's; its own: ``own_param_int``)."""
    return view[V_PARAMS + param_group(view) * N_PARAMS + i]


@nb.njit(cache=True, inline="always")
def param_float(view, i):
    """Parameter i of the strategy being asked, a float (stored as its float64 bits)."""
    return as_float64(view[V_PARAMS + param_group(view) * N_PARAMS + i])


@nb.njit(cache=True, inline="always")
def own_param_int(view, i):
    """A wrapper's own parameter i (``strategies.params.wraps``: its own declaration order, after the
    wrapped built-in's), an int or a choice's index."""
    return view[V_PARAMS + param_group(view) * N_PARAMS + WRAPPED_PARAMS + i]


@nb.njit(cache=True, inline="always")
def own_param_float(view, i):
    """A wrapper's own parameter i, a float (stored as its float64 bits)."""
    return as_float64(view[V_PARAMS + param_group(view) * N_PARAMS + WRAPPED_PARAMS + i])


@nb.njit(cache=True, _nrt=False)
def rand_below(view, n):
    """A uniform integer in 0..n-1 from this seat's stream."""
    return np.int64(rand_u64(view) % np.uint64(n))


def upgrade_view(old, version: int):
    """A view written at contract ``version`` (a dataset's ``view`` column) in this version's
    layout: the slots before ``V_RULES`` as they were, each rule and each parameter group's slots
    at the start of their larger fields (the rest zero), the slots after them shifted."""
    import numpy as _np

    old = _np.asarray(old, _np.int64)
    rules, params = LAYOUTS[version]
    if (rules, params) == (N_RULE_SLOTS, N_PARAMS):
        return old.copy()
    new = _np.zeros(VIEW_LEN, _np.int64)
    new[:V_RULES] = old[:V_RULES]
    new[V_RULES:V_RULES + rules] = old[V_RULES:V_RULES + rules]
    o = V_RULES + rules
    for g in range(3):
        new[V_PARAMS + g * N_PARAMS:V_PARAMS + g * N_PARAMS + params] = old[o + g * params:o + (g + 1) * params]
    o += 3 * params
    new[V_PUBLIC:] = old[o:o + VIEW_LEN - V_PUBLIC]
    return new
