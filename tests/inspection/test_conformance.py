"""Conformance: every built-in answers legally in 10,000 situations from real play, and the
check catches each kind of misbehaviour it promises to catch."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from simcore.cli import main
from simcore.contract.tables import load_tables
from simcore.inspection import conformance
from simcore.contract import records as rec
from simcore.inspection.conformance import MIN_EACH, check_spec
from simcore.inspection.situations import builder, play_steered, steered
from strategies.registry import EXCHANGE, PLAY, VOID
from tests.support.bots import write_bots

pytestmark = pytest.mark.slow  # every test here takes seconds (see conftest.py)

BUILTIN_SPECS = ([f"{p}" for p in PLAY]
                 + [f"greedy+exchange={e}" for e in EXCHANGE if e != "shortest"]
                 + [f"greedy+void={v}" for v in VOID if v != "fewest"])


@pytest.mark.parametrize("spec", BUILTIN_SPECS)
def test_every_builtin_conforms(spec):
    report = check_spec(spec, situations=10_000)
    assert report.ok, report.summary()
    assert report.situations >= 10_000
    assert all(report.by_preset[p] > 0 for p in report.by_preset), "every preset is played"
    for kind in ("exchange", "void", "turn", "claim", "rob"):
        assert report.by_question[kind] > 0, f"{kind} questions are asked"
    short = {k: v for k, v in report.by_situation.items() if v < MIN_EACH}
    assert not short, f"every situation is put to the strategy {MIN_EACH} times: {short}"


# A strategy that plays as ``efficient`` but answers illegally in one situation, chosen by its
# parameter; it tells the situations apart by its own reading of the view (not the engine's).
PICKY = textwrap.dedent('''
    import numba as nb
    from strategies.api import (
        Param, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, STRATEGY_SIG, V_CAN_KONG, V_CAN_PUNG, V_CAN_WIN,
        V_KONG_MASK, V_LOCKED, param_int, parameters,
    )
    from strategies.play import efficient

    @nb.njit(cache=True)
    def where(q, view):
        """The index in NAMES of the situation asked."""
        if q == Q_EXCHANGE:
            return 0
        if q == Q_VOID:
            return 1
        if q == Q_ROB:
            return 11
        if q == Q_TURN:
            if view[V_LOCKED]:
                return 5
            return 4 if view[V_CAN_WIN] else (3 if view[V_KONG_MASK] else 2)
        if view[V_CAN_WIN]:
            return 10 if view[V_CAN_KONG] else (9 if view[V_CAN_PUNG] else 8)
        return 7 if view[V_CAN_KONG] else 6

    NAMES = ("exchange", "void", "turn_discard", "turn_kong", "turn_win", "locked_turn", "claim_pung",
             "claim_pung_kong", "claim_win", "claim_win_pung", "claim_win_pung_kong", "rob")

    @parameters(Param.choice("bad", "exchange", NAMES, "the situation answered illegally"),
                Param.int("unused", 0, 0, 1, "a second parameter: the seat's name then holds a comma"))
    @nb.njit(STRATEGY_SIG, cache=True)
    def picky(q, view, tab):
        if where(q, view) == param_int(view, 0):
            return 99
        return efficient(q, view, tab)
''')


@pytest.fixture(scope="module")
def picky(tmp_path_factory):
    return write_bots(tmp_path_factory.mktemp("picky"), "picky", PICKY)


@pytest.mark.parametrize("situation", rec.SITUATIONS)
def test_an_illegal_answer_in_any_one_situation_fails_the_check(picky, situation):
    kinds = {"exchange": "exchange", "void": "void", "rob": "rob"}
    part = "play" if situation not in ("exchange", "void") else situation
    spec = f"{picky}:picky[bad={situation}]" if part == "play" else f"efficient+{part}={picky}:picky[bad={situation}]"
    report = check_spec(spec, situations=2_000)
    assert not report.ok, f"an illegal answer in {situation} passed the check: {report.summary()}"
    question = kinds.get(situation, "turn" if situation.endswith("turn") or situation.startswith("turn") else "claim")
    assert "99" in report.first_failure() and question in report.first_failure(), report.first_failure()
    named = "picky.py:picky'" if situation == "exchange" else f"picky.py:picky[bad={situation}]"   # exchange: the default
    assert named in report.first_failure(), "the failure names the seat spec (its non-default parameters)"


@pytest.mark.parametrize("situation", [s for s in rec.SITUATIONS if builder(s) is not None])
def test_each_steered_hand_puts_its_situation_to_the_checked_seat(situation):
    from strategies.registry import parse_seats, seat_functions

    rng = np.random.default_rng(7)
    players = seat_functions(parse_seats("efficient"))
    for g in range(20):
        sc = steered(situation, rng)
        assert sc is not None
        me, hand, seats = play_steered(sc, players, 0, g)
        assert hand[rec.H_ERROR] == rec.ERR_NONE
        assert seats[me, rec.S_SITUATION + rec.SITUATIONS.index(situation)] >= 1, (situation, sc)


def test_a_situation_that_cannot_be_reached_fails_the_check_by_name(monkeypatch):
    monkeypatch.setattr(conformance, "steered", lambda situation, rng: None)
    report = check_spec("efficient", situations=500)
    assert not report.ok
    assert "rob (0)" in report.first_failure() and "fewer than 200 times" in report.first_failure()


MISBEHAVING = textwrap.dedent('''
    import numba as nb
    import numpy as np
    from strategies.api import C_PASS, Q_CLAIM, Q_TURN, STRATEGY_SIG, V_HAND_INDEX, V_SCRATCH, V_WALL_LEFT
    from strategies.play import greedy

    @nb.njit(STRATEGY_SIG, cache=True)
    def scribbler(q, view, tab):
        """Keeps a counter in its scratch slots: allowed."""
        view[V_SCRATCH] += 1
        return greedy(q, view, tab)

    @nb.njit(STRATEGY_SIG, cache=True)
    def vandal(q, view, tab):
        """Overwrites the wall count in its view: not allowed."""
        ans = greedy(q, view, tab)
        view[V_WALL_LEFT] = 0
        return ans

    @nb.njit(STRATEGY_SIG, cache=True)
    def table_writer(q, view, tab):
        """Changes one byte of the shared suit tables on its turns in hand 3."""
        if q == Q_TURN and view[V_HAND_INDEX] == 3:
            tab[5] = (tab[5] + 1) % 256
        return greedy(q, view, tab)

    @nb.njit(STRATEGY_SIG, cache=True)
    def coin_flipper(q, view, tab):
        """Passes on claims at the toss of an unseeded coin: legal, but not reproducible."""
        if q == Q_CLAIM and np.random.random() < 0.5:
            return C_PASS
        return greedy(q, view, tab)
''')


@pytest.fixture(scope="module")
def bots(tmp_path_factory):
    return write_bots(tmp_path_factory.mktemp("bots"), "bots", MISBEHAVING)


def test_scratch_writes_are_allowed(bots):
    assert check_spec(f"{bots}:scribbler", situations=2_000).ok


def test_a_write_outside_scratch_fails_naming_the_slot(bots):
    report = check_spec(f"{bots}:vandal", situations=2_000)
    assert not report.ok
    msg = report.first_failure()
    assert "wrote to view slot 11 (V_WALL_LEFT)" in msg and "sichuan trace --seats" in msg and "--seed 0" in msg


def test_a_write_into_the_tables_fails_and_is_undone(bots):
    before = load_tables().copy()
    report = check_spec(f"{bots}:table_writer", situations=2_000)
    assert not report.ok and "suit tables" in report.first_failure()
    assert (load_tables() == before).all(), "the check restores the tables it found changed"


def test_unseeded_randomness_fails_reproducibility(bots):
    report = check_spec(f"{bots}:coin_flipper", situations=2_000)
    assert not report.ok and "not reproducible" in report.first_failure()


def test_cli_check_prints_the_report_and_exits_by_verdict(bots):
    ok = CliRunner().invoke(main, ["strategies", "--check", "greedy", "--situations", "500"])
    assert ok.exit_code == 0, ok.output + ok.stderr
    assert "conformance of greedy+exchange=shortest+void=fewest: ok" in ok.output
    bad = CliRunner().invoke(main, ["strategies", "--check", f"{bots}:vandal", "--situations", "500"])
    assert bad.exit_code == 2 and "FAILED" in bad.output
    assert len(bad.stderr.strip().splitlines()) == 1 and "V_WALL_LEFT" in bad.stderr
    for spec, needle in [("nosuch", "unknown play strategy"), ("greedy,greedy,greedy,greedy", "one seat spec")]:
        res = CliRunner().invoke(main, ["strategies", "--check", spec])
        assert res.exit_code == 2 and needle in res.stderr and len(res.stderr.strip().splitlines()) == 1
