"""The inputs of the learned exchange and void policies (``strategies.learned``: ``exchange=learned``,
``void=learned``): features of one candidate answer to the question asked before play (which three
tiles to pass, which suit to void), computed from the seat's view with the expert policies' own
machinery (``exchange.plan_cost``, ``shanten_voiding``, ``kept_sets``), the one function used both
when a seat answers and when training rows are made from a dataset's kept views, as
``strategies.features`` is for play.

A row is the decision's features, the candidate's, and the candidate's less those of the expert
policy's own answer; the view's parameter slots of the question's group must hold the expert
policy's parameters (a learned policy's first parameters are its: ``params.wraps``).

Each question has its own layout and version (``EXCHANGE_FEATURE_VERSION``, ``VOID_FEATURE_VERSION``);
a model records the question it answers (its header's ``decision``) and the version it read.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.tiles import N_RANKS, N_SUITS
from simcore.contract.view import V_CODES, V_FLOW, V_HAND, param_int, unpack3
from strategies.core import isolation, prepare, shanten_of
from strategies.exchange import _codes_less, kept_sets, neighbour_count, plan_cost, shanten_voiding, suit_count
from strategies.void import void_plan

I64 = np.int64

EXCHANGE_FEATURE_VERSION = 1
EXCHANGE_DECISION = ("flow", "n_short", "n_mid", "n_long", "shanten_now", "pairs", "triplets")
EXCHANGE_CANDIDATE = ("is_own", "suit_len", "is_shortest", "plan_cost", "shanten_voiding", "best_shanten",
                      "pairs_broken", "triplet_passed", "isolation_sum", "neighbour_sum", "middle_sum",
                      "kept_in_suit", "longest_other")
EXCHANGE_DELTA_OF = (3, 4, 5, 6, 8)      # plan_cost, shanten_voiding, best_shanten, pairs_broken, isolation_sum
EXCHANGE_NAMES = EXCHANGE_DECISION + EXCHANGE_CANDIDATE + tuple("d_" + EXCHANGE_CANDIDATE[j] for j in EXCHANGE_DELTA_OF)

VOID_FEATURE_VERSION = 1
VOID_DECISION = ("flow", "n_short", "n_mid", "n_long", "shanten_now", "best_shanten")
VOID_CANDIDATE = ("is_own", "suit_len", "is_fewest", "shanten_voiding", "regular_voiding", "plan_key", "kept_other",
                  "kept_in_suit", "longest_other", "isolation_in_suit")
VOID_DELTA_OF = (1, 3, 4, 5, 6)          # suit_len, shanten_voiding, regular_voiding, plan_key, kept_other
VOID_NAMES = VOID_DECISION + VOID_CANDIDATE + tuple("d_" + VOID_CANDIDATE[j] for j in VOID_DELTA_OF)

N_EXCHANGE, N_VOID = len(EXCHANGE_NAMES), len(VOID_NAMES)
N_EXCHANGE_CANDIDATE, N_VOID_CANDIDATE = len(EXCHANGE_CANDIDATE), len(VOID_CANDIDATE)
EX_C0, EX_D0 = len(EXCHANGE_DECISION), len(EXCHANGE_DECISION) + N_EXCHANGE_CANDIDATE
VO_C0, VO_D0 = len(VOID_DECISION), len(VOID_DECISION) + N_VOID_CANDIDATE
# the exchange and void expert policies' parameter slots (``exchange.plans``, ``void.plans``)
EX_VOID_COST, EX_FLUSH_BONUS, EX_PAIR_BONUS, EX_TRIPLET_BONUS = 0, 1, 3, 4
VO_VOID_COST, VO_FLUSH_BONUS, VO_PAIR_BONUS, VO_TRIPLET_BONUS = 0, 1, 2, 3


@nb.njit(cache=True, _nrt=False)
def _lengths(view, X):
    """The suit lengths, shortest first, into X[1:4]; returns the three lengths by suit."""
    n0, n1, n2 = suit_count(view, 0), suit_count(view, 1), suit_count(view, 2)
    lo = min(n0, min(n1, n2))
    hi = max(n0, max(n1, n2))
    X[1] = lo
    X[2] = n0 + n1 + n2 - lo - hi
    X[3] = hi
    return n0, n1, n2


@nb.njit(cache=True, _nrt=False)
def exchange_decision(tab, view, X):
    """The exchange decision's features into X[0:EX_C0]."""
    X[0] = view[V_FLOW]
    _lengths(view, X)
    X[4] = min(shanten_of(tab, prepare(tab, view, I64(0))), 8)
    pairs = 0
    triplets = 0
    for t in range(N_SUITS * N_RANKS):
        pairs += view[V_HAND + t] == 2
        triplets += view[V_HAND + t] >= 3
    X[5] = pairs
    X[6] = triplets


@nb.njit(cache=True, _nrt=False)
def exchange_candidate(tab, view, pick, own, X, o):
    """Passing the three tiles ``pick`` (packed): its features into X[o:o + N_EXCHANGE_CANDIDATE]
    (``own``: the expert policy's pick)."""
    a, b, c = unpack3(pick)
    s = a // N_RANKS
    n = (suit_count(view, 0), suit_count(view, 1), suit_count(view, 2))
    x, y, z = _codes_less(view, s, a, b, c)
    n0, n1, n2 = n[0] - 3 * (s == 0), n[1] - 3 * (s == 1), n[2] - 3 * (s == 2)
    pair_bonus = param_int(view, EX_PAIR_BONUS)
    shortest = 14
    longest_other = 0
    for k in range(N_SUITS):
        if n[k] >= 3:
            shortest = min(shortest, n[k])
        if k != s:
            longest_other = max(longest_other, n[k])
    best = 99
    for v in range(N_SUITS):
        best = min(best, shanten_voiding(tab, x, y, z, v))
    # the pairs (or more) a tile of the pick breaks, each kind once
    broken = (view[V_HAND + a] >= 2) + (b != a and view[V_HAND + b] >= 2) + (c != a and c != b and view[V_HAND + c] >= 2)
    middle = 0
    for t in (a, b, c):
        r = t % N_RANKS
        middle += min(r, N_RANKS - 1 - r)
    X[o] = 1.0 if pick == own else 0.0
    X[o + 1] = n[s]
    X[o + 2] = 1.0 if n[s] == shortest else 0.0
    X[o + 3] = plan_cost(tab, x, y, z, n0, n1, n2, param_int(view, EX_VOID_COST), param_int(view, EX_FLUSH_BONUS),
                         pair_bonus, param_int(view, EX_TRIPLET_BONUS))
    X[o + 4] = shanten_voiding(tab, x, y, z, s)
    X[o + 5] = best
    X[o + 6] = broken
    X[o + 7] = 1.0 if a == b and b == c else 0.0
    X[o + 8] = isolation(view, a) + isolation(view, b) + isolation(view, c)
    X[o + 9] = neighbour_count(view, a) + neighbour_count(view, b) + neighbour_count(view, c)
    X[o + 10] = middle
    X[o + 11] = kept_sets(x if s == 0 else (y if s == 1 else z), pair_bonus, param_int(view, EX_TRIPLET_BONUS))
    X[o + 12] = longest_other


@nb.njit(cache=True, _nrt=False)
def void_decision(tab, view, X):
    """The void decision's features into X[0:VO_C0]."""
    X[0] = view[V_FLOW]
    _lengths(view, X)
    X[4] = min(shanten_of(tab, prepare(tab, view, I64(0))), 8)
    best = 99
    for s in range(N_SUITS):
        best = min(best, shanten_of(tab, prepare(tab, view, I64(1) << s)))
    X[5] = min(best, 8)


@nb.njit(cache=True, _nrt=False)
def void_candidate(tab, view, s, own, X, o):
    """Voiding suit ``s``: its features into X[o:o + N_VOID_CANDIDATE] (``own``: the expert
    policy's suit); ``plan_key`` is what ``void.plans`` ranks the suits by."""
    n = (suit_count(view, 0), suit_count(view, 1), suit_count(view, 2))
    pair_bonus = param_int(view, VO_PAIR_BONUS)
    triplet_bonus = param_int(view, VO_TRIPLET_BONUS)
    key, sh, kept, longest = void_plan(tab, view, s, param_int(view, VO_VOID_COST), param_int(view, VO_FLUSH_BONUS),
                                       pair_bonus, triplet_bonus)
    iso = 0
    for t in range(s * N_RANKS, s * N_RANKS + N_RANKS):
        if view[V_HAND + t] > 0:
            iso += isolation(view, I64(t)) * view[V_HAND + t]
    X[o] = 1.0 if s == own else 0.0
    X[o + 1] = n[s]
    X[o + 2] = 1.0 if n[s] == min(n[0], min(n[1], n[2])) else 0.0
    X[o + 3] = min(sh, 8)
    X[o + 4] = shanten_voiding(tab, view[V_CODES], view[V_CODES + 1], view[V_CODES + 2], s)
    X[o + 5] = key
    X[o + 6] = kept
    X[o + 7] = kept_sets(view[V_CODES + s], pair_bonus, triplet_bonus)
    X[o + 8] = longest
    X[o + 9] = iso


@nb.njit(cache=True, _nrt=False)
def deal_delta(X, own_block, o, c0, delta_of):
    """X[o:o + len(delta_of)]: the candidate's features (from X[c0]) less the own answer's."""
    for i in range(len(delta_of)):
        j = delta_of[i]
        X[o + i] = X[c0 + j] - own_block[j]


@nb.njit(cache=True)
def exchange_features(tab, view, picks, own):
    """Every pick's feature row (len(picks) x N_EXCHANGE) at the exchange question in ``view``
    (``own``: the expert policy's pick): what training rows are made of. Allocates."""
    out = np.zeros((picks.shape[0], N_EXCHANGE), np.float64)
    x = np.zeros(N_EXCHANGE, np.float64)
    own_block = np.zeros(N_EXCHANGE_CANDIDATE, np.float64)
    exchange_decision(tab, view, x)
    exchange_candidate(tab, view, own, own, own_block, I64(0))
    for k in range(picks.shape[0]):
        exchange_candidate(tab, view, picks[k], own, x, I64(EX_C0))
        deal_delta(x, own_block, I64(EX_D0), I64(EX_C0), EXCHANGE_DELTA_OF)
        out[k] = x
    return out


@nb.njit(cache=True)
def void_features(tab, view, suits, own):
    """Every suit's feature row (len(suits) x N_VOID) at the void question in ``view``. Allocates."""
    out = np.zeros((suits.shape[0], N_VOID), np.float64)
    x = np.zeros(N_VOID, np.float64)
    own_block = np.zeros(N_VOID_CANDIDATE, np.float64)
    void_decision(tab, view, x)
    void_candidate(tab, view, own, own, own_block, I64(0))
    for k in range(suits.shape[0]):
        void_candidate(tab, view, suits[k], own, x, I64(VO_C0))
        deal_delta(x, own_block, I64(VO_D0), I64(VO_C0), VOID_DELTA_OF)
        out[k] = x
    return out
