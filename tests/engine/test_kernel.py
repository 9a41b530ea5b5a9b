"""The batch kernel: invariants in checking mode on 100,000 random hands per preset,
determinism across thread counts and batch splits, and traces equal to batch rows."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from tests.support import engine_internals as E
import simcore.contract.records as rec
from simcore.runs.batch import run_batch
from simcore.contract.nrt import data_ptr
from simcore.contract.rules import PRESETS, preset
from simcore.inspection.trace import run_traced, trace_hand
from strategies.registry import parse_seats, seat_functions

MIXED = "random,greedy,efficient+exchange=random+void=random,defensive+exchange=keep-pairs+void=weakest"
FLUSHY = "flush+void=weakest,random+exchange=random,greedy+exchange=keep-pairs,efficient"


def _fns(spec):
    return seat_functions(parse_seats(spec))


def _net_from_payments(res):
    n = res.n
    net = np.zeros((n, 4), np.int64)
    for i in range(n):
        for p in res.pay[i, :res.hand[i, rec.H_N_PAYMENTS]]:
            net[i, p[rec.P_PAYER]] -= p[rec.P_AMOUNT]
            net[i, p[rec.P_PAYEE]] += p[rec.P_AMOUNT]
    return net


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_invariants_hold_on_100000_random_hands(name):
    """Checking mode verifies after every step: 108 tiles accounted for, no discard outside the
    void suit while holding it, no win while holding it, payments add up to net, zero sum, and
    each seat's readiness hint and shanten bound agree with its tiles."""
    half = 50_000
    for spec, seed in ((MIXED, 101), (FLUSHY, 202)):
        res = run_batch(preset(name), _fns(spec), seed, 0, half, check=True)  # raises InvariantError
        assert (res.hand[:, rec.H_ERROR] == 0).all()
        assert (res.seat[:, :, rec.S_NET].sum(axis=1) == 0).all()
        sample = slice(0, 2000)
        part = run_batch(preset(name), _fns(spec), seed, 0, 2000)
        assert (_net_from_payments(part) == part.seat[sample, :, rec.S_NET]).all()
        assert (res.seat[:, :, rec.S_NET_REASON:rec.S_NET_REASON + rec.N_REASONS].sum(axis=2)
                == res.seat[:, :, rec.S_NET]).all()


# each new option of the tfmj preset on its own in battle, the new fans at 1 (RULES.md: Options and presets)
NEW_OPTIONS = [
    ({"passed_win_lock": True, "passed_win_higher": True}, None),
    ({"added_kong_drawn_only": True}, None),
    ({"exposed_kong_bloom": "feeder_pays"}, "feeder"),
    ({"kong_discard_liability": "transfer"}, "transfer"),
    ({"fan_kong_discard": 1}, "kong_discard"),
    ({"fan_self_draw": 1}, "self_draw"),
]


@pytest.mark.slow
@pytest.mark.parametrize("sets,seen", NEW_OPTIONS, ids=[next(iter(s)) for s, _ in NEW_OPTIONS])
def test_invariants_hold_with_each_new_option(sets, seen):
    """As above (check mode, 50,000 hands of a table that claims, kongs and passes wins), under
    battle with one new option on; and the option's effect shows in the results."""
    from simcore.contract.evaluate import PATTERNS
    from simcore.contract.rules import resolve

    res = run_batch(resolve("battle", sets), _fns("expert,greedy,flush+void=weakest,efficient"), 303, 0, 50_000,
                    check=True)
    assert (res.hand[:, rec.H_ERROR] == 0).all()
    assert (res.seat[:, :, rec.S_NET].sum(axis=1) == 0).all()
    assert (res.seat[:, :, rec.S_NET_REASON:rec.S_NET_REASON + rec.N_REASONS].sum(axis=2)
            == res.seat[:, :, rec.S_NET]).all()
    n = res.hand[:, rec.H_N_WINS]
    rows = res.win[np.arange(res.win.shape[1])[None, :] < n[:, None]]
    if seen == "feeder":
        assert ((rows[:, rec.W_KIND] == rec.WIN_KONG_REPLACEMENT) & (rows[:, rec.W_FROM] >= 0)).any()
    elif seen == "transfer":
        assert (res.seat[:, :, rec.S_NET_TRANSFER] != 0).any()
    elif seen is not None:
        assert (rows[:, rec.W_PATTERNS + PATTERNS.index(seen)] == 1).any()


@numba.njit
def _check_hints(S):
    return E.check_hints(data_ptr(S))


def test_check_mode_catches_a_wrong_readiness_hint_or_shanten_bound():
    """The hints that let unready seats skip win tests are checked against the tiles: a bound
    above the shanten, or a cached hint that disagrees, is reported with its seat."""
    for g in range(20):
        S = run_traced(preset("battle"), _fns(MIXED), 7, g, g % 4)[0]
        assert _check_hints(S) == -1
        for seat in range(4):
            bound = S[E.O_SH_LOW + seat]
            S[E.O_SH_LOW + seat] = 20
            assert _check_hints(S) == seat
            S[E.O_SH_LOW + seat] = bound
            hint = S[E.O_RDY + seat]
            found = []
            for cached in (0, 1):  # one of the two disagrees with the tiles
                S[E.O_RDY + seat] = cached
                found.append(int(_check_hints(S)))
            assert sorted(found) == [-1, seat]
            S[E.O_RDY + seat] = hint


def _same(a, b):
    for f in ("hand", "seat", "win", "pay"):
        x, y = getattr(a, f), getattr(b, f)
        w = min(x.shape[1], y.shape[1]) if x.ndim == 3 else None
        if w is not None:
            x, y = x[:, :w], y[:, :w]
        assert np.array_equal(x, y), f


@pytest.mark.parametrize("name", ["battle", "flow"])
def test_results_do_not_depend_on_threads_or_batch_splits(name):
    fns = _fns(MIXED)
    rules = preset(name)
    numba.set_num_threads(1)
    one = run_batch(rules, fns, 9, 0, 3000)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    two = run_batch(rules, fns, 9, 0, 3000)
    _same(one, two)
    parts = [run_batch(rules, fns, 9, a, b - a) for a, b in ((0, 700), (700, 2999), (2999, 3000))]
    for f in ("hand", "seat"):
        assert np.array_equal(np.concatenate([getattr(p, f) for p in parts]), getattr(one, f))
    m1 = run_batch(rules, fns, 9, 0, 40, match_mode=True)
    m2 = run_batch(rules, fns, 9, 10, 30, match_mode=True)
    assert np.array_equal(m1.seat[10 * 8:], m2.seat) and np.array_equal(m1.hand[10 * 8:], m2.hand)


@pytest.mark.parametrize("name", PRESETS)
def test_every_traced_hand_equals_its_batch_row(name):
    fns = _fns(MIXED)
    names = [s.canonical for s in parse_seats(MIXED)]
    rules = preset(name)
    res = run_batch(rules, fns, 4, 0, 60)
    for g in range(60):
        t = trace_hand(rules, fns, names, 4, g)
        # every field but the situation tallies, which only check mode (the trace's) counts
        assert np.array_equal(t.seat[0, :, :rec.S_SITUATION], res.seat[g, :, :rec.S_SITUATION]), g
        nw = res.hand[g, rec.H_N_WINS]
        npay = res.hand[g, rec.H_N_PAYMENTS]
        assert np.array_equal(t.hand[0, :rec.H_N_EVENTS], res.hand[g, :rec.H_N_EVENTS])
        assert np.array_equal(t.win[0, :nw], res.win[g, :nw])
        assert np.array_equal(t.pay[0, :npay], res.pay[g, :npay])
        assert t.events[-1]["net"] == res.seat[g, :, rec.S_NET].tolist()


def test_a_hand_replays_alone_with_the_same_wall():
    """The wall of hand g depends only on (seed, g): the same in any batch and with any seats."""
    a = trace_hand(preset("battle"), _fns("greedy"), ["greedy"] * 4, 5, 1234)
    b = trace_hand(preset("flow"), _fns("random"), ["random"] * 4, 5, 1234)
    assert a.events[1]["wall"] == b.events[1]["wall"]
    c = trace_hand(preset("battle"), _fns("greedy"), ["greedy"] * 4, 6, 1234)
    assert a.events[1]["wall"] != c.events[1]["wall"]


@pytest.mark.parametrize("name, match_mode", [("flow", False), ("flow", True), ("battle", False)])
def test_hands_that_outgrow_their_slots_are_replayed_to_the_same_result(name, match_mode, monkeypatch):
    """With tiny win and payment slots most hands overflow and are replayed alone with wider
    ones; the result equals a batch whose slots were wide enough from the start."""
    import simcore.runs.batch as B

    rules, fns = preset(name), _fns(MIXED)
    monkeypatch.setitem(B.WIN_CAP, rules.variant, 64)
    monkeypatch.setitem(B.PAY_CAP, rules.variant, 256)
    wide = run_batch(rules, fns, 9, 3, 40, match_mode=match_mode)
    monkeypatch.setitem(B.WIN_CAP, rules.variant, 1)
    monkeypatch.setitem(B.PAY_CAP, rules.variant, 3)
    tight = run_batch(rules, fns, 9, 3, 40, match_mode=match_mode)
    assert (wide.hand[:, rec.H_N_WINS] > 1).any(), "some hands overflowed"
    assert np.array_equal(wide.hand, tight.hand) and np.array_equal(wide.seat, tight.seat)
    for i in range(wide.hand.shape[0]):
        n_w, n_p = wide.hand[i, rec.H_N_WINS], wide.hand[i, rec.H_N_PAYMENTS]
        assert np.array_equal(wide.win[i, :n_w], tight.win[i, :n_w])
        assert np.array_equal(wide.pay[i, :n_p], tight.pay[i, :n_p])


def test_output_arrays_are_reused_only_once_their_result_is_dropped():
    """A batch reuses the previous batch's arrays when nothing refers to them (no page faults),
    and never those of a result the caller still holds."""
    import simcore.runs.batch as B

    rules, fns = preset("battle"), _fns(MIXED)
    held = run_batch(rules, fns, 4, 0, 300)
    kept = held.hand.copy(), held.seat.copy()
    other = run_batch(rules, fns, 4, 300, 300)  # same shape, while `held` is alive
    assert other.hand is not held.hand
    assert np.array_equal(held.hand, kept[0]) and np.array_equal(held.seat, kept[1])
    pooled = id(other.hand)  # the pool keeps that array alive, so its id stays unique
    del other
    again = run_batch(rules, fns, 4, 0, 300)
    assert id(again.hand) == pooled, "the dropped result's arrays were reused"
    assert np.array_equal(again.hand, held.hand) and np.array_equal(again.seat, held.seat)
    for i in range(300):
        n_w, n_p = held.hand[i, rec.H_N_WINS], held.hand[i, rec.H_N_PAYMENTS]
        assert np.array_equal(again.win[i, :n_w], held.win[i, :n_w])
        assert np.array_equal(again.pay[i, :n_p], held.pay[i, :n_p])
