"""What describes the engine's outputs and its event log: field indices, names of codes,
error and invariant codes.

The engine writes one hand row (``H_*``), four seat rows (``S_*``), a win row per win
(``W_*``) and a payment row per payment (``P_*``) for every hand it plays; with tracing on,
it also appends event rows to a log (``EV_*`` kinds, columns ``LW_*``). Everything that reads
those arrays (``simcore.runs.shards``, ``simcore.inspection.trace``, ``simcore.runs.batch``, the benchmarks, the
conformance check) imports the layout from here, not from the kernel.

Jitted code inlines these constants, so this module is part of numba's cache key
(``simcore.numba_cache``): an edit here starts a fresh cache.
"""

from __future__ import annotations

import numpy as np

from simcore.contract.evaluate import N_PATTERNS
from simcore.contract.tiles import N_KINDS

I64 = np.int64

# -- codes and their names (the names are the Parquet and TRACE.md strings) ---------------------
REASONS = ("win", "kong", "flower_pig", "not_ready", "kong_refund", "kong_discard_liability", "kong_transfer")
N_REASONS = len(REASONS)
REASON_WIN, REASON_KONG, REASON_PIG, REASON_NOT_READY, REASON_REFUND, REASON_LIABILITY, REASON_TRANSFER = (
    I64(i) for i in range(N_REASONS))
NET_COLUMNS = tuple(f"net_{r}" for r in REASONS)  # the seats table's net-by-reason columns

WIN_KINDS = ("self_draw", "discard", "kong_replacement", "robbing_kong")
WIN_SELF_DRAW, WIN_DISCARD, WIN_KONG_REPLACEMENT, WIN_ROBBING_KONG = (I64(i) for i in range(4))
END_REASONS = ("three_won", "wall_exhausted")
END_THREE_WON, END_WALL_EXHAUSTED = I64(0), I64(1)
KONG_KINDS = ("concealed", "exposed", "added")
KONG_CONCEALED, KONG_EXPOSED, KONG_ADDED = (I64(i) for i in range(3))
CHOSE = ("pass", "pung", "kong")   # what a seat did instead of a win it could take
CHOSE_PASS, CHOSE_PUNG, CHOSE_KONG = (I64(i) for i in range(3))

# -- a hand's row ----------------------------------------------------------------------------
(H_DEALER, H_EXCHANGE_DIR, H_END_REASON, H_TILES_LEFT, H_WINNERS, H_TURNS, H_NEXT_DEALER,
 H_N_WINS, H_N_PAYMENTS, H_ERROR, H_ERR_SEAT, H_ERR_QUESTION, H_ERR_ANSWER, H_N_EVENTS) = range(14)
N_HAND_FIELDS = 14

# The situations a strategy answers, finer than the question kinds: what ``sichuan strategies
# --check`` must put to a strategy (``simcore.inspection.conformance``). A turn is classed by its first
# option of: locked (a blood-flow winner with a choice), a win, a kong, else a discard; a claim
# by the options it offers (a kong is offered only with a pung).
SITUATIONS = ("exchange", "void", "turn_discard", "turn_kong", "turn_win", "locked_turn",
              "claim_pung", "claim_pung_kong", "claim_win", "claim_win_pung", "claim_win_pung_kong", "rob")
N_SITUATIONS = len(SITUATIONS)
(SIT_EXCHANGE, SIT_VOID, SIT_TURN_DISCARD, SIT_TURN_KONG, SIT_TURN_WIN, SIT_LOCKED_TURN, SIT_CLAIM_PUNG,
 SIT_CLAIM_PUNG_KONG, SIT_CLAIM_WIN, SIT_CLAIM_WIN_PUNG, SIT_CLAIM_WIN_PUNG_KONG, SIT_ROB) = (I64(i) for i in range(N_SITUATIONS))

# -- a seat's row ----------------------------------------------------------------------------
(S_VOID, S_NET, S_WINS, S_WIN_ORDER, S_WIN_KIND, S_FAN, S_BASE, S_PIG, S_READY, S_KONGS) = range(10)
S_NET_REASON = 10   # [S_NET_REASON + reason]: the seat's net from payments of that reason
(S_NET_WIN, S_NET_KONG, S_NET_PIG, S_NET_NOT_READY, S_NET_REFUND, S_NET_LIABILITY, S_NET_TRANSFER) = (
    S_NET_REASON + r for r in range(N_REASONS))
S_SCORE_BEFORE = S_NET_REASON + N_REASONS
S_LUCK_LO, S_LUCK_HI = S_SCORE_BEFORE + 1, S_SCORE_BEFORE + 2   # the seat's luck: its float64 bits' low and high halves
S_ASKED = S_LUCK_HI + 1   # [S_ASKED + q]: questions of kind q put to the seat's strategies
N_QUESTIONS = 5                # view.QUESTION_NAMES
S_SITUATION = S_ASKED + N_QUESTIONS  # [S_SITUATION + k]: check mode only, questions in situation k
N_SEAT_FIELDS = S_SITUATION + N_SITUATIONS

# -- a win's row ------------------------------------------------------------------------------
(W_SEAT, W_ORDER, W_TURN, W_KIND, W_TILE, W_FROM, W_FAN, W_BASE, W_PAID) = range(9)
W_PATTERNS = 9      # [W_PATTERNS + p]: the fan of pattern p (``evaluate.PATTERNS``)
N_WIN_FIELDS = W_PATTERNS + N_PATTERNS

# -- a payment's row --------------------------------------------------------------------------
(P_PAYER, P_PAYEE, P_AMOUNT, P_REASON) = range(4)
N_PAY_FIELDS = 4

# -- errors (H_ERROR) and broken invariants (H_ERR_ANSWER when H_ERROR == ERR_INVARIANT) --------
ERR_NONE, ERR_ILLEGAL, ERR_INVARIANT, ERR_VIEW_WRITE = (I64(i) for i in range(4))  # ERR_VIEW_WRITE: answer = slot
INV_TILES, INV_VOID_DISCARD, INV_VOID_WIN, INV_PAYMENTS, INV_ZERO_SUM, INV_READY_HINT, INV_VISIBLE = (
    I64(i) for i in range(1, 8))
INVARIANTS = {1: "108 tiles accounted for", 2: "no discard outside the void suit while holding it",
              3: "no win while holding the void suit", 4: "payments add up to net", 5: "every hand sums to zero",
              6: "the readiness hint agrees with the hand",
              7: "each seat's visible counts match what it can see (view.py: V_VISIBLE)"}

# -- the trace log -----------------------------------------------------------------------------
# A row is LOG_WIDTH int64: the event kind, then five fields named per kind by EVENT_FIELDS, then
# (exchange and win rows) the wider parts below.
(EV_DRAW, EV_DISCARD, EV_PUNG, EV_KONG, EV_PASS_WIN, EV_WIN, EV_PAYMENT, EV_CHECK, EV_END,
 EV_EXCHANGE, EV_VOID) = (I64(i) for i in range(1, 12))
LOG_WIDTH = 64
LW_EVENT = 0
LW_FIELDS = 1          # the five fields: LW_FIELDS .. LW_FIELDS + 4
EVENT_FIELDS = {
    int(EV_DRAW): ("seat", "tile", "replacement", "pos"),
    int(EV_DISCARD): ("seat", "tile"),
    int(EV_PUNG): ("seat", "tile", "from"),
    int(EV_KONG): ("seat", "tile", "kind", "from"),
    int(EV_PASS_WIN): ("seat", "tile", "from", "chose", "fan"),
    int(EV_WIN): ("seat", "tile", "from", "kind", "win"),
    int(EV_PAYMENT): ("payer", "payee", "amount", "reason"),
    int(EV_CHECK): ("seat", "pig", "ready", "waits", "best_base"),
    int(EV_END): ("reason", "tiles_left", "next_dealer"),
    int(EV_EXCHANGE): ("direction",),
    int(EV_VOID): ("suit0", "suit1", "suit2", "suit3"),
}
LW_PASSED = LW_FIELDS + 1              # exchange rows, after the direction: [seat*3 + i] the tiles passed
LW_WIN_FAN = LW_FIELDS + 5             # win rows: fan before the cap
LW_PATS = LW_WIN_FAN + 1               # win rows: [p] the fan of each pattern
LW_MELD_KINDS = LW_PATS + N_PATTERNS   # win rows: the winner's declared sets' kinds (4)
LW_MELD_TILES = LW_MELD_KINDS + 4      # ... and tiles (4)
LW_HAND = LW_MELD_TILES + 4            # win rows: the winner's concealed tiles (N_KINDS counts)
LW_WIN_BASE = LW_HAND + N_KINDS             # win rows: base after the cap
LW_WIN_TILES_LEFT = LW_WIN_BASE + 1    # win rows: wall tiles left
LW_WIN_N_MELDS = LW_WIN_TILES_LEFT + 1  # win rows: the winner's declared sets
assert LW_WIN_N_MELDS < LOG_WIDTH and LW_PASSED + 12 <= LOG_WIDTH
