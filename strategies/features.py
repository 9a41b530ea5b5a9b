"""The learned players' inputs: features of one candidate answer to a question of play, computed
from the seat's view with expert's own machinery (its plan values, waits, the danger of a tile),
the one function used both when a ``learned`` seat plays and when training rows are made from the
views a dataset keeps (``simcore.env.dataset``: the ``view`` column).

A row is the decision's features (the same for every candidate), the candidate's, and the
candidate's less those of expert's own answer at the same decision (the model learns a candidate's
advantage over expert's answer, ``strategies.learned``). The view's play parameter slots must hold
expert's parameters (a ``learned`` seat's do: its first parameters are expert's), and its scratch
is used as expert's work space: nothing read from it was left by an earlier question except what
``play.threats`` rebuilds from the discards, so a view taken from a dataset (scratch zeroed) gives
the features the table gave.

``FEATURE_VERSION`` names this layout; a model records the version it was trained on, and a model
of another version, or of another number of features, is refused when a ``learned`` seat is parsed
(``strategies.params.Param.model``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.view import (A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, M_KONG_ADDED, M_KONG_CONCEALED,
                                   M_KONG_EXPOSED, M_PUNG, Q_CLAIM, Q_TURN, V_FROM, V_OUT,
                                   V_CAN_WIN, V_FLOW, V_HAND, V_ME, V_MELD_KIND, V_MELD_TILE,
                                   V_MUST_VOID, V_N_MELDS, V_QUESTION, V_TILE, V_VISIBLE, V_VOID, V_WALL_LEFT, V_WINS,
                                   param_float)
from strategies.core import (INF, NO_TILE, isolation, live, near_mask, prepare, shanten_minus, shanten_moved,
                             shanten_of, suit_weight, ukeire_weighted)
from strategies.exchange import suit_count
from strategies.expert import (P_DECAY, P_FLOW_DECAY, P_PACE, P_PUNG_ODDS, P_SUIT_ODDS, SCR_VALUE, SCR_WAITS,
                               _liable, _p_win, _payoff, _roots, _rule, _sets_in, _suit_weights, _unseen, _wait_worth)
from strategies.play import danger, seats_playing, shanten_after_pung, threats
from strategies.value import wait_values, win_context, win_value
from simcore.contract.rules import R_KONG_PAY_ADDED, R_KONG_PAY_CONCEALED, R_KONG_PAY_EXPOSED
from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS

FEATURE_VERSION = 3
I64 = np.int64
ONE, THREE, FOUR = I64(1), I64(3), I64(4)

DECISION_NAMES = ("question", "wall_left", "flow", "wins", "playing", "melds", "must_void", "likely_ready",
                  "ready_sum", "deadly_waits", "shanten_now", "unseen", "roots", "win_payoff", "skipped")
CANDIDATE_NAMES = ("is_own", "kind", "shanten_after", "accepted", "plan_value", "danger", "isolation", "tile_seen",
                   "tile_in_void", "wait_worth", "win_base", "kong_pay", "shanten_gain",
                   "wait_kinds", "wait_live", "wait_forced", "wait_top", "wait_self_top", "flush_gap")
DELTA_NAMES = ("d_shanten_after", "d_accepted", "d_plan_value", "d_danger", "d_wait_worth", "d_wait_live",
               "d_wait_top")
NAMES = DECISION_NAMES + CANDIDATE_NAMES + DELTA_NAMES
N_DECISION, N_CANDIDATE, N_DELTA = len(DECISION_NAMES), len(CANDIDATE_NAMES), len(DELTA_NAMES)
N_FEATURES = len(NAMES)
C0, D0 = N_DECISION, N_DECISION + N_CANDIDATE
DECISION_INDEX = {name: i for i, name in enumerate(DECISION_NAMES)}
# the candidate's kind (feature "kind")
K_DISCARD, K_KONG, K_WIN, K_PASS, K_PUNG = 0, 1, 2, 3, 4
# what ``delta`` subtracts: a candidate feature's index within the candidate block
DELTA_OF = (2, 3, 4, 5, 9, 14, 16)


@nb.njit(cache=True, _nrt=False)
def decision_features(tab, view, q, X):
    """The decision's features into X[0:N_DECISION]; returns (deadly, ready) for the candidates."""
    me = view[V_ME]
    deadly, ready = threats(tab, view)
    likely = 0
    total = 0
    for o in range(4):
        pr = (ready >> (16 * o)) & 0xFFFF
        total += pr
        likely += pr > 500
    n_deadly = 0
    for t in range(N_KINDS):
        n_deadly += (deadly >> t) & 1
    st = prepare(tab, view, I64(0))
    roots = _roots(view)
    X[0] = 0.0 if q == Q_TURN else (1.0 if q == Q_CLAIM else 2.0)
    X[1] = view[V_WALL_LEFT]
    X[2] = view[V_FLOW]
    X[3] = view[V_WINS + me]
    X[4] = seats_playing(view)
    X[5] = view[V_N_MELDS + me]
    X[6] = view[V_MUST_VOID]
    X[7] = likely
    X[8] = total / 1000.0
    X[9] = n_deadly
    X[10] = min(shanten_of(tab, st), 8)
    X[11] = _unseen(view)
    X[12] = roots
    X[13] = _payoff(view, roots)
    X[14] = 0.0
    if q == Q_CLAIM:   # the seats still playing that a claim would skip (their draw is lost)
        o = (view[V_FROM] + 1) % 4
        while o != me:
            X[14] += view[V_OUT + o] == 0
            o = (o + 1) % 4
    return deadly, ready


@nb.njit(cache=True, _nrt=False)
def _kong_pay(view, t):
    """What declaring a kong of t is paid now: concealed, added to its pung, or on a discard."""
    me = view[V_ME]
    for i in range(view[V_N_MELDS + me]):
        if view[V_MELD_KIND + me * 4 + i] == M_PUNG and view[V_MELD_TILE + me * 4 + i] == t:
            return float(_liable(view) * _rule(view, R_KONG_PAY_ADDED))
    if view[V_HAND + t] == 4:
        return float(_liable(view) * _rule(view, R_KONG_PAY_CONCEALED))
    return float(_rule(view, R_KONG_PAY_EXPOSED))


@nb.njit(cache=True, _nrt=False)
def _accepted(tab, view, st, now, near, w, w_pair):
    """The live tiles (weighted as ``core.ukeire_weighted`` weighs them) that bring the seat's
    concealed tiles as they are below shanten ``now``."""
    n = 0
    for u in range(N_KINDS):
        if (near >> u) & 1 and live(view, u) > 0 and shanten_moved(tab, view, st, NO_TILE, I64(u)) < now:
            n += live(view, u) * suit_weight(w_pair if view[V_HAND + u] >= 2 else w, u // N_RANKS)
    return n


@nb.njit(cache=True, _nrt=False)
def kong_shanten(tab, view, st, t):
    """Shanten after declaring a kong of t on one's turn: added to a pung (one tile leaves the
    hand) or concealed (four leave, one set more)."""
    if view[V_HAND + t] < 4:
        return shanten_moved(tab, view, st, t, NO_TILE)
    return shanten_minus(tab, view, st, t, FOUR, ONE)


def scored(x: np.ndarray, max_shanten: int) -> np.ndarray:
    """Which feature rows (one a candidate) a ``learned`` seat scores with its model, as it gates
    them before computing any (``strategies.learned.choose``): decisions at most ``max_shanten``
    from ready, and on a turn only answers that leave the hand no farther from ready than
    expert's (the labels show no gain in the others: README, Learned players). Training keeps
    the same rows."""
    near = x[:, DECISION_INDEX["shanten_now"]] <= max_shanten
    turn = x[:, DECISION_INDEX["question"]] == 0
    return near & ~(turn & (x[:, D0 + DELTA_NAMES.index("d_shanten_after")] > 0))


@nb.njit(cache=True, _nrt=False)
def _waits_into(tab, view, discard, w, X, o):
    """The waits of the seat's concealed tiles less ``discard`` (``NO_TILE``: as they are) into
    the candidate block at X[o:]: what expert's ``_wait_worth`` makes of them, how many kinds,
    their live copies, those of a suit a still-playing opponent is voiding (it discards every
    one it draws: ``expert._lets_go``), and the largest base one pays on a discard and as a
    self-draw. Returns the live copies weighted as ``core.ukeire_weighted`` weighs them (0 when
    the tiles are not ready)."""
    mask, total = wait_values(tab, view, discard, SCR_VALUE, SCR_WAITS)
    if mask == 0:
        return 0.0
    me = view[V_ME]
    kinds = 0
    forced = 0
    top = 0
    self_top = 0
    weighted = 0.0
    for u in range(N_KINDS):
        if (mask >> u) & 1:
            kinds += 1
            n = view[SCR_WAITS + 2 * N_KINDS + u]
            weighted += n * suit_weight(w, u // N_RANKS)
            for p in range(4):
                if p != me and not view[V_OUT + p] and view[V_VOID + p] == u // N_RANKS:
                    forced += n
                    break
            top = max(top, view[SCR_WAITS + u])
            self_top = max(self_top, view[SCR_WAITS + N_KINDS + u])
    X[o + 9] = _wait_worth(view, mask, w)
    X[o + 13] = kinds
    X[o + 14] = total
    X[o + 15] = forced
    X[o + 16] = top
    X[o + 17] = self_top
    return weighted


@nb.njit(cache=True, _nrt=False)
def _flush_gap(view, plus, minus):
    """The seat's tiles (concealed and declared, with ``plus`` added and ``minus`` taken out,
    NO_TILE for none) outside its most-held suit: 0 is a flush."""
    me = view[V_ME]
    total = most = 0
    for s in range(N_SUITS):
        n = suit_count(view, s) + 3 * _sets_in(view, me, s) + (plus // N_RANKS == s) - (minus // N_RANKS == s)
        total += n
        most = max(most, n)
    return total - most


@nb.njit(cache=True, _nrt=False)
def _meld(view, t, take, kind):
    """Declare a set of t in the view: ``take`` of its tiles leave the hand, and the seat's pung
    of t becomes ``kind`` (an added kong) or a new set of ``kind`` is listed. Returns where it
    went (``_unmeld`` puts the view back; nothing else reads the view in between)."""
    me = view[V_ME]
    view[V_HAND + t] -= take
    k = view[V_N_MELDS + me]
    for i in range(k):
        if view[V_MELD_KIND + me * 4 + i] == M_PUNG and view[V_MELD_TILE + me * 4 + i] == t and kind != M_PUNG:
            view[V_MELD_KIND + me * 4 + i] = kind
            return I64(i)
    view[V_MELD_KIND + me * 4 + k] = kind
    view[V_MELD_TILE + me * 4 + k] = t
    view[V_N_MELDS + me] = k + 1
    return I64(-1)


@nb.njit(cache=True, _nrt=False)
def _unmeld(view, t, take, i, slot_kind, slot_tile):
    """Undo ``_meld`` (``slot_kind``, ``slot_tile``: what the set's slot held before)."""
    me = view[V_ME]
    view[V_HAND + t] += take
    if i >= 0:
        view[V_MELD_KIND + me * 4 + i] = M_PUNG
    else:
        k = view[V_N_MELDS + me] - 1
        view[V_MELD_KIND + me * 4 + k] = slot_kind
        view[V_MELD_TILE + me * 4 + k] = slot_tile
        view[V_N_MELDS + me] = k


@nb.njit(cache=True, _nrt=False)
def _declared_waits(tab, view, t, take, kind, w, X, o):
    """The waits once a set of t is declared (a kong: the tiles left as they are; a pung: after
    the discard whose waits expert's ``_wait_worth`` values most, of those the seat may make),
    into X[o:] as ``_waits_into`` puts them; returns (the weighted live copies, the discard or
    ``NO_TILE``)."""
    me = view[V_ME]
    k = view[V_N_MELDS + me]
    if k >= 4 and kind != M_KONG_ADDED:
        return 0.0, NO_TILE
    slot = me * 4 + min(k, 3)
    slot_kind, slot_tile = view[V_MELD_KIND + slot], view[V_MELD_TILE + slot]
    i = _meld(view, t, take, kind)
    best_d = NO_TILE
    weighted = 0.0
    if kind != M_PUNG:
        weighted = _waits_into(tab, view, NO_TILE, w, X, o)
    else:
        void = view[V_VOID + me]
        holds_void = void < N_SUITS and suit_count(view, void) > 0
        best = -1.0
        for u in range(N_KINDS):
            if view[V_HAND + u] == 0 or (holds_void and u // N_RANKS != void):
                continue
            mask, _ = wait_values(tab, view, I64(u), SCR_VALUE, SCR_WAITS)
            if mask:
                v = _wait_worth(view, mask, w)
                if v > best:
                    best, best_d = v, I64(u)
        if best_d != NO_TILE:
            weighted = _waits_into(tab, view, best_d, w, X, o)
    _unmeld(view, t, take, i, slot_kind, slot_tile)
    return weighted, best_d


@nb.njit(cache=True, _nrt=False)
def candidate_features(tab, view, q, ans, own, deadly, ready, X, o):
    """Answer ``ans``'s features into X[o:o + N_CANDIDATE] (``own``: expert's answer). A kong or
    pung that leaves the hand ready is valued by the waits it leaves (a pung's after its best
    discard, whose danger is the candidate's), as a discard's or a pass's are."""
    for i in range(N_CANDIDATE):
        X[o + i] = 0.0
    st = prepare(tab, view, I64(0))
    now = min(shanten_of(tab, st), 8)
    pace = param_float(view, P_PACE)
    decay = param_float(view, P_FLOW_DECAY if view[V_FLOW] else P_DECAY)
    w, wp = _suit_weights(view, param_float(view, P_SUIT_ODDS), param_float(view, P_PUNG_ODDS))
    worth = _payoff(view, _roots(view))
    X[o] = 1.0 if ans == own else 0.0
    t = I64(-1)
    sh = now
    if q == Q_TURN:
        if ans == A_WIN:
            X[o + 1] = K_WIN
            _, base = win_value(tab, view, NO_TILE, win_context(view, True), SCR_VALUE)
            X[o + 10] = base
            sh = I64(-1)
        elif A_KONG <= ans < A_KONG + N_KINDS:
            X[o + 1] = K_KONG
            t = I64(ans - A_KONG)
            sh = kong_shanten(tab, view, st, t)
            X[o + 11] = _kong_pay(view, t)
            if sh == 0:
                concealed = view[V_HAND + t] == 4
                acc, _ = _declared_waits(tab, view, t, FOUR if concealed else ONE,
                                         M_KONG_CONCEALED if concealed else M_KONG_ADDED, w, X, o)
                X[o + 3] = acc
                X[o + 4] = _p_win(view, I64(0), acc, pace, decay) * worth
        else:
            X[o + 1] = K_DISCARD
            t = I64(ans)
            sh = shanten_moved(tab, view, st, t, NO_TILE)
            if sh < INF:
                near = near_mask(view, st)
                acc = ukeire_weighted(tab, view, st, t, sh, near, w, wp if sh > 0 else w)
                X[o + 3] = acc
                X[o + 4] = _p_win(view, sh, acc, pace, decay) * worth
            X[o + 5] = danger(view, t, deadly, ready) / 1e6
            X[o + 6] = isolation(view, t)
            if sh == 0:
                _waits_into(tab, view, t, w, X, o)
    else:
        t = I64(view[V_TILE])
        if ans == C_WIN:
            X[o + 1] = K_WIN
            _, base = win_value(tab, view, t, win_context(view, False), SCR_VALUE)
            X[o + 10] = base
            sh = I64(-1)
        elif ans == C_PUNG:
            X[o + 1] = K_PUNG
            sh = shanten_after_pung(tab, view, st, t, I64(-1))
            if sh == 0:
                acc, d = _declared_waits(tab, view, t, I64(2), M_PUNG, w, X, o)
                X[o + 3] = acc
                X[o + 4] = _p_win(view, I64(0), acc, pace, decay) * worth
                if d != NO_TILE:
                    X[o + 5] = danger(view, d, deadly, ready) / 1e6
        elif ans == C_KONG:
            X[o + 1] = K_KONG
            sh = shanten_minus(tab, view, st, t, THREE, ONE)
            X[o + 11] = _kong_pay(view, t)
            if sh == 0:
                acc, _ = _declared_waits(tab, view, t, THREE, M_KONG_EXPOSED, w, X, o)
                X[o + 3] = acc
                X[o + 4] = _p_win(view, I64(0), acc, pace, decay) * worth
        else:
            X[o + 1] = K_PASS
            if view[V_CAN_WIN]:   # the win passed
                _, base = win_value(tab, view, t, win_context(view, False), SCR_VALUE)
                X[o + 10] = -base
        if ans == C_PASS and now < INF:
            acc = _accepted(tab, view, st, now, near_mask(view, st), w, wp if now > 0 else w)
            X[o + 3] = acc
            X[o + 4] = _p_win(view, now, acc, pace, decay) * worth
            if now == 0:
                _waits_into(tab, view, NO_TILE, w, X, o)
    X[o + 2] = min(sh, 8)
    if q == Q_TURN:   # a discard takes its tile out; a kong or a win keeps the suits as they are
        X[o + 18] = _flush_gap(view, NO_TILE, t if X[o + 1] == K_DISCARD else NO_TILE)
    else:             # a claim adds the tile (a pung's discard not counted), a pass keeps them
        X[o + 18] = _flush_gap(view, t if ans == C_PUNG or ans == C_KONG or ans == C_WIN else NO_TILE, NO_TILE)
    if t >= 0:
        X[o + 7] = view[V_VISIBLE + t]
        X[o + 8] = 1.0 if t // N_RANKS == view[V_VOID + view[V_ME]] else 0.0
    X[o + 12] = now - min(sh, 8)


@nb.njit(cache=True, _nrt=False)
def delta(X, own_delta, o):
    """X[o:o + N_DELTA]: the candidate's features less expert's own answer's (``own_delta``:
    those of its features ``DELTA_OF`` names, as ``keep_delta`` kept them)."""
    for i in range(N_DELTA):
        X[o + i] = X[C0 + DELTA_OF[i]] - own_delta[i]


@nb.njit(cache=True, _nrt=False)
def keep_delta(X, own_delta):
    """Keep what ``delta`` subtracts of the candidate block at X[C0:] (expert's answer's)."""
    for i in range(N_DELTA):
        own_delta[i] = X[C0 + DELTA_OF[i]]


@nb.njit(cache=True)
def view_features(tab, view, answers, own):
    """Every answer's feature row (len(answers) x N_FEATURES) at the question posed in ``view``,
    ``own`` expert's answer: what training rows are made of. Allocates; the strategy does not call it."""
    q = view[V_QUESTION]
    out = np.zeros((answers.shape[0], N_FEATURES), np.float64)
    x = np.zeros(N_FEATURES, np.float64)
    deadly, ready = decision_features(tab, view, q, x)
    own_delta = np.zeros(N_DELTA, np.float64)
    candidate_features(tab, view, q, own, own, deadly, ready, x, I64(C0))
    keep_delta(x, own_delta)
    for k in range(answers.shape[0]):
        candidate_features(tab, view, q, answers[k], own, deadly, ready, x, I64(C0))
        delta(x, own_delta, I64(D0))
        out[k] = x
    return out
