"""The search player: legal and reproducible, judging decisions by rollouts on sampled tables,
and ``sichuan analyze`` (ARCHITECTURE.md: Search). The resume and the sampler it stands on are
tested in tests/engine/test_resume.py and tests/engine/test_sample.py."""

from __future__ import annotations

import numpy as np
import pytest

import simcore.contract.records as rec
import simcore.engine.sample as SM
import simcore.contract.view as vw
from simcore.runs.batch import run_batch
from simcore.contract.rules import PRESETS, preset
from tests.support.stopped_hands import players_of, stopped_points, view_in

SEARCH_SEATS = ["search[rollouts=2]", "search[rollouts=2,policy=efficient]", "search[rollouts=2,policy=greedy]",
                "search[rollouts=2,policy=flush]"]


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_search_plays_legally_and_reproducibly(name):
    """Search seats (each with another rollout policy, and search at exchange and void) play
    legal hands in check mode; the same seed gives the same hands whatever the thread count."""
    spec = ",".join(s + "+exchange=search[rollouts=2]+void=search[rollouts=2]" for s in SEARCH_SEATS)
    players = players_of(spec)
    checked = run_batch(preset(name), players, 3, 0, 12, check=True, threads=2)  # raises on an illegal answer
    assert (checked.hand[:, rec.H_ERROR] == 0).all()
    one = run_batch(preset(name), players, 3, 0, 12, threads=1)
    two = run_batch(preset(name), players, 3, 0, 12, threads=2)
    def payments(r):
        return [r.pay[i, :r.hand[i, rec.H_N_PAYMENTS]].tolist() for i in range(r.n)]

    assert np.array_equal(one.seat, two.seat) and payments(one) == payments(two)
    assert payments(one) == payments(checked)  # check mode only adds its counts


def test_analyze_judges_a_decision_with_the_seats_choice_among_the_candidates():
    """``sichuan analyze`` (and ``simcore.inspection.review``): one block per decision, candidates best
    first, the best's gap within noise of 0, exactly one candidate marked as the seat's own choice."""
    from click.testing import CliRunner

    import simcore
    from simcore.cli import main

    df = simcore.analyze(hand=3, seat=0, seed=7, decision=0, rollouts=50)
    assert (df["decision"] == 0).all() and df["question"].iloc[0] == "exchange"
    assert df["chosen"].sum() == 1 and df["best"].sum() == 1
    best = df.loc[df["best"]].iloc[0]
    assert best["gap_lo"] <= 0 <= best["gap_hi"] and (df["gap_lo"] <= df["gap"]).all() and (df["gap"] <= df["gap_hi"]).all()
    assert (df["lo"] <= df["mean"]).all() and (df["mean"] <= df["hi"]).all()
    assert list(df["mean"]) == sorted(df["mean"], reverse=True)
    out = CliRunner().invoke(main, ["analyze", "--seed", "7", "--hand", "3", "--seat", "0", "--decision", "0",
                                    "--rollouts", "50"])
    lines = out.output.splitlines()
    assert out.exit_code == 0 and lines[0].startswith("rollouts played by: expert") and \
        lines[1] == "decision 0: exchange (50 rollouts)"
    bad = CliRunner().invoke(main, ["analyze", "--hand", "3", "--seat", "0", "--decision", "999", "--rollouts", "5"])
    assert bad.exit_code != 0 and "--decision 999" in bad.output


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["battle", "flow"])
def test_where_search_keeps_its_policy_the_policy_plays_with_its_own_parameters(rules):
    """A question the search does not search is answered by its rollout policy, on the seat's
    own view, whose parameter slots hold the search's: the policy must read its own parameters
    there (those the rollouts' tables get), so search[decisions=calls] plays every turn as
    expert would, and search[decisions=turn] every claim."""
    from simcore.inspection.review import _own_arena
    from simcore.contract.tables import load_tables
    from strategies import expert as X
    from strategies.params import declared, resolve_values, slots
    from strategies.search import ask_posed

    tab = load_tables()
    expert_params = slots(declared(X.expert), resolve_values(declared(X.expert), {}, "expert"))
    asked = telling = 0   # telling: questions where reading the search's slots would answer otherwise
    for spec, q_kept in (("search[decisions=calls,rollouts=2]", vw.Q_TURN), ("search[decisions=turn,rollouts=2]", vw.Q_CLAIM)):
        players = players_of(spec + ",expert,expert,expert")
        arena = _own_arena(players, 0)
        for g in range(8):
            for _, S in stopped_points(preset(rules), players, 5, g):
                if SM.pose(S, 0) != q_kept:
                    continue
                got = int(ask_posed(S.copy(), np.int64(0), tab, np.int64(0), arena))
                view = view_in(S.copy(), 0)
                misread = int(X.expert(view[vw.V_QUESTION], view.copy(), tab))  # the search's slots as its own
                view[vw.V_PARAMS:vw.V_PARAMS + vw.N_PARAMS] = expert_params
                want = int(X.expert(view[vw.V_QUESTION], view, tab))
                assert got == want, (spec, g)
                asked += 1
                telling += misread != want
    assert asked > 30 and telling >= 3, (asked, telling)


def _void_candidates(text, close):
    """The void suits ``search.search`` plays out for a hand of 13 tiles, with ``void_close``
    (from its parameters, as the player reads them)."""
    from tests.support.views import TAB, view_of

    from strategies import search as SR
    from strategies.params import declared, resolve_values, slots

    v = view_of(text, 0)
    v[vw.V_QUESTION] = vw.Q_VOID
    g = vw.V_PARAMS + 2 * vw.N_PARAMS
    v[g:g + vw.N_PARAMS] = slots(declared(SR.search), resolve_values(declared(SR.search), {"void_close": str(close)}, "search"))
    W = np.zeros(SR.SW_END, np.int64)
    n = SR.candidates(np.int64(vw.Q_VOID), v, TAB, np.int64(0), W, np.int64(3), vw.param_float(v, SR.P_VOID_CLOSE))
    return sorted(W[SR.SW_CAND:SR.SW_CAND + n].tolist())


def test_the_void_choice_is_searched_only_among_close_suits():
    """At the void choice the search plays out only the suits whose plan is within ``void_close``
    of the best (the policy's own answer always kept): one tile of a suit against sevens is no
    question; two suits built alike are; a wide ``void_close`` takes all three."""
    assert _void_candidates("1m1234567p12345s", 1.0) == [0]
    assert _void_candidates("135m11234567p135s", 0.0) == [0, 2]
    assert _void_candidates("135m11234567p135s", 10.0) == [0, 1, 2]
