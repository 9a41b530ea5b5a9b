"""What a hand is worth, from a seat's view: the fan and base of winning now on a tile, and for a
ready hand each wait's value and live copies. Allocation-free: the helpers work in
``VALUE_SCRATCH`` slots of the view's scratch area from an offset the caller gives
(``V_SCRATCH + o`` .. ``+ VALUE_SCRATCH``), and read the rules from the view (``V_RULES``), so a
strategy never assumes a preset.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.evaluate import CTX_EARTHLY, CTX_HEAVENLY, CTX_KONG_REPLACEMENT, CTX_LAST_TILE, CTX_ROBBING_KONG, CTX_SELF_DRAW, N_PATTERNS, base_of, score_patterns, waits_mask
from simcore.contract.nrt import nonneg
from simcore.contract.rules import N_RULE_FIELDS
from simcore.contract.tiles import N_KINDS
from simcore.contract.view import M_KONG_ADDED, M_KONG_CONCEALED, M_KONG_EXPOSED, M_PUNG, Q_ROB, Q_TURN, V_AFTER_PUNG, V_DEALER, V_HAND, V_ME, V_MELD_KIND, V_MELD_TILE, V_N_DISCARDS, V_N_DRAWS, V_N_MELDS, V_QUESTION, V_REPLACEMENT, V_RULES, V_TILE, V_VISIBLE, V_VOID, V_WALL_LEFT, V_WINS

VALUE_SCRATCH = 2 * N_KINDS + N_PATTERNS   # the hand, the declared sets' tiles, the patterns
WAIT_VALUES = 3 * N_KINDS                  # wait_values' output: discard base, self-draw base, live


@nb.njit(cache=True, inline="always")
def rules_of(view):
    """The rule array (``simcore.contract.rules.R_*`` index it)."""
    return view[V_RULES:V_RULES + N_RULE_FIELDS]


@nb.njit(cache=True, _nrt=False)
def win_context(view, self_draw):
    """The context of a win now (``simcore.contract.evaluate.CTX_*``): a self-draw (on a kong's
    replacement, or on the dealer's first tiles: heavenly; a non-dealer's first draw before any
    set or win: earthly) or a win on another seat's tile (robbing an added kong); after the
    last wall tile."""
    ctx = np.int64(0)
    if view[V_WALL_LEFT] == 0:
        ctx |= CTX_LAST_TILE
    if not self_draw:
        if view[V_QUESTION] == Q_ROB:
            ctx |= CTX_ROBBING_KONG
        return ctx
    ctx |= CTX_SELF_DRAW
    if view[V_REPLACEMENT]:
        return ctx | CTX_KONG_REPLACEMENT
    clean = True
    for s in range(4):
        clean = clean and view[V_N_MELDS + s] == 0 and view[V_WINS + s] == 0
    me = view[V_ME]
    if clean and view[V_QUESTION] == Q_TURN and not view[V_AFTER_PUNG]:
        if view[V_TILE] < 0 and me == view[V_DEALER] and view[V_N_DISCARDS] == 0:
            ctx |= CTX_HEAVENLY
        elif me != view[V_DEALER] and view[V_N_DRAWS] == 1:
            ctx |= CTX_EARTHLY
    return ctx


@nb.njit(cache=True, _nrt=False)
def _load(view, o, extra, minus):
    """The seat's concealed tiles (plus ``extra``, minus ``minus``, -1 for none) at view[o:],
    its declared sets' tiles at view[o + N_KINDS:]; returns (declared sets, kongs among them)."""
    for t in range(N_KINDS):
        view[o + t] = view[V_HAND + t]
        view[o + N_KINDS + t] = 0
    if extra >= 0:
        view[o + nonneg(extra)] += 1
    if minus >= 0:
        view[o + nonneg(minus)] -= 1
    me = nonneg(view[V_ME])
    k = view[V_N_MELDS + me]
    kongs = 0
    for i in range(k):
        kind = view[V_MELD_KIND + me * 4 + i]
        t = nonneg(view[V_MELD_TILE + me * 4 + i])
        n = 3 if kind == M_PUNG else 4
        kongs += kind == M_KONG_EXPOSED or kind == M_KONG_ADDED or kind == M_KONG_CONCEALED
        view[o + N_KINDS + t] += n
    return k, np.int64(kongs)


@nb.njit(cache=True, _nrt=False)
def win_value(tab, view, t, ctx, o):
    """(fan before the cap, base) of the seat winning with its concealed tiles plus tile t (-1:
    the tiles as they are, e.g. after its own draw) in context ``ctx``; (-1, 0) if that is no win.
    Uses ``VALUE_SCRATCH`` slots from ``o``."""
    k, kongs = _load(view, o, t, np.int64(-1))
    me = nonneg(view[V_ME])
    rules = rules_of(view)
    fan = score_patterns(tab, view[o:o + N_KINDS], view[V_VOID + me], k, view[o + N_KINDS:o + 2 * N_KINDS], kongs,
                         ctx, rules, view[o + 2 * N_KINDS:o + VALUE_SCRATCH])
    if fan < 0:
        return np.int64(-1), np.int64(0)
    return fan, base_of(fan, rules)


@nb.njit(cache=True, _nrt=False)
def wait_values(tab, view, discard, o, out):
    """For the seat's concealed tiles less ``discard`` (-1: as they are; 13 - 3k tiles either
    way): the waits as a bit set and, per wait t, view[out + t] its base as a win on a discard,
    view[out + N_KINDS + t] as a self-draw (before any self-draw bonus), view[out + 2*N_KINDS + t]
    its live copies (those this seat cannot see); returns (waits,
    live copies of all waits). Uses ``VALUE_SCRATCH`` slots from ``o`` and ``WAIT_VALUES`` from
    ``out``."""
    k, kongs = _load(view, o, np.int64(-1), discard)
    me = nonneg(view[V_ME])
    void = view[V_VOID + me]
    rules = rules_of(view)
    hand = view[o:o + N_KINDS]
    sets = view[o + N_KINDS:o + 2 * N_KINDS]
    pats = view[o + 2 * N_KINDS:o + VALUE_SCRATCH]
    mask = waits_mask(tab, hand, void, k, sets)
    last = CTX_LAST_TILE if view[V_WALL_LEFT] == 0 else 0
    total = 0
    for t in range(N_KINDS):
        view[out + t] = 0
        view[out + N_KINDS + t] = 0
        view[out + 2 * N_KINDS + t] = 0
        if (mask >> t) & 1:
            hand[t] += 1
            fan = score_patterns(tab, hand, void, k, sets, kongs, np.int64(last), rules, pats)
            view[out + t] = base_of(fan, rules)
            fan = score_patterns(tab, hand, void, k, sets, kongs, np.int64(CTX_SELF_DRAW), rules, pats)
            view[out + N_KINDS + t] = base_of(fan, rules)
            hand[t] -= 1
            live = 4 - view[V_VISIBLE + t]  # a discarded copy stays visible: discarding changes nothing here
            live = live if live > 0 else 0
            view[out + 2 * N_KINDS + t] = live
            total += live
    return mask, total
