"""Conformance: every built-in answers legally in 10,000 situations from real play, and the
check catches each kind of misbehaviour it promises to catch."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from simcore.cli import main
from simcore.tables import load_tables
from simcore.conformance import check_spec
from strategies.registry import EXCHANGE, PLAY, VOID

BUILTIN_SPECS = ([f"{p}" for p in PLAY]
                 + [f"greedy+exchange={e}" for e in EXCHANGE if e != "shortest"]
                 + [f"greedy+void={v}" for v in VOID if v != "fewest"])


@pytest.mark.parametrize("spec", BUILTIN_SPECS)
def test_every_builtin_conforms(spec):
    report = check_spec(spec, situations=10_000)
    assert report.ok, report.summary()
    assert report.situations >= 10_000
    assert all(report.by_preset[p] > 0 for p in report.by_preset), "every preset is played"
    for kind in ("exchange", "void", "turn", "claim"):
        assert report.by_question[kind] > 0, f"{kind} questions are asked"


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
    path = tmp_path_factory.mktemp("bots") / "bots.py"
    path.write_text(MISBEHAVING)
    return path


def test_scratch_writes_are_allowed(bots):
    assert check_spec(f"{bots}:scribbler", situations=2_000).ok


def test_a_write_outside_scratch_fails_naming_the_slot(bots):
    report = check_spec(f"{bots}:vandal", situations=2_000)
    assert not report.ok
    msg = report.first_failure()
    assert "wrote to view slot 11 (V_WALL_LEFT)" in msg and "sichuan trace --rules" in msg


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
