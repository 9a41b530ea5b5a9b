"""Issue 18: a hand that resumes anywhere, tables sampled from one seat's view, and the search
player (ARCHITECTURE.md: A hand that resumes; Search)."""

from __future__ import annotations

import numpy as np
import pytest

import simcore.engine.kernel as E
import simcore.contract.records as rec
import simcore.engine.sample as SM
import simcore.contract.view as vw
from simcore.runs.batch import run_batch
from simcore.contract.rules import PRESETS, apply_overrides, preset
from simcore.contract.tiles import N_KINDS
from simcore.inspection.trace import run_traced
from strategies.registry import parse_seats, seat_functions

MIXED = "random,greedy,efficient+exchange=random+void=random,defensive+exchange=keep-pairs+void=weakest"
SEARCH_SEATS = ["search[rollouts=2]", "search[rollouts=2,policy=efficient]", "search[rollouts=2,policy=greedy]",
                "search[rollouts=2,policy=flush]"]
SEARCHERS = ",".join(SEARCH_SEATS)


def _players(spec):
    return seat_functions(parse_seats(spec))


def _points(rules, players, seed, g, every=1):
    """The states of hand g stopped at each of its resume points (or every ``every``-th), in order."""
    p = every
    while True:
        S = run_traced(rules, players, seed, g, g % 4, pause=p)[0]
        if S[E.O_AT] == E.AT_END:
            return
        yield p, S
        p += every


def _view(S, s):
    return S[E.O_VIEWS + s * vw.VIEW_LEN:E.O_VIEWS + (s + 1) * vw.VIEW_LEN]


# -- 1. a hand that resumes -------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("spec", ["expert", MIXED])
def test_a_hand_resumed_from_any_point_plays_as_if_uninterrupted(name, spec):
    """Stopping a hand at a resume point, copying its state and playing the copy on gives the
    same log and rows as playing it through (every point of one hand, every 7th of two more)."""
    rules, players = preset(name), _players(spec)
    for g in range(3):
        whole = run_traced(rules, players, 5, g, g % 4)
        n = 0
        for p, S in _points(rules, players, 5, g):
            if g and p % 7:
                continue
            n += 1
            go_on = run_traced(rules, players, 5, g, g % 4, state=S.copy())
            assert np.array_equal(go_on[1], whole[1]), (name, spec, g, p)
            for a, b in zip(go_on[2:], whole[2:]):
                assert np.array_equal(a, b), (name, spec, g, p)
        assert n >= 5


# -- 2. sampled tables --------------------------------------------------------------------------


def _concealed(S, o):
    return S[E.O_HAND + o * N_KINDS:E.O_HAND + (o + 1) * N_KINDS]


def _melds(S, o, hide_unknown_of=None):
    out = []
    for i in range(int(S[E.O_N_MELDS + o])):
        out.append((int(S[E.O_MELD_KIND + o * 4 + i]), int(S[E.O_MELD_TILE + o * 4 + i])))
    return out


def _assert_agrees(S, T, me):
    """What seat ``me`` knows of the real table S holds in the sampled table T."""
    V = _view(S, me)
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
    players = _players(SEARCHERS)
    arenas = [SM.arena_for(players, s) for s in range(4)]
    asked = {}
    for g in range(4):
        for p, S in _points(rules, _players("expert"), 11, g):
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
    V = _view(S, me)
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
    players = _players("expert")
    A = SM.arena_for(_players(SEARCHERS), 0)
    rng = np.random.default_rng(7)
    checked = 0
    for g in range(40):
        for p, S in _points(rules, players, 23, g, every=5):
            if SM.pose(S, 0) != vw.Q_TURN:
                continue
            V = _view(S, 0)
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


# -- 3. the search player ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_search_plays_legally_and_reproducibly(name):
    """Search seats (each with another rollout policy, and search at exchange and void) play
    legal hands in check mode; the same seed gives the same hands whatever the thread count."""
    spec = ",".join(s + "+exchange=search[rollouts=2]+void=search[rollouts=2]" for s in SEARCH_SEATS)
    players = _players(spec)
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
    first, the best's gap 0, exactly one candidate marked as the seat's own choice."""
    from click.testing import CliRunner

    import simcore
    from simcore.cli import main

    df = simcore.analyze(hand=3, seat=0, seed=7, decision=0, rollouts=50)
    assert (df["decision"] == 0).all() and df["question"].iloc[0] == "exchange"
    assert df["chosen"].sum() == 1 and df["best"].sum() == 1
    assert df.loc[df["best"], "gap"].iloc[0] == 0 and (df["gap"] >= 0).all()
    assert (df["lo"] <= df["mean"]).all() and (df["mean"] <= df["hi"]).all()
    assert list(df["mean"]) == sorted(df["mean"], reverse=True)
    out = CliRunner().invoke(main, ["analyze", "--seed", "7", "--hand", "3", "--seat", "0", "--decision", "0",
                                    "--rollouts", "50"])
    assert out.exit_code == 0 and out.output.startswith("decision 0: exchange (50 rollouts)")
    bad = CliRunner().invoke(main, ["analyze", "--hand", "3", "--seat", "0", "--decision", "999", "--rollouts", "5"])
    assert bad.exit_code != 0 and "--decision 999" in bad.output


def test_the_command_line_offers_every_rollout_policy():
    from simcore.cli import ROLLOUT_POLICIES
    from strategies.search import POLICIES

    assert ROLLOUT_POLICIES == POLICIES


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
        players = _players(spec + ",expert,expert,expert")
        arena = _own_arena(players, 0)
        for g in range(8):
            for _, S in _points(preset(rules), players, 5, g):
                if SM.pose(S, 0) != q_kept:
                    continue
                got = int(ask_posed(S.copy(), np.int64(0), tab, np.int64(0), arena))
                view = _view(S.copy(), 0)
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
