"""``search``: judge a decision by playing the rest of the hand many times (ARCHITECTURE.md: Search).

At a question with more than one reasonable answer, the seat samples full tables consistent with
its view (``simcore.engine.sample``), plays each out once per candidate answer with every seat following
the rollout policy, the same tables for every candidate (common random numbers), and answers with
the candidate whose rollouts won it most on average among those better than the policy's own
answer by ``margin`` paired standard errors; where a challenger is close, it doubles the tables
(up to ``max_rollouts``) before deciding. Questions with one reasonable answer, and decisions
where no candidate is that much better, get the rollout policy's own answer. The same function serves as
play (``search``), exchange policy (``exchange=search``) and void policy (``void=search``); each
reads its own parameters.

The rollout policy is a built-in play (``POLICIES``), ``learned`` among them: its model's address is
one of its parameters, so it reaches the rollout tables as the others do (the registry copies the
policy's parameters into the arena's setup, the sampler into each table's views) and the policy's
own answer (``_policy_answer`` swaps them in).

Candidates: on its turn, a win, each kong, and the ``candidates`` discards best by a fast ranking
(lowest shanten, then most live tiles that lower it) plus the policy's choice; on a claim, every
legal answer; at the exchange, for each suit holding three tiles the policy's three (in its suit)
or that suit's three most isolated; at the void choice, the suits whose plan is within
``void_close`` of the best (``_close_voids``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.arena import AR_FNS, AR_SETUP, AR_STATE_LEN, AR_STATES, AR_WORK, N_STATES
from simcore.contract.nrt import address_of, call_strategy, data_ptr, int64_ptr, view_of
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS
# ROLLOUT_STATE_LEN: a sampled table's slots (the registry sizes arenas by it)
from simcore.engine import ROLLOUT_STATE_LEN, WK_END, WK_SHAPE, answer_at, net_at, play_on, sample_state, set_answer, view_at  # noqa: F401
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, V_ARENA, V_CAN_KONG, V_CAN_PUNG, V_CAN_WIN, V_CODES, V_HAND, V_KONG_MASK, V_LOCKED, V_ME, V_MUST_VOID, V_PARAMS, V_QUESTION, V_TILE, V_VOID, N_PARAMS, pack3, param_float, param_int, rand_u64, unpack3

from strategies.core import isolation, near_mask, prepare, shanten_moved, shanten_of, ukeire
from strategies.exchange import isolated_three, shanten_voiding, suit_count
from strategies.params import Param, parameters

POLICIES = ("expert", "efficient", "greedy", "flush", "defensive", "learned")
DECISIONS = ("all", "turn", "calls")   # which questions of play to search (exchange and void: always)
PARAMS = (
    Param.int("rollouts", 16, 1, 100000, "rollouts per candidate (sampled tables, shared by the candidates; x8 at the exchange, x32 at the void)"),
    Param.int("candidates", 3, 1, 14, "discards kept from the fast ranking, besides the policy's own"),
    Param.choice("policy", "expert", POLICIES, "the rollout policy every seat follows, with its own exchange and void "
                 "(learned: the shipped models, expert's exchange and void; rollouts about 5x slower than expert's)"),
    Param.choice("decisions", "all", DECISIONS, "play questions to search: all, turn (own turn), calls (claims, robbing)"),
    Param.float("shape", 3.0, 0.0, 10.0, "sampling weight on the opponents' shanten (0: uniform deals; real hands are built, not dealt)"),
    Param.float("margin", 1.5, 0.0, 10.0, "leave the policy's answer only for one better by this many standard errors (paired)"),
    Param.int("max_rollouts", 128, 1, 100000, "where a challenger is close (paired z 0.5 to margin+1.5), rollouts double up to this (x8 at the exchange, x64 at the void)"),
    Param.float("void_close", 1.0, 0.0, 10.0, "void suits searched: those within this many shanten (a tile to discard: 6/16) of the best"),
    Param.int("near", 8, 0, 8, "play questions searched: those whose hand is at most this many tiles from ready "
              "(its shanten as it stands; 0: ready or one discard from it, where the learned play acts; 8: all)"),
)
P_ROLLOUTS, P_CANDIDATES, P_POLICY, P_DECISIONS, P_SHAPE, P_MARGIN, P_MAX_ROLLOUTS, P_VOID_CLOSE, P_NEAR = (
    np.int64(i) for i in range(9))
MAX_CAND = 20
# rollouts and max_rollouts are multiplied by these at the exchange and the void choice (two
# decisions a hand, each judged over whole hands): 128 to 1,024 tables at the exchange, 512 to
# 8,192 at the void, whose choices differ by little and are searched only where close
EXCHANGE_BUDGET = 8
VOID_BUDGET = 32
VOID_TOP_BUDGET = 64
VOID_TILE_COST = 6 / 16   # void pre-filter: the shanten a tile of the void suit costs (void=expert: 6)
ALL_VOIDS = 100.0         # a void pre-filter that keeps every suit (``simcore.inspection.review`` judges them all)
I64 = np.int64
# the search's own slots in the arena's work space, after the sampler's (simcore.engine.sample.WK_END)
SW_CAND = WK_END            # candidates
SW_TOTAL = SW_CAND + MAX_CAND   # sum of the seat's rollout nets per candidate
SW_SQUARE = SW_TOTAL + MAX_CAND  # and of their squares
SW_RANK_T = SW_SQUARE + MAX_CAND  # the fast ranking's best discards
SW_RANK_K = SW_RANK_T + MAX_CAND  # and their keys
SW_X = SW_RANK_K + MAX_CAND    # one table's net per candidate
SW_CROSS = SW_X + MAX_CAND     # [c*MAX_CAND + d]: sums of net(c) * net(d), for paired intervals
SW_N = SW_CROSS + MAX_CAND * MAX_CAND  # after an answer: the candidates judged (0: none, the policy's answer)
SW_M = SW_N + 1                # and the tables each was played on (their mean nets: SW_TOTAL / SW_M)
SW_END = SW_M + 1
assert SW_END <= AR_WORK


@nb.njit(cache=True, inline="always")
def work_of(A):
    """The arena's work space (after its rollout states)."""
    return view_of(A, I64(AR_STATES) + N_STATES * A[AR_STATE_LEN], I64(AR_WORK))


@nb.njit(cache=True, _nrt=False)
def _policy_answer(q, view, tab, A):
    """The rollout policy's answer to this question, asked on this seat's own view with the
    policy's parameters in it for the call (the view holds the search's own; the arena's setup
    holds the policy's, as the rollouts' tables get them)."""
    g = 1 if q == Q_EXCHANGE else (2 if q == Q_VOID else 0)
    me = view[V_ME]
    f = AR_FNS + 2 * (g * 4 + me)
    _swap_params(view, A, g, me)
    a = call_strategy(A[f], A[f + 1], q, view, tab)
    _swap_params(view, A, g, me)
    return a


@nb.njit(cache=True, inline="always")
def _swap_params(view, A, g, me):
    """Swap the view's parameters of group g with the rollout policy's in the arena's setup."""
    v = V_PARAMS + g * N_PARAMS
    a = AR_SETUP + (me * 3 + g) * N_PARAMS
    for i in range(N_PARAMS):
        x = view[v + i]
        view[v + i] = A[a + i]
        A[a + i] = x


@nb.njit(cache=True, inline="always")
def _add(W, n, a):
    """Append answer a to the candidates W[SW_CAND:] unless it is there; returns the count."""
    for i in range(n):
        if W[SW_CAND + i] == a:
            return n
    if n < MAX_CAND:
        W[SW_CAND + n] = a
        n += 1
    return n


@nb.njit(cache=True, _nrt=False)
def _rank_discards(tab, view, W, n, keep):
    """Append up to ``keep`` discards (legal ones, best first by shanten then live improving
    tiles, then the more isolated) to the candidates; returns the new count."""
    keep = min(keep, MAX_CAND)
    st = prepare(tab, view, I64(0))
    near = near_mask(view, st)
    void = view[V_VOID + view[V_ME]]
    must = view[V_MUST_VOID]
    for i in range(keep):
        W[SW_RANK_T + i] = -1
        W[SW_RANK_K + i] = 1 << 40
    for t in range(N_KINDS):
        if view[V_HAND + t] == 0 or (must and t // N_RANKS != void):
            continue
        sh = shanten_moved(tab, view, st, I64(t), I64(-1))
        key = sh * 100000 - ukeire(tab, view, st, I64(t), sh, near) * 100 + isolation(view, I64(t))
        for i in range(keep):
            if key < W[SW_RANK_K + i]:
                for j in range(keep - 1, i, -1):
                    W[SW_RANK_K + j] = W[SW_RANK_K + j - 1]
                    W[SW_RANK_T + j] = W[SW_RANK_T + j - 1]
                W[SW_RANK_K + i] = key
                W[SW_RANK_T + i] = t
                break
    for i in range(keep):
        if W[SW_RANK_T + i] >= 0:
            n = _add(W, n, W[SW_RANK_T + i])
    return n


@nb.njit(cache=True, _nrt=False)
def candidates(q, view, tab, own, W, keep, close):
    """The answers worth searching at this question (the policy's ``own`` first; on a turn,
    ``keep`` discards of the fast ranking; at the void, the suits within ``close`` of the best),
    written to W[SW_CAND:]; returns how many."""
    n = _add(W, I64(0), own)
    if q == Q_TURN:
        if view[V_CAN_WIN]:
            n = _add(W, n, I64(A_WIN))
        mask = view[V_KONG_MASK]
        for t in range(N_KINDS):
            if (mask >> t) & 1:
                n = _add(W, n, I64(A_KONG + t))
        if view[V_LOCKED]:
            return _add(W, n, view[V_TILE])
        return _rank_discards(tab, view, W, n, keep)
    if q == Q_CLAIM or q == Q_ROB:
        n = _add(W, n, I64(C_PASS))
        if view[V_CAN_WIN]:
            n = _add(W, n, I64(C_WIN))
        if q == Q_CLAIM and view[V_CAN_PUNG]:
            n = _add(W, n, I64(C_PUNG))
        if q == Q_CLAIM and view[V_CAN_KONG]:
            n = _add(W, n, I64(C_KONG))
        return n
    if q == Q_EXCHANGE:
        a, _, _ = unpack3(own)
        for s in range(N_SUITS):
            held = 0
            for t in range(N_RANKS * s, N_RANKS * s + N_RANKS):
                held += view[V_HAND + t]
            if held >= 3 and a // N_RANKS != s:
                n = _add(W, n, isolated_three(view, I64(s)))
        return n
    return _close_voids(view, tab, W, n, close)


@nb.njit(cache=True, inline="always")
def _void_key(view, tab, s):
    """Voiding suit s: the shanten of the other two suits plus VOID_TILE_COST a tile of s."""
    sh = shanten_voiding(tab, view[V_CODES], view[V_CODES + 1], view[V_CODES + 2], s)
    return sh + suit_count(view, s) * VOID_TILE_COST


@nb.njit(cache=True, _nrt=False)
def _close_voids(view, tab, W, n, close):
    """Append the void suits whose plan (``_void_key``) is within ``close`` of the best's:
    on most deals the choice is far from close, and a search there only spends rollouts and
    risks a change made on noise."""
    k0, k1, k2 = _void_key(view, tab, 0), _void_key(view, tab, 1), _void_key(view, tab, 2)
    limit = min(k0, min(k1, k2)) + close + 1e-9
    for s, k in ((0, k0), (1, k1), (2, k2)):
        if k <= limit:
            n = _add(W, n, I64(s))
    return n


@nb.njit(cache=True, _nrt=False)
def judge(q, view, tab, A, n_cand, rollouts, seed, check, cross):
    """Play ``rollouts`` sampled tables out once per candidate (W[SW_CAND:]); W[SW_TOTAL + c]
    and W[SW_SQUARE + c] sum this seat's net from the decision on and its square (with ``cross``,
    W[SW_CROSS + c*MAX_CAND + d] the products of two candidates' nets on one table).
    Returns the tables played (a table the sampler cannot build is skipped)."""
    return judge_more(q, view, tab, A, n_cand, I64(0), rollouts, seed, check, cross)


@nb.njit(cache=True, _nrt=False)
def judge_more(q, view, tab, A, n_cand, k0, k1, seed, check, cross):
    """``judge`` over tables k0..k1-1, adding to the sums (reset when k0 is 0): a search can
    extend a decision's budget where its candidates are close. Returns the tables played."""
    me = view[V_ME]
    W = work_of(A)
    n_len = A[AR_STATE_LEN]
    addr = view[V_ARENA]
    base = int64_ptr(addr + 8 * AR_STATES)
    work = int64_ptr(addr + 8 * (AR_STATES + n_len))
    for c in range(n_cand):
        if k0 > 0:
            break
        W[SW_TOTAL + c] = 0
        W[SW_SQUARE + c] = 0
        for d in range(n_cand):
            W[SW_CROSS + c * MAX_CAND + d] = 0
    done = 0
    for k in range(k0, k1):
        if not sample_state(view, tab, A, base, seed, I64(k), check):
            continue
        done += 1
        for c in range(n_cand):
            for i in range(n_len):
                work[i] = base[i]
            set_answer(work, me, q, W[SW_CAND + c])
            play_on(work, I64(0))
            x = net_at(work, me)
            W[SW_TOTAL + c] += x
            W[SW_SQUARE + c] += x * x
            W[SW_X + c] = x
        if cross:
            for c in range(n_cand):
                for d in range(n_cand):
                    W[SW_CROSS + c * MAX_CAND + d] += W[SW_X + c] * W[SW_X + d]
    return done


@nb.njit(cache=True, _nrt=False)
def _searched(q, view, tab):
    """Whether the seat's parameters search this question: ``decisions`` picks the kinds of play
    question, ``near`` how far from ready a play question's hand may be (the learned play's gate:
    ``learned.choose``); the exchange and the void always."""
    if q == Q_EXCHANGE or q == Q_VOID:
        return True
    d = param_int(view, P_DECISIONS)
    if (d == 1 and q != Q_TURN) or (d == 2 and q != Q_CLAIM and q != Q_ROB):
        return False
    near = param_int(view, P_NEAR)
    return near >= 8 or min(shanten_of(tab, prepare(tab, view, I64(0))), 8) <= near


@parameters(*PARAMS, rollout="policy")
@nb.njit(cache=True, _nrt=False)
def search(q, view, tab):
    """Plays each reasonable answer out from sampled tables (rollouts per candidate, the rollout policy at every seat) and picks the best mean net, when clearly better than the policy's: slow (tens of hands a second)."""
    A = int64_ptr(view[V_ARENA])
    own = _policy_answer(q, view, tab, A)
    W = work_of(A)
    W[SW_N] = 0
    if not _searched(q, view, tab):
        return own
    W[WK_SHAPE] = I64(param_float(view, P_SHAPE) * 1000.0 + 0.5)
    n = candidates(q, view, tab, own, W, param_int(view, P_CANDIDATES), param_float(view, P_VOID_CLOSE))
    if n <= 1:
        return own
    seed = I64(rand_u64(view) >> np.uint64(2))
    k = param_int(view, P_ROLLOUTS)
    top = max(param_int(view, P_MAX_ROLLOUTS), k)
    if q == Q_EXCHANGE:  # a rollout from the deal is a whole hand: far noisier
        k *= EXCHANGE_BUDGET
        top *= EXCHANGE_BUDGET
    elif q == Q_VOID:
        k *= VOID_BUDGET
        top *= VOID_TOP_BUDGET
    margin = param_float(view, P_MARGIN)
    m = judge(q, view, tab, A, n, k, seed, False, True)
    while k < top and m > 0:  # a challenger neither clearly worse nor clearly better: more tables
        z = _best_z(W, n, m)
        if z < 0.5 or z > margin + 1.5:
            break
        k2 = min(2 * k, top)
        m += judge_more(q, view, tab, A, n, k, k2, seed, False, True)
        k = k2
    if m == 0:
        return own
    W[SW_N] = n   # what was judged, for decision datasets (``simcore.env.dataset``)
    W[SW_M] = m
    return W[SW_CAND + _pick(W, n, m, margin)]


@nb.njit(cache=True, _nrt=False)
def _best_z(W, n, m):
    """The largest paired z score of a candidate's mean over the policy's answer (candidate 0)."""
    best = -1e9
    for c in range(1, n):
        d = (W[SW_TOTAL + c] - W[SW_TOTAL]) / m
        var = (W[SW_SQUARE + c] - 2 * W[SW_CROSS + c * MAX_CAND] + W[SW_SQUARE]) / m - d * d
        z = d / np.sqrt(var / m) if var > 0 else (1e9 if d > 0 else -1e9)
        best = max(best, z)
    return best


@nb.njit(cache=True, _nrt=False)
def _pick(W, n, m, margin):
    """The candidate with the best mean net among those better than the policy's own answer
    (candidate 0) by ``margin`` standard errors of the paired difference; 0 when none is."""
    best = 0
    best_d = 0.0
    for c in range(1, n):
        d = (W[SW_TOTAL + c] - W[SW_TOTAL]) / m
        var = (W[SW_SQUARE + c] - 2 * W[SW_CROSS + c * MAX_CAND] + W[SW_SQUARE]) / m - d * d
        if d > best_d and d * d * m > margin * margin * max(var, 0.0) and d > 0:
            best = c
            best_d = d
    return best


# -- from Python (``simcore.inspection.review``) -----------------------------------------------------------


@nb.njit(cache=True)
def judge_posed(S, seat, tab, A, keep, rollouts, seed, actual, shape_milli, out):
    """Judge the question posed to ``seat`` in the stopped hand S (``simcore.engine.pose``) with
    the arena A (``simcore.engine.arena_for``): the candidates (``keep`` discards on a turn, every
    suit at the void, and the seat's ``actual`` answer), each played out on ``rollouts`` sampled
    tables (their opponents' shanten weighted by ``shape_milli``/1000, ``simcore.engine.sample``). Writes to out:
    [0] candidates n, [1] tables played, then n answers, n totals, n sums of squares and the n*n
    cross products. Returns n."""
    P = data_ptr(S)
    view = view_at(P, seat)
    Ap = data_ptr(A)
    view[V_ARENA] = address_of(Ap)
    q = view[V_QUESTION]
    W = work_of(Ap)
    W[WK_SHAPE] = shape_milli
    own = _policy_answer(q, view, tab, Ap)
    n = candidates(q, view, tab, own, W, keep, ALL_VOIDS)
    if actual >= 0:
        n = _add(W, n, actual)
    out[0] = n
    out[1] = judge(q, view, tab, Ap, n, rollouts, seed, False, True)
    for c in range(n):
        out[2 + c] = W[SW_CAND + c]
        out[2 + n + c] = W[SW_TOTAL + c]
        out[2 + 2 * n + c] = W[SW_SQUARE + c]
        for d in range(n):
            out[2 + 3 * n + c * n + d] = W[SW_CROSS + c * MAX_CAND + d]
    return n


@nb.njit(cache=True)
def ask_posed(S, seat, tab, group, A):
    """The answer the seat's own strategy of ``group`` (0 play, 1 exchange, 2 void) gives to
    the question posed in S, with arena A (length 0: none)."""
    P = data_ptr(S)
    view = view_at(P, seat)
    view[V_ARENA] = address_of(data_ptr(A)) if A.shape[0] > 0 else 0
    return answer_at(S, group, seat, view[V_QUESTION], view, tab)
