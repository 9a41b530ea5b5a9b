"""The value model of luck-corrected duplicate (README: Luck-corrected duplicate).

V(s, state) = w . phi(s, state) estimates what seat s will still win or lose in the hand. Its
features are table lookups of the seat's concealed tiles against the undrawn tiles, never their
order: the seat's shanten (regular, and seven pairs without declared sets; the void suit's
tiles left out, so holding them counts as tiles still missing), by how many tiles are left; for
a seat holding 3n+2 tiles what a self-draw would pay it now (0 if it cannot win) and what the
tile it holds would pay ready others on a discard, and for the others what they would pay it;
for a ready seat holding 3n+1 tiles the undrawn copies of its waits, plain and times what each
would pay, and what the tile another seat drew would pay it on a discard. At every chance event after the deal (each
draw, replacements included, and the exchange direction) a seat's luck gains V(after) - E[V(after)],
the expectation over the outcomes the event could have had; for any fixed w each term has mean
zero given the past, so net - luck estimates the same mean as net, whatever w is (w only decides
how much variance goes). The engine computes the terms (``kernel``: the luck section); the
weights are fitted and shipped by ``simcore.runs.value_model``.
"""

from __future__ import annotations

import numba as nb

N_TL = 4     # tiles-left buckets: 0-13, 14-27, 28-41, 42-55
N_SH = 5     # shanten buckets

F14 = 0                        # one-hot (shanten -1, 0, 1, 2, 3+ holding 3n+2 tiles) x tiles left
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
