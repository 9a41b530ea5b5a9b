"""The value model of luck-corrected duplicate (README: Cheaper duplicate answers).

V(s, state) = w . phi(s, state) estimates what seat s will still win or lose in the hand. Its
features are table lookups of the seats' concealed tiles against the undrawn tiles, never their
order. At a draw: for the drawer, what a self-draw on the tile would pay it (its waits, when it
is ready) and what the tile would pay ready others on a discard, by what the drawer likely does
with it (a void tile is thrown; one that lowers its shanten is kept; others in between); for
each other seat, what the drawer's self-draw would make it pay and, when it is ready, the undrawn
copies of its waits, plain and times the base each would pay it. At the exchange: each seat's
shanten (regular, and seven pairs; the void suit not yet chosen) by the hand it would receive,
and a ready hand's live waits. A seat's luck gains, at every chance event after the deal (each
draw, replacements included, and the exchange direction), V(after) - E[V(after)], the
expectation over the outcomes the event could have had; for any fixed w each term has mean zero
given the past, so net - luck estimates the same mean as net, whatever w is (w only decides how
much variance goes). The drawer's own shanten is not a feature: it would need every undrawn
kind's shanten at every draw: half the luck's CPU, for a share of the nets' variance removed of
0.22 instead of 0.25 in battle (0.19 and 0.21 in flow). The engine computes the terms (``kernel``: the luck section); the
weights are fitted and shipped by ``simcore.runs.value_model``.
"""

from __future__ import annotations

import numba as nb

N_TL = 4     # tiles-left buckets: 0-13, 14-27, 28-41, 42-55
N_SH = 5     # shanten buckets

F14 = 0                        # one-hot (shanten -1, 0, 1, 2, 3+ of the dealer's 14 tiles after the exchange) x tiles left
F14_WIN = F14 + N_SH * N_TL    # can win now: what a self-draw would be paid, summed over the payers
KEEPS = 3                      # what the drawer likely does with the tile: 0 void (discards it),
                               # 1 it lowers its shanten (keeps it), 2 neither
F_DANGER = F14_WIN + 1         # [keep] the drawn tile would win for ready others: their discard-win bases
F13 = F_DANGER + KEEPS         # one-hot (shanten 0, 1, 2, 3, 4+ holding 3n+1 tiles) x tiles left
F13_LIVE = F13 + N_SH * N_TL   # ready: undrawn copies of its waits, by tiles left
F13_VALUE = F13_LIVE + N_TL    # ready: undrawn copies of its waits times their discard-win base, by tiles left
F_GIFT = F13_VALUE + N_TL      # [keep] ready, another seat drew one of its waits: that wait's base
F_PAY = F_GIFT + KEEPS         # another seat's draw: what its self-draw on it would make this seat pay
N_FEATURES = F_PAY + 1
_KEEP = ("void", "useful", "other")
FEATURE_NAMES = tuple(
    [f"sh14={'3+' if i == N_SH - 1 else i - 1} tl{b}" for i in range(N_SH) for b in range(N_TL)]
    + ["self-draw paid"] + [f"drew others' win ({k})" for k in _KEEP]
    + [f"sh13={'4+' if i == N_SH - 1 else i} tl{b}" for i in range(N_SH) for b in range(N_TL)]
    + [f"live waits tl{b}" for b in range(N_TL)] + [f"live wait value tl{b}" for b in range(N_TL)]
    + [f"another drew its win ({k})" for k in _KEEP] + ["pays a self-draw"])
assert len(FEATURE_NAMES) == N_FEATURES


@nb.njit(cache=True, inline="always")
def one_hot(i):
    """Whether feature i is one of the one-hot features (each event has exactly one)."""
    return F14 <= i < F14 + N_SH * N_TL or F13 <= i < F13 + N_SH * N_TL


@nb.njit(cache=True, inline="always")
def tl_bucket(left):
    return min(left * N_TL // 56, N_TL - 1)


@nb.njit(cache=True, inline="always")
def index14(sh, left):
    """The one-hot feature of a seat holding 3n+2 tiles with shanten ``sh`` (-1: it can win)."""
    return F14 + min(max(sh + 1, 0), N_SH - 1) * N_TL + tl_bucket(left)


@nb.njit(cache=True, inline="always")
def index13(sh, left):
    """The one-hot feature of a seat holding 3n+1 tiles with shanten ``sh`` (0: ready)."""
    return F13 + min(max(sh, 0), N_SH - 1) * N_TL + tl_bucket(left)
