"""Tables sampled from one seat's view (``simcore.engine.sample``): legal, agreeing with all the
seat saw, and spread as the void caps imply (ARCHITECTURE.md: Search)."""

from __future__ import annotations

import numpy as np
import pytest

import simcore.contract.view as vw
from tests.support import engine_internals as E
import simcore.engine.sample as SM
from simcore.contract.rules import PRESETS, apply_overrides, preset
from simcore.contract.tiles import N_KINDS
from tests.support.stopped_hands import players_of, stopped_points, view_in

SEARCHERS = ",".join(["search[rollouts=2]", "search[rollouts=2,policy=efficient]", "search[rollouts=2,policy=greedy]",
                      "search[rollouts=2,policy=flush]"])


def _concealed(S, o):
    return S[E.O_HAND + o * N_KINDS:E.O_HAND + (o + 1) * N_KINDS]


def _melds(S, o, hide_unknown_of=None):
    out = []
    for i in range(int(S[E.O_N_MELDS + o])):
        out.append((int(S[E.O_MELD_KIND + o * 4 + i]), int(S[E.O_MELD_TILE + o * 4 + i])))
    return out


def _assert_agrees(S, T, me):
    """What seat ``me`` knows of the real table S holds in the sampled table T."""
    V = view_in(S, me)
    assert np.array_equal(_concealed(T, me), _concealed(S, me))
    # scores now (nets count from the decision on)
    assert np.array_equal(T[E.O_SCORES_IN:E.O_SCORES_IN + 4], S[E.O_SCORES_IN:E.O_SCORES_IN + 4] + S[E.O_NET:E.O_NET + 4])
    assert T[E.O_BACK] - T[E.O_FRONT] == S[E.O_BACK] - S[E.O_FRONT]  # the wall's count
    def out_of_play(X):  # discards and set-aside winning tiles (the sampler does not tell them apart)
        return X[E.O_PILE:E.O_PILE + N_KINDS] + X[E.O_ASIDE:E.O_ASIDE + N_KINDS]

    assert np.array_equal(out_of_play(T), out_of_play(S))
    for o in range(4):
        assert _concealed(T, o).sum() == _concealed(S, o).sum(), o
        for a in ("O_VOID", "O_WINS", "O_OUT", "O_LOCKED", "O_DRAWS", "O_SEAT_KONGS"):
            assert T[getattr(E, a) + o] == S[getattr(E, a) + o], (a, o)
        real, sampled = _melds(S, o), _melds(T, o)
        assert len(real) == len(sampled)
        for i, ((k1, t1), (k2, t2)) in enumerate(zip(real, sampled)):
            assert k1 == k2
            if V[vw.V_MELD_TILE + o * 4 + i] >= 0:  # a concealed kong's tile may be hidden
                assert t1 == t2
        if o != me and V[vw.V_VOID_CAP + o] >= 0 and T[E.O_VOID + o] < 3:
            v = int(T[E.O_VOID + o])
            # the cap is sound on the real table, and the sample keeps it
            assert _concealed(S, o)[9 * v:9 * v + 9].sum() <= V[vw.V_VOID_CAP + o]
            assert _concealed(T, o)[9 * v:9 * v + 9].sum() <= V[vw.V_VOID_CAP + o]
    at = S[E.O_AT]
    where = ["O_AT", "O_DEALER"] + (["O_CUR", "O_KONGED"] if at in (E.AT_ASK, E.AT_CLAIMS) else [])
    where += ["O_PHASE", "O_DRAWN"] if at == E.AT_ASK else (["O_DISCARDED"] if at == E.AT_CLAIMS else [])
    for k in where:  # where the hand resumes
        assert T[getattr(E, k)] == S[getattr(E, k)], k


@pytest.mark.parametrize("name", PRESETS)
def test_sampled_tables_are_legal_and_agree_with_what_the_seat_saw(name):
    """At every resume point of four hands, two tables sampled for each asked seat: each agrees
    with every public fact and the seat's own tiles, keeps the void caps (which hold on the real
    table too), and plays to its end in check mode (108 tiles accounted for after every step,
    views recounted) with nets summing to zero."""
    rules = preset(name)
    players = players_of(SEARCHERS)
    arenas = [SM.arena_for(players, s) for s in range(4)]
    asked = {}
    for g in range(4):
        for p, S in stopped_points(rules, players_of("expert"), 11, g):
            for s in range(4):
                q = SM.pose(S, s)
                if q < 0:
                    continue
                for k in range(2):
                    T = SM.sample_table(S, s, arenas[s], 3, g * 10_000 + p * 10 + k, True)
                    assert T is not None, (g, p, s, q, SM.sample_failure(arenas[s]))
                    _assert_agrees(S, T, s)
                    SM.play_table(T)
                    assert T[E.O_ERR] == 0, (g, p, s, q, T[E.O_ERR:E.O_ERR + 4])
                    assert T[E.O_NET:E.O_NET + 4].sum() == 0
                    asked[q] = asked.get(q, 0) + 1
    assert asked.get(vw.Q_TURN, 0) > 100 and asked.get(vw.Q_VOID, 0) == 32
    assert (vw.Q_EXCHANGE in asked) == rules.exchange


def _unseen_oracle(S, me, n, rng):
    """Exact: the unseen tiles dealt uniformly to the holders by rejection (a uniform deal, kept
    only when every void cap holds), counted per holder and suit. Independent of the sampler
    but for the view's cap figures, whose soundness the test above checks."""
    V = view_in(S, me)
    pool = np.repeat(np.arange(N_KINDS), 4 - V[vw.V_VISIBLE:vw.V_VISIBLE + N_KINDS])
    holders, caps = [], []
    for o in range(4):
        if o == me or V[vw.V_WINS + o]:
            continue
        holders += [o] * int(_concealed(S, o).sum())
        cap = int(V[vw.V_VOID_CAP + o])
        caps.append((o, int(V[vw.V_VOID + o]), cap))
    holders += [4] * (len(pool) - len(holders))
    holders = np.array(holders)
    kept = np.zeros((5, 3))
    n_kept = tries = accepted = 0
    suit = pool // 9
    while n_kept < n:
        deals = suit[np.argsort(rng.random((4096, len(pool))), axis=1)]  # 4096 uniform deals
        tries += len(deals)
        ok = np.ones(len(deals), bool)
        for o, v, c in caps:
            if c >= 0:
                ok &= (deals[:, holders == o] == v).sum(axis=1) <= c
        accepted += ok.sum()
        for d in deals[ok][:n - n_kept]:
            n_kept += 1
            for h in range(5):
                kept[h] += np.bincount(d[holders == h], minlength=3)
        if tries > 2_000_000:
            break
    return kept / max(n_kept, 1), accepted / tries


def _sampled_spread(S, me, A, n):
    counts = np.zeros((5, 3))
    for k in range(n):
        T = SM.sample_table(S, me, A, 17, k, False)
        for o in range(4):
            if o != me and not T[E.O_WINS + o]:  # a winner's hand is known
                counts[o] += np.bincount(np.repeat(np.arange(N_KINDS), _concealed(T, o)) // 9, minlength=3)
        wall = T[E.O_WALL + T[E.O_FRONT]:E.O_WALL + T[E.O_BACK] + 1]
        counts[4] += np.bincount(wall // 9, minlength=3)
    return counts / n


@pytest.mark.slow
def test_sampled_tiles_are_spread_as_the_void_caps_imply():
    """Over many samples, the mean number of each suit in each holder's hand (and the wall)
    equals the exact law's (rejection sampling), at binding caps: at states where a plain
    uniform deal breaks some cap in at least 30% of deals, a sampler that ignored the caps,
    or mixed badly after repairing them, would be far off."""
    rules = apply_overrides(preset("battle"), {"exchange": False})  # no passed tiles: the oracle stays simple
    players = players_of("expert")
    A = SM.arena_for(players_of(SEARCHERS), 0)
    rng = np.random.default_rng(7)
    checked = 0
    for g in range(40):
        for p, S in stopped_points(rules, players, 23, g, every=5):
            if SM.pose(S, 0) != vw.Q_TURN:
                continue
            V = view_in(S, 0)
            if any(V[vw.V_MELD_KIND + o * 4 + i] == vw.M_KONG_CONCEALED and V[vw.V_MELD_TILE + o * 4 + i] < 0
                   for o in range(1, 4) for i in range(V[vw.V_N_MELDS + o])):
                continue
            _, rate = _unseen_oracle(S, 0, 1, rng)
            if not 0.03 < rate < 0.7:
                continue
            exact, _ = _unseen_oracle(S, 0, 3000, rng)
            got = _sampled_spread(S, 0, A, 3000)
            # a suit count in a hand of <= 14 tiles has sd <= 2.5: 3000 draws each, 6 se of the difference
            assert np.abs(got - exact).max() < 6 * 2.5 * np.sqrt(2 / 3000), (g, p, got, exact)
            checked += 1
            if checked == 4:
                return
    pytest.fail(f"only {checked} states with binding caps found")


