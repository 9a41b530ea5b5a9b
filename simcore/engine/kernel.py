"""The compiled entry points: a batch of hands or matches over ``prange`` (``play_batch``), a batch
that plays an arm only where it answers differently (``play_shadowed``), the value model's fit
(``play_fit``) and one traced hand (``play_traced``), each compiled for its own signature when
first needed (``batch_kernel``, ``shadowed_kernel``, ``fit_kernel``, ``traced``), and the block
set-up they share: the header, the strategies' addresses and the search arenas.

The batch splits hands into blocks of ``BLOCK`` over ``prange``; each block allocates one state
array (``simcore.engine.state``), so playing a hand allocates nothing.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract import view as vw

from simcore.contract.arena import AR_FNS, AR_HEADER, AR_LEN
from simcore.contract.nrt import address_of, data_ptr, strategy_addresses, unowned
from simcore.contract.records import ERR_NONE, N_PAY_FIELDS, N_WIN_FIELDS
from simcore.contract.rules import N_RULE_FIELDS, R_HANDS_PER_MATCH, R_START_POINTS
from simcore.contract.tiles import N_TILES
from simcore.engine.hand import play_hand, play_on, _write_rows
from simcore.engine.luck import N_FEATURES
from simcore.engine.luck_terms import fit_hand
from simcore.engine.options import OPT_DRAW_ORDER, OPT_LUCK_ON, OPT_VALUE
from simcore.engine.shadow import _seat_arm
from simcore.engine.state import (
    ALL_SEATS, AT_END, I64, O_ARENA, O_AT, O_CHECK, O_DRAW_ORDER, O_ERR, O_FIT, O_FIXED_END, O_FIXED_WALL,
    O_FIXED_WALL_N, O_FNS, O_G, O_LOG_CAP, O_LUCK_ON, O_NET, O_OFF_LOG, O_OFF_PBUF, O_OFF_SCRIPT, O_OFF_WBUF,
    O_PAUSE, O_PCAP, O_REVEALED_ROWS, O_RULES, O_SCORES_IN, O_SCRATCH_USE, O_SCRIPT_LEN, O_SEED, O_SH_DONE,
    O_SH_FNS, O_SH_K, O_SH_ON, O_SH_RNG, O_SH_SAME, O_SH_SCR, O_SH_SETUP, O_TAB, O_TAB_LEN, O_VALUE, O_WCAP,
    SH_DIFFERED, ZERO,
)
from simcore.engine.table import _v


BLOCK = 64
FIT_LEN = N_FEATURES * N_FEATURES + N_FEATURES + 3   # play_fit's sums of a block

_I64T = nb.types.int64
_FNS = nb.types.UniTuple(vw.STRATEGY_TYPE, 12)
_OUT2 = nb.types.int32[:, ::1]
_OUT3 = nb.types.int32[:, :, ::1]
SIG_BATCH = nb.types.void(nb.types.uint8[::1], _I64T[::1], _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _I64T, _I64T, _I64T,
                          nb.types.boolean, nb.types.boolean, _OUT2, _OUT3, _OUT3, _OUT3)
SIG_SHADOWED = nb.types.void(nb.types.uint8[::1], _I64T[::1], _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1],
                             _I64T, _I64T, _I64T, _I64T, nb.types.boolean, _OUT2, _OUT3, _OUT3, _OUT3, _OUT2, _OUT3,
                             _OUT3, _OUT3, nb.types.boolean[:, ::1])
SIG_FIT = nb.types.void(nb.types.uint8[::1], _I64T[::1], _I64T[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _I64T, _I64T, _I64T,
                        nb.types.float64[:, ::1])
SIG_TRACED = nb.types.void(nb.types.uint8[::1], _FNS, _I64T[::1], _FNS, _I64T[::1], _I64T, _I64T[::1], _I64T[::1],
                           _I64T, _I64T[::1], _OUT2, _OUT3, _OUT3, _OUT3)


@nb.njit(cache=True, _nrt=False)
def _init_header(S, R, OPT, seed, win_cap, pay_cap, check):
    """The header of a batch block's S: buffers right after the views, no script, no log."""
    S[O_OFF_WBUF] = O_FIXED_END
    S[O_OFF_PBUF] = O_FIXED_END + win_cap * N_WIN_FIELDS
    S[O_OFF_SCRIPT] = S[O_OFF_PBUF] + pay_cap * N_PAY_FIELDS
    S[O_OFF_LOG] = S[O_OFF_SCRIPT]
    S[O_WCAP] = win_cap
    S[O_PCAP] = pay_cap
    S[O_SCRIPT_LEN] = 0
    S[O_LOG_CAP] = 0
    S[O_CHECK] = 1 if check else 0
    S[O_SEED] = seed
    S[O_REVEALED_ROWS] = ALL_SEATS
    S[O_FIXED_WALL_N] = 0
    for i in range(N_RULE_FIELDS):
        S[O_RULES + i] = R[i]
    S[O_DRAW_ORDER] = OPT[OPT_DRAW_ORDER]
    S[O_LUCK_ON] = OPT[OPT_LUCK_ON]
    for i in range(N_FEATURES):
        S[O_VALUE + i] = OPT[OPT_VALUE + i]


@nb.njit(cache=True)
def _store_strategies(S, at, fns):
    """The twelve strategies' addresses (``nrt.strategy_addresses``) at S[at:at + 24], laid out as O_FNS."""
    for i in range(12):
        jit, c = strategy_addresses(fns[i])
        S[at + 2 * i] = jit
        S[at + 2 * i + 1] = c


@nb.njit(cache=True)
def _start_block(S, A, R, OPT, seed, win_cap, pay_cap, check, tab, fns, setup, rfns, arena):
    """A batch block's S (and its arena A, ``arena_len(arena)`` slots): header, players, arenas."""
    _init_header(S, R, OPT, seed, win_cap, pay_cap, check)
    _set_players(S, tab, fns, setup)
    _set_arenas(S, A, rfns, arena)


@nb.njit(cache=True)
def _set_players(S, tab, fns, setup):
    """The table's and the twelve strategies' addresses into the header (``nrt``), and what every
    view holds for the whole block: the rules, and each seat's strategies' parameters and scratch
    use (``setup``: ``view.SETUP_LEN`` slots, ``strategies.registry.setup_of``). The caller keeps ``tab``
    and ``fns`` alive while S is used."""
    S[O_TAB] = address_of(data_ptr(tab))
    S[O_TAB_LEN] = tab.shape[0]
    _store_strategies(S, O_FNS, fns)
    for s in range(4):
        v = _v(s)
        for i in range(N_RULE_FIELDS):
            S[v + vw.V_RULES + i] = S[O_RULES + i]
        for i in range(3 * vw.N_PARAMS):
            S[v + vw.V_PARAMS + i] = setup[s * 3 * vw.N_PARAMS + i]
        S[O_SCRATCH_USE + s] = min(max(setup[vw.SETUP_SCRATCH + s], 0), vw.N_SCRATCH)


@nb.njit(cache=True)
def arena_len(arena):
    """Slots of the search arenas of one table: every searching seat's (at least 1)."""
    n = 0
    for s in range(4):
        n += max(arena[s * AR_HEADER + AR_LEN], 0)
    return max(n, 1)


@nb.njit(cache=True)
def _set_arenas(S, A, rfns, arena):
    """Each searching seat's arena (``simcore.contract.arena``) in A: its template from ``arena``
    (``strategies.registry.Players.arena``), its rollout players' addresses from ``rfns``
    ([group*4 + seat]: the seat's rollout policy), its address in the header for the views."""
    off = 0
    base = address_of(A)
    for s in range(4):
        n = arena[s * AR_HEADER + AR_LEN]
        S[O_ARENA + s] = 0
        if n <= 0:
            continue
        for i in range(AR_HEADER):
            A[off + i] = arena[s * AR_HEADER + i]
        for g in range(3):
            jit, c = strategy_addresses(rfns[g * 4 + s])
            for x in range(4):
                A[off + AR_FNS + 2 * (g * 4 + x)] = jit
                A[off + AR_FNS + 2 * (g * 4 + x) + 1] = c
        S[O_ARENA + s] = base + 8 * off
        off += n
    for s in range(4):
        S[_v(s) + vw.V_ARENA] = S[O_ARENA + s]


@nb.njit(cache=True, inline="always")
def _blocks(n_items, win_out, pay_out):
    """A batch's blocks of BLOCK hands, its win and payment slots a hand, and a block state's length."""
    win_cap = win_out.shape[1]
    pay_cap = pay_out.shape[1]
    return (n_items + BLOCK - 1) // BLOCK, win_cap, pay_cap, O_FIXED_END + win_cap * N_WIN_FIELDS + pay_cap * N_PAY_FIELDS


@nb.njit(cache=True, inline="always")
def _unowned_rows(hand_out, seat_out, win_out, pay_out):
    """The four output arrays without their owners (no reference counting in the blocks' loops)."""
    return unowned(hand_out), unowned(seat_out), unowned(win_out), unowned(pay_out)


@nb.njit(cache=True, parallel=True, nogil=True)
def play_batch(tab, R, OPT, fns, setup, rfns, arena, seed, first, n_items, match_mode, check, hand_out, seat_out, win_out,
               pay_out):
    """Play ``n_items`` independent hands (global indices first..) or matches (first..) into the
    output rows. Independent hand g is dealt by seat g mod 4. A match plays
    ``hands_per_match`` hands from ``start_points``, seat 0 dealing first, the next dealer by
    RULES.md; its hand j has global index match * hands_per_match + j. Results do not depend
    on thread count or block size: every hand is reset and seeded by its global index. It
    releases the GIL, so a writer thread can encode the previous chunk meanwhile. ``rfns`` and
    ``arena``: the searching seats' rollout players and arenas (``strategies.registry.Players``)."""
    hpm = R[R_HANDS_PER_MATCH] if match_mode else 1
    n_blocks, win_cap, pay_cap, s_len = _blocks(n_items, win_out, pay_out)
    tab = unowned(tab)
    hand_out, seat_out, win_out, pay_out = _unowned_rows(hand_out, seat_out, win_out, pay_out)
    no_dir = I64(0)
    for b in nb.prange(n_blocks):
        S_own = np.zeros(s_len, np.int64)
        S = data_ptr(S_own)
        A_own = np.zeros(arena_len(arena), np.int64)
        _start_block(S, data_ptr(A_own), R, OPT, seed, I64(win_cap), I64(pay_cap), check, tab, fns, setup, rfns, arena)
        lo = b * BLOCK
        hi = min(lo + BLOCK, n_items)
        for item in range(lo, hi):
            if match_mode:
                m = first + item
                dealer = I64(0)
                for s in range(4):
                    S[O_SCORES_IN + s] = R[R_START_POINTS]
                for j in range(hpm):
                    S[O_G] = m * hpm + j
                    dealer = play_hand(S, dealer, no_dir)
                    _write_rows(S, item * hpm + j, hand_out, seat_out, win_out, pay_out)
                    for s in range(4):
                        S[O_SCORES_IN + s] += S[O_NET + s]
                    if S[O_ERR] != ERR_NONE:
                        break
            else:
                g = first + item
                S[O_G] = g
                play_hand(S, g % 4, no_dir)
                _write_rows(S, item, hand_out, seat_out, win_out, pay_out)
        S_own[0] += 0  # keep the owners alive past the last use of their pointers
        A_own[0] += 0


@nb.njit(cache=True, parallel=True, nogil=True)
def play_shadowed(tab, R, OPT, fns, setup, rfns, arena, arm_fns, arm_setup, same, seed, first, n_items, check, hand_out,
                  seat_out, win_out, pay_out, arm_hand, arm_seat, arm_win, arm_pay, differed):
    """Independent hands first.. of the field (``fns``) into the output rows, and of the arm
    (``arm_fns``, ``arm_setup``: its strategies as if it sat at every seat) at each seat r in turn
    (rotation r, the field at the other seats) into rows r * n_items + item of the arm's outputs,
    written only where the rotation differed (``differed[item, r]``; elsewhere the arm's hand is
    the field's, hand for hand). ``same``: bit g set where the arm's group-g strategy and
    parameters are the field's. The seats may not search (their arenas are not shadowed)."""
    n_blocks, win_cap, pay_cap, s_len = _blocks(n_items, win_out, pay_out)
    tab = unowned(tab)
    hand_out, seat_out, win_out, pay_out = _unowned_rows(hand_out, seat_out, win_out, pay_out)
    arm_hand, arm_seat, arm_win, arm_pay = _unowned_rows(arm_hand, arm_seat, arm_win, arm_pay)
    for b in nb.prange(n_blocks):
        S_own = np.zeros(s_len, np.int64)
        S = data_ptr(S_own)
        A_own = np.zeros(arena_len(arena), np.int64)
        _start_block(S, data_ptr(A_own), R, OPT, seed, I64(win_cap), I64(pay_cap), check, tab, fns, setup, rfns, arena)
        _store_strategies(S, O_SH_FNS, arm_fns)
        for i in range(vw.SETUP_LEN):
            S[O_SH_SETUP + i] = arm_setup[i]
        S[O_SH_SAME] = same
        saved = np.zeros((4, 3 + vw.N_SCRATCH), np.int64)   # per seat: done, resume points, counter, scratch
        for item in range(b * BLOCK, min(b * BLOCK + BLOCK, n_items)):
            g = first + item
            S[O_G] = g
            S[O_SH_ON] = 1
            play_hand(S, g % 4, I64(0))
            S[O_SH_ON] = 0
            _write_rows(S, item, hand_out, seat_out, win_out, pay_out)
            for r in range(4):
                saved[r, 0] = S[O_SH_DONE + r]
                saved[r, 1] = S[O_SH_K + r]
                saved[r, 2] = S[O_SH_RNG + r]
                for i in range(vw.N_SCRATCH):
                    saved[r, 3 + i] = S[O_SH_SCR + r * vw.N_SCRATCH + i]
            for r in range(4):
                differed[item, r] = saved[r, 0] == SH_DIFFERED
                if saved[r, 0] != SH_DIFFERED:
                    continue
                S[O_PAUSE] = saved[r, 1]
                play_hand(S, g % 4, I64(0))     # the field's hand again, up to the resume point
                S[O_PAUSE] = 0
                _seat_arm(S, r, arm_fns, arm_setup, saved[r, 3:], saved[r, 2])
                play_on(S, I64(0))
                _write_rows(S, r * n_items + item, arm_hand, arm_seat, arm_win, arm_pay)
                _set_players(S, tab, fns, setup)
        S_own[0] += 0
        A_own[0] += 0


@nb.njit(cache=True, parallel=True, nogil=True)
def play_fit(tab, R, OPT, fns, setup, rfns, arena, seed, first, n_items, sums):
    """Play independent hands first.. with each seat's luck per feature recorded (``OPT`` must
    measure luck: ``RunOptions`` with weights): block b adds its hands' sums to ``sums[b]``
    (``FIT_LEN`` floats: X'X, X'y, then the nets' count, sum and sum of squares;
    ``simcore.runs.value_model`` sums the blocks and solves). Results do not depend on thread
    count: each block sums its own hands."""
    n_blocks = (n_items + BLOCK - 1) // BLOCK
    s_len = O_FIXED_END
    tab = unowned(tab)
    for b in nb.prange(n_blocks):
        S_own = np.zeros(s_len, np.int64)
        S = data_ptr(S_own)
        A_own = np.zeros(arena_len(arena), np.int64)
        _start_block(S, data_ptr(A_own), R, OPT, seed, ZERO, ZERO, False, tab, fns, setup, rfns, arena)
        S[O_FIT] = address_of(data_ptr(sums[b]))
        for item in range(b * BLOCK, min(b * BLOCK + BLOCK, n_items)):
            S[O_G] = first + item
            play_hand(S, (first + item) % 4, I64(0))
            fit_hand(S)
        S_own[0] += 0
        A_own[0] += 0


@nb.njit(cache=True)
def play_traced(tab, fns, setup, rfns, arena, dealer, scores0, fixed_wall, fixed_dir, S, hand_out, seat_out, win_out,
                pay_out):
    """One hand with its event log on (traces, scenarios): the same ``play_hand`` as the batch.
    S must be laid out by ``layout`` with its header filled (see ``simcore.inspection.trace``). Compiled
    for ``SIG_TRACED`` by ``traced()`` when first needed, so a simulation never compiles it."""
    P = data_ptr(S)
    _set_players(P, tab, fns, setup)
    A_own = np.zeros(arena_len(arena), np.int64)
    _set_arenas(P, data_ptr(A_own), rfns, arena)
    for s in range(4):
        P[O_SCORES_IN + s] = scores0[s]
    P[O_FIXED_WALL_N] = fixed_wall.shape[0] if fixed_wall.shape[0] == N_TILES else 0
    for i in range(P[O_FIXED_WALL_N]):
        P[O_FIXED_WALL + i] = fixed_wall[i]
    if P[O_AT] == AT_END:  # a new hand (O_PAUSE may stop it at a resume point)
        play_hand(P, dealer, fixed_dir)
    else:  # a hand stopped at a resume point goes on
        play_on(P, fixed_dir)
    _write_rows(P, I64(0), hand_out, seat_out, win_out, pay_out)
    A_own[0] += 0


def _compiled_for(kernel, sig):
    """``kernel`` compiled for ``sig`` (from numba's cache when it can) and closed to other
    signatures, as an eagerly compiled kernel is, but only when first needed."""
    if sig.args not in kernel.overloads:
        kernel.compile(sig)
        kernel.disable_compile()
    return kernel


def batch_kernel():
    """``play_batch`` for ``SIG_BATCH``. Compiled when first needed, not on import: a process
    that only compiles strategies (``simcore.runs.warmup``'s child, which imports the engine through
    the search player) leaves it alone."""
    return _compiled_for(play_batch, SIG_BATCH)


def shadowed_kernel():
    """``play_shadowed`` for ``SIG_SHADOWED``, compiled when a duplicate first shadows an arm."""
    return _compiled_for(play_shadowed, SIG_SHADOWED)


def fit_kernel():
    """``play_fit`` for ``SIG_FIT``, compiled when a value model is first fitted."""
    return _compiled_for(play_fit, SIG_FIT)


def traced():
    """``play_traced`` for ``SIG_TRACED``, so a simulation never compiles it."""
    return _compiled_for(play_traced, SIG_TRACED)
