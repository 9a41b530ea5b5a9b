"""The masks are the engine's legality: over 100,000 decisions of a masked agent (random one time in
five, else expert's answer, so that hands get ready and robbing a kong is asked too), every
masked action is accepted by the engine and every action it accepts is in the mask."""

from __future__ import annotations

import itertools

import numba as nb
import numpy as np
import pytest

from simcore.contract.actions import N_ACTIONS, answer_of
from simcore.contract.nrt import data_ptr
from simcore.contract.records import ERR_ILLEGAL, ERR_NONE
from simcore.contract.rules import PRESETS
from simcore.contract.tiles import N_KINDS, N_RANKS
from simcore.contract.view import Q_EXCHANGE, V_HAND, V_TILE
from simcore.engine import agents as AG
from tests.support import engine_internals as K
from simcore.env import Tables

DECISIONS = 100_000
PROBE_EVERY = 16   # every 16th decision: every action put to the engine


@nb.njit(cache=True)
def engine_accepts(ST, E, i, row, out):
    """out[a] = 1 where the engine, given action a's answer at table i's pending decision (not the
    exchange), plays on without an illegal-answer error, 0 where it stops the hand for it."""
    pos = E[i, AG.E_POS]
    seat = E[i, AG.E_PEND + pos]
    q = E[i, AG.E_Q + pos]
    for a in range(N_ACTIONS):
        ans = answer_of(q, a, ST[i, K.O_VIEWS + seat * K.VIEW_LEN + V_TILE])
        if ans < 0:          # no answer of this question's kind at all
            out[a] = 0
            continue
        row[:] = ST[i]
        S = data_ptr(row)
        for p in range(pos + 1, E[i, AG.E_N_PEND]):   # seats asked after it at this stop: any legal answer
            S[K.O_AGENT_ANS + E[i, AG.E_PEND + p]] = -1
        S[K.O_AGENT_ANS + seat] = ans
        S[K.O_AGENT_SKIP] = 1
        K.play_on(S, np.int64(0))
        bad = S[K.O_ERR] == ERR_ILLEGAL and S[K.O_ERR + 1] == seat
        out[a] = 0 if bad else 1
        if S[K.O_ERR] != ERR_NONE and not bad:
            out[a] = -1      # another error: the test fails on it


def _legal_triples(hand) -> set:
    """Brute force: every three tiles of one suit the hand holds (RULES.md: One hand, step by step, step 2)."""
    out = set()
    for a, b, c in itertools.combinations_with_replacement(range(N_KINDS), 3):
        if a // N_RANKS == c // N_RANKS and all(hand[t] >= (a, b, c).count(t) for t in (a, b, c)):
            out.add((a, b, c))
    return out


def _triples_by_masks(T: Tables, i: int) -> set:
    """Every three picks the masks allow from table i's exchange decision (its first pick)."""
    o = K.O_HAND + T.pending_seat(i) * N_KINDS
    hand = T.ST[i, o:o + N_KINDS].copy()
    out = set()
    for a in range(N_KINDS):
        for b in range(a, N_KINDS):
            for c in range(b, N_KINDS):
                if _mask_path(hand, a, b, c):
                    out.add((a, b, c))
    return out


def _mask_path(hand, a, b, c) -> bool:
    """Whether the masks allow picking a, then b, then c from ``hand``."""
    S = np.zeros(K.O_HAND + N_KINDS, np.int64)
    S[K.O_HAND:K.O_HAND + N_KINDS] = hand    # seat 0's counts
    picks = [-1, -1]
    for k, t in enumerate((a, b, c)):
        if not (_picks(S, *picks) >> t) & 1:
            return False
        if k < 2:
            picks[k] = t
    return True


@nb.njit(cache=True)
def _picks_kernel(S, a, b):
    return K.exchange_picks(data_ptr(S), np.int64(0), a, b)


def _picks(S, a, b):
    return int(_picks_kernel(S, np.int64(a), np.int64(b)))


@pytest.mark.slow
def test_masks_are_exactly_the_engine_legality_over_100000_decisions():
    rng = np.random.default_rng(2026)
    per_preset = DECISIONS // len(PRESETS) + 1
    decisions = probed = exchanges = 0
    seen_questions = set()
    for k, preset in enumerate(PRESETS):
        T = Tables(64, preset, "expert,greedy,efficient,expert", agents=(k % 4,))
        T.reset(seed=k, first=0)
        row = np.zeros(T.ST.shape[1], np.int64)
        acc = np.zeros(N_ACTIONS, np.int64)
        n = 0
        while n < per_preset:
            m = T.masks
            assert (m.sum(1) >= 1).all()
            for i in range(T.n):
                q = T.question(i)
                seen_questions.add(q)
                if (n + i) % PROBE_EVERY:
                    continue
                if q == Q_EXCHANGE:
                    if T.E[i, AG.E_NPICK] == 0:
                        hand = T.views()[i][V_HAND:V_HAND + N_KINDS]
                        assert _triples_by_masks(T, i) == _legal_triples(hand)
                        exchanges += 1
                    continue
                engine_accepts(T.ST, T.E, i, row, acc)
                assert (acc >= 0).all()
                assert np.array_equal(acc.astype(np.int8), m[i]), (preset, q, np.flatnonzero(acc), np.flatnonzero(m[i]))
                probed += 1
            actions = (rng.random(m.shape) * m).argmax(1)
            expert = rng.random(T.n) < 0.8   # mostly expert's answers: ready hands, so robbing comes up too
            actions[expert] = T.builtin("expert")[expert]
            T.step(actions)      # the engine accepts every masked action: an error would raise here
            n += T.n
        decisions += n
    assert decisions >= DECISIONS and probed >= DECISIONS // PROBE_EVERY // 2 and exchanges > 100
    assert seen_questions == {0, 1, 2, 3, 4}, seen_questions   # every kind of question, robbing a kong too
