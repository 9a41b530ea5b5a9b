"""``learned``: expert, corrected by a model trained from search (README: Learned players).

At each question of play with more than one answer, no farther from ready than the model's
``max_shanten`` (``strategies.models``), the seat asks expert, then scores the answers
worth judging (as the search judges them: expert's, a win, the legal kongs, the discards near the
top of a fast ranking, on a turn none that leaves the hand farther from ready than expert's
answer; at a claim every legal answer) with the model it carries
(``strategies.models``), whose value is a candidate's predicted advantage over expert's answer
from its features (``strategies.features``). It plays the best candidate when that advantage
exceeds ``margin`` (the model file's own unless the seat spec sets one: chosen on validation hands,
or given to ``sichuan learn``, as the shipped models' -0.25 is, from duplicate play),
else expert's answer. Its first parameters are expert's (``params.wraps``); its own follow.

The model is a parameter: ``learned[model=FILE]``; bare ``learned`` plays the shipped model of
the table's rules (``strategies/models/<preset>.npz``). The registry loads a model once a process,
keeps it, and puts its address in the seat's parameter slot; the kernel hands it to the strategy
read-only (check mode verifies it is not written: ``simcore.runs.batch``).

``learned_exchange`` and ``learned_void`` (``exchange=learned``, ``void=learned``) correct expert's
exchange and void the same way, with models of those questions (``strategies.deal_features``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.nrt import address_of, data_ptr, float64_ptr, int64_ptr
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS
from simcore.contract.view import (A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, Q_CLAIM, Q_ROB, Q_TURN,
                                   V_CAN_KONG, V_CAN_PUNG, V_CAN_WIN, V_HAND, V_KONG_MASK, V_LOCKED, V_ME,
                                   V_MUST_VOID, V_SCRATCH, V_VOID, V_FLOW, own_param_float, own_param_int,
                                   unpack3)
from strategies.core import (INF, NO_KEY, NO_TILE, discard_shantens, live_draws, near_mask, plus_classes, prepare,
                             shanten_moved, shanten_of, ukeire, ukeire_fast)
from strategies.features import (C0, D0, FEATURE_VERSION, N_DELTA, N_FEATURES, candidate_features,
                                 decision_features, delta, keep_delta, kong_shanten)
from strategies import exchange as _exchange
from strategies import void as _void
from strategies.deal_features import (EX_C0, EX_D0, EXCHANGE_DELTA_OF, EXCHANGE_FEATURE_VERSION, N_EXCHANGE,
                                      N_EXCHANGE_CANDIDATE, N_VOID, N_VOID_CANDIDATE, VO_C0, VO_D0, VOID_DELTA_OF,
                                      VOID_FEATURE_VERSION, deal_delta, exchange_candidate, exchange_decision,
                                      void_candidate, void_decision)
from strategies.exchange import isolated_three, suit_count
from strategies.expert import SCR_PLUS, SCR_SHANTEN, expert
from strategies.models import P_MARGIN, P_MAX_SHANTEN, predict
from strategies.params import Param, wraps

# expert's pure work areas (``play``'s SCR_SHANTEN and SCR_PLUS, V_SCRATCH .. +54, rebuilt at each
# use; ``play.threats`` writes them too, so they are taken only after it ran) hold the feature row
# and what ``features.delta`` subtracts of expert's answer's while the candidates are scored
SCR_X = V_SCRATCH                        # the feature row (float64 bits), N_FEATURES slots
SCR_OWN = SCR_X + N_FEATURES             # expert's answer's features ``delta`` subtracts, N_DELTA slots
assert SCR_OWN + N_DELTA <= V_SCRATCH + 54


@nb.njit(cache=True, _nrt=False)
def _own_shanten(tab, view, st, own):
    """Shanten after expert's answer ``own`` on a turn, as the feature ``shanten_after`` counts it."""
    if own == A_WIN:
        return np.int64(-1)
    if A_KONG <= own < A_KONG + N_KINDS:
        return min(kong_shanten(tab, view, st, np.int64(own - A_KONG)), 8)
    return min(shanten_moved(tab, view, st, np.int64(own), NO_TILE), 8)


@nb.njit(cache=True, _nrt=False)
def ranked_discards(tab, view, st, own, keep, limit):
    """The bit set of the ``keep`` best discards of a fast ranking (lowest shanten after the
    discard, then the most live improving tiles, then the lower tile), expert's own excepted,
    and none that leaves the hand farther from ready than ``limit`` (expert's answer's shanten:
    ``features.scored``).
    One key a held kind, built with expert's fast machinery in its work areas (``SCR_SHANTEN``
    then holds the keys, ``SCR_PLUS`` the draws' classes)."""
    ignore = st.ignore
    discard_shantens(tab, view, st, SCR_SHANTEN)
    near = near_mask(view, st)
    draws = live_draws(view, near)
    plus_classes(tab, view, st, draws, SCR_PLUS)
    void = view[V_VOID + view[V_ME]]
    must = view[V_MUST_VOID]
    junk = np.int64(-1)
    for t in range(N_KINDS):
        sh = view[SCR_SHANTEN + t]
        if view[V_HAND + t] == 0 or (must and t // N_RANKS != void) or t == own or min(sh, 8) > limit:
            view[SCR_SHANTEN + t] = NO_KEY
            continue
        target = min(sh, INF)
        if not (ignore >> (t // N_RANKS)) & 1:
            acc = ukeire_fast(tab, view, st, np.int64(t), target, draws, SCR_PLUS)
        else:   # a tile of an ignored suit: taking it out changes nothing, every one keeps the same
            if junk < 0:
                junk = ukeire(tab, view, st, np.int64(t), target, near)
            acc = junk
        view[SCR_SHANTEN + t] = sh * 4096 + (4095 - min(acc, 4095))
    chosen = np.int64(0)
    for _ in range(keep):
        best_t = -1
        best_key = NO_KEY
        for t in range(N_KINDS):
            if view[SCR_SHANTEN + t] < best_key and not (chosen >> t) & 1:
                best_key, best_t = view[SCR_SHANTEN + t], t
        if best_t < 0:
            break
        chosen |= np.int64(1) << best_t
    return chosen


@nb.njit(cache=True, _nrt=False)
def _score(tab, view, q, a, own, deadly, ready, M, X, own_delta):
    candidate_features(tab, view, q, a, own, deadly, ready, X, np.int64(C0))
    delta(X, own_delta, np.int64(D0))
    return predict(M, X)


@nb.njit(cache=True, _nrt=False)
def choose(tab, view, q, own, model_address, margin, keep):
    """The answer the model prefers to expert's ``own`` by more than ``margin``, else ``own``:
    the candidates are those the search judges (a win, the legal kongs, ``keep`` discards of a
    fast ranking; at a claim every legal answer), at a decision no farther from ready than the
    model's ``max_shanten``, and on a turn only those leaving the hand no farther from ready than
    expert's answer (elsewhere the labels show no gain over expert's answer: the seat saves the
    scoring; ``features.scored`` keeps the same rows for training)."""
    M = float64_ptr(model_address)
    st = prepare(tab, view, np.int64(0))
    if min(shanten_of(tab, st), 8) > M[P_MAX_SHANTEN]:   # features: shanten_now
        return own
    if q == Q_TURN:
        if view[V_LOCKED] and not view[V_CAN_WIN] and not view[V_KONG_MASK]:
            return own
        limit = _own_shanten(tab, view, st, own)
        discards = np.int64(0) if view[V_LOCKED] else ranked_discards(tab, view, st, own, keep, limit)
        kongs = np.int64(0)
        for t in range(N_KINDS):
            if (view[V_KONG_MASK] >> t) & 1 and A_KONG + t != own and \
                    min(kong_shanten(tab, view, st, np.int64(t)), 8) <= limit:
                kongs |= np.int64(1) << t
        win = view[V_CAN_WIN] != 0 and own != A_WIN
        if not (discards or kongs or win):
            return own
    else:
        claims = (1 << C_PASS) | ((1 << C_WIN) if view[V_CAN_WIN] else 0)
        if q == Q_CLAIM:
            claims |= ((1 << C_PUNG) if view[V_CAN_PUNG] else 0) | ((1 << C_KONG) if view[V_CAN_KONG] else 0)
        claims &= ~(1 << own)
        if not claims:
            return own
    base = address_of(data_ptr(view))
    X = float64_ptr(base + 8 * SCR_X)
    own_delta = float64_ptr(base + 8 * SCR_OWN)
    deadly, ready = decision_features(tab, view, q, X)
    candidate_features(tab, view, q, own, own, deadly, ready, X, np.int64(C0))
    keep_delta(X, own_delta)
    best = own
    best_p = margin
    if q == Q_TURN:
        if win:
            p = _score(tab, view, q, np.int64(A_WIN), own, deadly, ready, M, X, own_delta)
            if p > best_p:
                best_p, best = p, np.int64(A_WIN)
        for t in range(N_KINDS):
            if (kongs >> t) & 1:
                p = _score(tab, view, q, np.int64(A_KONG + t), own, deadly, ready, M, X, own_delta)
                if p > best_p:
                    best_p, best = p, np.int64(A_KONG + t)
            if (discards >> t) & 1:
                p = _score(tab, view, q, np.int64(t), own, deadly, ready, M, X, own_delta)
                if p > best_p:
                    best_p, best = p, np.int64(t)
    else:
        for c in range(4):
            if (claims >> c) & 1:
                p = _score(tab, view, q, np.int64(c), own, deadly, ready, M, X, own_delta)
                if p > best_p:
                    best_p, best = p, np.int64(c)
    return best


@wraps(expert,
       Param.model("model", "the model file it plays (a sichuan learn output)", FEATURE_VERSION, N_FEATURES),
       Param.float("margin", -1.0, -1.0, 1000.0, "plays a candidate only when its predicted advantage over expert's "
                   "answer exceeds this many points (any negative value: the model file's own, which may be "
                   "negative: the shipped models' is -0.25)"),
       Param.int("candidates", 3, 1, 14, "discards of the fast ranking it scores besides expert's own"))
@nb.njit(cache=True, _nrt=False)
def learned(q, view, tab):
    """expert, corrected by a model trained from search: where the model predicts a candidate
    beats expert's answer by more than the margin, plays it."""
    own = expert(q, view, tab)
    if q != Q_TURN and q != Q_CLAIM and q != Q_ROB:
        return own
    models = own_param_int(view, 0)
    if models == 0:
        return own
    address = int64_ptr(models)[1 if view[V_FLOW] else 0]
    if address == 0:
        return own
    margin = own_param_float(view, 1)
    if margin < 0.0:
        margin = float64_ptr(address)[P_MARGIN]
    return choose(tab, view, q, own, address, margin, own_param_int(view, 2))


# -- the exchange and void policies (``exchange=learned``, ``void=learned``) -------------------------
# Their feature row and the expert policy's answer's block sit at the start of the scratch, which
# the engine zeroes each hand before the exchange; they clear it again, so the play finds it zeroed.
SCR_DEAL_X = V_SCRATCH
SCR_DEAL_OWN = V_SCRATCH + max(N_EXCHANGE, N_VOID)
DEAL_SCRATCH = max(N_EXCHANGE, N_VOID) + max(N_EXCHANGE_CANDIDATE, N_VOID_CANDIDATE)


@nb.njit(cache=True, _nrt=False)
def _deal_model(view):
    """(the model's address for the table's blood or 0, the margin) of a learned exchange or void
    policy (its own parameters: the model, then the margin)."""
    models = own_param_int(view, 0)
    if models == 0:
        return np.int64(0), 0.0
    address = int64_ptr(models)[1 if view[V_FLOW] else 0]
    margin = own_param_float(view, 1)
    if address != 0 and margin < 0.0:
        margin = float64_ptr(address)[P_MARGIN]
    return address, margin


@nb.njit(cache=True, _nrt=False)
def _clear_deal_scratch(view):
    for i in range(DEAL_SCRATCH):
        view[V_SCRATCH + i] = 0


@wraps(_exchange.plans,
       Param.model("model", "the exchange model file it plays (sichuan learn --decision exchange)",
                   EXCHANGE_FEATURE_VERSION, N_EXCHANGE, "exchange"),
       Param.float("margin", -1.0, -1.0, 1000.0, "passes another suit's three only when their predicted advantage "
                   "over expert's pick exceeds this many points (-1: the model's own)"),
       scratch=DEAL_SCRATCH)
@nb.njit(cache=True, _nrt=False)
def learned_exchange(q, view, tab):
    """expert's exchange, corrected by a model trained from search: of expert's pick and each other
    eligible suit's three most isolated tiles, passes the one the model predicts best by more than
    the margin."""
    own = _exchange.plans(q, view, tab)
    address, margin = _deal_model(view)
    if address == 0:
        return own
    M = float64_ptr(address)
    base = address_of(data_ptr(view))
    X = float64_ptr(base + 8 * SCR_DEAL_X)
    own_block = float64_ptr(base + 8 * SCR_DEAL_OWN)
    exchange_decision(tab, view, X)
    exchange_candidate(tab, view, own, own, own_block, np.int64(0))
    own_suit = unpack3(own)[0] // N_RANKS
    best, best_p = own, margin
    for s in range(N_SUITS):
        if s == own_suit or suit_count(view, s) < 3:
            continue
        pick = isolated_three(view, np.int64(s))
        exchange_candidate(tab, view, pick, own, X, np.int64(EX_C0))
        deal_delta(X, own_block, np.int64(EX_D0), np.int64(EX_C0), EXCHANGE_DELTA_OF)
        p = predict(M, X)
        if p > best_p:
            best, best_p = pick, p
    _clear_deal_scratch(view)
    return best


@wraps(_void.plans,
       Param.model("model", "the void model file it plays (sichuan learn --decision void)",
                   VOID_FEATURE_VERSION, N_VOID, "void"),
       Param.float("margin", -1.0, -1.0, 1000.0, "voids another suit only when its predicted advantage over "
                   "expert's suit exceeds this many points (-1: the model's own)"),
       scratch=DEAL_SCRATCH)
@nb.njit(cache=True, _nrt=False)
def learned_void(q, view, tab):
    """expert's void, corrected by a model trained from search: of the three suits, voids the one
    the model predicts best by more than the margin over expert's."""
    own = _void.plans(q, view, tab)
    address, margin = _deal_model(view)
    if address == 0:
        return own
    M = float64_ptr(address)
    base = address_of(data_ptr(view))
    X = float64_ptr(base + 8 * SCR_DEAL_X)
    own_block = float64_ptr(base + 8 * SCR_DEAL_OWN)
    void_decision(tab, view, X)
    void_candidate(tab, view, own, own, own_block, np.int64(0))
    best, best_p = own, margin
    for s in range(N_SUITS):
        if s == own:
            continue
        void_candidate(tab, view, np.int64(s), own, X, np.int64(VO_C0))
        deal_delta(X, own_block, np.int64(VO_D0), np.int64(VO_C0), VOID_DELTA_OF)
        p = predict(M, X)
        if p > best_p:
            best, best_p = np.int64(s), p
    _clear_deal_scratch(view)
    return best
